/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstclcolor.hpp"

namespace gstcl {

cl_float8
yuv_coefficients (const GstVideoInfo * info)
{
  const bool grey = GST_VIDEO_INFO_IS_GRAY (info);
  gdouble kr = grey ? 0.299 : 0.2126, kb = grey ? 0.114 : 0.0722;
  gdouble r, b;
  if (gst_video_color_matrix_get_Kr_Kb (info->colorimetry.matrix, &r, &b))
    kr = r, kb = b;
  if (grey) {
    const float max = (float) ((1u << GST_VIDEO_INFO_COMP_DEPTH (info, 0)) - 1);
    return cl_float8 { { (float) kr, (float) kb, 0.0f, max, 0.0f, 0, 0, 0 } };
  }
  const bool full = info->colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255;
  return cl_float8 { { (float) kr, (float) kb, full ? 0.0f : 16.0f, full ? 255.0f : 219.0f,
          full ? 255.0f : 224.0f, 0, 0, 0 } };
}

}  // namespace gstcl
