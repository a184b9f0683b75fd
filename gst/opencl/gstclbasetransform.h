/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClBaseTransform: the base of every OpenCL element. It owns the `device`
 * property and the GstClContext, and does the context sharing: set_context,
 * answering GST_QUERY_CONTEXT, and finding or creating a context at start.
 * Its allocation handling proposes an OpenCL pool upstream (producers then
 * write straight into pinned, device-visible memory) and takes an OpenCL
 * pool for its output: the one downstream proposes where it is of the same
 * context and for the same caps (memory shared with another API:
 * gstclsource.hpp), else its own. It also keeps the property values its
 * subclass refused, and fails the start for one (gst_cl_base_transform_refuse()),
 * and owns `kernel-timeout`, the watchdog's limit for its launches
 * (gstclwatchdog.hpp). */
#pragma once

#include <gst/opencl/gstclcontext.h>
#include <gst/opencl/gstclvideo.h>
#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

#define GST_TYPE_CL_BASE_TRANSFORM (gst_cl_base_transform_get_type ())
GST_CL_API
G_DECLARE_DERIVABLE_TYPE (GstClBaseTransform, gst_cl_base_transform, GST,
    CL_BASE_TRANSFORM, GstBaseTransform)

struct _GstClBaseTransformClass {
  GstBaseTransformClass parent_class;
  gpointer _reserved[GST_PADDING];
};

/* The default of the `kernel-timeout` property, in milliseconds
 * ($GST_OPENCL_KERNEL_TIMEOUT overrides it for a process). */
#define GST_CL_DEFAULT_KERNEL_TIMEOUT 5000

/* `kernel-timeout`, in milliseconds (0: no limit): how long one launch of
 * the element's kernels may run on the device before the watchdog gives up
 * on it. Thread-safe. */
GST_CL_API guint gst_cl_base_transform_get_kernel_timeout (GstClBaseTransform * self);

/* (transfer full) the context in use, or NULL before start. */
GST_CL_API GstClContext *gst_cl_base_transform_get_context (GstClBaseTransform * self);

/* TRUE once the element has posted an error for the current stream. It posts
 * no other until the stream starts over (a change up to PAUSED, a flush, a
 * new stream): one mistake gives one error message. */
GST_CL_API gboolean gst_cl_base_transform_error_posted (GstClBaseTransform * self);

/* Refused property values, for a value that GObject's range check cannot
 * judge (a kernel, a matrix, build options). The element never stores such
 * a value; it says so here, and the base class does the rest:
 *
 * - not started (NULL or READY, e.g. while gst-launch-1.0 parses the launch
 *   line, when no bus exists yet): a g_warning at once, as GObject gives for
 *   an out-of-range number, and the refusal is remembered: going up to
 *   PAUSED then fails with an element error (LIBRARY, SETTINGS) naming the
 *   property and the value, before any start, until a good value of that
 *   property is set (gst_cl_base_transform_accept());
 * - started: a warning on the bus ending with `in_force` ("The previous
 *   kernel stays in force."); the value in force stays.
 *
 * `value` is the value as a launch line writes it. Call without holding
 * a lock that a bus sync handler may need (the element's own settings
 * lock: a handler may read its properties). */
GST_CL_API void gst_cl_base_transform_refuse (GstClBaseTransform * self,
    const gchar * property, const gchar * value, const gchar * why,
    const gchar * in_force);

/* `property` got a good value: a refusal of an earlier value is forgotten. */
GST_CL_API void gst_cl_base_transform_accept (GstClBaseTransform * self,
    const gchar * property);

/* Values good on their own that disagree (clconvolve's kernel and a
 * red-kernel of another size): `property` (whose `value` disagrees) and
 * `why`, or NULL `property` when they agree again. Reports nothing: the
 * element warns while it runs; kept started or not, it fails the next start
 * as a refused value does (after any refused value). */
GST_CL_API void gst_cl_base_transform_set_conflict (GstClBaseTransform * self,
    const gchar * property, const gchar * value, const gchar * why);

/* (transfer full) every structure of `caps`, with its memory features
 * replaced: in OpenCL memory and/or in system memory, OpenCL first when
 * `cl_first`. */
GST_CL_API GstCaps *gst_cl_caps_in_memories (const GstCaps * caps, gboolean cl_memory,
    gboolean system_memory, gboolean cl_first);

/* For transform_caps: (transfer full) the template of the pad opposite to
 * `direction`, what ANY caps transform to. */
GST_CL_API GstCaps *gst_cl_base_transform_other_template (GstBaseTransform * trans,
    GstPadDirection direction);

/* For transform_caps: `result` (transfer full) intersected with `filter`
 * (may be NULL), the filter's order first. */
GST_CL_API GstCaps *gst_cl_caps_apply_filter (GstCaps * result, GstCaps * filter);

/* (transfer full) `caps_str` with the memory:OpenCLMemory feature, followed by
 * the same caps in system memory, each when asked for. */
GST_CL_API GstCaps *gst_cl_caps_with_features (const gchar * caps_str, gboolean cl_memory,
    gboolean system_memory);

/* Adds the "sink" and "src" pad templates (always pads): each caps string in
 * OpenCL memory and/or in system memory, as gst_cl_caps_with_features(). */
GST_CL_API void gst_cl_base_transform_class_add_pad_templates (GstClBaseTransformClass * klass,
    const gchar * sink_caps, gboolean sink_cl, gboolean sink_system,
    const gchar * src_caps, gboolean src_cl, gboolean src_system);

G_END_DECLS
