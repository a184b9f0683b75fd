/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU reference of clkernel (shared by test_clkernel and test_sizes): the
 * documented example sources (invert, threshold, 3x3 box blur) and the
 * sampling helpers, per pixel in RGBA, and the comparison of an output frame. */
#pragma once

#include "cltest.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace clkernel_ref {

using namespace cltest;

struct Format {
  const char *name;
  int bpp;       /* bytes per pixel (of the luma plane for NV12, I420) */
  int r, g, b;   /* sample indices in a pixel (byte offsets for 8-bit) */
  int a;         /* index of the alpha or padding sample, -1: none */
  bool alpha;    /* that sample is alpha (else padding, written as the maximum) */
  int sample = 1;  /* bytes per sample: 2 for 16-bit little-endian */
};

/* The largest sample: what 1.0 is. */
inline int max_of (const Format & f)
{
  return f.sample == 2 ? 65535 : 255;
}

/* Sample i of the pixel at p. */
inline int sample_at (const guint8 * p, int i, const Format & f)
{
  return f.sample == 2 ? p[2 * i] | p[2 * i + 1] << 8 : p[i];
}

inline const Format formats[] = {
  {"GRAY8", 1, 0, 0, 0, -1, false}, {"RGB", 3, 0, 1, 2, -1, false},
  {"BGR", 3, 2, 1, 0, -1, false}, {"RGBA", 4, 0, 1, 2, 3, true},
  {"BGRA", 4, 2, 1, 0, 3, true}, {"RGBx", 4, 0, 1, 2, 3, false},
  {"BGRx", 4, 2, 1, 0, 3, false}, {"ARGB", 4, 1, 2, 3, 0, true},
  {"ABGR", 4, 3, 2, 1, 0, true}, {"xRGB", 4, 1, 2, 3, 0, false},
  {"xBGR", 4, 3, 2, 1, 0, false},
};
inline const Format &RGBA = formats[3];
/* 16-bit samples, and the luma plane of NV12 and I420 read as grey (their
 * chroma is copied). */
inline const Format deep_and_yuv_formats[] = {
  {"GRAY16_LE", 2, 0, 0, 0, -1, false, 2}, {"RGBA64_LE", 8, 0, 1, 2, 3, true, 2},
  {"NV12", 1, 0, 0, 0, -1, false}, {"I420", 1, 0, 0, 0, -1, false},
};

/* The examples of the documentation, verbatim. */
inline const char *const INVERT =
    "float4 filter (image_t img, int x, int y)\n"
    "{\n"
    "  float4 p = read_pixel (img, x, y);\n"
    "  return (float4) (1.0f - p.xyz, p.w);\n"
    "}\n";
inline const char *const THRESHOLD =
    "float4 filter (image_t img, int x, int y)\n"
    "{\n"
    "  float4 p = read_pixel (img, x, y);\n"
    "  float l = dot (p.xyz, (float3) (0.299f, 0.587f, 0.114f));\n"
    "  return (float4) ((float3) (l >= LEVEL ? 1.0f : 0.0f), p.w);\n"
    "}\n";
inline const char *const BLUR =
    "float4 filter (image_t img, int x, int y)\n"
    "{\n"
    "  float4 sum = 0.0f;\n"
    "  for (int dy = -1; dy <= 1; dy++)\n"
    "    for (int dx = -1; dx <= 1; dx++)\n"
    "      sum += read_pixel (img, x + dx, y + dy);\n"
    "  return sum / 9.0f;\n"
    "}\n";
inline const double LEVEL = 0.4;
inline const char *const LEVEL_OPTION = "-D LEVEL=0.4f";

enum Example { IDENTITY, INVERTED, THRESHOLDED, BLURRED, HELPERS };

/* The helpers: reflect and constant borders, clamped bytes, in_image,
 * img.width / img.height, and ties rounded to even (0.5 -> 127.5 -> 128). */
inline const char *const HELPER_TEST =
    "float4 filter (image_t img, int x, int y)\n"
    "{\n"
    "  float r = read_pixel_border (img, x - 2, y + 1, BORDER_REFLECT).x;\n"
    "  float g = read_pixel_border (img, x + 1, y - 2, BORDER_CONSTANT).y;\n"
    "  float b = read_pixel_u8 (img, x + 5, y - 5).z / 255.0f;\n"
    "  float a = (in_image (img, x + 3, y - 1) ? 0.5f : 0.0f) +\n"
    "      (x == img.width - 1 || y == img.height - 1 ? 0.5f : 0.0f);\n"
    "  return (float4) (r, g, b, a);\n"
    "}\n";

struct Rgba {
  int c[4];
};

/* A frame as the per-pixel API sees it: RGBA bytes, GRAY8 as (v, v, v, 255),
 * no alpha as 255. */
inline std::vector<Rgba>
rgba_of (GstBuffer * buf, const GstVideoInfo * layout, const Format & f)
{
  const int w = GST_VIDEO_INFO_WIDTH (layout), h = GST_VIDEO_INFO_HEIGHT (layout);
  GstMapInfo map;
  gst_buffer_map (buf, &map, GST_MAP_READ);
  std::vector<Rgba> px (w * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const guint8 *p = map.data + GST_VIDEO_INFO_PLANE_OFFSET (layout, 0) +
          (gsize) y * GST_VIDEO_INFO_PLANE_STRIDE (layout, 0) + x * f.bpp;
      px[y * w + x] = {{sample_at (p, f.r, f), sample_at (p, f.g, f), sample_at (p, f.b, f),
          f.alpha ? sample_at (p, f.a, f) : max_of (f)}};
    }
  gst_buffer_unmap (buf, &map);
  return px;
}

/* Expected RGBA of `ex`; `ambiguous` marks pixels whose threshold decision
 * lies within float rounding of the level (either answer is right). */
inline std::vector<Rgba>
reference (Example ex, const std::vector<Rgba> &in, int w, int h,
    std::vector<bool> *ambiguous, int max = 255)
{
  auto at = [&] (int x, int y) -> const Rgba & {
    return in[border_index (y, h, REPLICATE) * w + border_index (x, w, REPLICATE)];
  };
  std::vector<Rgba> out (w * h);
  ambiguous->assign (w * h, false);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const Rgba &p = at (x, y);
      Rgba &o = out[y * w + x];
      switch (ex) {
        case IDENTITY:
          o = p;
          break;
        case INVERTED:
          o = {{max - p.c[0], max - p.c[1], max - p.c[2], p.c[3]}};
          break;
        case THRESHOLDED: {
          const double l = (0.299 * p.c[0] + 0.587 * p.c[1] + 0.114 * p.c[2]) / max;
          const int v = l >= LEVEL ? max : 0;
          o = {{v, v, v, p.c[3]}};
          (*ambiguous)[y * w + x] = std::fabs (l - LEVEL) < 1e-5;
          break;
        }
        case BLURRED:
          for (int c = 0; c < 4; c++) {
            int sum = 0;
            for (int dy = -1; dy <= 1; dy++)
              for (int dx = -1; dx <= 1; dx++)
                sum += at (x + dx, y + dy).c[c];
            o.c[c] = (sum + 4) / 9;  /* sum / 9 never ends in .5 */
          }
          break;
        case HELPERS: {
          const int rx = border_index (x - 2, w, REFLECT), ry = border_index (y + 1, h, REFLECT);
          const int cx = border_index (x + 1, w, CONSTANT), cy = border_index (y - 2, h, CONSTANT);
          const bool inside = x + 3 < w && y - 1 >= 0;
          const bool edge = x == w - 1 || y == h - 1;
          const int halves = (inside ? 1 : 0) + (edge ? 1 : 0);
          o.c[0] = in[ry * w + rx].c[0];
          o.c[1] = (cx < 0 || cy < 0) ? 0 : in[cy * w + cx].c[1];
          o.c[2] = at (x + 5, y - 5).c[2];
          o.c[3] = halves == 0 ? 0 : halves == 1 ? 128 : 255;  /* 127.5 to even */
          break;
        }
      }
    }
  return out;
}

/* Compares every byte of every pixel of `out` (negotiated as `caps`) with
 * `ref` stored in format `f` (GRAY8 takes red; padding bytes are 255). */
inline void
check_output (GstCaps * caps, GstBuffer * out, const Format & f, int w, int hgt,
    const std::vector<Rgba> &ref, const std::vector<bool> &ambiguous, int tolerance,
    const char *what)
{
  GstVideoInfo info;
  fail_unless (gst_video_info_from_caps (&info, caps));
  fail_unless_equals_string (gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&info)),
      f.name);
  fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&info), w);
  fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&info), hgt);

  GstVideoFrame frame;
  fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
  int bad = 0, worst = 0;
  for (int y = 0; y < hgt; y++) {
    const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    for (int x = 0; x < w; x++) {
      const Rgba &e = ref[y * w + x];
      const guint8 *p = row + x * f.bpp;
      std::vector<std::pair<int, int>> bytes;  /* (got, want) samples */
      if (f.bpp == f.sample) {
        bytes.push_back ({sample_at (p, 0, f), e.c[0]});
      } else {
        bytes.push_back ({sample_at (p, f.r, f), e.c[0]});
        bytes.push_back ({sample_at (p, f.g, f), e.c[1]});
        bytes.push_back ({sample_at (p, f.b, f), e.c[2]});
        if (f.a >= 0)
          bytes.push_back ({sample_at (p, f.a, f), f.alpha ? e.c[3] : max_of (f)});
      }
      for (size_t i = 0; i < bytes.size (); i++) {
        int diff = std::abs (bytes[i].first - bytes[i].second);
        if (diff && ambiguous[y * w + x] && (i < 3 || f.bpp == f.sample) &&
            (bytes[i].first == 0 || bytes[i].first == max_of (f)))
          continue;
        worst = std::max (worst, diff);
        if (diff > tolerance && bad++ < 3)
          GST_ERROR ("%s %s %dx%d: (%d,%d) byte %zu got %d want %d", what, f.name, w, hgt,
              x, y, i, bytes[i].first, bytes[i].second);
      }
    }
  }
  gst_video_frame_unmap (&frame);
  fail_unless (bad == 0, "%s %s %dx%d: %d bytes differ by more than %d (worst %d)", what,
      f.name, w, hgt, bad, tolerance, worst);
}

/* The same, with the caps negotiated on the harness' sink pad. */
inline void
check_output (GstHarness * h, GstBuffer * out, const Format & f, int w, int hgt,
    const std::vector<Rgba> &ref, const std::vector<bool> &ambiguous, int tolerance,
    const char *what)
{
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
  check_output (caps, out, f, w, hgt, ref, ambiguous, tolerance, what);
  gst_caps_unref (caps);
}

}  // namespace clkernel_ref
