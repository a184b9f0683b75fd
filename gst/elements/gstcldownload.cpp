/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-cldownload
 * @title: cldownload
 *
 * Makes OpenCL frames readable in system memory. The frame is copied once,
 * device to pinned host memory, and the same buffer goes downstream, so a
 * reader maps it with no further copy. System-memory input passes through.
 * A frame whose rows are laid out other than GStreamer's default way (a
 * GstVideoMeta with other strides or offsets) is repacked into the default
 * layout when downstream does not take GstVideoMeta.
 *
 * Where the OpenCL device is a CUDA device too (NVIDIA), and libcuda and
 * gst-plugins-bad's CUDA library are installed, it also gives frames in
 * CUDA memory (video/x-raw(memory:CUDAMemory), for cudadownload, an NVENC
 * encoder, ...) with no host transfer: where upstream takes the pool of
 * memory shared with CUDA that it proposes (the OpenCL elements do), the
 * frame itself goes on as CUDA memory (one device copy with
 * GST_OPENCL_CUDA_WRAP=0); the CUDA context
 * is shared with the nvcodec elements (docs/interop.md).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc ! clupload ! clsobel ! cldownload ! videoconvert ! autovideosink
 * ]|
 * |[
 * gst-launch-1.0 videotestsrc ! clupload ! clsobel ! cldownload ! "video/x-raw(memory:CUDAMemory)" ! cudadownload ! videoconvert ! autovideosink
 * ]|
 */
#include "gstcldownload.h"
#include "gstclelements.h"

#include <gst/opencl/opencl.h>
#include <gst/opencl/gstcl.hpp>
#include <gst/opencl/gstclcuda.hpp>

GST_DEBUG_CATEGORY_STATIC (gst_cl_download_debug);
#define GST_CAT_DEFAULT gst_cl_download_debug

struct _GstClDownload {
  GstClBaseTransform parent;
  GstVideoInfo info;         /* the negotiated frame in the default layout */
  gboolean downstream_meta;  /* downstream reads GstVideoMeta */
  gstcl::cuda::Bridge *cuda; /* frames out in CUDA memory */
  GstCaps *cuda_caps;        /* the output caps when they are in CUDA memory */
  gboolean cuda_refused;     /* said so on the bus (once a start) */
};

G_DEFINE_TYPE (GstClDownload, gst_cl_download, GST_TYPE_CL_BASE_TRANSFORM)
GST_ELEMENT_REGISTER_DEFINE (cldownload, "cldownload", GST_RANK_NONE, GST_TYPE_CL_DOWNLOAD)

static bool
offers (GstBaseTransform * trans)
{
  return gstcl::cuda::element_offers (GST_CL_BASE_TRANSFORM (trans));
}

/* CUDA memory on the src pad, once the device is known not to share memory
 * with CUDA, is refused here (the base class would accept it from the
 * template). */
static gboolean
gst_cl_download_accept_caps (GstBaseTransform * trans, GstPadDirection direction, GstCaps * caps)
{
  if (gstcl::cuda::refuses (trans, direction, GST_PAD_SRC, caps,
          &GST_CL_DOWNLOAD (trans)->cuda_refused))
    return FALSE;
  return GST_BASE_TRANSFORM_CLASS (gst_cl_download_parent_class)->accept_caps (trans, direction,
      caps);
}

static GstCaps *
gst_cl_download_transform_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * filter)
{
  GstCaps *result;
  if (gst_caps_is_any (caps)) {
    result = gst_cl_base_transform_other_template (trans, direction);
    if (direction == GST_PAD_SINK && gstcl::cuda::available () && !offers (trans))
      result = gstcl::cuda::drop_cuda_caps (result);
  } else if (direction == GST_PAD_SINK) {
    result = gst_cl_caps_in_memories (caps, FALSE, TRUE, TRUE);
    if (offers (trans))
      result = gst_caps_merge (result, gstcl::cuda::to_cuda_caps (caps));
  } else {
    /* CUDA memory comes from OpenCL memory only; system memory from both. */
    GstCaps *plain = gst_caps_new_empty (), *cuda = gst_caps_new_empty ();
    for (guint i = 0; i < gst_caps_get_size (caps); i++) {
      GstCaps *one = gst_caps_copy_nth (caps, i);
      if (gstcl::cuda::caps_in_cuda (one))
        cuda = gst_caps_merge (cuda, one);
      else
        plain = gst_caps_merge (plain, one);
    }
    result = gst_cl_caps_in_memories (plain, TRUE, TRUE, TRUE);
    result = gst_caps_merge (result, gst_cl_caps_in_memories (cuda, TRUE, FALSE, TRUE));
    gst_caps_unref (plain);
    gst_caps_unref (cuda);
  }
  return gst_cl_caps_apply_filter (result, filter);
}

static gboolean
gst_cl_download_set_caps (GstBaseTransform * trans, GstCaps * incaps, GstCaps * outcaps)
{
  auto *self = GST_CL_DOWNLOAD (trans);
  if (!gst_cl_video_info_from_caps (&self->info, incaps)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Unsupported caps"),
        ("%" GST_PTR_FORMAT, incaps));
    return FALSE;
  }
  gst_clear_caps (&self->cuda_caps);
  if (gstcl::cuda::caps_in_cuda (outcaps)) {
    GstClContext *ctx = gst_cl_base_transform_get_context (GST_CL_BASE_TRANSFORM (trans));
    try {
      if (!ctx)
        throw std::runtime_error ("no OpenCL context");
      self->cuda->start (GST_ELEMENT (trans), ctx);
      self->cuda_caps = gst_caps_ref (outcaps);
    } catch (const std::exception &e) {
      GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("Could not give frames in CUDA memory"),
          ("%s", e.what ()));
    }
    if (ctx)
      gst_object_unref (ctx);
    if (!self->cuda_caps)
      return FALSE;
  }
  return TRUE;
}


static GstFlowReturn
gst_cl_download_prepare_output_buffer (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer ** outbuf)
{
  auto *self = GST_CL_DOWNLOAD (trans);
  GstVideoInfo frame;
  if (!gst_cl_buffer_frame_info (inbuf, &self->info, &frame)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Input buffer is smaller than its caps say"),
        ("%" G_GSIZE_FORMAT " bytes, %" G_GSIZE_FORMAT " expected",
            gst_buffer_get_size (inbuf), GST_VIDEO_INFO_SIZE (&self->info)));
    return GST_FLOW_ERROR;
  }
  if (self->cuda_caps) {
    /* On the device: the OpenCL buffer -> shared memory -> a CUDA buffer. */
    gstcl::BuildScope scope (GST_ELEMENT (trans));
    if (gst_buffer_n_memory (inbuf) != 1 ||
        !gst_is_cl_memory (gst_buffer_peek_memory (inbuf, 0))) {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("CUDA memory is made from OpenCL memory only"),
          ("%" GST_PTR_FORMAT, inbuf));
      return GST_FLOW_ERROR;
    }
    try {
      *outbuf = self->cuda->from_cl (inbuf, frame, self->cuda_caps);
    } catch (...) {
      return gstcl::post_exception (GST_ELEMENT (self), "giving a frame in CUDA memory");
    }
    if (!GST_BASE_TRANSFORM_CLASS (gst_cl_download_parent_class)->copy_metadata (trans, inbuf,
            *outbuf)) {
      gst_clear_buffer (outbuf);
      GST_ELEMENT_ERROR (self, CORE, FAILED, ("Could not copy the frame's metadata"), (nullptr));
      return GST_FLOW_ERROR;
    }
    return GST_FLOW_OK;
  }
  if (self->downstream_meta || gst_cl_video_info_same_layout (&frame, &self->info)) {
    /* OpenCL memory maps to host memory: after the sync in transform, the
     * same buffer is a system-memory buffer for everything downstream. */
    *outbuf = inbuf;  /* the same buffer goes on; BaseTransform keeps ownership */
    return GST_FLOW_OK;
  }
  /* Repacked in transform. Timestamps, flags, offsets and the metas that do
   * not describe the layout (not GstVideoMeta) as the input's. */
  *outbuf = gst_buffer_new_allocate (nullptr, GST_VIDEO_INFO_SIZE (&self->info), nullptr);
  if (!*outbuf) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, ("Could not allocate a frame"),
        ("%" G_GSIZE_FORMAT " bytes", GST_VIDEO_INFO_SIZE (&self->info)));
    return GST_FLOW_ERROR;
  }
  /* The repack writes pixels only: the row padding is zero, not whatever
   * the heap held. */
  gst_buffer_memset (*outbuf, 0, 0, GST_VIDEO_INFO_SIZE (&self->info));
  if (!GST_BASE_TRANSFORM_CLASS (gst_cl_download_parent_class)->copy_metadata (trans, inbuf,
          *outbuf)) {
    gst_buffer_unref (*outbuf);
    *outbuf = nullptr;
    GST_ELEMENT_ERROR (self, CORE, FAILED, ("Could not copy the frame's metadata"), (nullptr));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_cl_download_transform (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer * outbuf)
{
  auto *self = GST_CL_DOWNLOAD (trans);
  /* The waits for the device are this element's: bounded by its
   * kernel-timeout, ended by its flush or stop. */
  gstcl::BuildScope scope (GST_ELEMENT (trans));
  if (self->cuda_caps)
    return GST_FLOW_OK;  /* copied in prepare_output_buffer */
  for (guint i = 0; i < gst_buffer_n_memory (inbuf); i++) {
    GstMemory *mem = gst_buffer_peek_memory (inbuf, i);
    if (!gst_is_cl_memory (mem))
      continue;
    try {
      gstcl::sync_to_host (mem);
    } catch (...) {
      return gstcl::post_exception (GST_ELEMENT (trans),
          "downloading a frame from the OpenCL device");
    }
  }
  if (outbuf == inbuf)
    return GST_FLOW_OK;
  GstVideoInfo frame;
  GstVideoFrame src, dst;
  gst_cl_buffer_frame_info (inbuf, &self->info, &frame);
  gboolean ok = FALSE;
  if (gst_video_frame_map (&src, &frame, inbuf, GST_MAP_READ)) {
    if (gst_video_frame_map (&dst, &self->info, outbuf, GST_MAP_WRITE)) {
      ok = gst_video_frame_copy (&dst, &src);
      gst_video_frame_unmap (&dst);
    }
    gst_video_frame_unmap (&src);
  }
  if (!ok) {
    GST_ELEMENT_ERROR (trans, RESOURCE, READ,
        ("Could not repack a frame into the default layout"), (nullptr));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

/* Frames out in CUDA memory: upstream is offered a pool of memory shared
 * with CUDA (an OpenCL element takes it: GstClBaseTransform), so that its
 * kernels write the frame there and one device copy gives the CUDA frame. */
static gboolean
gst_cl_download_propose_allocation (GstBaseTransform * trans, GstQuery *, GstQuery * query)
{
  auto *self = GST_CL_DOWNLOAD (trans);
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, nullptr);
  GstCaps *caps = nullptr;
  gboolean need_pool = FALSE;
  gst_query_parse_allocation (query, &caps, &need_pool);
  if (!self->cuda_caps || !caps || !need_pool)
    return TRUE;
  GstCapsFeatures *f = gst_caps_get_features (caps, 0);
  if (!f || !gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CL))
    return TRUE;
  guint size = 0;
  GstBufferPool *pool = nullptr;
  try {
    pool = self->cuda->shared_pool (caps, 0, &size, false);
  } catch (const std::exception &e) {
    GST_WARNING_OBJECT (self, "no pool of shared memory to propose: %s", e.what ());
  }
  if (pool) {
    GST_DEBUG_OBJECT (self, "proposing a pool of memory shared with CUDA, %u bytes a buffer",
        size);
    gst_query_add_allocation_pool (query, pool, size, 0, 0);
    gst_object_unref (pool);
  }
  return TRUE;
}

static gboolean
gst_cl_download_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  /* Output buffers are the input buffers, or repacked ones. */
  GST_CL_DOWNLOAD (trans)->downstream_meta =
      gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE, nullptr);
  return TRUE;
}

static gboolean
gst_cl_download_query (GstBaseTransform * trans, GstPadDirection direction, GstQuery * query)
{
  if (GST_CL_DOWNLOAD (trans)->cuda->handle_query (GST_ELEMENT (trans), query))
    return TRUE;
  return GST_BASE_TRANSFORM_CLASS (gst_cl_download_parent_class)->query (trans, direction,
      query);
}

static void
gst_cl_download_set_context (GstElement * element, GstContext * context)
{
  GST_CL_DOWNLOAD (element)->cuda->set_context (element, context);
  GST_ELEMENT_CLASS (gst_cl_download_parent_class)->set_context (element, context);
}

static gboolean
gst_cl_download_stop (GstBaseTransform * trans)
{
  auto *self = GST_CL_DOWNLOAD (trans);
  self->cuda->stop ();
  gst_clear_caps (&self->cuda_caps);
  self->cuda_refused = FALSE;
  return TRUE;
}

static void
gst_cl_download_finalize (GObject * object)
{
  auto *self = GST_CL_DOWNLOAD (object);
  delete self->cuda;
  gst_clear_caps (&self->cuda_caps);
  G_OBJECT_CLASS (gst_cl_download_parent_class)->finalize (object);
}

static void
gst_cl_download_class_init (GstClDownloadClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gst_cl_base_transform_class_add_pad_templates (GST_CL_BASE_TRANSFORM_CLASS (klass),
      GST_CL_ANY_VIDEO_CAPS, TRUE, TRUE, GST_CL_ANY_VIDEO_CAPS, FALSE, TRUE);
  gstcl::cuda::add_to_pad_template (element_class, "src");
  gst_element_class_set_static_metadata (element_class, "OpenCL downloader",
      "Filter/Video/Hardware", "Makes OpenCL frames readable in system memory",
      "gst-opencl developers");

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_caps = gst_cl_download_transform_caps;
  trans_class->accept_caps = gst_cl_download_accept_caps;
  trans_class->set_caps = gst_cl_download_set_caps;
  trans_class->prepare_output_buffer = gst_cl_download_prepare_output_buffer;
  trans_class->transform = gst_cl_download_transform;
  trans_class->propose_allocation = gst_cl_download_propose_allocation;
  trans_class->decide_allocation = gst_cl_download_decide_allocation;
  trans_class->query = gst_cl_download_query;
  trans_class->stop = gst_cl_download_stop;
  element_class->set_context = gst_cl_download_set_context;
  G_OBJECT_CLASS (klass)->finalize = gst_cl_download_finalize;
  GST_DEBUG_CATEGORY_INIT (gst_cl_download_debug, "cldownload", 0, "OpenCL download");
}

static void
gst_cl_download_init (GstClDownload * self)
{
  self->cuda = new gstcl::cuda::Bridge ();
}
