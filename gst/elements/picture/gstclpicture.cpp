/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-clpicture
 * @title: clpicture
 *
 * The picture stages of cldebayer's camera path for video that is already
 * demosaiced or decoded: denoise (non-local means), sharpening (unsharp mask
 * on the encoded luma) and a 3D LUT (.cube), in that order, on RGB (8- and
 * 16-bit), GRAY8, NV12 or I420; the output has the input's format and size.
 * With every stage off the frame is copied unchanged.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=30 ! video/x-raw,format=NV12 ! clpicture denoise=0.5 sharpen=1 ! fakesink
 * gst-launch-1.0 videotestsrc num-buffers=30 ! clpicture lut3d-file=docs/examples/warm.cube ! videoconvert ! fakesink
 * ]|
 */
#include "gstclpicture.h"
#include "gstclelements.h"
#include "gstclpicturestages.hpp"

#include <gst/opencl/gstclframe.hpp>
#include <gst/opencl/gstclprivate.hpp>
#include <gst/opencl/gstclvideo.h>

#include <mutex>

GST_DEBUG_CATEGORY_STATIC (gst_cl_picture_debug);
#define GST_CAT_DEFAULT gst_cl_picture_debug

struct _GstClPicture {
  GstClFilter parent;
  gstcl::ElementPrivate<clpicture::Settings, clpicture::Pass> *priv;
};

G_DEFINE_TYPE (GstClPicture, gst_cl_picture, GST_TYPE_CL_FILTER)
GST_ELEMENT_REGISTER_DEFINE (clpicture, "clpicture", GST_RANK_NONE, GST_TYPE_CL_PICTURE)

#define FORMATS "RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, xRGB, xBGR, RGB, BGR, RGBA64_LE, " \
    "NV12, I420, GRAY8"
static const guint kFirst = 1;

static void
gst_cl_picture_set_info (GstClFilter * filter, GstClContext * ctx, GstCaps *,
    const GstVideoInfo * in_info, GstCaps *, const GstVideoInfo *)
{
  GST_CL_PICTURE (filter)->priv->state.set_format (ctx, in_info);
}

static void
gst_cl_picture_plan (GstClFilter * filter, GstClContext * ctx, const GstClFrame *,
    const GstClFrame *)
{
  auto *priv = GST_CL_PICTURE (filter)->priv;
  priv->state.plan (GST_ELEMENT (filter), ctx, priv->copy ());
}

static GstFlowReturn
gst_cl_picture_filter (GstClFilter * filter, GstClContext * ctx, const GstClFrame * in,
    const GstClFrame * out)
{
  clpicture::Pass &pass = GST_CL_PICTURE (filter)->priv->state;
  if (pass.active ())
    pass.run (ctx, in, out);
  else
    gstcl::copy_planes (ctx, in, out, 0);
  pass.count_frame ();
  return GST_FLOW_OK;
}

static gboolean
gst_cl_picture_stop (GstBaseTransform * trans)
{
  GST_CL_PICTURE (trans)->priv->state.cancel ();   /* waits for a build under way */
  return GST_BASE_TRANSFORM_CLASS (gst_cl_picture_parent_class)->stop (trans);
}

static void
gst_cl_picture_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  auto *self = GST_CL_PICTURE (object);
  if (!clpicture::owns (prop_id, kFirst)) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    return;
  }
  const clpicture::Incoming incoming = clpicture::prepare (prop_id, kFirst, value);
  {
    std::lock_guard<std::mutex> lock (self->priv->lock);
    clpicture::set_property (&self->priv->settings, prop_id, kFirst, value, incoming);
  }
  clpicture::settle (GST_CL_BASE_TRANSFORM (self), prop_id, kFirst, pspec, value, incoming);
}

static void
gst_cl_picture_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  auto *self = GST_CL_PICTURE (object);
  if (!clpicture::owns (prop_id, kFirst)) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    return;
  }
  std::lock_guard<std::mutex> lock (self->priv->lock);
  clpicture::get_property (self->priv->settings, prop_id, kFirst, value);
}

static void
gst_cl_picture_class_init (GstClPictureClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstClFilterClass *filter_class = GST_CL_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cl_picture_set_property;
  gobject_class->get_property = gst_cl_picture_get_property;
  gobject_class->finalize =
      gstcl::finalize_deleting<&GstClPicture::priv, &gst_cl_picture_parent_class>;
  clpicture::install_properties (gobject_class, kFirst);

  gst_element_class_set_static_metadata (element_class, "OpenCL picture stages",
      "Filter/Effect/Video/Hardware", "Denoise, sharpening and a 3D LUT (.cube) on an "
      "OpenCL device, as cldebayer's camera path applies them", "gst-opencl developers");
  gst_cl_filter_class_add_pad_templates (filter_class, GST_CL_RAW_CAPS (FORMATS),
      GST_CL_RAW_CAPS (FORMATS));
  GST_BASE_TRANSFORM_CLASS (klass)->stop = gst_cl_picture_stop;
  filter_class->set_info = gst_cl_picture_set_info;
  filter_class->plan = gst_cl_picture_plan;
  filter_class->filter = gst_cl_picture_filter;

  GST_DEBUG_CATEGORY_INIT (gst_cl_picture_debug, "clpicture", 0, "OpenCL picture stages");
}

static void
gst_cl_picture_init (GstClPicture * self)
{
  self->priv = new gstcl::ElementPrivate<clpicture::Settings, clpicture::Pass> ();
}
