/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Frame layout helpers shared by the pool and the filters. */
#pragma once

#include <gst/opencl/gstcl-prelude.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/* Pad template caps, so that every element states sizes, rates and Bayer
 * formats the same way. `min` is the smallest width and height. */
#define GST_CL_SIZE_RANGE(min) "width = (int) [ " #min ", max ], " \
    "height = (int) [ " #min ", max ]"
#define GST_CL_SIZE_AND_RATE(min) GST_CL_SIZE_RANGE (min) ", framerate = (fraction) [ 0, max ]"
/* video/x-raw in the formats listed ("GRAY8, RGB"), any size and rate. */
#define GST_CL_RAW_CAPS(formats) \
    "video/x-raw, format = (string) { " formats " }, " GST_CL_SIZE_AND_RATE (1)
#define GST_CL_BAYER_PATTERNS(bits) "bggr" bits ", gbrg" bits ", grbg" bits ", rggb" bits
/* 10- to 16-bit little-endian Bayer, then with the 8-bit formats: what
 * gst_cl_video_info_from_caps() knows. */
#define GST_CL_DEEP_BAYER_FORMATS GST_CL_BAYER_PATTERNS ("10le") ", " \
    GST_CL_BAYER_PATTERNS ("12le") ", " GST_CL_BAYER_PATTERNS ("14le") ", " \
    GST_CL_BAYER_PATTERNS ("16le")
#define GST_CL_BAYER_FORMATS GST_CL_BAYER_PATTERNS ("") ", " GST_CL_DEEP_BAYER_FORMATS
/* Any raw video and any of those Bayer formats, any size (the transfer
 * elements). */
#define GST_CL_ANY_VIDEO_CAPS "video/x-raw, " GST_CL_SIZE_RANGE (1) "; " \
    "video/x-bayer, format = (string) { " GST_CL_BAYER_FORMATS " }, " GST_CL_SIZE_RANGE (1)

/* "Same size, new format", for transform_plain_caps of a filter whose output
 * format differs from its input's: (transfer full) `s` with the format field
 * `formats` (written as GST_CL_RAW_CAPS() takes them, "GRAY8, GRAY16_LE": a
 * list, even of one) and without the fields that describe the old format
 * (colorimetry, chroma-site). The size, framerate, pixel-aspect-ratio and
 * any other field are kept. A `media_type` other than the structure's own
 * ("video/x-bayer" for video/x-raw; NULL: its own) renames it, and then it
 * keeps width, height, framerate and pixel-aspect-ratio only (the other
 * fields belong to the old media type). For each structure of the caps:
 *   out = gst_caps_merge_structure (out, gst_cl_structure_with_formats (
 *       gst_caps_get_structure (caps, i), NULL, "GRAY8, GRAY16_LE")); */
GST_CL_API GstStructure *gst_cl_structure_with_formats (const GstStructure * s,
    const gchar * media_type, const gchar * formats);

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

/* The bytes of one row of `plane`'s pixels (its stride less padding). */
GST_CL_API gsize gst_cl_video_plane_row_bytes (const GstVideoInfo * info, guint plane);

/* Whether every plane starts and steps on its samples' alignment (an odd
 * offset or stride of 16-bit samples, which a GstVideoMeta may give, is
 * not: kernels read samples with typed loads, and GPUs fault on those). */
GST_CL_API gboolean gst_cl_video_info_sample_aligned (const GstVideoInfo * info);

/* Whether every plane of `a` starts at the same offset with the same stride
 * as in `b` (the same format and size assumed). */
GST_CL_API gboolean gst_cl_video_info_same_layout (const GstVideoInfo * a,
    const GstVideoInfo * b);

G_END_DECLS
