/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The exact integer demosaic on GPUs: debayer, an 8 x 2 block a work-item
 * (prelude.cl, filters.cl and io.cl before it). */
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
