/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cldebayer's camera variant on CPUs (the host picks it where the CPU
 * tuning is selected; debayer_camera's 8 x 2 blocks serve GPUs). The same
 * stages, formulas and float arithmetic as debayer_camera (stages.cl's
 * comment), after the camera stages' files and strips.cl (prelude.cl lists
 * them), built with -D CAMERA=1.
 *
 * The shape (that of menon_cpu.cl): a work-group is one work-item, which
 * computes a strip of 16 CC_CHUNKS output columns by `strip` rows, walking
 * down it a row pair at a time. At each row pair it loads the samples of
 * the two rows below the pair's window (black level and white balance
 * applied once a sample, in units of full scale) into a ring of CC_RING
 * rows in local memory, kept by column parity in chunks of 8 (16 columns),
 * with a chunk of padding on each side of the strip; then each output
 * chunk's 16 x 2 pixels are demosaiced from the ring as float8 per colour
 * site (the pattern is built in: each site evaluates only its two
 * filters; the neighbours 1 and 2 columns away are shuffles of aligned
 * chunks), and go through the matrix, the curve and the output without
 * being interleaved (Cb and Cr of the chunk's 2 x 2 blocks are the sums of
 * the two parities). For 8-bit Y'CbCr, two chunks at a time as float16 of
 * a parity (cc_pair: the demosaic too in 16 lanes, the same operations in
 * each lane). Explicit SIMD, no barriers, no vectorisation across
 * work-items needed (PoCL's does not happen on float code this size: its
 * own SLP vectors in the body stop it).
 *
 * Samples outside the image are mirrored (reflect-101) as they are loaded,
 * so the filters need no bounds. A chunk that ends past the image's right
 * edge, and the last row of an odd height, go through camera_output's
 * 8 x 2 blocks (partial stores, the last column and row repeated for the
 * chroma). The white-balance statistics are taken from the raw samples as
 * each row pair is loaded, over the strip's columns and rows.
 * debayer_camera_sensor_cpu (camera_sensor_cpu.cl) fills the same ring with
 * the sensor stages' corrected samples and shares cc_rows. */

#ifndef CC_CHUNKS
#define CC_CHUNKS 16              /* output chunks of 16 columns a strip (the host's) */
#endif
/* A ring row of one parity: the loaded chunks (a padding chunk each side
 * of the output's) from CC_OFF, so that output chunk k is at k + 2 and a
 * pair of output chunks from an even k is 64-byte aligned (CC_ROW even);
 * the pair path also reads the chunk before the left padding and after
 * the right one, unused lanes. */
#define CC_ROW (CC_CHUNKS + 4)
#define CC_OFF 1
#define CC_RING 8                 /* rows: the pair's 2 + 4 of the window + the 2 loaded */
#define CC_N (CC_RING * CC_ROW)
/* The start of image row y in the ring. */
#define CC_AT(y) (((y) & (CC_RING - 1)) * CC_ROW)
/* 8-bit Y'CbCr outputs: output chunks two at a time, as float16 of one
 * parity (32 columns) */
#if OUT_YUV && OUT_SAMPLE == 1 && !FAST_POW_OFF
#define CC_PAIRS 1
#endif

/* camera_gains' factors and caps by row and column parity (gain, maxv and
 * black: the kernel's arguments), written out: PoCL called camera_gains
 * with the arrays in memory, 10-15 % of the kernel's time (measured) */
#define CC_GAIN_CAP(g, cap, dy, p) \
  g[dy][p] = gain_of (SITE (dy, p), gain.lo); \
  cap[dy][p] = min (min ((float) (maxv - black) * g[dy][p], gain.s3), 1.0f);
#define CC_GAINS(g, cap) float g[2][2], cap[2][2]; \
  CC_GAIN_CAP (g, cap, 0, 0) CC_GAIN_CAP (g, cap, 0, 1) \
  CC_GAIN_CAP (g, cap, 1, 0) CC_GAIN_CAP (g, cap, 1, 1)

/* A strip's work-group (a kernel's opening, `strip` rows from its
 * argument): its first output column tx, rows ya .. yb - 1, the output
 * chunks and those loaded (one more each side), its statistics slot, the
 * input's first byte. */
#define CC_STRIP \
  const int tx = (int) get_group_id (0) * 16 * CC_CHUNKS; \
  const int ya = (int) get_group_id (1) * strip; \
  const int yb = min (ya + strip, height); \
  const int chunks = min (CC_CHUNKS, (width - tx + 15) / 16); \
  const int n = chunks + 2; \
  const int slot = (int) (get_group_id (1) * get_num_groups (0) + get_group_id (0)); \
  __global const uchar *src = in + in_offset;

/* Black level and white balance of 8 raw samples of one colour: debayer_camera's. */
inline float8 cc_stage12 (int8 raw, float base, float gain, float cap)
{
  return min (max ((as_float8 (raw | U2F_BITS) - base) * gain, 0.0f), cap);   /* cap <= 1 */
}

/* Loads rows y (even) and y + 1 into the ring (s[0] even, s[1] odd
 * columns), chunks 0 .. n - 1 from column tx - 16; with `count`, adds the
 * grey-world sums of their 2 x 2 cells in the output chunks (1 .. n - 2)
 * to sums (R, G, B, cells by lane). */
inline void cc_load_pair (__local float8 * s0, __local float8 * s1,
    __global const uchar * in, int in_stride, int width, int height, int maxv, int black,
    float8 gain, int tx, int y, int n, int count, int lo, int hi, int8 * sums)
{
  const float base = U2F_BASE + (float) black;
  CC_GAINS (g, cap);
  __global const in_t *row0 = (__global const in_t *) (in + (size_t) border_reflect101 (y,
          height) * in_stride);
  __global const in_t *row1 = (__global const in_t *) (in + (size_t) border_reflect101 (y + 1,
          height) * in_stride);
  const int b0 = CC_AT (y), b1 = CC_AT (y + 1);
  const int rows_in = y + 1 < height ? -1 : 0;
  for (int k = 0; k < n; k++) {
    const int x = tx - 16 + 16 * k;
    int8 e0, o0, e1, o1;
    if (x >= 0 && x + 16 <= width) {
      /* (int8 halves, not int16: Oclgrind 21.10 builds those wrong) */
      const int8 a0 = convert_int8 (vload8 (0, row0 + x)), c0 = convert_int8 (vload8 (1, row0 + x));
      const int8 a1 = convert_int8 (vload8 (0, row1 + x)), c1 = convert_int8 (vload8 (1, row1 + x));
      e0 = (int8) (a0.even, c0.even);
      o0 = (int8) (a0.odd, c0.odd);
      e1 = (int8) (a1.even, c1.even);
      o1 = (int8) (a1.odd, c1.odd);
    } else {
      int c[16];
      for (int j = 0; j < 16; j++)
        c[j] = border_reflect101 (x + j, width);
#define AT(r, j) (int) (r)[c[j]]
      e0 = (int8) (AT (row0, 0), AT (row0, 2), AT (row0, 4), AT (row0, 6), AT (row0, 8),
          AT (row0, 10), AT (row0, 12), AT (row0, 14));
      o0 = (int8) (AT (row0, 1), AT (row0, 3), AT (row0, 5), AT (row0, 7), AT (row0, 9),
          AT (row0, 11), AT (row0, 13), AT (row0, 15));
      e1 = (int8) (AT (row1, 0), AT (row1, 2), AT (row1, 4), AT (row1, 6), AT (row1, 8),
          AT (row1, 10), AT (row1, 12), AT (row1, 14));
      o1 = (int8) (AT (row1, 1), AT (row1, 3), AT (row1, 5), AT (row1, 7), AT (row1, 9),
          AT (row1, 11), AT (row1, 13), AT (row1, 15));
#undef AT
    }
    s0[b0 + CC_OFF + k] = cc_stage12 (e0, base, g[0][0], cap[0][0]);
    s1[b0 + CC_OFF + k] = cc_stage12 (o0, base, g[0][1], cap[0][1]);
    s0[b1 + CC_OFF + k] = cc_stage12 (e1, base, g[1][0], cap[1][0]);
    s1[b1 + CC_OFF + k] = cc_stage12 (o1, base, g[1][1], cap[1][1]);
    if (count && k >= 1 && k < n - 1) {
      /* the cells (2 i, 2 i + 1) x (y, y + 1) of the chunk: after black
       * level, samples clamped to maxv (cell_sums' rules) */
      const int8 s00 = max (min (e0, maxv) - black, 0), s01 = max (min (o0, maxv) - black, 0);
      const int8 s10 = max (min (e1, maxv) - black, 0), s11 = max (min (o1, maxv) - black, 0);
      const int8 top = max (max (s00, s01), max (s10, s11));
      const int8 col = (int8) (x + 1) + (int8) (0, 2, 4, 6, 8, 10, 12, 14);
      const int8 use = (top >= lo) & (top < hi) & (col < width) & (int8) (rows_in);
      int8 site[4] = { (int8) (0), (int8) (0), (int8) (0), (int8) (0) };
      site[SITE (0, 0)] = s00 & use;
      site[SITE (0, 1)] = s01 & use;
      site[SITE (1, 0)] = s10 & use;
      site[SITE (1, 1)] = s11 & use;
      sums[0] += site[0];
      sums[1] += site[1] + site[2];
      sums[2] += site[3];
      sums[3] -= use;
    }
  }
}

/* A pair of output chunks (k even) of one parity with the pairs left and
 * right of it (aligned loads), as Nb of 16 values. */
typedef struct {
  float16 l, c, r;
} Nb16;

inline Nb16 nb16 (__local const float8 * p, int base, int k)
{
  __local const float16 *q = (__local const float16 *) (p + base + CC_OFF + 1 + k);
  const Nb16 n = { q[-1], q[0], q[1] };
  return n;
}

#define M1_16(n) ((float16) ((n).l.sf, (n).c.s0, (n).c.s1, (n).c.s2, (n).c.s3, (n).c.s4, \
    (n).c.s5, (n).c.s6, (n).c.s7, (n).c.s8, (n).c.s9, (n).c.sa, (n).c.sb, (n).c.sc, (n).c.sd, \
    (n).c.se))
#define P1_16(n) ((float16) ((n).c.s1, (n).c.s2, (n).c.s3, (n).c.s4, (n).c.s5, (n).c.s6, \
    (n).c.s7, (n).c.s8, (n).c.s9, (n).c.sa, (n).c.sb, (n).c.sc, (n).c.sd, (n).c.se, (n).c.sf, \
    (n).r.s0))
#define CC_LEFT8(n, p) left_of ((n), (p))
#define CC_RIGHT8(n, p) right_of ((n), (p))
#define CC_LEFT16(n, p) ((p) ? (n).c : M1_16 (n))
#define CC_RIGHT16(n, p) ((p) ? P1_16 (n) : (n).c)
/* the value of parity ring row b at output chunk k (16: the pair from k) */
#define CC_AT8(sp, b, k) (sp)[(b) + CC_OFF + 1 + (k)]
#define CC_AT16(sp, b, k) (*(__local const float16 *) ((sp) + (b) + CC_OFF + 1 + (k)))
#define CC_NB8(sp, b, k) nb ((sp), (b) + CC_OFF, (k))
#define CC_NB16(sp, b, k) nb16 ((sp), (b), (k))

/* Malvar (or bilinear) at the pixels of parity p of ring row y, chunk k
 * (or the pair from k), whose colour is `site` (0 R, 1 G of an R row, 2 G
 * of a B row, 3 B): their R, G and B in [0, 1]. p and site are constants
 * once inlined. */
#define CC_DEMOSAIC(name, T, NB, W) \
inline __attribute__ ((always_inline)) void name (__local const float8 * s0, \
    __local const float8 * s1, int y, int k, int p, int site, T * r, T * g, T * b) \
{ \
  __local const float8 *sp = p ? s1 : s0, *sq = p ? s0 : s1; \
  const int b0 = CC_AT (y), bu = CC_AT (y - 1), bd = CC_AT (y + 1); \
  const NB own = CC_NB##W (sp, b0, k), other = CC_NB##W (sq, b0, k); \
  const NB up = CC_NB##W (sq, bu, k), down = CC_NB##W (sq, bd, k); \
  const T c = own.c; \
  /* the neighbours at 1 and 2 columns (h1, h2), rows (v1, v2), diagonal (d) */ \
  const T h1 = CC_LEFT##W (other, p) + CC_RIGHT##W (other, p); \
  const T v1 = CC_AT##W (sp, bu, k) + CC_AT##W (sp, bd, k); \
  const T d = CC_LEFT##W (up, p) + CC_RIGHT##W (up, p) + CC_LEFT##W (down, p) + \
      CC_RIGHT##W (down, p); \
  CC_FILTERS (T, W) \
  SITE_RGB (site, r, g, b, c, CC_G_AT_RB, CC_AT_BR, CC_AT_G_ROW, CC_AT_G_COL) \
}
#if METHOD == 0
#define CC_FILTERS(T, W) \
  const T h2 = CC_LEFT##W (own, 0) + CC_RIGHT##W (own, 1); \
  const T v2 = CC_AT##W (sp, CC_AT (y - 2), k) + CC_AT##W (sp, CC_AT (y + 2), k);
/* the paper's coefficients / 8 (filters.cl's x 16 / 16), clamped */
#define CC_G_AT_RB clamp (0.5f * c + 0.25f * (h1 + v1) - 0.125f * (h2 + v2), 0.0f, 1.0f)
#define CC_AT_G_ROW clamp (0.625f * c + 0.5f * h1 - 0.125f * (h2 + d) + 0.0625f * v2, \
    0.0f, 1.0f)
#define CC_AT_G_COL clamp (0.625f * c + 0.5f * v1 - 0.125f * (v2 + d) + 0.0625f * h2, \
    0.0f, 1.0f)
#define CC_AT_BR clamp (0.75f * c + 0.25f * d - 0.1875f * (h2 + v2), 0.0f, 1.0f)
#else
#define CC_FILTERS(T, W)
#define CC_G_AT_RB (0.25f * (h1 + v1))
#define CC_AT_G_ROW (0.5f * h1)
#define CC_AT_G_COL (0.5f * v1)
#define CC_AT_BR (0.25f * d)
#endif
CC_DEMOSAIC (cc_demosaic, float8, Nb, 8)
#if CC_PAIRS
CC_DEMOSAIC (cc_demosaic16, float16, Nb16, 16)
#endif
#undef CC_FILTERS
#undef CC_G_AT_RB
#undef CC_AT_G_ROW
#undef CC_AT_G_COL
#undef CC_AT_BR

#if OUT_SAMPLE == 1 && !FAST_POW_OFF
/* Stages 4 and 5 (matrix, clip, curve) of a row's 16 pixels as float16
 * (the even columns, then the odd ones), the three channels' curves
 * interleaved (long chains of dependent operations: six at a time); for
 * Y'CbCr the curve's offset left in (it goes into the Y' code). */
inline __attribute__ ((always_inline)) void cc_stages16 (float16 * r2, float16 * g2,
    float16 * b2, float16 mat, float16 tf, Curve3 cv)
{
  /* cv.floor: 0 or below an 8-bit output's half step (curve3_setup); the
   * lower bound as a compare and select, which compiles to one max (max
   * and clamp with a bound not known at build time add a test for NaN) */
#define CC_CLAMP(v) min (select ((float16) (cv.floor), (v), (v) > cv.floor), 1.0f)
  const float16 r = *r2, g = *g2, b = *b2;
  *r2 = CC_CLAMP (mat.s0 * r + mat.s1 * g + mat.s2 * b);
  *g2 = CC_CLAMP (mat.s3 * r + mat.s4 * g + mat.s5 * b);
  *b2 = CC_CLAMP (mat.s6 * r + mat.s7 * g + mat.s8 * b);
#undef CC_CLAMP
#if OUT_YUV
  transfer_curve3_16_plus_b (r2, g2, b2, tf, cv);
#else
  transfer_curve3_16 (r2, g2, b2, tf, cv);
#endif
}
#endif

/* The same on a row's pixels by column parity (e: the even columns, o:
 * the odd ones), in place. */
inline __attribute__ ((always_inline)) void cc_stages (float8 * re, float8 * ge, float8 * be,
    float8 * ro, float8 * go, float8 * bo, float16 mat, float16 tf, Curve3 cv)
{
#if OUT_SAMPLE == 1 && !FAST_POW_OFF
  float16 r2 = (float16) (*re, *ro), g2 = (float16) (*ge, *go), b2 = (float16) (*be, *bo);
  cc_stages16 (&r2, &g2, &b2, mat, tf, cv);
  *re = r2.lo;
  *ro = r2.hi;
  *ge = g2.lo;
  *go = g2.hi;
  *be = b2.lo;
  *bo = b2.hi;
#else
  float8 *rs[2] = { re, ro }, *gs[2] = { ge, go }, *bs[2] = { be, bo };
#pragma unroll
  for (int p = 0; p < 2; p++) {
    const float8 r = *rs[p], g = *gs[p], b = *bs[p];
    *rs[p] = transfer_curve (clamp (mat.s0 * r + mat.s1 * g + mat.s2 * b, 0.0f, 1.0f), tf);
    *gs[p] = transfer_curve (clamp (mat.s3 * r + mat.s4 * g + mat.s5 * b, 0.0f, 1.0f), tf);
    *bs[p] = transfer_curve (clamp (mat.s6 * r + mat.s7 * g + mat.s8 * b, 0.0f, 1.0f), tf);
  }
#endif
}

#define CC_LO8(e, o) ((float8) ((e).s0, (o).s0, (e).s1, (o).s1, (e).s2, (o).s2, (e).s3, (o).s3))
#define CC_HI8(e, o) ((float8) ((e).s4, (o).s4, (e).s5, (o).s5, (e).s6, (o).s6, (e).s7, (o).s7))
/* Stores of 16 and 8 bytes: as 32-bit words where the rows allow it
 * (ALIGNED: the host checks), which PoCL makes one vector store; vstore16
 * and vstore8 of bytes come out as single bytes. */
#if ALIGNED
#define CC_STORE16(v, p) vstore4 (as_uint4 (v), 0, (__global uint *) (p))
#define CC_STORE8(v, p) vstore2 (as_uint2 (v), 0, (__global uint *) (p))
#else
#define CC_STORE16(v, p) vstore16 ((v), 0, (p))
#define CC_STORE8(v, p) vstore8 ((v), 0, (p))
#endif
#define CC_BYTES16(e, o) ((uchar16) ((e).s0, (o).s0, (e).s1, (o).s1, (e).s2, (o).s2, (e).s3, \
    (o).s3, (e).s4, (o).s4, (e).s5, (o).s5, (e).s6, (o).s6, (e).s7, (o).s7))
#if OUT_YUV && OUT_SAMPLE == 1 && !FAST_POW_OFF
/* The Y' code's factors where the curve's values are R', G', B' plus tf.s2
 * (luma: plus tf.s2 as well), and 16 codes' bytes (round_code8's low
 * bytes). */
#define CC_YCODE(yuv, tf) ((float8) ((yuv).s0, (yuv).s1, (yuv).s2 - (yuv).s3 * (tf).s2, \
    (yuv).s3, (yuv).s4, 0, 0, 0))
#define CC_CODE_BYTES16(v) convert_uchar16 (as_uint16 ((v) + U2F_BASE))
#endif

/* Output chunk k of rows y and y + 1 (y even) from the ring, columns
 * from tx + 16 k (cv: curve3_setup (tf)). */
inline __attribute__ ((always_inline)) void cc_chunk (CAMERA_ARGS, __local const float8 * s0,
    __local const float8 * s1, int tx, int y, int k, Curve3 cv)
{
  const bool both = y + 1 < height;
  const int x0 = tx + 16 * k;
  float8 r[2][2], g[2][2], b[2][2];   /* by row and column parity */
#pragma unroll
  for (int dy = 0; dy < 2; dy++)
#pragma unroll
    for (int p = 0; p < 2; p++)
      cc_demosaic (s0, s1, y + dy, k, p, SITE (dy, p), &r[dy][p], &g[dy][p], &b[dy][p]);
  if (!both || x0 + 16 > width) {
    /* the image's edge: camera_output's 8 x 2 blocks */
#pragma unroll
    for (int part = 0; part < 2; part++) {
      if (x0 + 8 * part >= width)
        break;
      float8 red[2], green[2], blue[2];
#pragma unroll
      for (int dy = 0; dy < 2; dy++) {
        red[dy] = part ? CC_HI8 (r[dy][0], r[dy][1]) : CC_LO8 (r[dy][0], r[dy][1]);
        green[dy] = part ? CC_HI8 (g[dy][0], g[dy][1]) : CC_LO8 (g[dy][0], g[dy][1]);
        blue[dy] = part ? CC_HI8 (b[dy][0], b[dy][1]) : CC_LO8 (b[dy][0], b[dy][1]);
      }
      camera_output (CAMERA_PASS, x0 + 8 * part, y, red, green, blue);
    }
    return;
  }
#if OUT_YUV && OUT_SAMPLE == 1 && !FAST_POW_OFF
  /* the stages and Y' as float16 a row, even columns then odd */
  const float8 ycode = CC_YCODE (yuv, tf);
  float16 r2[2], g2[2], b2[2], l[2];
#pragma unroll
  for (int dy = 0; dy < 2; dy++) {
    r2[dy] = (float16) (r[dy][0], r[dy][1]);
    g2[dy] = (float16) (g[dy][0], g[dy][1]);
    b2[dy] = (float16) (b[dy][0], b[dy][1]);
    cc_stages16 (&r2[dy], &g2[dy], &b2[dy], mat, tf, cv);
    l[dy] = YCBCR_LUMA (yuv, r2[dy], g2[dy], b2[dy]);
    /* the codes' low bytes (round_code8's), even columns then odd,
     * interleaved */
    const uchar16 c = CC_CODE_BYTES16 (YCBCR_Y_CODE (ycode, l[dy]));
    CC_STORE16 (CC_BYTES16 (c.lo, c.hi), out + out_offset + (size_t) (y + dy) * out_stride +
        x0);
  }
  /* Cb and Cr of the 8 2 x 2 blocks: sums of both rows and parities */
  const float8 rs = r2[0].lo + r2[0].hi + r2[1].lo + r2[1].hi;
  const float8 bs = b2[0].lo + b2[0].hi + b2[1].lo + b2[1].hi;
  const float8 ls = l[0].lo + l[0].hi + l[1].lo + l[1].hi;
#else
#pragma unroll
  for (int dy = 0; dy < 2; dy++)
    cc_stages (&r[dy][0], &g[dy][0], &b[dy][0], &r[dy][1], &g[dy][1], &b[dy][1], mat, tf,
        cv);
#if OUT_YUV
  const float8 ycode = yuv;
  float8 l[2][2];
#pragma unroll
  for (int dy = 0; dy < 2; dy++) {
#pragma unroll
    for (int p = 0; p < 2; p++)
      l[dy][p] = YCBCR_LUMA (yuv, r[dy][p], g[dy][p], b[dy][p]);
    const uchar8 ye = convert_uchar8 (round_code8 (YCBCR_Y_CODE (ycode, l[dy][0])));
    const uchar8 yo = convert_uchar8 (round_code8 (YCBCR_Y_CODE (ycode, l[dy][1])));
    CC_STORE16 (CC_BYTES16 (ye, yo), out + out_offset + (size_t) (y + dy) * out_stride + x0);
  }
  /* Cb and Cr of the 8 2 x 2 blocks: sums of both rows and parities */
  const float8 rs = r[0][0] + r[0][1] + r[1][0] + r[1][1];
  const float8 bs = b[0][0] + b[0][1] + b[1][0] + b[1][1];
  const float8 ls = l[0][0] + l[0][1] + l[1][0] + l[1][1];
#endif
#endif
#if OUT_YUV
  const uchar8 u = convert_uchar8 (round_code8 (min (YCBCR_C_CODE (yuv,
              YCBCR_CB (yuv, bs, ls) * 0.25f), 255.0f)));
  const uchar8 v = convert_uchar8 (round_code8 (min (YCBCR_C_CODE (yuv,
              YCBCR_CR (yuv, rs, ls) * 0.25f), 255.0f)));
#if OUT_YUV == 1
  CC_STORE16 (CC_BYTES16 (u, v), out + chroma.s0 + (size_t) (y / 2) * chroma.s1 + x0);
#else
  CC_STORE8 (u, out + chroma.s0 + (size_t) (y / 2) * chroma.s1 + x0 / 2);
  CC_STORE8 (v, out + chroma.s2 + (size_t) (y / 2) * chroma.s3 + x0 / 2);
#endif
#else
#pragma unroll
  for (int dy = 0; dy < 2; dy++) {
    __global out_t *row = (__global out_t *) (out + out_offset + (size_t) (y + dy) *
        out_stride);
#define CC_CODE(v) (round_code8 ((v) * OUT_MAX) & OUT_MAX)
    store_row (row, x0, 0, BLOCK_W, CC_CODE (CC_LO8 (r[dy][0], r[dy][1])),
        CC_CODE (CC_LO8 (g[dy][0], g[dy][1])), CC_CODE (CC_LO8 (b[dy][0], b[dy][1])),
        layout);
    store_row (row, x0 + 8, 0, BLOCK_W, CC_CODE (CC_HI8 (r[dy][0], r[dy][1])),
        CC_CODE (CC_HI8 (g[dy][0], g[dy][1])), CC_CODE (CC_HI8 (b[dy][0], b[dy][1])),
        layout);
#undef CC_CODE
  }
#endif
}

#if CC_PAIRS
/* Output chunks k and k + 1 (k even) of rows y and y + 1 (both in the
 * image) from the ring, columns x0 .. x0 + 31, as float16 of one parity:
 * the same operations in each lane as cc_chunk. */
inline __attribute__ ((always_inline)) void cc_pair (CAMERA_ARGS, __local const float8 * s0,
    __local const float8 * s1, int x0, int y, int k, Curve3 cv)
{
  float16 r[2][2], g[2][2], b[2][2], l[2][2];   /* by row and column parity */
  const float8 ycode = CC_YCODE (yuv, tf);
#pragma unroll
  for (int dy = 0; dy < 2; dy++) {
#pragma unroll
    for (int p = 0; p < 2; p++) {
      cc_demosaic16 (s0, s1, y + dy, k, p, SITE (dy, p), &r[dy][p], &g[dy][p], &b[dy][p]);
      cc_stages16 (&r[dy][p], &g[dy][p], &b[dy][p], mat, tf, cv);
      l[dy][p] = YCBCR_LUMA (yuv, r[dy][p], g[dy][p], b[dy][p]);
    }
    /* the codes' low bytes (round_code8's), interleaved by parity */
    const uchar16 ye = CC_CODE_BYTES16 (YCBCR_Y_CODE (ycode, l[dy][0]));
    const uchar16 yo = CC_CODE_BYTES16 (YCBCR_Y_CODE (ycode, l[dy][1]));
    __global uchar *row = out + out_offset + (size_t) (y + dy) * out_stride + x0;
    CC_STORE16 (CC_BYTES16 (ye.lo, yo.lo), row);
    CC_STORE16 (CC_BYTES16 (ye.hi, yo.hi), row + 16);
  }
  /* Cb and Cr of the 16 2 x 2 blocks: sums of both rows and parities */
  const float16 rs = r[0][0] + r[0][1] + r[1][0] + r[1][1];
  const float16 bs = b[0][0] + b[0][1] + b[1][0] + b[1][1];
  const float16 ls = l[0][0] + l[0][1] + l[1][0] + l[1][1];
  const uchar16 u = CC_CODE_BYTES16 (min (YCBCR_C_CODE (yuv, YCBCR_CB (yuv, bs, ls) * 0.25f),
          255.0f));
  const uchar16 v = CC_CODE_BYTES16 (min (YCBCR_C_CODE (yuv, YCBCR_CR (yuv, rs, ls) * 0.25f),
          255.0f));
#if OUT_YUV == 1
  __global uchar *c = out + chroma.s0 + (size_t) (y / 2) * chroma.s1 + x0;
  CC_STORE16 (CC_BYTES16 (u.lo, v.lo), c);
  CC_STORE16 (CC_BYTES16 (u.hi, v.hi), c + 16);
#else
  CC_STORE16 (u, out + chroma.s0 + (size_t) (y / 2) * chroma.s1 + x0 / 2);
  CC_STORE16 (v, out + chroma.s2 + (size_t) (y / 2) * chroma.s3 + x0 / 2);
#endif
}
#endif

/* Output rows y and y + 1 (y even) from the ring: chunks 0 .. chunks - 1
 * from column tx (cv: curve3_setup (tf)); for 8-bit Y'CbCr two at a time
 * where both are in the image. */
inline __attribute__ ((always_inline)) void cc_rows (CAMERA_ARGS, __local const float8 * s0,
    __local const float8 * s1, int tx, int y, int chunks, Curve3 cv)
{
#if CC_PAIRS
  for (int k = 0; k < chunks; k += 2) {
    if (y + 1 < height && k + 1 < chunks && tx + 16 * k + 32 <= width) {
      cc_pair (CAMERA_PASS, s0, s1, tx + 16 * k, y, k, cv);
      continue;
    }
    for (int j = k; j < min (k + 2, chunks); j++)
      cc_chunk (CAMERA_PASS, s0, s1, tx, y, j, cv);
  }
#else
  for (int k = 0; k < chunks; k++)
    cc_chunk (CAMERA_PASS, s0, s1, tx, y, k, cv);
#endif
}

/* Output rows y .. y + strip - 1 (y even) of group (x, y): columns from
 * 16 CC_CHUNKS x. */
__kernel __attribute__ ((reqd_work_group_size (1, 1, 1)))
void debayer_camera_cpu (CAMERA_ARGS, int strip)
{
  /* the ring, 64-byte aligned for cc_pair's float16 */
  __local float16 s0_16[CC_N / 2], s1_16[CC_N / 2];
  __local float8 *s0 = (__local float8 *) s0_16, *s1 = (__local float8 *) s1_16;
  CC_STRIP
  int8 sums[4] = { (int8) (0), (int8) (0), (int8) (0), (int8) (0) };
  const Curve3 cv = curve3_setup (tf);

  cc_load_pair (s0, s1, src, in_stride, width, height, maxv, black, gain, tx, ya - 2, n, 0, lo,
      hi, sums);
  cc_load_pair (s0, s1, src, in_stride, width, height, maxv, black, gain, tx, ya, n, stats, lo,
      hi, sums);
  for (int y = ya; y < yb; y += 2) {
    cc_load_pair (s0, s1, src, in_stride, width, height, maxv, black, gain, tx, y + 2, n,
        stats && y + 2 < yb, lo, hi, sums);
    cc_rows (CAMERA_PASS, s0, s1, tx, y, chunks, cv);
    /* the sums to the counters every 16 row pairs and at the end (of more
     * rows 16-bit samples could pass 2^31 in a lane) */
    if (stats && (((y - ya) / 2) % 16 == 15 || y + 2 >= yb))
      flush_lane_stats (totals, slot, sums);
  }
}
