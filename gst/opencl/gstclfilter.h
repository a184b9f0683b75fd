/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClFilter: base class of the OpenCL filters. It negotiates both memory
 * features, proposes and decides OpenCL buffer pools, uploads input that is in
 * system memory, makes output readable by system-memory neighbours, and calls
 * the subclass with device buffers. Subclasses only describe their caps and
 * enqueue their kernels. */
#pragma once

#include <gst/opencl/gstclbasetransform.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

#define GST_TYPE_CL_FILTER (gst_cl_filter_get_type ())
GST_CL_API
G_DECLARE_DERIVABLE_TYPE (GstClFilter, gst_cl_filter, GST, CL_FILTER, GstClBaseTransform)

/* A frame on the device: the cl_mem of the whole buffer and its layout, with
 * the buffer's real plane offsets and strides. */
typedef struct {
  cl_mem mem;
  GstVideoInfo info;
  GstBuffer *buffer;
} GstClFrame;

/**
 * GstClFilterClass:
 * @transform_plain_caps: caps on the other pad for @caps, memory features
 *     ignored (the base class adds both). Default: the same caps.
 * @set_info: the negotiated formats; build programs and kernels here. For
 *     video/x-bayer the info describes the sample layout (GRAY8 or GRAY16_LE).
 * @plan: (optional) make the plan: which kernel runs, its build options and
 *     the arguments that do not change from frame to frame, for the current
 *     settings and for the layouts (plane offsets and strides) of @in and
 *     @out. The base class calls it just before @filter, and only when (a)
 *     it is the first frame after @set_info, (b) a setting changed since the
 *     last plan (any notified property of the element:
 *     gst_cl_filter_settings_changed() for the others), (c) the layouts of
 *     @in or @out differ from those of the frame last planned, or (d) the
 *     element asked for it (gst_cl_filter_replan(), e.g. when a background
 *     build is ready: a gstcl::BackgroundBuild started for a GstClFilter
 *     asks by itself). Never otherwise: @filter then only sets the per-frame
 *     arguments (the frames' cl_mem) and enqueues. A plan that throws is made
 *     again at the next frame.
 * @filter: enqueue the work that reads @in and writes @out, on the context's
 *     in-order queue. Called with the context's queue free to use.
 * @band_rows: (optional) the rows of the row bands (gstclbands.hpp) that
 *     the plan's kernels can take, a multiple of their work-groups' rows, or
 *     0 for whole frames. On a discrete device the base class then calls
 *     @plan before the input is on the device (in->mem and out->mem unset:
 *     a plan of such a filter reads only the frames' layouts), uploads the
 *     input in bands of a multiple of these rows, and @filter waits for
 *     them and marks the output rows it completes through
 *     gst_cl_filter_bands () (0: the base class waits for the whole input
 *     first).
 * @band_launches: (optional) the kernel launches a band of the plan takes
 *     (without: 1); a frame of bands with many launches goes in fewer bands,
 *     as each costs the host its enqueue calls (gstcl::band_count ()).
 *
 * @set_info, @plan and @filter are C++ and may throw cl::Error or
 * gstcl::BuildError: the base class catches them and posts an element error
 * (@plan and @filter run in one gstcl::BuildScope, so builds announce
 * themselves the same from either).
 */
struct _GstClFilterClass {
  GstClBaseTransformClass parent_class;

  GstCaps *(*transform_plain_caps) (GstClFilter * filter, GstPadDirection direction,
      GstCaps * caps);
  void (*set_info) (GstClFilter * filter, GstClContext * context, GstCaps * incaps,
      const GstVideoInfo * in_info, GstCaps * outcaps, const GstVideoInfo * out_info);
  GstFlowReturn (*filter) (GstClFilter * filter, GstClContext * context,
      const GstClFrame * in, const GstClFrame * out);
  void (*plan) (GstClFilter * filter, GstClContext * context, const GstClFrame * in,
      const GstClFrame * out);
  gint (*band_rows) (GstClFilter * filter);
  gint (*band_launches) (GstClFilter * filter);

  gpointer _reserved[GST_PADDING - 3];
};

/* Pad templates for a filter: `sink_caps` and `src_caps` (without features)
 * are offered in both OpenCL and system memory. */
GST_CL_API void gst_cl_filter_class_add_pad_templates (GstClFilterClass * klass,
    const gchar * sink_caps, const gchar * src_caps);

/* The settings of @filter changed in a way that its properties' notify does
 * not tell (every property set through GObject, a launch line or a control
 * binding notifies, and so counts by itself): e.g. the values of a child
 * object (clkernel's `parameters`) or a stream's tag (clconvert's
 * direction=auto). The next frame is planned again. Thread-safe. */
GST_CL_API void gst_cl_filter_settings_changed (GstClFilter * filter);

/* Asks for a plan at the next frame, for a reason of the element's own (a
 * program it waited for is ready). Thread-safe; may be called from any
 * thread while @filter is alive. */
GST_CL_API void gst_cl_filter_replan (GstClFilter * filter);

/* The number of plans @filter has made (calls of GstClFilterClass::plan that
 * returned) since it was created: with settings and layouts unchanged it
 * does not grow from frame to frame (tests/test_plan.cpp). 0 for a filter
 * without a plan hook. Thread-safe. */
GST_CL_API guint gst_cl_filter_get_plan_count (GstClFilter * filter);

/* From @filter (C++: may throw what the waits throw): waits until the frame
 * that the element handed on before is done on the device, where it was
 * handed on in flight (system-memory output: docs/architecture.md, "Frames
 * in flight"). For an element whose frame takes results read back from the
 * frame before: cldebayer's auto white balance and exposure. */
GST_CL_API void gst_cl_filter_wait_previous_frame (GstClFilter * filter,
    GstClContext * context);
/* Whether the frame that @filter handed on before is in flight (its
 * download or map not yet waited for: system-memory output). An element
 * that needs only part of that frame (results it read back first) may wait
 * for that part instead of gst_cl_filter_wait_previous_frame (). */
GST_CL_API gboolean gst_cl_filter_previous_frame_in_flight (GstClFilter * filter);

G_END_DECLS
