/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The camera kernels' arguments as cldebayer's host makes them
 * (gst/elements/debayer/gstcldebayercamera.cpp), for the tools of this
 * folder: the gains with debayer_camera's FAST_LEVELS offsets, the sRGB or linear curve with
 * transfer_unit8's factors, BT.709 limited range with camera_output's
 * chroma factors. Include after CL/opencl.hpp. */
#pragma once
#include <cmath>

/* gains over maxv (r, g, b) and, in s4-s6, -(2^15 + black) gain rounded
 * down to a float (fast_levels_offset) */
inline cl_float8 camera_gains (double r, double g, double b, int black)
{
  cl_float8 gain {{(float) r, (float) g, (float) b, 0}};
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
