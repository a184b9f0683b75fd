/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Boilerplate of clkernel: the user's code is inserted at the marker line
 * below, between this prelude (image type and sampling helpers) and the
 * epilogue (the __kernel that calls the user's filter() once per pixel).
 * common.cl is prepended, so BORDER_* and border_index() are available.
 *
 * The negotiated format (in and out formats are equal) comes as PX_*
 * options (gstclpixel.hpp); the user's code sees it under these names:
 *   CLKERNEL_BPP        bytes per pixel: 1 (GRAY8), 3 or 4
 *   CLKERNEL_R, _G, _B  byte offsets of the colour channels in a pixel
 *   CLKERNEL_A          byte offset of the alpha or padding byte (CLKERNEL_BPP 4)
 *   CLKERNEL_HAS_ALPHA  1 when that byte is alpha, 0 when it is padding (x)
 * (Not CLK_*: OpenCL C itself defines CLK_R, CLK_A, ... as channel orders.)
 *
 * The user sees RGBA, each channel in 0..1, whatever the buffer's format:
 * GRAY8 reads as (v, v, v, 1), formats without alpha read alpha as 1. */

#define CLKERNEL_BPP PX_BPP
#define CLKERNEL_R PX_R
#define CLKERNEL_G PX_G
#define CLKERNEL_B PX_B
#define CLKERNEL_A (PX_FOURTH < 0 ? 0 : PX_FOURTH)
#define CLKERNEL_HAS_ALPHA PX_ALPHA

/* Samples of 8 or 16 bits (GRAY16_LE, RGBA64_LE): 0..CLKERNEL_MAX. */
#if PX_SAMPLE == 2
typedef ushort clkernel_sample_t;
typedef ushort4 clkernel_sample4_t;
#define CLKERNEL_MAX 65535
#define clkernel_convert_sat convert_ushort4_sat_rte
#else
typedef uchar clkernel_sample_t;
typedef uchar4 clkernel_sample4_t;
#define CLKERNEL_MAX 255
#define clkernel_convert_sat convert_uchar4_sat_rte
#endif

/* clkernel_params_t, the `parameters` (their names and types), is declared
 * before this file; each name is a macro reading img.params. */
typedef struct {
  __global const uchar *data;   /* first byte of the frame (the luma plane of NV12, I420) */
  int stride;                   /* bytes per row */
  int width;
  int height;
  clkernel_params_t params;
} image_t;

/* The samples at (x, y) in RGBA order, 0..CLKERNEL_MAX; (x, y) must lie in
 * the image. */
inline clkernel_sample4_t clkernel_read_samples (image_t img, int x, int y)
{
  __global const clkernel_sample_t *p = (__global const clkernel_sample_t *) (img.data +
      (size_t) y * img.stride + (size_t) x * CLKERNEL_BPP);
#if PX_CH == 1
  return (clkernel_sample4_t) (p[0], p[0], p[0], CLKERNEL_MAX);
#elif PX_FOURTH >= 0 && PX_ALPHA
  return (clkernel_sample4_t) (p[PX_R], p[PX_G], p[PX_B], p[PX_FOURTH]);
#else
  return (clkernel_sample4_t) (p[PX_R], p[PX_G], p[PX_B], CLKERNEL_MAX);
#endif
}

/* The pixel at (x, y) as bytes in RGBA order (of 16-bit samples, the high
 * byte); (x, y) must lie in the image. */
inline uchar4 read_pixel_u8_unchecked (image_t img, int x, int y)
{
#if PX_SAMPLE == 2
  return convert_uchar4 (clkernel_read_samples (img, x, y) >> (ushort4) (8));
#else
  return clkernel_read_samples (img, x, y);
#endif
}

/* True when (x, y) lies inside the image. */
inline bool in_image (image_t img, int x, int y)
{
  return x >= 0 && y >= 0 && x < img.width && y < img.height;
}

/* The pixel at (x, y), coordinates clamped to the image (replicated edges),
 * as bytes 0..255 in RGBA order. */
inline uchar4 read_pixel_u8 (image_t img, int x, int y)
{
  return read_pixel_u8_unchecked (img, clamp (x, 0, img.width - 1),
      clamp (y, 0, img.height - 1));
}

/* The pixel at (x, y), coordinates clamped to the image, RGBA in 0..1. */
inline float4 read_pixel (image_t img, int x, int y)
{
  return convert_float4 (clkernel_read_samples (img, clamp (x, 0, img.width - 1),
          clamp (y, 0, img.height - 1))) * (1.0f / CLKERNEL_MAX);
}

/* The pixel at (x, y) with a choice of border: BORDER_REPLICATE (as
 * read_pixel), BORDER_REFLECT (dcb|abcd|cba) or BORDER_CONSTANT (outside
 * pixels are (0, 0, 0, 0)). RGBA in 0..1. */
inline float4 read_pixel_border (image_t img, int x, int y, int border)
{
  if (border == BORDER_CONSTANT && !in_image (img, x, y))
    return (float4) (0.0f);
  x = border_index (x, img.width, border);
  y = border_index (y, img.height, border);
  return convert_float4 (clkernel_read_samples (img, x, y)) * (1.0f / CLKERNEL_MAX);
}

//@CLKERNEL_USER_CODE@

/* Stores RGBA (0..1, rounded to nearest and saturated) in the buffer's
 * format: grey takes R, padding samples become the maximum. */
inline void clkernel_write (__global uchar * at, float4 rgba)
{
  const clkernel_sample4_t v = clkernel_convert_sat (rgba * (float) CLKERNEL_MAX);
  __global clkernel_sample_t *p = (__global clkernel_sample_t *) at;
#if PX_CH == 1
  p[0] = v.x;
#else
  p[PX_R] = v.x;
  p[PX_G] = v.y;
  p[PX_B] = v.z;
#if PX_FOURTH >= 0
  p[PX_FOURTH] = PX_ALPHA ? v.w : CLKERNEL_MAX;
#endif
#endif
}

__kernel void clkernel_main (__global const uchar * in, int in_offset, int in_stride,
    __global uchar * out, int out_offset, int out_stride, int width, int height,
    clkernel_params_t params)
{
  const int x = get_global_id (0);
  const int y = get_global_id (1);
  if (x >= width || y >= height)
    return;
  const image_t img = { in + in_offset, in_stride, width, height, params };
  const float4 rgba = filter (img, x, y);
  clkernel_write (out + out_offset + (size_t) y * out_stride + (size_t) x * CLKERNEL_BPP,
      rgba);
}
