/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The convolution engine shared by clconvolve and clfir: host-side checks and
 * preparation of NxN kernels (normalisation, rank-1 detection) and the
 * device side (kernels/convolve.cl): program variants, weights upload, and
 * the choice between the 3x3, direct, tiled and separable paths. */
#pragma once

#include <gst/opencl/gstclfilter.h>
#include <gst/opencl/gstcl.hpp>
#include <gst/opencl/gstclpixel.hpp>

#include <array>
#include <string>
#include <vector>

namespace clconv {

/* Formats both elements accept; the output has the input's format. */
#define GST_CL_CONVOLUTION_CAPS GST_CL_RAW_CAPS ("GRAY8, RGB, BGR, RGBA, BGRA, RGBx, " \
    "BGRx, ARGB, ABGR, xRGB, xBGR")

constexpr int kMaxSide = 31;

/* Reads a GstValueArray of numbers. False, with the reason, when an element
 * is not a number. */
bool values_from_array (const GValue * array, std::vector<double> *out, std::string *why);
/* Fills `array` (a GST_TYPE_ARRAY value) with `values` as doubles. */
void array_from_values (const std::vector<double> &values, GValue * array);

/* A GstValueArray property of doubles. Its elements may be NaN or infinite,
 * so that such values reach set_property, which refuses them with a message
 * (GObject's own check would print a critical warning instead). */
GParamSpec *param_spec_weights (const char *name, const char *nick, const char *blurb,
    GParamFlags flags);

/* The side N of a square kernel of `count` values with N odd in 1..31, else
 * 0. */
int square_side (size_t count);
/* "" when `k` is an NxN kernel with odd N in 1..31 and finite values, else
 * the reason it is not. */
std::string check_kernel (const std::vector<double> &k);

/* One channel's weights, ready for the device. */
struct ChannelWeights {
  std::vector<float> taps;    /* N x N, row-major */
  bool separable = false;     /* taps ~ col[i] * row[j], close enough */
  std::vector<float> row, col;
  float scale = 1.0f;         /* 1 / divisor */
  /* Integer factors with taps * scale == fixed_col[i] * fixed_row[j] *
   * fixed_scale (to rounding), 255 sum |row| <= 32640 and 255 sum |row|
   * sum |col| < 2^24 (kernels/convolve.cl, convolve_fixed); empty when there
   * are none. Used by the CPU variant. */
  std::vector<int> fixed_row, fixed_col;
  float fixed_scale = 0.0f;
};

/* The weights of every channel, all of side n. */
struct Weights {
  int n = 1;
  /* Red, green and blue for colour formats; [kGray] for GRAY8. */
  static constexpr int kGray = 3;
  std::array<ChannelWeights, 4> channel;
  float bias = 0.0f;
};

/* Prepares `kernel` (checked with check_kernel) for every channel, with
 * `overrides` (empty or of the same size) in place of it for red, green and
 * blue. With `normalize`, each channel is divided by its own sum unless that
 * is 0 (closer to 0 than 1e-9 of the sum of |weights|). */
Weights prepare_weights (const std::vector<double> &kernel,
    const std::array<std::vector<double>, 3> &overrides, bool normalize, double bias);

/* The device side, owned by one element and used from its streaming thread. */
class Engine {
public:
  Engine ();
  /* The negotiated format (one of GST_CL_CONVOLUTION_CAPS). Drops the device
   * objects: the context may have changed. */
  void set_format (const GstVideoInfo * info);
  /* Takes effect at the next run (one small upload). */
  void set_weights (const Weights & weights);
  /* set_weights() when `generation` (the settings' counter of weight
   * changes) differs from the one taken last; returns whether it did.
   * Weights of another size while a program runs need another program: it
   * builds in the background and the running weights serve until it is
   * ready (run()). */
  bool take_weights (const Weights & weights, guint64 generation);
  /* Convolves `in` into `out` (same format and size) on ctx's queue. The
   * first frame after set_format builds its program here; a program for
   * weights of a new size is built in the background and taken at the
   * first frame after it is ready. */
  void run (GstClContext * ctx, const GstClFrame * in, const GstClFrame * out, int border);
  /* Whether the current weights run as two 1-D passes. */
  bool uses_separable () const;
  /* Whether they run in one pass through local memory (GPU variant, rank 1,
   * N >= 5, or 3 for 4-byte formats). */
  bool uses_one_pass () const;
  /* ... with integer row sums (4-byte formats, small non-negative integer
   * row factors shared by the colour channels). */
  bool uses_one_pass_int () const;
  /* Whether a 3x3 kernel runs on the GPU variant's integer kernel (4-byte
   * formats, non-negative integer factors shared by the colour channels,
   * 255 * sum row * sum col < 2^16; frames with 16-byte aligned rows). */
  bool uses_3x3_int () const;
  /* Whether they run on the CPU variant's integer path (built for CPUs, or
   * forced with GST_OPENCL_TUNING=cpu|gpu, see docs/clconvolve.md). */
  bool uses_fixed () const;

private:
  void build (GstClContext * ctx);
  std::string options_for (int n) const;
  void use_program (GstClContext * ctx, const cl::Program & program, int n);
  void take_background_build (GstClContext * ctx);
  void upload (GstClContext * ctx);
  void log_path (const char *path);   /* at debug level, when it changes */
  bool all_separable () const;
  const ChannelWeights *shared_integer_factors () const;
  cl_uint set_integer_args (cl::Kernel & k, const GstClFrame * in, const GstClFrame * out,
      int border);
  void run_fixed (GstClContext * ctx, const GstClFrame * in, const GstClFrame * out,
      int border);

  gstcl::PixelLayout px_ = gstcl::pixel_layout (GST_VIDEO_FORMAT_GRAY8);
  std::array<int, 3> lane_channel_ {{0, 1, 2}};  /* channel in each colour lane */
  Weights weights_;
  bool weights_dirty_ = true;
  guint64 weights_generation_ = 0;  /* 0: none taken since set_format */

  int built_n_ = 0;            /* N of the kernels below; 0 = none built */
  /* Weights that wait for their program (another N), built in `building_`
   * for N = building_n_. */
  Weights next_;
  bool has_next_ = false;
  gstcl::BackgroundBuild building_;
  int building_n_ = 0;
  cl::Kernel direct_, fast3x3_, tiled_, rows_, columns_;
  cl::Kernel fast3x3_aligned_; /* GRAY and 4-byte layouts, 16-byte aligned rows */
  bool tiled_usable_ = false;
  cl::Kernel one_pass_;        /* convolve_separable */
  cl::Kernel one_pass_int_;    /* convolve_separable_int (4-byte layouts) */
  cl::Kernel int3x3_;          /* convolve_3x3_int (3x3, 4-byte layouts) */
  bool one_pass_usable_ = false;
  bool cpu_variant_ = false;   /* of the context built for */
  cl::Kernel fixed_;
  cl::Buffer fixed_buffer_;    /* fixed_row then fixed_col, int (integer paths) */
  bool fixed_symmetric_ = false;  /* convolve_fixed's paired taps apply to them */
  cl::Buffer weights_buffer_;
  cl::Buffer tmp_;             /* separable passes' intermediate image */
  size_t tmp_size_ = 0;
  const char *logged_path_ = nullptr;
  int logged_n_ = 0;
};

}  // namespace clconv
