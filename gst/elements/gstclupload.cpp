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
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc ! clupload ! clsobel ! cldownload ! videoconvert ! autovideosink
 * ]|
 */
#include "gstclupload.h"
#include "gstclelements.h"

#include <gst/opencl/opencl.h>
#include <gst/opencl/gstcl.hpp>

GST_DEBUG_CATEGORY_STATIC (gst_cl_upload_debug);
#define GST_CAT_DEFAULT gst_cl_upload_debug

struct _GstClUpload {
  GstClBaseTransform parent;
  GstVideoInfo in_info;
  GstVideoInfo out_info;
};

G_DEFINE_TYPE (GstClUpload, gst_cl_upload, GST_TYPE_CL_BASE_TRANSFORM)
GST_ELEMENT_REGISTER_DEFINE (clupload, "clupload", GST_RANK_NONE, GST_TYPE_CL_UPLOAD)

static GstCaps *
gst_cl_upload_transform_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * filter)
{
  GstCaps *result = gst_caps_is_any (caps) ?
      gst_cl_base_transform_other_template (trans, direction) :
      gst_cl_caps_in_memories (caps, TRUE, direction == GST_PAD_SRC, TRUE);
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

static void
gst_cl_upload_class_init (GstClUploadClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gst_cl_base_transform_class_add_pad_templates (GST_CL_BASE_TRANSFORM_CLASS (klass),
      GST_CL_ANY_VIDEO_CAPS, TRUE, TRUE, GST_CL_ANY_VIDEO_CAPS, TRUE, FALSE);
  gst_element_class_set_static_metadata (element_class, "OpenCL uploader",
      "Filter/Video/Hardware", "Moves raw video and Bayer frames into OpenCL memory",
      "gst-opencl developers");

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_caps = gst_cl_upload_transform_caps;
  trans_class->set_caps = gst_cl_upload_set_caps;
  trans_class->prepare_output_buffer = gst_cl_upload_prepare_output_buffer;
  trans_class->transform = gst_cl_upload_transform;
  GST_DEBUG_CATEGORY_INIT (gst_cl_upload_debug, "clupload", 0, "OpenCL upload");
}

static void
gst_cl_upload_init (GstClUpload *)
{
}
