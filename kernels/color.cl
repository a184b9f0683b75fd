/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* R'G'B' <-> Y'CbCr, the device side of gst/opencl/gstclcolor.hpp (which
 * makes `k`, the coefficients: Kr, Kb, Y offset, Y scale, C scale). R'G'B'
 * in 0..1; the codes are sample values before rounding. Macros, so that they
 * take scalars and vectors (float, float4, float8) alike. Used by cldebayer
 * (NV12/I420 output) and clconvert. */

/* Y, Cb, Cr in 0..1 and -0.5..0.5 from R'G'B' */
#define YCBCR_LUMA(k, r, g, b) ((k).s0 * (r) + (1.0f - (k).s0 - (k).s1) * (g) + (k).s1 * (b))
#define YCBCR_CB(k, b, y) (((b) - (y)) * (0.5f / (1.0f - (k).s1)))
#define YCBCR_CR(k, r, y) (((r) - (y)) * (0.5f / (1.0f - (k).s0)))
/* ... as codes */
#define YCBCR_Y_CODE(k, y) ((k).s2 + (k).s3 * (y))
#define YCBCR_C_CODE(k, c) (128.0f + (k).s4 * (c))

/* And back: R'G'B' (not clamped) from the codes. */
#define YCBCR_Y_OF_CODE(k, code) (((code) - (k).s2) * (1.0f / (k).s3))
#define YCBCR_C_OF_CODE(k, code) (((code) - 128.0f) * (1.0f / (k).s4))
#define YCBCR_RED(k, y, cr) ((y) + 2.0f * (1.0f - (k).s0) * (cr))
#define YCBCR_BLUE(k, y, cb) ((y) + 2.0f * (1.0f - (k).s1) * (cb))
/* G from Y = Kr R + Kg G + Kb B */
#define YCBCR_GREEN(k, y, r, b) (((y) - (k).s0 * (r) - (k).s1 * (b)) * \
    (1.0f / (1.0f - (k).s0 - (k).s1)))
