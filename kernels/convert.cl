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
 * the input size differs from the scaled size; BORDERS 1 when the picture
 * does not fill the output (add-borders); ROWS 1 (CPUs) adds convert_rows,
 * FAST 1 (GPUs) the block kernels convert_yuv_rgb4 and convert_rgb4_420
 * (below). The channel orders, alpha,
 * method and coefficients are arguments, so one program serves every
 * format of a shape. */

#ifndef ROWS
#define ROWS 0
#endif

#define IN_MAX ((float) ((1 << IN_DEPTH) - 1))
#define OUT_MAX ((float) ((1 << OUT_DEPTH) - 1))
#define IN_420 (IN_YUV == YUV_NV12 || IN_YUV == YUV_I420)
#define OUT_420 (OUT_YUV == YUV_NV12 || OUT_YUV == YUV_I420)
#define BW (OUT_YUV ? 2 : 1)
#define BH (OUT_420 ? 2 : 1)

/* A pixel as four scalars, not a float4: PoCL vectorises a work-group's
 * loop only over scalar code (LLVM's loop vectoriser leaves vector types
 * alone), and GPUs do not mind. */
typedef struct { float x, y, z, w; } px_t;

inline px_t px (float x, float y, float z, float w)
{
  px_t p = { x, y, z, w };
  return p;
}

/* a + t (b - a) */
inline px_t px_mix (px_t a, px_t b, float t)
{
  return px (a.x + t * (b.x - a.x), a.y + t * (b.y - a.y), a.z + t * (b.z - a.z),
      a.w + t * (b.w - a.w));
}

#define METHOD_BILINEAR 0
#define METHOD_NEAREST 1
#define METHOD_AREA 2

/* `alphas`: 1 the input has alpha, 2 the output has; for convert_rows also
 * 4 the input's rows start on 4-byte boundaries (the output's must, for
 * 4-byte pixels and 4:2:2: convert_rows stores 32-bit words there, little
 * endian, as every device the project runs on is). */

/* The frame arguments of the helpers: buffer, plane offsets, plane strides,
 * width, height. */
#define IN_FRAME __global const uchar * in, int off0, int off1, int off2, int stride0, \
    int stride1, int stride2, int w, int h
#define IN_ARGS in, off0, off1, off2, stride0, stride1, stride2, w, h

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

/* The coefficients of gstcl::yuv_coefficients () as scalars, which
 * color.cl's macros read as they read a float8 (.s0 .. .s4). */
typedef struct { float s0, s1, s2, s3, s4; } coef_t;

#if IN_YUV
/* Cb, Cr of chroma sample (i, j) */
inline void chroma_at (IN_FRAME, int i, int j, float *cb, float *cr)
{
#if IN_YUV == YUV_NV12
  __global const uchar *p = in + off1 + (size_t) j * stride1 + 2 * i;
  *cb = p[0];
  *cr = p[1];
#elif IN_YUV == YUV_I420
  *cb = in[off1 + (size_t) j * stride1 + i];
  *cr = in[off2 + (size_t) j * stride2 + i];
#elif IN_YUV == YUV_YUY2
  __global const uchar *p = in + off0 + (size_t) j * stride0 + 4 * i;
  *cb = p[1];
  *cr = p[3];
#else
  __global const uchar *p = in + off0 + (size_t) j * stride0 + 4 * i;
  *cb = p[0];
  *cr = p[2];
#endif
}
#endif

/* 4:2:2 input: the byte offsets of a pixel pair's samples (YUY2: Y0 Cb Y1
 * Cr; UYVY: Cb Y0 Cr Y1). */
#if IN_YUV == YUV_YUY2
#define Y0_AT 0
#define CB_AT 1
#define Y1_AT 2
#define CR_AT 3
#elif IN_YUV == YUV_UYVY
#define CB_AT 0
#define Y0_AT 1
#define CR_AT 2
#define Y1_AT 3
#endif

/* The input's pixel (x, y) in its own samples: R G B A (A the maximum when
 * the input has none), G G G max for grey, Y Cb Cr max for Y'CbCr. */
inline px_t fetch (IN_FRAME, int x, int y, int or, int og, int ob, int oa, int alpha)
{
#if IN_YUV
#if IN_YUV == YUV_YUY2
  const float luma = in[off0 + (size_t) y * stride0 + 2 * x];
#elif IN_YUV == YUV_UYVY
  const float luma = in[off0 + (size_t) y * stride0 + 2 * x + 1];
#else
  const float luma = in[off0 + (size_t) y * stride0 + x];
#endif
  /* chroma x / 2 - 1/4 (centred): sample x / 2 weighs 3/4, its neighbour
   * on the side of x 1/4 */
  const int i = x >> 1, i2 = clamp ((x & 1) ? i + 1 : i - 1, 0, ((w + 1) >> 1) - 1);
  float b0, r0, b1, r1;
  chroma_at (IN_ARGS, i, IN_420 ? y >> 1 : y, &b0, &r0);
  chroma_at (IN_ARGS, i2, IN_420 ? y >> 1 : y, &b1, &r1);
  float cb = 0.75f * b0 + 0.25f * b1, cr = 0.75f * r0 + 0.25f * r1;
#if IN_420
  const int j = y >> 1, j2 = clamp ((y & 1) ? j + 1 : j - 1, 0, ((h + 1) >> 1) - 1);
  float b2, r2, b3, r3;
  chroma_at (IN_ARGS, i, j2, &b2, &r2);
  chroma_at (IN_ARGS, i2, j2, &b3, &r3);
  cb = 0.75f * cb + 0.25f * (0.75f * b2 + 0.25f * b3);
  cr = 0.75f * cr + 0.25f * (0.75f * r2 + 0.25f * r3);
#endif
  return px (luma, cb, cr, 255.0f);
#else
  __global const uchar *p = in + off0 + (size_t) y * stride0 + (size_t) x * IN_BPP;
#if IN_CH == 1
  const float g = (float) read_sample (p, 0);
  return px (g, g, g, IN_MAX);
#else
  return px (read_sample (p, or), read_sample (p, og), read_sample (p, ob),
      alpha ? (float) read_sample (p, oa) : IN_MAX);
#endif
#endif
}

/* The scaled frame's pixel (ux, uy) of (uw, uh), in the input's samples. */
inline px_t sample (IN_FRAME, int ux, int uy, int uw, int uh, float sx, float sy,
    int method, int or, int og, int ob, int oa, int alpha)
{
#if !SCALE
  return fetch (IN_ARGS, ux, uy, or, og, ob, oa, alpha);
#else
  if (method == METHOD_NEAREST) {
    /* the pixel under the centre: floor ((u + 1/2) in / out), exactly */
    const int x = min ((int) (((long) (2 * ux + 1) * w) / (2 * uw)), w - 1);
    const int y = min ((int) (((long) (2 * uy + 1) * h) / (2 * uh)), h - 1);
    return fetch (IN_ARGS, x, y, or, og, ob, oa, alpha);
  }
  if (method == METHOD_AREA) {
    /* the mean over the pixel's footprint, input pixels as unit squares */
    const float x0 = ux * sx, x1 = x0 + sx, y0 = uy * sy, y1 = y0 + sy;
    const int i0 = (int) x0, i1 = min ((int) ceil (x1), w);
    const int j0 = (int) y0, j1 = min ((int) ceil (y1), h);
    px_t sum = px (0.0f, 0.0f, 0.0f, 0.0f);
    float total = 0.0f;
    for (int j = j0; j < j1; j++) {
      const float wy = min (y1, (float) (j + 1)) - max (y0, (float) j);
      for (int i = i0; i < i1; i++) {
        const float wxy = wy * (min (x1, (float) (i + 1)) - max (x0, (float) i));
        const px_t v = fetch (IN_ARGS, i, j, or, og, ob, oa, alpha);
        sum = px (sum.x + wxy * v.x, sum.y + wxy * v.y, sum.z + wxy * v.z, sum.w + wxy * v.w);
        total += wxy;
      }
    }
    const float t = 1.0f / total;
    return px (sum.x * t, sum.y * t, sum.z * t, sum.w * t);
  }
  /* bilinear, centre-aligned: source (u + 1/2) in / out - 1/2, edges
   * clamped */
  const float fx = (ux + 0.5f) * sx - 0.5f, fy = (uy + 0.5f) * sy - 0.5f;
  const float bx = floor (fx), by = floor (fy);
  const float ax = fx - bx, ay = fy - by;
  const int xa = clamp ((int) bx, 0, w - 1), xb = clamp ((int) bx + 1, 0, w - 1);
  const int ya = clamp ((int) by, 0, h - 1), yb = clamp ((int) by + 1, 0, h - 1);
  const px_t top = px_mix (fetch (IN_ARGS, xa, ya, or, og, ob, oa, alpha),
      fetch (IN_ARGS, xb, ya, or, og, ob, oa, alpha), ax);
  const px_t bottom = px_mix (fetch (IN_ARGS, xa, yb, or, og, ob, oa, alpha),
      fetch (IN_ARGS, xb, yb, or, og, ob, oa, alpha), ax);
  return px_mix (top, bottom, ay);
#endif
}

/* R'G'B'A in 0..1 (not clamped) from the input's samples */
inline px_t to_rgb (px_t v, coef_t k)
{
#if IN_YUV
  const float y = YCBCR_Y_OF_CODE (k, v.x);
  const float cb = YCBCR_C_OF_CODE (k, v.y), cr = YCBCR_C_OF_CODE (k, v.z);
  const float r = YCBCR_RED (k, y, cr), b = YCBCR_BLUE (k, y, cb);
  return px (r, YCBCR_GREEN (k, y, r, b), b, 1.0f);
#else
  const float m = 1.0f / IN_MAX;
  return px (v.x * m, v.y * m, v.z * m, v.w * m);
#endif
}

/* Scalar arguments only, and neighbouring stores at offsets of `one` (1,
 * an argument): either would let LLVM's SLP vectoriser pack pairs of
 * scalars into short vectors, after which PoCL cannot vectorise the
 * work-group loop (several times slower). */
#define CONVERT_ARGS __global const uchar * in, int in_off0, int in_off1, int in_off2, \
    int in_stride0, int in_stride1, int in_stride2, __global uchar * out, int out_off0, \
    int out_off1, int out_off2, int out_stride0, int out_stride1, int out_stride2, int in_w, \
    int in_h, int out_w, int out_h, int rect_x, int rect_y, int rect_w, int rect_h, \
    int d0, int d1, int d2, int d3, int d4, int d5, int uw, int uh, float sx, float sy, \
    int method, int in_r, int in_g, int in_b, int in_a, int out_r, int out_g, int out_b, \
    int out_a, int alphas, int one, float ik0, float ik1, float ik2, float ik3, float ik4, \
    float ok0, float ok1, float ok2, float ok3, float ok4, float f0, float f1, float f2, \
    float f3, float f4, float f5, int first_block

/* The output blocks from column first_block on. */
__kernel void convert (CONVERT_ARGS)
{
  const coef_t in_k = { ik0, ik1, ik2, ik3, ik4 }, out_k = { ok0, ok1, ok2, ok3, ok4 };
  (void) in_k;   /* (unused by some formats) */
  (void) out_k;
  /* Work-items past the edge redo the last block (the same bytes): no
   * branch around the body, which PoCL's vectoriser could not take. */
  const int x0 = min ((int) get_global_id (0) + first_block, (out_w - 1) / BW) * BW;
  const int y0 = min ((int) get_global_id (1), (out_h - 1) / BH) * BH;
  px_t pix[BH][BW];
#pragma unroll
  for (int dy = 0; dy < BH; dy++)
#pragma unroll
    for (int dx = 0; dx < BW; dx++) {
      /* a partial block repeats its last column or row */
      const int ox = min (x0 + dx, out_w - 1), oy = min (y0 + dy, out_h - 1);
#if BORDERS
      /* black outside the picture's rectangle (add-borders) */
      const int rx = ox - rect_x, ry = oy - rect_y;
      const bool outside = rx < 0 || ry < 0 || rx >= rect_w || ry >= rect_h;
      const int cx = clamp (rx, 0, rect_w - 1), cy = clamp (ry, 0, rect_h - 1);
#else
      const int cx = ox, cy = oy;
#endif
      const int ux = d0 + d1 * cx + d2 * cy;
      const int uy = d3 + d4 * cx + d5 * cy;
      const px_t v = to_rgb (sample (in, in_off0, in_off1, in_off2, in_stride0, in_stride1,
              in_stride2, in_w, in_h, ux, uy, uw, uh, sx, sy, method, in_r, in_g, in_b, in_a,
              alphas & 1), in_k);
#if BORDERS
      pix[dy][dx] = px (outside ? 0.0f : v.x, outside ? 0.0f : v.y, outside ? 0.0f : v.z,
          outside ? 1.0f : v.w);
#else
      pix[dy][dx] = v;
#endif
    }

#if OUT_YUV
  float cb = 0.0f, cr = 0.0f;
  float luma[BH][BW];
#pragma unroll
  for (int dy = 0; dy < BH; dy++)
#pragma unroll
    for (int dx = 0; dx < BW; dx++) {
      const px_t p = pix[dy][dx];
      const float y = YCBCR_LUMA (out_k, p.x, p.y, p.z);
      luma[dy][dx] = YCBCR_Y_CODE (out_k, y);
      cb += YCBCR_CB (out_k, p.z, y);
      cr += YCBCR_CR (out_k, p.x, y);
    }
  const uchar ucb = convert_uchar_sat (YCBCR_C_CODE (out_k, cb * (1.0f / (BW * BH))) + 0.5f);
  const uchar ucr = convert_uchar_sat (YCBCR_C_CODE (out_k, cr * (1.0f / (BW * BH))) + 0.5f);
#if OUT_420
  const int bx = x0 >> 1, by = y0 >> 1;
  /* at an odd edge the repeated pixel goes to the same place twice */
  const int x1 = min (x0 + one, out_w - 1), y1 = min (y0 + 1, out_h - 1);
  out[out_off0 + (size_t) y0 * out_stride0 + x0] = convert_uchar_sat (luma[0][0] + 0.5f);
  out[out_off0 + (size_t) y0 * out_stride0 + x1] = convert_uchar_sat (luma[0][1] + 0.5f);
  out[out_off0 + (size_t) y1 * out_stride0 + x0] = convert_uchar_sat (luma[1][0] + 0.5f);
  out[out_off0 + (size_t) y1 * out_stride0 + x1] = convert_uchar_sat (luma[1][1] + 0.5f);
#if OUT_YUV == YUV_NV12
  __global uchar *c = out + out_off1 + (size_t) by * out_stride1 + 2 * bx;
  c[0] = ucb;
  c[one] = ucr;
#else
  out[out_off1 + (size_t) by * out_stride1 + bx] = ucb;
  out[out_off2 + (size_t) by * out_stride2 + bx] = ucr;
#endif
#else
  /* 4:2:2: the pair's second Y of an odd width's last pair repeats the first */
  const uchar y0b = convert_uchar_sat (luma[0][0] + 0.5f);
  const uchar y1b = convert_uchar_sat (luma[0][1] + 0.5f);
  __global uchar *p = out + out_off0 + (size_t) y0 * out_stride0 + 2 * x0;
#if OUT_YUV == YUV_YUY2
  p[0] = y0b;
  p[one] = ucb;
  p[2 * one] = y1b;
  p[3 * one] = ucr;
#else
  p[0] = ucb;
  p[one] = y0b;
  p[2 * one] = ucr;
  p[3 * one] = y1b;
#endif
#endif
#else
  const px_t p = pix[0][0];
  __global uchar *q = out + out_off0 + (size_t) y0 * out_stride0 + (size_t) x0 * OUT_BPP;
#if OUT_CH == 1
  write_sample (q, 0, YCBCR_Y_CODE (out_k, YCBCR_LUMA (out_k, p.x, p.y, p.z)));
#else
  const float a = (alphas & 2) ? p.w * OUT_MAX : OUT_MAX;
  (void) a;   /* (no fourth sample in RGB, BGR) */
#if OUT_CH == 4 && OUT_SAMPLE == 1
  q[out_r] = convert_uchar_sat (p.x * OUT_MAX + 0.5f);
  q[out_g] = convert_uchar_sat (p.y * OUT_MAX + 0.5f);
  q[out_b] = convert_uchar_sat (p.z * OUT_MAX + 0.5f);
  q[out_a] = convert_uchar_sat (a + 0.5f);
#else
  write_sample (q, out_r, p.x * OUT_MAX);
  write_sample (q, out_g, p.y * OUT_MAX);
  write_sample (q, out_b, p.z * OUT_MAX);
#if OUT_CH == 4
  write_sample (q, out_a, a);
#endif
#endif
#endif
#endif
}

/* ------------------------------------------------------------------ GPUs
 * Two block kernels for the common case of 8-bit frames without scaling,
 * direction or borders (FAST, chosen on GPUs): 4 pixels of 2 rows a
 * work-item, whole words in and out, so that a warp reads and writes
 * whole contiguous segments (the byte loads and stores of `convert` are
 * split into one access a byte on NVIDIA). Rows that do not start on a
 * 16 (or 8, 4)-byte boundary take narrower accesses: the test is uniform
 * over a row, so within a warp. They cover the columns up to the last
 * multiple of 4; `convert` does the rest (first_block). */
#if FAST && IN_SAMPLE == 1 && OUT_SAMPLE == 1

/* The arguments of both: the frames' planes, the number of 4-pixel
 * columns, the size, the RGB side's channel order and its coefficients */
#define BLOCK_ARGS __global const uchar * in, int in_off0, int in_off1, int in_off2, \
    int in_stride0, int in_stride1, int in_stride2, __global uchar * out, int out_off0, \
    int out_off1, int out_off2, int out_stride0, int out_stride1, int out_stride2, \
    int quads, int out_w, int out_h, int ord_r, int ord_g, int ord_b, int ord_a, float8 k

/* bit position of byte i of a word as it lies in memory */
#ifdef __ENDIAN_LITTLE__
#define BYTE_SHIFT(i) (8 * (i))
#else
#define BYTE_SHIFT(i) (8 * (3 - (i)))
#endif
#define BYTE_OF(w, i) ((float) (((w) >> BYTE_SHIFT (i)) & 255u))

inline uint word_at (__global const uchar * p)
{
  if (((uintptr_t) p & 3) == 0)
    return *(__global const uint *) p;
  return as_uint (vload4 (0, p));
}

inline uint2 words2_at (__global const uchar * p)
{
  if (((uintptr_t) p & 7) == 0)
    return *(__global const uint2 *) p;
  return (uint2) (word_at (p), word_at (p + 4));
}

/* 2 bytes from p, in memory order: one load where p is 2-byte aligned */
inline uchar2 pair_at (__global const uchar * p)
{
  if (((uintptr_t) p & 1) == 0)
    return as_uchar2 (*(__global const ushort *) p);
  return vload2 (0, p);
}

/* 16 bytes from p as 4 words in memory order */
inline uint4 words4_at (__global const uchar * p)
{
  if (((uintptr_t) p & 15) == 0)
    return *(__global const uint4 *) p;
  if (((uintptr_t) p & 3) == 0)
    return vload4 (0, (__global const uint *) p);
  return as_uint4 (vload16 (0, p));
}

inline void store_words4 (__global uchar * p, uint4 v)
{
  if (((uintptr_t) p & 15) == 0)
    *(__global uint4 *) p = v;
  else if (((uintptr_t) p & 3) == 0)
    vstore4 (v, 0, (__global uint *) p);
  else
    vstore16 (as_uchar16 (v), 0, p);
}

inline void store_word (__global uchar * p, uint v)
{
  if (((uintptr_t) p & 3) == 0)
    *(__global uint *) p = v;
  else
    vstore4 (as_uchar4 (v), 0, p);
}

inline void store_pair (__global uchar * p, uchar2 v)
{
  if (((uintptr_t) p & 1) == 0)
    *(__global ushort *) p = as_ushort (v);
  else
    vstore2 (v, 0, p);
}

#endif

/* convert_yuv_rgb4: 8-bit 4:2:0 or 4:2:2 to 4-byte R'G'B' (RGBA, BGRx, ARGB,
 * ...), the common case of a decoder or camera into RGB. For 4:2:0 the 2
 * rows are an odd row and the even one below it, which take the same two
 * chroma rows (16-bit loads for the neighbour samples); luma in 32-bit
 * words (64-bit for 4:2:2, chroma with it), and each row of 4 pixels goes
 * out as one 128-bit store. The colour formulas are kernels/color.cl's, folded by the host into
 * codes-to-codes coefficients (`fold`), rounded once at the end. */
#if FAST && IN_YUV && !OUT_YUV && OUT_CH == 4
#if IN_420
/* Cb, Cr samples i-1 .. i+2 (clamped) of chroma row j, i even */
inline void chroma4 (__global const uchar * in, int off1, int off2, int stride1, int stride2,
    int i, int j, int cw, float4 * cb, float4 * cr)
{
  const int il = max (i - 1, 0), ir = min (i + 2, cw - 1);
#if IN_YUV == YUV_NV12
  __global const uchar *p = in + off1 + (size_t) j * stride1;
  const uint w = word_at (p + 2 * i);
  const uchar2 l = pair_at (p + 2 * il), r = pair_at (p + 2 * ir);
  *cb = (float4) ((float) l.s0, BYTE_OF (w, 0), BYTE_OF (w, 2), (float) r.s0);
  *cr = (float4) ((float) l.s1, BYTE_OF (w, 1), BYTE_OF (w, 3), (float) r.s1);
#else
  __global const uchar *u = in + off1 + (size_t) j * stride1;
  __global const uchar *v = in + off2 + (size_t) j * stride2;
  const uchar2 cu = pair_at (u + i), cv = pair_at (v + i);
  *cb = convert_float4 ((uchar4) (u[il], cu, u[ir]));
  *cr = convert_float4 ((uchar4) (v[il], cv, v[ir]));
#endif
}
#endif

/* Four pixels from their luma codes and the chroma codes of samples i-1 ..
 * i+2 (c.s1 under the first two pixels, c.s2 under the others), as words
 * in the output's order: 3/4 of a pixel's own chroma sample, 1/4 of the
 * neighbour on its side. fold: Y scale, Y offset (with the rounding 1/2),
 * Cr to R, Cb to B, Cr to G, Cb to G, all for codes 0..255. */
inline uint4 rgb4 (float4 luma, float4 cb, float4 cr, float8 fold, int out_r, int out_g,
    int out_b, int out_a)
{
  const float4 b = 0.75f * cb.s1122 + 0.25f * cb.s0213 - 128.0f;
  const float4 r = 0.75f * cr.s1122 + 0.25f * cr.s0213 - 128.0f;
  const float4 y = fold.s0 * luma + fold.s1;
  const uint4 ur = convert_uint4 (convert_uchar4_sat (y + fold.s2 * r));
  const uint4 ub = convert_uint4 (convert_uchar4_sat (y + fold.s3 * b));
  const uint4 ug = convert_uint4 (convert_uchar4_sat (y + fold.s4 * r + fold.s5 * b));
  return ur << (uint) BYTE_SHIFT (out_r) | ug << (uint) BYTE_SHIFT (out_g) |
      ub << (uint) BYTE_SHIFT (out_b) | (uint4) (255u << BYTE_SHIFT (out_a));
}

/* k: the folded coefficients, ord: the output's order */
__kernel void convert_yuv_rgb4 (BLOCK_ARGS)
{
  const float8 fold = k;
  const int out_r = ord_r, out_g = ord_g, out_b = ord_b, out_a = ord_a;
  const int q = get_global_id (0), pair = get_global_id (1);
#if IN_420
  /* rows 2 pair - 1 and 2 pair: both take chroma rows pair - 1 and pair
   * (3/4 of the nearer), so a work-item reads two of them. The first and
   * the last work-item of a column have one row (written twice: at the
   * edge both formulas give the one clamped chroma row). */
  if (q >= quads || pair > out_h / 2)
    return;
  const int y0 = max (2 * pair - 1, 0), y1 = min (2 * pair, out_h - 1);
#else
  if (q >= quads || 2 * pair >= out_h)
    return;
  /* the second row is the first again at an odd height's end */
  const int y0 = 2 * pair, y1 = min (y0 + 1, out_h - 1);
#endif
  const int x = 4 * q, i = 2 * q, cw = (out_w + 1) >> 1;
  __global const uchar *row0 = in + in_off0 + (size_t) y0 * in_stride0;
  __global const uchar *row1 = in + in_off0 + (size_t) y1 * in_stride0;
  float4 l0, l1, cb0, cr0, cb1, cr1;
#if IN_420
  const uint w0 = word_at (row0 + x), w1 = word_at (row1 + x);
  l0 = (float4) (BYTE_OF (w0, 0), BYTE_OF (w0, 1), BYTE_OF (w0, 2), BYTE_OF (w0, 3));
  l1 = (float4) (BYTE_OF (w1, 0), BYTE_OF (w1, 1), BYTE_OF (w1, 2), BYTE_OF (w1, 3));
  const int ch = (out_h + 1) >> 1;
  float4 cba, cra, cbb, crb;
  chroma4 (in, in_off1, in_off2, in_stride1, in_stride2, i, clamp (pair - 1, 0, ch - 1), cw,
      &cba, &cra);
  chroma4 (in, in_off1, in_off2, in_stride1, in_stride2, i, min (pair, ch - 1), cw, &cbb, &crb);
  cb0 = 0.75f * cba + 0.25f * cbb;
  cr0 = 0.75f * cra + 0.25f * crb;
  cb1 = 0.75f * cbb + 0.25f * cba;
  cr1 = 0.75f * crb + 0.25f * cra;
#else
  const int il = 4 * max (i - 1, 0), ir = 4 * min (i + 2, cw - 1);
  const uint2 w0 = words2_at (row0 + 2 * x), w1 = words2_at (row1 + 2 * x);
  const uint n0l = word_at (row0 + il), n0r = word_at (row0 + ir);
  const uint n1l = word_at (row1 + il), n1r = word_at (row1 + ir);
  l0 = (float4) (BYTE_OF (w0.x, Y0_AT), BYTE_OF (w0.x, Y1_AT), BYTE_OF (w0.y, Y0_AT),
      BYTE_OF (w0.y, Y1_AT));
  l1 = (float4) (BYTE_OF (w1.x, Y0_AT), BYTE_OF (w1.x, Y1_AT), BYTE_OF (w1.y, Y0_AT),
      BYTE_OF (w1.y, Y1_AT));
  cb0 = (float4) (BYTE_OF (n0l, CB_AT), BYTE_OF (w0.x, CB_AT), BYTE_OF (w0.y, CB_AT),
      BYTE_OF (n0r, CB_AT));
  cr0 = (float4) (BYTE_OF (n0l, CR_AT), BYTE_OF (w0.x, CR_AT), BYTE_OF (w0.y, CR_AT),
      BYTE_OF (n0r, CR_AT));
  cb1 = (float4) (BYTE_OF (n1l, CB_AT), BYTE_OF (w1.x, CB_AT), BYTE_OF (w1.y, CB_AT),
      BYTE_OF (n1r, CB_AT));
  cr1 = (float4) (BYTE_OF (n1l, CR_AT), BYTE_OF (w1.x, CR_AT), BYTE_OF (w1.y, CR_AT),
      BYTE_OF (n1r, CR_AT));
#endif
  store_words4 (out + out_off0 + (size_t) y0 * out_stride0 + 4 * x,
      rgb4 (l0, cb0, cr0, fold, out_r, out_g, out_b, out_a));
  store_words4 (out + out_off0 + (size_t) y1 * out_stride0 + 4 * x,
      rgb4 (l1, cb1, cr1, fold, out_r, out_g, out_b, out_a));
}
#endif

/* convert_rgb4_420: 8-bit 4-byte R'G'B' (RGBA, BGRx, ARGB, ...) to NV12 or
 * I420, the common case of RGB into an encoder. The 2 rows are a block row
 * (the second the first again at an odd height's end): each row of 4
 * pixels comes in as one 128-bit load, the luma of each goes out as a
 * 32-bit word, the Cb and Cr of the two 2x2 blocks as one word (NV12) or
 * two 16-bit pairs (I420). kernels/color.cl's formulas, with `convert`'s
 * order of operations: R'G'B' in 0..1, Y, Cb and Cr of each pixel, the
 * block's mean of Cb and Cr; k: the output's coefficients, ord: the
 * input's order. */
#if FAST && !IN_YUV && IN_CH == 4 && OUT_420

/* The luma codes of a row's 4 pixels (words w) and the sums of Cb, Cr over
 * its 2 pixel pairs added to cb, cr */
inline float4 luma_chroma4 (uint4 w, float8 k, int ord_r, int ord_g, int ord_b, float2 * cb,
    float2 * cr)
{
  const float m = 1.0f / 255.0f;
  const float4 r = convert_float4 (w >> (uint) BYTE_SHIFT (ord_r) & 255u) * m;
  const float4 g = convert_float4 (w >> (uint) BYTE_SHIFT (ord_g) & 255u) * m;
  const float4 b = convert_float4 (w >> (uint) BYTE_SHIFT (ord_b) & 255u) * m;
  const float4 y = YCBCR_LUMA (k, r, g, b);
  const float4 u = YCBCR_CB (k, b, y), v = YCBCR_CR (k, r, y);
  *cb += u.even + u.odd;
  *cr += v.even + v.odd;
  return YCBCR_Y_CODE (k, y);
}

/* 4 codes, rounded and saturated, as a word in memory order */
inline uint codes_word (float4 c)
{
  const uint4 u = convert_uint4 (convert_uchar4_sat (c + 0.5f));
  return u.s0 << BYTE_SHIFT (0) | u.s1 << BYTE_SHIFT (1) | u.s2 << BYTE_SHIFT (2) |
      u.s3 << BYTE_SHIFT (3);
}

__kernel void convert_rgb4_420 (BLOCK_ARGS)
{
  (void) ord_a;
  (void) in_off1;
  (void) in_off2;
  (void) in_stride1;
  (void) in_stride2;
  const int q = get_global_id (0), pair = get_global_id (1);
  if (q >= quads || 2 * pair >= out_h)
    return;
  const int y0 = 2 * pair, y1 = min (y0 + 1, out_h - 1), x = 4 * q;
  const uint4 w0 = words4_at (in + in_off0 + (size_t) y0 * in_stride0 + 4 * x);
  const uint4 w1 = words4_at (in + in_off0 + (size_t) y1 * in_stride0 + 4 * x);
  float2 cb = 0.0f, cr = 0.0f;
  const float4 l0 = luma_chroma4 (w0, k, ord_r, ord_g, ord_b, &cb, &cr);
  const float4 l1 = luma_chroma4 (w1, k, ord_r, ord_g, ord_b, &cb, &cr);
  store_word (out + out_off0 + (size_t) y0 * out_stride0 + x, codes_word (l0));
  store_word (out + out_off0 + (size_t) y1 * out_stride0 + x, codes_word (l1));
  const float2 ucb = YCBCR_C_CODE (k, cb * 0.25f), ucr = YCBCR_C_CODE (k, cr * 0.25f);
#if OUT_YUV == YUV_NV12
  store_word (out + out_off1 + (size_t) pair * out_stride1 + x,
      codes_word ((float4) (ucb.s0, ucr.s0, ucb.s1, ucr.s1)));
#else
  store_pair (out + out_off1 + (size_t) pair * out_stride1 + 2 * q,
      convert_uchar2_sat (ucb + 0.5f));
  store_pair (out + out_off2 + (size_t) pair * out_stride2 + 2 * q,
      convert_uchar2_sat (ucr + 0.5f));
#endif
}
#endif

/* ------------------------------------------------------------------ CPUs
 * convert_rows: the same conversion without scaling, direction or borders,
 * for 8-bit formats, 8 pixels of a row (a row pair for 4:2:0 output) a
 * work-item in explicit float8 vectors, which PoCL runs as SIMD code (it
 * does not vectorise the scalar kernel across work-items, see above). It
 * covers the columns up to the last multiple of 8; `convert` does the rest
 * (first_block). Same results: the same formulas in float. No float16:
 * PoCL passes it to a conversion call through memory on AVX2 CPUs (the
 * build warns "changes the ABI"); bytes are shuffled, then widened by 8. */
#if ROWS && IN_SAMPLE == 1 && OUT_SAMPLE == 1

/* the one of a, b, c, d whose index is i (i uniform) */
inline float8 pick8 (float8 a, float8 b, float8 c, float8 d, int i)
{
  return i == 0 ? a : i == 1 ? b : i == 2 ? c : d;
}

/* Chroma at the 8 pixels from cb4/cr4 (the 4 samples under them) and the
 * samples left (l) and right (r) of them: 3/4 of its own, 1/4 of the
 * neighbour on the pixel's side. */
inline float8 upsample8 (float4 c, float l, float r)
{
  const float4 e = 0.75f * c + 0.25f * (float4) (l, c.s012);
  const float4 o = 0.75f * c + 0.25f * (float4) (c.s123, r);
  return (float8) (e.s0, o.s0, e.s1, o.s1, e.s2, o.s2, e.s3, o.s3);
}

#if IN_420
/* Cb, Cr samples i .. i+3 of chroma row j and the clamped neighbours */
__attribute__ ((always_inline)) inline void chroma_row (__global const uchar * in, int off1,
    int off2, int stride1, int stride2, int i, int j, int cw, float4 * cb, float4 * cr,
    float2 * left, float2 * right)
{
  const int il = max (i - 1, 0), ir = min (i + 4, cw - 1);
#if IN_YUV == YUV_NV12
  __global const uchar *p = in + off1 + (size_t) j * stride1;
  const float8 v = convert_float8 (vload8 (0, p + 2 * i));
  *cb = v.s0246;
  *cr = v.s1357;
  *left = (float2) (p[2 * il], p[2 * il + 1]);
  *right = (float2) (p[2 * ir], p[2 * ir + 1]);
#else
  __global const uchar *u = in + off1 + (size_t) j * stride1;
  __global const uchar *v = in + off2 + (size_t) j * stride2;
  *cb = convert_float4 (vload4 (0, u + i));
  *cr = convert_float4 (vload4 (0, v + i));
  *left = (float2) (u[il], v[il]);
  *right = (float2) (u[ir], v[ir]);
#endif
}
#endif

/* Y'CbCr input to R'G'B' output: load8 gives the output's codes (0..255,
 * with the rounding 1/2) straight from the input's, through the host's
 * folded coefficients (convert_yuv_rgb4's), rather than R'G'B' in 0..1. */
#define RGB_CODES (IN_YUV && !OUT_YUV && OUT_CH > 1)

/* the folded coefficients as scalars (see px_t) */
typedef struct { float s0, s1, s2, s3, s4, s5; } coef8_t;

/* R'G'B'A (A in 0..255) of pixels x .. x+7 of input row y (always inlined:
 * PoCL otherwise calls it, its results through the stack) */
__attribute__ ((always_inline)) inline void load8 (__global const uchar * in, int in_off0,
    int in_off1, int in_off2, int in_stride0, int in_stride1, int in_stride2, int in_w,
    int in_h, int x, int y,
    int in_r, int in_g, int in_b, int in_a, int alphas, coef_t k, coef8_t fold, float8 * r,
    float8 * g, float8 * b, float8 * a)
{
  __global const uchar *row = in + in_off0 + (size_t) y * in_stride0;
#if IN_YUV
  const int cw = (in_w + 1) >> 1;
  float8 luma;
  float4 cb, cr;
  float2 l, rr;
#if IN_YUV == YUV_YUY2 || IN_YUV == YUV_UYVY
  const int i = x >> 1, il = max (i - 1, 0), ir = min (i + 4, cw - 1);
#ifdef __ENDIAN_LITTLE__
  if (alphas & 4) {
    /* rows on 4-byte boundaries: one 32-bit word a pixel pair */
    const uint4 w = vload4 (0, (__global const uint *) row + i);
    const float4 y0 = convert_float4 (w >> (8 * Y0_AT) & 255u);
    const float4 y1 = convert_float4 (w >> (8 * Y1_AT) & 255u);
    luma = (float8) (y0.s0, y1.s0, y0.s1, y1.s1, y0.s2, y1.s2, y0.s3, y1.s3);
    cb = convert_float4 (w >> (8 * CB_AT) & 255u);
    cr = convert_float4 (w >> (8 * CR_AT) & 255u);
  } else
#endif
  {
    const uchar16 v = vload16 (0, row + 4 * i);
#if IN_YUV == YUV_YUY2
    luma = convert_float8 (v.s02468ace);
    cb = convert_float4 (v.s159d);
    cr = convert_float4 (v.s37bf);
#else
    luma = convert_float8 (v.s13579bdf);
    cb = convert_float4 (v.s048c);
    cr = convert_float4 (v.s26ae);
#endif
  }
  l = (float2) (row[4 * il + CB_AT], row[4 * il + CR_AT]);
  rr = (float2) (row[4 * ir + CB_AT], row[4 * ir + CR_AT]);
#else
  luma = convert_float8 (vload8 (0, row + x));
  const int j = y >> 1, j2 = clamp ((y & 1) ? j + 1 : j - 1, 0, ((in_h + 1) >> 1) - 1);
  float4 cb2, cr2;
  float2 l2, r2;
  chroma_row (in, in_off1, in_off2, in_stride1, in_stride2, x >> 1, j, cw, &cb, &cr, &l, &rr);
  chroma_row (in, in_off1, in_off2, in_stride1, in_stride2, x >> 1, j2, cw, &cb2, &cr2, &l2,
      &r2);
  cb = 0.75f * cb + 0.25f * cb2;
  cr = 0.75f * cr + 0.25f * cr2;
  l = 0.75f * l + 0.25f * l2;
  rr = 0.75f * rr + 0.25f * r2;
#endif
#if RGB_CODES
  /* codes to codes in one step (the host's folded coefficients) */
  const float8 yc = fold.s0 * luma + fold.s1;
  const float8 ccb = upsample8 (cb - 128.0f, l.x - 128.0f, rr.x - 128.0f);
  const float8 ccr = upsample8 (cr - 128.0f, l.y - 128.0f, rr.y - 128.0f);
  *r = yc + fold.s2 * ccr;
  *b = yc + fold.s3 * ccb;
  *g = yc + fold.s4 * ccr + fold.s5 * ccb;
#else
  const float8 yy = YCBCR_Y_OF_CODE (k, luma);
  const float8 ccb = YCBCR_C_OF_CODE (k, upsample8 (cb, l.x, rr.x));
  const float8 ccr = YCBCR_C_OF_CODE (k, upsample8 (cr, l.y, rr.y));
  *r = YCBCR_RED (k, yy, ccr);
  *b = YCBCR_BLUE (k, yy, ccb);
  *g = YCBCR_GREEN (k, yy, *r, *b);
#endif
  *a = 255.0f;
#elif IN_CH == 1
  *r = *g = *b = convert_float8 (vload8 (0, row + x)) * (1.0f / 255.0f);
  *a = 255.0f;
#elif IN_CH == 3
  const uchar16 v = vload16 (0, row + 3 * x);
  const uchar8 w = vload8 (0, row + 3 * x + 16);
  const float8 c0 = convert_float8 ((uchar8) (v.s0369, v.sc, v.sf, w.s2, w.s5));
  const float8 c1 = convert_float8 ((uchar8) (v.s147a, v.sd, w.s0, w.s3, w.s6));
  const float8 c2 = convert_float8 ((uchar8) (v.s258b, v.se, w.s1, w.s4, w.s7));
  *r = pick8 (c0, c1, c2, c2, in_r) * (1.0f / 255.0f);
  *g = pick8 (c0, c1, c2, c2, in_g) * (1.0f / 255.0f);
  *b = pick8 (c0, c1, c2, c2, in_b) * (1.0f / 255.0f);
  *a = 255.0f;
#else
#ifdef __ENDIAN_LITTLE__
  if (alphas & 4) {
    /* rows on 4-byte boundaries: samples shifted out of 32-bit words */
    const uint8 px = vload8 (0, (__global const uint *) row + x);
    *r = convert_float8 (px >> (uint) (8 * in_r) & 255u) * (1.0f / 255.0f);
    *g = convert_float8 (px >> (uint) (8 * in_g) & 255u) * (1.0f / 255.0f);
    *b = convert_float8 (px >> (uint) (8 * in_b) & 255u) * (1.0f / 255.0f);
    *a = (alphas & 1) ? convert_float8 (px >> (uint) (8 * in_a) & 255u) : 255.0f;
    return;
  }
#endif
  const uchar16 v = vload16 (0, row + 4 * x), w = vload16 (0, row + 4 * x + 16);
  const float8 c0 = convert_float8 ((uchar8) (v.s048c, w.s048c));
  const float8 c1 = convert_float8 ((uchar8) (v.s159d, w.s159d));
  const float8 c2 = convert_float8 ((uchar8) (v.s26ae, w.s26ae));
  const float8 c3 = convert_float8 ((uchar8) (v.s37bf, w.s37bf));
  *r = pick8 (c0, c1, c2, c3, in_r) * (1.0f / 255.0f);
  *g = pick8 (c0, c1, c2, c3, in_g) * (1.0f / 255.0f);
  *b = pick8 (c0, c1, c2, c3, in_b) * (1.0f / 255.0f);
  *a = (alphas & 1) ? pick8 (c0, c1, c2, c3, in_a) : 255.0f;
#endif
}

/* rounded and clamped: cheaper than convert_uchar8_sat on PoCL */
#define SAT8(v) convert_uchar8 (clamp ((v) + 0.5f, 0.0f, 255.0f))
#define SAT4(v) convert_uchar4 (clamp ((v) + 0.5f, 0.0f, 255.0f))

__kernel void convert_rows (CONVERT_ARGS)
{
  const coef_t in_k = { ik0, ik1, ik2, ik3, ik4 }, out_k = { ok0, ok1, ok2, ok3, ok4 };
  const coef8_t fold = { f0, f1, f2, f3, f4, f5 };
  (void) in_k;   /* (unused by some formats) */
  (void) out_k;
  (void) fold;
  /* first_block: here the number of 8-pixel runs; items past them redo the
   * last */
  const int x = min ((int) get_global_id (0), first_block - 1) * 8;
  const int y0 = min ((int) get_global_id (1), (out_h - 1) / BH) * BH;
  float8 r, g, b, a;
  load8 (in, in_off0, in_off1, in_off2, in_stride0, in_stride1, in_stride2, in_w, in_h, x, y0,
      in_r, in_g, in_b, in_a, alphas, in_k, fold, &r, &g, &b, &a);
  __global uchar *row = out + out_off0 + (size_t) y0 * out_stride0;
#if OUT_YUV
  const float8 y = YCBCR_LUMA (out_k, r, g, b);
  float8 cb = YCBCR_CB (out_k, b, y), cr = YCBCR_CR (out_k, r, y);
  const uchar8 luma = SAT8 (YCBCR_Y_CODE (out_k, y));
#if OUT_420
  /* the second row (the first again at an odd height's end) */
  const int y1 = min (y0 + 1, out_h - 1);
  float8 r1, g1, b1, a1;
  load8 (in, in_off0, in_off1, in_off2, in_stride0, in_stride1, in_stride2, in_w, in_h, x, y1,
      in_r, in_g, in_b, in_a, alphas, in_k, fold, &r1, &g1, &b1, &a1);
  const float8 yb = YCBCR_LUMA (out_k, r1, g1, b1);
  cb += YCBCR_CB (out_k, b1, yb);
  cr += YCBCR_CR (out_k, r1, yb);
  vstore8 (luma, 0, row + x);
  vstore8 (SAT8 (YCBCR_Y_CODE (out_k, yb)), 0, out + out_off0 + (size_t) y1 * out_stride0 + x);
  const uchar4 ucb = SAT4 (YCBCR_C_CODE (out_k, (cb.even + cb.odd) * 0.25f));
  const uchar4 ucr = SAT4 (YCBCR_C_CODE (out_k, (cr.even + cr.odd) * 0.25f));
#if OUT_YUV == YUV_NV12
  vstore8 ((uchar8) (ucb.s0, ucr.s0, ucb.s1, ucr.s1, ucb.s2, ucr.s2, ucb.s3, ucr.s3), 0,
      out + out_off1 + (size_t) (y0 >> 1) * out_stride1 + x);
#else
  vstore4 (ucb, 0, out + out_off1 + (size_t) (y0 >> 1) * out_stride1 + (x >> 1));
  vstore4 (ucr, 0, out + out_off2 + (size_t) (y0 >> 1) * out_stride2 + (x >> 1));
#endif
#else
  const uchar4 ucb = SAT4 (YCBCR_C_CODE (out_k, (cb.even + cb.odd) * 0.5f));
  const uchar4 ucr = SAT4 (YCBCR_C_CODE (out_k, (cr.even + cr.odd) * 0.5f));
  /* rows on 4-byte boundaries (the host sees to it): one 32-bit word a
   * pixel pair */
  const uint4 ya = convert_uint4 (luma.even), yb = convert_uint4 (luma.odd);
  const uint4 u = convert_uint4 (ucb), v = convert_uint4 (ucr);
#if OUT_YUV == YUV_YUY2
  vstore4 (ya | u << 8 | yb << 16 | v << 24, 0, (__global uint *) row + (x >> 1));
#else
  vstore4 (u | ya << 8 | v << 16 | yb << 24, 0, (__global uint *) row + (x >> 1));
#endif
#endif
#elif OUT_CH == 1
  vstore8 (SAT8 (YCBCR_Y_CODE (out_k, YCBCR_LUMA (out_k, r, g, b))), 0, row + x);
#else
#if RGB_CODES
  /* (the rounding 1/2 is in the codes) */
#define CODE8(v) convert_uchar8 (clamp (v, 0.0f, 255.0f))
  const uchar8 ur = CODE8 (r), ug = CODE8 (g), ub = CODE8 (b);
#undef CODE8
#else
  const uchar8 ur = SAT8 (r * 255.0f), ug = SAT8 (g * 255.0f), ub = SAT8 (b * 255.0f);
#endif
#if OUT_CH == 3
  /* the sample at index i: the colour whose index it is */
#define AT(i) (out_r == (i) ? ur : out_g == (i) ? ug : ub)
  const uchar8 c0 = AT (0), c1 = AT (1), c2 = AT (2);
#undef AT
  vstore16 ((uchar16) (c0.s0, c1.s0, c2.s0, c0.s1, c1.s1, c2.s1, c0.s2, c1.s2, c2.s2, c0.s3,
          c1.s3, c2.s3, c0.s4, c1.s4, c2.s4, c0.s5), 0, row + 3 * x);
  vstore8 ((uchar8) (c1.s5, c2.s5, c0.s6, c1.s6, c2.s6, c0.s7, c1.s7, c2.s7), 0,
      row + 3 * x + 16);
#else
  /* rows on 4-byte boundaries (the host sees to it): each pixel one 32-bit
   * word, its samples shifted into place (no byte shuffles) */
  const uchar8 ua = (alphas & 2) ? SAT8 (a) : (uchar8) (255);
  vstore8 (convert_uint8 (ur) << (uint) (8 * out_r) | convert_uint8 (ug) << (uint) (8 * out_g) |
      convert_uint8 (ub) << (uint) (8 * out_b) | convert_uint8 (ua) << (uint) (8 * out_a), 0,
      (__global uint *) row + x);
#endif
#endif
}
#endif
