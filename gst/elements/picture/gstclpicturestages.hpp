/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The picture stages, denoise -> sharpen -> 3D LUT, on a transfer-encoded
 * picture (kernels/picture/picture.cl), shared by cldebayer's camera path
 * (after its camera kernel) and clpicture: their settings and properties
 * (one set of property specs, installed by both), and the pass that plans
 * and runs the kernels (docs/clpicture.md). */
#pragma once

#include "gstclcube.hpp"

#include <gst/opencl/gstcl.hpp>
#include <gst/opencl/gstclbasetransform.h>
#include <gst/opencl/gstclfilter.h>

#include <memory>
#include <string>

namespace clpicture {

struct Settings {
  double denoise = 0;                 /* 0..1: sigma 4 % x strength of full scale */
  double sharpen = 0;                 /* amount 0..4 */
  double sharpen_radius = 1;          /* Gaussian sigma, pixels */
  double sharpen_threshold = 0;       /* of full scale */
  std::string lut_file;
  std::shared_ptr<const Cube> lut;    /* read by set_property, off the streaming thread */
  Interpolation interpolation = INTERP_TRILINEAR;
  double lut_strength = 1;

  bool denoises () const { return denoise > 0; }
  bool finishes () const { return sharpen > 0 || (lut && lut_strength > 0); }
  bool active () const { return denoises () || finishes (); }
};

/* The properties, numbered from `first` in this order. */
enum Property { PROP_DENOISE, PROP_SHARPEN, PROP_SHARPEN_RADIUS, PROP_SHARPEN_THRESHOLD,
  PROP_LUT3D_FILE, PROP_LUT3D_INTERPOLATION, PROP_LUT3D_STRENGTH, N_PROPERTIES };

void install_properties (GObjectClass * klass, guint first);
/* A value for property `id` (from `first`) being set: a LUT file is read
 * here, in the thread that sets it, before the element takes its lock. */
struct Incoming {
  std::shared_ptr<const Cube> lut;
  std::string refused;                /* why the file is refused ("" when good) */
};
Incoming prepare (guint id, guint first, const GValue * value);
/* Stores it under the element's lock (a refused file is not stored). */
void set_property (Settings * s, guint id, guint first, const GValue * value,
    const Incoming & incoming);
void get_property (const Settings & s, guint id, guint first, GValue * value);
/* After the lock: a refused file's warning or error (clsettings::settle). */
void settle (GstClBaseTransform * element, guint id, guint first, GParamSpec * pspec,
    const GValue * value, const Incoming & incoming);
bool owns (guint id, guint first);

/* The device side: the stages over frames of one format (RGB 8/16-bit,
 * GRAY8, NV12, I420), made when caps or settings change, never per frame.
 * One program a format (every setting is an argument), so no change while
 * playing builds anything; a new LUT is uploaded at the plan that first
 * sees it. */
class Pass {
public:
  /* The negotiated format (throws std::invalid_argument for another);
   * builds nothing. */
  void set_format (GstClContext * ctx, const GstVideoInfo * info);
  /* The settings in force for this frame size. The program is built at
   * the first plan with a stage on: in the streaming thread before the
   * first frame since the caps (nothing else could run it), else in the
   * background (gstcl::BackgroundBuild for `element`, which asks for the
   * plan that takes it) while the frames go through without the stages. */
  void plan (GstElement * element, GstClContext * ctx, const Settings & s);
  bool active () const { return active_; }
  /* A frame went out (any path): from the second plan on, builds go to
   * the background. */
  void count_frame () { frames_++; }
  /* Waits for a build under way and drops it (stop, finalize). */
  void cancel () { build_.cancel (); }
  /* in -> out (same format and size); in and out may be the same frame
   * only when the pass is inactive (nothing runs). */
  void run (GstClContext * ctx, const GstClFrame * in, const GstClFrame * out);
  /* The same for a frame in row bands (gstclbands.hpp): the rows that
   * `ready` rows of `in` allow (all once `ready` is the height), after
   * those of the calls before for this frame (*progress, zero at its
   * first); returns the rows of `out` complete. The blur and the finish
   * only: with the denoise (clpicture) the whole frame once it is ready. */
  struct Progress { int blurred = 0, finished = 0; };   /* blurred: CPUs' rows pass */
  int run_rows (GstClContext * ctx, const GstClFrame * in, const GstClFrame * out, int ready,
      Progress * progress);

private:
  int blur_and_finish (GstClContext * ctx, const GstClFrame * in, const GstClFrame * out,
      int ready, Progress * progress);
  /* pixels of a row a work-item of the CPU shape's blur and finish */
  static constexpr int kCpuSpan = 128;
  std::string options_;
  cl_int4 order_ {};
  cl_float16 k_ {};                   /* derived_coefficients (the .cpp) */
  int width_ = 0, height_ = 0;
  bool yuv420_ = false;
  bool active_ = false, denoise_ = false, sharpen_ = false;
  int radius_ = 0;                    /* the blur's reach, rows */
  bool cpu_ = false;                  /* the CPU shapes (planes, float8, a blur pass) */
  int pstride_ = 0, pheight_ = 0;     /* its padded planes */
  cl::Kernel unpack_, denoise_k_, planes_k_, denoise_cpu_, blur_rows_, finish_;
  cl::Buffer planes_;
  cl::Buffer work_[2];                /* the working picture (denoise only) */
  cl::Buffer work_arg_;               /* finish's: work_[1], or any buffer */
  cl::Buffer rows_;                   /* the blur's rows pass (CPUs) */
  size_t rows_bytes_ = 0;
  cl::Buffer lut_;
  std::shared_ptr<const Cube> lut_of_;   /* the LUT in lut_ */
  bool packed_lut_ = false;              /* lut_ as unorm16 pairs (LUT_PACKED) */
  float lut_base_ = 0, lut_step_ = 0;    /* their values: base + step q */
  std::string program_options_;        /* built when a stage is first on */
  gstcl::BackgroundBuild build_;
  guint64 frames_ = 0;                 /* since the caps */
};

/* The pass after another kernel that writes the output (cldebayer's camera
 * kernel): while a stage is on, that kernel writes a frame of the output's
 * layout in a buffer of the pass's (`target`), and `run` makes the output
 * of it; otherwise the kernel writes the output and nothing more runs. */
class After {
public:
  void set_format (GstClContext * ctx, const GstVideoInfo * info)
  {
    pass_.set_format (ctx, info);
    staged_ = cl::Buffer ();
    bytes_ = 0;
  }
  void plan (GstElement * element, GstClContext * ctx, const Settings & s,
      const GstClFrame * out);
  bool active () const { return pass_.active (); }
  const GstClFrame *target (const GstClFrame * out) const
  {
    return pass_.active () ? &frame_ : out;
  }
  void run (GstClContext * ctx, const GstClFrame * out)
  {
    pass_.run (ctx, &frame_, out);
    pass_.count_frame ();
  }
  /* In bands: Pass::run_rows from the kernel's frame (the output's rows
   * complete; the rows of the kernel's frame while inactive). */
  int run_rows (GstClContext * ctx, const GstClFrame * out, int ready, Pass::Progress * progress)
  {
    const int rows = pass_.run_rows (ctx, &frame_, out, ready, progress);
    if (ready >= GST_VIDEO_INFO_HEIGHT (&out->info))
      pass_.count_frame ();   /* (inactive too: a stage turned on later builds aside) */
    return rows;
  }
  void cancel () { pass_.cancel (); }

private:
  Pass pass_;
  cl::Buffer staged_;
  size_t bytes_ = 0;
  GstClFrame frame_ {};
};

}  // namespace clpicture
