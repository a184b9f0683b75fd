/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Menon, Andriani and Calvagno 2007, "Demosaicing with directional filtering
 * and a posteriori decision" (IEEE TIP 16 (1)), with its refining step.
 * After the camera stages' files (prelude.cl lists them), built with
 * -D CAMERA=1: the camera
 * stages before the demosaic (black level, white balance, here on the
 * samples as they are loaded) and after it (camera_output: matrix, transfer
 * curve, output format) are those of debayer_camera.
 *
 * The steps, at each pixel of the mosaic (R, G, B the samples, "mean" the
 * mean of the two neighbours at distance 1 along a direction):
 *   1. green along rows and along columns at R and B sites (5-tap filter
 *      [-1/4, 1/2, 1/2, 1/2, -1/4] on the row or column, the outer and
 *      centre taps on the site's own colour): G_H, G_V; colour differences
 *      C_H = S - G_H, C_V = S - G_V (S the site's sample).
 *   2. decision at R and B sites: d_H = sum of |C_H(p) - C_H(p + 2 columns)|
 *      over p in {(0, 0), (0, -2)} with weight 3 and {(+-2, 0), (+-2, -2),
 *      (+-1, -1)} with weight 1 (rows, columns); d_V the same transposed.
 *      Horizontal when d_V >= d_H: G = S - C_H, else G = S - C_V.
 *   3. R and B at G sites: G + mean (S - G) of the neighbours of that colour
 *      (along the row or the column that holds it).
 *   4. R at B (B at R) sites: S + mean (R - B) (mean (B - R)) of the G
 *      neighbours along the chosen direction.
 *   5. refining: G at R (B) sites: S - mean3 (S - G), mean3 the mean of the
 *      site and its two neighbours along the chosen direction (R - G, B - G
 *      of step 3 at the neighbours); R and B at G sites again as step 3 from
 *      the refined G; B at R sites: R - mean3 (R - B), R at B sites:
 *      B + mean3 (R - B), with R - B of step 4 at the site and of the refined
 *      values at the G neighbours.
 * Steps 1-2 are exact in float for 8..16-bit samples (multiples of 1/4 below
 * 2^22), so the decision is exactly defined without the camera stages.
 * Nothing is clamped until the output (to [0, maxv], as debayer_camera).
 *
 * The output at a pixel depends on the samples up to 8 rows and columns
 * away. A work-group computes a tile of MT_W x MT_H pixels (even origin) in
 * local memory, by 2 x 2 cells whose R site is at (0, 0) (the cells start
 * phase_x, phase_y samples before the tile's origin less 8; one more cell
 * column and row than the tile's then hold the tile): each quantity is a
 * plane of cells, so that neighbouring work-items read neighbouring words.
 * It loads the samples of the tile and 8 around it (mirrored about the edge
 * sample outside the image, reflect-101, as the other methods; a
 * work-item's loads all issued before its stores), then, with a barrier
 * between them, over the cells the next steps need:
 *   step 1 (C_H, C_V at R and B sites; margin 3 cells), MT_RUN1 cells down
 *     a column a work-item (the column's samples read once);
 *   step 2 (the decision and the chosen difference d = S - G at R and B
 *     sites; margin 2), MT_RUN cells down a column a work-item, the
 *     differences of neighbouring C_H (C_V) shared by the cells' sums;
 *   steps 3, 4 and 5's green (margin 1), MT_RUN3 cells down a column: the
 *     R - G (B - G) of step 3 at G sites is the mean of the neighbours' d,
 *     so step 3 is not stored: at R (B) sites the refined
 *     d' = (d + the two G neighbours' R - G) / 3, and step 4's B - R (R - B)
 *     from the G neighbours' differences;
 *   step 5's R and B (the tile), MT_RUN3 cells down a column: at G sites
 *     S + the mean of d' at the neighbours, at R (B) sites from step 4's
 *     value and the G neighbours' refined R - B, then stages 4-6 of the
 *     pixel (MENON_PIXELS: RGB formats, GRAY8; MENON_COLOUR=0 when there
 *     is no matrix or curve), or into local memory for camera_output by
 *     8 x 2 blocks (NV12 / I420, unaligned rows).
 * The loops over cells stay rolled (#pragma unroll 1): unrolled, the
 * NVIDIA compiler kept twice the registers (130 on the H100, one group a
 * multiprocessor rather than 4) and the kernel took twice the time. */


#ifndef MT_W
#define MT_W 64                 /* output tile (the host sets it) */
#define MT_H 32
#endif
/* The cells a work-item takes down a column (the host sets them) */
#ifndef MT_RUN1
#define MT_RUN1 4               /* in step 1 */
#endif
#ifndef MT_RUN
#define MT_RUN 4                /* in step 2 */
#endif
#ifndef MT_RUN3
#define MT_RUN3 3               /* in steps 3-4 and in step 5 */
#endif
#define MENON_LX 32             /* work-group (the host enqueues it so) */
#ifndef MENON_LY
#define MENON_LY 8
#endif
#define MENON_N (MENON_LX * MENON_LY)
#ifndef MENON_COLOUR
#define MENON_COLOUR 1          /* 0: no colour matrix, saturation or curve */
#endif
#ifndef MENON_PIXELS
#define MENON_PIXELS 0          /* 1: output by cells (not YUV; 4-byte rows) */
#endif
#if (MT_W / BLOCK_W) * (MT_H / 2) > MENON_N || MT_W % BLOCK_W || MT_H % 2
#error "a tile must be at most MENON_N blocks of 8 x 2"
#endif
#if MT_RUN1 > MT_H / 2 + 7 || MT_RUN > MT_H / 2 + 5 || MT_RUN3 > MT_H / 2 + 1
#error "runs longer than the rows of cells"
#endif

/* The cells in local memory: the tile's MT_W / 2 x MT_H / 2, 4 around it
 * (8 samples) and one more right and below (the shift of the pattern). */
#define MC_W (MT_W / 2 + 9)
#define MC_H (MT_H / 2 + 9)
#define MC_N (MC_W * MC_H)
#define MC_AT(cx, cy) ((cy) * MC_W + (cx))

/* Steps 3-5 read, for the R site (cx, cy) and the B site (cx, cy), the
 * cross of cells around (cx, cy): d the colour differences (R - G at R
 * sites, r[], B - G at B sites, b[]) at the cells
 *   r: (-1, 0), (0, 0), (1, 0), (0, -1), (0, 1), (1, 1)
 *   b: (-1, -1), (0, -1), (-1, 0), (0, 0), (1, 0), (0, 1)
 * (the G sites' R - G and B - G are the means of the two R (B) neighbours'
 * along the row or column that holds them). For MT_RUN3 cells down column
 * cx from the cell c0: the d of columns cx - 1 (r_l, b_l), cx (r_c, b_c),
 * cx + 1 (r_r, b_r) over the rows that the crosses read, each read once,
 * then the cross of the k-th cell. */
#define RUN_DECLARE float r_l[MT_RUN3], r_c[MT_RUN3 + 2], r_r[MT_RUN3 + 1], \
    b_l[MT_RUN3 + 1], b_c[MT_RUN3 + 2], b_r[MT_RUN3]
#define LOAD_RUN(arr, c0) do { \
    _Pragma ("unroll") for (int k_ = 0; k_ < MT_RUN3 + 2; k_++) { \
      r_c[k_] = (arr)[(c0) + (k_ - 1) * MC_W]; b_c[k_] = (arr)[MC_N + (c0) + (k_ - 1) * MC_W]; } \
    _Pragma ("unroll") for (int k_ = 0; k_ < MT_RUN3; k_++) { \
      r_l[k_] = (arr)[(c0) - 1 + k_ * MC_W]; b_r[k_] = (arr)[MC_N + (c0) + 1 + k_ * MC_W]; } \
    _Pragma ("unroll") for (int k_ = 0; k_ < MT_RUN3 + 1; k_++) { \
      r_r[k_] = (arr)[(c0) + 1 + k_ * MC_W]; b_l[k_] = (arr)[MC_N + (c0) - 1 + (k_ - 1) * MC_W]; } \
  } while (0)
#define CROSS_OF(k, r, b) do { \
    r[0] = r_l[k]; r[1] = r_c[(k) + 1]; r[2] = r_r[k]; r[3] = r_c[k]; r[4] = r_c[(k) + 2]; \
    r[5] = r_r[(k) + 1]; \
    b[0] = b_l[k]; b[1] = b_c[k]; b[2] = b_l[(k) + 1]; b[3] = b_c[(k) + 1]; b[4] = b_r[k]; \
    b[5] = b_c[(k) + 2]; } while (0)

/* The six G sites around the cell: Gr (cx - 1, cy), Gr (cx, cy), Gb (cx,
 * cy - 1), Gb (cx, cy), Gb (cx + 1, cy), Gr (cx, cy + 1); rg and bg their
 * R - G and B - G. */
inline void green_sites (const float * r, const float * b, float * rg, float * bg)
{
  rg[0] = 0.5f * (r[0] + r[1]);
  bg[0] = 0.5f * (b[0] + b[2]);
  rg[1] = 0.5f * (r[1] + r[2]);
  bg[1] = 0.5f * (b[1] + b[3]);
  rg[2] = 0.5f * (r[3] + r[1]);
  bg[2] = 0.5f * (b[0] + b[1]);
  rg[3] = 0.5f * (r[1] + r[4]);
  bg[3] = 0.5f * (b[2] + b[3]);
  rg[4] = 0.5f * (r[2] + r[5]);
  bg[4] = 0.5f * (b[3] + b[4]);
  rg[5] = 0.5f * (r[4] + r[5]);
  bg[5] = 0.5f * (b[3] + b[5]);
}

/* The G neighbours (of the six) along the chosen direction: of the R site
 * Gr (cx - 1, cy), Gr (cx, cy) or Gb (cx, cy - 1), Gb (cx, cy); of the B
 * site Gb (cx, cy), Gb (cx + 1, cy) or Gr (cx, cy), Gr (cx, cy + 1). */
#define R_MINUS(h, v) ((h) ? v[0] : v[2])
#define R_PLUS(h, v) ((h) ? v[1] : v[3])
#define B_MINUS(h, v) ((h) ? v[3] : v[1])
#define B_PLUS(h, v) ((h) ? v[4] : v[5])

/* The white-balance statistics of the tile's 2 x 2 cells at even
 * coordinates, as cell_sums counts them: (R, G, B, cells) over those of the
 * work-item `lid` (a few samples a work-item, no window). */
inline uint4 tile_stats (__global const uchar * in, int in_stride, int width, int height,
    int maxv, int black, int lo, int hi, int phase_x, int phase_y, int tx, int ty, int lid)
{
  uint4 acc = (uint4) (0);
#pragma unroll 1
  for (int n = lid; n < (MT_W / 2) * (MT_H / 2); n += MENON_N) {
    const int x = tx + 2 * (n % (MT_W / 2)), y = ty + 2 * (n / (MT_W / 2));
    if (x + 1 < width && y + 1 < height) {
      __global const in_t *r0 = (__global const in_t *) (in + (size_t) y * in_stride) + x;
      __global const in_t *r1 = (__global const in_t *) (in + (size_t) (y + 1) * in_stride) + x;
      const int4 v = max (min ((int4) (r0[0], r0[1], r1[0], r1[1]), (int4) (maxv)) - black, 0);
      const int top = max (max (v.s0, v.s1), max (v.s2, v.s3));
      if (top >= lo && top < hi) {
        /* R at (phase_x, phase_y) of the cell, B opposite */
        const int r = phase_y ? (phase_x ? v.s3 : v.s2) : (phase_x ? v.s1 : v.s0);
        const int b = phase_y ? (phase_x ? v.s0 : v.s1) : (phase_x ? v.s2 : v.s3);
        acc += (uint4) ((uint) r, (uint) (v.s0 + v.s1 + v.s2 + v.s3 - r - b), (uint) b, 1u);
      }
    }
  }
  return acc;
}

__kernel __attribute__ ((reqd_work_group_size (MENON_LX, MENON_LY, 1)))
void debayer_menon (CAMERA_ARGS, int phase_x, int phase_y)
{
  /* By cells (R of the cell at (0, 0), B at (1, 1)), planes of MC_N: */
  __local float ls[4 * MC_N];   /* samples (black level, gains): R, Gr, Gb, B */
  __local float la[4 * MC_N];   /* C_H, C_V at R, at B (step 1); then d', the
                                 * refined R - G, B - G, and step 4's B - R, R - B */
  /* step 2's R - G, B - G (2 MC_N floats); then the statistics' sums */
  __local uint4 ld_sums[(2 * MC_N > 4 * MENON_N ? 2 * MC_N : 4 * MENON_N) / 4 + 1];
  __local float *const ld = (__local float *) ld_sums;
  __local uchar lh[MC_N];       /* the decisions: 1 R horizontal, 2 B */
#if !MENON_PIXELS
  __local float rgb[3][MT_H][MT_W];     /* the tile's demosaiced R, G, B */
#endif
  const int lid = (int) (get_local_id (1) * MENON_LX + get_local_id (0));
  const int tx = (int) get_group_id (0) * MT_W, ty = (int) get_group_id (1) * MT_H;
  /* the sample of cell (0, 0)'s R site (the tile at local 8 + phase) */
  const int x0 = tx - 8 - phase_x, y0 = ty - 8 - phase_y;

  /* the samples (mirrored outside the image), black level, white balance */
  const float top = (float) maxv;
  /* white balance clips at full scale, then the exposure gain (gain.s3, in
   * the factors) at full scale again */
  const float top_in = top * min (gain.s3, 1.0f);
  const bool inside = x0 >= 0 && y0 >= 0 && x0 + 2 * MC_W <= width && y0 + 2 * MC_H <= height;
  /* every load of the work-item issued before the first store (one wait
   * for global memory, not one an iteration) */
#define LOADS ((MC_N + MENON_N - 1) / MENON_N)
  int4 raw[LOADS];
#pragma unroll
  for (int i = 0; i < LOADS; i++) {
    const int n = min (lid + i * MENON_N, MC_N - 1);
    const int cy = n / MC_W, cx = n - cy * MC_W;
    const int xa = inside ? x0 + 2 * cx : border_reflect101 (x0 + 2 * cx, width);
    const int xb = inside ? xa + 1 : border_reflect101 (x0 + 2 * cx + 1, width);
    __global const in_t *ra = (__global const in_t *) (in + in_offset + (size_t) (inside ?
            y0 + 2 * cy : border_reflect101 (y0 + 2 * cy, height)) * in_stride);
    __global const in_t *rb = (__global const in_t *) (in + in_offset + (size_t) (inside ?
            y0 + 2 * cy + 1 : border_reflect101 (y0 + 2 * cy + 1, height)) * in_stride);
    raw[i] = (int4) (ra[xa], ra[xb], rb[xa], rb[xb]);
  }
#pragma unroll
  for (int i = 0; i < LOADS; i++) {
    const int n = lid + i * MENON_N;
    if (n < MC_N) {
      const int4 v = min (raw[i], (int4) (maxv));
      ls[n] = min (convert_float (max (v.s0 - black, 0)) * gain.s0, top_in);
      ls[MC_N + n] = min (convert_float (max (v.s1 - black, 0)) * gain.s1, top_in);
      ls[2 * MC_N + n] = min (convert_float (max (v.s2 - black, 0)) * gain.s1, top_in);
      ls[3 * MC_N + n] = min (convert_float (max (v.s3 - black, 0)) * gain.s2, top_in);
    }
  }
#undef LOADS
  barrier (CLK_LOCAL_MEM_FENCE);

  /* step 1, cells 1 .. MC - 2, MT_RUN1 down a column a work-item (the
   * samples of the column read once): C_H, C_V at the R and B sites */
#define RUNS1 ((MC_H - 2 + MT_RUN1 - 1) / MT_RUN1)
#pragma unroll 1
  for (int n = lid; n < (MC_W - 2) * RUNS1; n += MENON_N) {
    const int cx = 1 + n % (MC_W - 2);
    const int cy0 = min (1 + MT_RUN1 * (n / (MC_W - 2)), MC_H - 1 - MT_RUN1);
    __local const float *sr = ls, *sgr = ls + MC_N, *sgb = ls + 2 * MC_N, *sb = ls + 3 * MC_N;
    /* the column's R, B, Gb (above the cells' B) and Gr (below their R)
     * from the row before the run to the row after it */
    float r[MT_RUN1 + 2], b[MT_RUN1 + 2], gb[MT_RUN1 + 2], gr[MT_RUN1 + 2];
#pragma unroll
    for (int k = 0; k < MT_RUN1 + 2; k++) {
      const int c = MC_AT (cx, cy0 - 1 + k);
      r[k] = sr[c];
      b[k] = sb[c];
      gb[k] = sgb[c];
      gr[k] = sgr[c];
    }
#pragma unroll
    for (int k = 1; k <= MT_RUN1; k++) {
      const int c = MC_AT (cx, cy0 - 1 + k);
      const float r2 = 2.0f * r[k], b2 = 2.0f * b[k];
      la[c] = (r2 - 2.0f * (sgr[c - 1] + gr[k]) + sr[c - 1] + sr[c + 1]) * 0.25f;
      la[MC_N + c] = (r2 - 2.0f * (gb[k - 1] + gb[k]) + r[k - 1] + r[k + 1]) * 0.25f;
      la[2 * MC_N + c] = (b2 - 2.0f * (gb[k] + sgb[c + 1]) + sb[c - 1] + sb[c + 1]) * 0.25f;
      la[3 * MC_N + c] = (b2 - 2.0f * (gr[k] + gr[k + 1]) + b[k - 1] + b[k + 1]) * 0.25f;
    }
  }
#undef RUNS1
  barrier (CLK_LOCAL_MEM_FENCE);

  /* step 2, cells 2 .. MC - 3, MT_RUN down a column a work-item (the last
   * run of a column overlaps the one before): the gradient sums from the
   * differences of the C_H (C_V) of neighbouring sites along rows
   * (columns), each computed once for the run */
#define RUNS ((MC_H - 4 + MT_RUN - 1) / MT_RUN)
#pragma unroll 1
  for (int n = lid; n < (MC_W - 4) * RUNS; n += MENON_N) {
    const int cx = 2 + n % (MC_W - 4);
    const int cy0 = min (2 + MT_RUN * (n / (MC_W - 4)), MC_H - 2 - MT_RUN);
    /* rows cy0 - 1 .. cy0 + MT_RUN, columns cx - 1 .. cx + 1:
     * hr, hb |C_H (x) - C_H (x + 1)| at R, B sites (x = cx - 1, cx);
     * vr, vb |C_V (y) - C_V (y + 1)| (columns cx - 1 .. cx + 1) */
    float hr[MT_RUN + 2][2], hb[MT_RUN + 2][2], vr[MT_RUN + 1][3], vb[MT_RUN + 1][3];
    float cvr[3], cvb[3], mid[MT_RUN + 2][4];     /* C_H, C_V at R, at B of the column */
#pragma unroll
    for (int k = 0; k < MT_RUN + 2; k++) {
      const int c = MC_AT (cx, cy0 - 1 + k);
      const float r0 = la[c - 1], r1 = la[c], r2 = la[c + 1];
      const float b0 = la[2 * MC_N + c - 1], b1 = la[2 * MC_N + c], b2 = la[2 * MC_N + c + 1];
      hr[k][0] = fabs (r0 - r1);
      hr[k][1] = fabs (r1 - r2);
      hb[k][0] = fabs (b0 - b1);
      hb[k][1] = fabs (b1 - b2);
      mid[k][0] = r1;
      mid[k][2] = b1;
      float nr[3], nb[3];
#pragma unroll
      for (int j = 0; j < 3; j++) {
        nr[j] = la[MC_N + c - 1 + j];
        nb[j] = la[3 * MC_N + c - 1 + j];
        if (k > 0) {
          vr[k - 1][j] = fabs (cvr[j] - nr[j]);
          vb[k - 1][j] = fabs (cvb[j] - nb[j]);
        }
        cvr[j] = nr[j];
        cvb[j] = nb[j];
      }
      mid[k][1] = nr[1];
      mid[k][3] = nb[1];
      if (k < 2)
        continue;
      /* the cell of the row before: its neighbours' rows are loaded */
      const int j = k - 1;
      const int cj = c - MC_W;
      /* the sums in the order of the definition (exact for integer
       * samples in any order) */
      const float hr_sum = 3.0f * (hr[j][1] + hr[j][0]) + hr[j - 1][1] + hr[j - 1][0] +
          hr[j + 1][1] + hr[j + 1][0] + hb[j - 1][0] + hb[j][0];
      const float vr_sum = 3.0f * (vr[j][1] + vr[j - 1][1]) + vr[j][0] + vr[j - 1][0] +
          vr[j][2] + vr[j - 1][2] + vb[j - 1][0] + vb[j - 1][1];
      const float hb_sum = 3.0f * (hb[j][1] + hb[j][0]) + hb[j - 1][1] + hb[j - 1][0] +
          hb[j + 1][1] + hb[j + 1][0] + hr[j][1] + hr[j + 1][1];
      const float vb_sum = 3.0f * (vb[j][1] + vb[j - 1][1]) + vb[j][0] + vb[j - 1][0] +
          vb[j][2] + vb[j - 1][2] + vr[j][1] + vr[j][2];
      const bool h_r = vr_sum >= hr_sum, h_b = vb_sum >= hb_sum;
      ld[cj] = h_r ? mid[j][0] : mid[j][1];
      ld[MC_N + cj] = h_b ? mid[j][2] : mid[j][3];
      lh[cj] = (uchar) (h_r | (h_b << 1));
    }
  }
#undef RUNS
  barrier (CLK_LOCAL_MEM_FENCE);

  /* steps 3 (R and B at G sites, as means), 4 and 5's green at R and B
   * sites, cells 3 .. MC - 4, MT_RUN3 down a column a work-item */
#define RUNS3 ((MC_H - 6 + MT_RUN3 - 1) / MT_RUN3)
#pragma unroll 1
  for (int n = lid; n < (MC_W - 6) * RUNS3; n += MENON_N) {
    const int cx = 3 + n % (MC_W - 6);
    const int c0 = MC_AT (cx, min (3 + MT_RUN3 * (n / (MC_W - 6)), MC_H - 3 - MT_RUN3));
    RUN_DECLARE;
    LOAD_RUN (ld, c0);
#pragma unroll
    for (int k = 0; k < MT_RUN3; k++) {
      const int c = c0 + k * MC_W;
      float r[6], b[6], rg[6], bg[6];
      CROSS_OF (k, r, b);
      green_sites (r, b, rg, bg);
      const int h = lh[c];
      const bool hr = h & 1, hb = h & 2;
      la[c] = (r[1] + R_MINUS (hr, rg) + R_PLUS (hr, rg)) * (1.0f / 3.0f);
      /* B - R */
      la[2 * MC_N + c] = 0.5f * ((R_MINUS (hr, bg) - R_MINUS (hr, rg)) +
          (R_PLUS (hr, bg) - R_PLUS (hr, rg)));
      la[MC_N + c] = (b[3] + B_MINUS (hb, bg) + B_PLUS (hb, bg)) * (1.0f / 3.0f);
      /* R - B */
      la[3 * MC_N + c] = 0.5f * ((B_MINUS (hb, rg) - B_MINUS (hb, bg)) +
          (B_PLUS (hb, rg) - B_PLUS (hb, bg)));
    }
  }
#undef RUNS3
  barrier (CLK_LOCAL_MEM_FENCE);

  /* step 5's R and B at G sites and at B and R sites, cells 4 .. 4 + MT / 2
   * (the tile's pixels among them), MT_RUN3 down a column a work-item */
#define RUNS5 ((MT_H / 2 + MT_RUN3) / MT_RUN3)
#pragma unroll 1
  for (int n = lid; n < (MT_W / 2 + 1) * RUNS5; n += MENON_N) {
    const int cx = 4 + n % (MT_W / 2 + 1);
    const int cy0 = min (4 + MT_RUN3 * (n / (MT_W / 2 + 1)), 5 + MT_H / 2 - MT_RUN3);
    const int c0 = MC_AT (cx, cy0);
    RUN_DECLARE;
    LOAD_RUN (la, c0);
#pragma unroll
    for (int k = 0; k < MT_RUN3; k++) {
      const int cy = cy0 + k, c = c0 + k * MC_W;
      float r[6], b[6], rg[6], bg[6];
      CROSS_OF (k, r, b);
      green_sites (r, b, rg, bg);
      const int h = lh[c];
      const float sr = ls[c], sgr = ls[MC_N + c], sgb = ls[2 * MC_N + c], sb = ls[3 * MC_N + c];
      float red[4], green[4], blue[4];    /* R, Gr, Gb, B sites */
      const bool hr = h & 1, hb = h & 2;
      red[0] = sr;
      green[0] = sr - r[1];
      blue[0] = sr - (-la[2 * MC_N + c] + (R_MINUS (hr, rg) - R_MINUS (hr, bg)) +
          (R_PLUS (hr, rg) - R_PLUS (hr, bg))) * (1.0f / 3.0f);
      red[1] = sgr + rg[1];
      green[1] = sgr;
      blue[1] = sgr + bg[1];
      red[2] = sgb + rg[3];
      green[2] = sgb;
      blue[2] = sgb + bg[3];
      red[3] = sb + (la[3 * MC_N + c] + (B_MINUS (hb, rg) - B_MINUS (hb, bg)) +
          (B_PLUS (hb, rg) - B_PLUS (hb, bg))) * (1.0f / 3.0f);
      green[3] = sb - b[3];
      blue[3] = sb;
#pragma unroll
      for (int q = 0; q < 4; q++) {
        /* the pixel, relative to the tile */
        const int px = 2 * (cx - 4) + (q & 1) - phase_x, py = 2 * (cy - 4) + (q >> 1) - phase_y;
        if (px < 0 || px >= MT_W || py < 0 || py >= MT_H)
          continue;
        const float rr = clamp (red[q], 0.0f, top), gg = clamp (green[q], 0.0f, top),
            bb = clamp (blue[q], 0.0f, top);
#if MENON_PIXELS
        /* stages 4-6 */
        const int x = tx + px, y = ty + py;
        if (x < width && y < height) {
#if MENON_COLOUR
          const float ro = transfer1 (clamp (mat.s0 * rr + mat.s1 * gg + mat.s2 * bb, 0.0f,
                  1.0f), tf);
          const float go = transfer1 (clamp (mat.s3 * rr + mat.s4 * gg + mat.s5 * bb, 0.0f,
                  1.0f), tf);
          const float bo = transfer1 (clamp (mat.s6 * rr + mat.s7 * gg + mat.s8 * bb, 0.0f,
                  1.0f), tf);
#else
          /* the matrix is 1 / maxv (exactly as above, where the other terms
           * add zeros), the curve linear */
          const float ro = clamp (mat.s0 * rr, 0.0f, 1.0f), go = clamp (mat.s4 * gg, 0.0f, 1.0f),
              bo = clamp (mat.s8 * bb, 0.0f, 1.0f);
#endif
          put_pixel (out + out_offset + (size_t) y * out_stride, x,
              convert_uint (ro * OUT_MAX + 0.5f), convert_uint (go * OUT_MAX + 0.5f),
              convert_uint (bo * OUT_MAX + 0.5f), layout);
        }
#else
        rgb[0][py][px] = rr;
        rgb[1][py][px] = gg;
        rgb[2][py][px] = bb;
#endif
      }
    }
  }
#undef RUNS5

#if !MENON_PIXELS
  barrier (CLK_LOCAL_MEM_FENCE);
  /* stages 4-6 by 8 x 2 blocks (NV12 / I420: whole 2 x 2 chroma blocks) */
  if (lid < (MT_W / BLOCK_W) * (MT_H / 2)) {
    const int bx = lid % (MT_W / BLOCK_W), by = lid / (MT_W / BLOCK_W);
    const int bx0 = tx + BLOCK_W * bx, by0 = ty + 2 * by;
    if (bx0 < width && by0 < height) {
      float8 red[2], green[2], blue[2];
      for (int dy = 0; dy < 2; dy++) {
        red[dy] = vload8 (0, &rgb[0][2 * by + dy][BLOCK_W * bx]);
        green[dy] = vload8 (0, &rgb[1][2 * by + dy][BLOCK_W * bx]);
        blue[dy] = vload8 (0, &rgb[2][2 * by + dy][BLOCK_W * bx]);
      }
      camera_output (CAMERA_PASS, bx0, by0, red, green, blue);
    }
  }
#endif
  if (stats)
    add_group_stats (ld_sums, tile_stats (in + in_offset, in_stride, width, height, maxv,
            black, lo, hi, phase_x, phase_y, tx, ty, lid), lid, MENON_N, totals,
        (int) (get_group_id (1) * get_num_groups (0) + get_group_id (0)));
}
