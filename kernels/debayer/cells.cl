/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The exact demosaic on CPUs: debayer_cells and debayer_rim (after
 * exact.cl, whose blocks the rim computes). */

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

/* The CPU variant. PoCL vectorises a work-group across its
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
