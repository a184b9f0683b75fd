/* Bayer demosaic: Malvar-He-Cutler 2004 or bilinear, 8- to 16-bit samples.
 *
 * Every pattern is RGGB shifted by (phase_x, phase_y): the colour at (x, y)
 * is the RGGB colour at (x + phase_x, y + phase_y). Each work-item computes a
 * block of 4 x 2 pixels that starts on an RGGB cell, so the colour of every
 * pixel of the block, and thus the filter it needs, is known at compile time.
 * The block reads an 8 x 6 window (2 samples of margin for the 5x5 filters);
 * samples outside the image are mirrored about the edge sample (reflect-101,
 * repeated for images smaller than the filter), which keeps the Bayer phase.
 *
 * Integer arithmetic throughout, so that the result is exactly defined
 * (maxv = 2^bits - 1, samples above it are clamped to it):
 *   malvar    the paper's coefficients x 16, sum S, value clamp((S + 8) >> 4,
 *             0, maxv) (round half up)
 *   bilinear  (a + b + 1) >> 1 and (a + b + c + d + 2) >> 2
 *   output    16-bit: round(v * 65535 / maxv), 8-bit: round(v * 255 / maxv)
 *             (no ties exist: maxv is odd); GRAY8 is
 *             (77 R + 150 G + 29 B + 128) >> 8 of the 8-bit channels.
 *
 * Build options (the rest are arguments, so that few variants get built):
 *   IN_16         0: 8-bit samples, 1: 16-bit little-endian words
 *   METHOD        0 malvar, 1 bilinear
 *   OUT_CH        channels per output pixel: 1 (GRAY8), 3 (RGB/BGR) or 4
 *   OUT_16        1: 16-bit channels (RGBA64_LE), 0: 8-bit channels
 */

#ifndef __ENDIAN_LITTLE__
#error "little-endian devices only (samples are little-endian words)"
#endif

#if IN_16
typedef ushort in_t;
#else
typedef uchar in_t;
#endif

#if OUT_16
typedef ushort out_t;
#define OUT_MAX 65535u
#else
typedef uchar out_t;
#define OUT_MAX 255u
#endif

#define WIN_W 8
#define WIN_H 6

/* The output scaling, round (v * OUT_MAX / maxv), as an exact multiply and
 * shift (Granlund-Montgomery): floor (q / maxv) = (q * mul) >> shift for
 * every q < 2^30, which covers all but the 16-bit to 16-bit identity. */
typedef struct {
  int maxv;
  uint mul;
  int shift;
} Scale;

inline uint scale_out (int v, Scale s)
{
#if !IN_16 && !OUT_16
  return (uint) v;
#else
  if (s.maxv == (int) OUT_MAX)
    return (uint) v;
  const uint q = (uint) v * OUT_MAX + (uint) (s.maxv >> 1);
  return (uint) (((ulong) q * s.mul) >> s.shift);
#endif
}

/* The window as seen from the pixel (x, y) of it: w (dy, dx). */
#define W(dy, dx) win[(y) + (dy)][(x) + (dx)]

#if METHOD == 0
#define finish(sum16) clamp (((sum16) + 8) >> 4, 0, maxv)

/* G at an R or B site. */
inline int green_at_rb (int (*win)[WIN_W], int x, int y, int maxv)
{
  return finish (8 * W (0, 0) + 4 * (W (-1, 0) + W (1, 0) + W (0, -1) + W (0, 1))
      - 2 * (W (-2, 0) + W (2, 0) + W (0, -2) + W (0, 2)));
}

/* R or B at a G site whose row holds that colour. */
inline int rb_at_g_row (int (*win)[WIN_W], int x, int y, int maxv)
{
  return finish (10 * W (0, 0) + 8 * (W (0, -1) + W (0, 1)) - 2 * (W (0, -2) + W (0, 2))
      - 2 * (W (-1, -1) + W (-1, 1) + W (1, -1) + W (1, 1)) + W (-2, 0) + W (2, 0));
}

/* R or B at a G site whose column holds that colour. */
inline int rb_at_g_col (int (*win)[WIN_W], int x, int y, int maxv)
{
  return finish (10 * W (0, 0) + 8 * (W (-1, 0) + W (1, 0)) - 2 * (W (-2, 0) + W (2, 0))
      - 2 * (W (-1, -1) + W (-1, 1) + W (1, -1) + W (1, 1)) + W (0, -2) + W (0, 2));
}

/* R at a B site, or B at an R site. */
inline int rb_at_br (int (*win)[WIN_W], int x, int y, int maxv)
{
  return finish (12 * W (0, 0) + 4 * (W (-1, -1) + W (-1, 1) + W (1, -1) + W (1, 1))
      - 3 * (W (-2, 0) + W (2, 0) + W (0, -2) + W (0, 2)));
}
#else
inline int green_at_rb (int (*win)[WIN_W], int x, int y, int maxv)
{
  return (W (-1, 0) + W (1, 0) + W (0, -1) + W (0, 1) + 2) >> 2;
}

inline int rb_at_g_row (int (*win)[WIN_W], int x, int y, int maxv)
{
  return (W (0, -1) + W (0, 1) + 1) >> 1;
}

inline int rb_at_g_col (int (*win)[WIN_W], int x, int y, int maxv)
{
  return (W (-1, 0) + W (1, 0) + 1) >> 1;
}

inline int rb_at_br (int (*win)[WIN_W], int x, int y, int maxv)
{
  return (W (-1, -1) + W (-1, 1) + W (1, -1) + W (1, 1) + 2) >> 2;
}
#endif

/* Where the channels go in an output pixel: positions in channels, for the
 * 4-channel formats (a: alpha or padding, always opaque) and for RGB / BGR
 * (r is 0 or 2). */
typedef struct {
  int r, g, b, a;
} Layout;

/* Writes the pixel of colour (r, g, b) at position i of `px`. */
inline void pack (out_t * px, int i, int r, int g, int b, Scale s, Layout l)
{
  const uint rs = scale_out (r, s), gs = scale_out (g, s), bs = scale_out (b, s);
#if OUT_CH == 1
  px[i] = (out_t) ((77 * rs + 150 * gs + 29 * bs + 128) >> 8);
#elif OUT_CH == 3
  px[i * 3] = (out_t) (l.r == 0 ? rs : bs);
  px[i * 3 + 1] = (out_t) gs;
  px[i * 3 + 2] = (out_t) (l.r == 0 ? bs : rs);
#elif OUT_16
  const ulong word = ((ulong) rs << (16 * l.r)) | ((ulong) gs << (16 * l.g)) |
      ((ulong) bs << (16 * l.b)) | ((ulong) OUT_MAX << (16 * l.a));
  vstore4 (as_ushort4 (word), i, px);
#else
  const uint word = (rs << (8 * l.r)) | (gs << (8 * l.g)) | (bs << (8 * l.b)) |
      (OUT_MAX << (8 * l.a));
  vstore4 (as_uchar4 (word), i, px);
#endif
}

/* Stores pixels first .. first + count - 1 of the block in `px` to the row
 * `dst`, where the block starts at pixel x0. */
inline void store_row (__global out_t * dst, int x0, const out_t * px, int first, int count)
{
  if (first == 0 && count == 4) {
    dst += x0 * OUT_CH;
#if OUT_CH == 1
    vstore4 (vload4 (0, px), 0, dst);
#elif OUT_CH == 3
    vstore8 (vload8 (0, px), 0, dst);
    vstore4 (vload4 (0, px + 8), 0, dst + 8);
#else
    vstore16 (vload16 (0, px), 0, dst);
#endif
    return;
  }
  for (int i = first * OUT_CH; i < (first + count) * OUT_CH; i++)
    dst[x0 * OUT_CH + i] = px[i];
}

__kernel void debayer (__global const uchar * in, int in_offset, int in_stride,
    __global uchar * out, int out_offset, int out_stride, int width, int height,
    int phase_x, int phase_y, int maxv, uint scale_mul, int scale_shift, int4 layout)
{
  const int x0 = (int) get_global_id (0) * 4 - phase_x;
  const int y0 = (int) get_global_id (1) * 2 - phase_y;
  if (x0 >= width || y0 >= height)
    return;
  const Scale s = { maxv, scale_mul, scale_shift };
  const Layout l = { layout.s0, layout.s1, layout.s2, layout.s3 };

  int win[WIN_H][WIN_W];
  in += in_offset;
  if (x0 >= 2 && x0 + 5 < width && y0 >= 2 && y0 + 3 < height) {
    for (int r = 0; r < WIN_H; r++) {
      __global const in_t *row = (__global const in_t *) (in + (size_t) (y0 - 2 + r) * in_stride);
      int8 v = convert_int8 (vload8 (0, row + x0 - 2));
#if IN_16
      v = min (v, (int8) maxv);
#endif
      vstore8 (v, 0, win[r]);
    }
  } else {
    int cols[WIN_W];
    for (int c = 0; c < WIN_W; c++)
      cols[c] = border_reflect101 (x0 - 2 + c, width);
    for (int r = 0; r < WIN_H; r++) {
      __global const in_t *row = (__global const in_t *)
          (in + (size_t) border_reflect101 (y0 - 2 + r, height) * in_stride);
      for (int c = 0; c < WIN_W; c++)
        win[r][c] = min ((int) row[cols[c]], maxv);
    }
  }

  /* Window pixel (2 + dx, 2 + dy) is output pixel (x0 + dx, y0 + dy). Row 0
   * of the block is an R G R G row, row 1 a G B G B row. */
  out_t px[2][4 * OUT_CH];
  for (int dx = 0; dx < 4; dx += 2) {
    const int x = 2 + dx;
    /* R site, then G in an R row. */
    pack (px[0], dx, win[2][x], green_at_rb (win, x, 2, maxv), rb_at_br (win, x, 2, maxv),
        s, l);
    pack (px[0], dx + 1, rb_at_g_row (win, x + 1, 2, maxv), win[2][x + 1],
        rb_at_g_col (win, x + 1, 2, maxv), s, l);
    /* G in a B row, then B site. */
    pack (px[1], dx, rb_at_g_col (win, x, 3, maxv), win[3][x], rb_at_g_row (win, x, 3, maxv),
        s, l);
    pack (px[1], dx + 1, rb_at_br (win, x + 1, 3, maxv), green_at_rb (win, x + 1, 3, maxv),
        win[3][x + 1], s, l);
  }

  const int first = max (0, -x0);
  const int count = min (4, width - x0) - first;
  for (int dy = 0; dy < 2; dy++) {
    const int y = y0 + dy;
    if (y < 0 || y >= height)
      continue;
    store_row ((__global out_t *) (out + out_offset + (size_t) y * out_stride), x0, px[dy],
        first, count);
  }
}
