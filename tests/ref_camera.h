/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU model of cldebayer's camera stages, in double precision and in the
 * order of docs/cldebayer.md: black level and white balance on the raw
 * samples, the demosaic without rounding (the 5x5 tables of ref_debayer.h),
 * colour matrix with saturation, clip, transfer curve, then the output
 * format (RGB family rounded; NV12 / I420 as Y'CbCr with 2x2 chroma means,
 * the last column and row repeated at odd sizes). Written from the formulas,
 * independent of the kernel. */
#pragma once

#include "ref_debayer.h"

#include <array>
#include <cstdio>
#include <cmath>
#include <string>
#include <vector>

namespace camera_ref {

using namespace debayer_ref;

enum Transfer { LINEAR = 0, SRGB = 1, BT709 = 2, GAMMA = 3 };

/* A lens-shading grid: gains of R, Gr (the green of red rows), Gb, B at
 * `columns` x `rows` points spread evenly from the first pixel to the last. */
struct Shading {
  int columns = 0, rows = 0;
  std::array<std::vector<double>, 4> gains;

  /* The bilinear gain of channel c at pixel (x, y) of a w x h frame. */
  double at (int c, int x, int y, int w, int h) const
  {
    const double gx = (double) x * (columns - 1) / (w - 1), gy = (double) y * (rows - 1) / (h - 1);
    const int i = std::min ((int) gx, columns - 2), j = std::min ((int) gy, rows - 2);
    const double fx = gx - i, fy = gy - j;
    auto g = [&] (int a, int b) { return gains[c][(size_t) b * columns + a]; };
    return (g (i, j) * (1 - fx) + g (i + 1, j) * fx) * (1 - fy) +
        (g (i, j + 1) * (1 - fx) + g (i + 1, j + 1) * fx) * fy;
  }
  /* The file cldebayer reads (docs/camera.md). */
  std::string text () const
  {
    std::string t = "lens-shading " + std::to_string (columns) + " " + std::to_string (rows) +
        "\n";
    char number[32];
    for (int c = 0; c < 4; c++)
      for (int j = 0; j < rows; j++) {
        for (int i = 0; i < columns; i++) {
          snprintf (number, sizeof number, "%.9g ", gains[c][(size_t) j * columns + i]);
          t += number;
        }
        t += "\n";
      }
    return t;
  }
};

/* A vignetting: gains rising from `centre` at the middle to `corner` at
 * the corners (times a tint per channel), on a columns x rows grid. */
inline Shading
vignetting (int columns, int rows, double corner, const std::array<double, 4> &tint)
{
  Shading sh;
  sh.columns = columns;
  sh.rows = rows;
  for (int c = 0; c < 4; c++)
    for (int j = 0; j < rows; j++)
      for (int i = 0; i < columns; i++) {
        const double dx = 2.0 * i / (columns - 1) - 1, dy = 2.0 * j / (rows - 1) - 1;
        sh.gains[c].push_back ((1 + (corner - 1) * (dx * dx + dy * dy) / 2) * tint[c]);
      }
  return sh;
}

struct Stages {
  int black = 0;
  bool defect = false;
  double defect_threshold = 0.1;
  Shading shading;
  double shading_strength = 1;
  double exposure = 1;
  /* denoise strength (0: off): the raw samples through denoised_mosaic
   * first */
  double denoise = 0;
  /* The corrected samples rounded to steps of 1 / quantize, as cldebayer
   * carries them from its sensor pass to the demosaic (16-bit words). */
  double quantize = 0;
  std::array<double, 3> gains { 1, 1, 1 };   /* in force (manual or auto) */
  std::array<double, 9> matrix { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
  double saturation = 1;
  Transfer transfer = LINEAR;
  double gamma = 2.2;
};

typedef std::array<double, 3> RgbF;

/* The channel of the sample at (x, y): 0 R, 1 G of a red row, 2 G of a
 * blue row, 3 B. */
inline int
channel_at (const Mosaic & m, int x, int y)
{
  const char c = colour_at (m, x, y);
  if (c != 'g')
    return c == 'r' ? 0 : 3;
  return colour_at (m, x ^ 1, y) == 'r' ? 1 : 2;
}

/* The samples after black level, defect correction and lens shading, in
 * [0, 1] of full scale. */
inline std::vector<double>
sensor_samples (const Mosaic & m, const Stages & st)
{
  const int maxv = m.maxv (), range = maxv - st.black;
  auto level = [&] (int x, int y) {
    return std::max (std::min (m.at (border_index (x, m.w, REFLECT),
                border_index (y, m.h, REFLECT)), maxv) - st.black, 0);
  };
  std::vector<double> out ((size_t) m.w * m.h);
  for (int y = 0; y < m.h; y++)
    for (int x = 0; x < m.w; x++) {
      double v = level (x, y);
      if (st.defect) {
        /* mirrored beyond the frame, but a neighbour that lands on the
         * sample itself comes from the other side */
        auto side = [] (int i, int d, int n) {
          return border_index (i + d, n, REFLECT) == i ? i - d : i + d;
        };
        int hi = -1, lo = 1 << 30;
        for (int dy = -2; dy <= 2; dy += 2)
          for (int dx = -2; dx <= 2; dx += 2)
            if (dx || dy) {
              const int nx = dx ? side (x, dx, m.w) : x, ny = dy ? side (y, dy, m.h) : y;
              hi = std::max (hi, level (nx, ny));
              lo = std::min (lo, level (nx, ny));
            }
        const double t = st.defect_threshold * range;
        if (v - hi > t)
          v = hi;
        else if (lo - v > t)
          v = lo;
      }
      v /= range;
      if (st.shading.columns)
        v = std::min (v * (1 + st.shading_strength * (st.shading.at (channel_at (m, x, y), x, y,
                        m.w, m.h) - 1)), 1.0);
      if (st.quantize > 0)
        v = std::nearbyint (v * st.quantize) / st.quantize;
      out[(size_t) y * m.w + x] = v;
    }
  return out;
}

/* cldebayer's denoise (docs/cldebayer.md, "Denoise") of the samples of `m`
 * above black level `black` at strength `strength`: non-local means over 2
 * x 2 cells (5 x 5 cells searched, 3 x 3-cell patches of the variance-
 * stabilised samples), as 16-bit words of full scale 2^bits - 1 and black
 * level 0. */
inline Mosaic
denoised_mosaic (const Mosaic & m, int black, double strength, int bits)
{
  const int cw = (m.w + 1) / 2, ch = (m.h + 1) / 2, maxv = m.maxv ();
  const double sigma = 0.04 * strength, ustep = 2 / (sigma * std::sqrt (1.8)), h2 = 1.3;
  /* cells beyond the frame mirror (reflect-101); a sample beyond an odd
   * size is its colour's two before */
  auto mirror = [] (int i, int n) { return border_index (i, n, REFLECT); };
  std::vector<std::array<double, 4>> x ((size_t) cw * ch), u ((size_t) cw * ch);
  for (int cy = 0; cy < ch; cy++)
    for (int cx = 0; cx < cw; cx++)
      for (int k = 0; k < 4; k++) {
        int px = 2 * cx + (k & 1), py = 2 * cy + (k >> 1);
        px = px < m.w ? px : px - 2;
        py = py < m.h ? py : py - 2;
        const double v = (double) (std::min (m.at (px, py), maxv) - black) / (maxv - black);
        x[(size_t) cy * cw + cx][k] = v;
        u[(size_t) cy * cw + cx][k] = std::sqrt (std::max (v + 1.0 / 18, 0.0)) * ustep;
      }
  auto cell = [&] (const std::vector<std::array<double, 4>> &plane, int cx, int cy) {
    return plane[(size_t) mirror (cy, ch) * cw + mirror (cx, cw)];
  };
  Mosaic out = blank_mosaic (m.w, m.h, m.pattern, bits);
  const double wmax = out.maxv ();
  for (int cy = 0; cy < ch; cy++)
    for (int cx = 0; cx < cw; cx++) {
      double sum[4] = { 0, 0, 0, 0 }, weights = 0;
      for (int dy = -2; dy <= 2; dy++)
        for (int dx = -2; dx <= 2; dx++) {
          double d = 0;
          for (int j = -1; j <= 1; j++)
            for (int i = -1; i <= 1; i++)
              for (int k = 0; k < 4; k++) {
                const double e = cell (u, cx + i, cy + j)[k] - cell (u, cx + dx + i, cy + dy + j)[k];
                d += e * e;
              }
          const double t = std::max (d / 36 - 2, 0.0) / h2;
          const double w = std::pow (std::max (1 - t / 8, 0.0), 8);
          for (int k = 0; k < 4; k++)
            sum[k] += w * cell (x, cx + dx, cy + dy)[k];
          weights += w;
        }
      for (int k = 0; k < 4; k++) {
        const int px = 2 * cx + (k & 1), py = 2 * cy + (k >> 1);
        if (px < m.w && py < m.h)
          out.v[(size_t) py * m.w + px] = (int) std::clamp (std::floor (sum[k] / weights * wmax +
                  0.5), 0.0, wmax);
      }
    }
  return out;
}

/* Linear RGB in [0, maxv] after black level, defects, lens shading, white
 * balance, exposure and the demosaic (no rounding). */
inline std::vector<RgbF>
demosaic_float (const Mosaic & m, Method method, const Stages & st)
{
  const int maxv = m.maxv ();
  const std::vector<double> sensor = sensor_samples (m, st);
  std::vector<double> raw ((size_t) m.w * m.h);
  for (int y = 0; y < m.h; y++)
    for (int x = 0; x < m.w; x++) {
      const char c = colour_at (m, x, y);
      const double gain = st.gains[c == 'r' ? 0 : c == 'g' ? 1 : 2];
      const double v = std::min (sensor[(size_t) y * m.w + x] * gain, 1.0);
      raw[(size_t) y * m.w + x] = std::min (v * st.exposure, 1.0) * maxv;
    }
  auto sample = [&] (int x, int y) {
    return raw[(size_t) border_index (y, m.h, REFLECT) * m.w + border_index (x, m.w, REFLECT)];
  };
  auto apply = [&] (const int (&k)[5][5], int x, int y) {
    double sum = 0;
    int weights = 0;
    for (int j = 0; j < 5; j++)
      for (int i = 0; i < 5; i++) {
        sum += k[j][i] * sample (x + i - 2, y + j - 2);
        weights += k[j][i];
      }
    return std::clamp (sum / weights, 0.0, (double) maxv);
  };
  return demosaic_with (m, method, sample, apply);
}

inline double
transfer (double x, const Stages & st)
{
  switch (st.transfer) {
    case SRGB: return x <= 0.0031308 ? 12.92 * x : 1.055 * std::pow (x, 1 / 2.4) - 0.055;
    case BT709: return x < 0.018 ? 4.5 * x : 1.099 * std::pow (x, 0.45) - 0.099;
    case GAMMA: return std::pow (x, 1 / st.gamma);
    default: return x;
  }
}

/* Stages 4 and 5 on demosaiced linear RGB in [0, maxv] of `m`: the output
 * R'G'B' in [0, 1] of every pixel. */
inline std::vector<RgbF>
camera_finish (std::vector<RgbF> px, const Mosaic & m, const Stages & st)
{
  static const double luma[3] = { 0.2126, 0.7152, 0.0722 };
  const double s = st.saturation;
  for (RgbF &p : px) {
    double lin[3], mixed[3];
    for (int c = 0; c < 3; c++)
      lin[c] = st.matrix[3 * c] * p[0] / m.maxv () + st.matrix[3 * c + 1] * p[1] / m.maxv () +
          st.matrix[3 * c + 2] * p[2] / m.maxv ();
    const double grey = luma[0] * lin[0] + luma[1] * lin[1] + luma[2] * lin[2];
    for (int c = 0; c < 3; c++)
      mixed[c] = s * lin[c] + (1 - s) * grey;
    for (int c = 0; c < 3; c++)
      p[c] = transfer (std::clamp (mixed[c], 0.0, 1.0), st);
  }
  return px;
}

/* The output R'G'B' in [0, 1] of every pixel. */
inline std::vector<RgbF>
camera_reference (const Mosaic & m, Method method, const Stages & st)
{
  return camera_finish (demosaic_float (m, method, st), m, st);
}

inline int
round_half_up (double v)
{
  return (int) std::floor (v + 0.5);
}

/* Compares an RGB-family output with the model: at most 1 per channel. */
inline void
compare_rgb (GstBuffer * out, GstCaps * caps, const Mosaic & m, const std::vector<RgbF> &ref,
    const OutFormat & f, const std::string &what, int tolerance = 1)
{
  GstVideoInfo info;
  fail_unless (gst_video_info_from_caps (&info, caps));
  fail_unless_equals_string (gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&info)),
      f.name);
  GstVideoFrame frame;
  fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
  const int out_max = f.wide ? 65535 : 255;
  int bad = 0, worst = 0;
  for (int y = 0; y < m.h; y++) {
    const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    for (int x = 0; x < m.w; x++) {
      auto wanted = [&] (const RgbF & p) {
        const int r = round_half_up (p[0] * out_max), g = round_half_up (p[1] * out_max),
            b = round_half_up (p[2] * out_max);
        std::vector<int> want (f.channels, out_max);
        if (f.channels == 1) {
          want[0] = (77 * r + 150 * g + 29 * b + 128) >> 8;
        } else {
          want[f.r] = r;
          want[f.g] = g;
          want[f.b] = b;
        }
        return want;
      };
      const std::vector<int> want = wanted (ref[(size_t) y * m.w + x]);
      for (int c = 0; c < f.channels; c++) {
        const int got = f.wide ? ((const guint16 *) row)[x * 4 + c] : row[x * f.channels + c];
        const int diff = std::abs (got - want[c]);
        /* alpha and padding exactly opaque */
        const int allowed = f.channels == 4 && c == f.a ? 0 : tolerance;
        if (diff > allowed && bad++ < 3)
          GST_ERROR ("%s: (%d,%d) channel %d got %d want %d", what.c_str (), x, y, c, got,
              want[c]);
        worst = std::max (worst, diff);
      }
    }
  }
  gst_video_frame_unmap (&frame);
  fail_unless (bad == 0, "%s: %d channels off by more than %d, worst by %d", what.c_str (),
      bad, tolerance, worst);
}

/* Compares an NV12 / I420 output with the formulas of its colorimetry:
 * Y within 1, Cb / Cr within 2. */
inline void
compare_yuv (GstBuffer * out, GstCaps * caps, const Mosaic & m, const std::vector<RgbF> &ref,
    const std::string &what)
{
  GstVideoInfo info;
  fail_unless (gst_video_info_from_caps (&info, caps));
  gdouble kr, kb;
  fail_unless (gst_video_color_matrix_get_Kr_Kb (info.colorimetry.matrix, &kr, &kb));
  const bool full = info.colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255;
  const double y_off = full ? 0 : 16, y_scale = full ? 255 : 219, c_scale = full ? 255 : 224;
  auto at = [&] (int x, int y) {   /* the last column and row repeated */
    return ref[(size_t) std::min (y, m.h - 1) * m.w + std::min (x, m.w - 1)];
  };
  auto luma = [&] (const RgbF & p) { return kr * p[0] + (1 - kr - kb) * p[1] + kb * p[2]; };
  GstVideoFrame frame;
  fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
  const bool nv12 = GST_VIDEO_INFO_FORMAT (&info) == GST_VIDEO_FORMAT_NV12;
  int bad = 0, worst_y = 0, worst_c = 0;
  for (int y = 0; y < m.h; y++)
    for (int x = 0; x < m.w; x++) {
      const guint8 *plane = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0);
      const int got = plane[(gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0) + x];
      const int want = round_half_up (y_off + y_scale * luma (at (x, y)));
      worst_y = std::max (worst_y, std::abs (got - want));
      if (std::abs (got - want) > 1 && bad++ < 3)
        GST_ERROR ("%s: Y (%d,%d) got %d want %d", what.c_str (), x, y, got, want);
    }
  for (int cy = 0; cy < (m.h + 1) / 2; cy++)
    for (int cx = 0; cx < (m.w + 1) / 2; cx++) {
      double cb = 0, cr = 0;
      for (int dy = 0; dy < 2; dy++)
        for (int dx = 0; dx < 2; dx++) {
          const RgbF &p = at (2 * cx + dx, 2 * cy + dy);
          const double l = luma (p);
          cb += (p[2] - l) / (2 * (1 - kb)) / 4;
          cr += (p[0] - l) / (2 * (1 - kr)) / 4;
        }
      const int want[2] = { round_half_up (128 + c_scale * cb), round_half_up (128 + c_scale * cr) };
      for (int c = 0; c < 2; c++) {
        int got;
        if (nv12) {
          got = ((const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 1))[(gsize) cy *
              GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 1) + 2 * cx + c];
        } else {
          got = ((const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 1 + c))[(gsize) cy *
              GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 1 + c) + cx];
        }
        worst_c = std::max (worst_c, std::abs (got - want[c]));
        if (std::abs (got - want[c]) > 2 && bad++ < 6)
          GST_ERROR ("%s: %s (%d,%d) got %d want %d", what.c_str (), c ? "Cr" : "Cb", cx, cy,
              got, want[c]);
      }
    }
  gst_video_frame_unmap (&frame);
  fail_unless (bad == 0, "%s: %d samples off (worst Y %d, C %d)", what.c_str (), bad, worst_y,
      worst_c);
}

}  // namespace camera_ref

namespace camera_ref {

/* The 3A statistics of `m` (sensor.cl's definition): per 2 x 2 cell at
 * even (x, y) inside the frame, the luma 0.2126 R + 0.7152 G + 0.0722 B
 * after the sensor stages and white balance (each sample clipped at 1, G
 * the mean of the two greens); its 64-bin histogram and its means over
 * 16 x 12 zones. `near_edge` counts cells whose luma lies within 1e-5 of a
 * bin's edge (float and double may bin those apart). */
struct Statistics3A {
  std::array<long, 64> histogram {};
  std::array<double, 192> zones {};
  long near_edge = 0;
  double zone_mean = 0;
};

inline Statistics3A
statistics_3a (const Mosaic & m, const Stages & st)
{
  const std::vector<double> v = sensor_samples (m, st);
  Statistics3A s;
  const int cw = m.w / 2, ch = m.h / 2;
  std::array<double, 192> sum {};
  std::array<long, 192> count {};
  for (int cy = 0; cy < ch; cy++)
    for (int cx = 0; cx < cw; cx++) {
      double c[4] = { 0, 0, 0, 0 };
      for (int dy = 0; dy < 2; dy++)
        for (int dx = 0; dx < 2; dx++) {
          const int x = 2 * cx + dx, y = 2 * cy + dy, k = channel_at (m, x, y);
          const double gain = st.gains[k == 0 ? 0 : k == 3 ? 2 : 1];
          c[k] = std::min (v[(size_t) y * m.w + x] * gain, 1.0);
        }
      const double luma = 0.2126 * c[0] + 0.7152 * (c[1] + c[2]) / 2 + 0.0722 * c[3];
      const double bins = luma * 64;
      if (std::fabs (bins - std::round (bins)) < 1e-5 * 64 && std::round (bins) > 0 &&
          std::round (bins) < 64)
        s.near_edge++;
      s.histogram[std::min ((int) bins, 63)]++;
      const int z = (12 * cy / ch) * 16 + 16 * cx / cw;
      sum[z] += luma;
      count[z]++;
    }
  int zones = 0;
  for (int z = 0; z < 192; z++)
    if (count[z]) {
      s.zones[z] = sum[z] / count[z];
      s.zone_mean += s.zones[z];
      zones++;
    }
  s.zone_mean = zones ? s.zone_mean / zones : 0;
  return s;
}

}  // namespace camera_ref
