/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcldebayercamera.hpp"

#include <algorithm>
#include <cmath>

namespace cldebayer {

/* BT.709 luma weights: the grey that saturation keeps */
static constexpr double kLuma[3] = { 0.2126, 0.7152, 0.0722 };
/* Grey-world cells: the largest sample (after black level) at least LO and
 * below HI of the full scale (docs/cldebayer.md). */
static constexpr double kAwbLow = 0.02, kAwbHigh = 0.98;

/* The transfer curve as curve.cl's TRANSFER_CURVE takes it: x <= knee ?
 * slope x : a x^e - b, as (e, a, b, knee, slope); then, for its
 * transfer_offset8, (a / u, log2 (a / u), slope / u, b / u, u, b) with u =
 * c + b, c = slope knee (1 for the power and linear curves). */
static cl_float16
transfer_parameters (const Settings & s)
{
  double e = 1, a = 1, b = 0, knee = 2, slope = 1;   /* linear (knee > 1) */
  switch (s.transfer) {
    case TRANSFER_SRGB: e = 1 / 2.4; a = 1.055; b = 0.055; knee = 0.0031308; slope = 12.92; break;
    case TRANSFER_BT709: e = 0.45; a = 1.099; b = 0.099; knee = 0.018; slope = 4.5; break;
    case TRANSFER_GAMMA: e = 1 / s.gamma; knee = -1; slope = 0; break;
    default: break;
  }
  const bool has_knee = s.transfer == TRANSFER_SRGB || s.transfer == TRANSFER_BT709;
  const double u = (has_knee ? slope * knee : 1) + b;
  return cl_float16 { { (float) e, (float) a, (float) b, (float) knee, (float) slope,
          (float) (a / u), (float) std::log2 (a / u), (float) (slope / u), (float) (b / u),
          (float) u, (float) b } };
}

/* debayer_camera's FAST_LEVELS offset of a colour whose factor (over maxv)
 * is f: -(2^15 + black) f rounded down to a float, so that a sample at black
 * comes out at or below 0. */
static float
fast_levels_offset (float f, int black)
{
  const double exact = -(32768.0 + black) * (double) f;
  const float k = (float) exact;
  return (double) k > exact ? std::nextafter (k, -INFINITY) : k;
}

void
initial_gains (const Settings & s, double wb[3])
{
  for (int c = 0; c < 3; c++)
    wb[c] = s.white_balance == WB_MANUAL ? s.gains[c] : 1;
}

/* Black level and white balance as one factor per colour; the unit of the
 * samples from here on is divided on the host in double, so that full
 * scale with unit gains is exactly 1 in debayer_camera. */
void
set_gains (CameraParams * p, int maxv, double unit, const double wb[3])
{
  const double black_scale = (double) maxv / (maxv - p->black) / unit;
  p->gain = cl_float8 { { (float) (wb[0] * black_scale), (float) (wb[1] * black_scale),
          (float) (wb[2] * black_scale), 0 } };
  for (int c = 0; c < 3; c++)
    p->gain.s[4 + c] = fast_levels_offset (p->gain.s[c], p->black);
}

CameraParams
camera_params (const Settings & s, int maxv, double unit, const double wb[3])
{
  CameraParams p;
  p.black = (cl_int) s.black_level;
  set_gains (&p, maxv, unit, wb);
  /* The matrix after saturation's, over the demosaiced samples' full scale. */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double m = 0;
      for (int k = 0; k < 3; k++)
        m += ((i == k ? s.saturation : 0) + (1 - s.saturation) * kLuma[k]) *
            s.matrix[3 * k + j];
      p.mat.s[3 * i + j] = (float) (m * unit / maxv);
    }
  p.tf = transfer_parameters (s);
  const int range = maxv - p.black;
  p.lo = (cl_int) std::ceil (kAwbLow * range);
  p.hi = (cl_int) std::ceil (kAwbHigh * range);
  return p;
}

void
awb_step (AwbStatus * awb, const Totals * fresh, double speed, int maxv, int black)
{
  if (fresh) {
    const double cells = (double) fresh->sum[3];
    const double scale = (double) (maxv - std::min (black, maxv - 1));
    const double r = fresh->sum[0] / cells, g = fresh->sum[1] / (2 * cells),
        b = fresh->sum[2] / cells;
    awb->means[0] = r / scale;
    awb->means[1] = g / scale;
    awb->means[2] = b / scale;
    awb->cells = fresh->sum[3];
    awb->frames++;
    awb->target[0] = r > 0 ? std::min (g / r, 16.0) : 1;
    awb->target[1] = 1;
    awb->target[2] = b > 0 ? std::min (g / b, 16.0) : 1;
    awb->have_target = true;
  }
  if (awb->have_target)
    for (int c = 0; c < 3; c++)
      awb->gains[c] += speed * (awb->target[c] - awb->gains[c]);
}

/* Bounded (gstclwatchdog.hpp): waits for the whole queue, as reset ()
 * finishes it next, and throws gstcl::DeviceTimeout when a kernel ahead
 * runs past its kernel-timeout or the queue was abandoned, so that reset ()
 * never calls finish () on a queue that a runaway kernel holds. */
void
Statistics::wait_for_read ()
{
  if (queue_ ())
    gstcl::finish (queue_, "the white-balance statistics");
  reading_ = cl::Event ();
}

/* Waits for a read under way and drops the buffers: new caps may come with
 * another context (begin () makes them again in the frame's). */
void
Statistics::reset ()
{
  wait_for_read ();
  if (host_) {
    queue_.enqueueUnmapMemObject (pinned_, host_);
    queue_.finish ();
  }
  host_ = nullptr;
  counters_ = pinned_ = cl::Buffer ();
  queue_ = cl::CommandQueue ();
}

Statistics::~Statistics ()
{
  try {
    reset ();
  } catch (const cl::Error &) {
  }
}

bool
Statistics::take (Totals * totals)
{
  if (!reading_ () ||
      reading_.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS> () != CL_COMPLETE)
    return false;
  reading_ = cl::Event ();
  for (int i = 0; i < 4; i++) {
    cl_ulong sum = 0;
    for (int slot = 0; slot < kSlots; slot++)
      sum += host_[8 * slot + 2 * i] + ((cl_ulong) host_[8 * slot + 2 * i + 1] << 16);
    totals->sum[i] = sum;
  }
  return true;
}

bool
Statistics::begin (GstClContext * ctx, bool wanted)
{
  const cl::CommandQueue &queue = gstcl::queue_of (ctx);
  if (!counters_ ()) {
    const cl::Context &context = gstcl::context_of (ctx);
    counters_ = cl::Buffer (context, CL_MEM_READ_WRITE, kBytes);
    pinned_ = cl::Buffer (context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, kBytes);
    host_ = static_cast<cl_uint *> (queue.enqueueMapBuffer (pinned_, CL_TRUE,
            CL_MAP_READ | CL_MAP_WRITE, 0, kBytes));
    queue_ = queue;
  }
  if (!wanted || reading_ ())
    return false;
  queue.enqueueFillBuffer (counters_, (cl_uint) 0, 0, kBytes);
  return true;
}

void
Statistics::end ()
{
  queue_.enqueueReadBuffer (counters_, CL_FALSE, 0, kBytes, host_, nullptr, &reading_);
}

}  // namespace cldebayer
