/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cldebayer's denoise (docs/cldebayer.md, "Denoise"): non-local means on
 * the raw samples, a pass before the sensor pass and the demosaic, in the
 * camera programs built with -D DENOISE=1 (the others are unchanged).
 *
 * The frame is taken as 2 x 2 cells, a float4 each (the four samples of
 * the cell in row order: every cell holds the same colours in the same
 * lanes). Per cell:
 *   x   the samples after black level, of full scale 1 (negative below
 *       black: noise around black is kept, so the means stay unbiased)
 *   u   sqrt (max (x + 1/18, 0)) times `ustep`: for Poisson-Gaussian noise
 *       of variance sigma^2 (1.8 x + 0.1) this has a variance of 1 whatever
 *       x (variance stabilisation), sigma the noise the strength targets
 * A cell's result is the mean of x over the 5 x 5 cells around it, each
 * weighted by how alike the 3 x 3 cells of u around the two are:
 *   d = mean of (u - u')^2 over the 36 samples of the two patches
 *   w = f (max (d - 2, 0) / h^2)          (2: d's mean where they match)
 *   f (t) = (1 - t / 8)^8, 0 from t = 8   (exp (-t) in plain arithmetic)
 * and is stored as 16-bit words of full scale `wmax`, black level 0, which
 * the sensor pass or the camera kernel then reads as its input. Beyond the
 * frame, cells mirror as the demosaic's samples (reflect-101: cell -1 is
 * cell 1); a sample beyond an odd width or height is the one of its colour
 * two before it.
 *
 *   debayer_denoise       (GPUs) the frame into the words, a run of DN_RUN
 *                         cells down a column a work-item: its work-group
 *                         makes the x and u of its cells and DN_H around
 *                         them in local memory (mirrored at the frame's
 *                         edges), then each offset's patch distance is kept
 *                         as sums of its three rows, so a cell reads one
 *                         new row of u an offset, and the offsets of a row
 *                         share its 7 cells
 *   debayer_denoise_prep_cpu, debayer_denoise_cpu  (CPUs, and GPUs whose
 *                         local memory is short of debayer_denoise's tile)
 *                         the same in two passes, through planes of x and u in global
 *                         memory (pw x ph cells each, the frame's cells at
 *                         (DN_H, DN_H), mirrored around them) */

#if DENOISE

#define DN_R 2                  /* the search: offsets -2..2 cells */
#define DN_H (DN_R + 1)         /* the planes' margin: search plus patch */
#define DN_OFFSETS ((2 * DN_R + 1) * (2 * DN_R + 1))
#define DN_RUN 8                /* the host's kDenoiseRun */

/* Sample (x, y) of the frame, clamped to maxv. */
inline float dn_sample (__global const uchar * in, int stride, int in16, int x, int y, int maxv)
{
  __global const uchar *row = in + (size_t) y * stride;
  const int v = in16 ? (int) ((__global const ushort *) row)[x] : (int) row[x];
  return (float) min (v, maxv);
}

/* x of the planes' cell (px, py) */
inline float4 dn_prep_x (__global const uchar * in, int in_stride, int in16, int px, int py,
    int width, int height, int maxv, int black)
{
  const int cw = (width + 1) >> 1, ch = (height + 1) >> 1;
  const int cx = border_reflect101 (px - DN_H, cw), cy = border_reflect101 (py - DN_H, ch);
  /* a sample beyond an odd width or height: its colour's two before */
  const int x0 = 2 * cx, x1 = 2 * cx + 1 < width ? 2 * cx + 1 : 2 * cx - 1;
  const int y0 = 2 * cy, y1 = 2 * cy + 1 < height ? 2 * cy + 1 : 2 * cy - 1;
  const float4 raw = (float4) (dn_sample (in, in_stride, in16, x0, y0, maxv),
      dn_sample (in, in_stride, in16, x1, y0, maxv), dn_sample (in, in_stride, in16, x0, y1, maxv),
      dn_sample (in, in_stride, in16, x1, y1, maxv));
  return (raw - (float) black) / (float) (maxv - black);
}

#define DN_U(x, ustep) (sqrt (fmax ((x) + 1.0f / 18.0f, 0.0f)) * (ustep))

/* f (max (d / 36 - 2, 0) / h^2) of a float (dn_weight) or float8 (dn_weight8) */
#define DN_WEIGHT(name, T) \
inline T name (T d, float inv_h2) \
{ \
  T w = fmax (1.0f - fmax (d * (1.0f / 36.0f) - 2.0f, 0.0f) * inv_h2 * 0.125f, 0.0f); \
  w *= w; \
  w *= w; \
  return w * w; \
}
DN_WEIGHT (dn_weight, float)
DN_WEIGHT (dn_weight8, float8)

/* A value of [0, 1] as a word of full scale wmax, rounded: of a float
 * (dn_word) or float8 (dn_words8) */
#define DN_WORD(name, T, UT) \
inline UT name (T v, float wmax) \
{ \
  return convert_##UT (clamp (v * wmax + 0.5f, 0.0f, wmax)); \
}
DN_WORD (dn_word, float, ushort)
DN_WORD (dn_words8, float8, ushort8)

#if DN_TILE
/* The GPU kernel (built where its 46 KB of local memory fit: DN_TILE): a
 * work-group of DN_LX x DN_LY work-items (the host's
 * kDenoiseLx, kDenoiseLy), each a column of DN_RUN cells, first makes the
 * x and u of its cells and DN_H around them (debayer_denoise_prep_cpu's
 * planes, in local memory: 46 KB), then filters from there. `dst`: rows
 * of `dst_stride` words. */
#define DN_LX 32
#define DN_LY 4
#define DN_TW (DN_LX + 2 * DN_H)
#define DN_TH (DN_LY * DN_RUN + 2 * DN_H)

inline float dn_row (float4 a0, float4 a1, float4 a2, __local const float4 * q)
{
  const float4 e0 = a0 - q[-1], e1 = a1 - q[0], e2 = a2 - q[1];
  return dot (e0, e0) + dot (e1, e1) + dot (e2, e2);
}

__kernel __attribute__ ((reqd_work_group_size (DN_LX, DN_LY, 1)))
void debayer_denoise (__global const uchar * in, int in_offset, int in_stride, int in16,
    __global ushort * dst, int dst_stride, int width, int height, int maxv, int black,
    float ustep, float inv_h2, float wmax)
{
  __local float4 tile_x[DN_TH * DN_TW], tile_u[DN_TH * DN_TW];
  const int lx = get_local_id (0), ly = get_local_id (1);
  const int cx = get_global_id (0), cy0 = get_global_id (1) * DN_RUN;
  const int cw = (width + 1) >> 1, ch = (height + 1) >> 1;
  /* the tile: planes cell (px, py) is frame cell (px, py) - DN_H, mirrored */
  const int px0 = cx - lx, py0 = cy0 - ly * DN_RUN;
  for (int i = ly * DN_LX + lx; i < DN_TW * DN_TH; i += DN_LX * DN_LY) {
    const float4 x = dn_prep_x (in + in_offset, in_stride, in16, px0 + i % DN_TW,
        py0 + i / DN_TW, width, height, maxv, black);
    tile_x[i] = x;
    tile_u[i] = DN_U (x, ustep);
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  const int pw = DN_TW;
  __local const float4 *xs = tile_x + (ly * DN_RUN + DN_H) * pw + lx + DN_H;
  __local const float4 *us = tile_u + (ly * DN_RUN + DN_H) * pw + lx + DN_H;
  /* the centre patch's rows (y - 1, y, y + 1), and per offset the sums of
   * its two upper rows */
  float4 a0 = us[-pw - 1], a1 = us[-pw], a2 = us[-pw + 1];
  float4 b0 = us[-1], b1 = us[0], b2 = us[1];
  float r0[DN_OFFSETS], r1[DN_OFFSETS];
#pragma unroll
  for (int o = 0; o < DN_OFFSETS; o++) {
    const int dx = o % (2 * DN_R + 1) - DN_R, dy = o / (2 * DN_R + 1) - DN_R;
    r0[o] = dn_row (a0, a1, a2, us + (dy - 1) * pw + dx);
    r1[o] = dn_row (b0, b1, b2, us + dy * pw + dx);
  }
  for (int r = 0; r < DN_RUN; r++) {
    const int y = cy0 + r;
    __local const float4 *u = us + r * pw, *x = xs + r * pw;
    const float4 c0 = u[pw - 1], c1 = u[pw], c2 = u[pw + 1];
    float4 sum = (float4) (0.0f);
    float wsum = 0.0f;
    /* an offset row's new patch rows from its 7 cells of u, read once */
#pragma unroll
    for (int dy = -DN_R; dy <= DN_R; dy++) {
      __local const float4 *q = u + (dy + 1) * pw;
      float4 row[2 * DN_R + 3];
#pragma unroll
      for (int i = 0; i < 2 * DN_R + 3; i++)
        row[i] = q[i - DN_R - 1];
#pragma unroll
      for (int dx = -DN_R; dx <= DN_R; dx++) {
        const int o = (dy + DN_R) * (2 * DN_R + 1) + dx + DN_R;
        const float4 e0 = c0 - row[dx + DN_R], e1 = c1 - row[dx + DN_R + 1],
            e2 = c2 - row[dx + DN_R + 2];
        const float r2 = dot (e0, e0) + dot (e1, e1) + dot (e2, e2);
        const float w = dn_weight (r0[o] + r1[o] + r2, inv_h2);
        sum += w * x[dy * pw + dx];
        wsum += w;
        r0[o] = r1[o];
        r1[o] = r2;
      }
    }
    if (cx < cw && y < ch) {
      const float4 v = sum / wsum;
      __global ushort *p = dst + (size_t) (2 * y) * dst_stride + 2 * cx;
      p[0] = dn_word (v.s0, wmax);
      p[1] = dn_word (v.s1, wmax);
      p[dst_stride] = dn_word (v.s2, wmax);
      p[dst_stride + 1] = dn_word (v.s3, wmax);
    }
  }
}

#endif

/* The CPU shape (debayer_denoise_cpu; GST_OPENCL_TUNING, docs/architecture.md):
 * on PoCL debayer_denoise's float4 cells took 2.5-3x the time of this at
 * 1080p. Here the planes are eight planes of floats,
 * x's four samples then u's (sample s of cell i at s pw ph + i), and a
 * work-item takes DN_CPU_W cells of a row in float8 lanes, down a run of
 * DN_RUN rows, with debayer_denoise's sums in the same order of rows. */
#define DN_CPU_W 8                /* the host's kDenoiseCpuW */

/* 8 samples of a row at any address, in one unaligned load */
typedef struct __attribute__ ((packed)) { ushort8 v; } dn_ushort8_any;
typedef struct __attribute__ ((packed)) { uchar8 v; } dn_uchar8_any;

inline float8 dn_samples8 (__global const uchar * row, int in16, int x, int maxv)
{
  const int8 v = in16 ? convert_int8 (((__global const dn_ushort8_any *) (row + 2 * x))->v) :
      convert_int8 (((__global const dn_uchar8_any *) (row + x))->v);
  return convert_float8 (min (v, (int8) (maxv)));   /* (min (int8, int) is wrong in Oclgrind) */
}

/* x of samples x .. x + 15 of a row: its even and its odd columns */
inline void dn_pairs8 (__global const uchar * row, int in16, int x, int maxv, int black,
    float8 * even, float8 * odd)
{
  const float8 lo = dn_samples8 (row, in16, x, maxv), hi = dn_samples8 (row, in16, x + 8, maxv);
  const float range = (float) (maxv - black);
  *even = ((float8) (lo.even, hi.even) - (float) black) / range;
  *odd = ((float8) (lo.odd, hi.odd) - (float) black) / range;
}

/* x and u of the planes' cells (dn_prep_x, DN_U) into the eight planes, 8
 * cells of a row a work-item: cells whose samples all lie inside the frame
 * from 16-sample runs of their two rows, the others (the mirrored margins,
 * an odd width's last cell) one at a time through dn_prep_x */
__kernel void debayer_denoise_prep_cpu (__global const uchar * in, int in_offset,
    int in_stride, int in16, __global float * planes, int pw, int ph, int width, int height,
    int maxv, int black, float ustep)
{
  const int px0 = get_global_id (0) * 8, py = get_global_id (1);
  if (px0 >= pw || py >= ph)
    return;
  in += in_offset;
  const size_t n = (size_t) pw * ph;
  __global float *p = planes + (size_t) py * pw + px0;
  const int cx0 = px0 - DN_H;
  if (cx0 >= 0 && cx0 + 8 <= width / 2 && px0 + 8 <= pw) {
    const int ch = (height + 1) >> 1, cy = border_reflect101 (py - DN_H, ch);
    const int y0 = 2 * cy, y1 = 2 * cy + 1 < height ? 2 * cy + 1 : 2 * cy - 1;
    float8 x0, x1, x2, x3;
    dn_pairs8 (in + (size_t) y0 * in_stride, in16, 2 * cx0, maxv, black, &x0, &x1);
    dn_pairs8 (in + (size_t) y1 * in_stride, in16, 2 * cx0, maxv, black, &x2, &x3);
    STORE8_ANY (p, x0);
    STORE8_ANY (p + n, x1);
    STORE8_ANY (p + 2 * n, x2);
    STORE8_ANY (p + 3 * n, x3);
    STORE8_ANY (p + 4 * n, DN_U (x0, ustep));
    STORE8_ANY (p + 5 * n, DN_U (x1, ustep));
    STORE8_ANY (p + 6 * n, DN_U (x2, ustep));
    STORE8_ANY (p + 7 * n, DN_U (x3, ustep));
    return;
  }
  for (int l = 0; l < 8 && px0 + l < pw; l++) {
    const float4 x = dn_prep_x (in, in_stride, in16, px0 + l, py, width, height, maxv, black);
    const float4 u = DN_U (x, ustep);
    p[l] = x.s0;
    p[n + l] = x.s1;
    p[2 * n + l] = x.s2;
    p[3 * n + l] = x.s3;
    p[4 * n + l] = u.s0;
    p[5 * n + l] = u.s1;
    p[6 * n + l] = u.s2;
    p[7 * n + l] = u.s3;
  }
}

__kernel void debayer_denoise_cpu (__global const float * planes, int pw, int ph,
    __global ushort * dst, int dst_stride, int width, int height, float inv_h2, float wmax)
{
  const int cx0 = get_global_id (0) * DN_CPU_W, cy0 = get_global_id (1) * DN_RUN;
  const int cw = (width + 1) >> 1, ch = (height + 1) >> 1;
  if (cx0 >= cw || cy0 >= ch)
    return;
  const size_t n = (size_t) pw * ph;
  __global const float *xs = planes + (size_t) (cy0 + DN_H) * pw + cx0 + DN_H;
  __global const float *us = xs + 4 * n;
  /* sample s of the cells (dx, dy) from the run's first: u and x */
#define DN_U8(s, dx, dy) LOAD8_ANY (us + (s) * n + (dy) * pw + (dx))
#define DN_X8(s, dx, dy) LOAD8_ANY (xs + (s) * n + (dy) * pw + (dx))
  /* per offset the patch distance's sums of its two upper rows */
  float8 r0[DN_OFFSETS], r1[DN_OFFSETS];
#pragma unroll
  for (int o = 0; o < DN_OFFSETS; o++) {
    const int dx = o % (2 * DN_R + 1) - DN_R, dy = o / (2 * DN_R + 1) - DN_R;
    float8 a = (float8) (0.0f), b = (float8) (0.0f);
#pragma unroll
    for (int s = 0; s < 4; s++)
#pragma unroll
      for (int i = -1; i <= 1; i++) {
        const float8 ea = DN_U8 (s, i, -1) - DN_U8 (s, dx + i, dy - 1);
        const float8 eb = DN_U8 (s, i, 0) - DN_U8 (s, dx + i, dy);
        a = fma (ea, ea, a);
        b = fma (eb, eb, b);
      }
    r0[o] = a;
    r1[o] = b;
  }
  for (int r = 0; r < DN_RUN && cy0 + r < ch; r++) {
    float8 c[4][3];
#pragma unroll
    for (int s = 0; s < 4; s++)
#pragma unroll
      for (int i = 0; i < 3; i++)
        c[s][i] = DN_U8 (s, i - 1, r + 1);
    float8 sum[4] = { (float8) (0.0f), (float8) (0.0f), (float8) (0.0f), (float8) (0.0f) };
    float8 wsum = (float8) (0.0f);
#pragma unroll
    for (int dy = -DN_R; dy <= DN_R; dy++)
#pragma unroll
      for (int dx = -DN_R; dx <= DN_R; dx++) {
        const int o = (dy + DN_R) * (2 * DN_R + 1) + dx + DN_R;
        float8 r2 = (float8) (0.0f);
#pragma unroll
        for (int s = 0; s < 4; s++)
#pragma unroll
          for (int i = 0; i < 3; i++) {
            const float8 e = c[s][i] - DN_U8 (s, dx + i - 1, r + 1 + dy);
            r2 = fma (e, e, r2);
          }
        const float8 w = dn_weight8 (r0[o] + r1[o] + r2, inv_h2);
#pragma unroll
        for (int s = 0; s < 4; s++)
          sum[s] = fma (w, DN_X8 (s, dx, r + dy), sum[s]);
        wsum += w;
        r0[o] = r1[o];
        r1[o] = r2;
      }
    /* the cells' two rows of words: samples 0 and 1, then 2 and 3 */
    const ushort16 top = ((ushort16) (dn_words8 (sum[0] / wsum, wmax),
            dn_words8 (sum[1] / wsum, wmax))).s08192a3b4c5d6e7f;
    const ushort16 bottom = ((ushort16) (dn_words8 (sum[2] / wsum, wmax),
            dn_words8 (sum[3] / wsum, wmax))).s08192a3b4c5d6e7f;
    __global ushort *p = dst + (size_t) (2 * (cy0 + r)) * dst_stride + 2 * cx0;
    if (cx0 + DN_CPU_W <= cw) {
      vstore16 (top, 0, p);
      vstore16 (bottom, 0, p + dst_stride);
    } else {
      ushort t[16], b[16];
      vstore16 (top, 0, t);
      vstore16 (bottom, 0, b);
      for (int i = 0; i < 2 * (cw - cx0); i++) {
        p[i] = t[i];
        p[dst_stride + i] = b[i];
      }
    }
  }
#undef DN_U8
#undef DN_X8
}

#endif
