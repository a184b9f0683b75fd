/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/opencl/gstclbasetransform.h>

G_BEGIN_DECLS
#define GST_TYPE_CL_DOWNLOAD (gst_cl_download_get_type ())
G_DECLARE_FINAL_TYPE (GstClDownload, gst_cl_download, GST, CL_DOWNLOAD, GstClBaseTransform)
G_END_DECLS
