/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The 3x3 kernels for rows aligned to 16 bytes: float weights, and the GPUs'
 * integer one, which reads through the float one's raw-pixel helpers.
 * Needs prelude.cl. */

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
