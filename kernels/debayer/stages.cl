/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The camera variant: one pass from raw samples to the output format, in
 * the stage order of camera pipelines (docs/cldebayer.md):
 *   1. black level    v' = max (v - black, 0) * maxv / (maxv - black)
 *   2. white balance  v' * gain of the sample's colour, clipped at maxv
 *      (both folded on the host into one factor per colour, `gain`, over
 *      maxv for debayer_camera)
 *   3. demosaic       the filters above, in float, clamped to [0, maxv]
 *      (debayer_camera works in units of maxv from stage 1 on: [0, 1])
 *   4. colour matrix  with saturation composed and the samples' unit folded
 *      in on the host (`mat`, row-major in s0..s8), then clipped to [0, 1]
 *   5. transfer       linear, sRGB (IEC 61966-2-1), BT.709 OETF or a power
 *   6. output         round (v x OUT_MAX) into the RGB formats; NV12 / I420
 *      as Y'CbCr of the negotiated matrix and range, Cb / Cr the means of
 *      each 2 x 2 block (the last column / row repeated at odd sizes)
 * Every parameter is an argument, so that no property change rebuilds the
 * program. Blocks start on even rows and multiples of 8 columns (so that a
 * block holds whole 2 x 2 chroma blocks); PHASE_X and PHASE_Y say where the
 * colours are.
 *
 * With `stats` set the kernel also gathers the grey-world statistics of the
 * raw frame (after black level, before white balance): per work-group sums
 * of R, G (both greens) and B over the 2 x 2 cells that lie inside the
 * image and whose largest sample is in [lo, hi), and their count, added
 * to totals: STATS_SLOTS sets (by work-group) of four counters, each a
 * pair of words (the sums of the groups' low 16 bits and of the bits above:
 * add_group_stats), zeroed and added up by the host. */

#if !CAMERA
#error "the camera stages need -D CAMERA=1"
#endif

#ifndef PHASE_Y
#define PHASE_Y 0
#endif

/* The colour at block row dy (0 / 1), columns of parity p: 0 R, 1 G of an
 * R row, 2 G of a B row, 3 B. */
#define SITE_OF(dy, p, px, py) (((((dy) + (py)) & 1) << 1) | (((p) + (px)) & 1))
#define SITE(dy, p) SITE_OF (dy, p, PHASE_X, PHASE_Y)

/* *r, *g, *b of pixels of colour `site` (as SITE) from their sample c and
 * the filters a demosaic evaluates there: G at R / B, R at B and B at R,
 * at G the colour of its row and that of its column. */
#define SITE_RGB(site, r, g, b, c, g_at_rb, at_br, at_g_row, at_g_col) \
  switch (site) { \
    case 0: \
      *(r) = (c); *(g) = (g_at_rb); *(b) = (at_br); \
      break; \
    case 1: \
      *(r) = (at_g_row); *(g) = (c); *(b) = (at_g_col); \
      break; \
    case 2: \
      *(r) = (at_g_col); *(g) = (c); *(b) = (at_g_row); \
      break; \
    default: \
      *(r) = (at_br); *(g) = (g_at_rb); *(b) = (c); \
  }

inline float gain_of (int site, float4 gain)
{
  return site == 0 ? gain.s0 : site == 3 ? gain.s2 : gain.s1;
}

/* a b + c (a b) clamped to [0, 1] (NVIDIA folds the clamp into the
 * instruction) */
#define SAT_FMA4(a, b, c) clamp ((a) * (b) + (c), 0.0f, 1.0f)
#define SAT_FMA8(a, b, c) clamp ((a) * (b) + (c), 0.0f, 1.0f)
#define SAT_MUL8(a, b) clamp ((a) * (b), 0.0f, 1.0f)
#if METHOD == 0
/* The demosaiced R, G and B of the four pixels of parity p in block row dy:
 * Malvar's filters over 16 (the coefficients are exact in float), in units
 * of full scale, the sums of neighbours shared between the two filters of a
 * site; clamped to [0, 1]. */
inline void demosaic_site (const win_t * e, const win_t * o, int dy, int p, int maxv,
    px_t * r, px_t * g, px_t * b)
{
  const int row = 2 + dy;
#define W(dr, d) at (e, o, p, row + (dr), (d))
  const px_t c = W (0, 0);
  const px_t h2 = W (0, -2) + W (0, 2), v2 = W (-2, 0) + W (2, 0);
  /* the diagonal sum as two vertical pairs, the same sums as the other
   * parity's vertical neighbours (v1 below, hv1): the compiler shares them */
  const px_t d = (W (-1, -1) + W (1, -1)) + (W (-1, 1) + W (1, 1));
  const int site = SITE (dy, p);
  if (site == 0 || site == 3) {
    const px_t hv1 = (W (-1, 0) + W (1, 0)) + (W (0, -1) + W (0, 1)), hv2 = h2 + v2;
    const px_t green = SAT_FMA4 (-0.125f, hv2, 0.5f * c + 0.25f * hv1);
    const px_t other = SAT_FMA4 (-0.1875f, hv2, 0.75f * c + 0.25f * d);
    *g = green;
    *r = site == 0 ? c : other;
    *b = site == 0 ? other : c;
  } else {
    const px_t h1 = W (0, -1) + W (0, 1), v1 = W (-1, 0) + W (1, 0);
    const px_t base = 0.625f * c - 0.125f * d;
    const px_t along = SAT_FMA4 (0.0625f, v2, base + 0.5f * h1 - 0.125f * h2);
    const px_t across = SAT_FMA4 (0.0625f, h2, base + 0.5f * v1 - 0.125f * v2);
    *g = c;
    *r = site == 1 ? along : across;
    *b = site == 1 ? across : along;
  }
#undef W
}
#else
/* The demosaiced R, G and B of the four pixels of parity p in block row dy. */
inline void demosaic_site (const win_t * e, const win_t * o, int dy, int p, int maxv,
    px_t * r, px_t * g, px_t * b)
{
  const int row = 2 + dy;
  SITE_RGB (SITE (dy, p), r, g, b, at (e, o, p, row, 0), green_at_rb (e, o, p, row, maxv),
      rb_at_br (e, o, p, row, maxv), rb_at_g_row (e, o, p, row, maxv),
      rb_at_g_col (e, o, p, row, maxv))
}
#endif

#define INTERLEAVE(even, odd) ((float8) ((even).s0, (odd).s0, (even).s1, (odd).s1, \
    (even).s2, (odd).s2, (even).s3, (odd).s3))

/* Black level and white balance (stages 1 and 2) in units of the full
 * scale, which the rest of debayer_camera works in (clamps to [0, 1] cost
 * nothing on GPUs: they fold into the arithmetic): v' = min (max (v -
 * black, 0) gain, maxv) / maxv for v clamped to maxv, which is min (clamp
 * ((v - black) gain / maxv, 0, 1), cap) with cap = v' of maxv (the stage is
 * monotonic), so samples need no clamp to maxv. cap is 1 unless a colour's
 * white-balance gain is below 1 (caps within 2^-20 of 1, unit gains
 * rounded in float, count as 1: no output step sees the difference).
 * v - black is exact in float from the sample's bits: as_float (v |
 * U2F_BITS) - (U2F_BASE + black). camera_gains sets the factors (over maxv:
 * the host's `gain`) and caps by row and column parity of the sample (both
 * even at an RGGB cell's first site); true if any cap is below 1. */
inline bool camera_gains (float4 gain, int maxv, int black, float g[2][2], float cap[2][2])
{
#pragma unroll
  for (int dy = 0; dy < 2; dy++)
#pragma unroll
    for (int p = 0; p < 2; p++) {
      g[dy][p] = gain_of (SITE (dy, p), gain);
      cap[dy][p] = min (min ((float) (maxv - black) * g[dy][p], gain.s3), 1.0f);
    }
  return min (min (cap[0][0], cap[0][1]), min (cap[1][0], cap[1][1])) < 1.0f - 0x1p-20f;
}
