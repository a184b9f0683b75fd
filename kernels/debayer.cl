/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Bayer demosaic: Malvar-He-Cutler 2004 or bilinear, 8- to 16-bit samples.
 *
 * Every pattern is RGGB shifted by (phase_x, phase_y): the colour at (x, y)
 * is the RGGB colour at (x + phase_x, y + phase_y). Each work-item computes a
 * block of 8 x 2 pixels that starts on an RGGB cell: row 0 is R G R G ...,
 * row 1 G B G B .... The four pixels of one colour in a row of the block
 * (the even or the odd columns) are computed together as an int4, so every
 * filter is a handful of vector operations (SIMD on CPUs through PoCL).
 *
 * The block reads a 12 x 6 window (2 samples of margin for the 5x5 filters),
 * kept per row as its even and odd columns. Samples outside the image are
 * mirrored about the edge sample (reflect-101, repeated for images smaller
 * than the filter), which keeps the Bayer phase.
 *
 * Integer arithmetic throughout, so that the result is exactly defined
 * (maxv = 2^bits - 1, samples above it are clamped to it):
 *   malvar    the paper's coefficients x 16, sum S, value clamp((S + 8) >> 4,
 *             0, maxv) (round half up)
 *   bilinear  (a + b + 1) >> 1 and (a + b + c + d + 2) >> 2
 *   output    16-bit: round(v * 65535 / maxv), 8-bit: round(v * 255 / maxv)
 *             (no ties exist: maxv is odd); GRAY8 is
 *             (77 R + 150 G + 29 B + 128) >> 8 of the 8-bit channels.
 *
 * Build options (the rest are arguments, so that few variants get built):
 *   IN_16         0: 8-bit samples, 1: 16-bit little-endian words
 *   METHOD        0 malvar, 1 bilinear
 *   OUT_*         the output pixel's shape (gstclpixel.hpp): OUT_CH channels
 *                 per pixel, 1 (GRAY8, the Y plane), 3 (RGB/BGR) or 4;
 *                 OUT_SAMPLE 2 for 16-bit channels (RGBA64_LE), else 1;
 *                 OUT_YUV (with CAMERA) YUV_NV12 or YUV_I420. Where each
 *                 channel goes is the `layout` argument.
 *   ALIGNED       1: 4-channel output, rows and offsets of both images
 *                 multiples of 16 bytes (the host checks). Blocks then start
 *                 on multiples of 8 image columns rather than on RGGB cells,
 *                 so that the hot path reads and writes through vector
 *                 pointers (one 128-bit store per 4 or 2 pixels): NVIDIA
 *                 splits vloadN / vstoreN on uchar and ushort pointers into
 *                 single bytes or words (16 times slower for 16-bit output).
 *   PHASE_X       with ALIGNED: the pattern's column shift (0 or 1), so that
 *                 the block's colours are known at compile time
 *   CAMERA        1: the camera variant (debayer_camera, below): black level,
 *                 white balance, demosaic, colour matrix and transfer curve
 *                 in float, blocks on even rows and columns (PHASE_X and
 *                 PHASE_Y given), output also NV12 / I420 (OUT_YUV)
 *   MENON         with CAMERA: menon.cl follows, with its own kernel in place
 *                 of debayer_camera (it uses camera_output for stages 4-6)
 *   CAMERA_CPU    with CAMERA: camera_cpu.cl follows, debayer_camera_cpu (the
 *                 CPU shape) in place of debayer_camera
 */

#ifndef ALIGNED
#define ALIGNED 0
#endif
#ifndef CAMERA
#define CAMERA 0
#endif
#ifndef OUT_YUV
#define OUT_YUV 0
#endif
#ifndef MENON
#define MENON 0
#endif
#ifndef CAMERA_CPU
#define CAMERA_CPU 0
#endif
#if ALIGNED && OUT_CH != 4 && !OUT_YUV
#error "ALIGNED is for 4-channel and YUV output only"
#endif
#if ALIGNED || CAMERA
#define PX PHASE_X
#else
#define PX 0
#endif

/* The arithmetic of the filters: exact integers, or float in the camera
 * variant (no rounding until the output). */
#if CAMERA
typedef float8 win_t;
typedef float4 px_t;
typedef float elem_t;
#else
typedef int8 win_t;
typedef int4 px_t;
typedef int elem_t;
#endif

#ifndef __ENDIAN_LITTLE__
#error "little-endian devices only (samples are little-endian words)"
#endif

#if IN_16
typedef ushort in_t;
#else
typedef uchar in_t;
#endif

#if OUT_SAMPLE == 2
typedef ushort out_t;
#define OUT_MAX 65535u
#else
typedef uchar out_t;
#define OUT_MAX 255u
#endif

/* 2^23 + v rounds to an integer in float, whose mantissa then holds it: a
 * float v rounded to the nearest integer (ties to even) is as_uint (v +
 * U2F_BASE) & 0x7fffff for v in [0, 2^23) (round_code8), and as_float (v |
 * U2F_BITS) - U2F_BASE an integer v below 2^23 as a float. No conversion
 * instructions (a quarter of the arithmetic rate on NVIDIA GPUs). */
#define U2F_BASE 8388608.0f
#define U2F_BITS 0x4b000000

#define BLOCK_W 8
#define WIN_W 12
#define WIN_H 6

/* Row r of the window as seen from the 4 pixels at the even (parity 0) or
 * odd (parity 1) columns of the block, d columns to the side: window column
 * 2 + parity + 2 i + d for i = 0..3. `e` and `o` hold the even and odd
 * window columns of each row. */
inline px_t at (const win_t * e, const win_t * o, int parity, int r, int d)
{
  switch (parity + d) {
    case -2: return e[r].s0123;
    case -1: return o[r].s0123;
    case 0: return e[r].s1234;
    case 1: return o[r].s1234;
    case 2: return e[r].s2345;
    default: return o[r].s2345;   /* 3: parity 1, d 2 */
  }
}

/* Row r + dr, d columns to the side, of the pixels of parity p. */
#define A(dr, d) at (e, o, p, r + (dr), (d))

#if METHOD == 0 && !CAMERA   /* the camera variant's Malvar: demosaic_site below */
inline px_t finish (px_t sum16, int maxv)
{
  /* Vector bounds: Oclgrind 21.10 gets clamp (int4, int, int) wrong. */
  return clamp ((sum16 + 8) >> 4, (int4) (0), (int4) (maxv));
}

/* G at R or B sites. */
inline px_t green_at_rb (const win_t * e, const win_t * o, int p, int r, int maxv)
{
  return finish (8 * A (0, 0) + 4 * (A (-1, 0) + A (1, 0) + A (0, -1) + A (0, 1))
      - 2 * (A (-2, 0) + A (2, 0) + A (0, -2) + A (0, 2)), maxv);
}

/* R or B at G sites whose row holds that colour. */
inline px_t rb_at_g_row (const win_t * e, const win_t * o, int p, int r, int maxv)
{
  return finish (10 * A (0, 0) + 8 * (A (0, -1) + A (0, 1)) - 2 * (A (0, -2) + A (0, 2))
      - 2 * (A (-1, -1) + A (-1, 1) + A (1, -1) + A (1, 1)) + A (-2, 0) + A (2, 0), maxv);
}

/* R or B at G sites whose column holds that colour. */
inline px_t rb_at_g_col (const win_t * e, const win_t * o, int p, int r, int maxv)
{
  return finish (10 * A (0, 0) + 8 * (A (-1, 0) + A (1, 0)) - 2 * (A (-2, 0) + A (2, 0))
      - 2 * (A (-1, -1) + A (-1, 1) + A (1, -1) + A (1, 1)) + A (0, -2) + A (0, 2), maxv);
}

/* R at B sites, B at R sites. */
inline px_t rb_at_br (const win_t * e, const win_t * o, int p, int r, int maxv)
{
  return finish (12 * A (0, 0) + 4 * (A (-1, -1) + A (-1, 1) + A (1, -1) + A (1, 1))
      - 3 * (A (-2, 0) + A (2, 0) + A (0, -2) + A (0, 2)), maxv);
}
#elif METHOD != 0
/* Means of 2 and 4 samples: rounded half up, or exact in float. */
#if CAMERA
#define MEAN2(s) ((s) * 0.5f)
#define MEAN4(s) ((s) * 0.25f)
#else
#define MEAN2(s) (((s) + 1) >> 1)
#define MEAN4(s) (((s) + 2) >> 2)
#endif
inline px_t green_at_rb (const win_t * e, const win_t * o, int p, int r, int maxv)
{
  return MEAN4 (A (-1, 0) + A (1, 0) + A (0, -1) + A (0, 1));
}

inline px_t rb_at_g_row (const win_t * e, const win_t * o, int p, int r, int maxv)
{
  return MEAN2 (A (0, -1) + A (0, 1));
}

inline px_t rb_at_g_col (const win_t * e, const win_t * o, int p, int r, int maxv)
{
  return MEAN2 (A (-1, 0) + A (1, 0));
}

inline px_t rb_at_br (const win_t * e, const win_t * o, int p, int r, int maxv)
{
  return MEAN4 (A (-1, -1) + A (-1, 1) + A (1, -1) + A (1, 1));
}
#endif

/* The output scaling, round (v * OUT_MAX / maxv), as an exact multiply and
 * shift (Granlund-Montgomery): floor (q / maxv) = (q * mul) >> shift for
 * every q < 2^30, which covers all but the 16-bit to 16-bit identity. The
 * shift is at least 32, so the high half of the 32 x 32-bit product (mul_hi)
 * suffices: no 64-bit integers, which embedded-profile devices may lack. */
typedef struct {
  int maxv;
  uint mul;
  int shift;
} Scale;

inline uint4 scale_out (int4 v, Scale s)
{
#if !IN_16 && OUT_SAMPLE == 1
  return as_uint4 (v);
#else
  if (s.maxv == (int) OUT_MAX)
    return as_uint4 (v);
  const uint4 q = as_uint4 (v) * OUT_MAX + (uint) (s.maxv >> 1);
  return mul_hi (q, (uint4) s.mul) >> (uint) (s.shift - 32);
#endif
}

/* Pixels 0..7 of a block row, scaled for output, from the values at its
 * even and odd columns. */
inline uint8 row_of (int4 even, int4 odd, Scale s)
{
  const uint4 a = scale_out (even, s), b = scale_out (odd, s);
  return (uint8) (a.s0, b.s0, a.s1, b.s1, a.s2, b.s2, a.s3, b.s3);
}

/* Stores one row of the block, pixels `first` .. `first + count - 1`, to the
 * image row `dst` where the block starts at pixel x0. `l` gives the channel
 * positions: for 4-channel formats r, g, b and a (alpha or padding, always
 * opaque); for RGB / BGR r is 0 or 2. A whole row goes out in vector
 * stores; a partial one (at the left or right edge) through `px`. */
inline void store_row (__global out_t * dst, int x0, int first, int count, uint8 r, uint8 g,
    uint8 b, int4 l)
{
#if OUT_CH == 1
  const uchar8 luma = convert_uchar8 ((77 * r + 150 * g + 29 * b + 128) >> 8);
#define STORE(to) vstore8 (luma, 0, (to))
#elif OUT_CH == 3
  const uchar8 c0 = convert_uchar8 (l.s0 == 0 ? r : b);
  const uchar8 c2 = convert_uchar8 (l.s0 == 0 ? b : r);
  const uchar8 c1 = convert_uchar8 (g);
  const uchar8 v0 = (uchar8) (c0.s0, c1.s0, c2.s0, c0.s1, c1.s1, c2.s1, c0.s2, c1.s2);
  const uchar8 v1 = (uchar8) (c2.s2, c0.s3, c1.s3, c2.s3, c0.s4, c1.s4, c2.s4, c0.s5);
  const uchar8 v2 = (uchar8) (c1.s5, c2.s5, c0.s6, c1.s6, c2.s6, c0.s7, c1.s7, c2.s7);
#define STORE(to) do { \
    vstore8 (v0, 0, (to)); vstore8 (v1, 1, (to)); vstore8 (v2, 2, (to)); } while (0)
#elif OUT_SAMPLE == 2
  /* Channel at position p goes to the 32-bit half p / 2 of the pixel, at bit
   * 16 * (p % 2). */
#define PLACE(v, p, half) ((p) >> 1 == (half) ? (v) << (uint) (16 * ((p) & 1)) : (uint8) 0)
#define HALF(half) (PLACE (r, l.s0, half) | PLACE (g, l.s1, half) | PLACE (b, l.s2, half) | \
    PLACE ((uint8) OUT_MAX, l.s3, half))
  const uint8 h0 = HALF (0), h1 = HALF (1);
#undef HALF
#undef PLACE
  const uint8 lo = (uint8) (h0.s0, h1.s0, h0.s1, h1.s1, h0.s2, h1.s2, h0.s3, h1.s3);
  const uint8 hi = (uint8) (h0.s4, h1.s4, h0.s5, h1.s5, h0.s6, h1.s6, h0.s7, h1.s7);
#define STORE(to) do { \
    vstore16 (as_ushort16 (lo), 0, (to)); vstore16 (as_ushort16 (hi), 1, (to)); } while (0)
#else
  const uint8 words = (r << (uint) (8 * l.s0)) | (g << (uint) (8 * l.s1)) |
      (b << (uint) (8 * l.s2)) | ((uint8) OUT_MAX << (uint) (8 * l.s3));
#define STORE(to) do { \
    vstore16 (as_uchar16 (words.lo), 0, (to)); vstore16 (as_uchar16 (words.hi), 1, (to)); \
  } while (0)
#endif
  if (first == 0 && count == BLOCK_W) {
#if ALIGNED && OUT_CH == 4 && OUT_SAMPLE == 2
    __global uint4 *to = (__global uint4 *) (dst + x0 * OUT_CH);
    to[0] = lo.lo;
    to[1] = lo.hi;
    to[2] = hi.lo;
    to[3] = hi.hi;
#elif ALIGNED && OUT_CH == 4
    __global uint4 *to = (__global uint4 *) (dst + x0 * OUT_CH);
    to[0] = words.lo;
    to[1] = words.hi;
#else
    STORE (dst + x0 * OUT_CH);
#endif
  } else {
    out_t px[BLOCK_W * OUT_CH];
    STORE (px);
    for (int i = first * OUT_CH; i < (first + count) * OUT_CH; i++)
      dst[x0 * OUT_CH + i] = px[i];
  }
#undef STORE
}

/* Samples clamped to maxv as they are loaded; not in the camera variant,
 * which caps each colour at its white balance's value of maxv instead
 * (camera_block), and keeps each sample v as the bits of a float:
 * WINDOW_WORD (v), whose float is WINDOW_BASE + v exactly, 2^23 + v
 * (U2F), or with FAST_LEVELS (samples below 2^15: IN_15, and 8-bit
 * outputs) 2^15 + v, v shifted by 8 under 2^15's exponent; that one takes
 * black level and white balance in one fma (camera_block). For 16-bit
 * samples either is one instruction a sample with its extraction from the
 * loaded words (window_words). */
#if CAMERA
#ifndef IN_15
#define IN_15 0
#endif
#define FAST_LEVELS (IN_15 && OUT_SAMPLE == 1)
#define LOAD_CAP(v, m) (v)
#if FAST_LEVELS
#define WINDOW_BITS 0x47000000
#define WINDOW_SHIFT 8
#define WINDOW_BASE 32768.0f
#else
#define WINDOW_BITS U2F_BITS
#define WINDOW_SHIFT 0
#define WINDOW_BASE U2F_BASE
#endif
/* The same bits on the image's edges through a float addition: with the
 * same operation on both paths NVIDIA's compiler applied it once after
 * their branches, apart from the extraction it belongs with. */
#define EDGE_SAMPLE(v) as_int ((float) (v) + WINDOW_BASE)
#else
#define LOAD_CAP(v, m) min ((v), (m))
#define WINDOW_BITS 0
#define WINDOW_SHIFT 0
#define EDGE_SAMPLE(v) (v)
#endif
#define WINDOW_WORD(v) (((v) << WINDOW_SHIFT) | WINDOW_BITS)

#if IN_16 && CAMERA
/* The window words of the even and odd samples of 32-bit words of two
 * samples each (from ushort vectors NVIDIA kept each sample's extraction
 * and its or apart, and it masks and ors the low halves of words in two
 * instructions): byte permutes in PTX on NVIDIA (NATIVE_POW=2), one a
 * sample, the other bytes from WINDOW_BITS; shifts, masks and ors
 * elsewhere. */
#if NATIVE_POW == 2
#if FAST_LEVELS
#define PRMT_LOW "0x7104"    /* 0, w.b0, w.b1, WINDOW_BITS' top byte */
#define PRMT_HIGH "0x7324"   /* 0, w.b2, w.b3, that byte */
#else
#define PRMT_LOW "0x7610"    /* w.b0, w.b1, then WINDOW_BITS' two top bytes */
#define PRMT_HIGH "0x7632"   /* w.b2, w.b3, then those */
#endif
inline uint low_half_word (uint w)
{
  uint r;
  asm ("prmt.b32 %0, %1, %2, " PRMT_LOW ";" : "=r" (r) : "r" (w), "r" (WINDOW_BITS));
  return r;
}
inline uint high_half_word (uint w)
{
  uint r;
  asm ("prmt.b32 %0, %1, %2, " PRMT_HIGH ";" : "=r" (r) : "r" (w), "r" (WINDOW_BITS));
  return r;
}
#define HALVES(f, w) ((uint8) (f ((w).s0), f ((w).s1), f ((w).s2), f ((w).s3), f ((w).s4), \
    f ((w).s5), 0, 0))
inline void window_words (uint8 w, int8 * e, int8 * o)
{
  *e = as_int8 (HALVES (low_half_word, w));
  *o = as_int8 (HALVES (high_half_word, w));
}
#undef HALVES
#else
inline void window_words (uint8 w, int8 * e, int8 * o)
{
  *e = as_int8 (WINDOW_WORD (w & 0xffff));
  *o = as_int8 (WINDOW_WORD (w >> 16));
}
#endif
#endif

/* The 12-column window of the block whose top left pixel is (x0, y0): columns
 * x0 - 2 .. x0 + 9, `rows` rows from y0 - 2 (6 for 2 rows of pixels), as the
 * even and odd columns of each row (the last two lanes unused), samples
 * clamped to maxv (LOAD_CAP), or WINDOW_WORD (v) in the camera variant. */
inline void load_window_rows (__global const uchar * in, int in_stride, int width,
    int height, int maxv, int x0, int y0, int rows, int8 * e, int8 * o)
{
  if (x0 >= 2 && x0 + 9 < width && y0 >= 2 && y0 + rows - 3 < height) {
    for (int r = 0; r < rows; r++) {
#if ALIGNED
      /* x0 is a multiple of 8: columns x0 .. x0 + 7 in one aligned 64-bit
       * (128-bit for 16-bit samples) load, the 2 on each side in one each. */
      __global const in_t *row = (__global const in_t *) (in + (size_t) (y0 - 2 + r) *
          in_stride) + x0;
#if IN_16 && CAMERA
      /* as 32-bit words of two samples (window_words) */
      const uint4 a = *(__global const uint4 *) row;
      window_words ((uint8) (*(__global const uint *) (row - 2), a,
              *(__global const uint *) (row + 8), 0, 0), e + r, o + r);
#else
#if IN_16
      const int8 a = LOAD_CAP (convert_int8 (*(__global const ushort8 *) row), (int8) (maxv));
      const int2 left = LOAD_CAP (convert_int2 (*(__global const ushort2 *) (row - 2)),
          (int2) (maxv));
      const int2 right = LOAD_CAP (convert_int2 (*(__global const ushort2 *) (row + 8)),
          (int2) (maxv));
#else
      const int8 a = convert_int8 (*(__global const uchar8 *) row);
      const int2 left = convert_int2 (*(__global const uchar2 *) (row - 2));
      const int2 right = convert_int2 (*(__global const uchar2 *) (row + 8));
#endif
      e[r] = WINDOW_WORD ((int8) (left.s0, a.even, right.s0, 0, 0));
      o[r] = WINDOW_WORD ((int8) (left.s1, a.odd, right.s1, 0, 0));
#endif
#else
      __global const in_t *row = (__global const in_t *) (in + (size_t) (y0 - 2 + r) * in_stride)
          + x0 - 2;
      const int8 a = convert_int8 (vload8 (0, row));
      const int4 b = convert_int4 (vload4 (2, row));
      e[r] = WINDOW_WORD (LOAD_CAP ((int8) (a.even, b.even, 0, 0), (int8) (maxv)));
      o[r] = WINDOW_WORD (LOAD_CAP ((int8) (a.odd, b.odd, 0, 0), (int8) (maxv)));
#endif
    }
  } else {
    int cols[WIN_W];
    for (int c = 0; c < WIN_W; c++)
      cols[c] = border_reflect101 (x0 - 2 + c, width);
    for (int r = 0; r < rows; r++) {
      __global const in_t *row = (__global const in_t *)
          (in + (size_t) border_reflect101 (y0 - 2 + r, height) * in_stride);
      int w[WIN_W];
      for (int c = 0; c < WIN_W; c++)
        w[c] = EDGE_SAMPLE (LOAD_CAP ((int) row[cols[c]], maxv));
      e[r] = (int8) (w[0], w[2], w[4], w[6], w[8], w[10], 0, 0);
      o[r] = (int8) (w[1], w[3], w[5], w[7], w[9], w[11], 0, 0);
    }
  }
}

/* The 12 x 6 window of an 8 x 2 block (above). */
inline void load_window (__global const uchar * in, int in_stride, int width, int height,
    int maxv, int x0, int y0, int8 * e, int8 * o)
{
  load_window_rows (in, in_stride, width, height, maxv, x0, y0, WIN_H, e, o);
}

/* Writes pixel x of the output row `dst` from its scaled channels (4-channel
 * pixels as 32-bit words: rows on 4-byte boundaries). */
inline void put_pixel (__global uchar * dst, int x, uint r, uint g, uint b, int4 l)
{
#if OUT_CH == 1
  dst[x] = (uchar) ((77 * r + 150 * g + 29 * b + 128) >> 8);
#elif OUT_CH == 3
  __global uchar *p = dst + 3 * x;
  p[0] = (uchar) (l.s0 == 0 ? r : b);
  p[1] = (uchar) g;
  p[2] = (uchar) (l.s0 == 0 ? b : r);
#elif OUT_SAMPLE == 2
  /* channel at position p goes to 32-bit half p / 2, at bit 16 * (p % 2) */
#define PLACE(v, p, half) ((p) >> 1 == (half) ? (v) << (uint) (16 * ((p) & 1)) : 0u)
#define HALF(half) (PLACE (r, l.s0, half) | PLACE (g, l.s1, half) | PLACE (b, l.s2, half) | \
    PLACE (OUT_MAX, l.s3, half))
  __global uint *p = (__global uint *) dst + 2 * x;
  p[0] = HALF (0);
  p[1] = HALF (1);
#undef HALF
#undef PLACE
#else
  ((__global uint *) dst)[x] = (r << (uint) (8 * l.s0)) | (g << (uint) (8 * l.s1)) |
      (b << (uint) (8 * l.s2)) | (OUT_MAX << (uint) (8 * l.s3));
#endif
}

#if !CAMERA
/* The 8 x 2 block whose top left pixel is (x0, y0). */
inline void debayer_block (__global const uchar * in, int in_offset, int in_stride,
    __global uchar * out, int out_offset, int out_stride, int width, int height,
    int maxv, uint scale_mul, int scale_shift, int4 layout, int x0, int y0)
{
  int8 e[WIN_H], o[WIN_H];
  load_window (in + in_offset, in_stride, width, height, maxv, x0, y0, e, o);

  /* Row 0 of the block is window row 2: R at the RGGB-even, G at the
   * RGGB-odd columns. Row 1 is window row 3: G at RGGB-even, B at RGGB-odd
   * columns. The RGGB-even columns are the block's even ones (parity E = 0),
   * except in the aligned variant of a pattern shifted by a column, where
   * they are its odd ones. */
#define E PX
#define O (1 - PX)
#if PX
#define ROW(rggb_even, rggb_odd) row_of ((rggb_odd), (rggb_even), sc)
#else
#define ROW(rggb_even, rggb_odd) row_of ((rggb_even), (rggb_odd), sc)
#endif
  const Scale sc = { maxv, scale_mul, scale_shift };
  uint8 red[2], green[2], blue[2];
  red[0] = ROW (at (e, o, E, 2, 0), rb_at_g_row (e, o, O, 2, maxv));
  green[0] = ROW (green_at_rb (e, o, E, 2, maxv), at (e, o, O, 2, 0));
  blue[0] = ROW (rb_at_br (e, o, E, 2, maxv), rb_at_g_col (e, o, O, 2, maxv));
  red[1] = ROW (rb_at_g_col (e, o, E, 3, maxv), rb_at_br (e, o, O, 3, maxv));
  green[1] = ROW (at (e, o, E, 3, 0), green_at_rb (e, o, O, 3, maxv));
  blue[1] = ROW (rb_at_g_row (e, o, E, 3, maxv), at (e, o, O, 3, 0));
#undef ROW
#undef O
#undef E

  const int first = max (0, -x0);
  const int count = min (BLOCK_W, width - x0) - first;
  for (int dy = 0; dy < 2; dy++) {
    const int y = y0 + dy;
    if (y < 0 || y >= height)
      continue;
    store_row ((__global out_t *) (out + out_offset + (size_t) y * out_stride), x0, first, count,
        red[dy], green[dy], blue[dy], layout);
  }
}

__kernel void debayer (__global const uchar * in, int in_offset, int in_stride,
    __global uchar * out, int out_offset, int out_stride, int width, int height,
    int phase_x, int phase_y, int maxv, uint scale_mul, int scale_shift, int4 layout)
{
#if ALIGNED
  const int x0 = (int) get_global_id (0) * BLOCK_W;
#else
  const int x0 = (int) get_global_id (0) * BLOCK_W - phase_x;
#endif
  const int y0 = (int) get_global_id (1) * 2 - phase_y;
  if (x0 < width && y0 < height)
    debayer_block (in, in_offset, in_stride, out, out_offset, out_stride, width, height, maxv,
        scale_mul, scale_shift, layout, x0, y0);
}
#endif

#if CAMERA
/* The camera variant: one pass from raw samples to the output format, in
 * the stage order of camera pipelines (docs/cldebayer.md):
 *   1. black level    v' = max (v - black, 0) * maxv / (maxv - black)
 *   2. white balance  v' * gain of the sample's colour, clipped at maxv
 *      (both folded on the host into one factor per colour, `gain`, over
 *      maxv for debayer_camera)
 *   3. demosaic       the filters above, in float, clamped to [0, maxv]
 *      (debayer_camera works in units of maxv from stage 1 on: [0, 1])
 *   4. colour matrix  with saturation composed and the samples' unit folded
 *      in on the host (`mat`, row-major in s0..s8), then clipped to [0, 1]
 *   5. transfer       linear, sRGB (IEC 61966-2-1), BT.709 OETF or a power
 *   6. output         round (v x OUT_MAX) into the RGB formats; NV12 / I420
 *      as Y'CbCr of the negotiated matrix and range, Cb / Cr the means of
 *      each 2 x 2 block (the last column / row repeated at odd sizes)
 * Every parameter is an argument, so that no property change rebuilds the
 * program. Blocks start on even rows and multiples of 8 columns (so that a
 * block holds whole 2 x 2 chroma blocks); PHASE_X and PHASE_Y say where the
 * colours are.
 *
 * With `stats` set the kernel also gathers the grey-world statistics of the
 * raw frame (after black level, before white balance): per work-group sums
 * of R, G (both greens) and B over the 2 x 2 cells that lie inside the
 * image and whose largest sample is in [lo, hi), and their count, added
 * to totals: STATS_SLOTS sets (by work-group) of four counters, each a
 * pair of words (the sums of the groups' low 16 bits and of the bits above:
 * add_group_stats), zeroed and added up by the host. */
#define STATS_SLOTS 64

#ifndef PHASE_Y
#define PHASE_Y 0
#endif

/* The colour at block row dy (0 / 1), columns of parity p: 0 R, 1 G of an
 * R row, 2 G of a B row, 3 B. */
#define SITE_OF(dy, p, px, py) (((((dy) + (py)) & 1) << 1) | (((p) + (px)) & 1))
#define SITE(dy, p) SITE_OF (dy, p, PHASE_X, PHASE_Y)

/* *r, *g, *b of pixels of colour `site` (as SITE) from their sample c and
 * the filters a demosaic evaluates there: G at R / B, R at B and B at R,
 * at G the colour of its row and that of its column. */
#define SITE_RGB(site, r, g, b, c, g_at_rb, at_br, at_g_row, at_g_col) \
  switch (site) { \
    case 0: \
      *(r) = (c); *(g) = (g_at_rb); *(b) = (at_br); \
      break; \
    case 1: \
      *(r) = (at_g_row); *(g) = (c); *(b) = (at_g_col); \
      break; \
    case 2: \
      *(r) = (at_g_col); *(g) = (c); *(b) = (at_g_row); \
      break; \
    default: \
      *(r) = (at_br); *(g) = (g_at_rb); *(b) = (c); \
  }

inline float gain_of (int site, float4 gain)
{
  return site == 0 ? gain.s0 : site == 3 ? gain.s2 : gain.s1;
}

/* a b + c (a b) clamped to [0, 1] (NVIDIA folds the clamp into the
 * instruction) */
#define SAT_FMA4(a, b, c) clamp ((a) * (b) + (c), 0.0f, 1.0f)
#define SAT_FMA8(a, b, c) clamp ((a) * (b) + (c), 0.0f, 1.0f)
#define SAT_MUL8(a, b) clamp ((a) * (b), 0.0f, 1.0f)
#if METHOD == 0
/* The demosaiced R, G and B of the four pixels of parity p in block row dy:
 * Malvar's filters over 16 (the coefficients are exact in float), in units
 * of full scale, the sums of neighbours shared between the two filters of a
 * site; clamped to [0, 1]. */
inline void demosaic_site (const win_t * e, const win_t * o, int dy, int p, int maxv,
    px_t * r, px_t * g, px_t * b)
{
  const int row = 2 + dy;
#define W(dr, d) at (e, o, p, row + (dr), (d))
  const px_t c = W (0, 0);
  const px_t h2 = W (0, -2) + W (0, 2), v2 = W (-2, 0) + W (2, 0);
  /* the diagonal sum as two vertical pairs, the same sums as the other
   * parity's vertical neighbours (v1 below, hv1): the compiler shares them */
  const px_t d = (W (-1, -1) + W (1, -1)) + (W (-1, 1) + W (1, 1));
  const int site = SITE (dy, p);
  if (site == 0 || site == 3) {
    const px_t hv1 = (W (-1, 0) + W (1, 0)) + (W (0, -1) + W (0, 1)), hv2 = h2 + v2;
    const px_t green = SAT_FMA4 (-0.125f, hv2, 0.5f * c + 0.25f * hv1);
    const px_t other = SAT_FMA4 (-0.1875f, hv2, 0.75f * c + 0.25f * d);
    *g = green;
    *r = site == 0 ? c : other;
    *b = site == 0 ? other : c;
  } else {
    const px_t h1 = W (0, -1) + W (0, 1), v1 = W (-1, 0) + W (1, 0);
    const px_t base = 0.625f * c - 0.125f * d;
    const px_t along = SAT_FMA4 (0.0625f, v2, base + 0.5f * h1 - 0.125f * h2);
    const px_t across = SAT_FMA4 (0.0625f, h2, base + 0.5f * v1 - 0.125f * v2);
    *g = c;
    *r = site == 1 ? along : across;
    *b = site == 1 ? across : along;
  }
#undef W
}
#else
/* The demosaiced R, G and B of the four pixels of parity p in block row dy. */
inline void demosaic_site (const win_t * e, const win_t * o, int dy, int p, int maxv,
    px_t * r, px_t * g, px_t * b)
{
  const int row = 2 + dy;
  SITE_RGB (SITE (dy, p), r, g, b, at (e, o, p, row, 0), green_at_rb (e, o, p, row, maxv),
      rb_at_br (e, o, p, row, maxv), rb_at_g_row (e, o, p, row, maxv),
      rb_at_g_col (e, o, p, row, maxv))
}
#endif

#define INTERLEAVE(even, odd) ((float8) ((even).s0, (odd).s0, (even).s1, (odd).s1, \
    (even).s2, (odd).s2, (even).s3, (odd).s3))


/* x^y for x in [0, 1], y > 0. On GPUs two special-function instructions:
 * NVIDIA's PTX (-D NATIVE_POW=2, below), native_powr elsewhere (-D
 * NATIVE_POW=1; within 2^-21 on NVIDIA). Elsewhere
 * exp2 (y log2 x) in plain arithmetic that PoCL vectorises across
 * work-items (its powr is a scalar library call, 6x the whole kernel):
 * log2 from the exponent bits and an odd series in t = (m - 1) / (m + 1),
 * 2^f from a degree-7 series; relative error below 2e-6, far inside 1 LSB
 * of 16 bits. */
#if NATIVE_POW == 2
/* NVIDIA (the host's NATIVE_POW=2, when the device has
 * cl_nv_compiler_options): lg2 and ex2 that flush denormals, in PTX.
 * native_powr's lg2.approx and ex2.approx keep them, and the driver wraps
 * each special-function instruction in a test, a scaling and a select (7
 * more instructions a value: 14 % of the camera kernel's time on the H100).
 * x below 2^-126 counts as 0 (x^y is then far below an output step). */
inline float lg2_ftz (float x)
{
  float r;
  asm ("lg2.approx.ftz.f32 %0, %1;" : "=f" (r) : "f" (x));
  return r;
}
inline float ex2_ftz (float x)
{
  float r;
  asm ("ex2.approx.ftz.f32 %0, %1;" : "=f" (r) : "f" (x));
  return r;
}
inline float pow_unit1 (float x, float y)
{
  return ex2_ftz (y * lg2_ftz (x));
}
inline float8 pow_unit8 (float8 x, float8 y)
{
  return (float8) (pow_unit1 (x.s0, y.s0), pow_unit1 (x.s1, y.s1), pow_unit1 (x.s2, y.s2),
      pow_unit1 (x.s3, y.s3), pow_unit1 (x.s4, y.s4), pow_unit1 (x.s5, y.s5),
      pow_unit1 (x.s6, y.s6), pow_unit1 (x.s7, y.s7));
}
/* s x^y as 2^(y log2 x + log2 s): the factor costs nothing (an fma where
 * the product was) */
inline float pow_times1 (float x, float y, float log2s)
{
  return ex2_ftz (fma (y, lg2_ftz (x), log2s));
}
inline float8 pow_times8 (float8 x, float y, float s, float log2s)
{
  return (float8) (pow_times1 (x.s0, y, log2s), pow_times1 (x.s1, y, log2s),
      pow_times1 (x.s2, y, log2s), pow_times1 (x.s3, y, log2s), pow_times1 (x.s4, y, log2s),
      pow_times1 (x.s5, y, log2s), pow_times1 (x.s6, y, log2s), pow_times1 (x.s7, y, log2s));
}
#elif NATIVE_POW
#define pow_unit1(x, y) native_powr ((x), (y))
#define pow_unit8(x, y) native_powr ((x), (y))
#define pow_times8(x, y, s, log2s) native_exp2 (fma ((float8) (y), native_log2 (x), \
    (float8) (log2s)))
#else
#define POW_UNIT(name, T, IT) \
inline T name (T x, T y) \
{ \
  const IT bits = as_##IT (max (x, (T) (FLT_MIN))); \
  const T e = convert_##T ((bits >> 23) - 127); \
  const T m = as_##T ((bits & 0x007fffff) | 0x3f800000);   /* [1, 2) */ \
  const T t = (m - 1.0f) / (m + 1.0f), t2 = t * t; \
  const T log2x = e + t * (2.8853900817779268f + t2 * (0.9617966939259756f + \
      t2 * (0.5770780163555854f + t2 * (0.4121985831111324f + t2 * 0.3205988979753252f)))); \
  const T z = max (y * log2x, (T) (-126.0f)); \
  const T n = floor (z), f = z - n; \
  const T p = 1.0f + f * (0.6931471805599453f + f * (0.2402265069591007f + \
      f * (0.0555041086648216f + f * (0.0096181291076285f + f * (0.0013333558146428f + \
      f * (0.0001540353039338f + f * 0.0000152527338040f)))))); \
  return select (p * as_##T ((convert_##IT (n) + 127) << 23), (T) (0.0f), x <= 0.0f); \
}
POW_UNIT (pow_unit1, float, int)
#if OUT_SAMPLE == 1 && !FAST_POW_OFF
/* For 8-bit outputs a cheaper x^y (within 1 LSB is the requirement):
 * log2 x = E - 127 + P (m), E the biased exponent (a conversion of the
 * float's bits shifted), m the mantissa in [1, 2) and P a degree-4 fit of
 * log2 on [1, 2] in m itself (absolute error 8.8e-5; no m - 1; P's constant
 * term and the bias folded into one fma with y: z = y (E + m Q (m)) + K,
 * K = y (P0 - 127)); 2^z as 2^n 2^f with n = z rounded through 1.5 2^23
 * (no floor: PoCL's takes 12 instructions) and 2^f, f in [-1/2, 1/2], a
 * degree-3 fit (relative error 2e-4), its coefficients times a factor s
 * (the curve's a); no division. The three-channel version, for y <= 1
 * (sRGB, BT.709, gamma >= 1, where log2's error counts y times), a
 * degree-3 P (6.4e-4). At most 0.17 of an 8-bit step from the formula for
 * any gamma from 0.1 to 10 (at 0.1), 0.06 for sRGB, 0.08 for BT.709 (the
 * whole curve in float against the formula in double, every 61st float x
 * from 2^-24 to 1: tests/bench/tools/pow8-check.cpp). 2^n needs n >= -126:
 * pow_unit8 takes z below -126 as -126 (x = 0 then gives 2^(-126 max (y,
 * 1)) roughly, 0 in 8 bits); the three-channel version leaves that to its
 * caller, whose x are at least pow_floor (y). */
/* The steps of the series for one value v (pointer), written once and
 * applied to one value (PF1) or to three (PF3) in turn: three chains of
 * about 16 dependent operations interleaved, which keeps more of the
 * core's units busy than one after another (5 % of the CPU camera kernel). */
/* (Every step takes the value and three more arguments, used or not:
 * variadic macros are not OpenCL C, and NVIDIA's compiler refuses them.) */
#define PF1(S, T, IT, k) S (a, T, IT, k)
#define PF3(S, T, IT, k) S (a, T, IT, k) S (b, T, IT, k) S (c, T, IT, k)
#define PF_P0 (-2.512854535f)   /* P's constant term */
#define PF_P0_3 (-2.153620604f)   /* that of the degree-3 fit */
#define PF_LOG(v, T, IT, c) const IT bits_##v = as_##IT (*v); \
  const T e_##v = convert_##T (bits_##v >> 23); \
  const T m_##v = as_##T ((bits_##v & 0x007fffff) | 0x3f800000);   /* [1, 2) */ \
  T q_##v = (T) (c);
#define PF_Q(v, T, IT, k) q_##v = (k) + m_##v * q_##v;
#define PF_Z(v, T, y, k) T z_##v = (y) * (e_##v + m_##v * q_##v) + (k);
#define PF_ZMAX(v, T, IT, k) z_##v = max (z_##v, (T) (-126.0f));
#define PF_EXP(v, T, IT, k) const T t_##v = z_##v + 12582912.0f;   /* n in the low bits */ \
  const T f_##v = z_##v - (t_##v - 12582912.0f); \
  T p_##v = (T) (k);
#define PF_P(v, T, IT, k) p_##v = (k) + f_##v * p_##v;
/* p 2^n: n added to p's exponent (t's bits are 0x4b400000 + n, whose shift
 * by 23 leaves n << 23) */
#define PF_OUT(v, T, IT, k) *v = as_##T (as_##IT (p_##v) + (as_##IT (t_##v) << 23));
#define POW_FAST_LOG(PFN, T, IT, y, k) \
  PFN (PF_LOG, T, IT, -0.08161578824f) PFN (PF_Q, T, IT, 0.6451422427f) \
  PFN (PF_Q, T, IT, -2.120674866f) PFN (PF_Q, T, IT, 4.070090538f) PFN (PF_Z, T, y, k)
/* P of degree 3 (absolute error 6.4e-4), for y <= 1 */
#define POW_FAST_LOG_3(PFN, T, IT, y, k) \
  PFN (PF_LOG, T, IT, 0.1582486672f) PFN (PF_Q, T, IT, -1.051874864f) \
  PFN (PF_Q, T, IT, 3.047883918f) PFN (PF_Z, T, y, k)
/* s 2^z, 2^f's coefficients times s */
#define POW_FAST_EXP(PFN, T, IT, s) \
  PFN (PF_EXP, T, IT, (s) * 0.05575464978f) PFN (PF_P, T, IT, (s) * 0.2420353302f) \
  PFN (PF_P, T, IT, (s) * 0.6931471806f) PFN (PF_P, T, IT, (s)) PFN (PF_OUT, T, IT, 0)
/* s x^y of x (a function's argument, overwritten), y a T or a float */
#define POW_FAST(T, IT, y, s) \
  T *a = &x; \
  POW_FAST_LOG (PF1, T, IT, y, y * (PF_P0 - 127.0f)) \
  PF1 (PF_ZMAX, T, IT, 0) \
  POW_FAST_EXP (PF1, T, IT, s) \
  return x;
/* s x^y of three values in place, x >= pow_floor (y); for y <= 1 (sRGB,
 * BT.709, gamma >= 1: y times log2's error) with P of degree 3 */
#define POW_FAST3(name, T, IT) \
inline void name (T * a, T * b, T * c, float y, float s) \
{ \
  if (y <= 1.0f) { \
    const float k = y * (PF_P0_3 - 127.0f); \
    POW_FAST_LOG_3 (PF3, T, IT, y, k) \
    POW_FAST_EXP (PF3, T, IT, s) \
  } else { \
    const float k = y * (PF_P0 - 127.0f); \
    POW_FAST_LOG (PF3, T, IT, y, k) \
    POW_FAST_EXP (PF3, T, IT, s) \
  } \
}
/* The least x of pow3's: 2^(-120 / y), whose x^y is 2^-120 (0 in 8 bits,
 * z well above -126 with the errors), or the least normal float. */
inline float pow_floor (float y)
{
  return max (exp2 (-120.0f / y), FLT_MIN);
}
inline float8 pow_unit8 (float8 x, float8 y)
{
  POW_FAST (float8, int8, y, 1.0f)
}
/* s x^y (s in 2^f's coefficients) */
inline float8 pow_times8 (float8 x, float y, float s, float log2s)
{
  POW_FAST (float8, int8, y, s)
}
POW_FAST3 (pow3_unit16, float16, int16)
#else
POW_UNIT (pow_unit8, float8, int8)
#define pow_times8(x, y, s, log2s) ((s) * pow_unit8 ((x), (float8) (y)))
#endif
#endif

/* The transfer curves as one formula, without branches (PoCL vectorises no
 * switch): x <= knee ? slope x : a x^e - b, with tf = (e, a, b, knee,
 * slope) set by the host: sRGB (1/2.4, 1.055, 0.055, 0.0031308, 12.92),
 * BT.709 (0.45, 1.099, 0.099, 0.018, 4.5), power (1/gamma, 1, 0, -1, 0),
 * linear (1, 1, 0, 2, 1). */
#define TRANSFER_CURVE(name, T, pow) \
inline T name (T x, float16 tf) \
{ \
  if (tf.s3 > 1.0f)   /* linear */ \
    return x; \
  return select (tf.s1 * pow (x, (T) (tf.s0)) - tf.s2, tf.s4 * x, x <= tf.s3); \
}
TRANSFER_CURVE (transfer1, float, pow_unit1)
TRANSFER_CURVE (transfer_curve, float8, pow_unit8)

#if OUT_SAMPLE == 1
/* For 8-bit outputs the curve v as q = (v + b) / u, u = c + b, c = slope
 * knee the curve's value at the knee (1 for the power curves, whose b is
 * 0): max ((a / u) x^e, sat ((slope / u) x + b / u)), tf.s5-s8 = (a / u,
 * log2 (a / u), slope / u, b / u); the factor goes into x^e's exponent, so
 * that an fma-saturate and a max are all the formula's multiply, compare
 * and select take. That is max (a x^e - b, min (slope x, c)): the formula
 * where the power branch lies below the linear one up to the knee and
 * above c past it: the power curves (slope 0), and sRGB but within 1e-5
 * just below its knee; BT.709's power branch lies above its linear one
 * just below the knee, by at most 2.5e-4 (0.06 of an 8-bit step). The
 * outputs take v = u q - b (CURVE_UNIT u, CURVE_OFFSET b in tf.s9-s10; 1
 * and 0 for the linear curve), b in their offsets. x is in [0, 1] (the
 * matrix's clamp). */
inline float8 transfer_offset8 (float8 x, float16 tf)
{
  if (tf.s3 > 1.0f)   /* linear */
    return x;
  return max (pow_times8 (x, tf.s0, tf.s5, tf.s6), SAT_FMA8 (x, tf.s7, tf.s8));
}
#define CAMERA_CURVE(x, tf) transfer_offset8 ((x), (tf))
#define CURVE_UNIT(tf) ((tf).s9)
#define CURVE_OFFSET(tf) ((tf).sa)
#else
#define CAMERA_CURVE(x, tf) transfer_curve ((x), (tf))
#define CURVE_UNIT(tf) 1.0f
#define CURVE_OFFSET(tf) 0.0f
#endif
#if OUT_SAMPLE == 1 && !NATIVE_POW && !FAST_POW_OFF
/* The least value that transfer_curve3_16 takes: pow_floor, or 0 for the
 * linear curve. */
inline float curve3_floor (float16 tf)
{
  return tf.s3 > 1.0f ? 0.0f : pow_floor (tf.s0);
}

/* The curve plus its offset (tf.s2: x <= knee ? slope x + b : a x^y) of
 * three float16 at once, in place, for outputs where b cancels or is
 * subtracted later (Y'CbCr: Cb and Cr are differences, Y' a sum of
 * weights 1); values in [curve3_floor (tf), 1]. a is in 2^f's
 * coefficients: a compare and a masked fma a value. */
inline void transfer_curve3_16_plus_b (float16 * a, float16 * b, float16 * c, float16 tf)
{
  if (tf.s3 > 1.0f)   /* linear (b = 0) */
    return;
  float16 pa = *a, pb = *b, pc = *c;
  pow3_unit16 (&pa, &pb, &pc, tf.s0, tf.s1);
  *a = select (pa, tf.s4 * *a + tf.s2, *a <= tf.s3);
  *b = select (pb, tf.s4 * *b + tf.s2, *b <= tf.s3);
  *c = select (pc, tf.s4 * *c + tf.s2, *c <= tf.s3);
}

/* The curve of three float16 at once, in place; values in [curve3_floor
 * (tf), 1]. */
inline void transfer_curve3_16 (float16 * a, float16 * b, float16 * c, float16 tf)
{
  transfer_curve3_16_plus_b (a, b, c, tf);
  *a -= tf.s2;
  *b -= tf.s2;
  *c -= tf.s2;
}
#endif

/* Sums of the cells of the block (see above) as (R, G, B, cells), from
 * rows 2 and 3 of the window (e, o: its even and odd columns, samples as
 * WINDOW_WORD). The samples are not clamped to maxv: a cell with a sample
 * above maxv has its largest at or above hi (which is at most maxv -
 * black), so it is left out either way. */
inline uint4 cell_sums (const int8 * e, const int8 * o, int x0, int y0, int width,
    int height, int black, int lo, int hi, int px, int py)
{
  /* in the window's units: (v - black) << WINDOW_SHIFT (below 2^23) */
  const int zero = WINDOW_WORD (black), sl = lo << WINDOW_SHIFT, sh = hi << WINDOW_SHIFT;
  int4 s[4];   /* by site */
  s[SITE_OF (0, 0, px, py)] = max (e[2].s1234 - zero, 0);
  s[SITE_OF (0, 1, px, py)] = max (o[2].s1234 - zero, 0);
  s[SITE_OF (1, 0, px, py)] = max (e[3].s1234 - zero, 0);
  s[SITE_OF (1, 1, px, py)] = max (o[3].s1234 - zero, 0);
  const int4 top = max (max (s[0], s[1]), max (s[2], s[3]));
  int4 use = as_int4 (as_uint4 (top - sl) < (uint4) ((uint) (sh - sl)));   /* lo <= top < hi */
  if (x0 + BLOCK_W > width)
    use &= (int4) (x0 + 1, x0 + 3, x0 + 5, x0 + 7) < (int4) (width);
  if (y0 + 1 >= height)
    use = (int4) (0);
  const int4 r = s[0] & use, g = (s[1] + s[2]) & use, b = s[3] & use;
  return (uint4) ((uint) ((r.s0 + r.s1) + (r.s2 + r.s3)) >> WINDOW_SHIFT,
      (uint) ((g.s0 + g.s1) + (g.s2 + g.s3)) >> WINDOW_SHIFT,
      (uint) ((b.s0 + b.s1) + (b.s2 + b.s3)) >> WINDOW_SHIFT,
      (uint) -((use.s0 + use.s1) + (use.s2 + use.s3)));
}

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

/* The CPU strip kernels (menon_cpu.cl, camera_cpu.cl) keep rows of samples
 * by column parity in local memory, in chunks of 8 values (16 columns). */
/* A chunk's 8 values of one parity with the chunks left and right of it
 * (aligned loads); the values of the same parity 2 columns to the left (M1)
 * or right (P1) of its pixels as shuffles of them (unaligned vector loads
 * come out split in pieces). */
typedef struct {
  float8 l, c, r;
} Nb;

inline Nb nb (__local const float8 * p, int base, int k)
{
  const Nb n = { p[base + k], p[base + k + 1], p[base + k + 2] };
  return n;
}

inline Nb nb_sub (Nb a, Nb b)
{
  const Nb n = { a.l - b.l, a.c - b.c, a.r - b.r };
  return n;
}

#define M1(n) ((float8) ((n).l.s7, (n).c.s0, (n).c.s1, (n).c.s2, (n).c.s3, (n).c.s4, (n).c.s5, \
    (n).c.s6))
#define P1(n) ((float8) ((n).c.s1, (n).c.s2, (n).c.s3, (n).c.s4, (n).c.s5, (n).c.s6, (n).c.s7, \
    (n).r.s0))

/* Of the other parity (n), the values 1 column to the left and to the right
 * of the pixels of parity p. */
inline float8 left_of (Nb n, int p)
{
  return p ? n.c : M1 (n);
}

inline float8 right_of (Nb n, int p)
{
  return p ? P1 (n) : n.c;
}

/* Pixel rows a work-item of debayer_camera computes (2 or 4: one or two
 * 8 x 2 blocks over one window) and its work-group (the host's CAMERA_*). */
#ifndef CAMERA_ROWS
#define CAMERA_ROWS 2
#endif
#ifndef CAMERA_LX
#define CAMERA_LX 16
#endif
#ifndef CAMERA_LY
#define CAMERA_LY 16
#endif
#define CAMERA_WIN_H (CAMERA_ROWS + 4)
#if IN_16
#define IN_MAX 65535
#else
#define IN_MAX 255
#endif

/* Black level and white balance (stages 1 and 2) in units of the full
 * scale, which the rest of debayer_camera works in (clamps to [0, 1] cost
 * nothing on GPUs: they fold into the arithmetic): v' = min (max (v -
 * black, 0) gain, maxv) / maxv for v clamped to maxv, which is min (clamp
 * ((v - black) gain / maxv, 0, 1), cap) with cap = v' of maxv (the stage is
 * monotonic), so samples need no clamp to maxv. cap is 1 unless a colour's
 * white-balance gain is below 1 (caps within 2^-20 of 1, unit gains
 * rounded in float, count as 1: no output step sees the difference).
 * v - black is exact in float from the sample's bits: as_float (v |
 * U2F_BITS) - (U2F_BASE + black). camera_gains sets the factors (over maxv:
 * the host's `gain`) and caps by row and column parity of the sample (both
 * even at an RGGB cell's first site); true if any cap is below 1. */
inline bool camera_gains (float4 gain, int maxv, int black, float g[2][2], float cap[2][2])
{
#pragma unroll
  for (int dy = 0; dy < 2; dy++)
#pragma unroll
    for (int p = 0; p < 2; p++) {
      g[dy][p] = gain_of (SITE (dy, p), gain);
      cap[dy][p] = min ((float) (maxv - black) * g[dy][p], 1.0f);
    }
  return min (min (cap[0][0], cap[0][1]), min (cap[1][0], cap[1][1])) < 1.0f - 0x1p-20f;
}

/* Stages 3 to 6 of the CAMERA_ROWS x 8 pixels at (x0, y0), both even, from
 * their window after stages 1 and 2 (e, o: even and odd columns). */
inline void camera_pixels (CAMERA_ARGS, int x0, int y0, const float8 * e, const float8 * o)
{
#pragma unroll
  for (int k = 0; k < CAMERA_ROWS / 2; k++) {
    if (y0 + 2 * k >= height)
      break;
    float8 red[2], green[2], blue[2];
#pragma unroll
    for (int dy = 0; dy < 2; dy++) {
      float4 r0, g0, b0, r1, g1, b1;
      demosaic_site (e + 2 * k, o + 2 * k, dy, 0, 1, &r0, &g0, &b0);
      demosaic_site (e + 2 * k, o + 2 * k, dy, 1, 1, &r1, &g1, &b1);
      red[dy] = INTERLEAVE (r0, r1);
      green[dy] = INTERLEAVE (g0, g1);
      blue[dy] = INTERLEAVE (b0, b1);
    }
    camera_output (CAMERA_PASS, x0, y0 + 2 * k, red, green, blue);
  }
}

/* The CAMERA_ROWS x 8 pixels at (x0, y0), both even, every stage, from a
 * window of their own; returns their white-balance cells' sums when `stats`
 * is set. */
inline uint4 camera_block (CAMERA_ARGS, int x0, int y0)
{
  uint4 cells = (uint4) (0);
  /* the samples as they are (no clamp to maxv: camera_gains) */
  int8 raw_e[CAMERA_WIN_H], raw_o[CAMERA_WIN_H];
  load_window_rows (in + in_offset, in_stride, width, height, IN_MAX, x0, y0, CAMERA_WIN_H,
      raw_e, raw_o);
  if (stats) {
#pragma unroll
    for (int k = 0; k < CAMERA_ROWS / 2; k++)
      cells += cell_sums (raw_e + 2 * k, raw_o + 2 * k, x0, y0 + 2 * k, width, height, black,
          lo, hi, PHASE_X, PHASE_Y);
  }
  /* window row r is block row r - 2, of the same parity */
  float8 e[CAMERA_WIN_H], o[CAMERA_WIN_H];
  float g[2][2], cap[2][2];
  const bool capped = camera_gains (gain.lo, maxv, black, g, cap);
#if FAST_LEVELS
  /* (2^15 + v) g + K, K = -(2^15 + black) g rounded down on the host
   * (gain.hi): at or below 0 at black; K's rounding is below 2^-9 of a
   * sample step (1e-6 of full scale for 12 bits) */
  float k[2][2];
#pragma unroll
  for (int dy = 0; dy < 2; dy++)
#pragma unroll
    for (int p = 0; p < 2; p++)
      k[dy][p] = gain_of (SITE (dy, p), gain.hi);
#pragma unroll
  for (int r = 0; r < CAMERA_WIN_H; r++) {
    e[r] = clamp (fma (as_float8 (raw_e[r]), (float8) (g[r & 1][0]), (float8) (k[r & 1][0])),
        0.0f, 1.0f);
    o[r] = clamp (fma (as_float8 (raw_o[r]), (float8) (g[r & 1][1]), (float8) (k[r & 1][1])),
        0.0f, 1.0f);
  }
#else
  const float base = WINDOW_BASE + (float) black;
#pragma unroll
  for (int r = 0; r < CAMERA_WIN_H; r++) {
    e[r] = SAT_MUL8 (as_float8 (raw_e[r]) - base, g[r & 1][0]);
    o[r] = SAT_MUL8 (as_float8 (raw_o[r]) - base, g[r & 1][1]);
  }
#endif
  if (capped) {
#pragma unroll
    for (int r = 0; r < CAMERA_WIN_H; r++) {
      e[r] = min (e[r], cap[r & 1][0]);
      o[r] = min (o[r], cap[r & 1][1]);
    }
  }
  camera_pixels (CAMERA_PASS, x0, y0, e, o);
  return cells;
}

/* Adds the sums `group` to the set of counters `slot` of totals (STATS_SLOTS
 * sets, so that few work-groups contend for one) without waiting for them
 * (no value returned): each counter is a pair of words, the low 16 bits of
 * the sums and the bits above, so that no carry is needed (the host adds
 * low + 2^16 high). */
inline void add_stats (__global uint * totals, int slot, uint4 group)
{
  __global uint *t = totals + 8 * (slot % STATS_SLOTS);
  atomic_add (t, group.s0 & 0xffff);
  atomic_add (t + 1, group.s0 >> 16);
  atomic_add (t + 2, group.s1 & 0xffff);
  atomic_add (t + 3, group.s1 >> 16);
  atomic_add (t + 4, group.s2 & 0xffff);
  atomic_add (t + 5, group.s2 >> 16);
  atomic_add (t + 6, group.s3 & 0xffff);
  atomic_add (t + 7, group.s3 >> 16);
}

#if NATIVE_POW == 2
/* NVIDIA (PTX): v of the work-item of the warp whose lane differs by
 * `lanes` (a butterfly step) */
inline uint shuffle_xor (uint v, int lanes)
{
  uint r;
  asm volatile ("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r" (r) : "r" (v),
      "r" (lanes));
  return r;
}

/* The sum of v over the warp: one instruction on NVIDIA's sm_80 and later
 * (the host's NV_REDUX=1), where five shuffles and additions took ten. */
#if NV_REDUX
inline uint warp_sum (uint v)
{
  uint r;
  asm volatile ("redux.sync.add.u32 %0, %1, 0xffffffff;" : "=r" (r) : "r" (v));
  return r;
}
#endif
#endif

/* Adds the `cells` of the n work-items of a group (n a multiple of 4, lid
 * their index) to the set of counters `slot` of totals: a tree through
 * local memory (4 to 1 at each step, 2 to 1 at the last when n is not a
 * power of 4), then one work-item adds the group's sums (add_stats). Every
 * work-item of the group calls it (barriers). On NVIDIA, for n a multiple
 * of 32, one barrier instead: the first warp adds up the group's sums and
 * reduces its own by register shuffles (2 % of debayer_camera's time on the
 * H100); on sm_80 and later each warp reduces its own sums first, in one
 * instruction a sum, and one work-item adds the warps' (4 % more). */
inline void add_group_stats (__local uint4 * sums, uint4 cells, int lid, int n,
    __global uint * totals, int slot)
{
#if NATIVE_POW == 2 && NV_REDUX
  if (n % 32 == 0) {
    const uint4 w = (uint4) (warp_sum (cells.s0), warp_sum (cells.s1), warp_sum (cells.s2),
        warp_sum (cells.s3));
    if ((lid & 31) == 0)
      sums[lid >> 5] = w;
    barrier (CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
      uint4 t = sums[0];
      for (int i = 1; i < n / 32; i++)
        t += sums[i];
      add_stats (totals, slot, t);
    }
    return;
  }
#endif
  sums[lid] = cells;
  barrier (CLK_LOCAL_MEM_FENCE);
#if NATIVE_POW == 2
  if (n % 32 == 0) {
    if (lid < 32) {
      uint4 t = sums[lid];
      for (int i = lid + 32; i < n; i += 32)
        t += sums[i];
#pragma unroll
      for (int m = 16; m > 0; m >>= 1)
        t += (uint4) (shuffle_xor (t.s0, m), shuffle_xor (t.s1, m), shuffle_xor (t.s2, m),
            shuffle_xor (t.s3, m));
      if (lid == 0)
        add_stats (totals, slot, t);
    }
    return;
  }
#endif
  for (int m = n; m > 1;) {
    const int q = m % 4 == 0 ? m / 4 : m / 2;
    if (lid < q)
      sums[lid] = m % 4 == 0 ? sums[lid] + sums[lid + q] + sums[lid + 2 * q] + sums[lid + 3 * q]
          : sums[lid] + sums[lid + q];
    barrier (CLK_LOCAL_MEM_FENCE);
    m = q;
  }
  if (lid == 0)
    add_stats (totals, slot, sums[0]);
}

#if !MENON && !CAMERA_CPU   /* menon.cl and camera_cpu.cl have their own kernels */
#define CAMERA_GROUP (CAMERA_LX * CAMERA_LY)

__kernel __attribute__ ((reqd_work_group_size (CAMERA_LX, CAMERA_LY, 1)))
void debayer_camera (CAMERA_ARGS)
{
  __local uint4 sums[CAMERA_GROUP];
  const int lid = (int) (get_local_id (1) * get_local_size (0) + get_local_id (0));
  const int x0 = (int) get_global_id (0) * BLOCK_W;
  const int y0 = (int) get_global_id (1) * CAMERA_ROWS;
  uint4 cells = (uint4) (0);
  if (x0 < width && y0 < height)
    cells = camera_block (CAMERA_PASS, x0, y0);
  if (stats)
    add_group_stats (sums, cells, lid, CAMERA_GROUP, totals,
        (int) (get_group_id (1) * get_num_groups (0) + get_group_id (0)));
}
#endif
#endif

/* Block (bx, by) of the i-th block of the block grid (nbx x nby blocks)
 * outside bx0 <= bx < bx1, by0 <= by < by1: first the rows above by0, then
 * those from by1, then the left and right ends of the rows in between.
 * False past the last. */
inline bool rim_block (int i, int nbx, int nby, int bx0, int bx1, int by0, int by1, int *bx,
    int *by)
{
  const int top = by0 * nbx, bottom = (nby - by1) * nbx;
  const int side = bx0 + nbx - bx1;
  if (i < top) {
    *bx = i % nbx;
    *by = i / nbx;
  } else if (i < top + bottom) {
    i -= top;
    *bx = i % nbx;
    *by = by1 + i / nbx;
  } else {
    i -= top + bottom;
    if (side == 0 || i >= side * (by1 - by0))
      return false;
    *by = by0 + i / side;
    *bx = i % side;
    if (*bx >= bx0)
      *bx += bx1 - bx0;
  }
  return true;
}

#if CELLS
/* The CPU variant (-D CELLS=1). PoCL vectorises a work-group across its
 * work-items in dimension 0, so here each work-item computes one pixel
 * column of a pair of rows (an R G row and a G B row) with straight-line
 * code: no loops, no branches, no gathers. Neighbouring work-items read
 * neighbouring samples at the same offsets and write neighbouring pixels,
 * and the compiler turns the group into SIMD loads, arithmetic and stores.
 * Each work-item evaluates every filter its pixels might need and selects
 * by the column's parity (so that memory is accessed at unit stride: 2 x 2
 * cells per work-item would read and write at a stride of two). debayer_cells covers the interior, where the
 * 5 x 5 windows lie inside the image; debayer_rim does the remaining blocks
 * of the block grid above (top and bottom rows, left and right ends) with
 * the bounds-checked block code. */

/* 32-bit lanes: written with shorts, the compiler widens the arithmetic
 * to int all the same (tried). */
typedef int acc_t;

/* The sample dy rows and dx columns from the pixel computed, `at` being
 * the pixel's row. (No arrays of row pointers: PoCL keeps private arrays in
 * memory per work-item, which stops the vectorisation.) */
#define SAMPLE(dy, dx) ((__global const in_t *) (at + (dy) * in_stride))[x + (dx)]
#if IN_16
#define P(dy, dx) ((acc_t) min ((int) SAMPLE (dy, dx), maxv))
#else
#define P(dy, dx) ((acc_t) SAMPLE (dy, dx))
#endif

/* The filters at the pixel of window row `c` (0 or 1), as sums of its
 * neighbours: c0 the centre; h1, v1 the horizontal and vertical neighbours
 * at distance 1; h2, v2 at distance 2; d the four diagonal ones. */
typedef struct {
  acc_t c0, h1, v1, h2, v2, d;
} Neighbours;

#define NEIGHBOURS(c) { P (c, 0), P (c, -1) + P (c, 1), P ((c) - 1, 0) + P ((c) + 1, 0), \
    P (c, -2) + P (c, 2), P ((c) - 2, 0) + P ((c) + 2, 0), \
    P ((c) - 1, -1) + P ((c) - 1, 1) + P ((c) + 1, -1) + P ((c) + 1, 1) }

#if METHOD == 0
#define FINISH(sum) clamp (((sum) + 8) >> 4, 0, maxv)
/* G at R or B sites (the multiplications written as shifts: vector
 * multiplies of 32-bit lanes are slow on x86) */
#define GREEN_AT_RB(n) FINISH ((((n.c0 << 2) + ((n.h1 + n.v1) << 1) - (n.h2 + n.v2)) << 1))
/* R or B at G sites whose row, or whose column, holds that colour */
#define RB_AT_G_ROW(n) FINISH ((n.c0 << 3) + (n.c0 << 1) + (n.h1 << 3) - ((n.h2 + n.d) << 1) + n.v2)
#define RB_AT_G_COL(n) FINISH ((n.c0 << 3) + (n.c0 << 1) + (n.v1 << 3) - ((n.v2 + n.d) << 1) + n.h2)
/* R at B sites, B at R sites */
#define RB_AT_BR(n) FINISH ((n.c0 << 3) + (n.c0 << 2) + (n.d << 2) - (n.h2 + n.v2) * 3)
#else
#define GREEN_AT_RB(n) ((n.h1 + n.v1 + 2) >> 2)
#define RB_AT_G_ROW(n) ((n.h1 + 1) >> 1)
#define RB_AT_G_COL(n) ((n.v1 + 1) >> 1)
#define RB_AT_BR(n) ((n.d + 2) >> 2)
#endif

typedef uint chan_t;

inline chan_t scale_one (acc_t v, int maxv, uint mul, int shift)
{
#if !IN_16 && OUT_SAMPLE == 1
  return (chan_t) v;
#else
  if (maxv == (int) OUT_MAX)
    return (uint) v;
  return mul_hi ((uint) v * OUT_MAX + (uint) (maxv >> 1), mul) >> (uint) (shift - 32);
#endif
}

/* Interior pixels: columns x0 + i for i < nx, row pairs starting at rows
 * y0 + 2 j for j < ny; x0 and y0 are the top left R of an RGGB cell. The
 * global size is a whole number of work-groups; the last group in each
 * dimension is moved back to end at nx (ny), redoing a few pixels of its
 * neighbour with the same values, so that no work-item needs a bounds check
 * (which would stop the vectorisation). Needs nx and ny at least the local
 * size. */
__kernel void debayer_cells (__global const uchar * in, int in_offset, int in_stride,
    __global uchar * out, int out_offset, int out_stride, int width, int height,
    int phase_x, int phase_y, int maxv, uint scale_mul, int scale_shift, int4 layout,
    int x0, int y0, int nx, int ny)
{
  const int lx = (int) get_local_size (0), ly = (int) get_local_size (1);
  const int i = min ((int) get_group_id (0) * lx, nx - lx) + (int) get_local_id (0);
  const int j = min ((int) get_group_id (1) * ly, ny - ly) + (int) get_local_id (1);
  const int x = x0 + i, y = y0 + 2 * j;

  __global const uchar *at = in + in_offset + y * in_stride;

  /* Row 0 is R G R G ..., row 1 G B G B ...; `odd` for the G and B columns. */
  const Neighbours n0 = NEIGHBOURS (0), n1 = NEIGHBOURS (1);
  const bool odd = (i & 1) != 0;
  const acc_t g_rb0 = GREEN_AT_RB (n0), rb_br0 = RB_AT_BR (n0);
  const acc_t rb_row0 = RB_AT_G_ROW (n0), rb_col0 = RB_AT_G_COL (n0);
  const acc_t g_rb1 = GREEN_AT_RB (n1), rb_br1 = RB_AT_BR (n1);
  const acc_t rb_row1 = RB_AT_G_ROW (n1), rb_col1 = RB_AT_G_COL (n1);

#define SC(v) scale_one ((v), maxv, scale_mul, scale_shift)
  __global uchar *d0 = out + out_offset + y * out_stride;
  put_pixel (d0, x, SC (odd ? rb_row0 : n0.c0), SC (odd ? n0.c0 : g_rb0),
      SC (odd ? rb_col0 : rb_br0), layout);
  put_pixel (d0 + out_stride, x, SC (odd ? rb_br1 : rb_col1), SC (odd ? g_rb1 : n1.c0),
      SC (odd ? n1.c0 : rb_row1), layout);
#undef SC
}

/* The blocks of the block grid (8 x 2 pixels from (8 bx - phase_x,
 * 2 by - phase_y), as debayer's) outside bx0 <= bx < bx1, by0 <= by < by1:
 * first the rows above by0, then those from by1, then the left and right
 * ends of the rows in between. */
__kernel void debayer_rim (__global const uchar * in, int in_offset, int in_stride,
    __global uchar * out, int out_offset, int out_stride, int width, int height,
    int phase_x, int phase_y, int maxv, uint scale_mul, int scale_shift, int4 layout,
    int bx0, int bx1, int by0, int by1)
{
  const int nbx = (width + phase_x + BLOCK_W - 1) / BLOCK_W;
  const int nby = (height + phase_y + 1) / 2;
  int bx, by;
  if (!rim_block ((int) get_global_id (0), nbx, nby, bx0, bx1, by0, by1, &bx, &by))
    return;
  debayer_block (in, in_offset, in_stride, out, out_offset, out_stride, width, height, maxv,
      scale_mul, scale_shift, layout, BLOCK_W * bx - phase_x, 2 * by - phase_y);
}
#endif
