/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Rank-1 kernels in one pass through local memory, GPUs: float factors, and
 * integer row factors for 4-byte pixels. Needs prelude.cl. */

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
