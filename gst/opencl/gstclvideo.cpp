/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstclvideo.h"

#include <cstring>
#include <initializer_list>

gboolean
gst_cl_bayer_format_parse (const gchar * format, gint * pattern, gint * bits)
{
  static const char *patterns[] = { "bggr", "gbrg", "grbg", "rggb" };
  if (!format || std::strlen (format) < 4)
    return FALSE;
  gint pat = -1;
  for (gint i = 0; i < 4; i++)
    if (!std::strncmp (format, patterns[i], 4))
      pat = i;
  if (pat < 0)
    return FALSE;
  const gchar *depth = format + 4;
  gint b = 8;
  if (*depth) {
    if (!g_str_has_suffix (depth, "le") || std::strlen (depth) != 4)
      return FALSE;
    b = (depth[0] - '0') * 10 + (depth[1] - '0');
    if (b != 10 && b != 12 && b != 14 && b != 16)
      return FALSE;
  }
  if (pattern)
    *pattern = pat;
  if (bits)
    *bits = b;
  return TRUE;
}

GstStructure *
gst_cl_structure_with_formats (const GstStructure * s, const gchar * media_type,
    const gchar * formats)
{
  gchar *text = g_strdup_printf ("x, format = (string) { %s }", formats);
  GstStructure *list = gst_structure_from_string (text, nullptr);
  g_free (text);
  g_return_val_if_fail (list != nullptr, nullptr);
  GstStructure *out;
  if (!media_type || gst_structure_has_name (s, media_type)) {
    out = gst_structure_copy (s);
    gst_structure_set_value (out, "format", gst_structure_get_value (list, "format"));
    gst_structure_remove_fields (out, "colorimetry", "chroma-site", nullptr);
  } else {
    out = gst_structure_new_empty (media_type);
    gst_structure_set_value (out, "format", gst_structure_get_value (list, "format"));
    for (const char *field : { "width", "height", "framerate", "pixel-aspect-ratio" })
      if (const GValue * v = gst_structure_get_value (s, field))
        gst_structure_set_value (out, field, v);
  }
  gst_structure_free (list);
  return out;
}

gboolean
gst_cl_video_info_from_caps (GstVideoInfo * info, const GstCaps * caps)
{
  g_return_val_if_fail (info != nullptr && caps != nullptr, FALSE);
  if (gst_caps_get_size (caps) < 1)
    return FALSE;
  const GstStructure *s = gst_caps_get_structure (caps, 0);
  if (!gst_structure_has_name (s, "video/x-bayer"))
    return gst_video_info_from_caps (info, caps);

  gint width, height, bits;
  if (!gst_structure_get_int (s, "width", &width) ||
      !gst_structure_get_int (s, "height", &height) || width < 1 || height < 1 ||
      !gst_cl_bayer_format_parse (gst_structure_get_string (s, "format"), nullptr, &bits))
    return FALSE;
  gst_video_info_init (info);
  if (!gst_video_info_set_format (info,
          bits == 8 ? GST_VIDEO_FORMAT_GRAY8 : GST_VIDEO_FORMAT_GRAY16_LE, width, height))
    return FALSE;
  gint n, d;
  if (gst_structure_get_fraction (s, "framerate", &n, &d)) {
    GST_VIDEO_INFO_FPS_N (info) = n;
    GST_VIDEO_INFO_FPS_D (info) = d;
  }
  if (gst_structure_get_fraction (s, "pixel-aspect-ratio", &n, &d)) {
    GST_VIDEO_INFO_PAR_N (info) = n;
    GST_VIDEO_INFO_PAR_D (info) = d;
  }
  return TRUE;
}

gboolean
gst_cl_buffer_frame_info (GstBuffer * buffer, const GstVideoInfo * info, GstVideoInfo * out)
{
  *out = *info;
  GstVideoMeta *meta = gst_buffer_get_video_meta (buffer);
  if (meta) {
    if ((gint) meta->width < GST_VIDEO_INFO_WIDTH (info) ||
        (gint) meta->height < GST_VIDEO_INFO_HEIGHT (info) ||
        meta->n_planes < GST_VIDEO_INFO_N_PLANES (info))
      return FALSE;
    for (guint i = 0; i < GST_VIDEO_INFO_N_PLANES (info); i++) {
      GST_VIDEO_INFO_PLANE_OFFSET (out, i) = meta->offset[i];
      GST_VIDEO_INFO_PLANE_STRIDE (out, i) = meta->stride[i];
    }
  }
  /* Every plane's last row must lie inside the buffer. */
  gsize size = gst_buffer_get_size (buffer);
  for (guint i = 0; i < GST_VIDEO_INFO_N_PLANES (out); i++) {
    gint stride = GST_VIDEO_INFO_PLANE_STRIDE (out, i);
    gint rows = GST_VIDEO_INFO_COMP_HEIGHT (out, (gint) i);
    gint row_bytes = (gint) gst_cl_video_plane_row_bytes (out, i);
    if (stride < row_bytes)
      return FALSE;
    gsize end = GST_VIDEO_INFO_PLANE_OFFSET (out, i) + (gsize) stride * (rows - 1) + row_bytes;
    if (end > size)
      return FALSE;
  }
  return TRUE;
}

gsize
gst_cl_video_plane_row_bytes (const GstVideoInfo * info, guint plane)
{
  /* plane i holds component i in every format this project takes (NV12's
   * plane 1 starts with Cb, whose pixel stride covers the CbCr pair) */
  return (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, (gint) plane) *
      GST_VIDEO_INFO_COMP_PSTRIDE (info, (gint) plane);
}

gboolean
gst_cl_video_info_sample_aligned (const GstVideoInfo * info)
{
  const gsize sample = GST_VIDEO_INFO_COMP_DEPTH (info, 0) > 8 ? 2 : 1;
  for (guint i = 0; i < GST_VIDEO_INFO_N_PLANES (info); i++)
    if (GST_VIDEO_INFO_PLANE_OFFSET (info, i) % sample ||
        GST_VIDEO_INFO_PLANE_STRIDE (info, i) % sample)
      return FALSE;
  return TRUE;
}

gboolean
gst_cl_video_info_same_layout (const GstVideoInfo * a, const GstVideoInfo * b)
{
  for (guint i = 0; i < GST_VIDEO_INFO_N_PLANES (a); i++)
    if (GST_VIDEO_INFO_PLANE_OFFSET (a, i) != GST_VIDEO_INFO_PLANE_OFFSET (b, i) ||
        GST_VIDEO_INFO_PLANE_STRIDE (a, i) != GST_VIDEO_INFO_PLANE_STRIDE (b, i))
      return FALSE;
  return TRUE;
}
