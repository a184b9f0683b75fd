/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cldebayer's camera unit, apart from the demosaic (as libcamera's software
 * ISP keeps its algorithms apart from its debayer): what the user set, the
 * per-frame parameters every camera kernel takes (one plain struct, handed
 * by value), the maths that makes them (black level, gains, matrix with
 * saturation, transfer curve), the white-balance statistics on the device
 * and their read-back, and the auto white-balance loop. */
#pragma once

#include <gst/opencl/gstcl.hpp>

#include "gstcllensshading.hpp"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace cldebayer {

enum Method { METHOD_MALVAR, METHOD_BILINEAR, METHOD_MENON };
enum WhiteBalance { WB_NONE, WB_MANUAL, WB_AUTO };
enum Transfer { TRANSFER_LINEAR, TRANSFER_SRGB, TRANSFER_BT709, TRANSFER_GAMMA };
enum DefectCorrection { DEFECT_NONE, DEFECT_DYNAMIC };
enum Exposure { EXPOSURE_MANUAL, EXPOSURE_AUTO };

typedef std::array<double, 9> Matrix;
constexpr Matrix kIdentity = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };

/* What the user set (under the element's lock). */
struct Settings {
  Method method = METHOD_MALVAR;
  guint black_level = 0;
  WhiteBalance white_balance = WB_NONE;
  double gains[3] = { 1, 1, 1 };    /* manual */
  double awb_speed = 0.25;
  Matrix matrix = kIdentity;
  double saturation = 1;
  Transfer transfer = TRANSFER_LINEAR;
  double gamma = 2.2;
  /* the sensor pass (sensor.cl) */
  DefectCorrection defect = DEFECT_NONE;
  double defect_threshold = 0.1;
  std::string shading_file;
  std::shared_ptr<const ShadingGrid> shading;   /* read from shading_file */
  double shading_strength = 1;
  guint statistics_interval = 0;
  Exposure exposure = EXPOSURE_MANUAL;
  double exposure_gain = 1;                       /* manual */
  double exposure_speed = 0.25;
  double exposure_target = 0.18;
  /* the denoise on the raw samples (denoise.cl), 0..1: the picture stages'
   * `denoise`, which cldebayer runs here */
  double denoise = 0;

  bool denoises () const { return denoise > 0; }

  /* Whether the sensor pass corrects the samples (then the camera kernel
   * reads its result). */
  bool corrects () const
  {
    return defect != DEFECT_NONE || (shading && !shading->empty ());
  }
  /* Whether the sensor pass runs: corrections, or the 3A statistics. */
  bool sensor_pass () const
  {
    return corrects () || statistics_interval > 0 || exposure == EXPOSURE_AUTO;
  }
  /* Whether any camera stage changes the picture (else the exact integer
   * kernels run, bit-identical to the plain demosaic). */
  bool camera_stages () const
  {
    return black_level != 0 || white_balance != WB_NONE || matrix != kIdentity ||
        saturation != 1 || transfer != TRANSFER_LINEAR || sensor_pass () ||
        exposure_gain != 1 || denoises ();
  }
  /* Whether the output stage only scales (no matrix, saturation or curve). */
  bool colour_stages () const
  {
    return matrix != kIdentity || saturation != 1 || transfer != TRANSFER_LINEAR;
  }
};

/* Grey-world statistics of the last frame read back, and the gains in force
 * (under the element's lock: get_property reads them). */
struct AwbStatus {
  double gains[3] = { 1, 1, 1 };
  bool have_target = false;
  double target[3] = { 1, 1, 1 };
  double means[3] = { 0, 0, 0 };    /* of full scale, after black level */
  guint64 cells = 0;
  guint64 frames = 0;               /* statistics read back so far */
};

/* The arguments of a camera kernel after the frames' and the layout
 * (kernels/debayer/output.cl's CAMERA_ARGS), but the statistics' counters. */
struct CameraParams {
  cl_int black = 0;
  cl_float8 gain {};      /* black level, white balance and exposure as a factor
                           * per colour (s0-s2), the exposure gain (s3: the
                           * kernels clip at full scale after white balance and
                           * after it), then stages.cl's FAST_LEVELS offsets */
  cl_float16 mat {};      /* the matrix after saturation's, over the samples' unit */
  cl_float16 tf {};       /* the transfer curve (curve.cl) */
  cl_int lo = 0, hi = 0;  /* the grey-world cells' range */
};

/* The parameters of `s` for samples of full scale maxv with black level
 * `black` (the setting's, or 0 where the kernel reads the sensor pass's
 * result) in units of `unit` (1 in menon, maxv in debayer_camera), with the
 * white-balance gains `wb` and the exposure gain `exposure` (set_gains
 * changes them each frame in auto white balance and exposure). */
CameraParams camera_params (const Settings & s, int maxv, int black, double unit,
    const double wb[3], double exposure);
void set_gains (CameraParams * p, int maxv, double unit, const double wb[3], double exposure);

/* The arguments of debayer_sensor (sensor.cl) after the frames'. */
struct SensorParams {
  cl_int maxv = 0, black = 0;
  cl_int defect = 0;
  cl_float threshold = 0;  /* in samples after black level */
  cl_int4 grid {};         /* lens shading: columns, rows, on */
  cl_float2 scale {};      /* grid points a pixel */
  cl_float mid_max = 0;    /* full scale of the pass's result */
  cl_int lo = 0, hi = 0;   /* the grey-world cells' range, in the result's units */
  cl_float4 wb {};         /* the white balance in force (the histogram's luma) */
};

/* debayer_sensor's parameters for `s` on frames of full scale maxv and
 * black level `black` (the setting's, or 0 after the denoise) and the given
 * size, writing samples of full scale mid_max; the white balance in force
 * `wb`. */
SensorParams sensor_params (const Settings & s, int maxv, int black, int width, int height,
    int mid_max, const double wb[3]);
/* The arguments of debayer_denoise_prep and debayer_denoise (denoise.cl)
 * after the frames'. */
struct DenoiseParams {
  cl_int maxv = 0, black = 0;
  cl_float ustep = 0;      /* u's scale: 2 / (sigma sqrt (1.8)) */
  cl_float inv_h2 = 0;     /* 1 / h^2 */
};

/* The noise sigma (of full scale after black level, at mid grey) that
 * denoise strength 1 targets, and the filter's h^2 (denoise.cl). */
constexpr double kDenoiseSigma = 0.04, kDenoiseH2 = 1.3;

/* debayer_denoise's parameters for `s` on samples of full scale maxv. */
DenoiseParams denoise_params (const Settings & s, int maxv);

/* The lens-shading grids of `s` with its strength applied (1 + strength
 * (gain - 1)), R, Gr, Gb, B one after the other, as sensor.cl reads them;
 * one 1 when there is no grid. */
std::vector<float> shading_table (const Settings & s);

/* The gains of the white balance `s` asks for before any statistics: the
 * manual ones, else 1. */
void initial_gains (const Settings & s, double wb[3]);

/* Sums of R, G (both greens), B and cells read back from the device. */
struct Totals {
  cl_ulong sum[4] = { 0, 0, 0, 0 };
};

/* The grey-world loop: takes the totals of a frame (when `fresh`; samples
 * of full scale maxv after black level `black`) as the new target, then
 * moves the gains in force toward it by `speed`. */
void awb_step (AwbStatus * awb, const Totals * fresh, double speed, int maxv, int black);

/* Auto exposure (under the element's lock: get_property reads the gain). */
struct AeStatus {
  static constexpr int kHistory = 6;
  double gain = 1;                /* in force */
  double history[kHistory] = {};  /* the last means of the zone means */
  int measured = 0;               /* means taken so far */
};

/* The exposure loop: takes the mean of the zone means of a frame (when
 * `fresh`, measured before the exposure gain), then moves the gain in
 * force by `speed` toward the gain that puts the mean of the last
 * kHistory means at `target` (a box over them: a scene flickering with a
 * period of 2 or 3 frames averages out). */
void ae_step (AeStatus * ae, const double * fresh, double speed, double target);

/* The sensor pass's statistics (sensor.cl), as the element posts them. */
constexpr int kHistogramBins = 64, kZonesX = 16, kZonesY = 12, kZones = kZonesX * kZonesY;

/* What one gathering launch gathered, read back, and the frame it was. */
struct Gathered {
  Totals awb;
  int awb_maxv = 0;               /* full scale of awb's samples (after black) */
  int awb_black = 0;
  bool sensor = false;            /* histogram and zones gathered too */
  std::array<guint64, kHistogramBins> histogram {};
  std::array<double, kZones> zones {};   /* means of the cells' luma (0 if none) */
  double zone_mean = 0;           /* the mean of the zones that hold cells */
  guint64 frame = 0;
  GstClockTime pts = GST_CLOCK_TIME_NONE;
  bool post = false;              /* a statistics-interval frame */
};

/* The cldebayer-statistics structure of the frame `g`, with the white
 * balance in force (docs/cldebayer.md, "3A statistics"). */
GstStructure *statistics_structure (const Gathered & g, const AwbStatus & awb);

/* The statistics' counters on the device: kSets sets of STATS_SLOTS
 * grey-world counters (stats.cl's; each a pair of words: the sums of the
 * groups' low 16 bits and of the bits above) and the sensor pass's
 * histograms and zone sums (sensor.cl), each read back in flight into
 * pinned memory (allocated by the driver, mapped once), so that the read is
 * a transfer the queue runs on its own. A frame gathers into a free set;
 * several sets let every frame gather while the host is ahead of the
 * device. */
class Statistics {
public:
  static constexpr int kSets = 4;
  static constexpr int kAwbWords = 8 * 64;
  static constexpr int kHistSlots = 16;
  static constexpr int kWords = kAwbWords + kHistogramBins * kHistSlots + 2 * kZones;
  static constexpr size_t kBytes = sizeof (cl_uint) * kWords;

  ~Statistics ();
  /* New formats: waits for the reads under way and drops the buffers (the
   * next caps may come with another context). May throw cl::Error. */
  void reset ();
  /* The oldest completed read, if any (in the order gathered); cells_x and
   * cells_y: the frame's 2 x 2 cells, for the zone means. */
  bool take (Gathered * out, int cells_x, int cells_y);
  /* Waits for the oldest read under way (a frame that must gather found no
   * free set), or the newest (the frame before's, for the auto loops; the
   * reads complete in order). */
  void wait_oldest () { wait_for (busy_end (false)); }
  void wait_newest () { wait_for (busy_end (true)); }
  /* Whether no read is under way. */
  bool idle () const;
  /* Makes the counters on first use; returns the set this frame gathers
   * into, zeroed on ctx's queue, or -1 when none is free. */
  int begin (GstClContext * ctx);
  /* After the gathering launch: reads set `set` back, not waited for. */
  void end (int set, const Gathered & tag);
  /* A set's counters (any set when none gathers: the kernels take one). */
  const cl::Buffer & counters (int set) const { return sets_[set < 0 ? 0 : set].counters; }

private:
  struct Set {
    cl::Buffer counters;
    cl::Buffer pinned;
    cl_uint *host = nullptr;
    cl::Event reading;
    bool busy = false;            /* from begin to take */
    guint64 order = 0;
    Gathered tag;
  };
  /* The busy set gathered first (or last), or null. */
  Set *busy_end (bool last);
  void wait_for (Set * set);
  Set sets_[kSets];
  guint64 next_order_ = 0;
  cl::CommandQueue queue_;
};

}  // namespace cldebayer
