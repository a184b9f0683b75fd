/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Frame layout helpers shared by the pool and the filters. */
#pragma once

#include <gst/opencl/gstcl-prelude.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/* Like gst_video_info_from_caps(), and also for video/x-bayer: the layout is
 * that of GRAY8 (8-bit Bayer) or GRAY16_LE (10..16-bit little-endian Bayer),
 * rows rounded up to 4 bytes, which is what bayer2rgb and videotestsrc use. */
GST_CL_API gboolean gst_cl_video_info_from_caps (GstVideoInfo * info, const GstCaps * caps);

/* Parses a Bayer format name ("rggb", "bggr12le", ...). `pattern` gets
 * 0 = bggr, 1 = gbrg, 2 = grbg, 3 = rggb; `bits` 8..16. */
GST_CL_API gboolean gst_cl_bayer_format_parse (const gchar * format, gint * pattern, gint * bits);

/* Applies the GstVideoMeta of `buffer`, if any, to a copy of `info` so that
 * offsets and strides are the buffer's real ones. FALSE when the buffer is
 * too small for the frame it claims to hold. */
GST_CL_API gboolean gst_cl_buffer_frame_info (GstBuffer * buffer, const GstVideoInfo * info,
    GstVideoInfo * out);

/* Whether every plane of `a` starts at the same offset with the same stride
 * as in `b` (the same format and size assumed). */
GST_CL_API gboolean gst_cl_video_info_same_layout (const GstVideoInfo * a,
    const GstVideoInfo * b);

G_END_DECLS
