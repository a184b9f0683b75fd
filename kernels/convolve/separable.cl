/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Rank-1 kernels as two 1-D passes through an intermediate image, on any
 * device. Needs prelude.cl. */

/* Rank-1 kernels, first pass: rows into a float image tmp (width x height). */
__kernel void convolve_rows (__global const uchar * in, int in_offset, int in_stride,
    __global acc_t * tmp, int width, int height, __constant acc_t * w, int border)
{
  const int x = get_global_id (0);
  const int y = get_global_id (1);
  if (x >= width || y >= height)
    return;
  in += in_offset;

  acc_t sum = 0;
  if (x >= R && x + R < width) {
    __global const uchar *p = in + (size_t) y * in_stride + (size_t) (x - R) * BPP;
    for (int k = 0; k < N; k++)
      sum += w[W_ROWS + k] * TO_ACC (load_pixel (p + k * BPP));
  } else {
    for (int k = 0; k < N; k++)
      sum += w[W_ROWS + k] * TO_ACC (fetch (in, in_stride, x - R + k, y, width, height,
          border));
  }
  tmp[(size_t) y * width + x] = sum;
}

/* Second pass: columns of tmp, then scale, bias and the output bytes. */
__kernel void convolve_columns (__global const acc_t * tmp, __global const uchar * in,
    int in_offset, int in_stride, __global uchar * out, int out_offset, int out_stride,
    int width, int height, __constant acc_t * w, acc_t scale, acc_t bias, int border)
{
  const int x = get_global_id (0);
  const int y = get_global_id (1);
  if (x >= width || y >= height)
    return;
  in += in_offset;
  out += out_offset;

  acc_t sum = 0;
  if (y >= R && y + R < height) {
    __global const acc_t *p = tmp + (size_t) (y - R) * width + x;
    for (int k = 0; k < N; k++)
      sum += w[W_COLS + k] * p[(size_t) k * width];
  } else {
    for (int k = 0; k < N; k++) {
      const int yy = y - R + k;
      if (border == BORDER_CONSTANT && (yy < 0 || yy >= height))
        continue;
      sum += w[W_COLS + k] * tmp[(size_t) border_index (yy, height, border) * width + x];
    }
  }
  store_result (out, out_stride, in, in_stride, x, y, sum, scale, bias);
}
