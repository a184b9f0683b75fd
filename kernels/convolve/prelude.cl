/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* NxN convolution of 8- or 16-bit pixels (PX_SAMPLE 1 or 2), each colour
 * channel with its own weights. The integer kernels are for 8-bit pixels
 * only; 16-bit ones take the float paths (direct, 3x3, tiled, the one-pass
 * and two-pass rank-1 kernels).
 * Every kernel computes, per colour lane,
 *   out = saturate (rint (sum (w * pixel) * scale + bias))
 * and copies the alpha (or x) byte of 4-byte formats from the input.
 *
 * The files of kernels/convolve/ make one program: the engine
 * (gst/elements/convolution/gstclconvolution.cpp) builds common.cl then all
 * of them, in this order, once per N and pixel shape, and takes from it the
 * kernels that the shape has (each file's #if says which):
 *   prelude.cl    this file: the pixel types, loads, stores and border
 *                 rules of every kernel; each file below needs it (and
 *                 common.cl) and nothing else
 *   direct.cl     convolve_direct (any N), convolve_3x3 (N 3)
 *   aligned.cl    for rows aligned to 16 bytes, N 3: convolve_3x3_aligned
 *                 (1- and 4-sample pixels), convolve_3x3_int (4-byte
 *                 pixels, GPUs; it reads through the former's raw helpers)
 *   tiled.cl      convolve_tiled (large N)
 *   separable.cl  convolve_rows, convolve_columns (rank 1, two passes)
 *   one_pass.cl   convolve_separable, convolve_separable_int (4-byte
 *                 pixels): rank 1 in one pass, GPUs; only with SEP_TW
 *   fixed.cl      convolve_fixed (8-bit samples, integer rank-1 factors,
 *                 CPUs)
 *
 * Build options:
 *   N        kernel side, odd, 1..31 (a constant, so that loops unroll)
 *   PX_*     the pixel's shape (gstclpixel.hpp; the channel order is in the
 *            weights' lanes, so one program serves RGB and BGR, RGBA and BGRx)
 *   TILE_W TILE_H  work-group size of convolve_tiled
 *   SEP_TW SEP_TH  work-group size of convolve_separable(_int), SEP_S the
 *                  outputs per item of its column pass, SEP_PX per step of
 *                  its row pass (a multiple of 4)
 *   ALIGNED_ROWS   output rows a work-item of convolve_3x3_aligned (1 or 2;
 *                  1 when not given)
 * Arguments common to all: `border` is a BORDER_* value; `w` holds the
 * weights as acc_t, one lane per colour byte in memory order:
 *   w[0 .. N*N)            the 2-D taps, row-major
 *   w[N*N .. N*N+N)        row factors   } of a rank-1 kernel, used by
 *   w[N*N+N .. N*N+2N)     column factors} convolve_rows/_columns
 * The weights are a buffer, not build options: a new kernel of the same size
 * needs no rebuild. */

#define LAYOUT_GRAY 0         /* 1 byte */
#define LAYOUT_RGB 1          /* 3 colour bytes */
#define LAYOUT_ALPHA_LAST 2   /* 3 colour bytes, then alpha or x */
#define LAYOUT_ALPHA_FIRST 3  /* alpha or x, then 3 colour bytes */
#if PX_CH == 1
#define LAYOUT LAYOUT_GRAY
#elif PX_CH == 3
#define LAYOUT LAYOUT_RGB
#elif PX_FOURTH == 3
#define LAYOUT LAYOUT_ALPHA_LAST
#else
#define LAYOUT LAYOUT_ALPHA_FIRST
#endif

#define R (N / 2)
#define W_ROWS (N * N)
#define W_COLS (N * N + N)

#define BPP PX_BPP              /* bytes per pixel */
#if PX_SAMPLE == 2
typedef ushort sample_t;
typedef ushort4 sample4_t;
#define TO_SAMPLE_SAT convert_ushort_sat_rte
#define TO_SAMPLE4_SAT convert_ushort4_sat_rte
#else
typedef uchar sample_t;
typedef uchar4 sample4_t;
#define TO_SAMPLE_SAT convert_uchar_sat_rte
#define TO_SAMPLE4_SAT convert_uchar4_sat_rte
#endif

#if LAYOUT == LAYOUT_GRAY
typedef float acc_t;
typedef sample_t pix_t;
#define TO_ACC convert_float
#define TO_PIX_SAT TO_SAMPLE_SAT
#else
typedef float4 acc_t;         /* colour in xyz, w unused (its weights are 0) */
typedef sample4_t pix_t;
#define TO_ACC convert_float4
#define TO_PIX_SAT TO_SAMPLE4_SAT
#endif

/* The colour samples of the pixel at p, in lanes x, y, z. */
inline pix_t load_pixel (__global const uchar * at)
{
  __global const sample_t *p = (__global const sample_t *) at;
#if LAYOUT == LAYOUT_GRAY
  return p[0];
#elif LAYOUT == LAYOUT_RGB
  return (pix_t) (vload3 (0, p), 0);
#elif LAYOUT == LAYOUT_ALPHA_LAST
  return vload4 (0, p);
#else
  return vload4 (0, p).yzwx;
#endif
}

/* Writes the result at p; `src` is the input pixel, for its alpha sample. */
inline void store_pixel (__global uchar * at, __global const uchar * src_at, acc_t value)
{
  __global sample_t *p = (__global sample_t *) at;
  __global const sample_t *src = (__global const sample_t *) src_at;
  const pix_t c = TO_PIX_SAT (value);
#if LAYOUT == LAYOUT_GRAY
  p[0] = c;
#elif LAYOUT == LAYOUT_RGB
  vstore3 (c.xyz, 0, p);
#elif LAYOUT == LAYOUT_ALPHA_LAST
  vstore4 ((pix_t) (c.xyz, src[3]), 0, p);
#else
  vstore4 ((pix_t) (src[0], c.xyz), 0, p);
#endif
}

/* A segment: 16 samples in memory order (16 bytes of 8-bit pixels, 32 of
 * 16-bit ones), the unit of the aligned kernels. */
#if PX_SAMPLE == 2
typedef ushort16 seg_t;
#define SAMPLE_ONES 0xffff
#else
typedef uchar16 seg_t;
#define SAMPLE_ONES 0xff
#endif

/* A segment of 4-sample pixels: the colour samples of `result` and the
 * alpha (or x) samples of `centre`, the input. */
inline seg_t keep_alpha_seg (seg_t result, seg_t centre)
{
#if LAYOUT == LAYOUT_ALPHA_LAST
  const sample4_t a = (sample4_t) (0, 0, 0, SAMPLE_ONES);
#elif LAYOUT == LAYOUT_ALPHA_FIRST
  const sample4_t a = (sample4_t) (SAMPLE_ONES, 0, 0, 0);
#else
  const sample4_t a = (sample4_t) (0);
#endif
  const seg_t alpha = (seg_t) (a, a, a, a);
  return (result & ~alpha) | (centre & alpha);
}

/* The pixel at (x, y), which may lie outside the image. */
inline pix_t fetch (__global const uchar * in, int stride, int x, int y, int width,
    int height, int border)
{
  if (border == BORDER_CONSTANT && (x < 0 || y < 0 || x >= width || y >= height))
    return (pix_t) 0;
  x = border_index (x, width, border);
  y = border_index (y, height, border);
  return load_pixel (in + (size_t) y * stride + (size_t) x * BPP);
}

/* Input row yy, the vertical border rule applied; 0 (a null pointer) when
 * it lies outside the image under BORDER_CONSTANT. */
inline __global const uchar *row_at (__global const uchar * in, int in_stride, int yy,
    int height, int border)
{
  if (yy >= 0 && yy < height)
    return in + (size_t) yy * in_stride;
  if (border == BORDER_CONSTANT)
    return 0;
  return in + (size_t) border_index (yy, height, border) * in_stride;
}

inline void store_result (__global uchar * out, int out_stride, __global const uchar * in,
    int in_stride, int x, int y, acc_t sum, acc_t scale, acc_t bias)
{
  store_pixel (out + (size_t) y * out_stride + (size_t) x * BPP,
      in + (size_t) y * in_stride + (size_t) x * BPP, sum * scale + bias);
}
