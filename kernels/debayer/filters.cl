/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The demosaic filters on the window (prelude.cl's `at`, `A`): Malvar in
 * exact integers (the camera variants' Malvar is demosaic_site, stages.cl),
 * and bilinear in integers or, with CAMERA, in float. */
#if METHOD == 0 && !CAMERA   /* the camera variant's Malvar: demosaic_site below */
inline px_t finish (px_t sum16, int maxv)
{
  /* Vector bounds: Oclgrind 21.10 gets clamp (int4, int, int) wrong. */
  return clamp ((sum16 + 8) >> 4, (int4) (0), (int4) (maxv));
}

/* G at R or B sites. */
inline px_t green_at_rb (const win_t * e, const win_t * o, int p, int r, int maxv)
{
  return finish (8 * A (0, 0) + 4 * (A (-1, 0) + A (1, 0) + A (0, -1) + A (0, 1))
      - 2 * (A (-2, 0) + A (2, 0) + A (0, -2) + A (0, 2)), maxv);
}

/* R or B at G sites whose row holds that colour. */
inline px_t rb_at_g_row (const win_t * e, const win_t * o, int p, int r, int maxv)
{
  return finish (10 * A (0, 0) + 8 * (A (0, -1) + A (0, 1)) - 2 * (A (0, -2) + A (0, 2))
      - 2 * (A (-1, -1) + A (-1, 1) + A (1, -1) + A (1, 1)) + A (-2, 0) + A (2, 0), maxv);
}

/* R or B at G sites whose column holds that colour. */
inline px_t rb_at_g_col (const win_t * e, const win_t * o, int p, int r, int maxv)
{
  return finish (10 * A (0, 0) + 8 * (A (-1, 0) + A (1, 0)) - 2 * (A (-2, 0) + A (2, 0))
      - 2 * (A (-1, -1) + A (-1, 1) + A (1, -1) + A (1, 1)) + A (0, -2) + A (0, 2), maxv);
}

/* R at B sites, B at R sites. */
inline px_t rb_at_br (const win_t * e, const win_t * o, int p, int r, int maxv)
{
  return finish (12 * A (0, 0) + 4 * (A (-1, -1) + A (-1, 1) + A (1, -1) + A (1, 1))
      - 3 * (A (-2, 0) + A (2, 0) + A (0, -2) + A (0, 2)), maxv);
}
#elif METHOD != 0
/* Means of 2 and 4 samples: rounded half up, or exact in float. */
#if CAMERA
#define MEAN2(s) ((s) * 0.5f)
#define MEAN4(s) ((s) * 0.25f)
#else
#define MEAN2(s) (((s) + 1) >> 1)
#define MEAN4(s) (((s) + 2) >> 2)
#endif
inline px_t green_at_rb (const win_t * e, const win_t * o, int p, int r, int maxv)
{
  return MEAN4 (A (-1, 0) + A (1, 0) + A (0, -1) + A (0, 1));
}

inline px_t rb_at_g_row (const win_t * e, const win_t * o, int p, int r, int maxv)
{
  return MEAN2 (A (0, -1) + A (0, 1));
}

inline px_t rb_at_g_col (const win_t * e, const win_t * o, int p, int r, int maxv)
{
  return MEAN2 (A (-1, 0) + A (1, 0));
}

inline px_t rb_at_br (const win_t * e, const win_t * o, int p, int r, int maxv)
{
  return MEAN4 (A (-1, -1) + A (-1, 1) + A (1, -1) + A (1, 1));
}
#endif
