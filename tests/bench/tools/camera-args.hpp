/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The camera kernels' arguments as cldebayer's host makes them
 * (gst/elements/debayer/gstcldebayercamera.cpp), for the tools of this
 * folder: the gains with debayer_camera's FAST_LEVELS offsets, the sRGB or linear curve with
 * transfer_unit8's factors, BT.709 limited range with camera_output's
 * chroma factors; the bench's colour matrix and lens-shading grid. Include
 * after CL/opencl.hpp. */
#pragma once
#include <cmath>
#include <vector>

/* gains over maxv (r, g, b), the exposure gain in s3 (its cap: 0 makes
 * every sample black) and, in s4-s6, -(2^15 + black) gain rounded down to
 * a float (fast_levels_offset) */
inline cl_float8 camera_gains (double r, double g, double b, int black, double exposure = 1)
{
  cl_float8 gain {{(float) r, (float) g, (float) b, (float) exposure}};
  for (int c = 0; c < 3; c++) {
    const double exact = -(32768.0 + black) * (double) gain.s[c];
    const float k = (float) exact;
    gain.s[4 + c] = (double) k > exact ? std::nextafter (k, -INFINITY) : k;
  }
  return gain;
}

/* sRGB or linear, as transfer_parameters: (e, a, b, knee, slope), then
 * with `offset` transfer_offset8's (a / u, log2 (a / u), slope / u, b / u,
 * u, b), u = c + b, otherwise the kernels' before it, transfer_unit8's (a /
 * c, b / c, slope / c, c); c = slope knee (1 for the linear curve) */
inline cl_float16 camera_curve (bool linear, bool offset = true)
{
  const double e = linear ? 1 : 1 / 2.4, a = linear ? 1 : 1.055, b = linear ? 0 : 0.055;
  const double knee = linear ? 2 : 0.0031308, slope = linear ? 1 : 12.92;
  const double c = linear ? 1 : slope * knee, u = c + b;
  if (offset)
    return cl_float16 {{(float) e, (float) a, (float) b, (float) knee, (float) slope,
        (float) (a / u), (float) std::log2 (a / u), (float) (slope / u), (float) (b / u),
        (float) u, (float) b}};
  return cl_float16 {{(float) e, (float) a, (float) b, (float) knee, (float) slope,
      (float) (a / c), (float) (b / c), (float) (slope / c), (float) c}};
}

/* the same as the float8 of the kernels before transfer_unit8 */
inline cl_float8 camera_curve_old (bool linear)
{
  const cl_float16 t = camera_curve (linear);
  return cl_float8 {{t.s[0], t.s[1], t.s[2], t.s[3], t.s[4], 0, 0, 0}};
}

/* BT.709 limited range (gstcl::yuv_coefficients) with camera_output's
 * chroma factors in s5-s7 */
inline cl_float8 camera_yuv ()
{
  const float kr = 0.2126f, kb = 0.0722f;
  return cl_float8 {{kr, kb, 16, 219, 224, (float) (224 * 0.125 / (1 - (double) kb)),
      (float) (224 * 0.125 / (1 - (double) kr)), (float) (1 / 219.0)}};
}

/* The bench's colour matrix (1.6 -0.4 -0.2 / -0.3 1.5 -0.2 / 0.05 -0.6
 * 1.55) after saturation 1.2 about BT.709 luma, row-major in s0-s8, each
 * divided by `scale` */
inline cl_float16 camera_matrix (double scale = 1)
{
  const double m[9] = {1.6, -0.4, -0.2, -0.3, 1.5, -0.2, 0.05, -0.6, 1.55};
  const double luma[3] = {0.2126, 0.7152, 0.0722}, sat = 1.2;
  cl_float16 mat {};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double v = 0;
      for (int k = 0; k < 3; k++)
        v += ((i == k ? sat : 0) + (1 - sat) * luma[k]) * m[3 * k + j];
      mat.s[3 * i + j] = (float) (v / scale);
    }
  return mat;
}

/* The bench's lens-shading grids, kShadingCols x kShadingRows: a
 * vignetting to 1.8 at the corners, tinted (R, Gr, Gb, B one after the
 * other, row-major) */
constexpr int kShadingCols = 17, kShadingRows = 13;
inline std::vector<float> shading_grid ()
{
  std::vector<float> grid;
  for (double tint : {1.1, 1.0, 1.0, 1.2})
    for (int j = 0; j < kShadingRows; j++)
      for (int i = 0; i < kShadingCols; i++) {
        const double dx = 2.0 * i / (kShadingCols - 1) - 1, dy = 2.0 * j / (kShadingRows - 1) - 1;
        grid.push_back ((float) ((1 + 0.8 * (dx * dx + dy * dy) / 2) * tint));
      }
  return grid;
}
