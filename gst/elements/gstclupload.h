/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/opencl/gstclbasetransform.h>

G_BEGIN_DECLS
#define GST_TYPE_CL_UPLOAD (gst_cl_upload_get_type ())
G_DECLARE_FINAL_TYPE (GstClUpload, gst_cl_upload, GST, CL_UPLOAD, GstClBaseTransform)
G_END_DECLS
