#pragma once

#include <gst/opencl/gstclfilter.h>

G_BEGIN_DECLS
/* Named GstClKernelFilter, not GstClKernel: the gst_cl_kernel_ prefix belongs
 * to the embedded kernel sources (cl-kernels.h). */
#define GST_TYPE_CL_KERNEL_FILTER (gst_cl_kernel_filter_get_type ())
G_DECLARE_FINAL_TYPE (GstClKernelFilter, gst_cl_kernel_filter, GST, CL_KERNEL_FILTER,
    GstClFilter)
G_END_DECLS
