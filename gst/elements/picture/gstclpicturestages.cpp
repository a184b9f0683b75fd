/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstclpicturestages.hpp"
#include "gstclsettings.hpp"
#include "cl-kernels.h"

#include <gst/opencl/gstclcolor.hpp>
#include <gst/opencl/gstclframe.hpp>
#include <gst/opencl/gstclpixel.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace clpicture {

static GType
interpolation_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {INTERP_TRILINEAR, "Trilinear: the 8 corners of the cell", "trilinear"},
    {INTERP_TETRAHEDRAL, "Tetrahedral: the 4 corners of the cell's tetrahedron that holds "
          "the colour (keeps the grey axis exactly)", "tetrahedral"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstClLut3dInterpolation", values));
  return type;
}

void
install_properties (GObjectClass * klass, guint first)
{
  const auto playing = (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING);
  const auto controllable = (GParamFlags) (playing | GST_PARAM_CONTROLLABLE);
  g_object_class_install_property (klass, first + PROP_DENOISE,
      g_param_spec_double ("denoise", "Denoise", "Edge-preserving denoise (non-local means; "
          "clpicture: on Y'CbCr, cldebayer: on the raw samples before the demosaic): "
          "strength s targets Poisson-Gaussian noise of sigma 4 s % of full scale at mid "
          "grey (0.25: 1 %, 0.5: 2 %, 1: 4 %); 0: off", 0, 1, 0, controllable));
  g_object_class_install_property (klass, first + PROP_SHARPEN,
      g_param_spec_double ("sharpen", "Sharpen", "Unsharp mask amount on the encoded luma "
          "Y' (Y'' = Y' + amount (Y' - G * Y')), after denoise; 0: off", 0, 4, 0,
          controllable));
  g_object_class_install_property (klass, first + PROP_SHARPEN_RADIUS,
      g_param_spec_double ("sharpen-radius", "Sharpen radius", "Sigma of the unsharp mask's "
          "Gaussian G in pixels (truncated at ceil (3 sigma))", 0.5, 3, 1, controllable));
  g_object_class_install_property (klass, first + PROP_SHARPEN_THRESHOLD,
      g_param_spec_double ("sharpen-threshold", "Sharpen threshold", "Differences |Y' - "
          "G * Y'| below this (of full scale) are left unsharpened (noise)", 0, 1, 0,
          controllable));
  g_object_class_install_property (klass, first + PROP_LUT3D_FILE,
      g_param_spec_string ("lut3d-file", "3D LUT file", "Adobe/Resolve .cube file "
          "(LUT_3D_SIZE 2..65) applied to the encoded R'G'B' after sharpen; read when set, "
          "used from a later frame; empty: off", "", playing));
  g_object_class_install_property (klass, first + PROP_LUT3D_INTERPOLATION,
      g_param_spec_enum ("lut3d-interpolation", "3D LUT interpolation", "How the LUT is "
          "interpolated between its points", interpolation_get_type (), INTERP_TRILINEAR,
          playing));
  g_object_class_install_property (klass, first + PROP_LUT3D_STRENGTH,
      g_param_spec_double ("lut3d-strength", "3D LUT strength", "Mix of the LUT's output "
          "with its input (1: the LUT alone)", 0, 1, 1, controllable));
  gst_type_mark_as_plugin_api (interpolation_get_type (), (GstPluginAPIFlags) 0);
}

bool
owns (guint id, guint first)
{
  return id >= first && id < first + N_PROPERTIES;
}

Incoming
prepare (guint id, guint first, const GValue * value)
{
  Incoming in;
  if (id != first + PROP_LUT3D_FILE)
    return in;
  const char *path = g_value_get_string (value);
  if (!path || !*path)
    return in;
  try {
    in.lut = std::make_shared<const Cube> (read_cube_file (path));
  } catch (const CubeError & e) {
    in.refused = e.what ();
  }
  return in;
}

void
set_property (Settings * s, guint id, guint first, const GValue * value,
    const Incoming & incoming)
{
  switch (id - first) {
    case PROP_DENOISE: s->denoise = g_value_get_double (value); break;
    case PROP_SHARPEN: s->sharpen = g_value_get_double (value); break;
    case PROP_SHARPEN_RADIUS: s->sharpen_radius = g_value_get_double (value); break;
    case PROP_SHARPEN_THRESHOLD: s->sharpen_threshold = g_value_get_double (value); break;
    case PROP_LUT3D_FILE:
      if (incoming.refused.empty ()) {
        s->lut_file = g_value_get_string (value) ? g_value_get_string (value) : "";
        s->lut = incoming.lut;
      }
      break;
    case PROP_LUT3D_INTERPOLATION:
      s->interpolation = (Interpolation) g_value_get_enum (value);
      break;
    case PROP_LUT3D_STRENGTH: s->lut_strength = g_value_get_double (value); break;
    default: break;
  }
}

void
get_property (const Settings & s, guint id, guint first, GValue * value)
{
  switch (id - first) {
    case PROP_DENOISE: g_value_set_double (value, s.denoise); break;
    case PROP_SHARPEN: g_value_set_double (value, s.sharpen); break;
    case PROP_SHARPEN_RADIUS: g_value_set_double (value, s.sharpen_radius); break;
    case PROP_SHARPEN_THRESHOLD: g_value_set_double (value, s.sharpen_threshold); break;
    case PROP_LUT3D_FILE: g_value_set_string (value, s.lut_file.c_str ()); break;
    case PROP_LUT3D_INTERPOLATION: g_value_set_enum (value, s.interpolation); break;
    case PROP_LUT3D_STRENGTH: g_value_set_double (value, s.lut_strength); break;
    default: break;
  }
}

void
settle (GstClBaseTransform * element, guint id, guint first, GParamSpec * pspec,
    const GValue * value, const Incoming & incoming)
{
  if (id == first + PROP_LUT3D_FILE)
    clsettings::settle (element, pspec, value, incoming.refused,
        "The previous LUT stays in force.");
}

/* The LUT's entries for the kernels (kernels/picture/picture.cl): (r, g,
 * b) as float4, or (packed_table) corners (r, g, b) and (r + 1, g, b) as
 * unorm16 of the table's range, `*base` + `*step` q, in 16 bytes. */
static std::vector<cl_float4>
float_table (const Cube & c)
{
  std::vector<cl_float4> table ((size_t) c.size * c.size * c.size);
  for (size_t i = 0; i < table.size (); i++)
    table[i] = cl_float4 { { c.rgb[3 * i], c.rgb[3 * i + 1], c.rgb[3 * i + 2], 0 } };
  return table;
}

static std::vector<cl_float4>
packed_table (const Cube & c, float *base, float *step)
{
  const auto range = std::minmax_element (c.rgb.begin (), c.rgb.end ());
  const double lo = *range.first, span = *range.second - lo;
  *base = (float) lo;
  *step = (float) (span / 65535);
  auto code = [&] (double v) {
    return (cl_ushort) (span > 0 ? std::lround ((v - lo) / span * 65535) : 0);
  };
  std::vector<cl_float4> table ((size_t) c.size * c.size * c.size);
  for (size_t i = 0; i < table.size (); i++) {
    /* the next red's corner; the last red's is never read */
    const size_t next = (int) (i % c.size) + 1 < c.size ? i + 1 : i;
    const cl_ushort q[8] = { code (c.rgb[3 * i]), code (c.rgb[3 * i + 1]),
        code (c.rgb[3 * i + 2]), 0, code (c.rgb[3 * next]), code (c.rgb[3 * next + 1]),
        code (c.rgb[3 * next + 2]), 0 };
    memcpy (&table[i], q, sizeof q);
  }
  return table;
}

/* kernels/color.cl's coefficients (Kr, Kb, Y offset, Y scale, C scale) and
 * the constants its conversions divide for, in float and in the kernels'
 * order of operations (kernels/picture/picture.cl takes them so) */
static cl_float16
derived_coefficients (const cl_float8 & k)
{
  const float kr = k.s[0], kb = k.s[1];
  cl_float16 d {};
  for (int i = 0; i < 8; i++)
    d.s[i] = k.s[i];
  d.s[8] = 1.0f / k.s[3];
  d.s[9] = 1.0f / k.s[4];
  d.s[10] = 1.0f / (1.0f - kr - kb);
  d.s[11] = 0.5f / (1.0f - kb);
  d.s[12] = 0.5f / (1.0f - kr);
  d.s[13] = 2.0f * (1.0f - kr);
  d.s[14] = 2.0f * (1.0f - kb);
  return d;
}

void
Pass::set_format (GstClContext * ctx, const GstVideoInfo * info)
{
  const gstcl::PixelLayout px = gstcl::pixel_layout (info);
  if (px.yuv != gstcl::YUV_NONE && px.yuv != gstcl::YUV_NV12 && px.yuv != gstcl::YUV_I420)
    throw std::invalid_argument ("the picture stages take RGB, grey, NV12 or I420");
  yuv420_ = px.yuv != gstcl::YUV_NONE;
  order_ = px.order ();
  /* RGB and grey: BT.709's luma weights at full range (the sharpen
   * formula's Y'); YUV: the frame's own */
  k_ = derived_coefficients (yuv420_ ? gstcl::yuv_coefficients (info) :
      cl_float8 { { 0.2126f, 0.0722f, 0, 1, 1, 0, 0, 0 } });
  width_ = GST_VIDEO_INFO_WIDTH (info);
  height_ = GST_VIDEO_INFO_HEIGHT (info);
  cpu_ = !gstcl::tuned_for_gpu (ctx);
  /* the LUT as unorm16 pairs where its quantisation (1/65535 of its
   * range) stays far below an output code (kernels/picture/picture.cl) */
  packed_lut_ = px.depth <= 10;
  program_options_ = px.shape_options ("PX") + " -D PC_SPAN=" + std::to_string (kCpuSpan) +
      " -D LUT_PACKED=" + (packed_lut_ ? "1" : "0");
  /* the CPU shape's planes: 4 pixels of halo (the denoise's reach), rows
   * whole float8s and 8 more (its loads past the last pixel) */
  pstride_ = (width_ + 7) / 8 * 8 + 8;
  pheight_ = height_ + 8;
  planes_ = cl::Buffer ();
  build_.cancel ();
  frames_ = 0;
  unpack_ = denoise_k_ = planes_k_ = denoise_cpu_ = blur_rows_ = finish_ = cl::Kernel ();
  for (cl::Buffer &b : work_)
    b = cl::Buffer ();
  rows_ = work_arg_ = cl::Buffer ();
  rows_bytes_ = 0;
  lut_ = cl::Buffer ();
  lut_of_.reset ();
  active_ = false;
}

void
Pass::plan (GstElement * element, GstClContext * ctx, const Settings & s)
{
  active_ = s.active ();
  denoise_ = s.denoises ();
  sharpen_ = s.sharpen > 0;
  if (!active_)
    return;
  if (!finish_ ()) {
    static const std::string source = std::string (gst_cl_kernel_common) +
        gst_cl_kernel_color + gst_cl_kernel_picture_picture +
        gst_cl_kernel_picture_picture_cpu;
    cl::Program program;
    if (build_.pending () && build_.ready ())
      program = build_.take ();
    if (!program ())
      program = gstcl::cached_program (ctx, source, program_options_);
    if (!program () && frames_ > 0) {
      /* frames have gone out: they go on without the stages meanwhile */
      if (!build_.pending ())
        build_.start (element, ctx, source, program_options_, "picture/picture.cl");
      active_ = false;
      return;
    }
    if (!program ())
      program = gstcl::program (ctx, source, program_options_, "picture/picture.cl");
    unpack_ = cl::Kernel (program, "picture_unpack");
    denoise_k_ = cl::Kernel (program, "picture_denoise");
    planes_k_ = cl::Kernel (program, "picture_planes");
    denoise_cpu_ = cl::Kernel (program, "picture_denoise_cpu");
    /* the finish: on GPUs a pixel (a 4:2:0 block) a work-item with the
     * blur inside, a tile's in local memory; on CPUs the blur's own pass
     * into a plane of floats first, then float8 lanes along kCpuSpan
     * pixels of a row (a row pair for 4:2:0); the same arguments */
    if (cpu_)
      blur_rows_ = cl::Kernel (program, "picture_blur_rows_cpu");
    finish_ = cl::Kernel (program, cpu_ ? "picture_finish_cpu" : "picture_finish_tiled");
  }
  /* a working picture only for the denoise: otherwise the blur and the
   * finish read the frame's pixels themselves */
  const size_t bytes = sizeof (cl_float4) * width_ * height_;
  for (int i = 0; i < (denoise_ ? 2 : 0); i++)
    if (!work_[i] ())
      work_[i] = cl::Buffer (gstcl::context_of (ctx), CL_MEM_READ_WRITE, bytes);
  /* denoise: h is the noise's sigma that the strength targets, 4 % of full
   * scale at 1 (docs/clpicture.md) */
  if (denoise_ && cpu_) {
    if (!planes_ ())
      planes_ = cl::Buffer (gstcl::context_of (ctx), CL_MEM_READ_WRITE,
          sizeof (cl_float) * 3 * pstride_ * pheight_);
    gstcl::set_args (planes_k_, 0, work_[0], planes_, (cl_int) width_, (cl_int) height_,
        (cl_int) pstride_, (cl_int) pheight_);
    gstcl::set_args (denoise_cpu_, 0, planes_, (cl_int) pstride_, (cl_int) pheight_, work_[1],
        (cl_int) width_, (cl_int) height_, (cl_float) (0.04 * s.denoise));
  } else if (denoise_) {
    gstcl::set_args (denoise_k_, 0, work_[0], work_[1], (cl_int) width_, (cl_int) height_,
        (cl_float) (0.04 * s.denoise));
  }
  /* sharpen: the Gaussian's weights of offsets 0..radius, normalised */
  cl_float16 gauss {};
  radius_ = 0;
  if (sharpen_) {
    radius_ = std::min (9, (int) std::ceil (3 * s.sharpen_radius));
    double sum = 0;
    for (int i = -radius_; i <= radius_; i++)
      sum += std::exp (-i * i / (2 * s.sharpen_radius * s.sharpen_radius));
    for (int i = 0; i <= radius_; i++)
      gauss.s[i] = (float) (std::exp (-i * i / (2 * s.sharpen_radius * s.sharpen_radius)) / sum);
    if (cpu_ && rows_bytes_ < sizeof (cl_float) * width_ * height_) {
      rows_bytes_ = sizeof (cl_float) * width_ * height_;
      rows_ = cl::Buffer (gstcl::context_of (ctx), CL_MEM_READ_WRITE, rows_bytes_);
    }
  }
  if (!rows_ ()) {  /* an argument even without the blur */
    rows_ = cl::Buffer (gstcl::context_of (ctx), CL_MEM_READ_WRITE, sizeof (cl_float));
    rows_bytes_ = sizeof (cl_float);
  }
  /* the working picture, or any buffer for it (`direct`) */
  work_arg_ = denoise_ ? work_[1] : rows_;
  if (sharpen_ && cpu_)
    gstcl::set_args (blur_rows_, 7, work_arg_, (cl_int) !denoise_, rows_, (cl_int) width_,
        (cl_int) height_, gauss, (cl_int) radius_, order_, k_);
  /* the LUT, uploaded when another */
  const bool lut = s.lut && s.lut_strength > 0;
  if (lut && s.lut != lut_of_) {
    const std::vector<cl_float4> table = packed_lut_ ? packed_table (*s.lut, &lut_base_,
        &lut_step_) : float_table (*s.lut);
    lut_ = cl::Buffer (gstcl::context_of (ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
        sizeof (cl_float4) * table.size (), (void *) table.data ());
    lut_of_ = s.lut;
  }
  if (!lut_ ())   /* an argument even without a LUT */
    lut_ = cl::Buffer (gstcl::context_of (ctx), CL_MEM_READ_ONLY, sizeof (cl_float4));
  cl_float4 scale {}, offset {};
  const int n = lut ? s.lut->size : 2;
  for (int c = 0; lut && c < 3; c++) {
    const double span = s.lut->domain_max[c] - s.lut->domain_min[c];
    scale.s[c] = (float) ((n - 1) / span);
    offset.s[c] = (float) (-s.lut->domain_min[c] * (n - 1) / span);
  }
  scale.s[3] = lut_step_;   /* a packed entry's value: base + step q */
  offset.s[3] = lut_base_;
  /* after the frames' 14 arguments */
  gstcl::set_args (finish_, 15, (cl_int) width_, (cl_int) height_, order_, k_, (cl_int) radius_,
      (cl_float) s.sharpen, (cl_float) s.sharpen_threshold, lut_, (cl_int) n,
      (cl_int) (lut ? 1 + s.interpolation : 0), scale, offset, (cl_float) s.lut_strength,
      (cl_int) !denoise_, rows_, gauss);
}

/* (buffer, offsets of 3 planes, strides of 3 planes) */
static cl_uint
set_frame (cl::Kernel & k, cl_uint i, const GstClFrame * f)
{
  const GstVideoInfo *v = &f->info;
  const guint planes = GST_VIDEO_INFO_N_PLANES (v);
  auto off = [&] (guint p) { return (cl_int) (p < planes ? GST_VIDEO_INFO_PLANE_OFFSET (v, p) : 0); };
  auto str = [&] (guint p) { return (cl_int) (p < planes ? GST_VIDEO_INFO_PLANE_STRIDE (v, p) : 0); };
  return gstcl::set_args (k, i, f->mem, off (0), off (1), off (2), str (0), str (1), str (2));
}

void
Pass::run (GstClContext * ctx, const GstClFrame * in, const GstClFrame * out)
{
  if (!active_)
    return;
  if (denoise_) {
    gstcl::set_args (unpack_, set_frame (unpack_, 0, in), work_[0], (cl_int) width_,
        (cl_int) height_, order_, k_);
    gstcl::enqueue_2d (ctx, unpack_, width_, height_);
  }
  if (denoise_ && cpu_) {
    gstcl::enqueue_2d (ctx, planes_k_, pstride_, pheight_, 64, 1);
    gstcl::enqueue_2d (ctx, denoise_cpu_, (width_ + 7) / 8, height_, 8, 1);
  } else if (denoise_) {
    gstcl::enqueue_2d (ctx, denoise_k_, width_, height_, 16, 8);
  }
  Progress whole;
  blur_and_finish (ctx, in, out, height_, &whole);
}

int
Pass::run_rows (GstClContext * ctx, const GstClFrame * in, const GstClFrame * out, int ready,
    Progress * progress)
{
  if (!active_)
    return ready;
  if (!denoise_)
    return blur_and_finish (ctx, in, out, ready, progress);
  if (ready < height_)
    return 0;
  run (ctx, in, out);
  return height_;
}

/* The blur and the finish over what `ready` rows allow (Pass::run_rows). */
int
Pass::blur_and_finish (GstClContext * ctx, const GstClFrame * in, const GstClFrame * out,
    int ready, Progress * progress)
{
  const int spans = (width_ + kCpuSpan - 1) / kCpuSpan;
  ready = std::min (ready, height_);
  if (sharpen_ && cpu_ && ready > progress->blurred) {
    /* a row's blur reads that row */
    set_frame (blur_rows_, 0, in);
    gstcl::enqueue_2d_rows (ctx, blur_rows_, spans, progress->blurred, ready, 1, 1);
    progress->blurred = ready;
  }
  /* a row's finish reads the frame's rows (the blur's, on CPUs) `radius_`
   * around it; rows of whole work-groups (of row pairs for 4:2:0: `pair`)
   * but the last */
  const int pair = yuv420_ ? 2 : 1, ly = cpu_ ? 1 : 8;
  const int to = ready >= height_ ? height_ :
      std::max (0, ready - radius_) / (pair * ly) * (pair * ly);
  if (to <= progress->finished)
    return progress->finished;
  set_frame (finish_, set_frame (finish_, 1, in), out);
  gstcl::set_args (finish_, 0, work_arg_);
  const int first = progress->finished / pair, last = (to + pair - 1) / pair;
  if (cpu_)
    gstcl::enqueue_2d_rows (ctx, finish_, spans, first, last, 1, ly);
  else
    gstcl::enqueue_2d_rows (ctx, finish_, (width_ + pair - 1) / pair, first, last, 16, ly);
  progress->finished = to;
  return to;
}

void
After::plan (GstElement * element, GstClContext * ctx, const Settings & s,
    const GstClFrame * out)
{
  pass_.plan (element, ctx, s);
  if (!pass_.active ())
    return;
  /* a buffer that holds a frame of the output's layout */
  const GstVideoInfo *info = &out->info;
  size_t bytes = 0;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component (info->finfo, p, comp);
    bytes = std::max (bytes, GST_VIDEO_INFO_PLANE_OFFSET (info, p) +
        (size_t) GST_VIDEO_INFO_PLANE_STRIDE (info, p) * GST_VIDEO_INFO_COMP_HEIGHT (info,
            comp[0]));
  }
  if (bytes > bytes_) {
    staged_ = cl::Buffer (gstcl::context_of (ctx), CL_MEM_READ_WRITE, bytes);
    bytes_ = bytes;
  }
  frame_.info = *info;
  frame_.mem = staged_ ();
  frame_.buffer = nullptr;
}

}  // namespace clpicture
