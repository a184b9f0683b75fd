/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/opencl/gstclfilter.h>

G_BEGIN_DECLS
/* Function prefix gst_clkernel_, not gst_cl_kernel_: that one belongs to the
 * embedded kernel sources (cl-kernels.h). */
#define GST_TYPE_CLKERNEL (gst_clkernel_get_type ())
G_DECLARE_FINAL_TYPE (GstClKernel, gst_clkernel, GST, CLKERNEL, GstClFilter)
G_END_DECLS
