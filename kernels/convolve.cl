/* NxN convolution of 8-bit pixels, each colour channel with its own weights.
 * Every kernel computes, per colour lane,
 *   out = saturate (rint (sum (w * pixel) * scale + bias))
 * and copies the alpha (or x) byte of 4-byte formats from the input.
 *
 * Build options:
 *   N        kernel side, odd, 1..31 (a constant, so that loops unroll)
 *   LAYOUT   LAYOUT_GRAY | LAYOUT_RGB | LAYOUT_ALPHA_LAST | LAYOUT_ALPHA_FIRST
 *   TILE_W TILE_H  work-group size of convolve_tiled
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

#define R (N / 2)
#define W_ROWS (N * N)
#define W_COLS (N * N + N)

#if LAYOUT == LAYOUT_GRAY
#define BPP 1
typedef float acc_t;
typedef uchar pix_t;
#define TO_ACC convert_float
#define TO_PIX_SAT convert_uchar_sat_rte
#else
#define BPP (LAYOUT == LAYOUT_RGB ? 3 : 4)
typedef float4 acc_t;         /* colour in xyz, w unused (its weights are 0) */
typedef uchar4 pix_t;
#define TO_ACC convert_float4
#define TO_PIX_SAT convert_uchar4_sat_rte
#endif

/* The colour bytes of the pixel at p, in lanes x, y, z. */
inline pix_t load_pixel (__global const uchar * p)
{
#if LAYOUT == LAYOUT_GRAY
  return p[0];
#elif LAYOUT == LAYOUT_RGB
  return (uchar4) (vload3 (0, p), 0);
#elif LAYOUT == LAYOUT_ALPHA_LAST
  return vload4 (0, p);
#else
  return vload4 (0, p).yzwx;
#endif
}

/* Writes the result at p; `src` is the input pixel, for its alpha byte. */
inline void store_pixel (__global uchar * p, __global const uchar * src, acc_t value)
{
  const pix_t c = TO_PIX_SAT (value);
#if LAYOUT == LAYOUT_GRAY
  p[0] = c;
#elif LAYOUT == LAYOUT_RGB
  vstore3 (c.xyz, 0, p);
#elif LAYOUT == LAYOUT_ALPHA_LAST
  vstore4 ((uchar4) (c.xyz, src[3]), 0, p);
#else
  vstore4 ((uchar4) (src[0], c.xyz), 0, p);
#endif
}

/* 16 bytes of 4-byte pixels in memory order: the colour bytes of `result`
 * and the alpha (or x) bytes of `centre`, the input. */
inline uchar16 keep_alpha16 (uchar16 result, uchar16 centre)
{
#if LAYOUT == LAYOUT_ALPHA_LAST
  const uchar4 a = (uchar4) (0, 0, 0, 0xff);
#elif LAYOUT == LAYOUT_ALPHA_FIRST
  const uchar4 a = (uchar4) (0xff, 0, 0, 0);
#else
  const uchar4 a = (uchar4) (0);
#endif
  const uchar16 alpha = (uchar16) (a, a, a, a);
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

inline void store_result (__global uchar * out, int out_stride, __global const uchar * in,
    int in_stride, int x, int y, acc_t sum, acc_t scale, acc_t bias)
{
  store_pixel (out + (size_t) y * out_stride + (size_t) x * BPP,
      in + (size_t) y * in_stride + (size_t) x * BPP, sum * scale + bias);
}

/* One output per work-item, straight from global memory: small N. */
__kernel void convolve_direct (__global const uchar * in, int in_offset, int in_stride,
    __global uchar * out, int out_offset, int out_stride, int width, int height,
    __constant acc_t * w, acc_t scale, acc_t bias, int border)
{
  const int x = get_global_id (0);
  const int y = get_global_id (1);
  if (x >= width || y >= height)
    return;
  in += in_offset;
  out += out_offset;

  acc_t sum = 0;
  if (x >= R && y >= R && x + R < width && y + R < height) {
    __global const uchar *p = in + (size_t) (y - R) * in_stride + (size_t) (x - R) * BPP;
    for (int ky = 0; ky < N; ky++, p += in_stride)
      for (int kx = 0; kx < N; kx++)
        sum += w[ky * N + kx] * TO_ACC (load_pixel (p + kx * BPP));
  } else {
    for (int ky = 0; ky < N; ky++)
      for (int kx = 0; kx < N; kx++)
        sum += w[ky * N + kx] *
            TO_ACC (fetch (in, in_stride, x - R + kx, y - R + ky, width, height, border));
  }
  store_result (out, out_stride, in, in_stride, x, y, sum, scale, bias);
}

#if N == 3
/* The 3x3 fast path: four outputs of a row per work-item from a 6x3 window
 * held in registers, the nine weights loaded once. */
__kernel void convolve_3x3 (__global const uchar * in, int in_offset, int in_stride,
    __global uchar * out, int out_offset, int out_stride, int width, int height,
    __constant acc_t * w, acc_t scale, acc_t bias, int border)
{
  const int x0 = get_global_id (0) * 4;
  const int y = get_global_id (1);
  if (x0 >= width || y >= height)
    return;
  in += in_offset;
  out += out_offset;

  acc_t k[9];
  for (int i = 0; i < 9; i++)
    k[i] = w[i];
  acc_t sum[4];
  for (int o = 0; o < 4; o++)
    sum[o] = 0;
  for (int ky = 0; ky < 3; ky++) {
    const int yy = y - 1 + ky;
    acc_t p[6];
    if (x0 >= 1 && x0 + 4 < width && yy >= 0 && yy < height) {
      __global const uchar *row = in + (size_t) yy * in_stride + (size_t) (x0 - 1) * BPP;
      for (int i = 0; i < 6; i++)
        p[i] = TO_ACC (load_pixel (row + i * BPP));
    } else {
      for (int i = 0; i < 6; i++)
        p[i] = TO_ACC (fetch (in, in_stride, x0 - 1 + i, yy, width, height, border));
    }
    for (int o = 0; o < 4; o++)
      sum[o] += k[3 * ky] * p[o] + k[3 * ky + 1] * p[o + 1] + k[3 * ky + 2] * p[o + 2];
  }
  for (int o = 0; o < 4 && x0 + o < width; o++)
    store_result (out, out_stride, in, in_stride, x0 + o, y, sum[o], scale, bias);
}
#endif

#if N == 3 && (BPP == 1 || BPP == 4)
/* The 3x3 path for rows aligned to 16 bytes: each work-item reads and writes
 * one aligned 16-byte segment per row (16 GRAY8 or 4 RGBA pixels) through
 * vector pointers, which compilers emit as single 128-bit accesses (vloadN
 * of uchar only promises byte alignment and may become N byte loads). The
 * arithmetic runs on all 16 bytes in memory order, each lane as in
 * convolve_3x3. Only for buffers whose offsets and strides are multiples of
 * 16 bytes. */
#define SEG_PIXELS (16 / BPP)

#if BPP == 4
typedef uchar4 raw_t;         /* one pixel's bytes in memory order */
#define RAW_AT(row, x) (*(__global const uchar4 *) ((row) + (x) * 4))
#define RAW_TO_FLOAT convert_float4
#else
typedef uchar raw_t;
#define RAW_AT(row, x) ((row)[x])
#define RAW_TO_FLOAT convert_float
#endif

/* The pixel x of a row (already chosen with the border applied), raw. */
inline raw_t fetch_raw (__global const uchar * row, int x, int width, int border)
{
  if (border == BORDER_CONSTANT && (x < 0 || x >= width))
    return (raw_t) 0;
  return RAW_AT (row, border_index (x, width, border));
}

/* A weight, scale or bias of lane order (colour in xyz) for 16 bytes of
 * memory. */
inline float16 lanes_of (acc_t v)
{
#if BPP == 1
  return (float16) (v);
#elif LAYOUT == LAYOUT_ALPHA_FIRST
  return (float16) (v.wxyz, v.wxyz, v.wxyz, v.wxyz);
#else
  return (float16) (v, v, v, v);
#endif
}

__kernel void convolve_3x3_aligned (__global const uchar * in, int in_offset,
    int in_stride, __global uchar * out, int out_offset, int out_stride, int width,
    int height, __constant acc_t * w, acc_t scale, acc_t bias, int border)
{
  const int x0 = get_global_id (0) * SEG_PIXELS;
  const int y = get_global_id (1);
  if (x0 >= width || y >= height)
    return;
  in += in_offset;
  out += out_offset;
  /* Only the last segment of a row may stick out of the image. */
  const bool whole = x0 + SEG_PIXELS <= width;
  /* Nearly every item: the window lies inside the image, no border rule
   * (twice as fast on GPUs as going through it). */
  const bool interior = x0 >= 1 && x0 + SEG_PIXELS < width && y >= 1 && y + 1 < height;

  float16 sum = 0;
  uchar16 centre = 0;
#pragma unroll
  for (int ky = 0; ky < 3; ky++) {
    const int yy = y - 1 + ky;
    uchar16 seg = 0;
    raw_t left = 0, right = 0;
    if (interior) {
      __global const uchar *row = in + (size_t) yy * in_stride;
      seg = *(__global const uchar16 *) (row + x0 * BPP);
      left = RAW_AT (row, x0 - 1);
      right = RAW_AT (row, x0 + SEG_PIXELS);
    } else if (border != BORDER_CONSTANT || (yy >= 0 && yy < height)) {
      __global const uchar *row = in + (size_t) border_index (yy, height, border) *
          in_stride;
      if (whole) {
        seg = *(__global const uchar16 *) (row + x0 * BPP);
      } else {
        raw_t part[SEG_PIXELS];
        for (int i = 0; i < SEG_PIXELS; i++)
          part[i] = fetch_raw (row, x0 + i, width, border);
        seg = vload16 (0, (const uchar *) part);
      }
      left = fetch_raw (row, x0 - 1, width, border);
      right = fetch_raw (row, x0 + SEG_PIXELS, width, border);
    }
    if (ky == 1)
      centre = seg;
    const float16 c = convert_float16 (seg);
#if BPP == 4
    const float16 l = (float16) (RAW_TO_FLOAT (left), c.s0123, c.s4567, c.s89ab);
    const float16 r = (float16) (c.s4567, c.s89ab, c.scdef, RAW_TO_FLOAT (right));
#else
    const float16 l = (float16) (RAW_TO_FLOAT (left), c.s0123, c.s4567, c.s89ab, c.scde);
    const float16 r = (float16) (c.s1234, c.s5678, c.s9abc, c.sdef, RAW_TO_FLOAT (right));
#endif
    sum += lanes_of (w[3 * ky]) * l + lanes_of (w[3 * ky + 1]) * c +
        lanes_of (w[3 * ky + 2]) * r;
  }
  uchar16 result = convert_uchar16_sat_rte (sum * lanes_of (scale) + lanes_of (bias));
  result = keep_alpha16 (result, centre);

  __global uchar *dst = out + (size_t) y * out_stride + x0 * BPP;
  if (whole) {
    *(__global uchar16 *) dst = result;
  } else {
    uchar bytes[16];
    vstore16 (result, 0, bytes);
    for (int i = 0; i < (width - x0) * BPP; i++)
      dst[i] = bytes[i];
  }
}
#endif

/* Large N: each work-group loads its (TILE + N - 1)^2 input window, borders
 * applied, into local memory once, and reads every tap from there. */
__kernel __attribute__ ((reqd_work_group_size (TILE_W, TILE_H, 1)))
void convolve_tiled (__global const uchar * in, int in_offset, int in_stride,
    __global uchar * out, int out_offset, int out_stride, int width, int height,
    __constant acc_t * w, acc_t scale, acc_t bias, int border)
{
#define SPAN_W (TILE_W + N - 1)
#define SPAN_H (TILE_H + N - 1)
  __local pix_t tile[SPAN_H][SPAN_W];
  const int lx = get_local_id (0);
  const int ly = get_local_id (1);
  const int x0 = get_group_id (0) * TILE_W - R;
  const int y0 = get_group_id (1) * TILE_H - R;
  in += in_offset;
  out += out_offset;

  for (int i = ly * TILE_W + lx; i < SPAN_W * SPAN_H; i += TILE_W * TILE_H) {
    const int ty = i / SPAN_W;
    const int tx = i - ty * SPAN_W;
    tile[ty][tx] = fetch (in, in_stride, x0 + tx, y0 + ty, width, height, border);
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  const int x = get_global_id (0);
  const int y = get_global_id (1);
  if (x >= width || y >= height)
    return;
  acc_t sum = 0;
  for (int ky = 0; ky < N; ky++)
    for (int kx = 0; kx < N; kx++)
      sum += w[ky * N + kx] * TO_ACC (tile[ly + ky][lx + kx]);
  store_result (out, out_stride, in, in_stride, x, y, sum, scale, bias);
#undef SPAN_W
#undef SPAN_H
}

/* Rank-1 kernels, first pass: rows into a float image tmp (width x height). */
__kernel void convolve_rows (__global const uchar * in, int in_offset, int in_stride,
    __global acc_t * tmp, int width, int height, __constant acc_t * w, int border)
{
  const int x = get_global_id (0);
  const int y = get_global_id (1);
  if (x >= width || y >= height)
    return;
  in += in_offset;

  acc_t sum = 0;
  if (x >= R && x + R < width) {
    __global const uchar *p = in + (size_t) y * in_stride + (size_t) (x - R) * BPP;
    for (int k = 0; k < N; k++)
      sum += w[W_ROWS + k] * TO_ACC (load_pixel (p + k * BPP));
  } else {
    for (int k = 0; k < N; k++)
      sum += w[W_ROWS + k] * TO_ACC (fetch (in, in_stride, x - R + k, y, width, height,
          border));
  }
  tmp[(size_t) y * width + x] = sum;
}

/* Second pass: columns of tmp, then scale, bias and the output bytes. */
__kernel void convolve_columns (__global const acc_t * tmp, __global const uchar * in,
    int in_offset, int in_stride, __global uchar * out, int out_offset, int out_stride,
    int width, int height, __constant acc_t * w, acc_t scale, acc_t bias, int border)
{
  const int x = get_global_id (0);
  const int y = get_global_id (1);
  if (x >= width || y >= height)
    return;
  in += in_offset;
  out += out_offset;

  acc_t sum = 0;
  if (y >= R && y + R < height) {
    __global const acc_t *p = tmp + (size_t) (y - R) * width + x;
    for (int k = 0; k < N; k++)
      sum += w[W_COLS + k] * p[(size_t) k * width];
  } else {
    for (int k = 0; k < N; k++) {
      const int yy = y - R + k;
      if (border == BORDER_CONSTANT && (yy < 0 || yy >= height))
        continue;
      sum += w[W_COLS + k] * tmp[(size_t) border_index (yy, height, border) * width + x];
    }
  }
  store_result (out, out_stride, in, in_stride, x, y, sum, scale, bias);
}

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
  c = keep_alpha16 (c, FX_LOAD (in + (size_t) y * in_stride + xb));
#endif
  ((__global fx_bytes16 *) (out + (size_t) y * out_stride + xb))->v = c;
}

/* Image row of window row yy, border applied; null for BORDER_CONSTANT
 * outside. */
inline __global const uchar *fx_line (__global const uchar * in, int in_stride, int yy,
    int height, int border)
{
  if (yy >= 0 && yy < height)
    return in + (size_t) yy * in_stride;
  if (border == BORDER_CONSTANT)
    return 0;
  return in + (size_t) border_index (yy, height, border) * in_stride;
}

/* *sum = horizontal sum of window row yy as floats (a pointer: 16-float
 * values are not passed in registers without AVX-512); clip: yy may lie
 * outside. */
inline void fx_row_sum (const short16 * row, __global const uchar * in, int in_stride,
    int xb, int yy, int height, int border, bool clip, float16 * sum)
{
  __global const uchar *line = clip ? fx_line (in, in_stride, yy, height, border) :
      in + (size_t) yy * in_stride;
  *sum = line ? FX_CONVERT (fx_hsum (row, line + xb - R * BPP), float16) : 0;
}

/* Rows y0 .. y0 + rows of a segment whose window columns lie inside the
 * image (clip: its window rows may not). */
FX_INLINE void fx_segment (const short16 * row, const float16 * col,
    __global const uchar * in, int in_stride, __global uchar * out, int out_stride,
    int xb, int y0, int rows, int height, int border, float scale, float bias, bool clip)
{
  float16 h[N];   /* horizontal sums of the last N rows, oldest first */
#pragma unroll
  for (int k = 0; k < N - 1; k++)
    fx_row_sum (row, in, in_stride, xb, y0 - R + k, height, border, clip, &h[k + 1]);
  int o = 0;
  /* Unrolled N times, the window's registers rotate instead of moving. */
  for (; o + N <= rows; o += N) {
#pragma unroll
    for (int j = 0; j < N; j++) {
#pragma unroll
      for (int k = 0; k < N - 1; k++)
        h[k] = h[k + 1];
      fx_row_sum (row, in, in_stride, xb, y0 + o + j + R, height, border, clip, &h[N - 1]);
      fx_store (out, out_stride, in, in_stride, xb, y0 + o + j,
          fx_pixels (h, col, scale, bias));
    }
  }
  for (; o < rows; o++) {
#pragma unroll
    for (int k = 0; k < N - 1; k++)
      h[k] = h[k + 1];
    fx_row_sum (row, in, in_stride, xb, y0 + o + R, height, border, clip, &h[N - 1]);
    fx_store (out, out_stride, in, in_stride, xb, y0 + o, fx_pixels (h, col, scale, bias));
  }
}

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
  __global const uchar *line = clip ? fx_line (in, in_stride, yy, height, border) :
      in + (size_t) yy * in_stride;
  *sum = line ? fx_sym_hsum (row, line + xb - R * BPP) : (short16) 0;
}

/* fx_segment for symmetric factors. */
FX_INLINE void fx_sym_segment (const short16 * row, const short16 * cpair,
    __global const uchar * in, int in_stride, __global uchar * out, int out_stride,
    int xb, int y0, int rows, int height, int border, float scale, float bias, bool clip)
{
  short16 h[N];
#pragma unroll
  for (int k = 0; k < N - 1; k++)
    fx_sym_row_sum (row, in, in_stride, xb, y0 - R + k, height, border, clip, &h[k + 1]);
  int o = 0;
  for (; o + N <= rows; o += N) {
#pragma unroll
    for (int j = 0; j < N; j++) {
#pragma unroll
      for (int k = 0; k < N - 1; k++)
        h[k] = h[k + 1];
      fx_sym_row_sum (row, in, in_stride, xb, y0 + o + j + R, height, border, clip,
          &h[N - 1]);
      fx_store (out, out_stride, in, in_stride, xb, y0 + o + j,
          fx_sym_pixels (h, cpair, scale, bias));
    }
  }
  for (; o < rows; o++) {
#pragma unroll
    for (int k = 0; k < N - 1; k++)
      h[k] = h[k + 1];
    fx_sym_row_sum (row, in, in_stride, xb, y0 + o + R, height, border, clip, &h[N - 1]);
    fx_store (out, out_stride, in, in_stride, xb, y0 + o,
        fx_sym_pixels (h, cpair, scale, bias));
  }
}
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
