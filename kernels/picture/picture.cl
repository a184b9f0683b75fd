/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The picture stages (gst/elements/picture/gstclpicturestages.hpp):
 * denoise -> sharpen -> 3D LUT on a transfer-encoded picture, shared by
 * cldebayer's camera path and clpicture. Three kernels over a working
 * picture of float4 (Y', Cb, Cr, 0) a pixel, in units of full scale:
 *
 *   picture_unpack   the frame (RGB 8/16-bit, grey, NV12, I420; PX_* options)
 *                    to the working picture; 4:2:0 chroma repeated over its
 *                    2 x 2 pixels (only before the denoise)
 *   picture_denoise  non-local means, working picture to working picture
 *                    (CPUs: picture_planes, then picture_denoise_cpu)
 *   picture_finish_tiled  the unsharp mask's Gaussian of Y' (in local
 *                    memory), unsharp mask on Y', the 3D LUT on R'G'B',
 *                    and the frame out (4:2:0 chroma: the mean of its
 *                    2 x 2 pixels'); the fourth sample (alpha) copied from
 *                    the input frame (CPUs, picture_cpu.cl:
 *                    picture_blur_rows_cpu into a plane of floats, then
 *                    picture_finish_cpu)
 *
 * Without the denoise (`direct`) there is no working picture: the blur and
 * the finish unpack the input frame's pixels where they read them.
 *
 * `k` holds Kr, Kb, Y offset, Y scale, C scale (kernels/color.cl) of the
 * frame's Y'CbCr: for RGB frames BT.709's luma weights (the issue's
 * Y' = 0.2126 R' + 0.7152 G' + 0.0722 B') at full range 0..1. Borders
 * replicate the edge pixel. */

#define PX_420 (PX_YUV == YUV_NV12 || PX_YUV == YUV_I420)

/* `k` is a float16 here: lanes 0-7 kernels/color.cl's, 8-14 the constants
 * its conversions derive by division, made once on the host
 * (gstclpicturestages.cpp, derived_coefficients): 1 / Y scale, 1 / C
 * scale, 1 / Kg, 0.5 / (1 - Kb), 0.5 / (1 - Kr), 2 (1 - Kr), 2 (1 - Kb).
 * The GPU finish spent about 40 instructions a pixel on those divisions
 * (a full-range reciprocal each, made again for each pixel of a block). */
#undef YCBCR_CB
#undef YCBCR_CR
#undef YCBCR_Y_OF_CODE
#undef YCBCR_C_OF_CODE
#undef YCBCR_RED
#undef YCBCR_BLUE
#undef YCBCR_GREEN
#define YCBCR_CB(k, b, y) (((b) - (y)) * (k).sb)
#define YCBCR_CR(k, r, y) (((r) - (y)) * (k).sc)
#define YCBCR_Y_OF_CODE(k, code) (((code) - (k).s2) * (k).s8)
#define YCBCR_C_OF_CODE(k, code) (((code) - 128.0f) * (k).s9)
#define YCBCR_RED(k, y, cr) ((y) + (k).sd * (cr))
#define YCBCR_BLUE(k, y, cb) ((y) + (k).se * (cb))
#define YCBCR_GREEN(k, y, r, b) (((y) - (k).s0 * (r) - (k).s1 * (b)) * (k).sa)
#define MAXV ((float) ((1 << PX_DEPTH) - 1))

#define IN_FRAME __global const uchar * in, int in_o0, int in_o1, int in_o2, int in_s0, \
    int in_s1, int in_s2
#define OUT_FRAME __global uchar * out, int out_o0, int out_o1, int out_o2, int out_s0, \
    int out_s1, int out_s2

inline float rd (__global const uchar * p)
{
#if PX_SAMPLE == 2
  return (float) (p[0] | (p[1] << 8));
#else
  return (float) p[0];
#endif
}

inline void wr (__global uchar * p, float code)
{
  const uint v = (uint) clamp (code + 0.5f, 0.0f, MAXV);
#if PX_SAMPLE == 2
  p[0] = (uchar) v;
  p[1] = (uchar) (v >> 8);
#else
  p[0] = (uchar) v;
#endif
}

/* The chroma sample pair of 4:2:0 cell (cx, cy): codes. */
inline float2 chroma_codes (__global const uchar * f, int o1, int o2, int s1, int s2, int cx,
    int cy)
{
#if PX_YUV == YUV_NV12
  __global const uchar *p = f + o1 + cy * s1 + 2 * cx * PX_SAMPLE;
  return (float2) (rd (p), rd (p + PX_SAMPLE));
#else
  return (float2) (rd (f + o1 + cy * s1 + cx * PX_SAMPLE), rd (f + o2 + cy * s2 + cx * PX_SAMPLE));
#endif
}

/* Y'CbCr (Y' 0..1, Cb and Cr -0.5..0.5) <-> R'G'B' for the frame's k */
inline float4 ycc_of_rgb (float3 c, float16 k)
{
  const float y = YCBCR_LUMA (k, c.x, c.y, c.z);
  return (float4) (y, YCBCR_CB (k, c.z, y), YCBCR_CR (k, c.x, y), 0.0f);
}

inline float3 rgb_of_ycc (float4 v, float16 k)
{
  const float r = YCBCR_RED (k, v.x, v.z), b = YCBCR_BLUE (k, v.x, v.y);
  return (float3) (r, YCBCR_GREEN (k, v.x, r, b), b);
}

/* Pixel (x, y) of the frame as Y'CbCr (fourth lane 0). */
inline float4 unpacked (__global const uchar * in, int in_o0, int in_o1, int in_o2, int in_s0,
    int in_s1, int in_s2, int x, int y, int4 order, float16 k)
{
  float4 v;
#if PX_420
  const float2 c = chroma_codes (in, in_o1, in_o2, in_s1, in_s2, x / 2, y / 2) *
      (255.0f / MAXV);
  v = (float4) (YCBCR_Y_OF_CODE (k, rd (in + in_o0 + y * in_s0 + x * PX_SAMPLE) *
          (255.0f / MAXV)), YCBCR_C_OF_CODE (k, c.x), YCBCR_C_OF_CODE (k, c.y), 0.0f);
#elif PX_CH == 1
  v = (float4) (rd (in + in_o0 + y * in_s0 + x * PX_SAMPLE) / MAXV, 0.0f, 0.0f, 0.0f);
#else
  __global const uchar *p = in + in_o0 + y * in_s0 + x * PX_BPP;
  v = ycc_of_rgb ((float3) (rd (p + order.x * PX_SAMPLE), rd (p + order.y * PX_SAMPLE),
          rd (p + order.z * PX_SAMPLE)) / MAXV, k);
#endif
  return v;
}

#define UNPACKED(x, y) unpacked (in, in_o0, in_o1, in_o2, in_s0, in_s1, in_s2, x, y, order, k)

/* Y' of pixel (x, y): the frame's, or the working picture's */
inline float luma_at (__global const uchar * in, int in_o0, int in_o1, int in_o2, int in_s0,
    int in_s1, int in_s2, __global const float4 * work, int direct, int x, int y, int width,
    int4 order, float16 k)
{
  if (!direct)
    return work[y * width + x].x;
#if PX_420
  /* the Y plane's code only, as unpacked () reads it */
  return YCBCR_Y_OF_CODE (k, rd (in + in_o0 + y * in_s0 + x * PX_SAMPLE) * (255.0f / MAXV));
#else
  return UNPACKED (x, y).x;
#endif
}

__kernel void picture_unpack (IN_FRAME, __global float4 * work, int width, int height,
    int4 order, float16 k)
{
  const int x = get_global_id (0), y = get_global_id (1);
  if (x >= width || y >= height)
    return;
  work[y * width + x] = UNPACKED (x, y);
}

/* Non-local means: each pixel the weighted mean of the pixels of a
 * (2 DN_R + 1)^2 window (Y') and a (2 DN_RC + 1)^2 window (Cb, Cr). The
 * weight of a pixel is about exp (-d / h^2 - dc / (k h)^2), d the mean squared
 * difference of the 3 x 3 patches' Y', dc the squared chroma difference of
 * the two pixels, k 2 for Y' and 3 for chroma (chroma follows the luma's
 * edges and is averaged across more of its own noise). h follows the noise
 * expected at the patch's brightness: `h` is mid grey's, for
 * Poisson-Gaussian noise whose variance at a linear x is sigma^2 (1.8 x +
 * 0.1) (a tenth of it read noise at mid grey) seen through an sRGB-like
 * curve, and at most 4 times mid grey's. */
#define DN_R 2
#define DN_RC 3

inline float4 at (__global const float4 * work, int x, int y, int width, int height)
{
  return work[clamp (y, 0, height - 1) * width + clamp (x, 0, width - 1)];
}

/* A work-group denoises a DN_LX x DN_LY tile from local memory: the
 * tile's Y' with a halo of DN_RC + 1 (the patches of the farthest
 * offsets) and its chroma with a halo of DN_RC, loaded once. */
/* exp (-x) as (1 - x / 8)^8, 0 from x = 8 on (exp (-8) = 3e-4): plain
 * arithmetic that PoCL vectorises (its exp is a scalar call, 20x slower on
 * the whole kernel) */
inline float weight_of (float x)
{
  float w = fmax (1.0f - x * 0.125f, 0.0f);
  w *= w;
  w *= w;
  return w * w;
}

#define DN_LX 16
#define DN_LY 8
#define DN_HY (DN_RC + 1)
#define DN_YW (DN_LX + 2 * DN_HY)
#define DN_YH (DN_LY + 2 * DN_HY)
#define DN_CW (DN_LX + 2 * DN_RC)
#define DN_CH (DN_LY + 2 * DN_RC)

__kernel __attribute__ ((reqd_work_group_size (DN_LX, DN_LY, 1)))
void picture_denoise (__global const float4 * work, __global float4 * dst, int width,
    int height, float h)
{
  __local float ly[DN_YH][DN_YW];
  __local float2 lc[DN_CH][DN_CW];
  const int lx = get_local_id (0), lyi = get_local_id (1);
  const int x0 = get_group_id (0) * DN_LX, y0 = get_group_id (1) * DN_LY;
  for (int i = lyi * DN_LX + lx; i < DN_YW * DN_YH; i += DN_LX * DN_LY) {
    const int tx = i % DN_YW, ty = i / DN_YW;
    const float4 v = at (work, x0 + tx - DN_HY, y0 + ty - DN_HY, width, height);
    ly[ty][tx] = v.x;
    if (tx >= 1 && ty >= 1 && tx <= DN_CW && ty <= DN_CH)
      lc[ty - 1][tx - 1] = v.yz;
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  const int x = x0 + lx, y = y0 + lyi;
  /* (no return before the store: PoCL vectorises the work-items of a
   * group only when they all take the same path) */
  /* the pixel in the tiles */
  const int cx = lx + DN_HY, cy = lyi + DN_HY;
  float p[9];
  float mean = 0.0f;
  for (int j = 0; j < 3; j++)
    for (int i = 0; i < 3; i++) {
      p[3 * j + i] = ly[cy + j - 1][cx + i - 1];
      mean += p[3 * j + i];
    }
  mean = clamp (mean * (1.0f / 9.0f), 0.002f, 1.0f);
  /* the expected noise at this brightness over mid grey's: sRGB's slope
   * (x^(1/2.4 - 1) / 2.4, as 0.5's) times sqrt (1.8 x + 0.1) */
  const float lin = mean <= 0.04045f ? mean * (1.0f / 12.92f) :
      pow ((mean + 0.055f) * (1.0f / 1.055f), 2.4f);
  const float slope = lin <= 0.0031308f ? 12.92f * 2.4f / 1.055f * 0.5f :
      pow (lin * 2.0f, 1.0f / 2.4f - 1.0f);
  const float hs = h * fmin (slope * sqrt (1.8f * lin + 0.1f), 4.0f);
  const float id = 1.0f / (hs * hs), iy = id * (1.0f / 4.0f), ic = id * (1.0f / 9.0f);
  const float2 centre = lc[lyi + DN_RC][lx + DN_RC];
  float sy = 0.0f, wy = 0.0f, wc = 0.0f;
  float2 sc = (float2) (0.0f);
  for (int dy = -DN_RC; dy <= DN_RC; dy++)
    for (int dx = -DN_RC; dx <= DN_RC; dx++) {
      float d = 0.0f;
      for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
          const float e = p[3 * j + i] - ly[cy + dy + j - 1][cx + dx + i - 1];
          d += e * e;
        }
      d *= id * (1.0f / 9.0f);
      const float qy = ly[cy + dy][cx + dx];
      const float2 qc = lc[lyi + DN_RC + dy][lx + DN_RC + dx];
      const float2 dcv = qc - centre;
      const float dc = dot (dcv, dcv);
      const float wv = abs (dx) <= DN_R && abs (dy) <= DN_R ? weight_of (d + dc * iy) : 0.0f;
      sy += wv * qy;
      wy += wv;
      const float w = weight_of (d + dc * ic);
      sc += w * qc;
      wc += w;
    }
  if (x < width && y < height)
    dst[y * width + x] = (float4) (sy / wy, sc / wc, 0.0f);
}

/* The CPU shape (GST_OPENCL_TUNING, docs/architecture.md): PoCL does not
 * vectorise picture_denoise's loops across work-items, so here a
 * work-item takes 8 pixels of a row in explicit float8, from planes of Y',
 * Cb and Cr padded by DN_HALO replicated pixels (picture_planes: rows of
 * `pstride` floats, pheight rows, the three planes one after the other).
 * The same sums as picture_denoise. */
#define DN_HALO (DN_RC + 1)

__kernel void picture_planes (__global const float4 * work, __global float * planes,
    int width, int height, int pstride, int pheight)
{
  const int x = get_global_id (0), y = get_global_id (1);
  if (x >= pstride || y >= pheight)
    return;
  const float4 v = at (work, x - DN_HALO, y - DN_HALO, width, height);
  const int i = y * pstride + x, plane = pstride * pheight;
  planes[i] = v.x;
  planes[plane + i] = v.y;
  planes[2 * plane + i] = v.z;
}

inline float8 weight8_of (float8 x)
{
  float8 w = fmax (1.0f - x * 0.125f, 0.0f);
  w *= w;
  w *= w;
  return w * w;
}

__kernel void picture_denoise_cpu (__global const float * planes, int pstride, int pheight,
    __global float4 * dst, int width, int height, float h)
{
  const int x0 = 8 * get_global_id (0), y = get_global_id (1);
  if (x0 >= width || y >= height)
    return;
  const int plane = pstride * pheight;
  __global const float *yp = planes + (y + DN_HALO) * pstride + x0 + DN_HALO;
  __global const float *cbp = yp + plane, *crp = yp + 2 * plane;
  float8 p[9];
  float8 mean = (float8) (0.0f);
  for (int j = 0; j < 3; j++)
    for (int i = 0; i < 3; i++) {
      p[3 * j + i] = vload8 (0, yp + (j - 1) * pstride + i - 1);
      mean += p[3 * j + i];
    }
  mean = clamp (mean * (1.0f / 9.0f), 0.002f, 1.0f);
  const float8 lin = select (pow ((mean + 0.055f) * (1.0f / 1.055f), (float8) (2.4f)),
      mean * (1.0f / 12.92f), mean <= 0.04045f);
  const float8 slope = select (pow (lin * 2.0f, (float8) (1.0f / 2.4f - 1.0f)),
      (float8) (12.92f * 2.4f / 1.055f * 0.5f), lin <= 0.0031308f);
  const float8 hs = h * fmin (slope * sqrt (1.8f * lin + 0.1f), 4.0f);
  const float8 id = 1.0f / (hs * hs), iy = id * (1.0f / 4.0f), ic = id * (1.0f / 9.0f);
  const float8 cb0 = vload8 (0, cbp), cr0 = vload8 (0, crp);
  float8 sy = (float8) (0.0f), wy = (float8) (0.0f), wc = (float8) (0.0f);
  float8 scb = (float8) (0.0f), scr = (float8) (0.0f);
  for (int dy = -DN_RC; dy <= DN_RC; dy++)
    for (int dx = -DN_RC; dx <= DN_RC; dx++) {
      __global const float *q = yp + dy * pstride + dx;
      float8 d = (float8) (0.0f);
      for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
          const float8 e = p[3 * j + i] - vload8 (0, q + (j - 1) * pstride + i - 1);
          d = mad (e, e, d);
        }
      d *= id * (1.0f / 9.0f);
      const float8 qy = vload8 (0, q);
      const float8 qcb = vload8 (0, q + plane), qcr = vload8 (0, q + 2 * plane);
      const float8 dcb = qcb - cb0, dcr = qcr - cr0;
      const float8 dc = dcb * dcb + dcr * dcr;
      if (abs (dx) <= DN_R && abs (dy) <= DN_R) {
        const float8 w = weight8_of (d + dc * iy);
        sy = mad (w, qy, sy);
        wy += w;
      }
      const float8 w = weight8_of (d + dc * ic);
      scb = mad (w, qcb, scb);
      scr = mad (w, qcr, scr);
      wc += w;
    }
  float ys[8], cbs[8], crs[8];
  vstore8 (sy / wy, 0, ys);
  vstore8 (scb / wc, 0, cbs);
  vstore8 (scr / wc, 0, crs);
  for (int l = 0; l < 8 && x0 + l < width; l++)
    dst[y * width + x0 + l] = (float4) (ys[l], cbs[l], crs[l], 0.0f);
}

/* The taps 1..9 of the Gaussian `gauss` up to `radius`, TAP (i, weight)
 * each (the weights by name: an array indexed in a loop would live in
 * memory) */
#define GAUSS_TAPS TAP (1, gauss.s1); TAP (2, gauss.s2); TAP (3, gauss.s3); TAP (4, gauss.s4); \
    TAP (5, gauss.s5); TAP (6, gauss.s6); TAP (7, gauss.s7); TAP (8, gauss.s8); TAP (9, gauss.s9)

/* The unsharp mask's Gaussian G * Y' (`gauss` the weights of offsets
 * 0..radius; borders replicate the edge pixel): on GPUs inside the finish
 * (picture_finish_tiled), on CPUs in two passes, the rows (Y' of the frame
 * or of the working picture into `rows`: picture_blur_rows_cpu), then the
 * columns in the finish (blur_down). */

/* G * Y' at (x, y): the rows' sums down the column */
inline float blur_down (__global const float * rows, int x, int y, int width, int height,
    float16 gauss, int radius)
{
  float sum = gauss.s0 * rows[y * width + x];
#define TAP(j, g) if (radius >= j) sum += g * (rows[max (y - j, 0) * width + x] + \
    rows[min (y + j, height - 1) * width + x])
  GAUSS_TAPS;
#undef TAP
  return sum;
}

/* The LUT at R'G'B' `c` (lut: n^3 entries, red fastest; g = c *
 * scale.xyz + offset.xyz on the grid, clamped), trilinear (interp 1) or
 * tetrahedral (2); interp 0: no LUT. An entry is 16 bytes: with
 * LUT_PACKED (the host's choice for outputs of up to 10 bits) the corners
 * (r, g, b) and (r + 1, g, b) as unorm16 of the table's range (lanes 0-2
 * and 4-6; a value offset.w + scale.w q), so that trilinear reads 4
 * entries, not 8: the finish's gathers are most of its time on a GPU,
 * where colours change from pixel to pixel; else (r, g, b) as float4. */
/* mix (a, b, t) as its formula, for float3 and float8 alike */
#define LERP(a, b, t) ((a) + ((b) - (a)) * (t))
#if LUT_PACKED
#define LUT_ENTRY(r, g, b) convert_float8 (as_ushort8 (lut[(r) + n * ((g) + n * (b))]))
#define LUT_VALUE(q, scale, offset) ((offset).w + (scale).w * (q))
#else
#define LUT_ENTRY(r, g, b) lut[(r) + n * ((g) + n * (b))]
#define LUT_VALUE(q, scale, offset) (q)
#endif

inline float3 lut_apply (__global const float4 * lut, int n, int interp, float3 c,
    float4 scale, float4 offset)
{
  const float3 gp = clamp (c * scale.xyz + offset.xyz, 0.0f, (float) (n - 1));
  const int3 i = min (convert_int3 (gp), (int3) (n - 2));
  const float3 f = gp - convert_float3 (i);
  /* corner (dx, dy, dz) of the cell */
#if LUT_PACKED
  const float8 e00 = LUT_ENTRY (i.x, i.y, i.z), e10 = LUT_ENTRY (i.x, i.y + 1, i.z);
  const float8 e01 = LUT_ENTRY (i.x, i.y, i.z + 1), e11 = LUT_ENTRY (i.x, i.y + 1, i.z + 1);
#define C(dx, dy, dz) ((dx) ? e##dy##dz.s456 : e##dy##dz.s012)
#else
#define C(dx, dy, dz) LUT_ENTRY (i.x + dx, i.y + dy, i.z + dz).xyz
#endif
  if (interp == 1) {
    const float3 c00 = LERP (C (0, 0, 0), C (1, 0, 0), f.x), c10 = LERP (C (0, 1, 0), C (1, 1, 0), f.x);
    const float3 c01 = LERP (C (0, 0, 1), C (1, 0, 1), f.x), c11 = LERP (C (0, 1, 1), C (1, 1, 1), f.x);
    return LUT_VALUE (LERP (LERP (c00, c10, f.y), LERP (c01, c11, f.y), f.z), scale, offset);
  }
  /* the tetrahedron of the cell's main diagonal that holds the point */
  const float3 c000 = C (0, 0, 0), c111 = C (1, 1, 1);
  float3 a, b;
  float fa, fb, fc, fd;
  if (f.x >= f.y) {
    if (f.y >= f.z) {
      a = C (1, 0, 0); b = C (1, 1, 0);
      fa = 1 - f.x; fb = f.x - f.y; fc = f.y - f.z; fd = f.z;
    } else if (f.x >= f.z) {
      a = C (1, 0, 0); b = C (1, 0, 1);
      fa = 1 - f.x; fb = f.x - f.z; fc = f.z - f.y; fd = f.y;
    } else {
      a = C (0, 0, 1); b = C (1, 0, 1);
      fa = 1 - f.z; fb = f.z - f.x; fc = f.x - f.y; fd = f.y;
    }
  } else {
    if (f.x >= f.z) {
      a = C (0, 1, 0); b = C (1, 1, 0);
      fa = 1 - f.y; fb = f.y - f.x; fc = f.x - f.z; fd = f.z;
    } else if (f.y >= f.z) {
      a = C (0, 1, 0); b = C (0, 1, 1);
      fa = 1 - f.y; fb = f.y - f.z; fc = f.z - f.x; fd = f.x;
    } else {
      a = C (0, 0, 1); b = C (0, 1, 1);
      fa = 1 - f.z; fb = f.z - f.y; fc = f.y - f.x; fd = f.x;
    }
  }
#undef C
  return LUT_VALUE (fa * c000 + fb * a + fc * b + fd * c111, scale, offset);
}

/* Sharpen (radius > 0): Y'' = Y' + amount (Y' - G * Y') where
 * |Y' - G * Y'| >= threshold, G * Y' (blur_down) in the fourth lane of the
 * pixel (the frame's, unpacked, when `direct`, else the working
 * picture's); then, interp > 0, the LUT mixed with the input by
 * `strength`; the frame out. A work-item a pixel, a 2 x 2 block for
 * 4:2:0. */

inline float sharpened (float4 v, float amount, float threshold)
{
  const float d = v.x - v.w;   /* Y' - G * Y' */
  return fabs (d) >= threshold ? v.x + amount * d : v.x;
}

/* R'G'B' after the LUT (or unchanged) */
inline float3 looked_up (float3 c, __global const float4 * lut, int n, int interp,
    float4 scale, float4 offset, float strength)
{
  return interp ? LERP (c, lut_apply (lut, n, interp, c, scale, offset), strength) : c;
}

/* picture_finish's parameters and arguments (its CPU shape's too) */
#define FINISH_PARAMS __global const float4 * work, IN_FRAME, OUT_FRAME, int width, \
    int height, int4 order, float16 k, int radius, float amount, float threshold, \
    __global const float4 * lut, int n, int interp, float4 lut_scale, float4 lut_offset, \
    float strength, int direct, __global const float * rows, float16 gauss
#define FINISH_ARGS work, in, in_o0, in_o1, in_o2, in_s0, in_s1, in_s2, out, out_o0, out_o1, \
    out_o2, out_s0, out_s1, out_s2, width, height, order, k, radius, amount, threshold, lut, \
    n, interp, lut_scale, lut_offset, strength, direct, rows, gauss

/* The work-item (x, y) of the finish: pixel (x, y), or the 2 x 2 block
 * (x, y) for 4:2:0; `blur` G * Y' of its pixels (i + 2 j for pixel (i, j)
 * of a block), read where radius > 0 */
inline void finish_core (FINISH_PARAMS, int x, int y, const float * blur)
{
#define PIXEL(px, py) (direct ? UNPACKED (px, py) : work[(py) * width + (px)])
  const float4 ls = lut_scale, lo = lut_offset;
#if PX_420
  const int x0 = 2 * x, y0 = 2 * y;
  if (x0 >= width || y0 >= height)
    return;
  /* the frame's chroma of the block, read once (as unpacked () does) */
  float2 cbcr = (float2) (0.0f);
  if (direct) {
    const float2 c = chroma_codes (in, in_o1, in_o2, in_s1, in_s2, x, y) * (255.0f / MAXV);
    cbcr = (float2) (YCBCR_C_OF_CODE (k, c.x), YCBCR_C_OF_CODE (k, c.y));
  }
  float2 csum = (float2) (0.0f);
  int count = 0;
  for (int j = 0; j < 2; j++)
    for (int i = 0; i < 2; i++) {
      const int px = x0 + i, py = y0 + j;
      if (px >= width || py >= height)
        continue;
      float4 v = direct ? (float4) (YCBCR_Y_OF_CODE (k, rd (in + in_o0 + py * in_s0 +
                  px * PX_SAMPLE) * (255.0f / MAXV)), cbcr, 0.0f) : work[py * width + px];
      if (radius) {
        v.w = blur[i + 2 * j];
        v.x = sharpened (v, amount, threshold);
      }
      if (interp)
        v = ycc_of_rgb (looked_up (clamp (rgb_of_ycc (v, k), 0.0f, 1.0f), lut, n, interp, ls,
                lo, strength), k);
      wr (out + out_o0 + py * out_s0 + px * PX_SAMPLE, YCBCR_Y_CODE (k, v.x) * (MAXV / 255.0f));
      csum += v.yz;
      count++;
    }
  csum *= 1.0f / count;
  const float cb = YCBCR_C_CODE (k, csum.x) * (MAXV / 255.0f);
  const float cr = YCBCR_C_CODE (k, csum.y) * (MAXV / 255.0f);
#if PX_YUV == YUV_NV12
  __global uchar *c = out + out_o1 + y * out_s1 + 2 * x * PX_SAMPLE;
  wr (c, cb);
  wr (c + PX_SAMPLE, cr);
#else
  wr (out + out_o1 + y * out_s1 + x * PX_SAMPLE, cb);
  wr (out + out_o2 + y * out_s2 + x * PX_SAMPLE, cr);
#endif
#else
  if (x >= width || y >= height)
    return;
  float4 v = PIXEL (x, y);
  if (radius)
    v.w = blur[0];
  const float ys = radius ? sharpened (v, amount, threshold) : v.x;
#if PX_CH == 1
  float3 c = (float3) (clamp (ys, 0.0f, 1.0f));
  c = looked_up (c, lut, n, interp, ls, lo, strength);
  wr (out + out_o0 + y * out_s0 + x * PX_SAMPLE, YCBCR_LUMA (k, c.x, c.y, c.z) * MAXV);
#else
  /* R', G', B' each get Y'' - Y', then clipped */
  float3 c = clamp (rgb_of_ycc (v, k) + (ys - v.x), 0.0f, 1.0f);
  c = looked_up (c, lut, n, interp, ls, lo, strength) * MAXV;
  __global uchar *p = out + out_o0 + y * out_s0 + x * PX_BPP;
  wr (p + order.x * PX_SAMPLE, c.x);
  wr (p + order.y * PX_SAMPLE, c.y);
  wr (p + order.z * PX_SAMPLE, c.z);
#if PX_CH == 4
  __global const uchar *q = in + in_o0 + y * in_s0 + x * PX_BPP + order.w * PX_SAMPLE;
  wr (p + order.w * PX_SAMPLE, rd (q));
#endif
#endif
#endif
#undef PIXEL
}

#if PX_420
#define FT_PAIR 2
#else
#define FT_PAIR 1
#endif

/* finish_core with the blur from picture_blur_rows_cpu's rows (the CPU
 * shape's vectors cut by the frame's edge) */
inline void finish_item (FINISH_PARAMS, int x, int y)
{
  float blur[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
  for (int j = 0; j < FT_PAIR && radius; j++)
    for (int i = 0; i < FT_PAIR; i++) {
      const int px = FT_PAIR * x + i, py = FT_PAIR * y + j;
      if (px < width && py < height)
        blur[i + 2 * j] = blur_down (rows, px, py, width, height, gauss, radius);
    }
  finish_core (FINISH_ARGS, x, y, blur);
}

/* The GPU shape of the finish, with the unsharp mask's Gaussian in it: a
 * work-group of FT_LX x FT_LY items (pixels, or 2 x 2 blocks for 4:2:0)
 * loads its tile's Y' and `radius` around it (the edge pixels repeated)
 * into local memory, blurs the tile's rows along x, then each item its
 * pixels down the columns, in the order of the CPU shape's two passes.
 * One launch and no plane of floats in global memory: the two kernels it
 * replaced took 0.083 + 0.122 ms a 4K frame on an H200. Rows: the item
 * rows [y, ...) read Y' rows up to `radius` past their pixels.
 *
 * The blur is written for a constant radius (ft_blur, always inlined, one
 * copy a radius behind a switch on the uniform argument): its taps
 * unrolled, the weights by name, a row step 4 outputs from float4 loads
 * and an item's pixels down their columns from one pass of loads; with
 * the radius a variable each tap was a test and predicated loads. */
#define FT_LX 16
#define FT_LY 8
#define FT_TW (FT_LX * FT_PAIR)
#define FT_TH (FT_LY * FT_PAIR)
#define FT_LW (FT_TW + 24)   /* the taps reach 9 pixels at most; a step's last float4 */
#define FT_LH (FT_TH + 18)

/* out = the Gaussian of a constant radius R at p[0] from p[-R..R] (floats
 * or float2s), the taps in GAUSS_TAPS's order */
#define GAUSS_TAP_AT(out, p, R, i, g) if ((R) >= (i)) out += (g) * ((p)[-(i)] + (p)[i])
#define GAUSS_AT(out, p, R) do { \
    out = gauss.s0 * (p)[0]; \
    GAUSS_TAP_AT (out, p, R, 1, gauss.s1); GAUSS_TAP_AT (out, p, R, 2, gauss.s2); \
    GAUSS_TAP_AT (out, p, R, 3, gauss.s3); GAUSS_TAP_AT (out, p, R, 4, gauss.s4); \
    GAUSS_TAP_AT (out, p, R, 5, gauss.s5); GAUSS_TAP_AT (out, p, R, 6, gauss.s6); \
    GAUSS_TAP_AT (out, p, R, 7, gauss.s7); GAUSS_TAP_AT (out, p, R, 8, gauss.s8); \
    GAUSS_TAP_AT (out, p, R, 9, gauss.s9); \
  } while (0)

__attribute__ ((always_inline)) inline void ft_blur (__local const float * luma,
    __local float * across, int lx, int ly, const int R, float16 gauss, float * blur)
{
  /* the rows: 4 outputs a step, from 4 + 2 R samples (float4 loads) */
  for (int u = ly * FT_LX + lx; u < (FT_TH + 2 * R) * (FT_TW / 4); u += FT_LX * FT_LY) {
    const int ty = u / (FT_TW / 4), tx = 4 * (u % (FT_TW / 4));
    __local const float *row = luma + ty * FT_LW + tx;
    float v[4 * ((4 + 2 * 9 + 3) / 4)];
#pragma unroll
    for (int i = 0; i < (4 + 2 * R + 3) / 4; i++)
      vstore4 (vload4 (i, row), i, v);
    float o[4];
#pragma unroll
    for (int k = 0; k < 4; k++)
      GAUSS_AT (o[k], v + k + R, R);
    vstore4 (vload4 (0, o), 0, across + ty * FT_TW + tx);
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  /* the columns: the item's FT_PAIR x FT_PAIR pixels from one pass of
   * FT_PAIR + 2 R rows */
#if FT_PAIR == 2
  float2 c[2 + 2 * 9];
#pragma unroll
  for (int i = 0; i < 2 + 2 * R; i++)
    c[i] = vload2 (0, across + (2 * ly + i) * FT_TW + 2 * lx);
#pragma unroll
  for (int j = 0; j < 2; j++) {
    float2 sum;
    GAUSS_AT (sum, c + j + R, R);
    blur[2 * j] = sum.x;
    blur[2 * j + 1] = sum.y;
  }
#else
  __local const float *cj = across + (ly + R) * FT_TW + lx;
  float sum = gauss.s0 * cj[0];
#define TAP(i, g) if (R >= i) sum += g * (cj[-i * FT_TW] + cj[i * FT_TW])
  GAUSS_TAPS;
#undef TAP
  blur[0] = sum;
#endif
}

__kernel __attribute__ ((reqd_work_group_size (FT_LX, FT_LY, 1)))
void picture_finish_tiled (FINISH_PARAMS)
{
  __local float luma[FT_LH * FT_LW];
  __local float across[FT_LH * FT_TW];
  const int lx = get_local_id (0), ly = get_local_id (1);
  const int x = get_global_id (0), y = get_global_id (1);
  const int x0 = (x - lx) * FT_PAIR, y0 = (y - ly) * FT_PAIR;
  float blur[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
  if (radius) {
    /* the tile's columns of this item, clamped once */
    const int w = FT_TW + 2 * radius, h = FT_TH + 2 * radius;
    int px[(FT_TW + 18 + FT_LX - 1) / FT_LX];
#pragma unroll
    for (int q = 0; q < (FT_TW + 18 + FT_LX - 1) / FT_LX; q++)
      px[q] = clamp (x0 - radius + lx + q * FT_LX, 0, width - 1);
    for (int ty = ly; ty < h; ty += FT_LY) {
      const int py = clamp (y0 - radius + ty, 0, height - 1);
#pragma unroll
      for (int q = 0; q < (FT_TW + 18 + FT_LX - 1) / FT_LX; q++)
        if (lx + q * FT_LX < w)
          luma[ty * FT_LW + lx + q * FT_LX] = luma_at (in, in_o0, in_o1, in_o2, in_s0, in_s1,
              in_s2, work, direct, px[q], py, width, order, k);
    }
    barrier (CLK_LOCAL_MEM_FENCE);
    switch (radius) {
#define FT_CASE(r) case r: ft_blur (luma, across, lx, ly, r, gauss, blur); break
      FT_CASE (1); FT_CASE (2); FT_CASE (3); FT_CASE (4); FT_CASE (5);
      FT_CASE (6); FT_CASE (7); FT_CASE (8); FT_CASE (9);
#undef FT_CASE
    }
  }
  finish_core (FINISH_ARGS, x, y, blur);
}
