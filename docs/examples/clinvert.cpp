/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-clinvert
 * @title: clinvert
 *
 * The minimal OpenCL element of docs/architecture.md ("Adding an element"),
 * complete in one file: it moves each colour channel of 8-bit RGB-family and
 * GRAY8 frames `amount` of the way to its negative (0: a copy, 1: the
 * negative, 255 - v), rounding to nearest; alpha and x bytes are copied.
 * Built as the plugin "clexample" (not part of the "opencl" plugin) and
 * checked against a CPU model by tests/test_example_element.cpp.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc ! clinvert amount=0.5 ! videoconvert ! autovideosink
 * ]|
 */
#include <gst/opencl/opencl.h>         /* GstClFilter, GST_CL_RAW_CAPS */
#include <gst/opencl/gstcl.hpp>        /* gstcl::program, gstcl::enqueue_2d */
#include <gst/opencl/gstclframe.hpp>   /* gstcl::set_args, set_frame_args */
#include <gst/opencl/gstclpixel.hpp>   /* gstcl::pixel_layout */
#include <gst/opencl/gstclprivate.hpp> /* gstcl::ElementPrivate */

/* 1. The kernel. In the tree: kernels/invert.cl, listed in kernels/meson.build
 * and embedded at build time as gst_cl_kernel_invert; the element includes
 * "cl-kernels.h" and builds std::string (gst_cl_kernel_common) +
 * gst_cl_kernel_invert (nothing prepends common.cl for it). Variants come
 * from -D options; the pixel layout always from PixelLayout (PX_BPP,
 * PX_FOURTH, ...), never from options an element spells itself. */
static const char *const invert_source = R"CL(
__kernel void invert (__global const uchar *in, int in_offset, int in_stride,
    __global uchar *out, int out_offset, int out_stride, int width, int height,
    float amount)
{
  const int x = get_global_id (0), y = get_global_id (1);
  if (x >= width || y >= height)
    return;
  __global const uchar *p = in + in_offset + (size_t) y * in_stride + (size_t) x * PX_BPP;
  __global uchar *q = out + out_offset + (size_t) y * out_stride + (size_t) x * PX_BPP;
  for (int i = 0; i < PX_BPP; i++) {
    const float v = p[i];
    q[i] = i == PX_FOURTH ? p[i] : convert_uchar_sat_rte (mad (amount, 255.0f - 2.0f * v, v));
  }
}
)CL";

/* 2. What the user set, and what set_info built: one private part (an
 * element without properties: gstcl::ElementPrivate<gstcl::NoSettings, State>). */
struct InvertSettings {
  double amount = 1.0;
};

struct InvertState {
  cl::Kernel kernel;
};

struct _GstClInvert {
  GstClFilter parent;
  gstcl::ElementPrivate<InvertSettings, InvertState> *priv;
};

/* 3. The type and its registration (in the tree: the header declares it with
 * G_DECLARE_FINAL_TYPE, gstclelements.h lists the element once). */
#define GST_TYPE_CL_INVERT (gst_cl_invert_get_type ())
G_DECLARE_FINAL_TYPE (GstClInvert, gst_cl_invert, GST, CL_INVERT, GstClFilter)
G_DEFINE_TYPE (GstClInvert, gst_cl_invert, GST_TYPE_CL_FILTER)
GST_ELEMENT_REGISTER_DEFINE (clinvert, "clinvert", GST_RANK_NONE, GST_TYPE_CL_INVERT)

enum { PROP_0, PROP_AMOUNT };

#define CAPS GST_CL_RAW_CAPS ("GRAY8, RGB, BGR, RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, " \
    "xRGB, xBGR")

/* 4. set_info: the negotiated format is known; build here (the first build
 * of a program on PoCL can take a second; the base class announces it).
 * Throwing cl::Error or gstcl::BuildError is fine: the base class turns it
 * into an element error with the build log. */
static void
gst_cl_invert_set_info (GstClFilter * filter, GstClContext * ctx, GstCaps *,
    const GstVideoInfo * in_info, GstCaps *, const GstVideoInfo *)
{
  auto *self = GST_CL_INVERT (filter);
  const std::string options = gstcl::pixel_layout (in_info).options ("PX");
  self->priv->state.kernel = cl::Kernel (gstcl::program (ctx, invert_source, options,
          "clinvert"), "invert");
}

/* 5. plan: what each frame runs, made when the settings or the frames'
 * layouts change (the base class calls it then, never per frame): here the
 * kernel's arguments but the frames. An element with kernel variants picks
 * one here (e.g. by gstcl::rows_aligned_16 (in)). */
static void
gst_cl_invert_plan (GstClFilter * filter, GstClContext *, const GstClFrame * in,
    const GstClFrame * out)
{
  auto *self = GST_CL_INVERT (filter);
  const InvertSettings s = self->priv->copy ();
  cl::Kernel &k = self->priv->state.kernel;
  gstcl::set_args (k, gstcl::set_frame_args (k, 0, in, out), (cl_float) s.amount);
}

/* 6. filter: enqueue the kernel on the context's queue, frames as the base
 * class hands them (device buffers with their real offsets and strides; it
 * uploads system memory and downloads for system-memory peers). Only the
 * frames' arguments are set per frame. */
static GstFlowReturn
gst_cl_invert_filter (GstClFilter * filter, GstClContext * ctx, const GstClFrame * in,
    const GstClFrame * out)
{
  cl::Kernel &k = GST_CL_INVERT (filter)->priv->state.kernel;
  gstcl::set_frame_args (k, 0, in, out);
  gstcl::enqueue_2d (ctx, k, GST_VIDEO_INFO_WIDTH (&out->info),
      GST_VIDEO_INFO_HEIGHT (&out->info));
  return GST_FLOW_OK;
}

/* 7. Properties: under the lock, readable while playing; a value GObject's
 * range check cannot judge is not stored, and the element says why after
 * releasing the lock: clsettings::settle () in the tree (gstclsettings.hpp),
 * gst_cl_base_transform_refuse () outside it. */
static void
gst_cl_invert_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  auto *self = GST_CL_INVERT (object);
  std::lock_guard<std::mutex> lock (self->priv->lock);
  switch (prop_id) {
    case PROP_AMOUNT: self->priv->settings.amount = g_value_get_double (value); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
gst_cl_invert_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  auto *self = GST_CL_INVERT (object);
  std::lock_guard<std::mutex> lock (self->priv->lock);
  switch (prop_id) {
    case PROP_AMOUNT: g_value_set_double (value, self->priv->settings.amount); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
gst_cl_invert_class_init (GstClInvertClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstClFilterClass *filter_class = GST_CL_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cl_invert_set_property;
  gobject_class->get_property = gst_cl_invert_get_property;
  gobject_class->finalize =
      gstcl::finalize_deleting<&GstClInvert::priv, &gst_cl_invert_parent_class>;
  g_object_class_install_property (gobject_class, PROP_AMOUNT,
      g_param_spec_double ("amount", "Amount", "How far each colour channel moves "
          "to its negative: 0 a copy, 1 the negative (255 - v)", 0.0, 1.0, 1.0,
          (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
              GST_PARAM_MUTABLE_PLAYING | GST_PARAM_CONTROLLABLE)));

  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass), "OpenCL invert",
      "Filter/Effect/Video/Hardware", "Moves colours toward their negative on an "
      "OpenCL device (the minimal example element)", "gst-opencl developers");
  /* Both memories on both pads; the base class negotiates them. */
  gst_cl_filter_class_add_pad_templates (filter_class, CAPS, CAPS);
  filter_class->set_info = gst_cl_invert_set_info;
  filter_class->plan = gst_cl_invert_plan;
  filter_class->filter = gst_cl_invert_filter;
}

static void
gst_cl_invert_init (GstClInvert * self)
{
  self->priv = new gstcl::ElementPrivate<InvertSettings, InvertState> ();
}

/* 8. The plugin (in the tree: plugin.cpp registers every element of
 * gstclelements.h). */
static gboolean
plugin_init (GstPlugin * plugin)
{
  return GST_ELEMENT_REGISTER (clinvert, plugin);
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, clexample,
    "The minimal gst-opencl element", plugin_init, "1.0", "LGPL", "gst-opencl",
    "gst-opencl project")
