/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Kernel profiling, opt-in: kernels enqueued through gstcl::enqueue_2d() on a
 * context whose queue was created with CL_QUEUE_PROFILING_ENABLE (an
 * application's queue given to gst_cl_context_new_wrapped()) have their
 * device time (CL_PROFILING_COMMAND_END - START) added to process-wide
 * counters, one per kernel function name (other commands of a frame, such
 * as plane copies, under their own names: gstcl::profile_command();
 * launches that an element gives a suffix under the kernel's name and the
 * suffix, e.g. cldebayer's that gather the white-balance statistics,
 * "debayer_camera statistics"). The
 * events are collected as they complete, without callbacks. Contexts
 * without profiling pay nothing. For benchmarks and tuning. */
#pragma once

#include <gst/opencl/gstcl-prelude.h>

G_BEGIN_DECLS

/* Clears every counter (kernels still running are counted when they end). */
GST_CL_API void gst_cl_kernel_profile_reset (void);

/* Completed runs of kernel `name` since the last reset and their total device
 * time in ns. FALSE (zeros) when the kernel has not run. */
GST_CL_API gboolean gst_cl_kernel_profile_get (const gchar * name, guint64 * count,
    guint64 * total_ns);

/* (transfer full) NULL-terminated names of the kernels counted so far. */
GST_CL_API gchar **gst_cl_kernel_profile_names (void);

/* Profiled commands enqueued whose time is not counted yet (still running).
 * Wait for 0 after clFinish. */
GST_CL_API guint64 gst_cl_kernel_profile_pending (void);

G_END_DECLS
