/**
 * SECTION:element-cldownload
 * @title: cldownload
 *
 * Makes OpenCL frames readable in system memory. The frame is copied once,
 * device to pinned host memory, and the same buffer goes downstream, so a
 * reader maps it with no further copy. System-memory input passes through.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc ! clupload ! clsobel ! cldownload ! videoconvert ! autovideosink
 * ]|
 */
#include "gstcldownload.h"
#include "gstclelements.h"

#include <gst/opencl/opencl.h>

GST_DEBUG_CATEGORY_STATIC (gst_cl_download_debug);
#define GST_CAT_DEFAULT gst_cl_download_debug

struct _GstClDownload {
  GstClBaseTransform parent;
};

G_DEFINE_TYPE (GstClDownload, gst_cl_download, GST_TYPE_CL_BASE_TRANSFORM)
GST_ELEMENT_REGISTER_DEFINE (cldownload, "cldownload", GST_RANK_NONE, GST_TYPE_CL_DOWNLOAD)

#define ANY_VIDEO_CAPS "video/x-raw; video/x-bayer"

static GstCaps *
gst_cl_download_transform_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * filter)
{
  GstCaps *result = gst_caps_is_any (caps) ?
      gst_cl_base_transform_other_template (trans, direction) :
      gst_cl_caps_in_memories (caps, direction == GST_PAD_SRC, TRUE, TRUE);
  return gst_cl_caps_apply_filter (result, filter);
}

static GstFlowReturn
gst_cl_download_prepare_output_buffer (GstBaseTransform *, GstBuffer * inbuf,
    GstBuffer ** outbuf)
{
  /* OpenCL memory maps to host memory: after the sync below, the same buffer
   * is a system-memory buffer for everything downstream. */
  *outbuf = inbuf;  /* the same buffer goes on; BaseTransform keeps ownership */
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_cl_download_transform (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer *)
{
  for (guint i = 0; i < gst_buffer_n_memory (inbuf); i++) {
    GstMemory *mem = gst_buffer_peek_memory (inbuf, i);
    if (gst_is_cl_memory (mem) && !gst_cl_memory_sync_to_host (mem)) {
      GST_ELEMENT_ERROR (trans, RESOURCE, READ,
          ("Could not download a frame from the OpenCL device"), (nullptr));
      return GST_FLOW_ERROR;
    }
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
gst_cl_download_decide_allocation (GstBaseTransform *, GstQuery *)
{
  return TRUE;  /* output buffers are the input buffers */
}

static void
gst_cl_download_class_init (GstClDownloadClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  GstCaps *sink = gst_cl_caps_with_features (ANY_VIDEO_CAPS, TRUE, TRUE);
  GstCaps *src = gst_cl_caps_with_features (ANY_VIDEO_CAPS, FALSE, TRUE);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, sink));
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, src));
  gst_caps_unref (sink);
  gst_caps_unref (src);
  gst_element_class_set_static_metadata (element_class, "OpenCL downloader",
      "Filter/Video/Hardware", "Makes OpenCL frames readable in system memory",
      "gst-opencl developers");

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_caps = gst_cl_download_transform_caps;
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
