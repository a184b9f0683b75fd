/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The picture stages' CPU shapes, after picture.cl (whose functions they
 * share) in the same program. */

/* The CPU shape of the blur and the finish (GST_OPENCL_TUNING,
 * docs/architecture.md): on PoCL the pixel kernels took 3-5x the time of
 * these at 1080p. A work-item takes PC_SPAN pixels of a row (a row pair
 * for 4:2:0; the host's -D PC_SPAN, a multiple of 8) in explicit float8
 * lanes of 8 neighbouring pixels, with the same formulas in the same order
 * as the pixel's kernels. Vectors that reach past the frame's right or
 * bottom edge go through finish_item and the pixel's blur. The trilinear
 * LUT's corners are gathers of 8 lanes (loads from anywhere in the
 * table); tetrahedral goes a lane at a time (its tetrahedron a branch). */

/* N samples of a row from p as codes (rd8, rd4), and wr of N codes (wr8,
 * wr4) */
#if PX_SAMPLE == 2
#define PX_SAMPLES(p, N) vload##N (0, (__global const ushort *) (p))
#define PX_STORE(v, p, N) vstore##N (convert_ushort##N (v), 0, (__global ushort *) (p))
#else
#define PX_SAMPLES(p, N) vload##N (0, (p))
#define PX_STORE(v, p, N) vstore##N (convert_uchar##N (v), 0, (p))
#endif
#define RD_WR(N) \
inline float##N rd##N (__global const uchar * p) \
{ \
  return convert_float##N (PX_SAMPLES (p, N)); \
} \
inline void wr##N (__global uchar * p, float##N code) \
{ \
  PX_STORE (convert_uint##N (clamp (code + 0.5f, 0.0f, MAXV)), p, N); \
}
RD_WR (8)
RD_WR (4)

/* 8-bit samples of 4-byte pixels: the 8 pixels' words (order: a sample's
 * byte in the word) */
#define PX_WORDS (PX_BPP == 4 && PX_SAMPLE == 1)
#if PX_WORDS
inline uint8 words8 (__global const uchar * p)
{
  return (uint8) (as_uint4 (vload16 (0, p)), as_uint4 (vload16 (1, p)));
}
#define WORD_CODE(w, i) convert_float8 (((w) >> (uint) (8 * (i))) & 0xffu)
#endif

/* Pixels x .. x + 7 of row y (inside the frame) as Y'CbCr, as unpacked ()
 * or the working picture gives them */
inline void pixels8 (__global const uchar * in, int in_o0, int in_o1, int in_o2, int in_s0,
    int in_s1, int in_s2, __global const float4 * work, int direct, int x, int y, int width,
    int4 order, float16 k, float8 * yv, float8 * cb, float8 * cr)
{
  if (!direct) {
    float a[8], b[8], c[8];
    for (int l = 0; l < 8; l++) {
      const float4 v = work[y * width + x + l];
      a[l] = v.x;
      b[l] = v.y;
      c[l] = v.z;
    }
    *yv = vload8 (0, a);
    *cb = vload8 (0, b);
    *cr = vload8 (0, c);
    return;
  }
#if PX_420
  *yv = YCBCR_Y_OF_CODE (k, rd8 (in + in_o0 + y * in_s0 + x * PX_SAMPLE) * (255.0f / MAXV));
  /* the 4 cells' chroma, each over its 2 pixels */
#if PX_YUV == YUV_NV12
  const float8 c = rd8 (in + in_o1 + y / 2 * in_s1 + x * PX_SAMPLE) * (255.0f / MAXV);
  const float4 u = c.even, v = c.odd;
#else
  const float4 u = rd4 (in + in_o1 + y / 2 * in_s1 + x / 2 * PX_SAMPLE) * (255.0f / MAXV);
  const float4 v = rd4 (in + in_o2 + y / 2 * in_s2 + x / 2 * PX_SAMPLE) * (255.0f / MAXV);
#endif
  *cb = YCBCR_C_OF_CODE (k, u.s00112233);
  *cr = YCBCR_C_OF_CODE (k, v.s00112233);
#elif PX_CH == 1
  *yv = rd8 (in + in_o0 + y * in_s0 + x * PX_SAMPLE) / MAXV;
  *cb = *cr = (float8) (0.0f);
#else
  float8 r, g, b;
  __global const uchar *p = in + in_o0 + y * in_s0 + x * PX_BPP;
#if PX_WORDS
  const uint8 w = words8 (p);
  r = WORD_CODE (w, order.x) / MAXV;
  g = WORD_CODE (w, order.y) / MAXV;
  b = WORD_CODE (w, order.z) / MAXV;
#else
  float rs[8], gs[8], bs[8];
  for (int l = 0; l < 8; l++) {
    rs[l] = rd (p + l * PX_BPP + order.x * PX_SAMPLE);
    gs[l] = rd (p + l * PX_BPP + order.y * PX_SAMPLE);
    bs[l] = rd (p + l * PX_BPP + order.z * PX_SAMPLE);
  }
  r = vload8 (0, rs) / MAXV;
  g = vload8 (0, gs) / MAXV;
  b = vload8 (0, bs) / MAXV;
#endif
  *yv = YCBCR_LUMA (k, r, g, b);
  *cb = YCBCR_CB (k, b, *yv);
  *cr = YCBCR_CR (k, r, *yv);
#endif
}

__kernel void picture_blur_rows_cpu (IN_FRAME, __global const float4 * work, int direct,
    __global float * rows, int width, int height, float16 gauss, int radius, int4 order,
    float16 k)
{
  const int x0 = get_global_id (0) * PC_SPAN, y = get_global_id (1);
  if (x0 >= width || y >= height)
    return;
  /* Y' of columns x0 - 9 .. x0 + PC_SPAN + 14, the edge pixels repeated
   * beyond the frame (the taps reach 9 columns) */
  float l[PC_SPAN + 24];
  for (int m = 0; m < PC_SPAN + 24; m += 8) {
    const int x = x0 - 9 + m;
    if (x >= 0 && x + 8 <= width) {
      float8 yv, cb, cr;
      pixels8 (in, in_o0, in_o1, in_o2, in_s0, in_s1, in_s2, work, direct, x, y, width, order,
          k, &yv, &cb, &cr);
      vstore8 (yv, 0, l + m);
    } else {
      for (int i = 0; i < 8; i++)
        l[m + i] = luma_at (in, in_o0, in_o1, in_o2, in_s0, in_s1, in_s2, work, direct,
            clamp (x + i, 0, width - 1), y, width, order, k);
    }
  }
  for (int m = 0; m < PC_SPAN && x0 + m < width; m += 8) {
    const float *c = l + 9 + m;
    float8 sum = gauss.s0 * vload8 (0, c);
#define TAP(i, g) if (radius >= i) sum += g * (vload8 (0, c - i) + vload8 (0, c + i))
    GAUSS_TAPS;
#undef TAP
    __global float *o = rows + y * width + x0 + m;
    if (x0 + m + 8 <= width) {
      STORE8_ANY (o, sum);
    } else {
      float s[8];
      vstore8 (sum, 0, s);
      for (int i = 0; x0 + m + i < width; i++)
        o[i] = s[i];
    }
  }
}

/* blur_down of 8 pixels */
inline float8 blur_down8 (__global const float * rows, int x, int y, int width, int height,
    float16 gauss, int radius)
{
  float8 sum = gauss.s0 * LOAD8_ANY (rows + y * width + x);
#define TAP(j, g) if (radius >= j) sum += g * (LOAD8_ANY (rows + max (y - j, 0) * width + x) + \
    LOAD8_ANY (rows + min (y + j, height - 1) * width + x))
  GAUSS_TAPS;
#undef TAP
  return sum;
}

/* looked_up of 8 pixels' R'G'B': trilinear and tetrahedral (its
 * tetrahedron a branch) a pixel at a time */
inline void looked_up8 (float8 * r, float8 * g, float8 * b, __global const float4 * lut, int n,
    int interp, float4 scale, float4 offset, float strength)
{
  if (interp == 1) {
    const float top = (float) (n - 1);
    const float8 gx = clamp (*r * scale.x + offset.x, 0.0f, top);
    const float8 gy = clamp (*g * scale.y + offset.y, 0.0f, top);
    const float8 gz = clamp (*b * scale.z + offset.z, 0.0f, top);
    const int8 ix = min (convert_int8 (gx), n - 2), iy = min (convert_int8 (gy), n - 2);
    const int8 iz = min (convert_int8 (gz), n - 2);
    const float8 fx = gx - convert_float8 (ix), fy = gy - convert_float8 (iy);
    const float8 fz = gz - convert_float8 (iz);
    /* a pixel at a time: its cell's 4 pairs of red neighbours (r, g, b)
     * and (r + 1, g, b) as 8 lanes each (0-2 and 4-6; packed: one 16-byte
     * entry, else two float4s), blended in y and z on all 8 lanes, then
     * in x: 2x gathering each corner's channel in lanes of 8 pixels on
     * PoCL (AVX2) */
    float fs[3][8], vs[3][8];
    int is[8];
    vstore8 (fx, 0, fs[0]);
    vstore8 (fy, 0, fs[1]);
    vstore8 (fz, 0, fs[2]);
    vstore8 (ix + n * (iy + n * iz), 0, is);
    for (int l = 0; l < 8; l++) {
      __global const float4 *e = lut + is[l];
#if LUT_PACKED
#define E(dy, dz) convert_float8 (as_ushort8 (e[n * ((dy) + n * (dz))]))
#else
#define E(dy, dz) vload8 (0, (__global const float *) (e + n * ((dy) + n * (dz))))
#endif
      const float8 ey = LERP (E (0, 0), E (1, 0), fs[1][l]);
      const float8 ez = LERP (E (0, 1), E (1, 1), fs[1][l]);
#undef E
      const float8 c = LERP (ey, ez, fs[2][l]);
      const float4 v = LERP (c.lo, c.hi, fs[0][l]);
      vs[0][l] = v.x;
      vs[1][l] = v.y;
      vs[2][l] = v.z;
    }
    *r = LERP (*r, LUT_VALUE (vload8 (0, vs[0]), scale, offset), strength);
    *g = LERP (*g, LUT_VALUE (vload8 (0, vs[1]), scale, offset), strength);
    *b = LERP (*b, LUT_VALUE (vload8 (0, vs[2]), scale, offset), strength);
    return;
  }
  float rs[8], gs[8], bs[8];
  vstore8 (*r, 0, rs);
  vstore8 (*g, 0, gs);
  vstore8 (*b, 0, bs);
  for (int l = 0; l < 8; l++) {
    const float3 c = looked_up ((float3) (rs[l], gs[l], bs[l]), lut, n, interp, scale, offset,
        strength);
    rs[l] = c.x;
    gs[l] = c.y;
    bs[l] = c.z;
  }
  *r = vload8 (0, rs);
  *g = vload8 (0, gs);
  *b = vload8 (0, bs);
}

/* finish_item of pixels x .. x + 7 of row y (inside the frame); for 4:2:0
 * the Y' written and the pixels' Cb and Cr returned */
inline void finish8 (FINISH_PARAMS, int x, int y, float8 * cb_out, float8 * cr_out)
{
  float8 yv, cb, cr;
  pixels8 (in, in_o0, in_o1, in_o2, in_s0, in_s1, in_s2, work, direct, x, y, width, order, k,
      &yv, &cb, &cr);
  float8 ys = yv;
  if (radius) {
    const float8 d = yv - blur_down8 (rows, x, y, width, height, gauss, radius);
    ys = select (yv, yv + amount * d, fabs (d) >= threshold);
  }
  const float4 ls = lut_scale, lo = lut_offset;
#if PX_420
  if (interp) {
    float8 r = YCBCR_RED (k, ys, cr), b = YCBCR_BLUE (k, ys, cb);
    float8 g = YCBCR_GREEN (k, ys, r, b);
    r = clamp (r, 0.0f, 1.0f);
    g = clamp (g, 0.0f, 1.0f);
    b = clamp (b, 0.0f, 1.0f);
    looked_up8 (&r, &g, &b, lut, n, interp, ls, lo, strength);
    ys = YCBCR_LUMA (k, r, g, b);
    cb = YCBCR_CB (k, b, ys);
    cr = YCBCR_CR (k, r, ys);
  }
  wr8 (out + out_o0 + y * out_s0 + x * PX_SAMPLE, YCBCR_Y_CODE (k, ys) * (MAXV / 255.0f));
  *cb_out = cb;
  *cr_out = cr;
#elif PX_CH == 1
  float8 r = clamp (ys, 0.0f, 1.0f), g = r, b = r;
  if (interp)
    looked_up8 (&r, &g, &b, lut, n, interp, ls, lo, strength);
  wr8 (out + out_o0 + y * out_s0 + x * PX_SAMPLE, YCBCR_LUMA (k, r, g, b) * MAXV);
#else
  /* R', G', B' each get Y'' - Y', then clipped */
  float8 r = YCBCR_RED (k, yv, cr), b = YCBCR_BLUE (k, yv, cb);
  float8 g = YCBCR_GREEN (k, yv, r, b);
  r = clamp (r + (ys - yv), 0.0f, 1.0f);
  g = clamp (g + (ys - yv), 0.0f, 1.0f);
  b = clamp (b + (ys - yv), 0.0f, 1.0f);
  if (interp)
    looked_up8 (&r, &g, &b, lut, n, interp, ls, lo, strength);
  r *= MAXV;
  g *= MAXV;
  b *= MAXV;
  __global uchar *p = out + out_o0 + y * out_s0 + x * PX_BPP;
#if PX_WORDS
  /* the fourth byte (alpha or padding) the input's */
#define WORD_OF(v, i) (convert_uint8 (clamp ((v) + 0.5f, 0.0f, MAXV)) << (uint) (8 * (i)))
  const uint8 w = WORD_OF (r, order.x) | WORD_OF (g, order.y) | WORD_OF (b, order.z) |
      (words8 (in + in_o0 + y * in_s0 + x * PX_BPP) & (0xffu << (uint) (8 * order.w)));
#undef WORD_OF
  vstore16 (as_uchar16 (w.lo), 0, p);
  vstore16 (as_uchar16 (w.hi), 1, p);
#else
  float rs[8], gs[8], bs[8];
  vstore8 (r, 0, rs);
  vstore8 (g, 0, gs);
  vstore8 (b, 0, bs);
  for (int l = 0; l < 8; l++) {
    __global uchar *q = p + l * PX_BPP;
    wr (q + order.x * PX_SAMPLE, rs[l]);
    wr (q + order.y * PX_SAMPLE, gs[l]);
    wr (q + order.z * PX_SAMPLE, bs[l]);
#if PX_CH == 4
    wr (q + order.w * PX_SAMPLE, rd (in + in_o0 + y * in_s0 + (x + l) * PX_BPP +
            order.w * PX_SAMPLE));
#endif
  }
#endif
#endif
}

__kernel void picture_finish_cpu (FINISH_PARAMS)
{
  const int x0 = get_global_id (0) * PC_SPAN;
#if PX_420
  const int y = 2 * get_global_id (1);
#else
  const int y = get_global_id (1);
#endif
  if (x0 >= width || y >= height)
    return;
  for (int m = 0; m < PC_SPAN && x0 + m < width; m += 8) {
    const int x = x0 + m;
#if PX_420
    if (x + 8 > width || y + 2 > height) {
      for (int bx = x / 2; bx < x / 2 + 4; bx++)
        finish_item (FINISH_ARGS, bx, y / 2);
      continue;
    }
    /* the 4 blocks' chroma: the mean of their pixels', in finish_item's
     * order */
    float8 cb0, cr0, cb1, cr1;
    finish8 (FINISH_ARGS, x, y, &cb0, &cr0);
    finish8 (FINISH_ARGS, x, y + 1, &cb1, &cr1);
    const float4 cb = YCBCR_C_CODE (k, (((cb0.even + cb0.odd) + cb1.even) + cb1.odd) *
        (1.0f / 4)) * (MAXV / 255.0f);
    const float4 cr = YCBCR_C_CODE (k, (((cr0.even + cr0.odd) + cr1.even) + cr1.odd) *
        (1.0f / 4)) * (MAXV / 255.0f);
#if PX_YUV == YUV_NV12
    wr8 (out + out_o1 + y / 2 * out_s1 + x * PX_SAMPLE, ((float8) (cb, cr)).s04152637);
#else
    wr4 (out + out_o1 + y / 2 * out_s1 + x / 2 * PX_SAMPLE, cb);
    wr4 (out + out_o2 + y / 2 * out_s2 + x / 2 * PX_SAMPLE, cr);
#endif
#else
    if (x + 8 > width) {
      for (int px = x; px < width; px++)
        finish_item (FINISH_ARGS, px, y);
      continue;
    }
    float8 cb, cr;
    finish8 (FINISH_ARGS, x, y, &cb, &cr);
#endif
  }
}
