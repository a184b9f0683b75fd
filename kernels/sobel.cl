/* Sobel edges on 8-bit luma.
 *
 * Each work-item computes PX = 16 consecutive outputs of one row. Interior
 * items read their 18 x 3 luma window with vector loads and store 16 results
 * at once; items that touch the border use the scalar path with the border
 * rule. The arithmetic is the same in both paths, so results do not depend
 * on where an item falls.
 *
 * Build options:
 *   IN_BPP            bytes per input pixel: 1 (a luma plane), 3 or 4 (RGB)
 *   R_OFF G_OFF B_OFF byte offsets of the colour channels in a pixel
 *   BORDER            BORDER_REPLICATE | BORDER_REFLECT | BORDER_CONSTANT
 *   OUTPUT            0 magnitude, 1 |dx|, 2 |dy|
 *   NORM              0 L2 sqrt(dx^2 + dy^2), 1 L1 |dx| + |dy|
 *   OUT_16            0: GRAY8 output, 1: GRAY16_LE output
 */
#define PX 16

#if OUT_16
#define OUT_MAX 65535.0f
typedef ushort out_t;
#define CONVERT_OUT convert_ushort_sat_rte
#else
#define OUT_MAX 255.0f
typedef uchar out_t;
#define CONVERT_OUT convert_uchar_sat_rte
#endif

inline int luma_of (__global const uchar * p)
{
#if IN_BPP == 1
  return p[0];
#else
  /* BT.601 weights in 8-bit fixed point, exactly as the CPU reference. */
  return (77 * p[R_OFF] + 150 * p[G_OFF] + 29 * p[B_OFF] + 128) >> 8;
#endif
}

inline int luma_at (__global const uchar * in, int stride, int x, int y, int w, int h)
{
#if BORDER == BORDER_CONSTANT
  if (x < 0 || y < 0 || x >= w || y >= h)
    return 0;
#else
  x = border_index (x, w, BORDER);
  y = border_index (y, h, BORDER);
#endif
  return luma_of (in + (size_t) y * stride + (size_t) x * IN_BPP);
}

inline out_t sobel_result (int dx, int dy, float scale, float threshold)
{
#if OUTPUT == 1
  const float value = (float) abs (dx);
#elif OUTPUT == 2
  const float value = (float) abs (dy);
#elif NORM == 1
  const float value = (float) (abs (dx) + abs (dy));
#else
  const float value = sqrt ((float) (dx * dx + dy * dy));
#endif
  const float scaled = scale * value;
  if (threshold > 0.0f)
    return scaled >= threshold ? (out_t) OUT_MAX : (out_t) 0;
  return CONVERT_OUT (scaled);
}

/* Luma of pixels x0-1 .. x0+PX of a row; the caller guarantees they exist. */
inline void load_row (__global const uchar * row, int x0, int l[PX + 2])
{
#if IN_BPP == 1
  const uchar16 v = vload16 (0, row + x0);
  l[0] = row[x0 - 1];
  l[1] = v.s0; l[2] = v.s1; l[3] = v.s2; l[4] = v.s3;
  l[5] = v.s4; l[6] = v.s5; l[7] = v.s6; l[8] = v.s7;
  l[9] = v.s8; l[10] = v.s9; l[11] = v.sa; l[12] = v.sb;
  l[13] = v.sc; l[14] = v.sd; l[15] = v.se; l[16] = v.sf;
  l[17] = row[x0 + PX];
#else
  __global const uchar *p = row + (size_t) (x0 - 1) * IN_BPP;
#pragma unroll
  for (int i = 0; i < PX + 2; i++)
    l[i] = luma_of (p + i * IN_BPP);
#endif
}

__kernel void sobel (__global const uchar * in, int in_offset, int in_stride,
    __global uchar * out, int out_offset, int out_stride, int width, int height,
    float scale, float threshold)
{
  const int x0 = get_global_id (0) * PX;
  const int y = get_global_id (1);
  if (x0 >= width || y >= height)
    return;
  in += in_offset;
  __global out_t *orow = (__global out_t *) (out + out_offset + (size_t) y * out_stride);

  if (x0 >= 1 && x0 + PX < width && y >= 1 && y + 1 < height) {
    int t[PX + 2], m[PX + 2], b[PX + 2];
    load_row (in + (size_t) (y - 1) * in_stride, x0, t);
    load_row (in + (size_t) y * in_stride, x0, m);
    load_row (in + (size_t) (y + 1) * in_stride, x0, b);
    out_t r[PX];
#pragma unroll
    for (int i = 0; i < PX; i++) {
      /* pixel x0 + i sits at index i + 1 of the window */
      const int dx = (t[i + 2] + 2 * m[i + 2] + b[i + 2]) - (t[i] + 2 * m[i] + b[i]);
      const int dy = (t[i] + 2 * t[i + 1] + t[i + 2]) - (b[i] + 2 * b[i + 1] + b[i + 2]);
      r[i] = sobel_result (dx, dy, scale, threshold);
    }
#if OUT_16
    vstore16 ((ushort16) (r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9],
            r[10], r[11], r[12], r[13], r[14], r[15]), 0, orow + x0);
#else
    vstore16 ((uchar16) (r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9],
            r[10], r[11], r[12], r[13], r[14], r[15]), 0, orow + x0);
#endif
    return;
  }

  const int n = min (PX, width - x0);
  for (int i = 0; i < n; i++) {
    const int x = x0 + i;
    const int a = luma_at (in, in_stride, x - 1, y - 1, width, height);
    const int bb = luma_at (in, in_stride, x, y - 1, width, height);
    const int c = luma_at (in, in_stride, x + 1, y - 1, width, height);
    const int d = luma_at (in, in_stride, x - 1, y, width, height);
    const int f = luma_at (in, in_stride, x + 1, y, width, height);
    const int g = luma_at (in, in_stride, x - 1, y + 1, width, height);
    const int h = luma_at (in, in_stride, x, y + 1, width, height);
    const int k = luma_at (in, in_stride, x + 1, y + 1, width, height);
    const int dx = (c + 2 * f + k) - (a + 2 * d + g);
    const int dy = (a + 2 * bb + c) - (g + 2 * h + k);
    orow[x] = sobel_result (dx, dy, scale, threshold);
  }
}
