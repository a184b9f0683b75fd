/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstclconvolution.hpp"
#include "cl-kernels.h"

#include <gst/opencl/gstclframe.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

GST_DEBUG_CATEGORY_STATIC (gst_cl_convolution_debug);
#define GST_CAT_DEFAULT gst_cl_convolution_debug

namespace clconv {

/* Kernels at least this large, not rank 1, read their window from local
 * memory; smaller ones read global memory through the caches. */
constexpr int kTiledMinSide = 7;
/* Rank-1 kernels at least this large run as two 1-D passes (at 3x3 the
 * intermediate image costs more than the 3 taps it saves). */
constexpr int kSeparableMinSide = 5;
constexpr int kTileW = 16, kTileH = 16;
/* The GPU variant's one-pass rank-1 kernel: work-group kSepW x kSepH, each
 * item kSepRows outputs of one column (SEP_TW, SEP_TH, SEP_S). */
constexpr int kSepW = 32, kSepH = 4, kSepRows = 8;
constexpr int kSepStep = 8;   /* outputs per row-pass step (SEP_PX) */
/* Rows per work-item of the GPU variant's 3x3 integer kernel (INT3_ROWS),
 * and its work-group (16x8, 32x4 and 32x8 within 2 % on an H200). */
constexpr int kInt3Rows = 3, kInt3GroupW = 16, kInt3GroupH = 8;
/* The CPU variant's integer path: the sides it takes and the rows per
 * work-item of its inner kernel. */
constexpr int kFixedMinSide = 3, kFixedMaxSide = 15, kFixedStrip = 128;  /* FX_STRIP */

Engine::Engine ()
{
  static gsize once = 0;
  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (gst_cl_convolution_debug, "clconvolution", 0,
        "Convolution engine of clconvolve and clfir");
    g_once_init_leave (&once, 1);
  }
}

void
Engine::set_format (const GstVideoInfo * info)
{
  weights_generation_ = 0;
  const gstcl::PixelLayout px = gstcl::pixel_layout (info);
  if (px.yuv == gstcl::YUV_YUY2 || px.yuv == gstcl::YUV_UYVY)
    throw std::runtime_error (std::string ("unsupported format ") +
        gst_video_format_to_string (px.format));
  /* NV12, I420: the luma plane is filtered as grey, the chroma copied. */
  planes_ = px.planes;
  px_ = px.yuv != gstcl::YUV_NONE ? gstcl::pixel_layout (GST_VIDEO_FORMAT_GRAY8) : px;
  /* Colour lanes are in memory order, the alpha or padding sample left out. */
  const int first = px.fourth == 0 ? 1 : 0;
  if (!px.grey ()) {
    lane_channel_[px.r - first] = 0;
    lane_channel_[px.g - first] = 1;
    lane_channel_[px.b - first] = 2;
  }
  built_n_ = 0;
  building_.cancel ();   /* for the old format */
  has_next_ = false;
  weights_buffer_ = cl::Buffer ();
  tmp_ = cl::Buffer ();
  tmp_size_ = 0;
  weights_dirty_ = true;
}

bool
Engine::take_weights (const Weights & weights, guint64 generation)
{
  if (generation == weights_generation_)
    return false;
  weights_generation_ = generation;
  if (built_n_ != 0 && weights.n != built_n_) {
    next_ = weights;     /* run() builds their program in the background */
    has_next_ = true;
  } else {
    set_weights (weights);
    has_next_ = false;
  }
  return true;
}

void
Engine::set_weights (const Weights & weights)
{
  weights_ = weights;
  weights_dirty_ = true;
}

/* Whether every channel's kernel is rank 1. */
bool
Engine::all_separable () const
{
  /* No output may move by more than a quarter of a level of the format. */
  const double levels = px_.sample_bytes == 2 ? 65535.0 : 255.0;
  auto rank1 = [levels] (const ChannelWeights & c) {
    return c.separable && c.rank1_error * levels <= 0.25;
  };
  if (px_.grey ())
    return rank1 (weights_.channel[Weights::kGray]);
  return rank1 (weights_.channel[0]) && rank1 (weights_.channel[1]) &&
      rank1 (weights_.channel[2]);
}

bool
Engine::uses_separable () const
{
  return weights_.n >= kSeparableMinSide && all_separable ();
}

bool
Engine::uses_one_pass () const
{
  if (cpu_variant_ || !one_pass_usable_ || weights_.n < 3)
    return false;
  /* At 3x3 GRAY8 the 16-pixel direct kernel is a little faster (H200, 4K:
   * 19 against 21 us); for 4-byte pixels the one pass is (34 against 49).
   * 16-bit pixels keep the 3x3 kernels at 3x3 (not measured against it). */
  if (weights_.n == 3 && px_.pixel_bytes () != 4)
    return false;
  return all_separable ();
}

/* The integer factors every colour channel shares, else nullptr (the
 * integer kernels treat the colour bytes alike). */
const ChannelWeights *
Engine::shared_integer_factors () const
{
  const ChannelWeights &first = weights_.channel[px_.grey () ? Weights::kGray : 0];
  if (first.fixed_row.empty ())
    return nullptr;
  for (int c = 1; c < 3 && !px_.grey (); c++)
    if (weights_.channel[c].fixed_row != first.fixed_row ||
        weights_.channel[c].fixed_col != first.fixed_col ||
        weights_.channel[c].fixed_scale != first.fixed_scale)
      return nullptr;
  return &first;
}

bool
Engine::uses_3x3_int () const
{
  if (cpu_variant_ || weights_.n != 3 || px_.pixel_bytes () != 4)
    return false;
  /* Both passes in 16-bit lanes of unsigned words. */
  const ChannelWeights *c = shared_integer_factors ();
  if (!c)
    return false;
  long long row_sum = 0, col_sum = 0;
  for (int i = 0; i < 3; i++) {
    if (c->fixed_row[i] < 0 || c->fixed_col[i] < 0)
      return false;
    row_sum += c->fixed_row[i];
    col_sum += c->fixed_col[i];
  }
  return 255 * row_sum * col_sum < (1 << 16);
}

bool
Engine::uses_fixed () const
{
  const int n = weights_.n;
  return cpu_variant_ && px_.sample_bytes == 1 && n >= kFixedMinSide &&
      n <= kFixedMaxSide && shared_integer_factors () != nullptr;
}

bool
Engine::uses_one_pass_int () const
{
  if (!uses_one_pass () || px_.sample_bytes != 1 || px_.pixel_bytes () != 4)
    return false;
  /* Two bytes per 32-bit word: the row factors must not go negative. */
  const ChannelWeights *c = shared_integer_factors ();
  return c && std::all_of (c->fixed_row.begin (), c->fixed_row.end (),
      [] (int f) { return f >= 0; });
}


/* One program of every kernel (kernels/convolve/prelude.cl lists them):
 * the files in that order. */
static const std::string &
convolve_source ()
{
  static const std::string source = std::string (gst_cl_kernel_common) +
      gst_cl_kernel_convolve_prelude + gst_cl_kernel_convolve_direct +
      gst_cl_kernel_convolve_aligned + gst_cl_kernel_convolve_tiled +
      gst_cl_kernel_convolve_separable + gst_cl_kernel_convolve_one_pass +
      gst_cl_kernel_convolve_fixed;
  return source;
}

/* The program's name in build messages (the one it had as a single file). */
static std::string
build_name (int n)
{
  return "convolve.cl (" + std::to_string (n) + "x" + std::to_string (n) + ")";
}

/* Output rows a work-item of convolve_3x3_aligned: on GPUs two, each input
 * row loaded once for both (16-bit RGBA 0.070 -> 0.062 ms at 4K on an H100);
 * CPUs keep the one-row items PoCL vectorises as measured. */
static int
aligned_rows (bool gpu)
{
  return gpu ? 2 : 1;
}

std::string
Engine::options_for (GstClContext * ctx, int n) const
{
  return " -D N=" + std::to_string (n) + px_.shape_options ("PX") +
      " -D TILE_W=" + std::to_string (kTileW) +
      " -D TILE_H=" + std::to_string (kTileH) + " -D SEP_TW=" + std::to_string (kSepW) +
      " -D SEP_TH=" + std::to_string (kSepH) + " -D SEP_S=" + std::to_string (kSepRows) +
      " -D SEP_PX=" + std::to_string (kSepStep) +
      " -D ALIGNED_ROWS=" + std::to_string (aligned_rows (gstcl::tuned_for_gpu (ctx)));
}

void
Engine::build (GstClContext * ctx)
{
  const int n = weights_.n;
  use_program (ctx, gstcl::program (ctx, convolve_source (), options_for (ctx, n), build_name (n)),
      n);
}

/* The kernels of `program`, built for side n. */
void
Engine::use_program (GstClContext * ctx, const cl::Program & program, int n)
{
  direct_ = cl::Kernel (program, "convolve_direct");
  fast3x3_ = n == 3 ? cl::Kernel (program, "convolve_3x3") : cl::Kernel ();
  /* The integer kernels are for 8-bit samples; the one-pass rank-1 kernel
   * for either depth, the aligned 3x3 one for 1- and 4-sample pixels of
   * either depth. */
  const bool bytes = px_.sample_bytes == 1;
  fast3x3_aligned_ = n == 3 && px_.channels != 3 ?
      cl::Kernel (program, "convolve_3x3_aligned") : cl::Kernel ();
  rows_ = cl::Kernel (program, "convolve_rows");
  columns_ = cl::Kernel (program, "convolve_columns");
  tiled_ = cl::Kernel (program, "convolve_tiled");
  one_pass_ = cl::Kernel (program, "convolve_separable");
  one_pass_int_ = bytes && px_.pixel_bytes () == 4 ?
      cl::Kernel (program, "convolve_separable_int") : cl::Kernel ();
  int3x3_ = n == 3 && px_.pixel_bytes () == 4 ? cl::Kernel (program, "convolve_3x3_int") :
      cl::Kernel ();
  /* PoCL vectorises across work-items, so CPUs want byte-wide straight-line
   * work-items rather than the GPU kernels' per-pixel float4 work. */
  cpu_variant_ = !gstcl::tuned_for_gpu (ctx);
  const bool fixed = cpu_variant_ && bytes && n >= kFixedMinSide && n <= kFixedMaxSide;
  fixed_ = fixed ? cl::Kernel (program, "convolve_fixed") : cl::Kernel ();
  /* A device may not fit the tile or the group: then the direct path. */
  const cl::Device &device = gstcl::device_of (ctx);
  tiled_usable_ = tiled_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE> (device) >=
      (size_t) kTileW * kTileH &&
      tiled_.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE> (device) <=
      device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE> ();
  /* (the integer variant has the same group and local memory) */
  one_pass_usable_ = one_pass_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE> (device) >=
      (size_t) kSepW * kSepH &&
      one_pass_.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE> (device) <=
      device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE> ();
  built_n_ = n;
  weights_dirty_ = true;   /* and the plan: it depends on the program */
}

/* Whether the integer factors are symmetric with 2 * 255 * sum |row| within
 * a short: convolve_fixed's paired-tap code then applies (adds the row sums
 * of mirrored rows in 16-bit lanes). */
static bool
fixed_symmetric (const ChannelWeights & c)
{
  const size_t n = c.fixed_row.size ();
  int row_sum = 0;
  for (size_t i = 0; i < n; i++) {
    if (c.fixed_row[i] != c.fixed_row[n - 1 - i] || c.fixed_col[i] != c.fixed_col[n - 1 - i])
      return false;
    row_sum += std::abs (c.fixed_row[i]);
  }
  return 2 * 255 * row_sum <= 32767;
}

void
Engine::upload (GstClContext * ctx)
{
  const int n = weights_.n;
  const int lanes = px_.grey () ? 1 : 4;
  std::vector<float> host ((size_t) (n * n + 2 * n) * lanes, 0.0f);
  for (int lane = 0; lane < (px_.grey () ? 1 : 3); lane++) {
    const ChannelWeights &c = weights_.channel[px_.grey () ? Weights::kGray :
        lane_channel_[lane]];
    for (int i = 0; i < n * n; i++)
      host[(size_t) i * lanes + lane] = c.taps[i];
    for (int i = 0; i < n && c.separable; i++) {
      host[(size_t) (n * n + i) * lanes + lane] = c.row[i];
      host[(size_t) (n * n + n + i) * lanes + lane] = c.col[i];
    }
  }
  /* A new buffer rather than a write into the old one: frames already queued
   * keep the weights they were queued with, and nothing waits. */
  weights_buffer_ = cl::Buffer (gstcl::context_of (ctx),
      CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, host.size () * sizeof (float), host.data ());
  if (uses_fixed () || uses_one_pass_int () || uses_3x3_int ()) {
    const ChannelWeights &c = *shared_integer_factors ();
    std::vector<cl_int> fixed (c.fixed_row.begin (), c.fixed_row.end ());
    fixed.insert (fixed.end (), c.fixed_col.begin (), c.fixed_col.end ());
    fixed_buffer_ = cl::Buffer (gstcl::context_of (ctx),
        CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, fixed.size () * sizeof (cl_int),
        fixed.data ());
    fixed_symmetric_ = fixed_symmetric (c);
  }
  weights_dirty_ = false;
  plan_ = make_plan ();
}

Engine::Path
Engine::choose (bool wide, bool aligned) const
{
  if (uses_fixed () && wide)
    return FIXED;
  if (uses_3x3_int () && aligned)
    return INT_3X3;
  if (uses_one_pass ())
    return uses_one_pass_int () ? ONE_PASS_INT : ONE_PASS;
  if (uses_separable ())
    return SEPARABLE;
  if (weights_.n == 3)
    return aligned && fast3x3_aligned_ () ? FAST_3X3_ALIGNED : FAST_3X3;
  return weights_.n >= kTiledMinSide && tiled_usable_ ? TILED : DIRECT;
}

Engine::Plan
Engine::make_plan () const
{
  Plan plan;
  for (int wide = 0; wide < 2; wide++)
    for (int aligned = 0; aligned < 2; aligned++)
      plan.path[wide][aligned] = choose (wide, aligned);
  return plan;
}

void
Engine::log_path (Path path)
{
  static const char *const names[N_PATHS] = {"CPU integer separable", "3x3 integer",
    "one-pass separable", "one-pass integer separable", "separable", "3x3 aligned", "3x3",
    "tiled", "direct"};
  if (path == logged_path_ && weights_.n == logged_n_)
    return;
  GST_DEBUG ("%dx%d kernel, %s: %s path", weights_.n, weights_.n,
      gst_video_format_to_string (px_.format), names[path]);
  logged_path_ = path;
  logged_n_ = weights_.n;
}

/* The arguments every integer kernel takes first: the frames, the factors,
 * the scale and bias, the border; returns the index of the next. */
cl_uint
Engine::set_integer_args (cl::Kernel & k, const GstClFrame * in, const GstClFrame * out,
    int border)
{
  return gstcl::set_args (k, gstcl::set_frame_args (k, 0, in, out), fixed_buffer_,
      (cl_float) shared_integer_factors ()->fixed_scale, (cl_float) weights_.bias,
      (cl_int) border);
}

/* Swaps in the program of a finished background build, with the weights
 * that waited for it. A build that failed throws, as it would have in the
 * streaming thread. */
void
Engine::take_background_build (GstClContext * ctx)
{
  const cl::Program program = building_.take ();
  if (!has_next_ || next_.n != building_n_)
    return;   /* the weights changed again meanwhile */
  use_program (ctx, program, building_n_);
  set_weights (next_);
  has_next_ = false;
  GST_DEBUG ("now running the %dx%d program", built_n_, built_n_);
}

void
Engine::plan (GstClContext * ctx, const GstClFrame * in, const GstClFrame * out, int border)
{
  /* Weights of another size build their program in the background; a
   * finished build (BackgroundBuild asks for this plan) is taken, and
   * weights that changed again meanwhile build next. */
  for (;;) {
    if (has_next_ && !building_.pending ()) {
      building_n_ = next_.n;
      building_.start (gstcl::BuildScope::current (), ctx, convolve_source (),
          options_for (ctx, building_n_), build_name (building_n_));
    }
    if (!building_.pending () || !building_.ready ())   /* at once if it was cached */
      break;
    take_background_build (ctx);
  }
  if (built_n_ != weights_.n)
    build (ctx);
  if (weights_dirty_)
    upload (ctx);
  const int width = GST_VIDEO_INFO_WIDTH (&out->info);
  const int height = GST_VIDEO_INFO_HEIGHT (&out->info);
  const bool wide = width * px_.pixel_bytes () >= 16;
  aligned_ = gstcl::rows_aligned_16 (in) && gstcl::rows_aligned_16 (out);
  path_ = plan_.path[wide][aligned_];
  log_path (path_);

  /* Per colour lane; lane 3 of 4-byte formats is copied, not computed. */
  cl_float4 scale = {{1.0f, 1.0f, 1.0f, 0.0f}};
  cl_float4 bias = {{weights_.bias, weights_.bias, weights_.bias, 0.0f}};
  if (px_.grey ())
    scale.s[0] = weights_.channel[Weights::kGray].scale;
  else
    for (int lane = 0; lane < 3; lane++)
      scale.s[lane] = weights_.channel[lane_channel_[lane]].scale;
  const size_t acc_size = px_.grey () ? sizeof (cl_float) : sizeof (cl_float4);

  /* Sets scale, bias and border from argument `i` on; returns the next. */
  auto set_tail = [&] (cl::Kernel & k, cl_uint i) {
    return px_.grey () ? gstcl::set_args (k, i, scale.s[0], bias.s[0], (cl_int) border) :
        gstcl::set_args (k, i, scale, bias, (cl_int) border);
  };
  /* The frames, the weights, then scale, bias and border. */
  auto set_float_args = [&] (cl::Kernel & k) {
    return set_tail (k, gstcl::set_args (k, gstcl::set_frame_args (k, 0, in, out),
            weights_buffer_));
  };

  /* Every argument; run() sets the frames' again for each frame. */
  switch (path_) {
    case FIXED:
      gstcl::set_args (fixed_, set_integer_args (fixed_, in, out, border),
          (cl_int) fixed_symmetric_);
      break;
    case INT_3X3:
      set_integer_args (int3x3_, in, out, border);
      break;
    case ONE_PASS:
    case ONE_PASS_INT: {
      cl::Kernel &k = path_ == ONE_PASS_INT ? one_pass_int_ : one_pass_;
      const cl_uint next = path_ == ONE_PASS_INT ? set_integer_args (k, in, out, border) :
          set_float_args (k);
      gstcl::set_args (k, next, (cl_int) aligned_);
      break;
    }
    case SEPARABLE: {
      const size_t need = (size_t) width * height * acc_size;
      if (tmp_size_ != need) {
        tmp_ = cl::Buffer (gstcl::context_of (ctx), CL_MEM_READ_WRITE, need);
        tmp_size_ = need;
      }
      gstcl::set_args (rows_, 0, in->mem, (cl_int) GST_VIDEO_INFO_PLANE_OFFSET (&in->info, 0),
          (cl_int) GST_VIDEO_INFO_PLANE_STRIDE (&in->info, 0), tmp_, (cl_int) width,
          (cl_int) height, weights_buffer_, (cl_int) border);
      set_tail (columns_, gstcl::set_args (columns_, gstcl::set_frame_args (columns_,
                  gstcl::set_args (columns_, 0, tmp_), in, out), weights_buffer_));
      break;
    }
    case FAST_3X3_ALIGNED:
      set_float_args (fast3x3_aligned_);
      break;
    case FAST_3X3:
      set_float_args (fast3x3_);
      break;
    case TILED:
      set_float_args (tiled_);
      break;
    case DIRECT:
    case N_PATHS:
      set_float_args (direct_);
      break;
  }
}

void
Engine::run (GstClContext * ctx, const GstClFrame * in, const GstClFrame * out)
{
  const int width = GST_VIDEO_INFO_WIDTH (&out->info);
  const int height = GST_VIDEO_INFO_HEIGHT (&out->info);
  switch (path_) {
    case FIXED:
      gstcl::set_frame_args (fixed_, 0, in, out);
      gstcl::enqueue_2d (ctx, fixed_, (width * px_.pixel_bytes () + 15) / 16,
          (height + kFixedStrip - 1) / kFixedStrip, 8, 1);
      break;
    case INT_3X3:
      gstcl::set_frame_args (int3x3_, 0, in, out);
      gstcl::enqueue_2d (ctx, int3x3_, (width + 3) / 4, (height + kInt3Rows - 1) / kInt3Rows,
          kInt3GroupW, kInt3GroupH);
      break;
    case ONE_PASS:
    case ONE_PASS_INT: {
      cl::Kernel &k = path_ == ONE_PASS_INT ? one_pass_int_ : one_pass_;
      gstcl::set_frame_args (k, 0, in, out);
      gstcl::enqueue_2d (ctx, k, (width + kSepW - 1) / kSepW * kSepW,
          (height + kSepH * kSepRows - 1) / (kSepH * kSepRows) * kSepH, kSepW, kSepH);
      break;
    }
    case SEPARABLE:
      gstcl::set_args (rows_, 0, in->mem);
      gstcl::enqueue_2d (ctx, rows_, width, height);
      gstcl::set_frame_args (columns_, 1, in, out);
      gstcl::enqueue_2d (ctx, columns_, width, height);
      break;
    case FAST_3X3_ALIGNED:
    {
      /* 16 samples of `rows` rows a work-item, as options_for built it */
      const int rows = aligned_rows (gstcl::tuned_for_gpu (ctx));
      gstcl::set_frame_args (fast3x3_aligned_, 0, in, out);
      gstcl::enqueue_2d (ctx, fast3x3_aligned_, (width * px_.channels + 15) / 16,
          (height + rows - 1) / rows);
      break;
    }
    case FAST_3X3:
      gstcl::set_frame_args (fast3x3_, 0, in, out);
      gstcl::enqueue_2d (ctx, fast3x3_, (width + 3) / 4, height);
      break;
    case TILED:
      gstcl::set_frame_args (tiled_, 0, in, out);
      gstcl::enqueue_2d (ctx, tiled_, width, height, kTileW, kTileH);
      break;
    case DIRECT:
    case N_PATHS:
      gstcl::set_frame_args (direct_, 0, in, out);
      gstcl::enqueue_2d (ctx, direct_, width, height);
      break;
  }
  gstcl::copy_planes (ctx, in, out, 1);   /* NV12, I420: the chroma as it is */
}

}  // namespace clconv
