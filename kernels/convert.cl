/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clconvert: colour conversion, scaling and direction in one pass.
 *
 * A work-item writes one output block: a 2x2 block for NV12/I420 output,
 * a pixel pair for YUY2/UYVY, a pixel otherwise. For each output pixel
 * (ox, oy) inside `rect` (the picture; black bars around it with
 * add-borders) it finds the pixel (ux, uy) of the scaled, not yet turned
 * frame (the direction as an integer affine map, `dir`), samples the input there
 * (SCALE: bilinear, nearest or area, else the pixel itself) in the input's
 * own samples (R G B A, or Y Cb Cr), turns that into R'G'B'A in 0..1
 * (kernels/color.cl for Y'CbCr) and writes it in the output's format:
 * Cb and Cr of a block are the mean of its pixels' (a partial block at an
 * odd edge repeats its last column or row, which gives the mean of the
 * pixels it has).
 *
 * Chroma of 4:2:0 and 4:2:2 input sits at the centre of its 2x2 block or
 * pixel pair (as the block mean puts it); it is interpolated bilinearly to
 * each pixel (weights 3/4 and 1/4 per axis; edges clamped).
 *
 * Build options: IN_* and OUT_* pixel shapes (gstclpixel.hpp); SCALE 1 when
 * the input size differs from the scaled size. The channel orders, alpha,
 * method and coefficients are arguments, so one program serves every
 * format of a shape. */

#define IN_MAX ((float) ((1 << IN_DEPTH) - 1))
#define OUT_MAX ((float) ((1 << OUT_DEPTH) - 1))
#define IN_420 (IN_YUV == YUV_NV12 || IN_YUV == YUV_I420)
#define OUT_420 (OUT_YUV == YUV_NV12 || OUT_YUV == YUV_I420)
#define BW (OUT_YUV ? 2 : 1)
#define BH (OUT_420 ? 2 : 1)

#define METHOD_BILINEAR 0
#define METHOD_NEAREST 1
#define METHOD_AREA 2

/* The frame arguments of the helpers: buffer, plane offsets, plane strides,
 * width, height. */
#define IN_FRAME __global const uchar * in, int4 off, int4 stride, int w, int h
#define IN_ARGS in, off, stride, w, h

inline uint read_sample (__global const uchar * p, int i)
{
#if IN_SAMPLE == 2
  return p[2 * i] | ((uint) p[2 * i + 1] << 8);
#else
  return p[i];
#endif
}

inline void write_sample (__global uchar * p, int i, float v)
{
#if OUT_SAMPLE == 2
  const ushort s = convert_ushort_sat (v + 0.5f);
  p[2 * i] = (uchar) s;
  p[2 * i + 1] = (uchar) (s >> 8);
#else
  p[i] = convert_uchar_sat (v + 0.5f);
#endif
}

inline int pick (int4 v, int i)
{
  return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

#if IN_YUV
/* Cb, Cr of chroma sample (i, j) */
inline float2 chroma_at (IN_FRAME, int i, int j)
{
#if IN_YUV == YUV_NV12
  __global const uchar *p = in + off.y + (size_t) j * stride.y + 2 * i;
  return (float2) (p[0], p[1]);
#elif IN_YUV == YUV_I420
  return (float2) (in[off.y + (size_t) j * stride.y + i], in[off.z + (size_t) j * stride.z + i]);
#elif IN_YUV == YUV_YUY2
  __global const uchar *p = in + off.x + (size_t) j * stride.x + 4 * i;
  return (float2) (p[1], p[3]);
#else
  __global const uchar *p = in + off.x + (size_t) j * stride.x + 4 * i;
  return (float2) (p[0], p[2]);
#endif
}
#endif

/* The input's pixel (x, y) in its own samples: R G B A (A the maximum when
 * the input has none), G G G max for grey, Y Cb Cr max for Y'CbCr. */
inline float4 fetch (IN_FRAME, int x, int y, int4 order, int alpha)
{
#if IN_YUV
#if IN_YUV == YUV_YUY2
  const float luma = in[off.x + (size_t) y * stride.x + 2 * x];
#elif IN_YUV == YUV_UYVY
  const float luma = in[off.x + (size_t) y * stride.x + 2 * x + 1];
#else
  const float luma = in[off.x + (size_t) y * stride.x + x];
#endif
  /* chroma x / 2 - 1/4 (centred): sample x / 2 weighs 3/4, its neighbour
   * on the side of x 1/4 */
  const int i = x >> 1, i2 = clamp ((x & 1) ? i + 1 : i - 1, 0, ((w + 1) >> 1) - 1);
#if IN_420
  const int j = y >> 1, j2 = clamp ((y & 1) ? j + 1 : j - 1, 0, ((h + 1) >> 1) - 1);
  const float2 c = 0.5625f * chroma_at (IN_ARGS, i, j) +
      0.1875f * (chroma_at (IN_ARGS, i2, j) + chroma_at (IN_ARGS, i, j2)) +
      0.0625f * chroma_at (IN_ARGS, i2, j2);
#else
  const float2 c = 0.75f * chroma_at (IN_ARGS, i, y) + 0.25f * chroma_at (IN_ARGS, i2, y);
#endif
  return (float4) (luma, c, 255.0f);
#else
  __global const uchar *p = in + off.x + (size_t) y * stride.x + (size_t) x * IN_BPP;
#if IN_CH == 1
  const float g = (float) read_sample (p, 0);
  return (float4) (g, g, g, IN_MAX);
#elif IN_CH == 4 && IN_SAMPLE == 1
  const int4 v = convert_int4 (vload4 (0, p));
  return (float4) (pick (v, order.x), pick (v, order.y), pick (v, order.z),
      alpha ? pick (v, order.w) : 255);
#else
  return (float4) (read_sample (p, order.x), read_sample (p, order.y),
      read_sample (p, order.z), alpha ? (float) read_sample (p, order.w) : IN_MAX);
#endif
#endif
}

/* The scaled frame's pixel (ux, uy) of (uw, uh), in the input's samples. */
inline float4 sample (IN_FRAME, int ux, int uy, int uw, int uh, float2 s, int method,
    int4 order, int alpha)
{
#if !SCALE
  return fetch (IN_ARGS, ux, uy, order, alpha);
#else
  if (method == METHOD_NEAREST) {
    /* the pixel under the centre: floor ((u + 1/2) in / out), exactly */
    const int x = min ((int) (((long) (2 * ux + 1) * w) / (2 * uw)), w - 1);
    const int y = min ((int) (((long) (2 * uy + 1) * h) / (2 * uh)), h - 1);
    return fetch (IN_ARGS, x, y, order, alpha);
  }
  if (method == METHOD_AREA) {
    /* the mean over the pixel's footprint, input pixels as unit squares */
    const float x0 = ux * s.x, x1 = x0 + s.x, y0 = uy * s.y, y1 = y0 + s.y;
    const int i0 = (int) x0, i1 = min ((int) ceil (x1), w);
    const int j0 = (int) y0, j1 = min ((int) ceil (y1), h);
    float4 sum = 0.0f;
    float total = 0.0f;
    for (int j = j0; j < j1; j++) {
      const float wy = min (y1, (float) (j + 1)) - max (y0, (float) j);
      for (int i = i0; i < i1; i++) {
        const float wxy = wy * (min (x1, (float) (i + 1)) - max (x0, (float) i));
        sum += wxy * fetch (IN_ARGS, i, j, order, alpha);
        total += wxy;
      }
    }
    return sum / total;
  }
  /* bilinear, centre-aligned: source (u + 1/2) in / out - 1/2, edges
   * clamped */
  const float fx = (ux + 0.5f) * s.x - 0.5f, fy = (uy + 0.5f) * s.y - 0.5f;
  const float bx = floor (fx), by = floor (fy);
  const float ax = fx - bx, ay = fy - by;
  const int xa = clamp ((int) bx, 0, w - 1), xb = clamp ((int) bx + 1, 0, w - 1);
  const int ya = clamp ((int) by, 0, h - 1), yb = clamp ((int) by + 1, 0, h - 1);
  const float4 top = mix (fetch (IN_ARGS, xa, ya, order, alpha),
      fetch (IN_ARGS, xb, ya, order, alpha), ax);
  const float4 bottom = mix (fetch (IN_ARGS, xa, yb, order, alpha),
      fetch (IN_ARGS, xb, yb, order, alpha), ax);
  return mix (top, bottom, ay);
#endif
}

/* R'G'B'A in 0..1 (not clamped) from the input's samples */
inline float4 to_rgb (float4 v, float8 k)
{
#if IN_YUV
  const float y = YCBCR_Y_OF_CODE (k, v.x);
  const float cb = YCBCR_C_OF_CODE (k, v.y), cr = YCBCR_C_OF_CODE (k, v.z);
  const float r = YCBCR_RED (k, y, cr), b = YCBCR_BLUE (k, y, cb);
  return (float4) (r, YCBCR_GREEN (k, y, r, b), b, 1.0f);
#else
  return v * (1.0f / IN_MAX);
#endif
}

__kernel void convert (__global const uchar * in, int4 in_off, int4 in_stride,
    __global uchar * out, int4 out_off, int4 out_stride, int4 size, int4 rect, int8 dir,
    float2 s, int method, int4 in_order, int4 out_order, int alphas, float8 in_k, float8 out_k)
{
  const int x0 = get_global_id (0) * BW, y0 = get_global_id (1) * BH;
  const int in_w = size.x, in_h = size.y, out_w = size.z, out_h = size.w;
  if (x0 >= out_w || y0 >= out_h)
    return;
  float4 px[BH][BW];
#pragma unroll
  for (int dy = 0; dy < BH; dy++)
#pragma unroll
    for (int dx = 0; dx < BW; dx++) {
      /* a partial block repeats its last column or row */
      const int ox = min (x0 + dx, out_w - 1), oy = min (y0 + dy, out_h - 1);
      /* black outside the picture's rectangle (add-borders) */
      const int rx = ox - rect.x, ry = oy - rect.y;
      if (rx < 0 || ry < 0 || rx >= rect.z || ry >= rect.w) {
        px[dy][dx] = (float4) (0.0f, 0.0f, 0.0f, 1.0f);
        continue;
      }
      const int ux = dir.s0 + dir.s1 * rx + dir.s2 * ry;
      const int uy = dir.s3 + dir.s4 * rx + dir.s5 * ry;
      px[dy][dx] = to_rgb (sample (in, in_off, in_stride, in_w, in_h, ux, uy, dir.s6, dir.s7,
              s, method, in_order, alphas & 1), in_k);
    }

#if OUT_YUV
  float cb = 0.0f, cr = 0.0f;
  float luma[BH][BW];
#pragma unroll
  for (int dy = 0; dy < BH; dy++)
#pragma unroll
    for (int dx = 0; dx < BW; dx++) {
      const float4 p = px[dy][dx];
      const float y = YCBCR_LUMA (out_k, p.x, p.y, p.z);
      luma[dy][dx] = YCBCR_Y_CODE (out_k, y);
      cb += YCBCR_CB (out_k, p.z, y);
      cr += YCBCR_CR (out_k, p.x, y);
    }
  const uchar ucb = convert_uchar_sat (YCBCR_C_CODE (out_k, cb * (1.0f / (BW * BH))) + 0.5f);
  const uchar ucr = convert_uchar_sat (YCBCR_C_CODE (out_k, cr * (1.0f / (BW * BH))) + 0.5f);
#if OUT_420
  const int bx = x0 >> 1, by = y0 >> 1;
  for (int dy = 0; dy < 2 && y0 + dy < out_h; dy++) {
    __global uchar *row = out + out_off.x + (size_t) (y0 + dy) * out_stride.x + x0;
    row[0] = convert_uchar_sat (luma[dy][0] + 0.5f);
    if (x0 + 1 < out_w)
      row[1] = convert_uchar_sat (luma[dy][1] + 0.5f);
  }
#if OUT_YUV == YUV_NV12
  __global uchar *c = out + out_off.y + (size_t) by * out_stride.y + 2 * bx;
  c[0] = ucb;
  c[1] = ucr;
#else
  out[out_off.y + (size_t) by * out_stride.y + bx] = ucb;
  out[out_off.z + (size_t) by * out_stride.z + bx] = ucr;
#endif
#else
  /* 4:2:2: the pair's second Y of an odd width's last pair repeats the first */
  const uchar y0b = convert_uchar_sat (luma[0][0] + 0.5f);
  const uchar y1b = convert_uchar_sat (luma[0][1] + 0.5f);
  __global uchar *p = out + out_off.x + (size_t) y0 * out_stride.x + 2 * x0;
#if OUT_YUV == YUV_YUY2
  vstore4 ((uchar4) (y0b, ucb, y1b, ucr), 0, p);
#else
  vstore4 ((uchar4) (ucb, y0b, ucr, y1b), 0, p);
#endif
#endif
#else
  const float4 p = px[0][0];
  __global uchar *q = out + out_off.x + (size_t) y0 * out_stride.x + (size_t) x0 * OUT_BPP;
#if OUT_CH == 1
  write_sample (q, 0, YCBCR_Y_CODE (out_k, YCBCR_LUMA (out_k, p.x, p.y, p.z)));
#else
  const float4 v = p * OUT_MAX;
  const float a = (alphas & 2) ? v.w : OUT_MAX;
#if OUT_CH == 4 && OUT_SAMPLE == 1
  const uchar4 u = convert_uchar4_sat (v + 0.5f);
  const uchar ua = convert_uchar_sat (a + 0.5f);
  uchar4 o;
  o.x = out_order.x == 0 ? u.x : out_order.y == 0 ? u.y : out_order.z == 0 ? u.z : ua;
  o.y = out_order.x == 1 ? u.x : out_order.y == 1 ? u.y : out_order.z == 1 ? u.z : ua;
  o.z = out_order.x == 2 ? u.x : out_order.y == 2 ? u.y : out_order.z == 2 ? u.z : ua;
  o.w = out_order.x == 3 ? u.x : out_order.y == 3 ? u.y : out_order.z == 3 ? u.z : ua;
  vstore4 (o, 0, q);
#else
  write_sample (q, out_order.x, v.x);
  write_sample (q, out_order.y, v.y);
  write_sample (q, out_order.z, v.z);
#if OUT_CH == 4
  write_sample (q, out_order.w, a);
#endif
#endif
#endif
#endif
}
