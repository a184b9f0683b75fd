/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cldebayer's device side: the negotiated format on the device, the
 * variant table (gstcldebayervariants.cpp: one row a kernel variant, with
 * its entry points, source files, options, alignment rule and launch), the
 * plan (which row and build runs, made when caps or settings change or a
 * frame's layout differs, never per frame), and the launch of each frame.
 * The element keeps properties, caps and the camera parameters
 * (gstcldebayercamera.hpp). */
#pragma once

#include "gstcldebayercamera.hpp"

#include <gst/opencl/gstclfilter.h>
#include <gst/opencl/gstcl.hpp>
#include <gst/opencl/gstclbands.hpp>

#include <functional>
#include <string>

namespace cldebayer {

/* The kernel variants: the exact integer blocks (GPUs), the exact integer
 * cells and edges (CPUs; from 8-bit samples into 8-bit 4-channel pixels 64
 * columns a work-item in 16-bit lanes, else one column, vectorised across
 * work-items), the camera stages in 8 x 2 blocks (GPUs) or in
 * strips (CPUs), menon with the camera stages in tiles (GPUs) or in a row
 * pipeline (CPUs), the camera strips with the sensor stages inside (CPUs).
 * The rows of the table, in this order. */
enum Kind { KIND_BLOCKS, KIND_CELLS, KIND_CAMERA, KIND_MENON, KIND_MENON_CPU, KIND_CAMERA_CPU,
  KIND_CAMERA_SENSOR_CPU, KIND_CELLS16, N_KINDS };

/* How a row does the sensor stages (sensor.cl) when the settings ask for
 * them: not at all (no camera stages), a pass before its kernel
 * (debayer_sensor, or debayer_sensor_cpu's strips), or inside its kernel. */
enum SensorPass { SENSOR_NONE, SENSOR_PASS_GPU, SENSOR_PASS_CPU, SENSOR_INSIDE };

/* debayer_sensor's shape (sensor.cl's SENSOR_LX, SENSOR_STRIP, given to
 * every camera program): column pairs a work-group, rows a work-item walks
 * down */
static const int kSensorLx = 128, kSensorStrip = 16;

/* debayer_menon's shape (menon.cl's MT_W, MT_H, MT_RUN1, MT_RUN, MT_RUN3,
 * MENON_LY): the tile of pixels a work-group computes; the cells a
 * work-item takes down a column in step 1, in step 2, in steps 3-5; the
 * work-group's rows of 32 work-items (reqd_work_group_size in menon.cl). */
struct MenonShape { int w, h, run1, run, run3, ly; };

/* The negotiated formats on the device (set_format). */
struct Format {
  std::string options;          /* -D options of the input/output formats */
  bool can_align = false;       /* 4-channel output: ALIGNED possible */
  int phase_x = 0, phase_y = 0; /* the pattern as a shift of RGGB */
  int maxv = 255;               /* 2^bits - 1 */
  bool in16 = false;            /* 16-bit samples */
  cl_uint scale_mul = 0;        /* output scaling, see io.cl */
  int scale_shift = 0;
  cl_int4 layout {};            /* channel positions, see io.cl */
  bool cpu = false;             /* CPU shapes (GST_OPENCL_TUNING) */
  /* the camera kernels' options for the device (gpu_options): x^y as PTX
   * that flushes denormals (NATIVE_POW=2) and warp sums in one instruction
   * (NV_REDUX) with NVIDIA's compiler, native_powr (NATIVE_POW=1) on other
   * GPUs; none for the CPU shapes (plain arithmetic) */
  std::string device_options;
  size_t local_mem = 0;         /* the device's local memory a work-group */
  /* the denoise through planes of x and u in global memory (CPUs, and GPUs
   * whose local memory is short of debayer_denoise's tile) */
  bool denoise_planes = false;
  int menon_chunks = 0;         /* debayer_menon_cpu's MC_CHUNKS */
  int menon_strip_width = 0;    /* its strips: 16 (MC_CHUNKS - 1) columns, */
  int menon_strip = 0;          /* and rows (cpu_strip_rows) */
  int camera_strip = 0;         /* debayer_camera_cpu's strips: rows */
  bool out_words = false;       /* the cells variant stores 32-bit words */
  bool out_rgba8 = false;       /* of 4 channels of 8 bits */
  int out_yuv = 0;              /* 1 NV12, 2 I420 (camera variants only) */
  cl_float8 yuv {};             /* Kr, Kb, Y offset, Y scale, C scale, ... */
};

/* A planned variant: the table's row, whether its ALIGNED build, and the
 * options it is built with. */
struct Variant {
  Kind kind = KIND_BLOCKS;
  bool aligned = false;
  bool sensor = false;          /* the sensor stages run (sensor.cl) */
  bool corrected = false;       /* and correct the samples the camera stages take
                                 * (16-bit words, the engine's second Format) */
  bool inside = false;          /* in the row's kernel (SENSOR_INSIDE), which
                                 * reads the input; else a pass before it,
                                 * whose result the kernel reads if corrected */
  bool denoise = false;         /* the denoise pass (denoise.cl) runs first: the
                                 * rest reads its words (the engine's base
                                 * format and frame) */
  std::string options;          /* empty: none */
  MenonShape menon {};          /* KIND_MENON: the shape built */
};

/* What a camera launch takes besides the frames. */
struct CameraLaunch {
  const CameraParams *params;
  bool gather;                  /* statistics in this launch */
  const cl::Buffer *counters;
  bool stages;                  /* settings.camera_stages () (menon on CPUs) */
  const SensorParams *sensor;   /* the variant's sensor pass */
  const cl::Buffer *shading;    /* its grids (shading_table) */
  const DenoiseParams *denoise; /* the variant's denoise pass */
  /* the output rows [row_begin, row_end) only (a row's band_rows; -1: to
   * the last) */
  int row_begin = 0, row_end = -1;
};

class Engine;

/* One row of the variant table (gstcldebayervariants.cpp). */
struct Row {
  Kind kind;
  const char *entries[2];       /* the kernel, and a second one (or null) */
  const char *const *sources;   /* the embedded files, in order, null-ended */
  bool camera;                  /* takes the camera arguments */
  bool full_scale_unit;         /* camera samples in units of full scale
                                 * (else of one sample step) */
  SensorPass sensor;
  /* the rows of the frame's bands (gstclbands.hpp) that its launch and
   * its sensor pass take (CameraLaunch's row_begin, row_end), 0 for whole
   * frames only */
  int band_rows;
  /* whether this row runs these settings on this format and these frames
   * (the first row that says so does) */
  bool (*runs) (const Format & f, const Settings & s, const GstClFrame * in,
      const GstClFrame * out);
  /* whether the ALIGNED build runs these frames */
  bool (*fits_aligned) (const Format & f, const GstClFrame * in, const GstClFrame * out);
  /* the build options of the variant (v's kind and aligned set; it may set
   * the rest of v) */
  std::string (*options) (const Format & f, const Settings & s, const GstClFrame * in,
      const GstClFrame * out, Variant * v);
  /* enqueues a frame: the arguments after the frames' and the geometry */
  void (*launch) (GstClContext * ctx, cl::Kernel * k, const Format & f, const Variant & v,
      const GstClFrame * in, const GstClFrame * out, const CameraLaunch * camera);
};

const Row & row_of (Kind kind);
/* The columns of debayer_camera_cpu's strips. */
int camera_cpu_strip_width ();
/* The first row that runs these settings on these frames. */
const Row & choose_row (const Format & f, const Settings & s, const GstClFrame * in,
    const GstClFrame * out);

class Engine {
public:
  /* The negotiated formats (throws std::runtime_error for a bad pair).
   * Drops every kernel built: the context may have changed. */
  void set_format (GstClContext * ctx, GstCaps * incaps, const GstVideoInfo * in_info,
      const GstVideoInfo * out_info);
  /* Plans the variant for these settings and frames: from the kernels built,
   * the program cache, or a build in the streaming thread for the first
   * frame; after a change while playing, a background build while the
   * variant of the last frame runs (the build asks the element for another
   * plan when it is ready: gst_cl_filter_replan ()). */
  void plan (GstElement * element, GstClContext * ctx, const Settings & s,
      const GstClFrame * in, const GstClFrame * out);
  /* Enqueues the running variant; `camera` for camera variants. With
   * `bands` (a frame in bands, gstclbands.hpp) each band's launches wait
   * for its input rows, and with `marks_output` mark the output rows they
   * complete: `after`, given the rows of `out` complete (the frame's
   * height at the last), enqueues what follows over them and returns the
   * output's rows complete (none: `out` is the output). */
  void run (GstClContext * ctx, const GstClFrame * in, const GstClFrame * out,
      const CameraLaunch * camera, gstcl::Bands * bands = nullptr,
      bool marks_output = false, const std::function<int (int)> &after = nullptr);
  /* The rows of the bands the running variant takes (0: whole frames),
   * and its launches a band (the denoise, two on CPUs; the sensor pass;
   * the camera kernel). */
  int band_rows () const;
  int band_launches () const;
  /* Waits for a build under way and drops it (stop, finalize). */
  void cancel () { build_.cancel (); }

  const Format & format () const { return format_; }
  /* Whether the running variant takes camera parameters, the full scale and
   * black level of the samples its camera stages take (the corrected words,
   * or the input's), and their unit (1 in menon, that full scale in
   * debayer_camera). */
  bool camera () const;
  bool sensor () const { return running_.sensor; }
  /* The full scale and black level of the samples after the denoise pass
   * (its words, black level 0), which the sensor pass reads. */
  int input_maxv () const { return running_.denoise ? words_.maxv : format_.maxv; }
  int input_black (const Settings & s) const
  {
    return running_.denoise ? 0 : (int) s.black_level;
  }
  int camera_maxv () const { return running_.corrected ? words_.maxv : input_maxv (); }
  int camera_black (const Settings & s) const
  {
    return running_.corrected ? 0 : input_black (s);
  }
  double unit () const;
  /* the full scale of the sensor pass's result */
  int sensor_maxv () const { return words_.maxv; }

private:
  struct Kernels {
    std::string options;
    cl::Kernel k[2];
    cl::Kernel sensor;          /* the row's sensor pass (SENSOR_PASS_*) */
    cl::Kernel prep, denoise;   /* the denoise pass (DENOISE builds) */
  };
  void use (const Variant & v, const cl::Program & program);
  void ensure_corrected (GstClContext * ctx);
  void ensure_denoised (GstClContext * ctx);
  int run_denoise (GstClContext * ctx, const GstClFrame * in, const DenoiseParams & p,
      int ready, int * planes, int * cells);
  void run_sensor (GstClContext * ctx, const GstClFrame * in, const CameraLaunch * c,
      int row_begin = 0, int row_end = -1);
  /* what the sensor pass and the camera kernel take as their input: the
   * denoised words, or the frame */
  const Format & base (const Variant & v) const { return v.denoise ? words_ : format_; }
  const GstClFrame *base_frame (const Variant & v, const GstClFrame * in) const
  {
    return v.denoise ? &denoised_frame_ : in;
  }
  bool built (const Variant & v) const;
  bool fits (const Variant & v, const GstClFrame * in, const GstClFrame * out) const;
  /* whether v's kernel reads the sensor pass's result */
  static bool reads_corrected (const Variant & v) { return v.corrected && !v.inside; }

  Format format_;
  /* The format of the words that the denoise and the sensor pass write and
   * the passes after them read (16-bit, full scale 32767, or 65535 for
   * 16-bit output; black level 0); the sensor pass's result and the
   * denoise's, each a frame of rows padded to 8 samples, and the denoise's
   * planes. */
  Format words_;
  cl::Buffer corrected_mem_, denoised_mem_, planes_mem_;
  GstClFrame corrected_frame_ {}, denoised_frame_ {};
  int planes_w_ = 0, planes_h_ = 0;
  Kernels kernels_[N_KINDS][2];   /* by kind and ALIGNED */
  Variant running_;               /* the variant the frames run */
  gstcl::BackgroundBuild build_;
  Variant building_;
};

}  // namespace cldebayer
