/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcldebayercamera.hpp"

#include <gst/opencl/gstclwatchdog.hpp>

#include <algorithm>
#include <cmath>

namespace cldebayer {

/* BT.709 luma weights: the grey that saturation keeps */
static constexpr double kLuma[3] = { 0.2126, 0.7152, 0.0722 };
/* Grey-world cells: the largest sample (after black level) at least LO and
 * below HI of the full scale (docs/cldebayer.md). */
static constexpr double kAwbLow = 0.02, kAwbHigh = 0.98;
/* the exposure-gain property's range (above 0) */
static constexpr double kMinExposure = 1.0 / 64, kMaxExposure = 64;
/* The bounds of the auto red and blue gains (docs/cldebayer.md). */
static constexpr double kAwbMinGain = 1.0 / 16, kAwbMaxGain = 16.0;

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

/* Black level, white balance and exposure as one factor per colour; the
 * unit of the samples from here on is divided on the host in double, so
 * that full scale with unit gains is exactly 1 in debayer_camera. */
void
set_gains (CameraParams * p, int maxv, double unit, const double wb[3], double exposure)
{
  const double black_scale = (double) maxv / (maxv - p->black) / unit;
  p->gain = cl_float8 { { (float) (wb[0] * exposure * black_scale),
          (float) (wb[1] * exposure * black_scale), (float) (wb[2] * exposure * black_scale),
          (float) exposure } };
  for (int c = 0; c < 3; c++)
    p->gain.s[4 + c] = fast_levels_offset (p->gain.s[c], p->black);
}

CameraParams
camera_params (const Settings & s, int maxv, int black, double unit, const double wb[3],
    double exposure)
{
  CameraParams p;
  p.black = (cl_int) black;
  set_gains (&p, maxv, unit, wb, exposure);
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

SensorParams
sensor_params (const Settings & s, int maxv, int black, int width, int height, int mid_max,
    const double wb[3])
{
  SensorParams p;
  p.maxv = maxv;
  p.black = (cl_int) black;
  p.defect = s.defect == DEFECT_DYNAMIC;
  p.threshold = (cl_float) (s.defect_threshold * (maxv - p.black));
  if (s.shading && !s.shading->empty ()) {
    p.grid = cl_int4 { { s.shading->columns, s.shading->rows, 1, 0 } };
    p.scale = cl_float2 { { (float) ((double) (s.shading->columns - 1) / (width - 1)),
            (float) ((double) (s.shading->rows - 1) / (height - 1)) } };
  } else {
    p.grid = cl_int4 { { 2, 2, 0, 0 } };
  }
  p.mid_max = (cl_float) mid_max;
  p.lo = (cl_int) std::ceil (kAwbLow * mid_max);
  p.hi = (cl_int) std::ceil (kAwbHigh * mid_max);
  p.wb = cl_float4 { { (float) wb[0], (float) wb[1], (float) wb[2], 0 } };
  return p;
}

DenoiseParams
denoise_params (const Settings & s, int maxv)
{
  DenoiseParams p;
  p.maxv = maxv;
  p.black = (cl_int) s.black_level;
  const double sigma = kDenoiseSigma * std::max (s.denoise, 1e-3);
  p.ustep = (cl_float) (2 / (sigma * std::sqrt (1.8)));
  p.inv_h2 = (cl_float) (1 / kDenoiseH2);
  return p;
}

std::vector<float>
shading_table (const Settings & s)
{
  if (!s.shading || s.shading->empty ())
    return std::vector<float> (4 * 2 * 2, 1.0f);
  std::vector<float> table;
  for (const std::vector<float> &grid : s.shading->gains)
    for (float g : grid)
      table.push_back ((float) (1 + s.shading_strength * (g - 1.0)));
  return table;
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
    /* No green (a mean of 0: nothing to balance against) leaves the target
     * as it was; otherwise each gain within [1/16, 16] (a trace of green
     * under strong red would take it to nearly 0: a black picture). */
    if (g > 0) {
      auto bounded = [] (double gain) { return std::clamp (gain, kAwbMinGain, kAwbMaxGain); };
      awb->target[0] = r > 0 ? bounded (g / r) : 1;
      awb->target[1] = 1;
      awb->target[2] = b > 0 ? bounded (g / b) : 1;
      awb->have_target = true;
    }
  }
  if (awb->have_target)
    for (int c = 0; c < 3; c++)
      awb->gains[c] += speed * (awb->target[c] - awb->gains[c]);
}

void
ae_step (AeStatus * ae, const double * fresh, double speed, double target)
{
  if (fresh) {
    ae->history[ae->measured % AeStatus::kHistory] = *fresh;
    ae->measured++;
  }
  const int n = std::min (ae->measured, AeStatus::kHistory);
  if (n == 0)
    return;
  double mean = 0;
  for (int i = 0; i < n; i++)
    mean += ae->history[i] / n;
  /* a black scene: the largest gain; the exposure-gain property's range */
  const double want = mean > 0 ? std::clamp (target / mean, kMinExposure, kMaxExposure) :
      kMaxExposure;
  ae->gain += speed * (want - ae->gain);
}

GstStructure *
statistics_structure (const Gathered & g, const AwbStatus & awb)
{
  /* arrays made at their size, each value handed over rather than copied:
   * 16 us a message against 24 us with copies on the 2-core development
   * machine, on the streaming thread of every frame that posts one */
  GValue histogram = G_VALUE_INIT, zones = G_VALUE_INIT;
  gst_value_array_init (&histogram, kHistogramBins);
  for (guint64 n : g.histogram) {
    GValue v = G_VALUE_INIT;
    g_value_init (&v, G_TYPE_UINT64);
    g_value_set_uint64 (&v, n);
    gst_value_array_append_and_take_value (&histogram, &v);
  }
  gst_value_array_init (&zones, kZones);
  for (double mean : g.zones) {
    GValue v = G_VALUE_INIT;
    g_value_init (&v, G_TYPE_DOUBLE);
    g_value_set_double (&v, mean);
    gst_value_array_append_and_take_value (&zones, &v);
  }
  const double cells = (double) g.awb.sum[3];
  const double scale = cells > 0 ? cells * (g.awb_maxv - g.awb_black) : 1;
  GstStructure *s = gst_structure_new ("cldebayer-statistics",
      "frame", G_TYPE_UINT64, g.frame, "pts", G_TYPE_UINT64, (guint64) g.pts,
      "red-mean", G_TYPE_DOUBLE, g.awb.sum[0] / scale,
      "green-mean", G_TYPE_DOUBLE, g.awb.sum[1] / (2 * scale),
      "blue-mean", G_TYPE_DOUBLE, g.awb.sum[2] / scale,
      "cells", G_TYPE_UINT64, (guint64) g.awb.sum[3], "zone-mean", G_TYPE_DOUBLE, g.zone_mean,
      "red-gain", G_TYPE_DOUBLE, awb.gains[0], "green-gain", G_TYPE_DOUBLE, awb.gains[1],
      "blue-gain", G_TYPE_DOUBLE, awb.gains[2], nullptr);
  gst_structure_take_value (s, "histogram", &histogram);
  gst_structure_take_value (s, "zones", &zones);
  return s;
}

/* Bounded (gstclwatchdog.hpp): the reads under way end with the queue,
 * which throws gstcl::DeviceTimeout when a kernel ahead runs past its
 * kernel-timeout or the queue was abandoned, so that the buffers are never
 * dropped under a runaway kernel. */
void
Statistics::reset ()
{
  if (queue_ ()) {
    gstcl::finish (queue_, "the statistics");
    for (Set &set : sets_)
      if (set.host)
        queue_.enqueueUnmapMemObject (set.pinned, set.host);
    gstcl::finish (queue_, "the statistics");
  }
  for (Set &set : sets_)
    set = Set ();
  queue_ = cl::CommandQueue ();
}

Statistics::~Statistics ()
{
  try {
    reset ();
  } catch (const cl::Error &) {
  }
}

/* The sum of `count` counters from word `at` on, each a pair of words (low
 * 16 bits, bits above), `stride` words apart. */
static cl_ulong
pair_sum (const cl_uint * host, int at, int count, int stride)
{
  cl_ulong sum = 0;
  for (int i = 0; i < count; i++)
    sum += host[at + stride * i] + ((cl_ulong) host[at + stride * i + 1] << 16);
  return sum;
}

bool
Statistics::take (Gathered * out, int cells_x, int cells_y)
{
  Set *oldest = busy_end (false);
  if (!oldest || (oldest->reading () &&
          oldest->reading.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS> () != CL_COMPLETE))
    return false;
  oldest->reading = cl::Event ();
  oldest->busy = false;
  *out = oldest->tag;
  const cl_uint *host = oldest->host;
  for (int i = 0; i < 4; i++)
    out->awb.sum[i] = pair_sum (host, 2 * i, 64, 8);
  if (!out->sensor)
    return true;
  for (int b = 0; b < kHistogramBins; b++) {
    guint64 n = 0;
    for (int slot = 0; slot < kHistSlots; slot++)
      n += host[kAwbWords + kHistogramBins * slot + b];
    out->histogram[b] = n;
  }
  /* cells a zone column and row: cell c is in zone kZonesX c / cells_x */
  std::vector<int> in_x (kZonesX), in_y (kZonesY);
  for (int c = 0; c < cells_x; c++)
    in_x[kZonesX * c / cells_x]++;
  for (int c = 0; c < cells_y; c++)
    in_y[kZonesY * c / cells_y]++;
  const int at = kAwbWords + kHistogramBins * kHistSlots;
  double sum = 0;
  int zones = 0;
  for (int z = 0; z < kZones; z++) {
    const double cells = (double) in_x[z % kZonesX] * in_y[z / kZonesX];
    const double luma = (double) pair_sum (host, at + 2 * z, 1, 2) / 1048576.0;
    out->zones[z] = cells > 0 ? luma / cells : 0;
    if (cells > 0) {
      sum += out->zones[z];
      zones++;
    }
  }
  out->zone_mean = zones ? sum / zones : 0;
  return true;
}

Statistics::Set *
Statistics::busy_end (bool last)
{
  Set *end = nullptr;
  for (Set &set : sets_)
    if (set.busy && (!end || (last ? set.order > end->order : set.order < end->order)))
      end = &set;
  return end;
}

void
Statistics::wait_for (Set * set)
{
  if (set && set->reading ())
    gstcl::wait (queue_, set->reading, "the statistics");
}

bool
Statistics::idle () const
{
  for (const Set &set : sets_)
    if (set.busy)
      return false;
  return true;
}

int
Statistics::begin (GstClContext * ctx)
{
  const cl::CommandQueue &queue = gstcl::queue_of (ctx);
  if (!sets_[0].counters ()) {
    const cl::Context &context = gstcl::context_of (ctx);
    for (Set &set : sets_) {
      set.counters = cl::Buffer (context, CL_MEM_READ_WRITE, kBytes);
      set.pinned = cl::Buffer (context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, kBytes);
      cl::Event mapped;
      set.host = static_cast<cl_uint *> (queue.enqueueMapBuffer (set.pinned, CL_FALSE,
              CL_MAP_READ | CL_MAP_WRITE, 0, kBytes, nullptr, &mapped));
      gstcl::wait (queue, mapped, "the statistics' buffers");
    }
    queue_ = queue;
  }
  for (int i = 0; i < kSets; i++)
    if (!sets_[i].busy) {
      queue.enqueueFillBuffer (sets_[i].counters, (cl_uint) 0, 0, kBytes);
      return i;
    }
  return -1;
}

void
Statistics::end (int set, const Gathered & tag)
{
  Set &s = sets_[set];
  s.busy = true;
  s.order = next_order_++;
  s.tag = tag;
  queue_.enqueueReadBuffer (s.counters, CL_FALSE, 0, kBytes, s.host, nullptr, &s.reading);
}

}  // namespace cldebayer
