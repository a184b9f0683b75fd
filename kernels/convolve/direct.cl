/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The kernels that read their window straight from global memory: any N,
 * and N 3 four outputs at a time. Needs prelude.cl. */

/* One output per work-item, straight from global memory: small N. */
__kernel void convolve_direct (__global const uchar * in, int in_offset, int in_stride,
    __global uchar * out, int out_offset, int out_stride, int width, int height,
    __constant acc_t * w, acc_t scale, acc_t bias, int border)
{
  const int x = get_global_id (0);
  const int y = get_global_id (1);
  if (x >= width || y >= height)
    return;
  in += in_offset;
  out += out_offset;

  acc_t sum = 0;
  if (x >= R && y >= R && x + R < width && y + R < height) {
    __global const uchar *p = in + (size_t) (y - R) * in_stride + (size_t) (x - R) * BPP;
    for (int ky = 0; ky < N; ky++, p += in_stride)
      for (int kx = 0; kx < N; kx++)
        sum += w[ky * N + kx] * TO_ACC (load_pixel (p + kx * BPP));
  } else {
    for (int ky = 0; ky < N; ky++)
      for (int kx = 0; kx < N; kx++)
        sum += w[ky * N + kx] *
            TO_ACC (fetch (in, in_stride, x - R + kx, y - R + ky, width, height, border));
  }
  store_result (out, out_stride, in, in_stride, x, y, sum, scale, bias);
}

#if N == 3
/* The 3x3 fast path: four outputs of a row per work-item from a 6x3 window
 * held in registers, the nine weights loaded once. */
__kernel void convolve_3x3 (__global const uchar * in, int in_offset, int in_stride,
    __global uchar * out, int out_offset, int out_stride, int width, int height,
    __constant acc_t * w, acc_t scale, acc_t bias, int border)
{
  const int x0 = get_global_id (0) * 4;
  const int y = get_global_id (1);
  if (x0 >= width || y >= height)
    return;
  in += in_offset;
  out += out_offset;

  acc_t k[9];
  for (int i = 0; i < 9; i++)
    k[i] = w[i];
  acc_t sum[4];
  for (int o = 0; o < 4; o++)
    sum[o] = 0;
  for (int ky = 0; ky < 3; ky++) {
    const int yy = y - 1 + ky;
    acc_t p[6];
    if (x0 >= 1 && x0 + 4 < width && yy >= 0 && yy < height) {
      __global const uchar *row = in + (size_t) yy * in_stride + (size_t) (x0 - 1) * BPP;
      for (int i = 0; i < 6; i++)
        p[i] = TO_ACC (load_pixel (row + i * BPP));
    } else {
      for (int i = 0; i < 6; i++)
        p[i] = TO_ACC (fetch (in, in_stride, x0 - 1 + i, yy, width, height, border));
    }
    for (int o = 0; o < 4; o++)
      sum[o] += k[3 * ky] * p[o] + k[3 * ky + 1] * p[o + 1] + k[3 * ky + 2] * p[o + 2];
  }
  for (int o = 0; o < 4 && x0 + o < width; o++)
    store_result (out, out_stride, in, in_stride, x0 + o, y, sum[o], scale, bias);
}
#endif
