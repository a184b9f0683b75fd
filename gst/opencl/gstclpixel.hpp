/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One description of how a video format lays out its pixels, made from
 * GstVideoFormatInfo, and the one set of -D options every kernel reads it
 * from. Kernels see a prefix per frame (IN_, OUT_, PX_):
 *
 *   P_PLANES  1 packed, 2 NV12 (Y, CbCr), 3 I420 (Y, Cb, Cr)
 *   P_SAMPLE  bytes per sample: 1, or 2 (16-bit little-endian)
 *   P_DEPTH   significant bits of a sample (8, 16)
 *   P_CH      samples per pixel of the first plane: 1 (grey, a luma plane),
 *             2 (packed 4:2:2: Y and every other Cb or Cr), 3 or 4
 *   P_BPP     bytes per pixel of the first plane (P_CH * P_SAMPLE)
 *   P_FOURTH  where the fourth sample (alpha or padding) sits: 0, 3, or -1
 *   P_YUV     0 (RGB or grey), or one of YUV_NV12, YUV_I420, YUV_YUY2,
 *             YUV_UYVY (kernels/common.cl)
 * and, from order_options() only, for kernels built per channel order:
 *   P_R P_G P_B  the sample index of each colour in a pixel (0 for grey)
 *   P_ALPHA   1 when the fourth sample is alpha, 0 for padding or none
 * A kernel that takes the whole order as an argument instead (one program
 * for RGBA, BGRA, ARGB, ...) builds with size_options() (shape_options()
 * without P_FOURTH) and gets order() as a cl_int4. */
#pragma once

#include "gstclhpp.hpp"
#include <gst/video/video.h>

#include <string>

#pragma GCC visibility push(default)
namespace gstcl {

enum Yuv { YUV_NONE = 0, YUV_NV12 = 1, YUV_I420 = 2, YUV_YUY2 = 3, YUV_UYVY = 4 };

struct PixelLayout {
  GstVideoFormat format = GST_VIDEO_FORMAT_UNKNOWN;
  int planes = 1;
  int sample_bytes = 1;
  int depth = 8;
  int channels = 1;
  int fourth = -1;        /* sample index of alpha or padding, -1 none */
  bool alpha = false;     /* that sample is alpha */
  Yuv yuv = YUV_NONE;
  int r = 0, g = 0, b = 0;

  int pixel_bytes () const { return channels * sample_bytes; }
  bool grey () const { return channels == 1 && yuv == YUV_NONE; }

  /* " -D P_PLANES=1 -D P_SAMPLE=1 ..." (a leading space, for appending). */
  std::string shape_options (const char *prefix) const;
  std::string size_options (const char *prefix) const;
  std::string order_options (const char *prefix) const;
  std::string options (const char *prefix) const
  {
    return shape_options (prefix) + order_options (prefix);
  }
  /* (r, g, b, fourth or 0) */
  cl_int4 order () const;
};

/* The layout of a format: every RGB, grey and YUV format the elements
 * take. Throws std::invalid_argument naming any other format. */
PixelLayout pixel_layout (GstVideoFormat format);
inline PixelLayout pixel_layout (const GstVideoInfo *info)
{
  return pixel_layout (GST_VIDEO_INFO_FORMAT (info));
}

}  // namespace gstcl
#pragma GCC visibility pop
