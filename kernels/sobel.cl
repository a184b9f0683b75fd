/* Sobel edges on 8-bit luma.
 *
 * Build options:
 *   IN_BPP           bytes per input pixel: 1 (a luma plane) or 3/4 (packed RGB)
 *   R_OFF G_OFF B_OFF byte offsets of the colour channels in a pixel (IN_BPP > 1)
 *   BORDER           BORDER_REPLICATE | BORDER_REFLECT | BORDER_CONSTANT
 *   OUTPUT           0 magnitude, 1 |dx|, 2 |dy|
 *   NORM             0 L2 sqrt(dx^2 + dy^2), 1 L1 |dx| + |dy|
 *   OUT_16           0: GRAY8 output, 1: GRAY16_LE output
 */

#if OUT_16
#define OUT_MAX 65535.0f
typedef ushort out_t;
#define CONVERT_OUT convert_ushort_sat_rte
#else
#define OUT_MAX 255.0f
typedef uchar out_t;
#define CONVERT_OUT convert_uchar_sat_rte
#endif

inline int luma_at (__global const uchar * in, int stride, int x, int y, int w, int h)
{
#if BORDER == BORDER_CONSTANT
  if (x < 0 || y < 0 || x >= w || y >= h)
    return 0;
#else
  x = border_index (x, w, BORDER);
  y = border_index (y, h, BORDER);
#endif
  __global const uchar *p = in + (size_t) y * stride + (size_t) x * IN_BPP;
#if IN_BPP == 1
  return p[0];
#else
  /* BT.601 weights in 8-bit fixed point, exactly as the CPU reference. */
  return (77 * p[R_OFF] + 150 * p[G_OFF] + 29 * p[B_OFF] + 128) >> 8;
#endif
}

__kernel void sobel (__global const uchar * in, int in_offset, int in_stride,
    __global uchar * out, int out_offset, int out_stride, int width, int height,
    float scale, float threshold)
{
  const int x = get_global_id (0);
  const int y = get_global_id (1);
  if (x >= width || y >= height)
    return;
  in += in_offset;

  const int a = luma_at (in, in_stride, x - 1, y - 1, width, height);
  const int b = luma_at (in, in_stride, x, y - 1, width, height);
  const int c = luma_at (in, in_stride, x + 1, y - 1, width, height);
  const int d = luma_at (in, in_stride, x - 1, y, width, height);
  const int f = luma_at (in, in_stride, x + 1, y, width, height);
  const int g = luma_at (in, in_stride, x - 1, y + 1, width, height);
  const int h = luma_at (in, in_stride, x, y + 1, width, height);
  const int i = luma_at (in, in_stride, x + 1, y + 1, width, height);

  const int dx = (c + 2 * f + i) - (a + 2 * d + g);
  const int dy = (a + 2 * b + c) - (g + 2 * h + i);

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
  out_t result;
  if (threshold > 0.0f)
    result = scaled >= threshold ? (out_t) OUT_MAX : (out_t) 0;
  else
    result = CONVERT_OUT (scaled);
  *(__global out_t *) (out + out_offset + (size_t) y * out_stride + (size_t) x * sizeof (out_t)) = result;
}
