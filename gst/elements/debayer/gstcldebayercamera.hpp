/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cldebayer's camera unit, apart from the demosaic (as libcamera's software
 * ISP keeps its algorithms apart from its debayer): what the user set, the
 * per-frame parameters every camera kernel takes (one plain struct, handed
 * by value), the maths that makes them (black level, gains, matrix with
 * saturation, transfer curve), the white-balance statistics on the device
 * and their read-back, and the auto white-balance loop. */
#pragma once

#include <gst/opencl/gstcl.hpp>

#include <array>

namespace cldebayer {

enum Method { METHOD_MALVAR, METHOD_BILINEAR, METHOD_MENON };
enum WhiteBalance { WB_NONE, WB_MANUAL, WB_AUTO };
enum Transfer { TRANSFER_LINEAR, TRANSFER_SRGB, TRANSFER_BT709, TRANSFER_GAMMA };

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

  /* Whether any camera stage changes the picture (else the exact integer
   * kernels run, bit-identical to the plain demosaic). */
  bool camera_stages () const
  {
    return black_level != 0 || white_balance != WB_NONE || matrix != kIdentity ||
        saturation != 1 || transfer != TRANSFER_LINEAR;
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
  cl_float8 gain {};      /* black level and white balance as a factor per colour,
                           * then stages.cl's FAST_LEVELS offsets */
  cl_float16 mat {};      /* the matrix after saturation's, over the samples' unit */
  cl_float16 tf {};       /* the transfer curve (curve.cl) */
  cl_int lo = 0, hi = 0;  /* the grey-world cells' range */
};

/* The parameters of `s` for samples of full scale maxv in units of `unit`
 * (1 in menon, maxv in debayer_camera), with the white-balance gains `wb`
 * (set_gains changes them each frame in auto white balance). */
CameraParams camera_params (const Settings & s, int maxv, double unit, const double wb[3]);
void set_gains (CameraParams * p, int maxv, double unit, const double wb[3]);
/* The gains of the white balance `s` asks for before any statistics: the
 * manual ones, else 1. */
void initial_gains (const Settings & s, double wb[3]);

/* Sums of R, G (both greens), B and cells read back from the device. */
struct Totals {
  cl_ulong sum[4] = { 0, 0, 0, 0 };
};

/* The grey-world loop: takes the totals of a frame (when `fresh`) as the
 * new target, then moves the gains in force toward it by `speed`. */
void awb_step (AwbStatus * awb, const Totals * fresh, double speed, int maxv, int black);

/* The white-balance counters on the device (kernels/debayer/stats.cl's
 * STATS_SLOTS sets of four counters, each a pair of words: the sums of the
 * groups' low 16 bits and of the bits above them), and a read of them in
 * flight into pinned memory (allocated by the driver, mapped once), so that
 * the read is a transfer the queue runs on its own. Statistics are
 * gathered only in the frames whose totals are read back: while a read is
 * under way (the host ahead of the device) they would be zeroed unread by
 * the next frame's fill. */
class Statistics {
public:
  static constexpr int kSlots = 64;
  static constexpr size_t kBytes = sizeof (cl_uint) * 8 * kSlots;

  ~Statistics ();
  /* New formats: waits for a read under way and drops the buffers (the
   * next caps may come with another context). May throw cl::Error. */
  void reset ();
  /* The totals of a read completed since the last call, if any. */
  bool take (Totals * totals);
  /* Makes the counters on first use (every camera kernel takes them);
   * returns whether this frame gathers: `wanted` and no read under way.
   * If so, zeroes the counters on ctx's queue. */
  bool begin (GstClContext * ctx, bool wanted);
  /* After a gathering launch: reads the counters back, not waited for. */
  void end ();
  const cl::Buffer & counters () const { return counters_; }

private:
  void wait_for_read ();

  cl::Buffer counters_;
  cl::Event reading_;
  cl::Buffer pinned_;
  cl::CommandQueue queue_;
  cl_uint *host_ = nullptr;
};

}  // namespace cldebayer
