/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Sobel edges on 8-bit luma and on the luma of 16-bit GRAY16_LE and
 * RGBA64_LE (on GPUs with aligned rows sobel_narrow, else sobel_deep).
 *
 * Each work-item computes PX = 16 consecutive outputs of one row. Interior
 * items work on whole vectors, as the founding sample did: each of the three
 * rows is read once as a 16-wide luma vector plus its two neighbours, shifted
 * into the windows starting at x-1, x and x+1, and
 * dx, dy and the result are computed 16 at a time (short16 holds the sums,
 * which lie in [-1020, 1020]). Items that touch the border take the scalar
 * path with the border rule. Both paths do the same arithmetic, so results do
 * not depend on where an item falls.
 *
 * Build options:
 *   IN_*              the input's pixel layout (gstclpixel.hpp): IN_BPP 1 (a
 *                     luma plane), 3 or 4 (RGB); IN_R IN_G IN_B the colours
 *   BORDER            BORDER_REPLICATE | BORDER_REFLECT | BORDER_CONSTANT
 *   OUTPUT            0 magnitude, 1 |dx|, 2 |dy|
 *   NORM              0 L2 sqrt(dx^2 + dy^2), 1 L1 |dx| + |dy|
 *   OUT_SAMPLE        1: GRAY8 output, 2: GRAY16_LE output
 *   ALIGNED           1: input and output offsets and row strides are
 *                     multiples of 16 bytes, so whole-vector accesses are
 *                     aligned (128-bit loads and stores on GPUs)
 */
#define PX 16

#if OUT_SAMPLE == 2
#define OUT_MAX 65535.0f
typedef ushort out_t;
#define CONVERT_OUT convert_ushort_sat_rte
#else
#define OUT_MAX 255.0f
typedef uchar out_t;
#define CONVERT_OUT convert_uchar_sat_rte
#endif

inline int luma_of (__global const uchar * at)
{
#if IN_SAMPLE == 2
  __global const ushort *p = (__global const ushort *) at;
#else
  __global const uchar *p = at;
#endif
#if IN_CH == 1
  return p[0];
#else
  /* BT.601 weights in 8-bit fixed point, exactly as the CPU reference. */
  return (77 * p[IN_R] + 150 * p[IN_G] + 29 * p[IN_B] + 128) >> 8;
#endif
}

inline int luma_at (__global const uchar * in, int stride, int x, int y, int w, int h)
{
#if BORDER == BORDER_CONSTANT
  if (x < 0 || y < 0 || x >= w || y >= h)
    return 0;
#else
  x = border_index (x, w, BORDER);
  y = border_index (y, h, BORDER);
#endif
  return luma_of (in + (size_t) y * stride + (size_t) x * IN_BPP);
}

inline out_t sobel_result (int dx, int dy, float scale, float threshold)
{
#if OUTPUT == 1
  const float value = (float) abs (dx);
#elif OUTPUT == 2
  const float value = (float) abs (dy);
#elif NORM == 1
  const float value = (float) (abs (dx) + abs (dy));
#else
  /* In float: 16-bit input makes |dx| up to 4 * 65535. Exact for 8 bits. */
  const float value = sqrt ((float) dx * dx + (float) dy * dy);
#endif
  const float scaled = scale * value;
  if (threshold > 0.0f)
    return scaled >= threshold ? (out_t) OUT_MAX : (out_t) 0;
  return CONVERT_OUT (scaled);
}

/* Pixels x0 .. x0+n-1 of row y one at a time with the border rule: the
 * items that touch an edge. */
inline void sobel_scalar (__global const uchar * in, int in_stride, __global out_t * orow,
    int x0, int n, int y, int width, int height, float scale, float threshold)
{
  for (int i = 0; i < n; i++) {
    const int x = x0 + i;
    const int a = luma_at (in, in_stride, x - 1, y - 1, width, height);
    const int bb = luma_at (in, in_stride, x, y - 1, width, height);
    const int c = luma_at (in, in_stride, x + 1, y - 1, width, height);
    const int d = luma_at (in, in_stride, x - 1, y, width, height);
    const int f = luma_at (in, in_stride, x + 1, y, width, height);
    const int g = luma_at (in, in_stride, x - 1, y + 1, width, height);
    const int h = luma_at (in, in_stride, x, y + 1, width, height);
    const int k = luma_at (in, in_stride, x + 1, y + 1, width, height);
    const int dx = (c + 2 * f + k) - (a + 2 * d + g);
    const int dy = (a + 2 * bb + c) - (g + 2 * h + k);
    orow[x] = sobel_result (dx, dy, scale, threshold);
  }
}

#if IN_SAMPLE == 1   /* the vector kernels: 8-bit input */
/* 16 bytes at p: one aligned 128-bit load when the host vouched for the
 * alignment (ALIGNED: buffer offset and row stride multiples of 16), else
 * vload16, which NVIDIA splits into byte loads. */
#if ALIGNED
#define LOAD16(p) (*(__global const uchar16 *) (p))
#else
#define LOAD16(p) vload16 (0, (p))
#endif

/* Luma of the 16 pixels x .. x+15 of a row (x a multiple of 16); the caller
 * guarantees they exist. Integer arithmetic as luma_of(), on whole vectors. */
inline ushort16 luma16 (__global const uchar * row, int x)
{
#if IN_BPP == 1
  return convert_ushort16 (LOAD16 (row + x));
#else
  __global const uchar *p = row + (size_t) x * IN_BPP;
  ushort16 r, g, b;
#if IN_BPP == 4
  const ushort16 v0 = convert_ushort16 (LOAD16 (p));
  const ushort16 v1 = convert_ushort16 (LOAD16 (p + 16));
  const ushort16 v2 = convert_ushort16 (LOAD16 (p + 32));
  const ushort16 v3 = convert_ushort16 (LOAD16 (p + 48));
#define CHANNEL4(s) (ushort16) (v0.s, v1.s, v2.s, v3.s)
#define PICK4_0 CHANNEL4 (s048c)
#define PICK4_1 CHANNEL4 (s159d)
#define PICK4_2 CHANNEL4 (s26ae)
#define PICK4_3 CHANNEL4 (s37bf)
#define PICK4(o) PICK4_##o
#define PICK(o) PICK4 (o)
#else /* IN_BPP == 3: 16 pixels are 48 bytes, three vectors */
  const ushort16 v0 = convert_ushort16 (LOAD16 (p));
  const ushort16 v1 = convert_ushort16 (LOAD16 (p + 16));
  const ushort16 v2 = convert_ushort16 (LOAD16 (p + 32));
#define PICK3_0 (ushort16) (v0.s0369, v0.scf, v1.s258, v1.sbe, v2.s147a, v2.sd)
#define PICK3_1 (ushort16) (v0.s147a, v0.sd, v1.s0369, v1.scf, v2.s258, v2.sbe)
#define PICK3_2 (ushort16) (v0.s258, v0.sbe, v1.s147a, v1.sd, v2.s0369, v2.scf)
#define PICK3(o) PICK3_##o
#define PICK(o) PICK3 (o)
#endif
#define PICK_EXPAND(o) PICK (o)
  r = PICK_EXPAND (IN_R);
  g = PICK_EXPAND (IN_G);
  b = PICK_EXPAND (IN_B);
  return ((ushort16) (77) * r + (ushort16) (150) * g + (ushort16) (29) * b + (ushort16) (128))
      >> (ushort16) (8);
#endif
}

/* The windows of a row starting at x-1, x and x+1: one vector load of the 16
 * pixels and the two neighbours, shifted into place. */
inline void row_windows (__global const uchar * row, int x, short16 * left, short16 * mid,
    short16 * right)
{
  const ushort16 l = luma16 (row, x);
  const ushort before = (ushort) luma_of (row + (size_t) (x - 1) * IN_BPP);
  const ushort after = (ushort) luma_of (row + (size_t) (x + 16) * IN_BPP);
  *mid = as_short16 (l);
  /* swizzles take 1, 2, 3, 4, 8 or 16 components: 15 = 8 + 4 + 2 + 1 */
  *left = as_short16 ((ushort16) (before, l.s01234567, l.s89ab, l.scd, l.se));
  *right = as_short16 ((ushort16) (l.s12345678, l.s9abc, l.sde, l.sf, after));
}

__kernel void sobel (__global const uchar * in, int in_offset, int in_stride,
    __global uchar * out, int out_offset, int out_stride, int width, int height,
    float scale, float threshold)
{
  const int x0 = get_global_id (0) * PX;
  const int y = get_global_id (1);
  if (x0 >= width || y >= height)
    return;
  in += in_offset;
  __global out_t *orow = (__global out_t *) (out + out_offset + (size_t) y * out_stride);

  if (x0 >= 1 && x0 + PX < width && y >= 1 && y + 1 < height) {
    /* Rows above, at and below, each as the windows starting at x-1, x, x+1. */
    short16 t0, t1, t2, m0, m1, m2, b0, b1, b2;
    row_windows (in + (size_t) (y - 1) * in_stride, x0, &t0, &t1, &t2);
    row_windows (in + (size_t) y * in_stride, x0, &m0, &m1, &m2);
    row_windows (in + (size_t) (y + 1) * in_stride, x0, &b0, &b1, &b2);
    const short16 dx = (t2 + (short16) (2) * m2 + b2) - (t0 + (short16) (2) * m0 + b0);
    const short16 dy = (t0 + (short16) (2) * t1 + t2) - (b0 + (short16) (2) * b1 + b2);
#if OUTPUT == 1
    const float16 value = convert_float16 (abs (dx));
#elif OUTPUT == 2
    const float16 value = convert_float16 (abs (dy));
#elif NORM == 1
    const float16 value = convert_float16 (abs (dx) + abs (dy));
#else
    const int16 dxi = convert_int16 (dx), dyi = convert_int16 (dy);
    const float16 value = sqrt (convert_float16 (dxi * dxi + dyi * dyi));
#endif
    const float16 scaled = (float16) (scale) * value;
#if OUT_SAMPLE == 2
    ushort16 r = convert_ushort16_sat_rte (scaled);
    if (threshold > 0.0f)
      r = convert_ushort16 (isgreaterequal (scaled, (float16) (threshold)) & (int16) (0xffff));
#if ALIGNED
    /* Two 16-byte stores: rows are 16-byte aligned, a ushort16 wants 32. */
    *(__global ushort8 *) (orow + x0) = r.lo;
    *(__global ushort8 *) (orow + x0 + 8) = r.hi;
#else
    vstore16 (r, 0, orow + x0);
#endif
#else
    uchar16 r = convert_uchar16_sat_rte (scaled);
    if (threshold > 0.0f)
      r = convert_uchar16 (isgreaterequal (scaled, (float16) (threshold)) & (int16) (0xff));
#if ALIGNED
    *(__global uchar16 *) (orow + x0) = r;
#else
    vstore16 (r, 0, orow + x0);
#endif
#endif
    return;
  }

  sobel_scalar (in, in_stride, orow, x0, min (PX, width - x0), y, width, height, scale,
      threshold);
}

/* The luma of every pixel into a GRAY8 plane (CPUs: one pixel per work-item,
 * vectorised across work-items by PoCL; then the IN_BPP=1 kernel runs on it). */
__kernel void luma_plane (__global const uchar * in, int in_offset, int in_stride,
    __global uchar * out, int out_offset, int out_stride, int width, int height)
{
  const int x = get_global_id (0), y = get_global_id (1);
  if (x >= width || y >= height)
    return;
  out[out_offset + (size_t) y * out_stride + x] =
      (uchar) luma_of (in + in_offset + (size_t) y * in_stride + (size_t) x * IN_BPP);
}
#endif  /* IN_SAMPLE == 1 */

#if ALIGNED
/* GPUs: 4 x 2 pixels per work-item (4 pixels of two rows: the 4 input rows
 * around them loaded once), for every input depth. A 16-pixel item keeps 9
 * windows of 16 lanes in registers and leaves few warps to hide memory
 * latency; 4-pixel items run 1.4x (GRAY8) to 3x (RGBA) faster on an H200,
 * and the second row 1.1x (RGBA) to 1.17x (RGBA64) more on an H100
 * (docs/benchmarks.md). Rows are read with one aligned access per row (4, 8,
 * 12 or 16 bytes; two 16-byte ones for RGBA64), the two neighbours with one
 * access each; the vertical sums S = t + 2m + b and differences D = t - b
 * are shared by the horizontally adjacent outputs. */
#if IN_SAMPLE == 1
inline int pixel_luma (uint p)  /* a pixel's bytes, little-endian */
{
#if IN_BPP == 1
  return (int) p;
#else
  return (77 * (int) ((p >> (8 * IN_R)) & 0xff) + 150 * (int) ((p >> (8 * IN_G)) & 0xff) +
      29 * (int) ((p >> (8 * IN_B)) & 0xff) + 128) >> 8;
#endif
}
#endif

#if IN_BPP == 3
/* A 3-byte pixel's luma; the channel order as IN_R, IN_G, IN_B say. */
inline int rgb_luma (uchar4 p)
{
  const int c[3] = { p.s0, p.s1, p.s2 };
  return (77 * c[IN_R] + 150 * c[IN_G] + 29 * c[IN_B] + 128) >> 8;
}
#endif

#if IN_SAMPLE == 2 && IN_CH == 4
/* A 16-bit RGBA pixel's luma, as luma_of computes it. */
inline int deep_luma (ushort4 p)
{
  const int c[4] = { p.s0, p.s1, p.s2, p.s3 };
  return (77 * c[IN_R] + 150 * c[IN_G] + 29 * c[IN_B] + 128) >> 8;
}
#endif

/* Luma of the pixels x .. x+3 (x a multiple of 4) of a row. */
inline int4 luma4 (__global const uchar * row, int x)
{
#if IN_SAMPLE == 2 && IN_CH == 1
  return convert_int4 (*(__global const ushort4 *) (row + 2 * x));
#elif IN_SAMPLE == 2
  /* two 16-byte loads (NVIDIA keeps 8-byte vector loads 8 bytes wide) */
  __global const ushort8 *p = (__global const ushort8 *) (row + (size_t) 8 * x);
  const ushort8 a = p[0], b = p[1];
  return (int4) (deep_luma (a.lo), deep_luma (a.hi), deep_luma (b.lo), deep_luma (b.hi));
#elif IN_BPP == 1
  return convert_int4 (*(__global const uchar4 *) (row + x));
#elif IN_BPP == 4
  const uint4 v = *(__global const uint4 *) (row + 4 * x);
  return (int4) (pixel_luma (v.x), pixel_luma (v.y), pixel_luma (v.z), pixel_luma (v.w));
#else
  /* 12 bytes as three 32-bit words, regrouped byte-wise into 4 pixels (not
   * by shifting word pairs: LLVM makes funnel shifts of that, which some
   * OpenCL implementations, Oclgrind among them, cannot run). */
  __global const uint *p = (__global const uint *) (row + 3 * x);
  const uchar4 a = as_uchar4 (p[0]), b = as_uchar4 (p[1]), c = as_uchar4 (p[2]);
  return (int4) (rgb_luma ((uchar4) (a.s012, 0)), rgb_luma ((uchar4) (a.s3, b.s01, 0)),
      rgb_luma ((uchar4) (b.s23, c.s0, 0)), rgb_luma ((uchar4) (c.s123, 0)));
#endif
}

/* The luma of an edge neighbour in an aligned row: one access a pixel. */
inline int luma_aligned (__global const uchar * row, int x)
{
#if IN_SAMPLE == 2 && IN_CH == 4
  return deep_luma (*(__global const ushort4 *) (row + (size_t) 8 * x));
#else
  return luma_of (row + (size_t) x * IN_BPP);
#endif
}

/* A row's luma at x0-1 .. x0+4: the 4 pixels and their neighbours. */
typedef struct {
  int4 c;
  int l, r;
} luma_row;

inline luma_row luma_row_at (__global const uchar * row, int x0)
{
  luma_row v;
  v.c = luma4 (row, x0);
  v.l = luma_aligned (row, x0 - 1);
  v.r = luma_aligned (row, x0 + 4);
  return v;
}

/* Outputs x0 .. x0+3 of the row between t and b. */
inline void sobel4 (luma_row t, luma_row m, luma_row b, __global out_t * orow, int x0,
    float scale, float threshold)
{
  const int4 S = t.c + 2 * m.c + b.c, D = t.c - b.c;
  const int sl = t.l + 2 * m.l + b.l, sr = t.r + 2 * m.r + b.r;
  const int dl = t.l - b.l, dr = t.r - b.r;
  const int4 dx = (int4) (S.s123, sr) - (int4) (sl, S.s012);
  const int4 dy = (int4) (dl, D.s012) + 2 * D + (int4) (D.s123, dr);
#if OUTPUT == 1
  const float4 value = convert_float4 (abs (dx));
#elif OUTPUT == 2
  const float4 value = convert_float4 (abs (dy));
#elif NORM == 1
  const float4 value = convert_float4 (abs (dx) + abs (dy));
#else
  /* in float, as sobel_result: 16-bit squares overflow an int */
  const float4 fx = convert_float4 (dx), fy = convert_float4 (dy);
  const float4 value = sqrt (fx * fx + fy * fy);
#endif
  const float4 scaled = (float4) (scale) * value;
#if OUT_SAMPLE == 2
  ushort4 r = convert_ushort4_sat_rte (scaled);
  if (threshold > 0.0f)
    r = convert_ushort4 (isgreaterequal (scaled, (float4) (threshold)) & (int4) (0xffff));
  *(__global ushort4 *) (orow + x0) = r;
#else
  uchar4 r = convert_uchar4_sat_rte (scaled);
  if (threshold > 0.0f)
    r = convert_uchar4 (isgreaterequal (scaled, (float4) (threshold)) & (int4) (0xff));
  *(__global uchar4 *) (orow + x0) = r;
#endif
}

__kernel void sobel_narrow (__global const uchar * in, int in_offset, int in_stride,
    __global uchar * out, int out_offset, int out_stride, int width, int height,
    float scale, float threshold)
{
  const int x0 = get_global_id (0) * 4;
  const int y = get_global_id (1) * 2;
  if (x0 >= width || y >= height)
    return;
  in += in_offset;
  out += out_offset;
  __global out_t *orow = (__global out_t *) (out + (size_t) y * out_stride);
  if (x0 < 1 || x0 + 4 >= width || y < 1 || y + 2 >= height) {
    for (int i = 0; i < 2 && y + i < height; i++)
      sobel_scalar (in, in_stride, (__global out_t *) (out + (size_t) (y + i) * out_stride),
          x0, min (4, width - x0), y + i, width, height, scale, threshold);
    return;
  }
  __global const uchar *rt = in + (size_t) (y - 1) * in_stride;
  const luma_row t = luma_row_at (rt, x0);
  const luma_row m = luma_row_at (rt + in_stride, x0);
  const luma_row b = luma_row_at (rt + 2 * in_stride, x0);
  sobel4 (t, m, b, orow, x0, scale, threshold);
  const luma_row b2 = luma_row_at (rt + 3 * in_stride, x0);
  sobel4 (m, b, b2, (__global out_t *) ((__global uchar *) orow + out_stride), x0, scale,
      threshold);
}
#endif

#if IN_SAMPLE == 2
/* 16-bit input: one output a work-item, the border rule everywhere. Sums of
 * luma in int (within 4 * 65535), the result as sobel_result makes it. */
__kernel void sobel_deep (__global const uchar * in, int in_offset, int in_stride,
    __global uchar * out, int out_offset, int out_stride, int width, int height,
    float scale, float threshold)
{
  const int x = get_global_id (0);
  const int y = get_global_id (1);
  if (x >= width || y >= height)
    return;
  sobel_scalar (in + in_offset, in_stride,
      (__global out_t *) (out + out_offset + (size_t) y * out_stride), x, 1, y, width,
      height, scale, threshold);
}
#endif
