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
#include <cmath>
#include <string>
#include <vector>

namespace camera_ref {

using namespace debayer_ref;

enum Transfer { LINEAR = 0, SRGB = 1, BT709 = 2, GAMMA = 3 };

struct Stages {
  int black = 0;
  std::array<double, 3> gains { 1, 1, 1 };   /* in force (manual or auto) */
  std::array<double, 9> matrix { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
  double saturation = 1;
  Transfer transfer = LINEAR;
  double gamma = 2.2;
};

typedef std::array<double, 3> RgbF;

/* Linear RGB in [0, maxv] after black level, white balance and the
 * demosaic (no rounding). */
inline std::vector<RgbF>
demosaic_float (const Mosaic & m, Method method, const Stages & st)
{
  const int maxv = m.maxv ();
  std::vector<double> raw ((size_t) m.w * m.h);
  for (int y = 0; y < m.h; y++)
    for (int x = 0; x < m.w; x++) {
      const char c = colour_at (m, x, y);
      const double gain = st.gains[c == 'r' ? 0 : c == 'g' ? 1 : 2];
      const double v = std::max (std::min (m.at (x, y), maxv) - st.black, 0) *
          (double) maxv / (maxv - st.black);
      raw[(size_t) y * m.w + x] = std::min (v * gain, (double) maxv);
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
    const OutFormat & f, const std::string &what)
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
      const RgbF &p = ref[(size_t) y * m.w + x];
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
      for (int c = 0; c < f.channels; c++) {
        const int got = f.wide ? ((const guint16 *) row)[x * 4 + c] : row[x * f.channels + c];
        const int diff = std::abs (got - want[c]);
        /* alpha and padding exactly opaque */
        const int allowed = f.channels == 4 && c == f.a ? 0 : 1;
        if (diff > allowed && bad++ < 3)
          GST_ERROR ("%s: (%d,%d) channel %d got %d want %d", what.c_str (), x, y, c, got,
              want[c]);
        worst = std::max (worst, diff);
      }
    }
  }
  gst_video_frame_unmap (&frame);
  fail_unless (bad == 0, "%s: %d channels off by more than 1, worst by %d", what.c_str (),
      bad, worst);
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
