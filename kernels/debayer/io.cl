/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Loads of the 12 x 6 window and stores of pixels: the output scaling, the
 * block row stores and single pixels, shared by every kernel. */
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
