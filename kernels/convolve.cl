/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* NxN convolution of 8- or 16-bit pixels (PX_SAMPLE 1 or 2), each colour
 * channel with its own weights. The integer kernels are for 8-bit pixels
 * only; 16-bit ones take the float paths (direct, 3x3, tiled, the one-pass
 * and two-pass rank-1 kernels).
 * Every kernel computes, per colour lane,
 *   out = saturate (rint (sum (w * pixel) * scale + bias))
 * and copies the alpha (or x) byte of 4-byte formats from the input.
 *
 * Build options:
 *   N        kernel side, odd, 1..31 (a constant, so that loops unroll)
 *   PX_*     the pixel's shape (gstclpixel.hpp; the channel order is in the
 *            weights' lanes, so one program serves RGB and BGR, RGBA and BGRx)
 *   TILE_W TILE_H  work-group size of convolve_tiled
 *   SEP_TW SEP_TH  work-group size of convolve_separable(_int), SEP_S the
 *                  outputs per item of its column pass, SEP_PX per step of
 *                  its row pass (a multiple of 4)
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

#if N == 3 && PX_CH != 3
/* The 3x3 path for rows aligned to 16 bytes: each work-item reads and writes
 * one aligned segment of 16 samples per row (16 bytes of 8-bit pixels:
 * 16 GRAY8 or 4 RGBA; 32 bytes of 16-bit ones: 16 GRAY16 or 4 RGBA64)
 * through vector pointers, which compilers emit as single 128-bit accesses
 * (vloadN of uchar or ushort only promises the sample's alignment, and
 * NVIDIA splits it into N narrow accesses: the 16-bit formats ran at a fifth
 * of the 8-bit ones' bytes/s through convolve_3x3). The arithmetic runs on
 * all 16 samples in memory order, each lane as in convolve_3x3. Only for
 * buffers whose offsets and strides are multiples of 16 bytes. */
#define SEG_BYTES (16 * PX_SAMPLE)
#define SEG_PIXELS (SEG_BYTES / BPP)

#if PX_SAMPLE == 2
#define SEG_TO_SAMPLES_SAT convert_ushort16_sat_rte
/* Two 16-byte halves: the rows vouch for 16 bytes, not 32. */
#define SEG_AT(p) ((seg_t) (*(__global const ushort8 *) (p), \
      *(__global const ushort8 *) ((p) + 16)))
#define SEG_STORE(p, v) do { *(__global ushort8 *) (p) = (v).lo; \
      *(__global ushort8 *) ((p) + 16) = (v).hi; } while (0)
#else
#define SEG_TO_SAMPLES_SAT convert_uchar16_sat_rte
#define SEG_AT(p) (*(__global const uchar16 *) (p))
#define SEG_STORE(p, v) (*(__global uchar16 *) (p) = (v))
#endif

#if PX_CH == 1
typedef sample_t raw_t;       /* one pixel's samples in memory order */
#define RAW_TO_FLOAT convert_float
#else
typedef sample4_t raw_t;
#define RAW_TO_FLOAT convert_float4
#endif
#define RAW_AT(row, x) (*(__global const raw_t *) ((row) + (x) * BPP))

/* The pixel x of a row (already chosen with the border applied), raw. */
inline raw_t fetch_raw (__global const uchar * row, int x, int width, int border)
{
  if (border == BORDER_CONSTANT && (x < 0 || x >= width))
    return (raw_t) 0;
  return RAW_AT (row, border_index (x, width, border));
}

/* A weight, scale or bias of lane order (colour in xyz) for 16 samples of
 * memory. */
inline float16 lanes_of (acc_t v)
{
#if PX_CH == 1
  return (float16) (v);
#elif LAYOUT == LAYOUT_ALPHA_FIRST
  return (float16) (v.wxyz, v.wxyz, v.wxyz, v.wxyz);
#else
  return (float16) (v, v, v, v);
#endif
}

#ifndef ALIGNED_ROWS
#define ALIGNED_ROWS 1          /* output rows a work-item (1 or 2) */
#endif

/* Input row yy of a segment at x0: the segment and its two neighbours, the
 * border rule applied unless the caller knows the window is inside. */
inline void load_window_row (__global const uchar * in, int in_stride, int x0, int yy,
    int width, int height, int border, bool interior, bool whole, seg_t * seg,
    raw_t * left, raw_t * right)
{
  *seg = 0;
  *left = 0;
  *right = 0;
  if (interior) {
    __global const uchar *row = in + (size_t) yy * in_stride;
    *seg = SEG_AT (row + x0 * BPP);
    *left = RAW_AT (row, x0 - 1);
    *right = RAW_AT (row, x0 + SEG_PIXELS);
  } else if (border != BORDER_CONSTANT || (yy >= 0 && yy < height)) {
    __global const uchar *row = in + (size_t) border_index (yy, height, border) * in_stride;
    if (whole) {
      *seg = SEG_AT (row + x0 * BPP);
    } else {
      raw_t part[SEG_PIXELS];
      for (int i = 0; i < SEG_PIXELS; i++)
        part[i] = fetch_raw (row, x0 + i, width, border);
      *seg = vload16 (0, (const sample_t *) part);
    }
    *left = fetch_raw (row, x0 - 1, width, border);
    *right = fetch_raw (row, x0 + SEG_PIXELS, width, border);
  }
}

/* One row's three taps (weights w0, w1, w2) over the 16 samples. */
inline float16 row_taps (seg_t seg, raw_t left, raw_t right, acc_t w0, acc_t w1, acc_t w2)
{
  const float16 c = convert_float16 (seg);
#if PX_CH == 1
  const float16 l = (float16) (RAW_TO_FLOAT (left), c.s0123, c.s4567, c.s89ab, c.scde);
  const float16 r = (float16) (c.s1234, c.s5678, c.s9abc, c.sdef, RAW_TO_FLOAT (right));
#else
  const float16 l = (float16) (RAW_TO_FLOAT (left), c.s0123, c.s4567, c.s89ab);
  const float16 r = (float16) (c.s4567, c.s89ab, c.scdef, RAW_TO_FLOAT (right));
#endif
  return lanes_of (w0) * l + lanes_of (w1) * c + lanes_of (w2) * r;
}

/* The result of a row's sums into output row y. */
inline void store_segment (__global uchar * out, int out_stride, int x0, int y, int width,
    bool whole, float16 sum, seg_t centre, acc_t scale, acc_t bias)
{
  seg_t result = SEG_TO_SAMPLES_SAT (sum * lanes_of (scale) + lanes_of (bias));
  result = keep_alpha_seg (result, centre);
  __global uchar *dst = out + (size_t) y * out_stride + x0 * BPP;
  if (whole) {
    SEG_STORE (dst, result);
  } else {
    sample_t samples[16];
    vstore16 (result, 0, samples);
    __global sample_t *d = (__global sample_t *) dst;
    for (int i = 0; i < (width - x0) * BPP / PX_SAMPLE; i++)
      d[i] = samples[i];
  }
}

/* ALIGNED_ROWS 2: output rows y and y + 1 from the 4 input rows around
 * them, each input row loaded once (2 rows of loads an output row, not 3). */
__kernel void convolve_3x3_aligned (__global const uchar * in, int in_offset,
    int in_stride, __global uchar * out, int out_offset, int out_stride, int width,
    int height, __constant acc_t * w, acc_t scale, acc_t bias, int border)
{
  const int x0 = get_global_id (0) * SEG_PIXELS;
  const int y = get_global_id (1) * ALIGNED_ROWS;
  if (x0 >= width || y >= height)
    return;
  in += in_offset;
  out += out_offset;
  /* Only the last segment of a row may stick out of the image. */
  const bool whole = x0 + SEG_PIXELS <= width;
  /* Nearly every item: the window lies inside the image, no border rule
   * (twice as fast on GPUs as going through it). */
  const bool interior = x0 >= 1 && x0 + SEG_PIXELS < width && y >= 1 &&
      y + ALIGNED_ROWS < height;

  float16 sum0 = 0;
  seg_t centre0 = 0;
#if ALIGNED_ROWS == 2
  float16 sum1 = 0;
  seg_t centre1 = 0;
#endif
#pragma unroll
  for (int ky = 0; ky < 2 + ALIGNED_ROWS; ky++) {
    seg_t seg;
    raw_t left, right;
    load_window_row (in, in_stride, x0, y - 1 + ky, width, height, border, interior, whole,
        &seg, &left, &right);
    if (ky < 3)
      sum0 += row_taps (seg, left, right, w[3 * ky], w[3 * ky + 1], w[3 * ky + 2]);
    if (ky == 1)
      centre0 = seg;
#if ALIGNED_ROWS == 2
    if (ky >= 1)
      sum1 += row_taps (seg, left, right, w[3 * ky - 3], w[3 * ky - 2], w[3 * ky - 1]);
    if (ky == 2)
      centre1 = seg;
#endif
  }
  store_segment (out, out_stride, x0, y, width, whole, sum0, centre0, scale, bias);
#if ALIGNED_ROWS == 2
  if (y + 1 < height)
    store_segment (out, out_stride, x0, y + 1, width, whole, sum1, centre1, scale, bias);
#endif
}
#endif
#if N == 3 && BPP == 4 && PX_SAMPLE == 1
/* GPUs, 3x3 rank-1 kernels with small non-negative integer factors on
 * 4-byte pixels (`fx`: row[0 .. 3) then col[0 .. 3); the host checks
 * 255 * sum row * sum col < 2^16 and that rows are 16-byte aligned): every
 * sum fits a 16-bit lane, so both passes work on two bytes per 32-bit word
 * (bytes 0 and 2, bytes 1 and 3): one integer multiply-add for two
 * channels, exact. A work-item makes 4 pixels (one 16-byte segment) of
 * INT3_ROWS rows; it issues the loads of all its INT3_ROWS + 2 input rows
 * before any arithmetic (sliding down a row at a time left each load's
 * latency exposed: 37 against 31 us at 4K on an H200; 3 rows an item 29 us,
 * 2 rows 32 us, 5 or more rows 31-35 us with up to 128 registers). Out:
 * rint (sum * scale + bias), saturated; alpha and x bytes copied. */
#define INT3_ROWS 3

/* One output byte from a lane's sum (rounded half to even, saturated). */
inline uint int3_byte (uint sum, float scale, float bias)
{
  return convert_uint_rte (clamp ((float) sum * scale + bias, 0.0f, 255.0f));
}

/* A pixel's output word: colour from the even and odd lane sums, alpha or x
 * from the input word `centre`. */
inline uint int3_pixel (uint e, uint o, uint centre, float scale, float bias)
{
#if LAYOUT == LAYOUT_ALPHA_LAST
  return int3_byte (e & 0xffffu, scale, bias) | (int3_byte (o & 0xffffu, scale, bias) << 8) |
      (int3_byte (e >> 16, scale, bias) << 16) | (centre & 0xff000000u);
#else
  return (centre & 0xffu) | (int3_byte (o & 0xffffu, scale, bias) << 8) |
      (int3_byte (e >> 16, scale, bias) << 16) | (int3_byte (o >> 16, scale, bias) << 24);
#endif
}

__kernel void convolve_3x3_int (__global const uchar * restrict in, int in_offset,
    int in_stride, __global uchar * restrict out, int out_offset, int out_stride, int width,
    int height, __constant int *fx, float scale, float bias, int border)
{
  const int x0 = get_global_id (0) * 4;
  const int y0 = get_global_id (1) * INT3_ROWS;
  if (x0 >= width || y0 >= height)
    return;
  in += in_offset;
  out += out_offset;
  const uint k0 = fx[0], k1 = fx[1], k2 = fx[2], c0 = fx[3], c1 = fx[4], c2 = fx[5];
  /* every word the item reads lies in its rows */
  const bool inside = x0 >= 1 && x0 + 4 < width;

  /* Input rows y0 - 1 .. y0 + INT3_ROWS: the segment and a word each side. */
  uint4 seg[INT3_ROWS + 2];
  uint left[INT3_ROWS + 2], right[INT3_ROWS + 2];
  for (int i = 0; i < INT3_ROWS + 2; i++) {
    const int yy = y0 - 1 + i;
    seg[i] = 0;
    left[i] = right[i] = 0;
    __global const uchar *row = row_at (in, in_stride, yy, height, border);
    if (!row)
      continue;
    if (inside) {
      seg[i] = *(__global const uint4 *) (row + 4 * x0);
      left[i] = *(__global const uint *) (row + 4 * (x0 - 1));
      right[i] = *(__global const uint *) (row + 4 * (x0 + 4));
    } else {
      seg[i] = (uint4) (as_uint (fetch_raw (row, x0, width, border)),
          as_uint (fetch_raw (row, x0 + 1, width, border)),
          as_uint (fetch_raw (row, x0 + 2, width, border)),
          as_uint (fetch_raw (row, x0 + 3, width, border)));
      left[i] = as_uint (fetch_raw (row, x0 - 1, width, border));
      right[i] = as_uint (fetch_raw (row, x0 + 4, width, border));
    }
  }
  /* Row sums in even and odd lanes. */
  const uint m = 0x00ff00ffu;
  uint4 even[INT3_ROWS + 2], odd[INT3_ROWS + 2];
  for (int i = 0; i < INT3_ROWS + 2; i++) {
    const uint4 e = seg[i] & m, o = (seg[i] >> 8) & m;
    even[i] = k0 * (uint4) (left[i] & m, e.xyz) + k1 * e + k2 * (uint4) (e.yzw, right[i] & m);
    odd[i] = k0 * (uint4) ((left[i] >> 8) & m, o.xyz) + k1 * o +
        k2 * (uint4) (o.yzw, (right[i] >> 8) & m);
  }
  const int n = min (4, width - x0);   /* pixels to write */
  for (int i = 0; i < INT3_ROWS; i++) {
    const int y = y0 + i;
    if (y >= height)
      return;
    const uint4 ve = c0 * even[i] + c1 * even[i + 1] + c2 * even[i + 2];
    const uint4 vo = c0 * odd[i] + c1 * odd[i + 1] + c2 * odd[i + 2];
    const uint4 px = (uint4) (int3_pixel (ve.x, vo.x, seg[i + 1].x, scale, bias),
        int3_pixel (ve.y, vo.y, seg[i + 1].y, scale, bias),
        int3_pixel (ve.z, vo.z, seg[i + 1].z, scale, bias),
        int3_pixel (ve.w, vo.w, seg[i + 1].w, scale, bias));
    __global uchar *dst = out + (size_t) y * out_stride + 4 * x0;
    if (n == 4) {
      *(__global uint4 *) dst = px;
    } else {
      const uint v[4] = { px.x, px.y, px.z, px.w };
      for (int j = 0; j < n; j++)
        ((__global uint *) dst)[j] = v[j];
    }
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

#if defined (SEP_TW)
/* GPU path for rank-1 kernels, in one pass (no intermediate image in global
 * memory), for 8- and 16-bit samples. A work-group of SEP_TW x SEP_TH items
 * makes a tile of SEP_TW x (SEP_TH * SEP_S) outputs:
 *   1. the row pass: the tile's SEP_TW columns of its SEP_ROWS input rows,
 *      SEP_PX adjacent outputs per step, each step reading its SEP_PX + 2R
 *      pixels in whole groups of 4 pixels when rows are aligned (4, 12 or 16
 *      bytes of 8-bit pixels; 8, 24 or 32 bytes of 16-bit ones, through
 *      vector pointers: vloadN of ushort promises 2-byte alignment only and
 *      NVIDIA splits it into N 16-bit loads), into
 *      local memory as one float plane per colour channel (planes, not float4:
 *      four adjacent floats of one plane are one conflict-free 16-byte store);
 *   2. the column pass: each item one column, SEP_S outputs, reading its
 *      SEP_S + N - 1 row sums once each.
 * Borders are separable (each axis clamps, mirrors or zeroes on its own), so
 * the row pass applies the horizontal rule, the choice of input row the
 * vertical one. Colour lanes only: alpha and x samples are copied, through
 * local memory too (the row pass has them; a pixel load per output in the
 * column pass would leave its latency exposed). */
#define SEP_ROWS (SEP_TH * SEP_S + N - 1)
#define SEP_STEPS (SEP_ROWS * (SEP_TW / SEP_PX))  /* row-pass steps */
#define SEP_G ((R + 3) / 4)                  /* 4-pixel groups read each side */
#define SEP_SPAN (SEP_PX + 8 * SEP_G)        /* pixels a step reads */
/* Whether pixels have an alpha or x sample, copied */
#define SEP_ALPHA (LAYOUT == LAYOUT_ALPHA_LAST || LAYOUT == LAYOUT_ALPHA_FIRST)
#if PX_SAMPLE == 2
typedef ushort3 sample3_t;
#define TO_SAMPLE3_SAT convert_ushort3_sat_rte
#else
typedef uchar3 sample3_t;
#define TO_SAMPLE3_SAT convert_uchar3_sat_rte
#endif
#if LAYOUT == LAYOUT_GRAY
#define SEP_PLANES 1
typedef float sep_t;
#define SEP_OF(p) convert_float (p)
#define SEP_W(v) (v)
#else
#define SEP_PLANES 3
typedef float3 sep_t;
#define SEP_OF(p) convert_float3 ((p).xyz)
#define SEP_W(v) ((v).xyz)
#endif

/* The 4 pixels x .. x+3 of an aligned row (x a multiple of 4), colour in
 * xyz as load_pixel() gives them. */
inline void load_group (__global const uchar * row, int x, pix_t * q)
{
#if PX_SAMPLE == 2 && BPP == 8
  /* 32 bytes as two 16-byte halves (rows vouch for 16 bytes, not 32) */
  __global const ushort8 *p = (__global const ushort8 *) (row + 8 * x);
  const ushort8 a = p[0], b = p[1];
  q[0] = a.lo;
  q[1] = a.hi;
  q[2] = b.lo;
  q[3] = b.hi;
#elif PX_SAMPLE == 2 && BPP == 6
  /* 24 bytes as three 8-byte words, regrouped sample-wise */
  __global const ushort4 *p = (__global const ushort4 *) (row + 6 * x);
  const ushort4 a = p[0], b = p[1], c = p[2];
  q[0] = (ushort4) (a.s012, 0);
  q[1] = (ushort4) (a.s3, b.s01, 0);
  q[2] = (ushort4) (b.s23, c.s0, 0);
  q[3] = (ushort4) (c.s123, 0);
#elif PX_SAMPLE == 2
  const ushort4 v = *(__global const ushort4 *) (row + 2 * x);
  q[0] = v.s0;
  q[1] = v.s1;
  q[2] = v.s2;
  q[3] = v.s3;
#elif BPP == 4
  const uint4 v = *(__global const uint4 *) (row + 4 * x);
  q[0] = as_uchar4 (v.x);
  q[1] = as_uchar4 (v.y);
  q[2] = as_uchar4 (v.z);
  q[3] = as_uchar4 (v.w);
#elif BPP == 3
  /* 12 bytes as three words, regrouped byte-wise (see sobel.cl's luma4) */
  __global const uint *p = (__global const uint *) (row + 3 * x);
  const uchar4 a = as_uchar4 (p[0]), b = as_uchar4 (p[1]), c = as_uchar4 (p[2]);
  q[0] = (uchar4) (a.s012, 0);
  q[1] = (uchar4) (a.s3, b.s01, 0);
  q[2] = (uchar4) (b.s23, c.s0, 0);
  q[3] = (uchar4) (c.s123, 0);
#else
  const uchar4 v = *(__global const uchar4 *) (row + x);
  q[0] = v.s0;
  q[1] = v.s1;
  q[2] = v.s2;
  q[3] = v.s3;
#endif
#if LAYOUT == LAYOUT_ALPHA_FIRST
  for (int i = 0; i < 4; i++)
    q[i] = q[i].yzwx;
#endif
}

/* Row pass, float weights: the sums of outputs x .. x+SEP_PX-1 of `row`, and
 * their alpha (or x) samples for 4-sample pixels. `fast`: the step's groups
 * lie inside the row and are aligned. */
inline void row_sums (__global const uchar * row, int x, int width, int border, bool fast,
    const sep_t * wr, sep_t * s, sample_t * alpha)
{
  pix_t q[SEP_SPAN];   /* the pixels x - 4G .. x + 3 + 4G */
  if (!row) {
    for (int i = 0; i < SEP_SPAN; i++)
      q[i] = 0;
  } else if (fast) {
    for (int g = 0; g < SEP_PX / 4 + 2 * SEP_G; g++)
      load_group (row, x - 4 * SEP_G + 4 * g, q + 4 * g);
  } else {
    for (int i = 0; i < SEP_SPAN; i++) {
      const int xx = x - 4 * SEP_G + i;
      q[i] = border == BORDER_CONSTANT && (xx < 0 || xx >= width) ? (pix_t) 0 :
          load_pixel (row + (size_t) border_index (xx, width, border) * BPP);
    }
  }
  sep_t p[SEP_PX + 2 * R];
  for (int i = 0; i < SEP_PX + 2 * R; i++)
    p[i] = SEP_OF (q[4 * SEP_G - R + i]);
#if SEP_ALPHA
  for (int i = 0; i < SEP_PX; i++)
    alpha[i] = q[4 * SEP_G + i].w;   /* load_pixel() moved it there */
#endif
  for (int o = 0; o < SEP_PX; o++) {
    s[o] = 0;
    for (int k = 0; k < N; k++)
      s[o] += wr[k] * p[o + k];
  }
}

/* The sums of a step into the planes, row r, columns c .. c+SEP_PX-1. */
inline void store_sums (__local float4 * sums, int r, int c, const sep_t * s)
{
  __local float4 *at = sums + r * (SEP_TW / 4) + c / 4;
  for (int i = 0; i < SEP_PX / 4; i++, at++, s += 4) {
#if SEP_PLANES == 1
    at[0] = (float4) (s[0], s[1], s[2], s[3]);
#else
    const int plane = SEP_ROWS * (SEP_TW / 4);
    at[0] = (float4) (s[0].x, s[1].x, s[2].x, s[3].x);
    at[plane] = (float4) (s[0].y, s[1].y, s[2].y, s[3].y);
    at[2 * plane] = (float4) (s[0].z, s[1].z, s[2].z, s[3].z);
#endif
  }
}

#define SEP_OUT_ROWS (SEP_TH * SEP_S)

/* Row r of the tile's input rows is output row r - R: its alpha samples
 * into `alphas`. */
inline void store_alpha (__local sample_t * alphas, int r, int c, const sample_t * alpha)
{
#if SEP_ALPHA
  if (r >= R && r < R + SEP_OUT_ROWS)
    vstore8 (vload8 (0, alpha), 0, alphas + (r - R) * SEP_TW + c);
#endif
}

/* Column pass of item (lx, ly): column tx + lx, rows ty + ly * SEP_S on. */
inline void column_pass (__local const float4 * sums, __local const sample_t * alphas,
    __global uchar * out, int out_stride, int width, int height, int tx, int ty,
    const sep_t * wc, sep_t scale, sep_t bias, int aligned)
{
  const int lx = get_local_id (0), ly = get_local_id (1);
  const int x = tx + lx;
  if (x >= width)
    return;
  const __local float *plane = (const __local float *) sums;
  const int plane_size = SEP_ROWS * SEP_TW;
  sep_t v[SEP_S + N - 1];
  for (int i = 0; i < SEP_S + N - 1; i++) {
    const int at = (ly * SEP_S + i) * SEP_TW + lx;
#if SEP_PLANES == 1
    v[i] = plane[at];
#else
    v[i] = (float3) (plane[at], plane[plane_size + at], plane[2 * plane_size + at]);
#endif
  }
  for (int o = 0; o < SEP_S; o++) {
    const int y = ty + ly * SEP_S + o;
    if (y >= height)
      return;
    sep_t sum = 0;
    for (int k = 0; k < N; k++)
      sum += wc[k] * v[o + k];
    const sep_t value = sum * scale + bias;
    __global sample_t *dst = (__global sample_t *) (out + (size_t) y * out_stride +
        (size_t) x * BPP);
#if LAYOUT == LAYOUT_GRAY
    dst[0] = TO_SAMPLE_SAT (value);
#elif LAYOUT == LAYOUT_RGB
    vstore3 (TO_SAMPLE3_SAT (value), 0, dst);
#else
    const sample3_t rgb = TO_SAMPLE3_SAT (value);
    const sample_t a = alphas[(ly * SEP_S + o) * SEP_TW + lx];
#if LAYOUT == LAYOUT_ALPHA_LAST
    const sample4_t px = (sample4_t) (rgb, a);
#else
    const sample4_t px = (sample4_t) (a, rgb);
#endif
    /* one 4- or 8-byte store when aligned (vstore4 promises the sample's
     * alignment only) */
    if (aligned)
      *(__global sample4_t *) dst = px;
    else
      vstore4 (px, 0, dst);
#endif
  }
}

#if BPP == 4 && PX_SAMPLE == 1
/* 4-byte pixels, rank-1 kernels whose row factors are small non-negative
 * integers (`fx`: row[0 .. N) then col[0 .. N), as for convolve_fixed; the
 * host checks 255 * sum row < 2^16 and 255 * sum row * sum |col| < 2^24):
 * the row pass works on two bytes per 32-bit word (bytes 0 and 2, bytes 1
 * and 3, in 16-bit lanes), one integer multiply-add for two channels; the
 * column pass as above on the exact integer sums, then times `scale` plus
 * `bias`. */
inline void row_sums_int (__global const uchar * row, int x, int width, int border,
    bool fast, const uint * k, sep_t * s, uchar * alpha)
{
  uint q[SEP_SPAN];    /* the raw pixels x - 4G .. x + 3 + 4G */
  if (!row) {
    for (int i = 0; i < SEP_SPAN; i++)
      q[i] = 0;
  } else if (fast) {
    for (int g = 0; g < SEP_PX / 4 + 2 * SEP_G; g++) {
      const uint4 v = *(__global const uint4 *) (row + 4 * (x - 4 * SEP_G + 4 * g));
      q[4 * g] = v.x;
      q[4 * g + 1] = v.y;
      q[4 * g + 2] = v.z;
      q[4 * g + 3] = v.w;
    }
  } else {
    for (int i = 0; i < SEP_SPAN; i++) {
      const int xx = x - 4 * SEP_G + i;
      q[i] = border == BORDER_CONSTANT && (xx < 0 || xx >= width) ? 0u :
          as_uint (vload4 (0, row + (size_t) border_index (xx, width, border) * 4));
    }
  }
  for (int i = 0; i < SEP_PX; i++)
    alpha[i] = LAYOUT == LAYOUT_ALPHA_LAST ? q[4 * SEP_G + i] >> 24 : q[4 * SEP_G + i];
  uint even[SEP_PX + 2 * R], odd[SEP_PX + 2 * R];
  for (int i = 0; i < SEP_PX + 2 * R; i++) {
    const uint v = q[4 * SEP_G - R + i];
    even[i] = v & 0x00ff00ffu;
    odd[i] = (v >> 8) & 0x00ff00ffu;
  }
  for (int o = 0; o < SEP_PX; o++) {
    uint se = 0, so = 0;
    for (int j = 0; j < N; j++) {
      se += k[j] * even[o + j];
      so += k[j] * odd[o + j];
    }
    /* colour lanes in memory order: bytes 0 1 2 (alpha last), 1 2 3 (first) */
#if LAYOUT == LAYOUT_ALPHA_LAST
    s[o] = (float3) ((float) (se & 0xffffu), (float) (so & 0xffffu), (float) (se >> 16));
#else
    s[o] = (float3) ((float) (so & 0xffffu), (float) (se >> 16), (float) (so >> 16));
#endif
  }
}
#endif

/* A whole tile: the row pass (with float weights `wr`, or with the integer
 * ones `k` when `integer`), then the column pass. `sums` and `alphas` are
 * the kernel's local arrays. */
inline void separable_tile (__global const uchar * in, int in_stride, __global uchar * out,
    int out_stride, int width, int height, int border, int aligned, bool integer,
    const sep_t * wr, const uint * k, const sep_t * wc, sep_t scale, sep_t bias,
    __local float4 * sums, __local sample_t * alphas)
{
  const int tx = get_group_id (0) * SEP_TW, ty = get_group_id (1) * SEP_TH * SEP_S;
  /* Whether every group the tile's steps read lies in the row. */
  const bool fast = aligned && tx >= 4 * SEP_G && tx + SEP_TW + 4 * SEP_G <= width;
  for (int step = get_local_id (1) * SEP_TW + get_local_id (0); step < SEP_STEPS;
      step += SEP_TW * SEP_TH) {
    const int r = step / (SEP_TW / SEP_PX), c = (step % (SEP_TW / SEP_PX)) * SEP_PX;
    __global const uchar *row = row_at (in, in_stride, ty - R + r, height, border);
    sep_t s[SEP_PX];
    sample_t alpha[SEP_PX];
#if BPP == 4 && PX_SAMPLE == 1
    if (integer)
      row_sums_int (row, tx + c, width, border, fast, k, s, alpha);
    else
#endif
      row_sums (row, tx + c, width, border, fast, wr, s, alpha);
    store_sums (sums, r, c, s);
    store_alpha (alphas, r, c, alpha);
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  column_pass (sums, alphas, out, out_stride, width, height, tx, ty, wc, scale, bias, aligned);
}

/* `aligned`: offsets and row strides are multiples of 16 bytes. */
__kernel __attribute__ ((reqd_work_group_size (SEP_TW, SEP_TH, 1)))
void convolve_separable (__global const uchar * in, int in_offset, int in_stride,
    __global uchar * out, int out_offset, int out_stride, int width, int height,
    __constant acc_t * w, acc_t scale, acc_t bias, int border, int aligned)
{
  /* float4 so that every 4-float run is 16-byte aligned */
  __local float4 sums[SEP_PLANES * SEP_ROWS * (SEP_TW / 4)];
  __local sample_t alphas[SEP_ALPHA ? SEP_OUT_ROWS * SEP_TW : 1];
  sep_t wr[N], wc[N];
  for (int j = 0; j < N; j++) {
    wr[j] = SEP_W (w[W_ROWS + j]);
    wc[j] = SEP_W (w[W_COLS + j]);
  }
  separable_tile (in + in_offset, in_stride, out + out_offset, out_stride, width, height,
      border, aligned, false, wr, 0, wc, SEP_W (scale), SEP_W (bias), sums, alphas);
}

#if BPP == 4 && PX_SAMPLE == 1
/* The integer variant: `fx` as for convolve_fixed, one scale and bias for
 * the colour channels. */
__kernel __attribute__ ((reqd_work_group_size (SEP_TW, SEP_TH, 1)))
void convolve_separable_int (__global const uchar * in, int in_offset, int in_stride,
    __global uchar * out, int out_offset, int out_stride, int width, int height,
    __constant int *fx, float scale, float bias, int border, int aligned)
{
  __local float4 sums[SEP_PLANES * SEP_ROWS * (SEP_TW / 4)];
  __local sample_t alphas[SEP_ALPHA ? SEP_OUT_ROWS * SEP_TW : 1];
  uint k[N];
  sep_t wc[N];
  for (int j = 0; j < N; j++) {
    k[j] = (uint) fx[j];
    wc[j] = (sep_t) ((float) fx[N + j]);
  }
  separable_tile (in + in_offset, in_stride, out + out_offset, out_stride, width, height,
      border, aligned, true, 0, k, wc, (sep_t) (scale), (sep_t) (bias), sums, alphas);
}
#endif
#endif

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
