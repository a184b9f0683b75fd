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
 * @filter: enqueue the work that reads @in and writes @out, on the context's
 *     in-order queue. Called with the context's queue free to use.
 *
 * @set_info and @filter are C++ and may throw cl::Error or
 * gstcl::BuildError: the base class catches them and posts an element error.
 */
struct _GstClFilterClass {
  GstClBaseTransformClass parent_class;

  GstCaps *(*transform_plain_caps) (GstClFilter * filter, GstPadDirection direction,
      GstCaps * caps);
  void (*set_info) (GstClFilter * filter, GstClContext * context, GstCaps * incaps,
      const GstVideoInfo * in_info, GstCaps * outcaps, const GstVideoInfo * out_info);
  GstFlowReturn (*filter) (GstClFilter * filter, GstClContext * context,
      const GstClFrame * in, const GstClFrame * out);

  gpointer _reserved[GST_PADDING];
};

/* Pad templates for a filter: `sink_caps` and `src_caps` (without features)
 * are offered in both OpenCL and system memory. */
GST_CL_API void gst_cl_filter_class_add_pad_templates (GstClFilterClass * klass,
    const gchar * sink_caps, const gchar * src_caps);

G_END_DECLS
