/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU reference of clconvolve and clfir (shared by test_convolve and
 * test_sizes): N x N kernels per channel, borders, normalize, bias, and the
 * comparison of an output frame (colour within 1, alpha and x bytes exact). */
#pragma once

#include "cltest.h"

#include <array>
#include <cmath>
#include <vector>

namespace convolve_ref {

using namespace cltest;

struct Format {
  const char *name;
  int bpp;           /* bytes per pixel (of the luma plane for NV12, I420) */
  int channels;      /* colour channels: 1 (grey, luma) or 3 */
  int off[3];        /* sample indices of R, G, B (grey: off[0]) */
  int alpha;         /* sample index of alpha or x, -1 = none */
  int sample = 1;    /* bytes per sample: 2 for 16-bit little-endian */

  int max () const { return sample == 2 ? 65535 : 255; }
};

inline const Format formats[] = {
  {"GRAY8", 1, 1, {0, 0, 0}, -1}, {"RGB", 3, 3, {0, 1, 2}, -1},
  {"BGR", 3, 3, {2, 1, 0}, -1}, {"RGBA", 4, 3, {0, 1, 2}, 3},
  {"BGRA", 4, 3, {2, 1, 0}, 3}, {"RGBx", 4, 3, {0, 1, 2}, 3},
  {"BGRx", 4, 3, {2, 1, 0}, 3}, {"ARGB", 4, 3, {1, 2, 3}, 0},
  {"ABGR", 4, 3, {3, 2, 1}, 0}, {"xRGB", 4, 3, {1, 2, 3}, 0},
  {"xBGR", 4, 3, {3, 2, 1}, 0},
};

/* 16-bit samples, and NV12 / I420: their luma plane filtered as grey, the
 * chroma planes copied. */
inline const Format deep_and_yuv_formats[] = {
  {"GRAY16_LE", 2, 1, {0, 0, 0}, -1, 2}, {"RGBA64_LE", 8, 3, {0, 1, 2}, 3, 2},
  {"NV12", 1, 1, {0, 0, 0}, -1}, {"I420", 1, 1, {0, 0, 0}, -1},
};

/* ---------------------------------------------------------------- reference */

/* An N x N kernel, with its factors when the test built it as rank 1;
 * n = 0: none. */
struct Kernel {
  int n = 0;
  std::vector<double> k;
  std::vector<double> row, col;   /* k[i][j] = col[i] * row[j] when not empty */
};

/* What one frame is convolved with. */
struct Conv {
  Kernel main {1, {1.0}, {}, {}};    /* the default: identity */
  std::array<Kernel, 3> overrides;   /* n = 0: none */
  bool normalize = true;
  double bias = 0.0;
  int border = REPLICATE;

  const Kernel &for_channel (int c, const Format & f) const
  {
    return f.channels == 1 || overrides[c].n == 0 ? main : overrides[c];
  }
};

/* Index of every coordinate from -r to size - 1 + r (at [i + r]); -1 = 0. */
inline std::vector<int>
border_map (int size, int r, int border)
{
  std::vector<int> m (size + 2 * r);
  for (int i = -r; i < size + r; i++)
    m[i + r] = border_index (i, size, border);
  return m;
}

/* One channel: saturate (rint (sum (k * p) / divisor + bias)), in double. */
inline std::vector<int>
reference_channel (const std::vector<int> &plane, int w, int h, const Kernel & kern,
    const Conv & conv, int max = 255)
{
  const int n = kern.n, r = n / 2;
  double sum = 0, magnitude = 0;
  for (double v : kern.k) {
    sum += v;
    magnitude += std::fabs (v);
  }
  const double divisor = conv.normalize && std::fabs (sum) > 1e-9 * magnitude ? sum : 1.0;
  const std::vector<int> xs = border_map (w, r, conv.border);
  const std::vector<int> ys = border_map (h, r, conv.border);
  auto px = [&] (int bx, int by) { return bx < 0 || by < 0 ? 0 : plane[by * w + bx]; };

  std::vector<double> acc (w * h, 0.0);
  if (!kern.row.empty ()) {
    /* Rank 1: rows then columns, the same sum in exact arithmetic. */
    std::vector<double> tmp (w * h, 0.0);
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        for (int j = 0; j < n; j++)
          tmp[y * w + x] += kern.row[j] * px (xs[x + j], y);
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        for (int i = 0; i < n; i++)
          if (ys[y + i] >= 0)
            acc[y * w + x] += kern.col[i] * tmp[ys[y + i] * w + x];
  } else {
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        double s = 0;
        for (int i = 0; i < n; i++) {
          const int by = ys[y + i];
          if (by < 0)
            continue;
          const double *krow = &kern.k[i * n];
          const int *xrow = &xs[x];
          for (int j = 0; j < n; j++)
            s += krow[j] * px (xrow[j], by);
        }
        acc[y * w + x] = s;
      }
  }
  std::vector<int> out (w * h);
  for (int i = 0; i < w * h; i++)
    out[i] = (int) std::min ((double) max, std::max (0.0,
            std::nearbyint (acc[i] / divisor + conv.bias)));
  return out;
}

/* Compares `out` (format f) with the reference of `in` (with its `layout`). */
inline void
check_output (GstBuffer * in, const GstVideoInfo * layout, GstBuffer * out,
    const GstVideoInfo * out_info, const Format & f, const Conv & conv, const char *what)
{
  const int w = GST_VIDEO_INFO_WIDTH (layout), h = GST_VIDEO_INFO_HEIGHT (layout);
  GstMapInfo map;
  fail_unless (gst_buffer_map (in, &map, GST_MAP_READ));
  /* Sample i of a pixel, 8- or 16-bit little-endian. */
  auto sample = [&f] (const guint8 * p, int i) {
    return f.sample == 2 ? p[2 * i] | p[2 * i + 1] << 8 : (int) p[i];
  };
  auto in_at = [&] (int x, int y, int i) {
    return sample (map.data + GST_VIDEO_INFO_PLANE_OFFSET (layout, 0) +
        (gsize) y * GST_VIDEO_INFO_PLANE_STRIDE (layout, 0) + x * f.bpp, i);
  };
  std::array<std::vector<int>, 3> want;
  for (int c = 0; c < f.channels; c++) {
    std::vector<int> plane (w * h);
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        plane[y * w + x] = in_at (x, y, f.off[c]);
    want[c] = reference_channel (plane, w, h, conv.for_channel (c, f), conv, f.max ());
  }

  GstVideoFrame frame;
  fail_unless (gst_video_frame_map (&frame, out_info, out, GST_MAP_READ));
  int bad = 0, worst = 0;
  for (int y = 0; y < h; y++) {
    const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    for (int x = 0; x < w; x++) {
      for (int c = 0; c < f.channels; c++) {
        const int got = sample (row + x * f.bpp, f.off[c]), expect = want[c][y * w + x];
        const int diff = std::abs (got - expect);
        worst = std::max (worst, diff);
        if (diff > 1 && bad++ < 3)
          GST_ERROR ("%s: %s %dx%d (%d,%d) channel %d: got %d want %d", what, f.name, w,
              h, x, y, c, got, expect);
      }
      if (f.alpha >= 0 && sample (row + x * f.bpp, f.alpha) != in_at (x, y, f.alpha) &&
          bad++ < 3)
        GST_ERROR ("%s: %s (%d,%d) alpha changed", what, f.name, x, y);
    }
  }
  /* Planes after the first (the chroma of NV12, I420) as they came in. */
  for (guint p = 1; p < GST_VIDEO_INFO_N_PLANES (layout); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component (layout->finfo, p, comp);
    const int bytes = GST_VIDEO_INFO_COMP_WIDTH (layout, comp[0]) *
        GST_VIDEO_INFO_COMP_PSTRIDE (layout, comp[0]);
    for (int y = 0; y < GST_VIDEO_INFO_COMP_HEIGHT (layout, comp[0]); y++)
      if (memcmp (map.data + GST_VIDEO_INFO_PLANE_OFFSET (layout, p) +
              (gsize) y * GST_VIDEO_INFO_PLANE_STRIDE (layout, p),
              (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, p) +
              (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p), bytes) != 0 && bad++ < 3)
        GST_ERROR ("%s: %s plane %u row %d changed", what, f.name, p, y);
  }
  gst_video_frame_unmap (&frame);
  gst_buffer_unmap (in, &map);
  fail_unless (bad == 0, "%s: %s %dx%d N=%d border %s normalize %d bias %g: %d bytes "
      "wrong, worst by %d", what, f.name, w, h, conv.main.n, border_name (conv.border),
      conv.normalize, conv.bias, bad, worst);
}

}  // namespace convolve_ref
