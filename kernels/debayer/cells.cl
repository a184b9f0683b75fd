/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The exact demosaic on CPUs: debayer_cells and debayer_edge, or
 * debayer_cells16 (after io.cl). */

/* Column x and row pair `by` of the i-th place outside the interior
 * xa <= x < xb, by0 <= by < by1 of `columns` columns and nby row pairs:
 * first the row pairs above by0, then those from by1, then the left and
 * right ends of the row pairs in between. False past the last. */
inline bool edge_place (int i, int columns, int nby, int xa, int xb, int by0, int by1, int *x,
    int *by)
{
  const int top = by0 * columns, bottom = (nby - by1) * columns;
  const int side = xa + columns - xb;
  if (i < top) {
    *x = i % columns;
    *by = i / columns;
  } else if (i < top + bottom) {
    i -= top;
    *x = i % columns;
    *by = by1 + i / columns;
  } else {
    i -= top + bottom;
    if (side == 0 || i >= side * (by1 - by0))
      return false;
    *by = by0 + i / side;
    *x = i % side;
    if (*x >= xa)
      *x += xb - xa;
  }
  return true;
}

/* The CPU variants. PoCL vectorises a work-group across its
 * work-items in dimension 0, so in debayer_cells each work-item computes
 * one pixel column of a pair of rows (an R G row and a G B row) with
 * straight-line code: no loops, no branches, no gathers. Neighbouring
 * work-items read neighbouring samples at the same offsets and write
 * neighbouring pixels, and the compiler turns the group into SIMD loads,
 * arithmetic and stores. Each work-item evaluates every filter its pixels
 * might need and selects by the column's parity (so that memory is
 * accessed at unit stride: 2 x 2 cells per work-item would read and write
 * at a stride of two). debayer_cells covers the interior, where the 5 x 5
 * windows lie inside the image; debayer_edge computes the remaining
 * columns of each row pair (top and bottom row pairs, 2 or 3 columns at
 * the left and right ends) one a work-item, from samples mirrored about
 * the edges (reflect-101) with the same filters. */

/* 32-bit lanes: written with shorts, the compiler widens the arithmetic
 * to int all the same (tried). */
typedef int acc_t;

/* The sample dy rows and dx columns from the pixel computed, `at` being
 * the pixel's row. (No arrays of row pointers: PoCL keeps private arrays in
 * memory per work-item, which stops the vectorisation.) */
#define SAMPLE(dy, dx) ((__global const in_t *) (at + (dy) * in_stride))[x + (dx)]
#if IN_16
#define LANE(s) ((acc_t) min ((int) (s), maxv))
#else
#define LANE(s) ((acc_t) (s))
#endif
#define P(dy, dx) LANE (SAMPLE (dy, dx))

/* The filters at the pixel of window row `c` (0 or 1), as sums of its
 * neighbours (P (dy, dx): the sample dy rows and dx columns away): c0 the
 * centre; h1, v1 the horizontal and vertical neighbours at distance 1; h2,
 * v2 at distance 2; d the four diagonal ones. */
typedef struct {
  acc_t c0, h1, v1, h2, v2, d;
} Neighbours;

#define NEIGHBOURS(P, c) { P (c, 0), P (c, -1) + P (c, 1), P ((c) - 1, 0) + P ((c) + 1, 0), \
    P (c, -2) + P (c, 2), P ((c) - 2, 0) + P ((c) + 2, 0), \
    P ((c) - 1, -1) + P ((c) - 1, 1) + P ((c) + 1, -1) + P ((c) + 1, 1) }

#if METHOD == 0
/* (CLAMP_OUT: clamp to [0, maxv], K (n): the constant n, both in the
 * lanes' type, each kernel's own) */
#define FINISH(sum) CLAMP_OUT (((sum) + K (8)) >> 4)
/* G at R or B sites (the multiplications written as shifts: vector
 * multiplies of 32-bit lanes are slow on x86) */
#define GREEN_AT_RB(n) FINISH ((((n.c0 << 2) + ((n.h1 + n.v1) << 1) - (n.h2 + n.v2)) << 1))
/* R or B at G sites whose row, or whose column, holds that colour */
#define RB_AT_G_ROW(n) FINISH ((n.c0 << 3) + (n.c0 << 1) + (n.h1 << 3) - ((n.h2 + n.d) << 1) + n.v2)
#define RB_AT_G_COL(n) FINISH ((n.c0 << 3) + (n.c0 << 1) + (n.v1 << 3) - ((n.v2 + n.d) << 1) + n.h2)
/* R at B sites, B at R sites */
#define RB_AT_BR(n) FINISH ((n.c0 << 3) + (n.c0 << 2) + (n.d << 2) - (n.h2 + n.v2) * K (3))
#else
#define GREEN_AT_RB(n) ((n.h1 + n.v1 + K (2)) >> 2)
#define RB_AT_G_ROW(n) ((n.h1 + K (1)) >> 1)
#define RB_AT_G_COL(n) ((n.v1 + K (1)) >> 1)
#define RB_AT_BR(n) ((n.d + K (2)) >> 2)
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

/* The pixel at column x of row 0 (R G R G ...) or row 1 (G B G B ...) of
 * a row pair, from samples P (dy, dx), written to the output row `dst`
 * through PUT (dst, x, r, g, b, layout); ODD (a, b) picks a in the G and B
 * columns, else b; SC scales a channel. */
#define CELLS_ROW0(N_T, P, PUT, dst) { \
    const N_T n = NEIGHBOURS (P, 0); \
    PUT ((dst), x, SC (ODD (RB_AT_G_ROW (n), n.c0)), SC (ODD (n.c0, GREEN_AT_RB (n))), \
        SC (ODD (RB_AT_G_COL (n), RB_AT_BR (n))), layout); }
#define CELLS_ROW1(N_T, P, PUT, dst) { \
    const N_T n = NEIGHBOURS (P, 1); \
    PUT ((dst), x, SC (ODD (RB_AT_BR (n), RB_AT_G_COL (n))), SC (ODD (GREEN_AT_RB (n), n.c0)), \
        SC (ODD (n.c0, RB_AT_G_ROW (n))), layout); }

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

  const bool odd = (i & 1) != 0;
#define CLAMP_OUT(v) clamp ((v), 0, maxv)
#define K(n) (n)
#define SC(v) scale_one ((v), maxv, scale_mul, scale_shift)
#define ODD(a, b) (odd ? (a) : (b))
  __global uchar *dst = out + out_offset + y * out_stride;
  CELLS_ROW0 (Neighbours, P, put_pixel, dst);
  CELLS_ROW1 (Neighbours, P, put_pixel, dst + out_stride);
#undef ODD
#undef SC
#undef K
#undef CLAMP_OUT
}

/* Columns xs .. xe - 1 of the row pair from row y (its rows outside the
 * image not written): the same filters as debayer_cells on samples
 * mirrored about the edges (reflect-101). */
inline void edge_columns (__global const uchar * in, int in_offset, int in_stride,
    __global uchar * out, int out_offset, int out_stride, int width, int height, int phase_x,
    int maxv, uint scale_mul, int scale_shift, int4 layout, int xs, int xe, int y)
{
  __global const in_t *rows[6];
  for (int r = 0; r < 6; r++)
    rows[r] = (__global const in_t *) (in + in_offset +
        border_reflect101 (y - 2 + r, height) * in_stride);
#define EDGE_P(dy, dx) LANE (rows[2 + (dy)][cols[2 + (dx)]])
#define CLAMP_OUT(v) clamp ((v), 0, maxv)
#define K(n) (n)
#define SC(v) scale_one ((v), maxv, scale_mul, scale_shift)
#define ODD(a, b) (odd ? (a) : (b))
  __global uchar *dst = out + out_offset + y * out_stride;
  for (int x = xs; x < xe; x++) {
    int cols[5];
    for (int c = 0; c < 5; c++)
      cols[c] = border_reflect101 (x - 2 + c, width);
    const bool odd = ((x + phase_x) & 1) != 0;
    if (y >= 0)
      CELLS_ROW0 (Neighbours, EDGE_P, put_pixel, dst);
    if (y + 1 < height)
      CELLS_ROW1 (Neighbours, EDGE_P, put_pixel, dst + out_stride);
  }
#undef ODD
#undef SC
#undef K
#undef CLAMP_OUT
#undef EDGE_P
}

#if !IN_16 && OUT_SAMPLE == 1 && OUT_CH == 4
/* debayer_cells16: 8-bit samples into 4 channels of 8 bits (the common
 * case, bayer2rgb's), CELLS16_W columns of a row pair a work-item as
 * vectors of 16 in short16 lanes, written as explicit SIMD (a loop over the
 * vectors shares the row pair's setup; no vectorisation across
 * work-items is needed, and none happens): every sum of the filters fits
 * in 16 bits (Malvar's lie in -3060 .. 7140), so a 256-bit register holds
 * twice the pixels of debayer_cells's 32-bit lanes, and the loads need no
 * widening past 16 bits. The same filters as debayer_cells, over columns
 * x0 .. x0 + nx - 1 (nx at least 16; the last vector of a row pair is
 * moved back to end there) of every row pair, the rows above and below the
 * image mirrored, and the columns at the ends through edge_columns. */
#ifndef CELLS16_W
#define CELLS16_W 64   /* columns a work-item: 4 vectors (the host's) */
#endif

typedef struct {
  short16 c0, h1, v1, h2, v2, d;
} Neighbours16;

/* 16 samples at any address, in one unaligned load (PoCL's vload16 of
 * bytes is four 32-bit loads and three shuffles) */
typedef uchar16 uchar16_u __attribute__ ((aligned (1)));

/* The 16 pixels at column x of the output row `dst`. The channels are
 * bytes in 16-bit lanes: the pixels' two halves (the bytes at positions 0,
 * 1 and 2, 3) are put together in those lanes, then made words (the
 * layouts of 8-bit 4-channel formats: R, G, B in order or reversed, alpha
 * first or last). */
inline void put_pixels16 (__global uchar * dst, int x, short16 r, short16 g, short16 b, int4 l)
{
  const short16 first = l.s0 < l.s2 ? r : b, last = l.s0 < l.s2 ? b : r;
  short16 lo, hi;
  if (l.s3 == 3) {
    lo = first | (g << 8);
    hi = last | (short16) ((short) 0xff00);
  } else {
    lo = (short16) 0xff | (first << 8);
    hi = g | (last << 8);
  }
  /* (zero extensions and a shift, not shuffle2: PoCL's is lane by lane;
   * in halves: 512-bit vectors through PoCL's builtins change their ABI
   * without AVX-512, which its compiler warns of) */
  const ushort16 ulo = as_ushort16 (lo), uhi = as_ushort16 (hi);
  __global uint *p = (__global uint *) dst + x;
  vstore8 (convert_uint8 (ulo.lo) | (convert_uint8 (uhi.lo) << 16), 0, p);
  vstore8 (convert_uint8 (ulo.hi) | (convert_uint8 (uhi.hi) << 16), 1, p);
}

__kernel void debayer_cells16 (__global const uchar * in, int in_offset, int in_stride,
    __global uchar * out, int out_offset, int out_stride, int width, int height,
    int phase_x, int phase_y, int maxv, uint scale_mul, int scale_shift, int4 layout,
    int x0, int nx)
{
  const int i = (int) get_global_id (0), by = (int) get_global_id (1);
  const int y = 2 * by - phase_y;
  const int xa = CELLS16_W * i;   /* the work-item's first column - x0 */
  if (xa >= nx || y >= height)
    return;
  /* the first and the last work-item of the row pair: the columns at its
   * ends too (one launch a frame, not two: each wakes PoCL's threads) */
  if (i == 0)
    edge_columns (in, in_offset, in_stride, out, out_offset, out_stride, width, height,
        phase_x, maxv, scale_mul, scale_shift, layout, 0, x0, y);
  if (xa + CELLS16_W >= nx)
    edge_columns (in, in_offset, in_stride, out, out_offset, out_stride, width, height,
        phase_x, maxv, scale_mul, scale_shift, layout, x0 + nx, width, y);
  /* rows y - 2 .. y + 3, mirrored (named, not an array: PoCL keeps private
   * arrays in memory, one per work-item of the group) */
  __global const uchar *base = in + in_offset;
  const bool inside = y >= 2 && y + 3 < height;
#define ROW_AT(dy) (base + (inside ? y + (dy) : border_reflect101 (y + (dy), height)) * in_stride)
  __global const uchar *const r_2 = ROW_AT (-2), *const r_1 = ROW_AT (-1), *const r0 = ROW_AT (0),
      *const r1 = ROW_AT (1), *const r2 = ROW_AT (2), *const r3 = ROW_AT (3);
#undef ROW_AT
#define ROW(dy) ((dy) == -2 ? r_2 : (dy) == -1 ? r_1 : (dy) == 0 ? r0 : (dy) == 1 ? r1 : \
    (dy) == 2 ? r2 : r3)
  /* the G and B columns: the odd lanes */
  const short16 odd = (short16) (0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1);
#define P16(dy, dx) convert_short16 (*(__global const uchar16_u *) (ROW (dy) + x + (dx)))
#define CLAMP_OUT(v) clamp ((v), (short16) 0, (short16) 255)
#define K(n) ((short) (n))
#define SC(v) (v)
#define ODD(a, b) select ((b), (a), odd)
  __global uchar *dst = out + out_offset + y * out_stride;
  const bool row0 = y >= 0, row1 = y + 1 < height;
  for (int k = 0; k < CELLS16_W; k += 16) {
    const int x = x0 + min (xa + k, nx - 16);
    if (row0)
      CELLS_ROW0 (Neighbours16, P16, put_pixels16, dst);
    if (row1)
      CELLS_ROW1 (Neighbours16, P16, put_pixels16, dst + out_stride);
    if (xa + k + 16 >= nx)
      break;
  }
#undef ODD
#undef SC
#undef K
#undef CLAMP_OUT
#undef P16
#undef ROW
}
#endif

/* The columns of each row pair outside the interior xa <= x < xb,
 * by0 <= by < by1 (row pair by: rows 2 by - phase_y and the next; any
 * part of it, or all, may be empty), one a work-item, in edge_place's
 * order. */
__kernel void debayer_edge (__global const uchar * in, int in_offset, int in_stride,
    __global uchar * out, int out_offset, int out_stride, int width, int height,
    int phase_x, int phase_y, int maxv, uint scale_mul, int scale_shift, int4 layout,
    int xa, int xb, int by0, int by1)
{
  const int nby = (height + phase_y + 1) / 2;
  int x, by;
  if (edge_place ((int) get_global_id (0), width, nby, xa, xb, by0, by1, &x, &by))
    edge_columns (in, in_offset, in_stride, out, out_offset, out_stride, width, height,
        phase_x, maxv, scale_mul, scale_shift, layout, x, x + 1, 2 * by - phase_y);
}
