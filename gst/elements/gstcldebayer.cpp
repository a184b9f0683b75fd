/**
 * SECTION:element-cldebayer
 * @title: cldebayer
 *
 * Demosaics Bayer frames on any OpenCL device, with the 5x5
 * gradient-corrected linear filters of Malvar, He and Cutler (ICASSP 2004)
 * or with bilinear interpolation, for the four patterns and for 8-bit and
 * 10- to 16-bit samples (`rggb`, `bggr12le`, ...: little-endian 16-bit
 * words, the format names of GStreamer 1.24; sample values above
 * 2^bits - 1 are clamped). A row of 8-bit samples takes width bytes rounded
 * up to 4, a row of 16-bit words 2 x width bytes rounded up to 4, unless the
 * buffer carries a GstVideoMeta.
 *
 * Exact arithmetic, in integers: malvar sums the paper's coefficients x 16
 * and returns clamp ((sum + 8) >> 4, 0, 2^bits - 1); bilinear returns
 * (a + b + 1) >> 1 and (a + b + c + d + 2) >> 2. Output channels are
 * round (v x 255 / (2^bits - 1)) for 8-bit formats and
 * round (v x 65535 / (2^bits - 1)) for RGBA64_LE (offered for 10..16-bit
 * input only); alpha and padding channels are opaque (255 or 65535). GRAY8 is
 * the luma of the 8-bit channels, Y = (77 R + 150 G + 29 B + 128) >> 8.
 *
 * Samples outside the image are mirrored about the edge sample (x = -1 reads
 * x = 1, x = -2 reads x = 2, repeated for frames narrower than the filter),
 * which keeps the Bayer phase. The output has the input's size; frames must
 * be at least 2x2.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 v4l2src ! video/x-bayer,format=grbg ! cldebayer ! videoconvert ! autovideosink
 * gst-launch-1.0 filesrc location=frame.bggr12 blocksize=614400 ! video/x-bayer,format=bggr12le,width=640,height=480,framerate=0/1 ! cldebayer ! video/x-raw,format=RGBA64_LE ! videoconvert ! pngenc ! filesink location=frame.png
 * gst-launch-1.0 videotestsrc ! video/x-bayer,format=rggb ! clupload ! cldebayer ! clsobel ! cldownload ! videoconvert ! autovideosink
 * ]|
 */
#include "gstcldebayer.h"
#include "gstclelements.h"
#include "cl-kernels.h"

#include <gst/opencl/gstcl.hpp>
#include <gst/opencl/gstclframe.hpp>
#include <gst/opencl/gstclvideo.h>

#include <mutex>
#include <stdexcept>
#include <string>

GST_DEBUG_CATEGORY_STATIC (gst_cl_debayer_debug);
#define GST_CAT_DEFAULT gst_cl_debayer_debug

typedef enum { METHOD_MALVAR, METHOD_BILINEAR } DebayerMethod;

#define GST_TYPE_CL_DEBAYER_METHOD (gst_cl_debayer_method_get_type ())
static GType
gst_cl_debayer_method_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {METHOD_MALVAR, "Malvar-He-Cutler 5x5 gradient-corrected linear filters",
        "malvar"},
    {METHOD_BILINEAR, "Bilinear interpolation of the nearest samples", "bilinear"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstClDebayerMethod", values));
  return type;
}

/* Negotiated state, built in set_info and on the first frame after `method`
 * changed. */
struct DebayerState {
  std::string format_options;   /* -D options of the input/output formats */
  bool can_align = false;       /* 4-channel output: ALIGNED possible */
  /* The general variant [0] and the ALIGNED one [1], built when first used,
   * with the options they were built with. */
  std::string built_options[2];
  cl::Kernel kernel[2];
  int phase_x = 0, phase_y = 0; /* the pattern as a shift of RGGB */
  int maxv = 255;               /* 2^bits - 1 */
  cl_uint scale_mul = 0;        /* output scaling, see debayer.cl */
  int scale_shift = 0;
  cl_int4 layout {};            /* channel positions, see debayer.cl */
  /* The CPU variant (debayer_cells + debayer_rim), taken on CPU devices. */
  bool use_cells = false;
  bool out_words = false;       /* the cells variant stores 32-bit words */
  std::string cells_options;
  cl::Kernel cells, rim;
};

struct _GstClDebayer {
  GstClFilter parent;
  std::mutex *settings_lock;
  DebayerMethod method;         /* under settings_lock */
  DebayerState *state;
};

G_DEFINE_TYPE (GstClDebayer, gst_cl_debayer, GST_TYPE_CL_FILTER)
GST_ELEMENT_REGISTER_DEFINE (cldebayer, "cldebayer", GST_RANK_NONE, GST_TYPE_CL_DEBAYER)

enum { PROP_0, PROP_METHOD };

#define PATTERNS "bggr, gbrg, grbg, rggb"
#define DEEP_PATTERNS(bits) "bggr" bits ", gbrg" bits ", grbg" bits ", rggb" bits
#define SIZE_AND_RATE ", width = (int) [ 2, max ], height = (int) [ 2, max ], " \
    "framerate = (fraction) [ 0, max ]"
#define DEEP_FORMATS DEEP_PATTERNS ("10le") ", " DEEP_PATTERNS ("12le") ", " \
    DEEP_PATTERNS ("14le") ", " DEEP_PATTERNS ("16le")
#define SINK_CAPS "video/x-bayer, format = (string) { " PATTERNS ", " DEEP_FORMATS " }" \
    SIZE_AND_RATE
#define RGB8_FORMATS "RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, xRGB, xBGR, RGB, BGR, GRAY8"
#define SRC_CAPS "video/x-raw, format = (string) { " RGB8_FORMATS ", RGBA64_LE }" \
    SIZE_AND_RATE

static DebayerMethod
method_of (GstClDebayer * self)
{
  std::lock_guard<std::mutex> lock (*self->settings_lock);
  return self->method;
}

/* Calls fn (name) for each string of a format field (a string or a list);
 * returns FALSE when there is no such field (any format). */
template <typename Fn>
static bool
for_each_format (const GstStructure * s, Fn fn)
{
  const GValue *v = gst_structure_get_value (s, "format");
  if (!v)
    return false;
  if (G_VALUE_HOLDS_STRING (v)) {
    fn (g_value_get_string (v));
  } else if (GST_VALUE_HOLDS_LIST (v)) {
    for (guint i = 0; i < gst_value_list_get_size (v); i++) {
      const GValue *item = gst_value_list_get_value (v, i);
      if (G_VALUE_HOLDS_STRING (item))
        fn (g_value_get_string (item));
    }
  }
  return true;
}

/* `s` renamed to `name` with formats `formats`, keeping size, rate and
 * pixel aspect ratio. */
static GstStructure *
convert_structure (const GstStructure * s, const char *name, const char *formats)
{
  GstStructure *out = gst_structure_new_empty (name);
  GstCaps *list = gst_caps_from_string ((std::string ("x, format = (string) { ") + formats +
          " }").c_str ());
  gst_structure_set_value (out, "format",
      gst_structure_get_value (gst_caps_get_structure (list, 0), "format"));
  gst_caps_unref (list);
  for (const char *field : { "width", "height", "framerate", "pixel-aspect-ratio" }) {
    const GValue *v = gst_structure_get_value (s, field);
    if (v)
      gst_structure_set_value (out, field, v);
  }
  return out;
}

static bool
is_rgb8_format (const char *name)
{
  for (const char *f : { "RGBA", "BGRA", "RGBx", "BGRx", "ARGB", "ABGR", "xRGB", "xBGR",
          "RGB", "BGR", "GRAY8" })
    if (g_str_equal (f, name))
      return true;
  return false;
}

static GstCaps *
gst_cl_debayer_transform_plain_caps (GstClFilter *, GstPadDirection direction, GstCaps * caps)
{
  GstCaps *out = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *s = gst_caps_get_structure (caps, i);
    bool shallow = false, deep = false;
    if (direction == GST_PAD_SINK) {
      if (!gst_structure_has_name (s, "video/x-bayer"))
        continue;
      if (!for_each_format (s, [&] (const char *f) {
            gint bits;
            if (gst_cl_bayer_format_parse (f, nullptr, &bits))
              (bits == 8 ? shallow : deep) = true;
          }))
        shallow = deep = true;
      if (shallow || deep)
        out = gst_caps_merge_structure (out, convert_structure (s, "video/x-raw",
                deep ? RGB8_FORMATS ", RGBA64_LE" : RGB8_FORMATS));
    } else {
      if (!gst_structure_has_name (s, "video/x-raw"))
        continue;
      /* shallow: an 8-bit output format, deep: RGBA64_LE */
      if (!for_each_format (s, [&] (const char *f) {
            if (g_str_equal (f, "RGBA64_LE"))
              deep = true;
            else if (is_rgb8_format (f))
              shallow = true;
          }))
        shallow = deep = true;
      if (shallow || deep)
        out = gst_caps_merge_structure (out, convert_structure (s, "video/x-bayer",
                shallow ? PATTERNS ", " DEEP_FORMATS : DEEP_FORMATS));
    }
  }
  return out;
}

/* The -D options of the output pixel, and where its channels go. */
static std::string
output_options (const GstVideoInfo * info, cl_int4 * layout)
{
  const GstVideoFormat format = GST_VIDEO_INFO_FORMAT (info);
  *layout = cl_int4 { {0, 0, 0, 0} };
  if (format == GST_VIDEO_FORMAT_GRAY8)
    return " -D OUT_CH=1 -D OUT_16=0";
  const bool wide = format == GST_VIDEO_FORMAT_RGBA64_LE;
  const int channel_bytes = wide ? 2 : 1;
  const int channels = GST_VIDEO_INFO_COMP_PSTRIDE (info, 0) / channel_bytes;
  const int r = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_R) / channel_bytes;
  const int g = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_G) / channel_bytes;
  const int b = GST_VIDEO_INFO_COMP_POFFSET (info, GST_VIDEO_COMP_B) / channel_bytes;
  /* alpha or padding: the position R, G and B leave free */
  *layout = cl_int4 { {r, g, b, channels == 4 ? 6 - r - g - b : 0} };
  return " -D OUT_CH=" + std::to_string (channels) + " -D OUT_16=" + (wide ? "1" : "0");
}

static void
gst_cl_debayer_set_info (GstClFilter * filter, GstClContext * ctx, GstCaps * incaps,
    const GstVideoInfo * in_info, GstCaps *, const GstVideoInfo * out_info)
{
  auto *self = GST_CL_DEBAYER (filter);
  DebayerState *st = self->state;
  const int width = GST_VIDEO_INFO_WIDTH (in_info), height = GST_VIDEO_INFO_HEIGHT (in_info);
  if (width < 2 || height < 2)
    throw std::runtime_error ("Bayer frames must be at least 2x2 samples, got " +
        std::to_string (width) + "x" + std::to_string (height));
  if (GST_VIDEO_INFO_WIDTH (out_info) != width || GST_VIDEO_INFO_HEIGHT (out_info) != height)
    throw std::runtime_error ("output size differs from the input's");

  gint pattern, bits;
  if (!gst_cl_bayer_format_parse (gst_structure_get_string (gst_caps_get_structure (incaps,
                  0), "format"), &pattern, &bits))
    throw std::runtime_error ("unsupported Bayer format");
  if (bits == 8 && GST_VIDEO_INFO_FORMAT (out_info) == GST_VIDEO_FORMAT_RGBA64_LE)
    throw std::runtime_error ("RGBA64_LE output needs 10- to 16-bit input");
  /* Pattern 0 bggr, 1 gbrg, 2 grbg, 3 rggb as shifts of RGGB. */
  static const int phase[4][2] = { {1, 1}, {0, 1}, {1, 0}, {0, 0} };
  st->phase_x = phase[pattern][0];
  st->phase_y = phase[pattern][1];
  st->maxv = (1 << bits) - 1;
  /* floor (q / maxv) == (q * mul) >> shift for q < 2^30 when
   * mul = ceil (2^(30 + bits) / maxv) (Granlund-Montgomery, since maxv < 2^bits) */
  st->scale_shift = 30 + bits;
  st->scale_mul = (cl_uint) (((1ull << st->scale_shift) + st->maxv - 1) / st->maxv);
  st->format_options = std::string (" -D IN_16=") + (bits > 8 ? "1" : "0") +
      output_options (out_info, &st->layout);
  /* 4-channel output (alpha or padding included) */
  st->can_align = GST_VIDEO_INFO_FORMAT (out_info) == GST_VIDEO_FORMAT_RGBA64_LE ||
      GST_VIDEO_INFO_COMP_PSTRIDE (out_info, 0) == 4;
  for (int i = 0; i < 2; i++) {
    st->built_options[i].clear ();
    st->kernel[i] = cl::Kernel ();
  }
  /* The cells variant on CPUs, the block kernels (tuned for GPUs)
   * elsewhere; GST_OPENCL_TUNING=cpu|gpu forces one (tests). */
  st->use_cells = !gstcl::tuned_for_gpu (ctx);
  const GstVideoFormat out_format = GST_VIDEO_INFO_FORMAT (out_info);
  st->out_words = out_format == GST_VIDEO_FORMAT_RGBA64_LE ||
      GST_VIDEO_INFO_COMP_PSTRIDE (out_info, 0) == 4;
  st->cells_options.clear ();
  st->cells = st->rim = cl::Kernel ();
  GST_DEBUG_OBJECT (self, "%s variant", st->use_cells ? "cells (CPU)" : "blocks (GPU)");
}

/* Sets the arguments every debayer kernel takes; returns the next index. */
static cl_uint
set_common_args (cl::Kernel & k, const DebayerState * st, const GstClFrame * in,
    const GstClFrame * out)
{
  cl_uint next = gstcl::set_frame_args (k, 0, in, out);
  k.setArg (next++, (cl_int) st->phase_x);
  k.setArg (next++, (cl_int) st->phase_y);
  k.setArg (next++, (cl_int) st->maxv);
  k.setArg (next++, st->scale_mul);
  k.setArg (next++, (cl_int) st->scale_shift);
  k.setArg (next++, st->layout);
  return next;
}

/* The CPU variant: debayer_cells over the interior, in whole work-groups of
 * CELLS_LX columns x CELLS_LY row pairs, and debayer_rim over the 8x2 blocks around it
 * (all of them when the interior is smaller than a work-group). */
#define CELLS_LX 128
#define CELLS_LY 2

static void
filter_cells (GstClDebayer * self, GstClContext * ctx, const GstClFrame * in,
    const GstClFrame * out, const std::string &options)
{
  DebayerState *st = self->state;
  if (options != st->cells_options) {
    static const std::string source = std::string (gst_cl_kernel_common) + gst_cl_kernel_debayer;
    const cl::Program program = gstcl::program (ctx, source, options);
    st->cells = cl::Kernel (program, "debayer_cells");
    st->rim = cl::Kernel (program, "debayer_rim");
    st->cells_options = options;
    GST_DEBUG_OBJECT (self, "kernel variant%s", options.c_str ());
  }
  const int width = GST_VIDEO_INFO_WIDTH (&out->info);
  const int height = GST_VIDEO_INFO_HEIGHT (&out->info);
  const int px = st->phase_x, py = st->phase_y;
  const int nbx = (width + px + 7) / 8, nby = (height + py + 1) / 2;
  /* Blocks (8 bx - px, 2 by - py) whose 12x6 window lies inside the image:
   * 8 bx - px >= 2, 8 bx - px + 9 < width, 2 by - py >= 2, 2 by - py + 3 < height. */
  int bx0 = 1, bx1 = width - 10 + px >= 0 ? (width - 10 + px) / 8 + 1 : 0;
  int by0 = (3 + py) / 2, by1 = height - 4 + py >= 0 ? (height - 4 + py) / 2 + 1 : 0;
  if (8 * (bx1 - bx0) < CELLS_LX || by1 - by0 < CELLS_LY) {
    bx1 = bx0;
    by1 = by0;
  } else {
    const int nx = 8 * (bx1 - bx0), ny = by1 - by0;
    cl_uint next = set_common_args (st->cells, st, in, out);
    st->cells.setArg (next++, (cl_int) (8 * bx0 - px));
    st->cells.setArg (next++, (cl_int) (2 * by0 - py));
    st->cells.setArg (next++, (cl_int) nx);
    st->cells.setArg (next++, (cl_int) ny);
    gstcl::enqueue_2d (ctx, st->cells, nx, ny, CELLS_LX, CELLS_LY);
  }
  cl_uint next = set_common_args (st->rim, st, in, out);
  st->rim.setArg (next++, (cl_int) bx0);
  st->rim.setArg (next++, (cl_int) bx1);
  st->rim.setArg (next++, (cl_int) by0);
  st->rim.setArg (next++, (cl_int) by1);
  const int rim_blocks = (by0 + nby - by1) * nbx + (bx0 + nbx - bx1) * (by1 - by0);
  gstcl::enqueue_2d (ctx, st->rim, rim_blocks, 1, 64, 1);
}

static GstFlowReturn
gst_cl_debayer_filter (GstClFilter * filter, GstClContext * ctx, const GstClFrame * in,
    const GstClFrame * out)
{
  auto *self = GST_CL_DEBAYER (filter);
  DebayerState *st = self->state;

  const gint in_offset = (gint) GST_VIDEO_INFO_PLANE_OFFSET (&in->info, 0);
  const gint in_stride = GST_VIDEO_INFO_PLANE_STRIDE (&in->info, 0);
  if (st->maxv > 255 && ((in_offset | in_stride) & 1)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("16-bit Bayer rows must be 2-byte aligned"),
        ("offset %d, stride %d", in_offset, in_stride));
    return GST_FLOW_ERROR;
  }
  std::string options = st->format_options + " -D METHOD=" + std::to_string (method_of (self));

  /* The cells variant stores 4-channel pixels as 32-bit words: output rows
   * at 4-byte boundaries (always so in the element's own pool). */
  const int out_offset = (int) GST_VIDEO_INFO_PLANE_OFFSET (&out->info, 0);
  const int out_stride = GST_VIDEO_INFO_PLANE_STRIDE (&out->info, 0);
  if (st->use_cells && (!st->out_words || ((out_offset | out_stride) & 3) == 0)) {
    filter_cells (self, ctx, in, out, options + " -D CELLS=1");
    return GST_FLOW_OK;
  }

  /* Pool buffers at common widths qualify for the aligned variant; padded
   * GstVideoMeta layouts and odd widths take the general one. */
  const int aligned = st->can_align && gstcl::rows_aligned_16 (in) &&
      gstcl::rows_aligned_16 (out);
  if (aligned)
    options += " -D ALIGNED=1 -D PHASE_X=" + std::to_string (st->phase_x);
  if (options != st->built_options[aligned]) {
    static const std::string source = std::string (gst_cl_kernel_common) + gst_cl_kernel_debayer;
    st->kernel[aligned] = cl::Kernel (gstcl::program (ctx, source, options), "debayer");
    st->built_options[aligned] = options;
    GST_DEBUG_OBJECT (self, "kernel variant%s", options.c_str ());
  }

  const int width = GST_VIDEO_INFO_WIDTH (&out->info);
  const int height = GST_VIDEO_INFO_HEIGHT (&out->info);
  cl::Kernel &k = st->kernel[aligned];
  set_common_args (k, st, in, out);
  /* One work-item per 8x2 block of pixels, RGGB-aligned in the general
   * variant, 8-column-aligned in the aligned one (see debayer.cl). */
  const int shift_x = aligned ? 0 : st->phase_x;
  gstcl::enqueue_2d (ctx, k, (width + shift_x + 7) / 8, (height + st->phase_y + 1) / 2);
  return GST_FLOW_OK;
}

static void
gst_cl_debayer_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  auto *self = GST_CL_DEBAYER (object);
  std::lock_guard<std::mutex> lock (*self->settings_lock);
  switch (prop_id) {
    case PROP_METHOD: self->method = (DebayerMethod) g_value_get_enum (value); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
gst_cl_debayer_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  auto *self = GST_CL_DEBAYER (object);
  std::lock_guard<std::mutex> lock (*self->settings_lock);
  switch (prop_id) {
    case PROP_METHOD: g_value_set_enum (value, self->method); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
gst_cl_debayer_finalize (GObject * object)
{
  auto *self = GST_CL_DEBAYER (object);
  delete self->state;
  delete self->settings_lock;
  G_OBJECT_CLASS (gst_cl_debayer_parent_class)->finalize (object);
}

static void
gst_cl_debayer_class_init (GstClDebayerClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstClFilterClass *filter_class = GST_CL_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cl_debayer_set_property;
  gobject_class->get_property = gst_cl_debayer_get_property;
  gobject_class->finalize = gst_cl_debayer_finalize;

  g_object_class_install_property (gobject_class, PROP_METHOD,
      g_param_spec_enum ("method", "Method", "Demosaic algorithm",
          GST_TYPE_CL_DEBAYER_METHOD, METHOD_MALVAR, (GParamFlags) (G_PARAM_READWRITE |
              G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING)));

  gst_element_class_set_static_metadata (element_class, "OpenCL Bayer demosaic",
      "Filter/Converter/Video/Hardware", "Converts 8- to 16-bit Bayer to RGB on an "
      "OpenCL device (Malvar-He-Cutler or bilinear)", "gst-opencl developers");
  gst_cl_filter_class_add_pad_templates (filter_class, SINK_CAPS, SRC_CAPS);

  filter_class->transform_plain_caps = gst_cl_debayer_transform_plain_caps;
  filter_class->set_info = gst_cl_debayer_set_info;
  filter_class->filter = gst_cl_debayer_filter;

  GST_DEBUG_CATEGORY_INIT (gst_cl_debayer_debug, "cldebayer", 0, "OpenCL Bayer demosaic");
  gst_type_mark_as_plugin_api (GST_TYPE_CL_DEBAYER_METHOD, (GstPluginAPIFlags) 0);
}

static void
gst_cl_debayer_init (GstClDebayer * self)
{
  self->settings_lock = new std::mutex ();
  self->method = METHOD_MALVAR;
  self->state = new DebayerState ();
}
