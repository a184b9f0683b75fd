/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstclpixel.hpp"

#include <stdexcept>

namespace gstcl {

static Yuv
yuv_kind (GstVideoFormat format)
{
  switch (format) {
    case GST_VIDEO_FORMAT_NV12: return YUV_NV12;
    case GST_VIDEO_FORMAT_I420: return YUV_I420;
    case GST_VIDEO_FORMAT_YUY2: return YUV_YUY2;
    case GST_VIDEO_FORMAT_UYVY: return YUV_UYVY;
    default: return YUV_NONE;
  }
}

PixelLayout
pixel_layout (GstVideoFormat format)
{
  const GstVideoFormatInfo *f = gst_video_format_get_info (format);
  const Yuv yuv = yuv_kind (format);
  const bool rgb = f && GST_VIDEO_FORMAT_INFO_IS_RGB (f) && f->n_planes == 1;
  const bool grey = f && GST_VIDEO_FORMAT_INFO_IS_GRAY (f);
  if (!f || (!rgb && !grey && yuv == YUV_NONE) || f->bits % 8 != 0 || f->bits > 16 ||
      (f->bits > 8 && !GST_VIDEO_FORMAT_INFO_IS_LE (f)))
    throw std::invalid_argument (std::string ("no kernel reads the format ") +
        gst_video_format_to_string (format));

  PixelLayout l;
  l.format = format;
  l.planes = f->n_planes;
  l.depth = f->depth[0];
  l.sample_bytes = f->bits / 8;
  l.yuv = yuv;
  /* Packed 4:2:2 has two samples a pixel (Y, then Cb or Cr); the luma
   * plane of a planar format one. */
  l.channels = yuv != YUV_NONE ? (f->n_planes == 1 ? 2 : 1) :
      f->pixel_stride[0] / l.sample_bytes;
  if (rgb) {
    l.r = f->poffset[GST_VIDEO_COMP_R] / l.sample_bytes;
    l.g = f->poffset[GST_VIDEO_COMP_G] / l.sample_bytes;
    l.b = f->poffset[GST_VIDEO_COMP_B] / l.sample_bytes;
    /* The fourth sample, alpha or padding, is the one no colour uses. */
    if (l.channels == 4) {
      l.fourth = 6 - l.r - l.g - l.b;
      l.alpha = GST_VIDEO_FORMAT_INFO_HAS_ALPHA (f);
    }
  }
  return l;
}

static std::string
define (const char *prefix, const char *name, int value)
{
  return std::string (" -D ") + prefix + "_" + name + "=" + std::to_string (value);
}

std::string
PixelLayout::size_options (const char *prefix) const
{
  return define (prefix, "PLANES", planes) + define (prefix, "SAMPLE", sample_bytes) +
      define (prefix, "DEPTH", depth) + define (prefix, "CH", channels) +
      define (prefix, "BPP", pixel_bytes ()) + define (prefix, "YUV", yuv);
}

std::string
PixelLayout::shape_options (const char *prefix) const
{
  return size_options (prefix) + define (prefix, "FOURTH", fourth);
}

std::string
PixelLayout::order_options (const char *prefix) const
{
  return define (prefix, "R", r) + define (prefix, "G", g) + define (prefix, "B", b) +
      define (prefix, "ALPHA", alpha);
}

cl_int4
PixelLayout::order () const
{
  return cl_int4 { {r, g, b, fourth < 0 ? 0 : fourth} };
}

}  // namespace gstcl
