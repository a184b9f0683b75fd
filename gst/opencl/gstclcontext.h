/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClContext: one OpenCL context, device and in-order queue, shared by every
 * element of a pipeline through a GstContext of type "gst.opencl.context". */
#pragma once

#include <gst/opencl/gstcl-prelude.h>

G_BEGIN_DECLS

#define GST_CL_CONTEXT_TYPE_STR "gst.opencl.context"

#define GST_TYPE_CL_CONTEXT (gst_cl_context_get_type ())
GST_CL_API
G_DECLARE_FINAL_TYPE (GstClContext, gst_cl_context, GST, CL_CONTEXT, GstObject)

/* Creates a context on the device that `selector` picks (see the `device`
 * property of the elements). Returns NULL and sets `error` on failure. */
GST_CL_API GstClContext *gst_cl_context_new (const gchar * selector, GError ** error);

/* Wraps an application's own OpenCL objects (each is retained). `queue` may be
 * NULL; it must be in-order when given. A queue with CL_QUEUE_PROFILING_ENABLE
 * turns on kernel profiling (gstclprofile.h) for this context. */
GST_CL_API GstClContext *gst_cl_context_new_wrapped (cl_context context,
    cl_device_id device, cl_command_queue queue, GError ** error);

GST_CL_API cl_context gst_cl_context_get_cl_context (GstClContext * context);
GST_CL_API cl_device_id gst_cl_context_get_cl_device (GstClContext * context);
GST_CL_API cl_command_queue gst_cl_context_get_cl_queue (GstClContext * context);
/* "platform / device" */
GST_CL_API const gchar *gst_cl_context_get_device_name (GstClContext * context);
/* TRUE when the device reads host memory directly (CPU devices, iGPUs). */
GST_CL_API gboolean gst_cl_context_has_unified_memory (GstClContext * context);
/* TRUE when a kernel ran past its kernel-timeout on this context's queue
 * (docs/reliability.md, "Runaway kernels"): the queue is abandoned, every
 * wait on it fails at once, and no element takes this context again. */
GST_CL_API gboolean gst_cl_context_is_abandoned (GstClContext * context);
/* Does this context run on the device that `selector` picks? An empty selector
 * (property not set) accepts any context; an abandoned context matches none. */
GST_CL_API gboolean gst_cl_context_matches (GstClContext * context, const gchar * selector);

/* GstContext helpers */
GST_CL_API GstContext *gst_context_new_cl_context (GstClContext * context);
GST_CL_API gboolean gst_context_get_cl_context (GstContext * context, GstClContext ** out);

/* The standard context dance, for elements: a context already set, a
 * GST_QUERY_CONTEXT downstream then upstream, a NEED_CONTEXT message, else a
 * new context announced with HAVE_CONTEXT. Posts an element error on failure. */
GST_CL_API gboolean gst_cl_ensure_element_context (GstElement * element,
    const gchar * selector, GstClContext ** context);
/* For GstElement::set_context: keeps a matching context in *context. */
GST_CL_API void gst_cl_handle_set_context (GstElement * element, GstContext * context,
    const gchar * selector, GstClContext ** stored);
/* For pad/element queries: answers a GST_QUERY_CONTEXT from `context`. */
GST_CL_API gboolean gst_cl_handle_context_query (GstElement * element, GstQuery * query,
    GstClContext * context);

G_END_DECLS
