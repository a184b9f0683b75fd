/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/opencl/gstclfilter.h>

G_BEGIN_DECLS
#define GST_TYPE_CL_SOBEL (gst_cl_sobel_get_type ())
G_DECLARE_FINAL_TYPE (GstClSobel, gst_cl_sobel, GST, CL_SOBEL, GstClFilter)
G_END_DECLS
