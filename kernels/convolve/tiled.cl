/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The kernel of large N, through local memory. Needs prelude.cl. */

/* Large N: each work-group loads its (TILE + N - 1)^2 input window, borders
 * applied, into local memory once, and reads every tap from there. */
__kernel __attribute__ ((reqd_work_group_size (TILE_W, TILE_H, 1)))
void convolve_tiled (__global const uchar * in, int in_offset, int in_stride,
    __global uchar * out, int out_offset, int out_stride, int width, int height,
    __constant acc_t * w, acc_t scale, acc_t bias, int border)
{
#define SPAN_W (TILE_W + N - 1)
#define SPAN_H (TILE_H + N - 1)
  __local pix_t tile[SPAN_H][SPAN_W];
  const int lx = get_local_id (0);
  const int ly = get_local_id (1);
  const int x0 = get_group_id (0) * TILE_W - R;
  const int y0 = get_group_id (1) * TILE_H - R;
  in += in_offset;
  out += out_offset;

  for (int i = ly * TILE_W + lx; i < SPAN_W * SPAN_H; i += TILE_W * TILE_H) {
    const int ty = i / SPAN_W;
    const int tx = i - ty * SPAN_W;
    tile[ty][tx] = fetch (in, in_stride, x0 + tx, y0 + ty, width, height, border);
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  const int x = get_global_id (0);
  const int y = get_global_id (1);
  if (x >= width || y >= height)
    return;
  acc_t sum = 0;
  for (int ky = 0; ky < N; ky++)
    for (int kx = 0; kx < N; kx++)
      sum += w[ky * N + kx] * TO_ACC (tile[ly + ky][lx + kx]);
  store_result (out, out_stride, in, in_stride, x, y, sum, scale, bias);
#undef SPAN_W
#undef SPAN_H
}
