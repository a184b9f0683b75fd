/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one description of R'G'B' <-> Y'CbCr of the project, host side: the
 * coefficients a kernel takes (kernels/color.cl holds the device side, the
 * formulas that use them). From R'G'B' in 0..1:
 *
 *   Y  = Kr R + (1 - Kr - Kb) G + Kb B
 *   Cb = (B - Y) / (2 (1 - Kb))      Cr = (R - Y) / (2 (1 - Kr))
 *   Y code = Y offset + Y scale * Y  C code = 128 + C scale * Cb or Cr
 *
 * with (Kr, Kb) of the colorimetry's matrix (BT.709, BT.601, BT.2020, ...)
 * and, for 8-bit samples, limited range (16, 219, 224) or full range (0,
 * 255, 255). A grey frame is a luma plane in full range: its samples are
 * the Y code with offset 0 and scale the sample's maximum (255, 65535), its
 * weights those of its caps' matrix (GStreamer's default for grey is
 * BT.601). */
#pragma once

#include "gstclhpp.hpp"
#include <gst/video/video.h>

#pragma GCC visibility push(default)
namespace gstcl {

/* (Kr, Kb, Y offset, Y scale, C scale, 0, 0, 0) for the frames of `info`:
 * a YUV format (8-bit codes; limited range unless the colorimetry says
 * 0-255) or a grey one (full range, the sample's maximum). A colorimetry
 * without a known matrix takes BT.709 for YUV, BT.601 for grey. */
cl_float8 yuv_coefficients (const GstVideoInfo * info);

}  // namespace gstcl
#pragma GCC visibility pop
