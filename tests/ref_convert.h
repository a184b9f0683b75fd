/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU reference of clconvert, written for the tests from the formulas:
 * every format's layout described here, Y'CbCr from (Kr, Kb) and the
 * range, chroma of 4:2:0 / 4:2:2 input upsampled bilinearly from the
 * centre of its block, the output's chroma the mean of each block,
 * OpenCV INTER_LINEAR's centre-aligned bilinear, nearest at the pixel
 * centre, area as the mean over the footprint, and the eight directions as
 * explicit index maps. Values are doubles until the comparison. */
#pragma once

#include <gst/video/video.h>

#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace convert_ref {

enum Kind { GREY, RGB, YUV };
enum Chroma { C444, C420_NV12, C420_I420, C422_YUY2, C422_UYVY };

struct Format {
  const char *name;
  Kind kind;
  int sample;           /* bytes per sample */
  int bpp;              /* bytes per pixel (packed RGB, grey) */
  int r, g, b, a;       /* sample index of each; a = -1: none */
  bool alpha;           /* a holds alpha (else padding) */
  Chroma chroma;
};

static const Format formats[] = {
  {"GRAY8", GREY, 1, 1, 0, 0, 0, -1, false, C444},
  {"GRAY16_LE", GREY, 2, 2, 0, 0, 0, -1, false, C444},
  {"RGB", RGB, 1, 3, 0, 1, 2, -1, false, C444},
  {"BGR", RGB, 1, 3, 2, 1, 0, -1, false, C444},
  {"RGBA", RGB, 1, 4, 0, 1, 2, 3, true, C444},
  {"BGRA", RGB, 1, 4, 2, 1, 0, 3, true, C444},
  {"RGBx", RGB, 1, 4, 0, 1, 2, 3, false, C444},
  {"BGRx", RGB, 1, 4, 2, 1, 0, 3, false, C444},
  {"ARGB", RGB, 1, 4, 1, 2, 3, 0, true, C444},
  {"ABGR", RGB, 1, 4, 3, 2, 1, 0, true, C444},
  {"xRGB", RGB, 1, 4, 1, 2, 3, 0, false, C444},
  {"xBGR", RGB, 1, 4, 3, 2, 1, 0, false, C444},
  {"RGBA64_LE", RGB, 2, 8, 0, 1, 2, 3, true, C444},
  {"NV12", YUV, 1, 1, 0, 0, 0, -1, false, C420_NV12},
  {"I420", YUV, 1, 1, 0, 0, 0, -1, false, C420_I420},
  {"YUY2", YUV, 1, 2, 0, 0, 0, -1, false, C422_YUY2},
  {"UYVY", YUV, 1, 2, 0, 0, 0, -1, false, C422_UYVY},
};
static const int n_formats = sizeof (formats) / sizeof (formats[0]);

inline const Format &format_named (const char *name)
{
  for (const Format &f : formats)
    if (!strcmp (f.name, name))
      return f;
  return formats[0];
}

typedef std::array<double, 4> Px;   /* R G B A in 0..1, not clamped */
struct Image {
  int w = 0, h = 0;
  std::vector<Px> px;
  Px &at (int x, int y) { return px[(size_t) y * w + x]; }
  const Px &at (int x, int y) const { return px[(size_t) y * w + x]; }
};

/* The colour coefficients of a side: (Kr, Kb) of its matrix, range. */
struct Colour {
  double kr = 0.299, kb = 0.114;
  bool full = false;
};

inline Colour colour_of (const GstVideoInfo * info, const Format & f)
{
  Colour c;
  switch (info->colorimetry.matrix) {
    case GST_VIDEO_COLOR_MATRIX_BT709: c.kr = 0.2126; c.kb = 0.0722; break;
    case GST_VIDEO_COLOR_MATRIX_BT601: c.kr = 0.299; c.kb = 0.114; break;
    case GST_VIDEO_COLOR_MATRIX_BT2020: c.kr = 0.2627; c.kb = 0.0593; break;
    default: if (f.kind == YUV) { c.kr = 0.2126; c.kb = 0.0722; } break;
  }
  c.full = f.kind == GREY || info->colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255;
  return c;
}

inline double maxval (const Format & f)
{
  return f.sample == 2 ? 65535.0 : 255.0;
}

inline int rd (const guint8 * p, int i, int sample)
{
  return sample == 2 ? p[2 * i] | (p[2 * i + 1] << 8) : p[i];
}

/* Y'CbCr codes (8-bit) to R'G'B' */
inline Px yuv_to_rgb (double Y, double Cb, double Cr, const Colour & c)
{
  const double y = c.full ? Y / 255.0 : (Y - 16.0) / 219.0;
  const double cb = (Cb - 128.0) / (c.full ? 255.0 : 224.0);
  const double cr = (Cr - 128.0) / (c.full ? 255.0 : 224.0);
  const double r = y + 2.0 * (1.0 - c.kr) * cr;
  const double b = y + 2.0 * (1.0 - c.kb) * cb;
  const double g = (y - c.kr * r - c.kb * b) / (1.0 - c.kr - c.kb);
  return Px { r, g, b, 1.0 };
}

/* The frame as R'G'B'A (4:4:4). `info` has the real offsets and strides. */
inline Image read_image (const guint8 * data, const GstVideoInfo * info, const Format & f,
    const Colour & c)
{
  Image im;
  im.w = GST_VIDEO_INFO_WIDTH (info);
  im.h = GST_VIDEO_INFO_HEIGHT (info);
  im.px.resize ((size_t) im.w * im.h);
  auto plane = [&] (int p, int x, int y) {
    return data + GST_VIDEO_INFO_PLANE_OFFSET (info, p) +
        (size_t) y * GST_VIDEO_INFO_PLANE_STRIDE (info, p) + x;
  };
  const int cw = (im.w + 1) / 2, ch = (im.h + 1) / 2;
  /* Cb, Cr of chroma sample (i, j) */
  auto chroma = [&] (int i, int j, double *cb, double *cr) {
    switch (f.chroma) {
      case C420_NV12: *cb = plane (1, 2 * i, j)[0]; *cr = plane (1, 2 * i, j)[1]; break;
      case C420_I420: *cb = *plane (1, i, j); *cr = *plane (2, i, j); break;
      case C422_YUY2: *cb = plane (0, 4 * i, j)[1]; *cr = plane (0, 4 * i, j)[3]; break;
      default: *cb = plane (0, 4 * i, j)[0]; *cr = plane (0, 4 * i, j)[2]; break;
    }
  };
  for (int y = 0; y < im.h; y++)
    for (int x = 0; x < im.w; x++) {
      if (f.kind == YUV) {
        double Y = f.chroma == C422_YUY2 ? plane (0, 2 * x, y)[0] :
            f.chroma == C422_UYVY ? plane (0, 2 * x, y)[1] : *plane (0, x, y);
        /* chroma at x/2 - 1/4 (and y/2 - 1/4 for 4:2:0), bilinear, clamped */
        const bool v = f.chroma == C420_NV12 || f.chroma == C420_I420;
        const double fx = x / 2.0 - 0.25, fy = v ? y / 2.0 - 0.25 : y;
        const int i0 = (int) std::floor (fx), j0 = (int) std::floor (fy);
        const double ax = fx - i0, ay = fy - j0;
        double cb = 0, cr = 0;
        for (int dj = 0; dj < 2; dj++)
          for (int di = 0; di < 2; di++) {
            const double wgt = (di ? ax : 1 - ax) * (dj ? ay : 1 - ay);
            if (wgt == 0)
              continue;
            double b, r;
            chroma (std::min (std::max (i0 + di, 0), cw - 1),
                v ? std::min (std::max (j0 + dj, 0), ch - 1) : y, &b, &r);
            cb += wgt * b;
            cr += wgt * r;
          }
        im.at (x, y) = yuv_to_rgb (Y, cb, cr, c);
      } else {
        const guint8 *p = plane (0, x * f.bpp, y);
        const double m = maxval (f);
        if (f.kind == GREY) {
          const double g = rd (p, 0, f.sample) / m;
          im.at (x, y) = Px { g, g, g, 1.0 };
        } else {
          im.at (x, y) = Px { rd (p, f.r, f.sample) / m, rd (p, f.g, f.sample) / m,
              rd (p, f.b, f.sample) / m, f.alpha ? rd (p, f.a, f.sample) / m : 1.0 };
        }
      }
    }
  return im;
}

enum Method { BILINEAR = 0, NEAREST = 1, AREA = 2 };

/* `in` resampled to w x h. */
inline Image resize (const Image & in, int w, int h, int method)
{
  if (w == in.w && h == in.h)
    return in;
  Image out;
  out.w = w;
  out.h = h;
  out.px.resize ((size_t) w * h);
  const double sx = (double) in.w / w, sy = (double) in.h / h;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      Px v {};
      if (method == NEAREST) {
        const int ix = std::min ((int) std::floor ((x + 0.5) * sx), in.w - 1);
        const int iy = std::min ((int) std::floor ((y + 0.5) * sy), in.h - 1);
        v = in.at (ix, iy);
      } else if (method == AREA) {
        const double x0 = x * sx, x1 = x0 + sx, y0 = y * sy, y1 = y0 + sy;
        double total = 0;
        for (int j = (int) std::floor (y0); j < std::min ((int) std::ceil (y1), in.h); j++)
          for (int i = (int) std::floor (x0); i < std::min ((int) std::ceil (x1), in.w); i++) {
            const double wgt = (std::min (x1, i + 1.0) - std::max (x0, (double) i)) *
                (std::min (y1, j + 1.0) - std::max (y0, (double) j));
            if (wgt <= 0)
              continue;
            for (int k = 0; k < 4; k++)
              v[k] += wgt * in.at (i, j)[k];
            total += wgt;
          }
        for (int k = 0; k < 4; k++)
          v[k] /= total;
      } else {
        /* OpenCV INTER_LINEAR: (x + 0.5) * in / out - 0.5, edges clamped */
        const double fx = (x + 0.5) * sx - 0.5, fy = (y + 0.5) * sy - 0.5;
        const int x0 = (int) std::floor (fx), y0 = (int) std::floor (fy);
        const double ax = fx - x0, ay = fy - y0;
        auto cl = [] (int i, int n) { return std::min (std::max (i, 0), n - 1); };
        for (int k = 0; k < 4; k++)
          v[k] = (1 - ay) * ((1 - ax) * in.at (cl (x0, in.w), cl (y0, in.h))[k] +
                ax * in.at (cl (x0 + 1, in.w), cl (y0, in.h))[k]) +
              ay * ((1 - ax) * in.at (cl (x0, in.w), cl (y0 + 1, in.h))[k] +
                ax * in.at (cl (x0 + 1, in.w), cl (y0 + 1, in.h))[k]);
      }
      out.at (x, y) = v;
    }
  return out;
}

/* GstVideoOrientationMethod 0..7 applied to `in`. */
inline Image turn (const Image & in, int direction)
{
  const bool swap = direction == 1 || direction == 3 || direction == 6 || direction == 7;
  Image out;
  out.w = swap ? in.h : in.w;
  out.h = swap ? in.w : in.h;
  out.px.resize (in.px.size ());
  const int W = in.w, H = in.h;
  for (int y = 0; y < in.h; y++)
    for (int x = 0; x < in.w; x++) {
      int ox = x, oy = y;
      switch (direction) {
        case 1: ox = H - 1 - y; oy = x; break;           /* 90 clockwise */
        case 2: ox = W - 1 - x; oy = H - 1 - y; break;   /* 180 */
        case 3: ox = y; oy = W - 1 - x; break;           /* 90 counter-clockwise */
        case 4: ox = W - 1 - x; break;                   /* mirror */
        case 5: oy = H - 1 - y; break;                   /* upside down */
        case 6: ox = y; oy = x; break;                   /* transpose */
        case 7: ox = H - 1 - y; oy = W - 1 - x; break;   /* anti-transpose */
        default: break;
      }
      out.at (ox, oy) = in.at (x, y);
    }
  return out;
}

/* Expected codes of one output sample, and how far off it may be. */
struct Mismatch {
  int count = 0;
  double worst = 0;
  std::string first;
};

inline double luma (const Px & p, const Colour & c)
{
  return c.kr * p[0] + (1 - c.kr - c.kb) * p[1] + c.kb * p[2];
}

/* Compares the output frame with `ref` (R'G'B'A at the output size): Y and
 * grey within 1, Cb, Cr, R, G, B within 2, alpha within 1, padding the
 * maximum. */
inline Mismatch compare (const guint8 * data, const GstVideoInfo * info, const Format & f,
    const Colour & c, const Image & ref)
{
  Mismatch m;
  auto plane = [&] (int p, int x, int y) {
    return data + GST_VIDEO_INFO_PLANE_OFFSET (info, p) +
        (size_t) y * GST_VIDEO_INFO_PLANE_STRIDE (info, p) + x;
  };
  const double mx = maxval (f);
  auto check = [&] (int got, double want, double tol, const char *what, int x, int y) {
    want = std::min (std::max (std::floor (want + 0.5), 0.0), mx);
    const double d = std::fabs (got - want);
    if (d > tol) {
      if (!m.count++)
        m.first = std::string (what) + " at (" + std::to_string (x) + "," +
            std::to_string (y) + "): got " + std::to_string (got) + ", want " +
            std::to_string ((int) want);
      m.worst = std::max (m.worst, d);
    }
  };
  const double ys = c.full ? 255.0 : 219.0, yo = c.full ? 0.0 : 16.0;
  const double cs = c.full ? 255.0 : 224.0;
  for (int y = 0; y < ref.h; y++)
    for (int x = 0; x < ref.w; x++) {
      const Px &p = ref.at (x, y);
      if (f.kind == GREY) {
        check (rd (plane (0, x * f.bpp, y), 0, f.sample), luma (p, c) * mx, 1, "grey", x, y);
      } else if (f.kind == RGB) {
        const guint8 *q = plane (0, x * f.bpp, y);
        check (rd (q, f.r, f.sample), p[0] * mx, 2, "R", x, y);
        check (rd (q, f.g, f.sample), p[1] * mx, 2, "G", x, y);
        check (rd (q, f.b, f.sample), p[2] * mx, 2, "B", x, y);
        if (f.a >= 0)
          check (rd (q, f.a, f.sample), f.alpha ? p[3] * mx : mx, 1, "A", x, y);
      } else {
        const int Y = f.chroma == C422_YUY2 ? plane (0, 2 * x, y)[0] :
            f.chroma == C422_UYVY ? plane (0, 2 * x, y)[1] : *plane (0, x, y);
        check (Y, yo + ys * luma (p, c), 1, "Y", x, y);
      }
    }
  if (f.kind != YUV)
    return m;
  /* chroma: the mean over each block's pixels */
  const bool v = f.chroma == C420_NV12 || f.chroma == C420_I420;
  for (int j = 0; j < (v ? (ref.h + 1) / 2 : ref.h); j++)
    for (int i = 0; i < (ref.w + 1) / 2; i++) {
      double cb = 0, cr = 0;
      int n = 0;
      for (int y = v ? 2 * j : j; y < std::min (v ? 2 * j + 2 : j + 1, ref.h); y++)
        for (int x = 2 * i; x < std::min (2 * i + 2, ref.w); x++) {
          const Px &p = ref.at (x, y);
          const double l = luma (p, c);
          cb += (p[2] - l) / (2 * (1 - c.kb));
          cr += (p[0] - l) / (2 * (1 - c.kr));
          n++;
        }
      cb = 128 + cs * cb / n;
      cr = 128 + cs * cr / n;
      int gcb, gcr;
      switch (f.chroma) {
        case C420_NV12: gcb = plane (1, 2 * i, j)[0]; gcr = plane (1, 2 * i, j)[1]; break;
        case C420_I420: gcb = *plane (1, i, j); gcr = *plane (2, i, j); break;
        case C422_YUY2: gcb = plane (0, 4 * i, j)[1]; gcr = plane (0, 4 * i, j)[3]; break;
        default: gcb = plane (0, 4 * i, j)[0]; gcr = plane (0, 4 * i, j)[2]; break;
      }
      check (gcb, cb, 2, "Cb", 2 * i, j);
      check (gcr, cr, 2, "Cr", 2 * i, j);
    }
  return m;
}

}  // namespace convert_ref
