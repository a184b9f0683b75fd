/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-clsobel
 * @title: clsobel
 *
 * Sobel edge detection on any OpenCL device. Colour input is turned into
 * luma first, Y = (77 R + 150 G + 29 B + 128) >> 8; for I420 and NV12 the Y
 * plane is used. The output has the input's size, in GRAY8, or GRAY16_LE to
 * keep gradients above 255 unsaturated.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc ! clsobel ! videoconvert ! autovideosink
 * gst-launch-1.0 v4l2src ! clupload ! clsobel norm=l1 scale=0.5 ! cldownload ! videoconvert ! autovideosink
 * gst-launch-1.0 videotestsrc num-buffers=1 ! clsobel threshold=100 ! pngenc ! filesink location=edges.png
 * ]|
 */
#include "gstclsobel.h"
#include "gstclelements.h"
#include "gstclenums.h"
#include "gstclsettings.hpp"
#include <gst/opencl/gstclprivate.hpp>
#include "cl-kernels.h"

#include <gst/opencl/gstcl.hpp>
#include <gst/opencl/gstclframe.hpp>
#include <gst/opencl/gstclpixel.hpp>

#include <mutex>
#include <string>

GST_DEBUG_CATEGORY_STATIC (gst_cl_sobel_debug);
#define GST_CAT_DEFAULT gst_cl_sobel_debug

typedef enum { OUTPUT_MAGNITUDE, OUTPUT_DX, OUTPUT_DY } SobelOutput;
typedef enum { NORM_L2, NORM_L1 } SobelNorm;

#define GST_TYPE_CL_SOBEL_OUTPUT (gst_cl_sobel_output_get_type ())
static GType
gst_cl_sobel_output_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {OUTPUT_MAGNITUDE, "Gradient magnitude (see norm)", "magnitude"},
    {OUTPUT_DX, "Absolute horizontal gradient |dx|", "dx"},
    {OUTPUT_DY, "Absolute vertical gradient |dy|", "dy"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstClSobelOutput", values));
  return type;
}

#define GST_TYPE_CL_SOBEL_NORM (gst_cl_sobel_norm_get_type ())
static GType
gst_cl_sobel_norm_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {NORM_L2, "sqrt(dx^2 + dy^2)", "l2"},
    {NORM_L1, "|dx| + |dy|", "l1"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstClSobelNorm", values));
  return type;
}

struct SobelSettings {
  SobelOutput output = OUTPUT_MAGNITUDE;
  SobelNorm norm = NORM_L2;
  GstClBorder border = GST_CL_BORDER_REPLICATE;
  double scale = 1.0;
  double threshold = 0.0;
};

/* Negotiated state, built in set_info, and the plan: the kernel variant and
 * its arguments but the frames, made when the settings or the frames'
 * layouts change (GstClFilterClass::plan). */
struct SobelState {
  std::string format_options;   /* -D options of the formats the kernel reads and writes */
  std::string built_options;    /* options and entry point of `kernel` */
  bool deep = false;            /* 16-bit input: sobel_deep */
  bool narrow = false;          /* the plan's kernel is sobel_narrow */
  cl::Kernel kernel;
  /* CPUs with RGB input: a luma plane first (kernels/sobel.cl, luma_plane),
   * then the GRAY8 kernel on it (luma_frame). Null otherwise. */
  cl::Kernel luma;
  cl::Buffer luma_buffer;
  GstClFrame luma_frame {};
};

struct _GstClSobel {
  GstClFilter parent;
  gstcl::ElementPrivate<SobelSettings, SobelState> *priv;
};

G_DEFINE_TYPE (GstClSobel, gst_cl_sobel, GST_TYPE_CL_FILTER)
GST_ELEMENT_REGISTER_DEFINE (clsobel, "clsobel", GST_RANK_NONE, GST_TYPE_CL_SOBEL)

enum { PROP_0, PROP_OUTPUT, PROP_NORM, PROP_SCALE, PROP_THRESHOLD, PROP_BORDER };

#define SINK_FORMATS "GRAY8, RGB, BGR, RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, xRGB, " \
    "xBGR, I420, NV12, GRAY16_LE, RGBA64_LE"
#define SRC_FORMATS "GRAY8, GRAY16_LE"

/* Same size and rate; only the format changes. */
static GstCaps *
gst_cl_sobel_transform_plain_caps (GstClFilter *, GstPadDirection direction, GstCaps * caps)
{
  GstCaps *out = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *s = gst_caps_get_structure (caps, i);
    const gchar *in_format = gst_structure_get_string (s, "format");
    /* 16-bit input prefers 16-bit output: its gradients exceed 255. */
    const bool deep = direction == GST_PAD_SINK && in_format &&
        (g_str_equal (in_format, "GRAY16_LE") || g_str_equal (in_format, "RGBA64_LE"));
    out = gst_caps_merge_structure (out, gst_cl_structure_with_formats (s, nullptr,
            direction == GST_PAD_SRC ? SINK_FORMATS : deep ? "GRAY16_LE, GRAY8" :
            SRC_FORMATS));
  }
  return out;
}

/* On CPUs, RGB input goes through a luma plane: a pass PoCL vectorises
 * across work-items, then the GRAY8 kernel, 1.5x faster than turning
 * interleaved pixels into luma inside the 16-pixel vectors. Same bytes. */
static void
prepare_luma_plane (GstClContext * ctx, SobelState * st, const std::string & rgb_options,
    const GstVideoInfo * in_info)
{
  const int width = GST_VIDEO_INFO_WIDTH (in_info), height = GST_VIDEO_INFO_HEIGHT (in_info);
  GstVideoInfo *luma_info = &st->luma_frame.info;
  gst_video_info_set_format (luma_info, GST_VIDEO_FORMAT_GRAY8, width, height);
  GST_VIDEO_INFO_PLANE_STRIDE (luma_info, 0) = (width + 15) / 16 * 16;
  st->luma_buffer = cl::Buffer (gstcl::context_of (ctx), CL_MEM_READ_WRITE,
      (size_t) GST_VIDEO_INFO_PLANE_STRIDE (luma_info, 0) * height);
  st->luma_frame.mem = st->luma_buffer ();
  static const std::string source = std::string (gst_cl_kernel_common) + gst_cl_kernel_sobel;
  const std::string options = rgb_options +
      gstcl::pixel_layout (GST_VIDEO_FORMAT_GRAY8).shape_options ("OUT") + " -D BORDER=0 -D OUTPUT=0 -D NORM=0 -D ALIGNED=0";  /* unused by luma_plane */
  st->luma = cl::Kernel (gstcl::program (ctx, source, options), "luma_plane");
}

static void
gst_cl_sobel_set_info (GstClFilter * filter, GstClContext * ctx, GstCaps *,
    const GstVideoInfo * in_info, GstCaps *, const GstVideoInfo * out_info)
{
  auto *self = GST_CL_SOBEL (filter);
  SobelState *st = &self->priv->state;
  /* GRAY8, I420 and NV12 are read as a grey plane (the luma). */
  std::string in_opts = gstcl::pixel_layout (GST_VIDEO_FORMAT_GRAY8).options ("IN");
  st->luma = cl::Kernel ();
  st->luma_buffer = cl::Buffer ();
  st->luma_frame.mem = nullptr;
  st->deep = gstcl::pixel_layout (in_info).sample_bytes == 2;
  if (st->deep) {
    in_opts = gstcl::pixel_layout (in_info).options ("IN");   /* sobel_deep */
  } else if (GST_VIDEO_INFO_IS_RGB (in_info)) {
    const std::string rgb_opts = gstcl::pixel_layout (in_info).options ("IN");
    if (gstcl::tuned_for_gpu (ctx))
      in_opts = rgb_opts;
    else
      prepare_luma_plane (ctx, st, rgb_opts, in_info);
  }
  st->format_options = in_opts + gstcl::pixel_layout (out_info).shape_options ("OUT");
  st->built_options.clear ();
  st->kernel = cl::Kernel ();
}

/* The frame the Sobel kernel reads: the input, or the luma plane made of it. */
static const GstClFrame *
sobel_input (const SobelState * st, const GstClFrame * in)
{
  return st->luma () ? &st->luma_frame : in;
}

/* The kernel variant for these settings and frame layouts, and its
 * arguments but the frames. */
static void
gst_cl_sobel_plan (GstClFilter * filter, GstClContext * ctx, const GstClFrame * in,
    const GstClFrame * out)
{
  auto *self = GST_CL_SOBEL (filter);
  SobelState *st = &self->priv->state;
  const SobelSettings s = self->priv->copy ();
  in = sobel_input (st, in);
  /* Pool buffers of common sizes have 16-byte aligned rows. */
  const bool aligned = gstcl::rows_aligned_16 (in) && gstcl::rows_aligned_16 (out);
  /* GPUs take 4 x 2 pixels per work-item (any depth), CPUs 16 (kernels/sobel.cl);
   * 16-bit input elsewhere one. */
  st->narrow = aligned && gstcl::tuned_for_gpu (ctx);
  const std::string options = st->format_options + " -D BORDER=" + std::to_string (s.border) +
      " -D OUTPUT=" + std::to_string (s.output) + " -D NORM=" + std::to_string (s.norm) +
      " -D ALIGNED=" + (aligned ? "1" : "0");
  const char *entry = st->narrow ? "sobel_narrow" : st->deep ? "sobel_deep" : "sobel";
  /* (scale or threshold alone keep the kernel) */
  if (options + entry != st->built_options) {
    static const std::string source = std::string (gst_cl_kernel_common) + gst_cl_kernel_sobel;
    st->kernel = cl::Kernel (gstcl::program (ctx, source, options), entry);
    st->built_options = options + entry;
    GST_DEBUG_OBJECT (self, "kernel %s, variant%s", entry, options.c_str ());
  }
  cl::Kernel &k = st->kernel;
  gstcl::set_args (k, gstcl::set_frame_args (k, 0, in, out), (cl_float) s.scale,
      (cl_float) s.threshold);
}

static GstFlowReturn
gst_cl_sobel_filter (GstClFilter * filter, GstClContext * ctx, const GstClFrame * in,
    const GstClFrame * out)
{
  auto *self = GST_CL_SOBEL (filter);
  SobelState *st = &self->priv->state;

  if (st->luma ()) {
    gstcl::set_frame_args (st->luma, 0, in, &st->luma_frame);
    gstcl::enqueue_2d (ctx, st->luma, GST_VIDEO_INFO_WIDTH (&st->luma_frame.info),
        GST_VIDEO_INFO_HEIGHT (&st->luma_frame.info), 64, 1);
  }
  const int width = GST_VIDEO_INFO_WIDTH (&out->info);
  const int height = GST_VIDEO_INFO_HEIGHT (&out->info);
  cl::Kernel &k = st->kernel;
  gstcl::set_frame_args (k, 0, sobel_input (st, in), out);
  if (st->narrow)
    gstcl::enqueue_2d (ctx, k, (width + 3) / 4, (height + 1) / 2, 64, 4);
  else if (st->deep)
    gstcl::enqueue_2d (ctx, k, width, height);
  else
    gstcl::enqueue_2d (ctx, k, (width + 15) / 16, height, 16, 4);
  return GST_FLOW_OK;
}

static void
gst_cl_sobel_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  auto *self = GST_CL_SOBEL (object);
  std::lock_guard<std::mutex> lock (self->priv->lock);
  SobelSettings *s = &self->priv->settings;
  switch (prop_id) {
    case PROP_OUTPUT: s->output = (SobelOutput) g_value_get_enum (value); break;
    case PROP_NORM: s->norm = (SobelNorm) g_value_get_enum (value); break;
    case PROP_SCALE: s->scale = g_value_get_double (value); break;
    case PROP_THRESHOLD: s->threshold = g_value_get_double (value); break;
    case PROP_BORDER: s->border = (GstClBorder) g_value_get_enum (value); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
gst_cl_sobel_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  auto *self = GST_CL_SOBEL (object);
  std::lock_guard<std::mutex> lock (self->priv->lock);
  const SobelSettings *s = &self->priv->settings;
  switch (prop_id) {
    case PROP_OUTPUT: g_value_set_enum (value, s->output); break;
    case PROP_NORM: g_value_set_enum (value, s->norm); break;
    case PROP_SCALE: g_value_set_double (value, s->scale); break;
    case PROP_THRESHOLD: g_value_set_double (value, s->threshold); break;
    case PROP_BORDER: g_value_set_enum (value, s->border); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
gst_cl_sobel_class_init (GstClSobelClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstClFilterClass *filter_class = GST_CL_FILTER_CLASS (klass);
  const auto controllable = (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING | GST_PARAM_CONTROLLABLE);
  const auto flags = (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING);

  gobject_class->set_property = gst_cl_sobel_set_property;
  gobject_class->get_property = gst_cl_sobel_get_property;
  gobject_class->finalize =
      gstcl::finalize_deleting<&GstClSobel::priv, &gst_cl_sobel_parent_class>;

  g_object_class_install_property (gobject_class, PROP_OUTPUT,
      g_param_spec_enum ("output", "Output", "What to output: the gradient magnitude, "
          "or the absolute value of one gradient", GST_TYPE_CL_SOBEL_OUTPUT,
          OUTPUT_MAGNITUDE, flags));
  g_object_class_install_property (gobject_class, PROP_NORM,
      g_param_spec_enum ("norm", "Norm", "How output=magnitude combines dx and dy",
          GST_TYPE_CL_SOBEL_NORM, NORM_L2, flags));
  g_object_class_install_property (gobject_class, PROP_SCALE,
      g_param_spec_double ("scale", "Scale", "Factor applied to the value before "
          "rounding and saturation: out = saturate(round(scale * value))",
          0.0, 65535.0, 1.0, controllable));
  g_object_class_install_property (gobject_class, PROP_THRESHOLD,
      g_param_spec_double ("threshold", "Threshold", "0 = off; otherwise output "
          "is white (255, or 65535 for GRAY16_LE) where scale * value >= threshold, "
          "else 0", 0.0, 65535.0 * 4, 0.0, controllable));
  g_object_class_install_property (gobject_class, PROP_BORDER,
      g_param_spec_enum ("border", "Border", "How pixels outside the image are read",
          GST_TYPE_CL_BORDER, GST_CL_BORDER_REPLICATE, flags));

  gst_element_class_set_static_metadata (element_class, "OpenCL Sobel edge detector",
      "Filter/Effect/Video/Hardware", "Sobel gradient magnitude or dx/dy on an "
      "OpenCL device", "gst-opencl developers");
  gst_cl_filter_class_add_pad_templates (filter_class, GST_CL_RAW_CAPS (SINK_FORMATS),
      GST_CL_RAW_CAPS (SRC_FORMATS));

  filter_class->transform_plain_caps = gst_cl_sobel_transform_plain_caps;
  filter_class->set_info = gst_cl_sobel_set_info;
  filter_class->plan = gst_cl_sobel_plan;
  filter_class->filter = gst_cl_sobel_filter;

  GST_DEBUG_CATEGORY_INIT (gst_cl_sobel_debug, "clsobel", 0, "OpenCL Sobel filter");
  gst_type_mark_as_plugin_api (GST_TYPE_CL_SOBEL_OUTPUT, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CL_SOBEL_NORM, (GstPluginAPIFlags) 0);
}

static void
gst_cl_sobel_init (GstClSobel * self)
{
  self->priv = new gstcl::ElementPrivate<SobelSettings, SobelState> ();
}
