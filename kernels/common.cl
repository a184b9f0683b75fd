/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers shared by every kernel; prepended to each program's source.
 * Pixel layouts come as IN_* / OUT_* / PX_* options (gstclpixel.hpp); their
 * *_YUV values: */
#define YUV_NONE 0
#define YUV_NV12 1   /* Y plane, then interleaved CbCr at half size */
#define YUV_I420 2   /* Y, Cb, Cr planes, chroma at half size */
#define YUV_YUY2 3   /* Y0 Cb Y1 Cr */
#define YUV_UYVY 4   /* Cb Y0 Cr Y1 */

/* Border modes (BORDER_* match GstClBorder): */
#define BORDER_REPLICATE 0
#define BORDER_REFLECT 1    /* reflect-101: dcb|abcd|cba */
#define BORDER_CONSTANT 2   /* zero outside the image */

/* 8 floats at any address as one unaligned access: PoCL splits vload8 and
 * vstore8 of floats into 64-bit pieces and shuffles (the CPU shapes) */
typedef struct __attribute__ ((packed)) { float8 v; } float8_any;
#define LOAD8_ANY(p) (((__global const float8_any *) (p))->v)
#define STORE8_ANY(p, x) (((__global float8_any *) (p))->v = (x))

inline int border_replicate (int i, int n)
{
  return clamp (i, 0, n - 1);
}

/* Mirrors about the edge sample, as often as needed for kernels larger than
 * the image. */
inline int border_reflect101 (int i, int n)
{
  if (n == 1)
    return 0;
  while (i < 0 || i >= n) {
    if (i < 0)
      i = -i;
    if (i >= n)
      i = 2 * n - 2 - i;
  }
  return i;
}

/* Index to read for coordinate i in [0, n), for the replicate and reflect
 * modes; BORDER_CONSTANT is handled by the caller. */
inline int border_index (int i, int n, int mode)
{
  return mode == BORDER_REFLECT ? border_reflect101 (i, n) : border_replicate (i, n);
}
