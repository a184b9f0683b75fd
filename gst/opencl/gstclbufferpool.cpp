/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstclbufferpool.h"
#include "gstclsource.hpp"
#include "gstclvideo.h"
#include "gstcl-debug.h"

#define GST_CAT_DEFAULT gst_cl_memory_debug

struct _GstClBufferPool {
  GstBufferPool parent;
  GstClContext *context;
  GstAllocator *allocator;
  GstVideoInfo info;
  gboolean raw_video;  /* video/x-raw: attach GstVideoMeta */
  /* where the allocator's buffers come from (gstclsource.hpp), or null */
  std::shared_ptr<gstcl::BufferSource> *source;
};

G_DEFINE_TYPE (GstClBufferPool, gst_cl_buffer_pool, GST_TYPE_BUFFER_POOL)

static const gchar **
cl_pool_get_options (GstBufferPool *)
{
  static const gchar *options[] = { GST_BUFFER_POOL_OPTION_VIDEO_META, nullptr };
  return options;
}

static gboolean
cl_pool_set_config (GstBufferPool * pool, GstStructure * config)
{
  auto *self = GST_CL_BUFFER_POOL (pool);
  GstCaps *caps = nullptr;
  guint size, min, max;
  if (!gst_buffer_pool_config_get_params (config, &caps, &size, &min, &max) || !caps) {
    GST_WARNING_OBJECT (pool, "no caps in config");
    return FALSE;
  }
  GstVideoInfo info;
  if (!gst_cl_video_info_from_caps (&info, caps)) {
    GST_WARNING_OBJECT (pool, "caps %" GST_PTR_FORMAT " are not video", caps);
    return FALSE;
  }
  self->info = info;
  self->raw_video = gst_structure_has_name (gst_caps_get_structure (caps, 0), "video/x-raw");
  size = MAX (size, (guint) GST_VIDEO_INFO_SIZE (&info));
  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  gst_buffer_pool_config_set_allocator (config, self->allocator, nullptr);
  GST_DEBUG_OBJECT (pool, "%ux%u, %u bytes a buffer, min %u max %u",
      GST_VIDEO_INFO_WIDTH (&info), GST_VIDEO_INFO_HEIGHT (&info), size, min, max);
  return GST_BUFFER_POOL_CLASS (gst_cl_buffer_pool_parent_class)->set_config (pool, config);
}

static GstFlowReturn
cl_pool_alloc_buffer (GstBufferPool * pool, GstBuffer ** buffer, GstBufferPoolAcquireParams *)
{
  auto *self = GST_CL_BUFFER_POOL (pool);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  guint size = 0;
  gst_buffer_pool_config_get_params (config, nullptr, &size, nullptr, nullptr);
  gst_structure_free (config);

  GstMemory *mem = gst_allocator_alloc (self->allocator, size, nullptr);
  if (!mem) {
    GST_ERROR_OBJECT (pool, "could not allocate a %u-byte OpenCL buffer", size);
    return GST_FLOW_ERROR;
  }
  /* Kernels write pixels only: zeroed once here, row padding and any bytes
   * past the last row stay zero for the buffer's life, so the same input
   * gives the same bytes. */
  if (!gst_cl_memory_clear (mem)) {
    GST_ERROR_OBJECT (pool, "could not clear a %u-byte OpenCL buffer", size);
    gst_memory_unref (mem);
    return GST_FLOW_ERROR;
  }
  GstBuffer *buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, mem);
  if (self->raw_video) {
    GstVideoInfo *i = &self->info;
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (i), GST_VIDEO_INFO_WIDTH (i), GST_VIDEO_INFO_HEIGHT (i),
        GST_VIDEO_INFO_N_PLANES (i), i->offset, i->stride);
  }
  *buffer = buf;
  return GST_FLOW_OK;
}

/* A foreign buffer hears that its buffer came back (gstclsource.hpp). */
static void
cl_pool_release_buffer (GstBufferPool * pool, GstBuffer * buffer)
{
  if (GST_CL_BUFFER_POOL (pool)->source) {
    for (guint i = 0; i < gst_buffer_n_memory (buffer); i++) {
      auto foreign = gstcl::foreign_buffer_of (gst_buffer_peek_memory (buffer, i));
      if (foreign)
        foreign->returned ();
    }
  }
  GST_BUFFER_POOL_CLASS (gst_cl_buffer_pool_parent_class)->release_buffer (pool, buffer);
}

static void
gst_cl_buffer_pool_finalize (GObject * object)
{
  auto *self = GST_CL_BUFFER_POOL (object);
  delete self->source;
  gst_object_unref (self->allocator);
  gst_object_unref (self->context);
  G_OBJECT_CLASS (gst_cl_buffer_pool_parent_class)->finalize (object);
}

static void
gst_cl_buffer_pool_class_init (GstClBufferPoolClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_cl_buffer_pool_finalize;
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS (klass);
  pool_class->get_options = cl_pool_get_options;
  pool_class->set_config = cl_pool_set_config;
  pool_class->alloc_buffer = cl_pool_alloc_buffer;
  pool_class->release_buffer = cl_pool_release_buffer;
  gst_cl_debug_init ();
}

static void
gst_cl_buffer_pool_init (GstClBufferPool *)
{
}

/* A pool on `context` with `allocator` (taken). */
static GstBufferPool *
pool_new (GstClContext * context, GstAllocator * allocator)
{
  auto *self = GST_CL_BUFFER_POOL (g_object_new (GST_TYPE_CL_BUFFER_POOL, nullptr));
  gst_object_ref_sink (self);
  self->context = GST_CL_CONTEXT (gst_object_ref (context));
  self->allocator = allocator;
  return GST_BUFFER_POOL (self);
}

GstBufferPool *
gst_cl_buffer_pool_new (GstClContext * context)
{
  g_return_val_if_fail (GST_IS_CL_CONTEXT (context), nullptr);
  return pool_new (context, gst_cl_allocator_new (context));
}

GstClContext *
gst_cl_buffer_pool_get_context (GstBufferPool * pool)
{
  g_return_val_if_fail (GST_IS_CL_BUFFER_POOL (pool), nullptr);
  return GST_CL_BUFFER_POOL (pool)->context;
}

/* `pool` (taken) configured for `caps`, or NULL. */
static GstBufferPool *
configure_for_caps (GstBufferPool * pool, GstCaps * caps, guint min, guint * size_out)
{
  GstVideoInfo info;
  if (!gst_cl_video_info_from_caps (&info, caps)) {
    gst_object_unref (pool);
    return nullptr;
  }
  GstStructure *config = gst_buffer_pool_get_config (pool);
  guint size = GST_VIDEO_INFO_SIZE (&info);
  gst_buffer_pool_config_set_params (config, caps, size, min, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return nullptr;
  }
  if (size_out)
    *size_out = size;
  return pool;
}

GstBufferPool *
gst_cl_buffer_pool_new_for_caps (GstClContext * context, GstCaps * caps, guint min,
    guint * size_out)
{
  g_return_val_if_fail (GST_IS_CL_CONTEXT (context), nullptr);
  return configure_for_caps (gst_cl_buffer_pool_new (context), caps, min, size_out);
}

/* ---- pools of foreign buffers (gstclsource.hpp) ---- */

GstBufferPool *
gstcl::buffer_pool_with_source (GstClContext * ctx, std::shared_ptr<BufferSource> source,
    GstCaps * caps, guint min, guint * size)
{
  g_return_val_if_fail (GST_IS_CL_CONTEXT (ctx) && source, nullptr);
  GstBufferPool *pool = pool_new (ctx, allocator_with_source (ctx, source));
  GST_CL_BUFFER_POOL (pool)->source = new std::shared_ptr<BufferSource> (std::move (source));
  return configure_for_caps (pool, caps, min, size);
}

bool
gstcl::pool_has_source (GstBufferPool * pool)
{
  return pool && GST_IS_CL_BUFFER_POOL (pool) && GST_CL_BUFFER_POOL (pool)->source;
}

std::shared_ptr<gstcl::BufferSource>
gstcl::source_of (GstBufferPool * pool)
{
  return pool_has_source (pool) ? *GST_CL_BUFFER_POOL (pool)->source : nullptr;
}

void
gst_cl_query_put_output_pool (GstQuery * query, GstBufferPool * pool, guint size, guint min)
{
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, 0);
  else
    gst_query_add_allocation_pool (query, pool, size, min, 0);
}
