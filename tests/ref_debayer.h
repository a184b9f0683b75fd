/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU reference of cldebayer (shared by test_debayer and test_sizes): 5x5
 * coefficient tables of Malvar-He-Cutler and bilinear, reflect-101 borders,
 * output scaling, and the comparison of an output frame (bit-exact). */
#pragma once

#include "cltest.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace debayer_ref {

using namespace cltest;

inline const char *const patterns[] = { "bggr", "gbrg", "grbg", "rggb" };
inline const int depths[] = { 8, 10, 12, 14, 16 };
enum Method { MALVAR = 0, BILINEAR = 1 };

struct OutFormat {
  const char *name;
  int channels;      /* per pixel */
  bool wide;         /* 16-bit channels */
  int r, g, b, a;    /* positions in channels; a = -1: none */
};

inline const OutFormat out_formats[] = {
  {"RGBA", 4, false, 0, 1, 2, 3}, {"BGRA", 4, false, 2, 1, 0, 3},
  {"RGBx", 4, false, 0, 1, 2, 3}, {"BGRx", 4, false, 2, 1, 0, 3},
  {"ARGB", 4, false, 1, 2, 3, 0}, {"ABGR", 4, false, 3, 2, 1, 0},
  {"xRGB", 4, false, 1, 2, 3, 0}, {"xBGR", 4, false, 3, 2, 1, 0},
  {"RGB", 3, false, 0, 1, 2, -1}, {"BGR", 3, false, 2, 1, 0, -1},
  {"GRAY8", 1, false, 0, 0, 0, -1}, {"RGBA64_LE", 4, true, 0, 1, 2, 3},
};
inline const OutFormat &RGBA = out_formats[0];
inline const OutFormat &BGRx = out_formats[3];
inline const OutFormat &RGB = out_formats[8];
inline const OutFormat &BGR = out_formats[9];
inline const OutFormat &GRAY8 = out_formats[10];
inline const OutFormat &RGBA64 = out_formats[11];

/* A Bayer frame: samples row by row, its pattern and depth. */
struct Mosaic {
  int w = 0, h = 0, pattern = 3, bits = 8;
  std::vector<int> v;
  int maxv () const { return (1 << bits) - 1; }
  int at (int x, int y) const { return v[(size_t) y * w + x]; }
  std::string format () const
  {
    return std::string (patterns[pattern]) + (bits > 8 ? std::to_string (bits) + "le" : "");
  }
  std::string caps () const
  {
    return "video/x-bayer,format=" + format () + ",width=" + std::to_string (w) +
        ",height=" + std::to_string (h) + ",framerate=30/1";
  }
};

/* Random samples in [0, 2^bits - 1], with extra 0 and maximum values to reach
 * the clamps; for 16-bit words 1 in 50 samples also has bits above the depth
 * set (they are clamped to the maximum). */
/* A w x h frame of zeros. */
inline Mosaic
blank_mosaic (int w, int h, int pattern, int bits)
{
  Mosaic m;
  m.w = w;
  m.h = h;
  m.pattern = pattern;
  m.bits = bits;
  m.v.resize ((size_t) w * h);
  return m;
}

inline Mosaic
random_mosaic (int w, int h, int pattern, int bits, uint32_t seed)
{
  Mosaic m = blank_mosaic (w, h, pattern, bits);
  std::mt19937 rng (seed);
  for (auto &s : m.v) {
    uint32_t r = rng ();
    switch (r % 50) {
      case 0: s = 0; break;
      case 1: case 2: s = m.maxv (); break;
      case 3: s = bits > 8 ? (int) (r >> 16) : m.maxv (); break;
      default: s = (int) ((r >> 8) % (uint32_t) (m.maxv () + 1));
    }
  }
  return m;
}

/* The frame as a buffer: rows of width (8-bit) or 2 x width bytes rounded up
 * to `row_align` (4 unless told), or with `pad` more bytes per row and before
 * the first, described by a GstVideoMeta. */
inline GstBuffer *
mosaic_buffer (const Mosaic & m, int pad, int row_align = 4)
{
  const int bps = m.bits > 8 ? 2 : 1;
  const int stride = (m.w * bps + row_align - 1) / row_align * row_align + pad;
  const gsize size = (gsize) pad + (gsize) stride * m.h;
  GstBuffer *buf = gst_buffer_new_allocate (nullptr, size, nullptr);
  GstMapInfo map;
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  memset (map.data, 0xa5, map.size);
  for (int y = 0; y < m.h; y++)
    for (int x = 0; x < m.w; x++) {
      guint8 *p = map.data + pad + (gsize) y * stride + (gsize) x * bps;
      p[0] = (guint8) m.at (x, y);
      if (bps == 2)
        p[1] = (guint8) (m.at (x, y) >> 8);
    }
  gst_buffer_unmap (buf, &map);
  if (pad) {
    gsize offset[GST_VIDEO_MAX_PLANES] = { (gsize) pad };
    gint strides[GST_VIDEO_MAX_PLANES] = { stride };
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        bps == 2 ? GST_VIDEO_FORMAT_GRAY16_LE : GST_VIDEO_FORMAT_GRAY8, m.w, m.h, 1,
        offset, strides);
  }
  return buf;
}

typedef std::array<int, 3> Rgb;

/* Colour of the pattern at (x, y), for any integer coordinates. */
inline char
colour_at (const Mosaic & m, int x, int y)
{
  return patterns[m.pattern][((y & 1) << 1) | (x & 1)];
}

/* Malvar-He-Cutler 2004 filters, coefficients x 16. */
inline const int malvar_g_at_rb[5][5] = {
  { 0, 0, -2, 0, 0 }, { 0, 0, 4, 0, 0 }, { -2, 4, 8, 4, -2 }, { 0, 0, 4, 0, 0 },
  { 0, 0, -2, 0, 0 } };
inline const int malvar_rb_in_row[5][5] = {   /* R at G of an R row (B alike) */
  { 0, 0, 1, 0, 0 }, { 0, -2, 0, -2, 0 }, { -2, 8, 10, 8, -2 }, { 0, -2, 0, -2, 0 },
  { 0, 0, 1, 0, 0 } };
inline const int malvar_rb_in_col[5][5] = {   /* transposed */
  { 0, 0, -2, 0, 0 }, { 0, -2, 8, -2, 0 }, { 1, 0, 10, 0, 1 }, { 0, -2, 8, -2, 0 },
  { 0, 0, -2, 0, 0 } };
inline const int malvar_rb_at_br[5][5] = {    /* R at B, B at R */
  { 0, 0, -3, 0, 0 }, { 0, 4, 0, 4, 0 }, { -3, 0, 12, 0, -3 }, { 0, 4, 0, 4, 0 },
  { 0, 0, -3, 0, 0 } };
/* Bilinear: the same roles with 3x3 weights, divided by the weights' sum. */
inline const int bilinear_g_at_rb[5][5] = {
  {0}, { 0, 0, 1, 0, 0 }, { 0, 1, 0, 1, 0 }, { 0, 0, 1, 0, 0 }, {0} };
inline const int bilinear_rb_in_row[5][5] = { {0}, {0}, { 0, 1, 0, 1, 0 }, {0}, {0} };
inline const int bilinear_rb_in_col[5][5] = {
  {0}, { 0, 0, 1, 0, 0 }, {0}, { 0, 0, 1, 0, 0 }, {0} };
inline const int bilinear_rb_at_br[5][5] = {
  {0}, { 0, 1, 0, 1, 0 }, {0}, { 0, 1, 0, 1, 0 }, {0} };

/* Demosaics with the filter tables: `sample (x, y)` gives the (mirrored)
 * input and `apply (table, x, y)` a filter's value there; returns R, G, B
 * of each pixel as the type `apply` returns. Shared by the exact reference
 * below and the camera model (ref_camera.h). */
template <typename Sample, typename Apply>
inline auto
demosaic_with (const Mosaic & m, Method method, Sample sample, Apply apply)
{
  typedef decltype (apply (malvar_g_at_rb, 0, 0)) T;
  const bool malvar = method == MALVAR;
  std::vector<std::array<T, 3>> out ((size_t) m.w * m.h);
  for (int y = 0; y < m.h; y++)
    for (int x = 0; x < m.w; x++) {
      const char c = colour_at (m, x, y);
      std::array<T, 3> &p = out[(size_t) y * m.w + x];
      const T own = sample (x, y);
      if (c == 'g') {
        const T in_row = apply (malvar ? malvar_rb_in_row : bilinear_rb_in_row, x, y);
        const T in_col = apply (malvar ? malvar_rb_in_col : bilinear_rb_in_col, x, y);
        const bool r_in_row = colour_at (m, x + 1, y) == 'r';
        p = { r_in_row ? in_row : in_col, own, r_in_row ? in_col : in_row };
      } else {
        const T g = apply (malvar ? malvar_g_at_rb : bilinear_g_at_rb, x, y);
        const T other = apply (malvar ? malvar_rb_at_br : bilinear_rb_at_br, x, y);
        p = c == 'r' ? std::array<T, 3> { own, g, other } : std::array<T, 3> { other, g, own };
      }
    }
  return out;
}

/* Demosaics `m` on the CPU: samples clamped to 2^bits - 1, mirrored
 * (reflect-101) outside the image. */
inline std::vector<Rgb>
demosaic_reference (const Mosaic & m, Method method)
{
  const int maxv = m.maxv ();
  auto sample = [&] (int x, int y) {
    return std::min (m.at (border_index (x, m.w, REFLECT), border_index (y, m.h, REFLECT)),
        maxv);
  };
  auto apply = [&] (const int (&k)[5][5], int x, int y) {
    int sum = 0, weights = 0;
    for (int j = 0; j < 5; j++)
      for (int i = 0; i < 5; i++) {
        sum += k[j][i] * sample (x + i - 2, y + j - 2);
        weights += k[j][i];
      }
    /* round half up, then clamp */
    const int v = (int) std::floor ((sum + weights / 2.0) / weights);
    return std::clamp (v, 0, maxv);
  };
  return demosaic_with (m, method, sample, apply);
}

/* The documented output scaling: round (v * out_max / (2^bits - 1)). */
inline int
scale (int v, int maxv, int out_max)
{
  return (int) std::floor ((double) v * out_max / maxv + 0.5);
}

/* The channels of one output pixel in memory order, from its scaled R, G, B. */
inline std::vector<int>
pixel_channels (int r, int g, int b, const OutFormat & f)
{
  const int out_max = f.wide ? 65535 : 255;
  if (f.channels == 1)
    return { (77 * r + 150 * g + 29 * b + 128) >> 8 };
  std::vector<int> px (f.channels, out_max);   /* alpha and padding opaque */
  px[f.r] = r;
  px[f.g] = g;
  px[f.b] = b;
  return px;
}

/* The expected channels of one output pixel, in memory order. */
inline std::vector<int>
expected_pixel (const Rgb & p, int maxv, const OutFormat & f)
{
  const int out_max = f.wide ? 65535 : 255;
  return pixel_channels (scale (p[0], maxv, out_max), scale (p[1], maxv, out_max),
      scale (p[2], maxv, out_max), f);
}

/* The channels of the w x h frame `out` of format `f`, row by row. */
inline std::vector<int>
output_channels (GstBuffer * out, GstCaps * caps, const OutFormat & f, int w, int h)
{
  GstVideoInfo info;
  fail_unless (gst_video_info_from_caps (&info, caps));
  fail_unless_equals_string (gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&info)),
      f.name);
  fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&info), w);
  fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&info), h);
  GstVideoFrame frame;
  fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
  std::vector<int> channels ((size_t) w * h * f.channels);
  for (int y = 0; y < h; y++) {
    const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    for (int i = 0; i < w * f.channels; i++)
      channels[(size_t) y * w * f.channels + i] = f.wide ? ((const guint16 *) row)[i] : row[i];
  }
  gst_video_frame_unmap (&frame);
  return channels;
}

/* Compares `out` with the reference; at most `tolerance` per channel. */
inline void
compare (GstBuffer * out, GstCaps * caps, const Mosaic & m, const std::vector<Rgb> &ref,
    const OutFormat & f, const std::string &what)
{
  const std::vector<int> channels = output_channels (out, caps, f, m.w, m.h);
  int bad = 0, worst = 0;
  for (int y = 0; y < m.h; y++) {
    for (int x = 0; x < m.w; x++) {
      const std::vector<int> want = expected_pixel (ref[(size_t) y * m.w + x], m.maxv (), f);
      for (int c = 0; c < f.channels; c++) {
        const int got = channels[((size_t) y * m.w + x) * f.channels + c];
        const int diff = std::abs (got - want[c]);
        if (diff && bad++ < 3)
          GST_ERROR ("%s: (%d,%d) channel %d got %d want %d", what.c_str (), x, y, c, got,
              want[c]);
        worst = std::max (worst, diff);
      }
    }
  }
  fail_unless (bad == 0, "%s: %d channels differ, worst by %d", what.c_str (), bad, worst);
}

/* ---- A natural-looking test image (test_debayer, test_menon) ---- */

/* Smoothly interpolated random values in [-1, 1] on a grid of `cell` pixels. */
inline std::vector<double>
value_noise (int w, int h, int cell, std::mt19937 & rng)
{
  const int gw = w / cell + 2, gh = h / cell + 2;
  std::uniform_real_distribution<double> u (-1.0, 1.0);
  std::vector<double> grid ((size_t) gw * gh);
  for (auto &g : grid)
    g = u (rng);
  auto g = [&] (int i, int j) { return grid[(size_t) j * gw + i]; };
  std::vector<double> out ((size_t) w * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const double fx = (double) x / cell, fy = (double) y / cell;
      const int ix = (int) fx, iy = (int) fy;
      double tx = fx - ix, ty = fy - iy;
      tx = tx * tx * (3 - 2 * tx);
      ty = ty * ty * (3 - 2 * ty);
      out[(size_t) y * w + x] = (g (ix, iy) * (1 - tx) + g (ix + 1, iy) * tx) * (1 - ty) +
          (g (ix, iy + 1) * (1 - tx) + g (ix + 1, iy + 1) * tx) * ty;
    }
  return out;
}

/* A natural-looking colour image, as a camera with an optical low-pass filter
 * would see it: smooth colour fields under a luminance texture at every
 * scale from 64 down to 2 pixels (shared by the channels, as in photographs),
 * an antialiased red ball and a blue sign with dark stripes, a [1 2 1] / 4
 * blur both ways, and mild noise. */
inline std::vector<Rgb>
natural_image (int w, int h, int finest = 2)
{
  std::mt19937 rng (42);
  std::vector<double> texture ((size_t) w * h, 0.0);
  for (int cell = 64; cell >= finest; cell /= 2) {
    const std::vector<double> octave = value_noise (w, h, cell, rng);
    for (size_t i = 0; i < texture.size (); i++)
      texture[i] += 0.25 * octave[i];
  }
  std::vector<std::array<double, 3>> lin ((size_t) w * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      std::array<double, 3> acc = { 0, 0, 0 };
      for (int sy = 0; sy < 4; sy++)   /* 4x4 supersampling */
        for (int sx = 0; sx < 4; sx++) {
          const double fx = x + (sx + 0.5) / 4, fy = y + (sy + 0.5) / 4;
          double c[3] = {
            0.55 + 0.25 * std::sin (fx * 0.012 + 0.5),
            0.50 + 0.25 * std::sin (fy * 0.017 + 1.0),
            0.45 + 0.25 * std::cos ((fx + fy) * 0.009),
          };
          const double dx = fx - w * 0.3, dy = fy - h * 0.35;
          if (dx * dx + dy * dy < (h * 0.18) * (h * 0.18)) {
            c[0] = 0.85;
            c[1] = 0.25 + 0.1 * dy / h;
            c[2] = 0.15;
          }
          if (fx > w * 0.6 && fx < w * 0.9 && fy > h * 0.5 && fy < h * 0.85) {
            c[0] = 0.15;
            c[1] = 0.30;
            c[2] = 0.75;
            if (std::fmod (fy, 12.0) < 3.0 && fx > w * 0.65 && fx < w * 0.85)
              for (double &v : c)
                v *= 0.35;
          }
          for (int k = 0; k < 3; k++)
            acc[k] += c[k] / 16;
        }
      for (int k = 0; k < 3; k++)
        lin[(size_t) y * w + x][k] = 255.0 * acc[k] * (1.0 + texture[(size_t) y * w + x]);
    }
  for (int pass = 0; pass < 2; pass++) {
    const std::vector<std::array<double, 3>> src = lin;
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        for (int k = 0; k < 3; k++) {
          auto at = [&] (int i) {
            return pass == 0 ? src[(size_t) y * w + std::clamp (x + i, 0, w - 1)][k] :
                src[(size_t) std::clamp (y + i, 0, h - 1) * w + x][k];
          };
          lin[(size_t) y * w + x][k] = (at (-1) + 2 * at (0) + at (1)) / 4;
        }
  }
  std::normal_distribution<double> noise (0.0, 0.5);
  std::vector<Rgb> img ((size_t) w * h);
  for (size_t i = 0; i < img.size (); i++)
    for (int k = 0; k < 3; k++)
      img[i][k] = std::clamp ((int) std::lround (lin[i][k] + noise (rng)), 0, 255);
  return img;
}

inline double
psnr (const std::vector<Rgb> &a, const std::vector<Rgb> &b, int w, int h)
{
  double se = 0;
  long n = 0;
  for (int y = 2; y < h - 2; y++)
    for (int x = 2; x < w - 2; x++)
      for (int k = 0; k < 3; k++) {
        const double d = a[(size_t) y * w + x][k] - b[(size_t) y * w + x][k];
        se += d * d;
        n++;
      }
  return 10.0 * std::log10 (255.0 * 255.0 / (se / n));
}

}  // namespace debayer_ref
