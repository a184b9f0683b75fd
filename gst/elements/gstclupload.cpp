/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-clupload
 * @title: clupload
 *
 * Moves frames from system memory into OpenCL memory, so that the OpenCL
 * elements after it work on the device with no further host transfer. It
 * offers upstream a pool of OpenCL buffers, so a producer that uses it
 * writes straight into pinned memory and the upload is one DMA transfer;
 * such buffers pass through without a copy.
 *
 * Where the OpenCL device is a CUDA device too (NVIDIA), and libcuda and
 * gst-plugins-bad's CUDA library are installed, it also takes frames in
 * CUDA memory (video/x-raw(memory:CUDAMemory), from nvh264dec, cudaupload,
 * ...) and copies them on the device, with no host transfer: once, into
 * its output buffers, which are memory shared with CUDA; the CUDA context is
 * shared with the nvcodec elements (docs/interop.md).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc ! clupload ! clsobel ! cldownload ! videoconvert ! autovideosink
 * ]|
 * |[
 * gst-launch-1.0 filesrc location=in.h264 ! h264parse ! nvh264dec ! clupload ! clsobel ! cldownload ! videoconvert ! autovideosink
 * ]|
 */
#include "gstclupload.h"
#include "gstclelements.h"

#include <gst/opencl/opencl.h>
#include <gst/opencl/gstcl.hpp>
#include <gst/opencl/gstclcuda.hpp>
#include <gst/opencl/gstclsource.hpp>

GST_DEBUG_CATEGORY_STATIC (gst_cl_upload_debug);
#define GST_CAT_DEFAULT gst_cl_upload_debug

struct _GstClUpload {
  GstClBaseTransform parent;
  GstVideoInfo in_info;
  GstVideoInfo out_info;
  gstcl::cuda::Bridge *cuda;  /* frames in CUDA memory */
  gboolean cuda_in;           /* the input caps are in CUDA memory */
  gboolean cuda_refused;      /* said so on the bus (once a start) */
};

G_DEFINE_TYPE (GstClUpload, gst_cl_upload, GST_TYPE_CL_BASE_TRANSFORM)
GST_ELEMENT_REGISTER_DEFINE (clupload, "clupload", GST_RANK_NONE, GST_TYPE_CL_UPLOAD)

static bool
offers (GstBaseTransform * trans)
{
  return gstcl::cuda::element_offers (GST_CL_BASE_TRANSFORM (trans));
}

/* CUDA memory on the sink pad, once the device is known not to share memory
 * with CUDA, is refused here (the base class would accept it from the
 * template). */
static gboolean
gst_cl_upload_accept_caps (GstBaseTransform * trans, GstPadDirection direction, GstCaps * caps)
{
  if (gstcl::cuda::refuses (trans, direction, GST_PAD_SINK, caps,
          &GST_CL_UPLOAD (trans)->cuda_refused))
    return FALSE;
  return GST_BASE_TRANSFORM_CLASS (gst_cl_upload_parent_class)->accept_caps (trans, direction,
      caps);
}

static GstCaps *
gst_cl_upload_transform_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * filter)
{
  GstCaps *result;
  if (gst_caps_is_any (caps)) {
    result = gst_cl_base_transform_other_template (trans, direction);
    if (direction == GST_PAD_SRC && gstcl::cuda::available () && !offers (trans))
      result = gstcl::cuda::drop_cuda_caps (result);
  } else {
    result = gst_cl_caps_in_memories (caps, TRUE, direction == GST_PAD_SRC, TRUE);
    /* After the others: a CUDA producer that prefers CUDA memory asks. */
    if (direction == GST_PAD_SRC && offers (trans))
      result = gst_caps_merge (result, gstcl::cuda::to_cuda_caps (caps));
  }
  return gst_cl_caps_apply_filter (result, filter);
}

static gboolean
gst_cl_upload_set_caps (GstBaseTransform * trans, GstCaps * incaps, GstCaps * outcaps)
{
  auto *self = GST_CL_UPLOAD (trans);
  if (!gst_cl_video_info_from_caps (&self->in_info, incaps) ||
      !gst_cl_video_info_from_caps (&self->out_info, outcaps)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Unsupported caps"),
        ("%" GST_PTR_FORMAT, incaps));
    return FALSE;
  }
  self->cuda_in = gstcl::cuda::caps_in_cuda (incaps);
  if (self->cuda_in) {
    GstClContext *ctx = gst_cl_base_transform_get_context (GST_CL_BASE_TRANSFORM (trans));
    try {
      if (!ctx)
        throw std::runtime_error ("no OpenCL context");
      self->cuda->start (GST_ELEMENT (trans), ctx);
    } catch (const std::exception &e) {
      GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("Could not take frames in CUDA memory"),
          ("%s", e.what ()));
      self->cuda_in = FALSE;
    }
    if (ctx)
      gst_object_unref (ctx);
    if (!self->cuda_in)
      return FALSE;
  }
  return TRUE;
}

static gboolean
on_our_context (GstBaseTransform * trans, GstBuffer * buf)
{
  GstClContext *ctx = gst_cl_base_transform_get_context (GST_CL_BASE_TRANSFORM (trans));
  gboolean ours = ctx && gst_buffer_n_memory (buf) == 1 && gst_cl_buffer_is_on_context (buf, ctx);
  if (ctx)
    gst_object_unref (ctx);
  return ours;
}

static GstFlowReturn
gst_cl_upload_prepare_output_buffer (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer ** outbuf)
{
  if (on_our_context (trans, inbuf)) {
    *outbuf = inbuf;  /* already device memory: no copy (no ref: the base class owns it) */
    return GST_FLOW_OK;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cl_upload_parent_class)->prepare_output_buffer (trans,
      inbuf, outbuf);
}


static GstFlowReturn
gst_cl_upload_transform (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer * outbuf)
{
  auto *self = GST_CL_UPLOAD (trans);
  /* The waits for the device are this element's: bounded by its
   * kernel-timeout, ended by its flush or stop. */
  gstcl::BuildScope scope (GST_ELEMENT (trans));
  GstVideoInfo in_frame, out_frame;
  if (!gst_cl_buffer_frame_info (inbuf, &self->in_info, &in_frame)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Input buffer is smaller than its caps say"),
        ("%" G_GSIZE_FORMAT " bytes, %" G_GSIZE_FORMAT " expected",
            gst_buffer_get_size (inbuf), GST_VIDEO_INFO_SIZE (&self->in_info)));
    return GST_FLOW_ERROR;
  }
  GstMemory *out_mem = gst_buffer_peek_memory (outbuf, 0);
  if (self->cuda_in) {
    if (!gst_cl_buffer_frame_info (outbuf, &self->out_info, &out_frame) ||
        gst_buffer_n_memory (outbuf) != 1 || !gst_is_cl_memory (out_mem))
      goto upload_failed;
    try {
      /* On the device: CUDA memory -> shared memory -> the OpenCL buffer. */
      self->cuda->to_cl (inbuf, self->in_info, outbuf, out_frame);
    } catch (...) {
      return gstcl::post_exception (GST_ELEMENT (self), "taking a frame from CUDA memory");
    }
    return GST_FLOW_OK;
  }
  if (inbuf == outbuf) {
    if (!gst_cl_memory_sync_to_device (out_mem))
      goto upload_failed;
    return GST_FLOW_OK;
  }
  if (!gst_cl_buffer_frame_info (outbuf, &self->out_info, &out_frame) ||
      !gst_is_cl_memory (out_mem))
    goto upload_failed;

  if (gst_cl_video_info_same_layout (&in_frame, &out_frame)) {
    /* One transfer straight from the producer's memory. */
    GstMapInfo map;
    if (!gst_buffer_map (inbuf, &map, GST_MAP_READ))
      goto upload_failed;
    GstFlowReturn ret = GST_FLOW_OK;
    try {
      gstcl::write_from_host (out_mem, map.data, MIN (map.size, out_mem->size));
    } catch (...) {
      ret = gstcl::post_exception (GST_ELEMENT (self), "uploading a frame");
    }
    gst_buffer_unmap (inbuf, &map);
    if (ret != GST_FLOW_OK)
      return ret;
  } else {
    /* Other strides: repack on the host into the pinned staging area. */
    GstVideoFrame src, dst;
    if (!gst_video_frame_map (&src, &in_frame, inbuf, GST_MAP_READ))
      goto upload_failed;
    if (!gst_video_frame_map (&dst, &out_frame, outbuf, GST_MAP_WRITE)) {
      gst_video_frame_unmap (&src);
      goto upload_failed;
    }
    gboolean ok = gst_video_frame_copy (&dst, &src);
    gst_video_frame_unmap (&dst);
    gst_video_frame_unmap (&src);
    if (!ok || !gst_cl_memory_sync_to_device (out_mem))
      goto upload_failed;
  }
  return GST_FLOW_OK;

upload_failed:
  GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("Could not upload a frame to the OpenCL device"),
      ("%" GST_PTR_FORMAT, inbuf));
  return GST_FLOW_ERROR;
}

static gboolean
gst_cl_upload_propose_allocation (GstBaseTransform * trans, GstQuery * decide, GstQuery * query)
{
  GstCaps *caps = nullptr;
  gst_query_parse_allocation (query, &caps, nullptr);
  if (gstcl::cuda::caps_in_cuda (caps)) {
    /* A CUDA producer keeps its own pool. */
    gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, nullptr);
    return TRUE;
  }
  /* Our output is the producer's buffer, uploaded: where downstream gave us
   * a pool of foreign memory (cldownload's, shared with CUDA), the producer
   * gets one of the same memory, so that the frame is uploaded into it. */
  GstBufferPool *decided = nullptr;
  if (decide && gst_query_get_n_allocation_pools (decide) > 0)
    gst_query_parse_nth_allocation_pool (decide, 0, &decided, nullptr, nullptr, nullptr);
  auto source = gstcl::source_of (decided);
  if (decided)
    gst_object_unref (decided);
  GstClContext *ctx = gst_cl_base_transform_get_context (GST_CL_BASE_TRANSFORM (trans));
  gboolean need_pool = FALSE;
  gst_query_parse_allocation (query, nullptr, &need_pool);
  guint size = 0;
  GstBufferPool *pool = source && ctx && caps && need_pool ?
      gstcl::buffer_pool_with_source (ctx, source, caps, 0, &size) : nullptr;
  if (ctx)
    gst_object_unref (ctx);
  if (!pool)
    return GST_BASE_TRANSFORM_CLASS (gst_cl_upload_parent_class)->propose_allocation (trans,
        decide, query);
  GST_DEBUG_OBJECT (trans, "proposing upstream a pool of downstream's foreign memory, %u bytes "
      "a buffer", size);
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, nullptr);
  gst_query_add_allocation_pool (query, pool, size, 0, 0);
  gst_object_unref (pool);
  return TRUE;
}

/* Frames from CUDA memory go into a pool of memory shared with CUDA: one
 * device copy a frame, and the frame goes downstream as it is. */
static gboolean
gst_cl_upload_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  auto *self = GST_CL_UPLOAD (trans);
  GstCaps *caps = nullptr;
  gst_query_parse_allocation (query, &caps, nullptr);
  if (self->cuda_in && caps) {
    guint min = 0, size = 0;
    if (gst_query_get_n_allocation_pools (query) > 0)
      gst_query_parse_nth_allocation_pool (query, 0, nullptr, nullptr, &min, nullptr);
    GstBufferPool *pool = nullptr;
    try {
      pool = self->cuda->shared_pool (caps, min, &size, true);
    } catch (const std::exception &e) {
      GST_WARNING_OBJECT (self, "no pool of shared memory (two copies a frame): %s", e.what ());
    }
    if (pool) {
      GST_DEBUG_OBJECT (self, "output pool of memory shared with CUDA, %u bytes a buffer", size);
      gst_cl_query_put_output_pool (query, pool, size, min);
      gst_object_unref (pool);
      return TRUE;
    }
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cl_upload_parent_class)->decide_allocation (trans, query);
}

static gboolean
gst_cl_upload_query (GstBaseTransform * trans, GstPadDirection direction, GstQuery * query)
{
  if (GST_CL_UPLOAD (trans)->cuda->handle_query (GST_ELEMENT (trans), query))
    return TRUE;
  return GST_BASE_TRANSFORM_CLASS (gst_cl_upload_parent_class)->query (trans, direction, query);
}

static void
gst_cl_upload_set_context (GstElement * element, GstContext * context)
{
  GST_CL_UPLOAD (element)->cuda->set_context (element, context);
  GST_ELEMENT_CLASS (gst_cl_upload_parent_class)->set_context (element, context);
}

static gboolean
gst_cl_upload_stop (GstBaseTransform * trans)
{
  auto *self = GST_CL_UPLOAD (trans);
  self->cuda->stop ();
  self->cuda_in = FALSE;
  self->cuda_refused = FALSE;
  return TRUE;
}

static void
gst_cl_upload_finalize (GObject * object)
{
  delete GST_CL_UPLOAD (object)->cuda;
  G_OBJECT_CLASS (gst_cl_upload_parent_class)->finalize (object);
}

static void
gst_cl_upload_class_init (GstClUploadClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gst_cl_base_transform_class_add_pad_templates (GST_CL_BASE_TRANSFORM_CLASS (klass),
      GST_CL_ANY_VIDEO_CAPS, TRUE, TRUE, GST_CL_ANY_VIDEO_CAPS, TRUE, FALSE);
  gstcl::cuda::add_to_pad_template (element_class, "sink");
  gst_element_class_set_static_metadata (element_class, "OpenCL uploader",
      "Filter/Video/Hardware", "Moves raw video and Bayer frames into OpenCL memory",
      "gst-opencl developers");

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_caps = gst_cl_upload_transform_caps;
  trans_class->accept_caps = gst_cl_upload_accept_caps;
  trans_class->set_caps = gst_cl_upload_set_caps;
  trans_class->prepare_output_buffer = gst_cl_upload_prepare_output_buffer;
  trans_class->transform = gst_cl_upload_transform;
  trans_class->propose_allocation = gst_cl_upload_propose_allocation;
  trans_class->decide_allocation = gst_cl_upload_decide_allocation;
  trans_class->query = gst_cl_upload_query;
  trans_class->stop = gst_cl_upload_stop;
  element_class->set_context = gst_cl_upload_set_context;
  G_OBJECT_CLASS (klass)->finalize = gst_cl_upload_finalize;
  GST_DEBUG_CATEGORY_INIT (gst_cl_upload_debug, "clupload", 0, "OpenCL upload");
}

static void
gst_cl_upload_init (GstClUpload * self)
{
  self->cuda = new gstcl::cuda::Bridge ();
}
