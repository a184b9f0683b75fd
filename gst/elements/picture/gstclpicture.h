/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/opencl/gstclfilter.h>

G_BEGIN_DECLS
#define GST_TYPE_CL_PICTURE (gst_cl_picture_get_type ())
G_DECLARE_FINAL_TYPE (GstClPicture, gst_cl_picture, GST, CL_PICTURE, GstClFilter)
G_END_DECLS
