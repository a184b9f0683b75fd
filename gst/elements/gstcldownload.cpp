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
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc ! clupload ! clsobel ! cldownload ! videoconvert ! autovideosink
 * ]|
 */
#include "gstcldownload.h"
#include "gstclelements.h"

#include <gst/opencl/opencl.h>
#include <gst/opencl/gstcl.hpp>

GST_DEBUG_CATEGORY_STATIC (gst_cl_download_debug);
#define GST_CAT_DEFAULT gst_cl_download_debug

struct _GstClDownload {
  GstClBaseTransform parent;
  GstVideoInfo info;         /* the negotiated frame in the default layout */
  gboolean downstream_meta;  /* downstream reads GstVideoMeta */
};

G_DEFINE_TYPE (GstClDownload, gst_cl_download, GST_TYPE_CL_BASE_TRANSFORM)
GST_ELEMENT_REGISTER_DEFINE (cldownload, "cldownload", GST_RANK_NONE, GST_TYPE_CL_DOWNLOAD)

static GstCaps *
gst_cl_download_transform_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * filter)
{
  GstCaps *result = gst_caps_is_any (caps) ?
      gst_cl_base_transform_other_template (trans, direction) :
      gst_cl_caps_in_memories (caps, direction == GST_PAD_SRC, TRUE, TRUE);
  return gst_cl_caps_apply_filter (result, filter);
}

static gboolean
gst_cl_download_set_caps (GstBaseTransform * trans, GstCaps * incaps, GstCaps *)
{
  auto *self = GST_CL_DOWNLOAD (trans);
  if (!gst_cl_video_info_from_caps (&self->info, incaps)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Unsupported caps"),
        ("%" GST_PTR_FORMAT, incaps));
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

static gboolean
gst_cl_download_propose_allocation (GstBaseTransform *, GstQuery *, GstQuery * query)
{
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, nullptr);
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

static void
gst_cl_download_class_init (GstClDownloadClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gst_cl_base_transform_class_add_pad_templates (GST_CL_BASE_TRANSFORM_CLASS (klass),
      GST_CL_ANY_VIDEO_CAPS, TRUE, TRUE, GST_CL_ANY_VIDEO_CAPS, FALSE, TRUE);
  gst_element_class_set_static_metadata (element_class, "OpenCL downloader",
      "Filter/Video/Hardware", "Makes OpenCL frames readable in system memory",
      "gst-opencl developers");

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_caps = gst_cl_download_transform_caps;
  trans_class->set_caps = gst_cl_download_set_caps;
  trans_class->prepare_output_buffer = gst_cl_download_prepare_output_buffer;
  trans_class->transform = gst_cl_download_transform;
  trans_class->propose_allocation = gst_cl_download_propose_allocation;
  trans_class->decide_allocation = gst_cl_download_decide_allocation;
  GST_DEBUG_CATEGORY_INIT (gst_cl_download_debug, "cldownload", 0, "OpenCL download");
}

static void
gst_cl_download_init (GstClDownload *)
{
}
