/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU model of the picture stages' sharpen and 3D LUT (clpicture, and
 * cldebayer after its camera kernel), in double precision, on mapped
 * frames: the formulas, written from docs/clpicture.md, not from
 * the kernel. Y' = 0.2126 R' + 0.7152 G' + 0.0722 B' for RGB and grey
 * output; the Y plane (as 0..1 of its range) for NV12/I420. */
#pragma once

#include "gstclcube.hpp"

#include <gst/opencl/gstclcolor.hpp>
#include <gst/video/video.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace refpicture {

struct Params {
  double amount = 0, sigma = 1, threshold = 0;
  const clpicture::Cube *lut = nullptr;
  clpicture::Interpolation interpolation = clpicture::INTERP_TRILINEAR;
  double strength = 1;
};

inline double
sample (const GstVideoFrame * f, int comp, int x, int y)
{
  const guint8 *p = (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (f, comp) +
      y * GST_VIDEO_FRAME_COMP_STRIDE (f, comp) + x * GST_VIDEO_FRAME_COMP_PSTRIDE (f, comp);
  return GST_VIDEO_FRAME_COMP_DEPTH (f, comp) > 8 ? (double) (p[0] | (p[1] << 8)) : p[0];
}

/* The Gaussian's weights of offsets -r..r, normalised (r = ceil (3 sigma)). */
inline std::vector<double>
gaussian (double sigma)
{
  const int r = (int) std::ceil (3 * sigma);
  std::vector<double> w (2 * r + 1);
  double sum = 0;
  for (int i = -r; i <= r; i++)
    sum += w[i + r] = std::exp (-i * i / (2 * sigma * sigma));
  for (double &v : w)
    v /= sum;
  return w;
}

/* The expected output samples, by component, in the frame's component
 * order (width x height for full-size components, the chroma planes'
 * sizes for 4:2:0), from the input frame. */
inline std::vector<std::vector<double>>
expected (const GstVideoFrame * in, const Params & p)
{
  const GstVideoInfo *info = &in->info;
  const int w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  const bool yuv = GST_VIDEO_INFO_IS_YUV (info), grey = GST_VIDEO_INFO_IS_GRAY (info);
  const double maxv = (1 << GST_VIDEO_INFO_COMP_DEPTH (info, 0)) - 1;
  const cl_float8 k = gstcl::yuv_coefficients (info);
  const double kr = yuv ? k.s[0] : 0.2126, kb = yuv ? k.s[1] : 0.0722;
  /* Y' and R'G'B' per pixel */
  std::vector<double> luma ((size_t) w * h);
  std::vector<std::array<double, 3>> rgb ((size_t) w * h), ycc ((size_t) w * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const size_t i = (size_t) y * w + x;
      if (yuv) {
        const double yy = (sample (in, 0, x, y) - k.s[2]) / k.s[3];
        const double cb = (sample (in, 1, x / 2, y / 2) - 128) / k.s[4];
        const double cr = (sample (in, 2, x / 2, y / 2) - 128) / k.s[4];
        ycc[i] = { yy, cb, cr };
        luma[i] = yy;
      } else if (grey) {
        luma[i] = sample (in, 0, x, y) / maxv;
      } else {
        for (int c = 0; c < 3; c++)
          rgb[i][c] = sample (in, c, x, y) / maxv;
        luma[i] = 0.2126 * rgb[i][0] + 0.7152 * rgb[i][1] + 0.0722 * rgb[i][2];
      }
    }
  /* sharpen */
  std::vector<double> sharp = luma;
  if (p.amount > 0) {
    const std::vector<double> g = gaussian (p.sigma);
    const int r = (int) g.size () / 2;
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        double blur = 0;
        for (int j = -r; j <= r; j++)
          for (int i = -r; i <= r; i++)
            blur += g[j + r] * g[i + r] * luma[(size_t) std::clamp (y + j, 0, h - 1) * w +
                std::clamp (x + i, 0, w - 1)];
        const double d = luma[(size_t) y * w + x] - blur;
        if (std::fabs (d) >= p.threshold)
          sharp[(size_t) y * w + x] += p.amount * d;
      }
  }
  auto look = [&] (std::array<double, 3> c) {
    if (!p.lut || p.strength <= 0)
      return c;
    const std::array<double, 3> l = clpicture::cube_apply (*p.lut, c, p.interpolation);
    for (int i = 0; i < 3; i++)
      c[i] += p.strength * (l[i] - c[i]);
    return c;
  };
  auto clip = [] (double v) { return std::clamp (v, 0.0, 1.0); };
  std::vector<std::vector<double>> out (GST_VIDEO_INFO_N_COMPONENTS (info));
  if (grey) {
    for (size_t i = 0; i < luma.size (); i++) {
      const std::array<double, 3> c = look ({ clip (sharp[i]), clip (sharp[i]), clip (sharp[i]) });
      out[0].push_back ((0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]) * maxv);
    }
  } else if (!yuv) {
    for (size_t i = 0; i < luma.size (); i++) {
      std::array<double, 3> c;
      for (int ch = 0; ch < 3; ch++)
        c[ch] = clip (rgb[i][ch] + sharp[i] - luma[i]);
      c = look (c);
      for (int ch = 0; ch < 3; ch++)
        out[ch].push_back (c[ch] * maxv);
      if (out.size () == 4)   /* alpha (or padding) unchanged */
        out[3].push_back (sample (in, 3, (int) (i % w), (int) (i / w)));
    }
  } else {
    const int cw = (w + 1) / 2, ch = (h + 1) / 2;
    out[0].assign ((size_t) w * h, 0);
    out[1].assign ((size_t) cw * ch, 0);
    out[2].assign ((size_t) cw * ch, 0);
    std::vector<int> count ((size_t) cw * ch, 0);
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        const size_t i = (size_t) y * w + x, ci = (size_t) (y / 2) * cw + x / 2;
        std::array<double, 3> v = { sharp[i], ycc[i][1], ycc[i][2] };
        if (p.lut && p.strength > 0) {
          const double r = v[0] + 2 * (1 - kr) * v[2], b = v[0] + 2 * (1 - kb) * v[1];
          const double g = (v[0] - kr * r - kb * b) / (1 - kr - kb);
          const std::array<double, 3> c = look ({ clip (r), clip (g), clip (b) });
          const double yy = kr * c[0] + (1 - kr - kb) * c[1] + kb * c[2];
          v = { yy, (c[2] - yy) * 0.5 / (1 - kb), (c[0] - yy) * 0.5 / (1 - kr) };
        }
        out[0][i] = k.s[2] + k.s[3] * v[0];
        out[1][ci] += v[1];
        out[2][ci] += v[2];
        count[ci]++;
      }
    for (size_t ci = 0; ci < count.size (); ci++)
      for (int c = 1; c < 3; c++)
        out[c][ci] = 128 + k.s[4] * out[c][ci] / count[ci];
  }
  return out;
}

}  // namespace refpicture
