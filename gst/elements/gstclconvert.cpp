/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-clconvert
 * @title: clconvert
 *
 * Colour conversion, scaling and flips or rotations on any OpenCL device,
 * in one kernel pass: any of GRAY8, GRAY16_LE, RGB, BGR, RGBA, BGRA, RGBx,
 * BGRx, ARGB, ABGR, xRGB, xBGR, RGBA64_LE, NV12, I420, YUY2 and UYVY in,
 * any of them out, at the size of the output caps. With the same caps on
 * both sides and no direction, the element is passthrough (no copy, no
 * kernel).
 *
 * Y'CbCr uses the matrix (BT.709, BT.601, BT.2020, ...) and range (limited
 * or full) of the caps' colorimetry (GStreamer's default for the size when
 * they name none); grey is full-range luma with the weights of its caps'
 * matrix (BT.601 by default). The output caps name the colorimetry and, for
 * Y'CbCr, the chroma siting written (centred: "jpeg"). RGB to 4:2:0 takes the
 * mean Cb and Cr of each 2x2 block, to 4:2:2 of each pixel pair; 4:2:0 and
 * 4:2:2 input is upsampled bilinearly, chroma sited at the centre of its
 * block (see docs/clconvert.md).
 *
 * Scaling: `method` bilinear (centre-aligned, as OpenCV's INTER_LINEAR),
 * nearest (the pixel under each output pixel's centre) or area (the mean
 * over each output pixel's footprint). Size and pixel aspect ratio
 * negotiate as videoscale's: the display aspect ratio kept by the pixel
 * aspect ratio where downstream leaves it open. `add-borders` keeps it with
 * black bars when downstream fixes both size and pixel aspect ratio.
 * `video-direction` flips and turns (90-degree turns swap width and
 * height); `auto` follows the stream's image-orientation tag.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 v4l2src ! video/x-raw,format=YUY2 ! clupload ! clconvert ! clsobel ! cldownload ! videoconvert ! autovideosink
 * gst-launch-1.0 videotestsrc ! clconvert ! video/x-raw,format=I420,width=640,height=360 ! openh264enc ! fakesink
 * gst-launch-1.0 videotestsrc ! clconvert video-direction=90r ! videoconvert ! autovideosink
 * ]|
 */
#include "gstclconvert.h"
#include "gstclconvertcaps.hpp"
#include "gstclelements.h"
#include "gstclsettings.hpp"
#include "cl-kernels.h"

#include <gst/opencl/gstcl.hpp>
#include <gst/opencl/gstclcolor.hpp>
#include <gst/opencl/gstclframe.hpp>
#include <gst/opencl/gstclpixel.hpp>
#include <gst/opencl/gstclprivate.hpp>

#include <atomic>
#include <cmath>
#include <map>
#include <mutex>
#include <string>
#include <vector>

GST_DEBUG_CATEGORY_STATIC (gst_cl_convert_debug);
#define GST_CAT_DEFAULT gst_cl_convert_debug

typedef enum { METHOD_BILINEAR, METHOD_NEAREST, METHOD_AREA } ConvertMethod;

#define GST_TYPE_CL_CONVERT_METHOD (gst_cl_convert_method_get_type ())
static GType
gst_cl_convert_method_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {METHOD_BILINEAR, "Bilinear, centre-aligned (as OpenCV INTER_LINEAR)", "bilinear"},
    {METHOD_NEAREST, "Nearest: the pixel under the output pixel's centre", "nearest"},
    {METHOD_AREA, "Area: the mean over the output pixel's footprint (no aliasing when "
          "shrinking)", "area"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstClConvertMethod", values));
  return type;
}

struct ConvertSettings {
  ConvertMethod method = METHOD_BILINEAR;
  GstVideoOrientationMethod direction = GST_VIDEO_ORIENTATION_IDENTITY;
  /* from the last image-orientation tag, for direction=auto */
  GstVideoOrientationMethod tag_direction = GST_VIDEO_ORIENTATION_IDENTITY;
  bool add_borders = true;

  GstVideoOrientationMethod effective () const
  {
    return direction == GST_VIDEO_ORIENTATION_AUTO ? tag_direction : direction;
  }
};

/* A kernel launch of the plan: the kernel, its arguments set but the
 * frames' cl_mem, and its range. */
struct ConvertLaunch {
  cl::Kernel kernel;
  size_t w, h, lw, lh;
};

/* Negotiated state, built in set_info, and the plan (GstClFilterClass::plan):
 * the launches of the settings and frame layouts in force. */
struct ConvertState {
  GstVideoInfo in_info, out_info;
  std::string shape_options;    /* -D options of the two pixel shapes */
  /* kernels/convert.cl's kernels, by build options (SCALE, BORDERS, ...) */
  struct Kernels {
    cl::Kernel any;     /* convert: every case, GPUs and the CPU's right rim */
    cl::Kernel rows;    /* convert_rows: 8-bit, no scale, direction or borders, CPUs */
    /* the same on GPUs, 4x2 pixels a work-item: convert_yuv_rgb4 or convert_rgb4_420 */
    cl::Kernel block;
  };
  std::map<std::string, Kernels> kernels;
  bool in8 = false, out8 = false;   /* 8-bit samples */
  /* GPUs' block kernel for this pair of formats (8-bit 4:2:0 or 4:2:2 to
   * 4-byte RGB, 4-byte RGB to 4:2:0), or null */
  const char *block_kernel = nullptr;
  bool block_420_in = false;    /* it pairs rows 2n - 1 and 2n (4:2:0 input) */
  cl_int4 block_order {};       /* its arguments: the RGB side's order and */
  cl_float8 block_k {};         /* coefficients (fold, or the output's) */
  cl_float8 fold {};            /* Y'CbCr input to RGB (folded_coefficients) */
  cl_int4 in_order {}, out_order {};
  cl_int alphas = 0;            /* 1: the input has alpha, 2: the output has */
  cl_float8 in_k {}, out_k {};  /* gstclcolor.hpp */
  std::atomic<bool> same_caps { false };
  std::vector<ConvertLaunch> launches;   /* the plan: one or two */
  cl_uint out_arg = 0;          /* index of the output cl_mem in every kernel */
};

struct _GstClConvert {
  GstClFilter parent;
  gstcl::ElementPrivate<ConvertSettings, ConvertState> *priv;
};

static void gst_cl_convert_direction_init (GstVideoDirectionInterface *) {}

G_DEFINE_TYPE_WITH_CODE (GstClConvert, gst_cl_convert, GST_TYPE_CL_FILTER,
    G_IMPLEMENT_INTERFACE (GST_TYPE_VIDEO_DIRECTION, gst_cl_convert_direction_init))
GST_ELEMENT_REGISTER_DEFINE (clconvert, "clconvert", GST_RANK_NONE, GST_TYPE_CL_CONVERT)

enum { PROP_0, PROP_METHOD, PROP_ADD_BORDERS, PROP_VIDEO_DIRECTION };

#define FORMATS "GRAY8, GRAY16_LE, RGB, BGR, RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, " \
    "xRGB, xBGR, RGBA64_LE, NV12, I420, YUY2, UYVY"
#define CAPS GST_CL_RAW_CAPS (FORMATS)

static ConvertSettings
settings_of (GstClConvert * self)
{
  return self->priv->copy ();
}

static bool
transposes (GstVideoOrientationMethod d)
{
  return d == GST_VIDEO_ORIENTATION_90R || d == GST_VIDEO_ORIENTATION_90L ||
      d == GST_VIDEO_ORIENTATION_UL_LR || d == GST_VIDEO_ORIENTATION_UR_LL;
}

/* Passthrough (no copy, no kernel) while the caps are the same on both
 * sides and nothing is turned or flipped. */
static void
update_passthrough (GstClConvert * self)
{
  const bool identity = settings_of (self).effective () == GST_VIDEO_ORIENTATION_IDENTITY;
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self),
      identity && self->priv->state.same_caps);
}

/* Any format and size on the other side; the size is fixed in fixate. */
static GstCaps *
gst_cl_convert_transform_plain_caps (GstClFilter *, GstPadDirection, GstCaps * caps)
{
  GstCaps *out = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *s = gst_cl_structure_with_formats (gst_caps_get_structure (caps, i),
        nullptr, FORMATS);
    gst_structure_set (s, "width", GST_TYPE_INT_RANGE, 1, G_MAXINT, "height",
        GST_TYPE_INT_RANGE, 1, G_MAXINT, nullptr);
    if (gst_structure_has_field (s, "pixel-aspect-ratio"))
      gst_structure_set (s, "pixel-aspect-ratio", GST_TYPE_FRACTION_RANGE, 1, G_MAXINT,
          G_MAXINT, 1, nullptr);
    out = gst_caps_merge_structure (out, s);
  }
  return out;
}

/* Nothing turned or flipped and the other side takes the input's caps
 * (memory included): those, for passthrough. Else, as videoscale, the size
 * and pixel aspect ratio that keep the display aspect ratio (of the input
 * turned for 90-degree directions), the input's format where the other side
 * takes it, and for the output the colorimetry and chroma siting of what the
 * kernel writes (gstclconvertcaps.hpp). Then GstClFilter prefers OpenCL
 * memory and fixes the rest. */
static GstCaps *
gst_cl_convert_fixate_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * othercaps)
{
  auto *self = GST_CL_CONVERT (trans);
  const GstVideoOrientationMethod d = settings_of (self).effective ();
  if (d == GST_VIDEO_ORIENTATION_IDENTITY) {
    GstCaps *same = gst_caps_intersect_full (caps, othercaps, GST_CAPS_INTERSECT_FIRST);
    if (!gst_caps_is_empty (same)) {
      gst_caps_unref (othercaps);
      return gst_caps_fixate (same);
    }
    gst_caps_unref (same);
  }
  const GstStructure *in = gst_caps_get_structure (caps, 0);
  gint w = 0, h = 0, par_n = 1, par_d = 1;
  gst_structure_get_int (in, "width", &w);
  gst_structure_get_int (in, "height", &h);
  gst_structure_get_fraction (in, "pixel-aspect-ratio", &par_n, &par_d);
  if (transposes (d)) {
    std::swap (w, h);
    std::swap (par_n, par_d);
  }
  const char *format = gst_structure_get_string (in, "format");
  othercaps = gst_caps_make_writable (othercaps);
  for (guint i = 0; i < gst_caps_get_size (othercaps); i++) {
    GstStructure *s = gst_caps_get_structure (othercaps, i);
    if (w > 0 && h > 0 && par_n > 0 && par_d > 0)
      clconvert::fixate_size (s, direction, w, h, par_n, par_d);
    if (format && !gst_structure_has_field_typed (s, "format", G_TYPE_STRING))
      gst_structure_fixate_field_string (s, "format", format);
    gst_structure_fixate_field (s, "format");
    if (direction == GST_PAD_SINK)
      clconvert::describe_output (caps, s);
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cl_convert_parent_class)->fixate_caps (trans,
      direction, caps, othercaps);
}

static cl_float8
coefficients (const GstVideoInfo * info)
{
  if (GST_VIDEO_INFO_IS_YUV (info) || GST_VIDEO_INFO_IS_GRAY (info))
    return gstcl::yuv_coefficients (info);
  return cl_float8 {};
}

/* Y'CbCr codes to R'G'B' codes (0..255) in one step, from the coefficients
 * (Kr, Kb, Y offset, Y scale, C scale) of gstclcolor.hpp, kernels/color.cl's
 * formulas multiplied out: with Cb, Cr less 128,
 *   R = s0 Y + s1 + s2 Cr    B = s0 Y + s1 + s3 Cb    G = s0 Y + s1 + s4 Cr + s5 Cb
 * (s1 holds the rounding 1/2). */
static cl_float8
folded_coefficients (const cl_float8 & k)
{
  const double kr = k.s[0], kb = k.s[1], kg = 1.0 - kr - kb;
  if (k.s[3] == 0.0f || k.s[4] == 0.0f || kg == 0.0)
    return cl_float8 {};   /* not Y'CbCr */
  const double ys = 255.0 / k.s[3], cs = 255.0 / k.s[4];
  return cl_float8 { { (cl_float) ys, (cl_float) (0.5 - ys * k.s[2]),
      (cl_float) (2.0 * (1.0 - kr) * cs), (cl_float) (2.0 * (1.0 - kb) * cs),
      (cl_float) (-2.0 * kr * (1.0 - kr) / kg * cs), (cl_float) (-2.0 * kb * (1.0 - kb) / kg * cs),
      0.0f, 0.0f } };
}

static void
gst_cl_convert_set_info (GstClFilter * filter, GstClContext *, GstCaps * incaps,
    const GstVideoInfo * in_info, GstCaps * outcaps, const GstVideoInfo * out_info)
{
  auto *self = GST_CL_CONVERT (filter);
  ConvertState *st = &self->priv->state;
  const gstcl::PixelLayout in = gstcl::pixel_layout (in_info);
  const gstcl::PixelLayout out = gstcl::pixel_layout (out_info);
  st->in_info = *in_info;
  st->out_info = *out_info;
  st->shape_options = in.shape_options ("IN") + out.shape_options ("OUT");
  st->kernels.clear ();
  st->in_order = in.order ();
  st->out_order = out.order ();
  st->alphas = (in.alpha ? 1 : 0) | (out.alpha ? 2 : 0);
  st->in8 = in.sample_bytes == 1;
  st->out8 = out.sample_bytes == 1;
  st->in_k = coefficients (in_info);
  st->out_k = coefficients (out_info);
  const bool yuv_rgb4 = in.yuv != gstcl::YUV_NONE && out.yuv == gstcl::YUV_NONE &&
      out.channels == 4;
  const bool rgb4_420 = in.yuv == gstcl::YUV_NONE && in.channels == 4 &&
      (out.yuv == gstcl::YUV_NV12 || out.yuv == gstcl::YUV_I420);
  st->block_kernel = !(st->in8 && st->out8) ? nullptr : yuv_rgb4 ? "convert_yuv_rgb4" :
      rgb4_420 ? "convert_rgb4_420" : nullptr;
  st->block_420_in = in.yuv == gstcl::YUV_NV12 || in.yuv == gstcl::YUV_I420;
  st->block_order = yuv_rgb4 ? st->out_order : st->in_order;
  st->fold = folded_coefficients (st->in_k);
  st->block_k = rgb4_420 ? st->out_k : st->fold;
  st->same_caps = gst_caps_is_equal (incaps, outcaps);
  st->launches.clear ();
  update_passthrough (self);
}

/* Where the picture goes in the output (x, y, w, h): all of it, or, with
 * add-borders, the largest rectangle of the input's display aspect ratio
 * (turned), centred. */
static cl_int4
picture_rect (const GstVideoInfo * in, const GstVideoInfo * out, bool turned, bool borders)
{
  const int ow = GST_VIDEO_INFO_WIDTH (out), oh = GST_VIDEO_INFO_HEIGHT (out);
  cl_int4 r { { 0, 0, ow, oh } };
  if (!borders)
    return r;
  double dar = (double) GST_VIDEO_INFO_WIDTH (in) * GST_VIDEO_INFO_PAR_N (in) /
      ((double) GST_VIDEO_INFO_HEIGHT (in) * GST_VIDEO_INFO_PAR_D (in));
  if (turned)
    dar = 1.0 / dar;
  const double par = (double) GST_VIDEO_INFO_PAR_N (out) / GST_VIDEO_INFO_PAR_D (out);
  const double width = oh * dar / par;   /* at the full height */
  if (std::fabs (width - ow) < 1.0)
    return r;
  if (width < ow) {
    r.s[2] = std::max (1, (int) std::lround (width));
    r.s[0] = (ow - r.s[2]) / 2;
  } else {
    r.s[3] = std::max (1, (int) std::lround (ow * par / dar));
    r.s[1] = (oh - r.s[3]) / 2;
  }
  return r;
}

/* (ux, uy) = (s0 + s1 x + s2 y, s3 + s4 x + s5 y) of the picture's (x, y),
 * in the scaled frame of s6 x s7 before the direction. */
static cl_int8
direction_map (GstVideoOrientationMethod d, int uw, int uh)
{
  const int W = uw - 1, H = uh - 1;
  switch (d) {
    case GST_VIDEO_ORIENTATION_90R: return cl_int8 { { 0, 0, 1, H, -1, 0, uw, uh } };
    case GST_VIDEO_ORIENTATION_180: return cl_int8 { { W, -1, 0, H, 0, -1, uw, uh } };
    case GST_VIDEO_ORIENTATION_90L: return cl_int8 { { W, 0, -1, 0, 1, 0, uw, uh } };
    case GST_VIDEO_ORIENTATION_HORIZ: return cl_int8 { { W, -1, 0, 0, 0, 1, uw, uh } };
    case GST_VIDEO_ORIENTATION_VERT: return cl_int8 { { 0, 1, 0, H, 0, -1, uw, uh } };
    case GST_VIDEO_ORIENTATION_UL_LR: return cl_int8 { { 0, 0, 1, 0, 1, 0, uw, uh } };
    case GST_VIDEO_ORIENTATION_UR_LL: return cl_int8 { { W, 0, -1, H, -1, 0, uw, uh } };
    default: return cl_int8 { { 0, 1, 0, 0, 0, 1, uw, uh } };
  }
}

/* Sets (offset of planes 0, 1, 2, stride of planes 0, 1, 2) from argument
 * `first` on; returns the next index. */
static cl_uint
set_plane_args (cl::Kernel & k, cl_uint first, const GstClFrame * f)
{
  const GstVideoInfo *i = &f->info;
  const guint n = GST_VIDEO_INFO_N_PLANES (i);
  auto offset = [&] (guint p) { return (cl_int) (p < n ? GST_VIDEO_INFO_PLANE_OFFSET (i, p) : 0); };
  auto stride = [&] (guint p) { return (cl_int) (p < n ? GST_VIDEO_INFO_PLANE_STRIDE (i, p) : 0); };
  return gstcl::set_args (k, first, offset (0), offset (1), offset (2), stride (0), stride (1),
      stride (2));
}

/* The kernels of the settings and frame layouts in force, their arguments
 * (all but the frames' cl_mem) and their ranges. */
static void
gst_cl_convert_plan (GstClFilter * filter, GstClContext * ctx, const GstClFrame * in,
    const GstClFrame * out)
{
  auto *self = GST_CL_CONVERT (filter);
  ConvertState *st = &self->priv->state;
  const ConvertSettings s = settings_of (self);
  const GstVideoOrientationMethod d = s.effective ();
  const bool turned = transposes (d);
  const int in_w = GST_VIDEO_INFO_WIDTH (&in->info), in_h = GST_VIDEO_INFO_HEIGHT (&in->info);
  const int out_w = GST_VIDEO_INFO_WIDTH (&out->info);
  const int out_h = GST_VIDEO_INFO_HEIGHT (&out->info);
  const cl_int4 rect = picture_rect (&st->in_info, &st->out_info, turned, s.add_borders);
  const int uw = turned ? rect.s[3] : rect.s[2], uh = turned ? rect.s[2] : rect.s[3];
  const bool scale = uw != in_w || uh != in_h;

  const bool borders = rect.s[0] != 0 || rect.s[1] != 0 || rect.s[2] != out_w ||
      rect.s[3] != out_h;
  /* CPUs: whole 8-pixel runs of 8-bit frames in vectors (convert_rows) */
  const bool cpu_rows = st->in8 && st->out8 && !gstcl::tuned_for_gpu (ctx);
  /* GPUs: Y'CbCr to 4-byte RGB and back by blocks of 4x2 pixels */
  const bool gpu_fast = st->block_kernel && !scale && !borders && gstcl::tuned_for_gpu (ctx);
  const std::string options = st->shape_options + (scale ? " -D SCALE=1" : " -D SCALE=0") +
      (borders ? " -D BORDERS=1" : " -D BORDERS=0") + (cpu_rows ? " -D ROWS=1" : "") +
      (gpu_fast ? " -D FAST=1" : "");
  auto found = st->kernels.find (options);
  if (found == st->kernels.end ()) {
    static const std::string source = std::string (gst_cl_kernel_common) +
        gst_cl_kernel_color + gst_cl_kernel_convert;
    const cl::Program program = gstcl::program (ctx, source, options);
    ConvertState::Kernels k { cl::Kernel (program, "convert"), cl::Kernel (), cl::Kernel () };
    if (cpu_rows)
      k.rows = cl::Kernel (program, "convert_rows");
    if (gpu_fast)
      k.block = cl::Kernel (program, st->block_kernel);
    found = st->kernels.emplace (options, k).first;
    GST_DEBUG_OBJECT (self, "variant%s", options.c_str ());
  }
  const gstcl::PixelLayout layout = gstcl::pixel_layout (&out->info);
  const int bw = layout.yuv != gstcl::YUV_NONE ? 2 : 1;
  const int bh = layout.yuv == gstcl::YUV_NV12 || layout.yuv == gstcl::YUV_I420 ? 2 : 1;
  const int rows = (out_h + bh - 1) / bh;
  /* rows on 4-byte boundaries: convert_rows moves 32-bit words (reading
   * where it can; writing 4-byte pixels and 4:2:2 only so, which the pools
   * always give) */
  auto aligned4 = [] (const GstClFrame * f) {
    return GST_VIDEO_INFO_PLANE_OFFSET (&f->info, 0) % 4 == 0 &&
        GST_VIDEO_INFO_PLANE_STRIDE (&f->info, 0) % 4 == 0;
  };
  const bool word_out = layout.pixel_bytes () == 4 || layout.yuv == gstcl::YUV_YUY2 ||
      layout.yuv == gstcl::YUV_UYVY;
  const bool plain = !scale && !borders && d == GST_VIDEO_ORIENTATION_IDENTITY;
  /* GPUs: the blocks of 4 by the block kernel (any alignment: it takes
   * narrower accesses where rows are not aligned), the rest by convert */
  const int quads = found->second.block () && plain ? out_w / 4 : 0;
  /* CPUs: the runs of 8 by convert_rows, the rest by convert */
  const int vector_w = quads > 0 ? quads * 4 : found->second.rows () && plain &&
      (!word_out || aligned4 (out)) ? out_w / 8 * 8 : 0;
  const cl_int words = aligned4 (in) ? 4 : 0;
  const cl_int8 m = direction_map (d, uw, uh);
  /* scalars only (kernels/convert.cl says why) */
  st->launches.clear ();
  auto set = [&] (cl::Kernel & k, int first_block) {
    cl_uint arg = set_plane_args (k, gstcl::set_args (k, 0, in->mem), in);
    st->out_arg = arg;
    arg = set_plane_args (k, gstcl::set_args (k, arg, out->mem), out);
    arg = gstcl::set_args (k, arg, in_w, in_h, out_w, out_h, rect.s[0], rect.s[1], rect.s[2],
        rect.s[3], m.s[0], m.s[1], m.s[2], m.s[3], m.s[4], m.s[5], m.s[6], m.s[7],
        (cl_float) in_w / (cl_float) uw, (cl_float) in_h / (cl_float) uh, (cl_int) s.method);
    arg = gstcl::set_args (k, arg, st->in_order.s[0], st->in_order.s[1], st->in_order.s[2],
        st->in_order.s[3], st->out_order.s[0], st->out_order.s[1], st->out_order.s[2],
        st->out_order.s[3], st->alphas | words, (cl_int) 1);
    for (const cl_float8 *c : { &st->in_k, &st->out_k })
      arg = gstcl::set_args (k, arg, c->s[0], c->s[1], c->s[2], c->s[3], c->s[4]);
    const cl_float8 &f = st->fold;
    gstcl::set_args (k, arg, f.s[0], f.s[1], f.s[2], f.s[3], f.s[4], f.s[5],
        (cl_int) first_block);
  };
  if (quads > 0) {
    cl::Kernel &k = found->second.block;
    cl_uint arg = set_plane_args (k, gstcl::set_args (k, 0, in->mem), in);
    st->out_arg = arg;
    arg = set_plane_args (k, gstcl::set_args (k, arg, out->mem), out);
    const cl_int4 &o = st->block_order;
    gstcl::set_args (k, arg, (cl_int) quads, out_w, out_h, o.s[0], o.s[1], o.s[2], o.s[3],
        st->block_k);
    /* 64 blocks of a row a group: each warp reads or writes 2 KiB of a
     * 4-byte RGB row. 4:2:0 input pairs rows 2n - 1 and 2n, n = 0 .. h / 2
     * (kernels/convert.cl) */
    st->launches.push_back ({k, (size_t) quads,
          (size_t) (st->block_420_in ? out_h / 2 + 1 : (out_h + 1) / 2), 64, 4});
  } else if (vector_w > 0) {
    set (found->second.rows, vector_w / 8);   /* (the number of runs) */
    /* PoCL: one row of 64 work-items a group (taller or narrower groups
     * measured 2x slower at 1080p); narrow frames 8, so that few redo the
     * last run */
    const int runs = vector_w / 8;
    st->launches.push_back ({found->second.rows, (size_t) runs, (size_t) rows,
          (size_t) (runs >= 64 ? 64 : 8), 1});
  }
  if (vector_w < out_w) {
    set (found->second.any, vector_w / bw);
    st->launches.push_back ({found->second.any, (size_t) ((out_w - vector_w + bw - 1) / bw),
          (size_t) rows, 32, 8});
  }
}

static GstFlowReturn
gst_cl_convert_filter (GstClFilter * filter, GstClContext * ctx, const GstClFrame * in,
    const GstClFrame * out)
{
  ConvertState *st = &GST_CL_CONVERT (filter)->priv->state;
  for (ConvertLaunch &l : st->launches) {
    gstcl::set_args (l.kernel, 0, in->mem);
    gstcl::set_args (l.kernel, st->out_arg, out->mem);
    gstcl::enqueue_2d (ctx, l.kernel, l.w, l.h, l.lw, l.lh);
  }
  return GST_FLOW_OK;
}

/* image-orientation tags for direction=auto */
static gboolean
gst_cl_convert_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  auto *self = GST_CL_CONVERT (trans);
  gchar *orientation = nullptr;
  GstTagList *tags;
  if (GST_EVENT_TYPE (event) == GST_EVENT_TAG) {
    gst_event_parse_tag (event, &tags);
    if (gst_tag_list_get_string (tags, GST_TAG_IMAGE_ORIENTATION, &orientation)) {
      static const struct { const char *tag; GstVideoOrientationMethod method; } map[] = {
        {"rotate-0", GST_VIDEO_ORIENTATION_IDENTITY},
        {"rotate-90", GST_VIDEO_ORIENTATION_90R},
        {"rotate-180", GST_VIDEO_ORIENTATION_180},
        {"rotate-270", GST_VIDEO_ORIENTATION_90L},
        {"flip-rotate-0", GST_VIDEO_ORIENTATION_HORIZ},
        {"flip-rotate-90", GST_VIDEO_ORIENTATION_UL_LR},
        {"flip-rotate-180", GST_VIDEO_ORIENTATION_VERT},
        {"flip-rotate-270", GST_VIDEO_ORIENTATION_UR_LL},
      };
      bool changed = false;
      for (const auto &m : map)
        if (g_strcmp0 (orientation, m.tag) == 0) {
          std::lock_guard<std::mutex> lock (self->priv->lock);
          changed = self->priv->settings.tag_direction != m.method &&
              self->priv->settings.direction == GST_VIDEO_ORIENTATION_AUTO;
          self->priv->settings.tag_direction = m.method;
        }
      g_free (orientation);
      if (changed) {
        gst_cl_filter_settings_changed (GST_CL_FILTER (self));   /* no notify */
        update_passthrough (self);
        gst_base_transform_reconfigure_src (trans);
      }
    }
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cl_convert_parent_class)->sink_event (trans, event);
}

static void
gst_cl_convert_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  auto *self = GST_CL_CONVERT (object);
  bool redo = false;
  std::string refused;
  {
    std::lock_guard<std::mutex> lock (self->priv->lock);
    ConvertSettings *s = &self->priv->settings;
    switch (prop_id) {
      case PROP_METHOD: s->method = (ConvertMethod) g_value_get_enum (value); break;
      case PROP_ADD_BORDERS: s->add_borders = g_value_get_boolean (value); break;
      case PROP_VIDEO_DIRECTION: {
        const auto d = (GstVideoOrientationMethod) g_value_get_enum (value);
        if (d == GST_VIDEO_ORIENTATION_CUSTOM) {
          refused = "custom needs a transform matrix, which clconvert does not take";
          break;
        }
        redo = d != s->direction;
        s->direction = d;
        break;
      }
      default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
  }
  if (prop_id == PROP_VIDEO_DIRECTION)
    clsettings::settle (GST_CL_BASE_TRANSFORM (self), pspec, value, refused,
        "The previous direction stays in force.");
  if (redo) {
    /* a turn changes the caps; a flip ends passthrough */
    update_passthrough (self);
    gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
  }
}

static void
gst_cl_convert_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  auto *self = GST_CL_CONVERT (object);
  std::lock_guard<std::mutex> lock (self->priv->lock);
  const ConvertSettings *s = &self->priv->settings;
  switch (prop_id) {
    case PROP_METHOD: g_value_set_enum (value, s->method); break;
    case PROP_ADD_BORDERS: g_value_set_boolean (value, s->add_borders); break;
    case PROP_VIDEO_DIRECTION: g_value_set_enum (value, s->direction); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
gst_cl_convert_class_init (GstClConvertClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstClFilterClass *filter_class = GST_CL_FILTER_CLASS (klass);
  const auto flags = (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING);

  gobject_class->set_property = gst_cl_convert_set_property;
  gobject_class->get_property = gst_cl_convert_get_property;
  gobject_class->finalize =
      gstcl::finalize_deleting<&GstClConvert::priv, &gst_cl_convert_parent_class>;

  g_object_class_install_property (gobject_class, PROP_METHOD,
      g_param_spec_enum ("method", "Method", "How to scale when the output size differs "
          "from the (turned) input's", GST_TYPE_CL_CONVERT_METHOD, METHOD_BILINEAR, flags));
  g_object_class_install_property (gobject_class, PROP_ADD_BORDERS,
      g_param_spec_boolean ("add-borders", "Add borders", "Keep the display aspect ratio "
          "when the output's differs, with black bars (else the picture is stretched)",
          TRUE, flags));
  /* GstVideoDirection's property: identity, 90r, 180, 90l, horiz, vert,
   * ul-lr, ur-ll, auto (from the image-orientation tag); custom is refused */
  g_object_class_override_property (gobject_class, PROP_VIDEO_DIRECTION, "video-direction");

  gst_element_class_set_static_metadata (element_class,
      "OpenCL colour converter, scaler and flipper",
      "Filter/Converter/Video/Scaler/Hardware", "Converts between video formats, "
      "scales, flips and rotates on an OpenCL device, in one pass", "gst-opencl developers");
  gst_cl_filter_class_add_pad_templates (filter_class, CAPS, CAPS);

  trans_class->fixate_caps = gst_cl_convert_fixate_caps;
  trans_class->sink_event = gst_cl_convert_sink_event;
  filter_class->transform_plain_caps = gst_cl_convert_transform_plain_caps;
  filter_class->set_info = gst_cl_convert_set_info;
  filter_class->plan = gst_cl_convert_plan;
  filter_class->filter = gst_cl_convert_filter;

  GST_DEBUG_CATEGORY_INIT (gst_cl_convert_debug, "clconvert", 0,
      "OpenCL colour conversion, scaling and flips");
  gst_type_mark_as_plugin_api (GST_TYPE_CL_CONVERT_METHOD, (GstPluginAPIFlags) 0);
}

static void
gst_cl_convert_init (GstClConvert * self)
{
  self->priv = new gstcl::ElementPrivate<ConvertSettings, ConvertState> ();
}
