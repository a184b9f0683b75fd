/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CPUs' kernel for rank-1 kernels with small integer factors, 8-bit
 * samples. Needs prelude.cl. */

#if PX_SAMPLE == 1
/* CPU (PoCL) path for rank-1 kernels whose factors are small integers
 * (binomial Gaussians, boxes, ...): out = sum (col[i] row[j] pixel), exact,
 * then times scale plus bias as above. `fx` holds row[0 .. N) then
 * col[0 .. N). The host chooses this path only when the integer factors
 * reproduce the kernel, 255 * sum |row| fits in a short (horizontal sums in
 * 16-bit lanes) and 255 * sum |row| * sum |col| in a float's 24 bits
 * (vertical sums in float, exact).
 *
 * A work-item computes 16 consecutive bytes of up to FX_STRIP rows in
 * explicit vectors (PoCL maps them to SIMD registers; it does not vectorise
 * such per-item loops across work-items), each input row's horizontal sum
 * once, the last N of them kept in registers as it walks down. It works on
 * bytes, not pixels: the horizontal neighbours of a byte lie BPP bytes away.
 * The last work-item of a row moves back so as to end at the image's edge
 * (recomputing some bytes, with the same values): needs width * BPP >= 16.
 * Segments whose window crosses the left or right edge gather it byte by
 * byte. */
#define FX_STRIP 128
#define FX_SPAN (16 + 2 * R * BPP)   /* bytes of a row's window */

/* The window of the 16 bytes at xb of `row`, borders applied. */
inline void fixed_window (__global const uchar * row, int xb, int width, int border,
    uchar * win)
{
  for (int j = 0; j < FX_SPAN; j++) {
    const int b = xb - R * BPP + j;
    const int px = (b + R * BPP) / BPP - R;   /* floor (b / BPP), b >= -R * BPP */
    const int lane = b - px * BPP;
    const bool outside = px < 0 || px >= width;
    const uchar v = row[border_index (px, width, border) * BPP + lane];
    win[j] = border == BORDER_CONSTANT && outside ? 0 : v;
  }
}

/* 16 bytes at any address as one unaligned vector access (PoCL's vload16
 * and vstore16 may go byte by byte). */
typedef struct __attribute__ ((packed)) { uchar16 v; } fx_bytes16;
#define FX_LOAD(p) (((__global const fx_bytes16 *) (p))->v)

/* Element-wise conversions as plain casts where the compiler has them: PoCL
 * makes library calls of 16-lane convert_* with the vectors in memory. */
#if defined (__has_builtin)
#if __has_builtin (__builtin_convertvector)
#define FX_CONVERT(v, type) __builtin_convertvector (v, type)
#endif
#endif
#ifndef FX_CONVERT
#define FX_CONVERT(v, type) convert_##type (v)
#endif

/* fx_segment's `clip` must be a constant once inlined. */
#if defined (__has_attribute)
#if __has_attribute (always_inline)
#define FX_INLINE inline __attribute__ ((always_inline))
#endif
#endif
#ifndef FX_INLINE
#define FX_INLINE inline
#endif

/* Horizontal sum of the 16 bytes whose window starts at p. */
inline short16 fx_hsum (const short16 * row, __global const uchar * p)
{
  short16 s = 0;
#pragma unroll
  for (int k = 0; k < N; k++)
    s += row[k] * FX_CONVERT (FX_LOAD (p + k * BPP), short16);
  return s;
}

/* The same for a window across the left or right edge of `line`. */
inline short16 fx_hsum_edge (const short16 * row, __global const uchar * line, int xb,
    int width, int border)
{
  uchar win[FX_SPAN];
  fixed_window (line, xb, width, border, win);
  short16 s = 0;
#pragma unroll
  for (int k = 0; k < N; k++)
    s += row[k] * FX_CONVERT (vload16 (0, win + k * BPP), short16);
  return s;
}

/* The output bytes of the rows whose horizontal sums are h[0 .. N). */
inline uchar16 fx_pixels (const float16 * h, const float16 * col, float scale, float bias)
{
  float16 v = col[0] * h[0];
#pragma unroll
  for (int k = 1; k < N; k++)
    v += col[k] * h[k];
  v = v * scale + bias;
#ifdef __AVX__
  /* vcvtps2dq rounds half to even (the default rounding mode), the packs
   * saturate: 8 instructions for convert_uchar16_sat_rte. */
  const short8 lo = convert_short8_sat (as_int8 (__builtin_ia32_cvtps2dq256 (v.lo)));
  const short8 hi = convert_short8_sat (as_int8 (__builtin_ia32_cvtps2dq256 (v.hi)));
  return convert_uchar16_sat ((short16) (lo, hi));
#else
  v = v > 0.0f ? v : 0.0f;
  v = v < 255.0f ? v : 255.0f;
  /* Round half to even: adding 1.5 * 2^23 leaves the integer in the low
   * mantissa bits. */
  return FX_CONVERT (as_int16 (v + 12582912.0f) - 0x4b400000, uchar16);
#endif
}

inline void fx_store (__global uchar * out, int out_stride, __global const uchar * in,
    int in_stride, int xb, int y, uchar16 c)
{
#if LAYOUT == LAYOUT_ALPHA_LAST || LAYOUT == LAYOUT_ALPHA_FIRST
  /* xb is a multiple of 4: alpha and x bytes at fixed lanes, copied. */
  c = keep_alpha_seg (c, FX_LOAD (in + (size_t) y * in_stride + xb));
#endif
  ((__global fx_bytes16 *) (out + (size_t) y * out_stride + xb))->v = c;
}

/* *sum = horizontal sum of window row yy as floats (a pointer: 16-float
 * values are not passed in registers without AVX-512); clip: yy may lie
 * outside. */
inline void fx_row_sum (const short16 * row, __global const uchar * in, int in_stride,
    int xb, int yy, int height, int border, bool clip, float16 * sum)
{
  __global const uchar *line = clip ? row_at (in, in_stride, yy, height, border) :
      in + (size_t) yy * in_stride;
  *sum = line ? FX_CONVERT (fx_hsum (row, line + xb - R * BPP), float16) : 0;
}

/* Rows y0 .. y0 + rows of a segment whose window columns lie inside the
 * image (clip: its window rows may not): the function `name`, whose
 * horizontal row sums, of type sum_t, come from row_sum and whose output
 * bytes come from pixels (with `coef`, the column factors as it wants them).
 * The last N row sums stay in registers; the row loop is unrolled N times
 * so that they rotate instead of moving. */
#define FX_SEGMENT(name, sum_t, coef_t, row_sum, pixels) \
FX_INLINE void name (const short16 * row, const coef_t * coef, \
    __global const uchar * in, int in_stride, __global uchar * out, int out_stride, \
    int xb, int y0, int rows, int height, int border, float scale, float bias, bool clip) \
{ \
  sum_t h[N];   /* horizontal sums of the last N rows, oldest first */ \
  _Pragma ("unroll") \
  for (int k = 0; k < N - 1; k++) \
    row_sum (row, in, in_stride, xb, y0 - R + k, height, border, clip, &h[k + 1]); \
  int o = 0; \
  for (; o + N <= rows; o += N) { \
    _Pragma ("unroll") \
    for (int j = 0; j < N; j++) { \
      _Pragma ("unroll") \
      for (int k = 0; k < N - 1; k++) \
        h[k] = h[k + 1]; \
      row_sum (row, in, in_stride, xb, y0 + o + j + R, height, border, clip, &h[N - 1]); \
      fx_store (out, out_stride, in, in_stride, xb, y0 + o + j, \
          pixels (h, coef, scale, bias)); \
    } \
  } \
  for (; o < rows; o++) { \
    _Pragma ("unroll") \
    for (int k = 0; k < N - 1; k++) \
      h[k] = h[k + 1]; \
    row_sum (row, in, in_stride, xb, y0 + o + R, height, border, clip, &h[N - 1]); \
    fx_store (out, out_stride, in, in_stride, xb, y0 + o, pixels (h, coef, scale, bias)); \
  } \
}

FX_SEGMENT (fx_segment, float16, float16, fx_row_sum, fx_pixels)

#ifdef __AVX2__
/* Symmetric factors (row[k] == row[N-1-k], the same for col) with 510 *
 * sum |row| <= 32767, the host's `symmetric`: taps paired before they are
 * multiplied, as OpenCV does, and the vertical sums in 16-bit lanes through
 * pmaddwd (two products of 16-bit lanes added into a 32-bit lane), about
 * 1.4x faster than the general code below. */

/* Horizontal sum of the 16 bytes whose window starts at p. */
inline short16 fx_sym_hsum (const short16 * row, __global const uchar * p)
{
  short16 s = row[R] * FX_CONVERT (FX_LOAD (p + R * BPP), short16);
#pragma unroll
  for (int k = 0; k < R; k++)
    s += row[k] * (FX_CONVERT (FX_LOAD (p + k * BPP), short16) +
        FX_CONVERT (FX_LOAD (p + (N - 1 - k) * BPP), short16));
  return s;
}

/* The output bytes of the rows whose horizontal sums are h[0 .. N);
 * cpair[i] holds col[2i], col[2i + 1] in alternate lanes. */
inline uchar16 fx_sym_pixels (const short16 * h, const short16 * cpair, float scale,
    float bias)
{
  short16 f[R + 2];   /* h[k] + h[N-1-k] (at most 32767), h[R], 0 */
#pragma unroll
  for (int k = 0; k < R; k++)
    f[k] = h[k] + h[N - 1 - k];
  f[R] = h[R];
  f[R + 1] = 0;
  /* Lanes 0-3, 8-11 (lo) and 4-7, 12-15 (hi) in 32 bits, the order of
   * AVX2's in-lane interleave, which the pack below undoes. */
  int8 lo = 0, hi = 0;
#pragma unroll
  for (int k = 0; k <= R; k += 2) {
    const short16 l = __builtin_shufflevector (f[k], f[k + 1], 0, 16, 1, 17, 2, 18, 3, 19,
        8, 24, 9, 25, 10, 26, 11, 27);
    const short16 u = __builtin_shufflevector (f[k], f[k + 1], 4, 20, 5, 21, 6, 22, 7, 23,
        12, 28, 13, 29, 14, 30, 15, 31);
    lo += as_int8 (__builtin_ia32_pmaddwd256 (l, cpair[k / 2]));
    hi += as_int8 (__builtin_ia32_pmaddwd256 (u, cpair[k / 2]));
  }
  const float8 vlo = FX_CONVERT (lo, float8) * scale + bias;
  const float8 vhi = FX_CONVERT (hi, float8) * scale + bias;
  /* Rounded half to even, saturated to 16 then 8 bits. */
  return convert_uchar16_sat (as_short16 (__builtin_ia32_packssdw256 (
      __builtin_ia32_cvtps2dq256 (vlo), __builtin_ia32_cvtps2dq256 (vhi))));
}

inline void fx_sym_row_sum (const short16 * row, __global const uchar * in, int in_stride,
    int xb, int yy, int height, int border, bool clip, short16 * sum)
{
  __global const uchar *line = clip ? row_at (in, in_stride, yy, height, border) :
      in + (size_t) yy * in_stride;
  *sum = line ? fx_sym_hsum (row, line + xb - R * BPP) : (short16) 0;
}

FX_SEGMENT (fx_sym_segment, short16, short16, fx_sym_row_sum, fx_sym_pixels)
#endif

__kernel void convolve_fixed (__global const uchar * in, int in_offset, int in_stride,
    __global uchar * out, int out_offset, int out_stride, int width, int height,
    __constant int *fx, float scale, float bias, int border, int symmetric)
{
  const int xb = min ((int) get_global_id (0) * 16, width * BPP - 16);
  const int y0 = get_global_id (1) * FX_STRIP;
  const int rows = min (FX_STRIP, height - y0);
  in += in_offset;
  out += out_offset;

  short16 row[N];
  float16 col[N];
#pragma unroll
  for (int k = 0; k < N; k++) {
    row[k] = (short16) ((short) fx[k]);
    col[k] = (float16) ((float) fx[N + k]);
  }
  if (xb >= R * BPP && xb + 16 + R * BPP <= width * BPP) {
    const bool rows_inside = y0 >= R && y0 + rows + R <= height;
#ifdef __AVX2__
    if (symmetric) {
      short16 cpair[R / 2 + 1];
#pragma unroll
      for (int k = 0; k <= R; k += 2) {
        const short c0 = (short) fx[N + k], c1 = k + 1 <= R ? (short) fx[N + k + 1] : 0;
        const short4 c = (short4) (c0, c1, c0, c1);
        cpair[k / 2] = (short16) (c, c, c, c);
      }
      if (rows_inside)
        fx_sym_segment (row, cpair, in, in_stride, out, out_stride, xb, y0, rows, height,
            border, scale, bias, false);
      else
        fx_sym_segment (row, cpair, in, in_stride, out, out_stride, xb, y0, rows, height,
            border, scale, bias, true);
      return;
    }
#endif
    /* Two copies: most strips need no border rule for their rows. */
    if (rows_inside)
      fx_segment (row, col, in, in_stride, out, out_stride, xb, y0, rows, height, border,
          scale, bias, false);
    else
      fx_segment (row, col, in, in_stride, out, out_stride, xb, y0, rows, height, border,
          scale, bias, true);
    return;
  }
  float16 h[N];
  for (int r = 0; r < rows + N - 1; r++) {
    const int yy = y0 - R + r;
    __global const uchar *line = in + (size_t) border_index (yy, height, border) * in_stride;
    const short16 s = fx_hsum_edge (row, line, xb, width, border);
    const bool zero = border == BORDER_CONSTANT && (yy < 0 || yy >= height);
#pragma unroll
    for (int k = 0; k < N - 1; k++)
      h[k] = h[k + 1];
    h[N - 1] = zero ? (float16) 0 : FX_CONVERT (s, float16);
    if (r < N - 1)
      continue;
    fx_store (out, out_stride, in, in_stride, xb, y0 + r - (N - 1),
        fx_pixels (h, col, scale, bias));
  }
}
#endif  /* PX_SAMPLE == 1 */
