/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Bayer demosaic: Malvar-He-Cutler 2004 or bilinear, 8- to 16-bit samples.
 * The options, types and window of every debayer program.
 *
 * Every pattern is RGGB shifted by (phase_x, phase_y): the colour at (x, y)
 * is the RGGB colour at (x + phase_x, y + phase_y). Each work-item computes a
 * block of 8 x 2 pixels that starts on an RGGB cell: row 0 is R G R G ...,
 * row 1 G B G B .... The four pixels of one colour in a row of the block
 * (the even or the odd columns) are computed together as an int4, so every
 * filter is a handful of vector operations (SIMD on CPUs through PoCL).
 *
 * The block reads a 12 x 6 window (2 samples of margin for the 5x5 filters),
 * kept per row as its even and odd columns. Samples outside the image are
 * mirrored about the edge sample (reflect-101, repeated for images smaller
 * than the filter), which keeps the Bayer phase.
 *
 * Integer arithmetic throughout, so that the result is exactly defined
 * (maxv = 2^bits - 1, samples above it are clamped to it):
 *   malvar    the paper's coefficients x 16, sum S, value clamp((S + 8) >> 4,
 *             0, maxv) (round half up)
 *   bilinear  (a + b + 1) >> 1 and (a + b + c + d + 2) >> 2
 *   output    16-bit: round(v * 65535 / maxv), 8-bit: round(v * 255 / maxv)
 *             (no ties exist: maxv is odd); GRAY8 is
 *             (77 R + 150 G + 29 B + 128) >> 8 of the 8-bit channels.
 *
 * Build options (the rest are arguments, so that few variants get built):
 *   IN_16         0: 8-bit samples, 1: 16-bit little-endian words
 *   METHOD        0 malvar, 1 bilinear
 *   OUT_*         the output pixel's shape (gstclpixel.hpp): OUT_CH channels
 *                 per pixel, 1 (GRAY8, the Y plane), 3 (RGB/BGR) or 4;
 *                 OUT_SAMPLE 2 for 16-bit channels (RGBA64_LE), else 1;
 *                 OUT_YUV (with CAMERA) YUV_NV12 or YUV_I420. Where each
 *                 channel goes is the `layout` argument.
 *   ALIGNED       1: 4-channel output, rows and offsets of both images
 *                 multiples of 16 bytes (the host checks). Blocks then start
 *                 on multiples of 8 image columns rather than on RGGB cells,
 *                 so that the hot path reads and writes through vector
 *                 pointers (one 128-bit store per 4 or 2 pixels): NVIDIA
 *                 splits vloadN / vstoreN on uchar and ushort pointers into
 *                 single bytes or words (16 times slower for 16-bit output).
 *   PHASE_X       with ALIGNED: the pattern's column shift (0 or 1), so that
 *                 the block's colours are known at compile time
 *   CAMERA        1: the camera variants (stages.cl): black level,
 *                 white balance, demosaic, colour matrix and transfer curve
 *                 in float, blocks on even rows and columns (PHASE_X and
 *                 PHASE_Y given), output also NV12 / I420 (OUT_YUV)
 *
 * The programs (the host's variant table, gstcldebayervariants.cpp) are
 * this file and, in order:
 *   exact (debayer)         filters.cl io.cl exact.cl
 *   cells (debayer_cells, debayer_edge; debayer_cells16)   filters.cl io.cl
 *                           cells.cl
 *   camera kernels          (color.cl before this file) filters.cl io.cl
 *                           stages.cl curve.cl stats.cl output.cl sensor.cl
 *                           (debayer_sensor), then camera.cl
 *                           (debayer_camera), menon.cl (debayer_menon), or
 *                           strips.cl menon_cpu.cl sensor_cpu.cl
 *                           (debayer_menon_cpu, debayer_sensor_cpu), or
 *                           strips.cl camera_cpu.cl camera_sensor_cpu.cl
 *                           (debayer_camera_cpu, debayer_camera_sensor_cpu)
 */

#ifndef ALIGNED
#define ALIGNED 0
#endif
#ifndef CAMERA
#define CAMERA 0
#endif
#ifndef OUT_YUV
#define OUT_YUV 0
#endif
#if ALIGNED && OUT_CH != 4 && !OUT_YUV
#error "ALIGNED is for 4-channel and YUV output only"
#endif
#if ALIGNED || CAMERA
#define PX PHASE_X
#else
#define PX 0
#endif

/* The arithmetic of the filters: exact integers, or float in the camera
 * variant (no rounding until the output). */
#if CAMERA
typedef float8 win_t;
typedef float4 px_t;
typedef float elem_t;
#else
typedef int8 win_t;
typedef int4 px_t;
typedef int elem_t;
#endif

#ifndef __ENDIAN_LITTLE__
#error "little-endian devices only (samples are little-endian words)"
#endif

#if IN_16
typedef ushort in_t;
#else
typedef uchar in_t;
#endif

#if OUT_SAMPLE == 2
typedef ushort out_t;
#define OUT_MAX 65535u
#else
typedef uchar out_t;
#define OUT_MAX 255u
#endif

/* 2^23 + v rounds to an integer in float, whose mantissa then holds it: a
 * float v rounded to the nearest integer (ties to even) is as_uint (v +
 * U2F_BASE) & 0x7fffff for v in [0, 2^23) (round_code8), and as_float (v |
 * U2F_BITS) - U2F_BASE an integer v below 2^23 as a float. No conversion
 * instructions (a quarter of the arithmetic rate on NVIDIA GPUs). */
#define U2F_BASE 8388608.0f
#define U2F_BITS 0x4b000000

#define BLOCK_W 8
#define WIN_W 12
#define WIN_H 6

/* Row r of the window as seen from the 4 pixels at the even (parity 0) or
 * odd (parity 1) columns of the block, d columns to the side: window column
 * 2 + parity + 2 i + d for i = 0..3. `e` and `o` hold the even and odd
 * window columns of each row. */
inline px_t at (const win_t * e, const win_t * o, int parity, int r, int d)
{
  switch (parity + d) {
    case -2: return e[r].s0123;
    case -1: return o[r].s0123;
    case 0: return e[r].s1234;
    case 1: return o[r].s1234;
    case 2: return e[r].s2345;
    default: return o[r].s2345;   /* 3: parity 1, d 2 */
  }
}

/* Row r + dr, d columns to the side, of the pixels of parity p. */
#define A(dr, d) at (e, o, p, r + (dr), (d))
