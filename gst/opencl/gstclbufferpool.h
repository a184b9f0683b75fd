/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A pool of buffers made of one GstClMemory each, with a GstVideoMeta that
 * gives the real plane offsets and strides (raw video formats). */
#pragma once

#include <gst/opencl/gstclmemory.h>

G_BEGIN_DECLS

#define GST_TYPE_CL_BUFFER_POOL (gst_cl_buffer_pool_get_type ())
GST_CL_API
G_DECLARE_FINAL_TYPE (GstClBufferPool, gst_cl_buffer_pool, GST, CL_BUFFER_POOL, GstBufferPool)

GST_CL_API GstBufferPool *gst_cl_buffer_pool_new (GstClContext * context);
/* A pool configured for `caps` (raw video or Bayer) with GstVideoMeta, at
 * least `min` buffers; `size` gets the buffer size. NULL if the caps are not
 * video. */
GST_CL_API GstBufferPool *gst_cl_buffer_pool_new_for_caps (GstClContext * context,
    GstCaps * caps, guint min, guint * size);

/* (transfer none) */
GST_CL_API GstClContext *gst_cl_buffer_pool_get_context (GstBufferPool * pool);

/* For decide_allocation: `pool` (`size` bytes a buffer, at least `min`,
 * no maximum) as the query's first pool, in place of the one downstream
 * proposed, if any. */
GST_CL_API void gst_cl_query_put_output_pool (GstQuery * query, GstBufferPool * pool,
    guint size, guint min);

G_END_DECLS
