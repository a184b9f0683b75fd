/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The convolution engine shared by clconvolve and clfir, the device side
 * (kernels/convolve/): program variants, weights upload, the plan (which
 * kernel runs and its arguments, made in GstClFilterClass::plan: when the
 * weights, border, format, program or frame layouts change) and running it
 * on each frame. The weights come from gstclweights.hpp. */
#pragma once

#include <gst/opencl/gstclfilter.h>
#include <gst/opencl/gstcl.hpp>
#include <gst/opencl/gstclpixel.hpp>
#include "gstclweights.hpp"

#include <array>
#include <string>
#include <vector>

namespace clconv {

/* Formats both elements accept; the output has the input's format. */
#define GST_CL_CONVOLUTION_CAPS GST_CL_RAW_CAPS ("GRAY8, RGB, BGR, RGBA, BGRA, RGBx, " \
    "BGRx, ARGB, ABGR, xRGB, xBGR, GRAY16_LE, RGBA64_LE, NV12, I420")

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
   * ready (plan()). */
  bool take_weights (const Weights & weights, guint64 generation);
  /* The plan for frames laid out as `in` and `out` (GstClFilterClass::plan):
   * the first plan after set_format builds its program here; a program for
   * weights of a new size is built in the background and taken at the
   * first plan after it is ready (the build asks for one). Uploads new
   * weights, picks the kernel and sets its arguments. */
  void plan (GstClContext * ctx, const GstClFrame * in, const GstClFrame * out, int border);
  /* Convolves `in` into `out` (same format and size) on ctx's queue, as
   * planned: sets the frames' arguments and enqueues. */
  void run (GstClContext * ctx, const GstClFrame * in, const GstClFrame * out);
private:
  /* The kernels a frame can run, and how a frame picks one: by whether its
   * rows are wide enough for the CPU integer path (16 bytes) and whether
   * both frames' rows lie on 16-byte boundaries. */
  enum Path {
    FIXED, INT_3X3, ONE_PASS, ONE_PASS_INT, SEPARABLE, FAST_3X3_ALIGNED, FAST_3X3, TILED,
    DIRECT, N_PATHS
  };
  struct Plan {
    Path path[2][2] = {{DIRECT, DIRECT}, {DIRECT, DIRECT}};   /* [wide][aligned] */
  };
  /* The plan of the weights, format and program in force. */
  Plan make_plan () const;
  Path choose (bool wide, bool aligned) const;
  bool uses_separable () const;
  bool uses_one_pass () const;
  bool uses_one_pass_int () const;
  bool uses_3x3_int () const;
  bool uses_fixed () const;

  void build (GstClContext * ctx);
  std::string options_for (GstClContext * ctx, int n) const;
  void use_program (GstClContext * ctx, const cl::Program & program, int n);
  void take_background_build (GstClContext * ctx);
  void upload (GstClContext * ctx);
  void log_path (Path path);   /* at debug level, when it changes */
  bool all_separable () const;
  const ChannelWeights *shared_integer_factors () const;
  cl_uint set_integer_args (cl::Kernel & k, const GstClFrame * in, const GstClFrame * out,
      int border);

  gstcl::PixelLayout px_ = gstcl::pixel_layout (GST_VIDEO_FORMAT_GRAY8);  /* filtered */
  guint planes_ = 1;           /* of the frames (the first is filtered) */
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
  Plan plan_;                  /* made with the weights' upload */
  Path path_ = DIRECT;         /* the one plan() chose for the frames' layouts */
  bool aligned_ = false;       /* both frames' rows on 16-byte boundaries */
  int logged_path_ = -1;
  int logged_n_ = 0;
};

}  // namespace clconv
