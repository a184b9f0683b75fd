/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU reference of clsobel (shared by test_sobel and test_sizes): luma of
 * every input format, 3x3 gradients, L1/L2, scale, threshold, 8/16-bit output. */
#pragma once

#include "cltest.h"

#include <cmath>
#include <vector>

namespace sobel_ref {

using namespace cltest;

struct Format {
  const char *name;
  int bpp;       /* 1: the first plane is luma (2: 16-bit luma) */
  int r, g, b;   /* sample indices in a pixel (byte offsets for 8 bits) */
  int sample = 1;  /* bytes per sample */
};

/* 16-bit input: luma from 16-bit samples, the same integer formula. */
inline const Format deep_formats[] = {
  {"GRAY16_LE", 2, 0, 0, 0, 2}, {"RGBA64_LE", 8, 0, 1, 2, 2},
};

inline const Format formats[] = {
  {"GRAY8", 1, 0, 0, 0}, {"RGB", 3, 0, 1, 2}, {"BGR", 3, 2, 1, 0},
  {"RGBA", 4, 0, 1, 2}, {"BGRA", 4, 2, 1, 0}, {"RGBx", 4, 0, 1, 2},
  {"BGRx", 4, 2, 1, 0}, {"ARGB", 4, 1, 2, 3}, {"ABGR", 4, 3, 2, 1},
  {"xRGB", 4, 1, 2, 3}, {"xBGR", 4, 3, 2, 1}, {"I420", 1, 0, 0, 0},
  {"NV12", 1, 0, 0, 0},
};

struct Params {
  int border = REPLICATE;
  int output = 0;        /* 0 magnitude, 1 dx, 2 dy */
  int norm = 0;          /* 0 l2, 1 l1 */
  double scale = 1.0;
  double threshold = 0.0;
  bool out16 = false;
};

inline std::vector<int>
luma_of (GstBuffer * buf, const GstVideoInfo * layout, const Format & f)
{
  const int w = GST_VIDEO_INFO_WIDTH (layout), h = GST_VIDEO_INFO_HEIGHT (layout);
  GstMapInfo map;
  gst_buffer_map (buf, &map, GST_MAP_READ);
  std::vector<int> l (w * h);
  for (int y = 0; y < h; y++) {
    const guint8 *row = map.data + GST_VIDEO_INFO_PLANE_OFFSET (layout, 0) +
        (gsize) y * GST_VIDEO_INFO_PLANE_STRIDE (layout, 0);
    for (int x = 0; x < w; x++) {
      const guint8 *p = row + x * f.bpp;
      auto at = [&] (int i) { return f.sample == 2 ? p[2 * i] | p[2 * i + 1] << 8 : p[i]; };
      l[y * w + x] = f.bpp == f.sample ? at (0) :
          (77 * at (f.r) + 150 * at (f.g) + 29 * at (f.b) + 128) >> 8;
    }
  }
  gst_buffer_unmap (buf, &map);
  return l;
}

/* Returns the expected output and, for each pixel, the unquantised value. */
inline std::vector<int>
sobel_reference (const std::vector<int> &l, int w, int h, const Params & p,
    std::vector<float> *scaled_out)
{
  auto at = [&] (int x, int y) {
    int bx = border_index (x, w, p.border), by = border_index (y, h, p.border);
    return (bx < 0 || by < 0) ? 0 : l[by * w + bx];
  };
  const float max = p.out16 ? 65535.0f : 255.0f;
  std::vector<int> out (w * h);
  scaled_out->resize (w * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int dx = at (x + 1, y - 1) + 2 * at (x + 1, y) + at (x + 1, y + 1) -
          at (x - 1, y - 1) - 2 * at (x - 1, y) - at (x - 1, y + 1);
      int dy = at (x - 1, y - 1) + 2 * at (x, y - 1) + at (x + 1, y - 1) -
          at (x - 1, y + 1) - 2 * at (x, y + 1) - at (x + 1, y + 1);
      float v;
      if (p.output == 1)
        v = (float) std::abs (dx);
      else if (p.output == 2)
        v = (float) std::abs (dy);
      else if (p.norm == 1)
        v = (float) (std::abs (dx) + std::abs (dy));
      else
        v = (float) std::sqrt ((double) dx * dx + (double) dy * dy);
      float s = (float) p.scale * v;
      (*scaled_out)[y * w + x] = s;
      int r;
      if (p.threshold > 0)
        r = s >= (float) p.threshold ? (int) max : 0;
      else
        r = (int) std::min (max, std::max (0.0f, std::nearbyint (s)));
      out[y * w + x] = r;
    }
  return out;
}

}  // namespace sobel_ref
