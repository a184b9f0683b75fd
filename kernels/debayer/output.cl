/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Stages 4 to 6 of every camera kernel: colour matrix, transfer curve and
 * the output format, with the arguments every camera kernel takes. */

/* store_bytesN: stores `count` bytes of v at p, in one word store when all N
 * are there and the rows are ALIGNED. */
#if ALIGNED
#define WHOLE_STORE(N, word) *(__global word *) p = as_##word (v)
#else
#define WHOLE_STORE(N, word) vstore##N (v, 0, p)
#endif
#define STORE_BYTES(N, word) \
inline void store_bytes##N (__global uchar * p, uchar##N v, int count) \
{ \
  if (count == N) { \
    WHOLE_STORE (N, word); \
  } else { \
    uchar a[N]; \
    vstore##N (v, 0, a); \
    for (int i = 0; i < count; i++) \
      p[i] = a[i]; \
  } \
}
STORE_BYTES (8, uint2)
STORE_BYTES (4, uint)

/* v rounded to the nearest integer (ties to even) in the low bits, for v in
 * [0, 2^23) (U2F_BASE, U2F_BITS above). */
inline uint8 round_code8 (float8 v)
{
  return as_uint8 (v + U2F_BASE) & 0x7fffff;
}

/* round_code8 for codes in [0, 255]: the low byte is the code (taken as
 * the first byte of each word: NVIDIA masks each word before packing the
 * bytes of convert_uchar8). */
inline uchar8 round_byte8 (float8 v)
{
  const uint8 w = as_uint8 (v + U2F_BASE);
  return (uchar8) (as_uchar16 (w.lo).s048c, as_uchar16 (w.hi).s048c);
}

/* The arguments every camera kernel takes (see debayer_camera). */
#define CAMERA_ARGS __global const uchar * in, int in_offset, int in_stride, \
    __global uchar * out, int out_offset, int out_stride, int width, int height, int maxv, \
    int4 layout, int black, float8 gain, float16 mat, float16 tf, \
    float8 yuv, int4 chroma, int stats, int lo, int hi, __global uint * totals
#define CAMERA_PASS in, in_offset, in_stride, out, out_offset, out_stride, width, height, \
    maxv, layout, black, gain, mat, tf, yuv, chroma, stats, lo, hi, totals

/* camera_output of a block whose `rows` (1 or 2, a constant where it is
 * inlined) lie inside the image. */
inline __attribute__ ((always_inline)) void camera_output_rows (CAMERA_ARGS, int x0, int y0,
    float8 * red, float8 * green, float8 * blue, const int rows)
{
#pragma unroll
  for (int dy = 0; dy < 2; dy++) {
    const float8 r = red[dy], g = green[dy], b = blue[dy];
    red[dy] = CAMERA_CURVE (SAT_FMA8 (mat.s2, b, mat.s0 * r + mat.s1 * g), tf);
    green[dy] = CAMERA_CURVE (SAT_FMA8 (mat.s5, b, mat.s3 * r + mat.s4 * g), tf);
    blue[dy] = CAMERA_CURVE (SAT_FMA8 (mat.s8, b, mat.s6 * r + mat.s7 * g), tf);
  }

  const int count = min (BLOCK_W, width - x0);
#if OUT_YUV
  /* yuv: gstcl::yuv_coefficients () and, from the host, fb, fr and 1 / ys
   * (below) in s5-s7; the formulas in color.cl with the factors folded: the
   * Y' code as one sum of products (the luma's factors times the code's
   * scale), Cb and Cr codes from each 2 x 2 block's sums of B' (R') and of
   * its Y' codes (the formulas are linear) */
  const float kr = yuv.s0, kb = yuv.s1, ys = yuv.s3, unit = CURVE_UNIT (tf);
  const float yr = ys * kr * unit, yg = ys * (1.0f - kr - kb) * unit, yb = ys * kb * unit;
  const float y_offset = yuv.s2 - ys * CURVE_OFFSET (tf);
  float8 code[2];
#pragma unroll
  for (int dy = 0; dy < 2; dy++) {
    code[dy] = yb * blue[dy] + (yg * green[dy] + (yr * red[dy] + y_offset));
    if (dy < rows)
      store_bytes8 (out + out_offset + (size_t) (y0 + dy) * out_stride + x0,
          round_byte8 (code[dy]), count);
  }
  /* at odd sizes the last column and row repeated */
  float8 r0 = red[0], b0 = blue[0], l0 = code[0], r1 = red[1], b1 = blue[1], l1 = code[1];
  if (rows == 1) {
    r1 = r0;
    b1 = b0;
    l1 = l0;
  }
  if (x0 + BLOCK_W > width) {
    const int8 past = (int8) (x0) + (int8) (0, 1, 2, 3, 4, 5, 6, 7) >= (int8) (width);
    r0 = select (r0, r0.s00224466, past);
    b0 = select (b0, b0.s00224466, past);
    l0 = select (l0, l0.s00224466, past);
    r1 = select (r1, r1.s00224466, past);
    b1 = select (b1, b1.s00224466, past);
    l1 = select (l1, l1.s00224466, past);
  }
  const float8 rs = r0 + r1, bs = b0 + b1, ls = l0 + l1;
  const float4 r4 = rs.even + rs.odd, b4 = bs.even + bs.odd, l4 = ls.even + ls.odd;
  /* code = 128 + scale (X - Y) / (2 (1 - K)) of the means, X = B (R), with
   * Y = (mean code - offset) / ys: f X4 - (f / ys) L4 + 128 + 4 f offset / ys
   * for the sums X4 and L4 of the four, f = scale / (8 (1 - K)); X4 = unit
   * (the sum of the four curve values) - 4 CURVE_OFFSET */
  const float fb = yuv.s5, fr = yuv.s6, iys = yuv.s7, x_offset = 4.0f * CURVE_OFFSET (tf);
  const float four_offsets = 4.0f * yuv.s2 * iys - x_offset;
  const float4 u = (fb * unit) * b4 + ((-fb * iys) * l4 + (128.0f + fb * four_offsets));
  const float4 v = (fr * unit) * r4 + ((-fr * iys) * l4 + (128.0f + fr * four_offsets));
  const uchar8 uv8 = round_byte8 (min ((float8) (u, v), 255.0f));
  const uchar4 u8 = uv8.lo, v8 = uv8.hi;
  const int pairs = (count + 1) / 2;
#if OUT_YUV == 1
  store_bytes8 (out + chroma.s0 + (size_t) (y0 / 2) * chroma.s1 + x0,
      (uchar8) (u8.s0, v8.s0, u8.s1, v8.s1, u8.s2, v8.s2, u8.s3, v8.s3), 2 * pairs);
#else
  store_bytes4 (out + chroma.s0 + (size_t) (y0 / 2) * chroma.s1 + x0 / 2, u8, pairs);
  store_bytes4 (out + chroma.s2 + (size_t) (y0 / 2) * chroma.s3 + x0 / 2, v8, pairs);
#endif
#else
  /* the curve's values to codes */
  const float scale = OUT_MAX * CURVE_UNIT (tf), offset = OUT_MAX * -CURVE_OFFSET (tf);
  for (int dy = 0; dy < rows; dy++)
    store_row ((__global out_t *) (out + out_offset + (size_t) (y0 + dy) * out_stride), x0, 0,
        count, round_code8 (red[dy] * scale + offset) & OUT_MAX,
        round_code8 (green[dy] * scale + offset) & OUT_MAX,
        round_code8 (blue[dy] * scale + offset) & OUT_MAX, layout);
#endif
}

/* Stages 4 to 6 of the 8 x 2 block at (x0, y0), both even, from its
 * demosaiced samples (rows 0 and 1 of red, green, blue; they are
 * overwritten), in [0, maxv] (menon) or [0, 1] (debayer_camera), the unit
 * `mat` is for: colour matrix, transfer curve, output. The last block row
 * of an odd height (one row) in a branch of its own, so that the others
 * need no selects for it. */
inline __attribute__ ((always_inline)) void camera_output (CAMERA_ARGS, int x0, int y0,
    float8 * red, float8 * green, float8 * blue)
{
  if (y0 + 1 < height)
    camera_output_rows (CAMERA_PASS, x0, y0, red, green, blue, 2);
  else
    camera_output_rows (CAMERA_PASS, x0, y0, red, green, blue, 1);
}
