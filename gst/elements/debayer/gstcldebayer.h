/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/opencl/gstclfilter.h>

G_BEGIN_DECLS
#define GST_TYPE_CL_DEBAYER (gst_cl_debayer_get_type ())
G_DECLARE_FINAL_TYPE (GstClDebayer, gst_cl_debayer, GST, CL_DEBAYER, GstClFilter)
G_END_DECLS
