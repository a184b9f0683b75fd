/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Menon, Andriani and Calvagno 2007, "Demosaicing with directional filtering
 * and a posteriori decision" (IEEE TIP 16 (1)), with its refining step.
 * Appended to debayer.cl built with -D CAMERA=1 -D MENON=1: the camera
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
 * sample outside the image, reflect-101, as the other methods), then, with
 * a barrier between them, over the cells the next steps need:
 *   step 1 (C_H, C_V at R and B sites; margin 3 cells);
 *   step 2 (the decision and the chosen difference d = S - G at R and B
 *     sites; margin 2), MT_RUN cells down a column a work-item, the
 *     differences of neighbouring C_H (C_V) shared by the cells' sums;
 *   steps 3, 4 and 5's green (margin 1): the R - G (B - G) of step 3 at G
 *     sites is the mean of the neighbours' d, so step 3 is not stored: at
 *     R (B) sites the refined d' = (d + the two G neighbours' R - G) / 3,
 *     and step 4's B - R (R - B) from the G neighbours' differences;
 *   step 5's R and B (the tile): at G sites S + the mean of d' at the
 *     neighbours, at R (B) sites from step 4's value and the G neighbours'
 *     refined R - B, then stages 4-6 of the pixel (MENON_PIXELS: RGB
 *     formats, GRAY8), or into local memory for camera_output by 8 x 2
 *     blocks (NV12 / I420, unaligned rows). */

#ifndef MT_W
#define MT_W 32                 /* output tile (the host may set another) */
#define MT_H 16
#endif
#ifndef MT_RUN
#define MT_RUN 2                /* cells a work-item decides down a column */
#endif
#define MENON_LX 32             /* work-group (the host enqueues it so) */
#define MENON_LY 8
#define MENON_N (MENON_LX * MENON_LY)
#ifndef MENON_PIXELS
#define MENON_PIXELS 0          /* 1: output by cells (not YUV; 4-byte rows) */
#endif
#if (MT_W / BLOCK_W) * (MT_H / 2) > MENON_N || MT_W % BLOCK_W || MT_H % 2
#error "a tile must be at most MENON_N blocks of 8 x 2"
#endif

/* The cells in local memory: the tile's MT_W / 2 x MT_H / 2, 4 around it
 * (8 samples) and one more right and below (the shift of the pattern). */
#define MC_W (MT_W / 2 + 9)
#define MC_H (MT_H / 2 + 9)
#define MC_N (MC_W * MC_H)
#define MC_AT(cx, cy) ((cy) * MC_W + (cx))

/* Steps 3-5's quantities in the cross of cells around (cx, cy) that the R
 * site (cx, cy) and the B site (cx, cy) read: d the colour differences
 * (R - G at R sites, r[], B - G at B sites, b[]) at the cells
 *   r: (-1, 0), (0, 0), (1, 0), (0, -1), (0, 1), (1, 1)
 *   b: (-1, -1), (0, -1), (-1, 0), (0, 0), (1, 0), (0, 1)
 * The G sites' R - G and B - G are the means of the two R (B) neighbours'
 * along the row or column that holds them. */
#define LOAD_CROSS(arr, c, r, b) do { \
    r[0] = (arr)[(c) - 1]; r[1] = (arr)[(c)]; r[2] = (arr)[(c) + 1]; \
    r[3] = (arr)[(c) - MC_W]; r[4] = (arr)[(c) + MC_W]; r[5] = (arr)[(c) + MC_W + 1]; \
    b[0] = (arr)[MC_N + (c) - MC_W - 1]; b[1] = (arr)[MC_N + (c) - MC_W]; \
    b[2] = (arr)[MC_N + (c) - 1]; b[3] = (arr)[MC_N + (c)]; b[4] = (arr)[MC_N + (c) + 1]; \
    b[5] = (arr)[MC_N + (c) + MC_W]; } while (0)

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
#define R_NEIGHBOURS(h, m, p) do { m = (h) ? 0 : 2; p = (h) ? 1 : 3; } while (0)
#define B_NEIGHBOURS(h, m, p) do { m = (h) ? 3 : 1; p = (h) ? 4 : 5; } while (0)

__kernel __attribute__ ((reqd_work_group_size (MENON_LX, MENON_LY, 1)))
void debayer_menon (CAMERA_ARGS, int phase_x, int phase_y)
{
  /* By cells (R of the cell at (0, 0), B at (1, 1)), planes of MC_N: */
  __local float ls[4 * MC_N];   /* samples (black level, gains): R, Gr, Gb, B */
  __local float la[4 * MC_N];   /* C_H, C_V at R, at B (step 1); then d', the
                                 * refined R - G, B - G, and step 4's B - R, R - B */
  __local float ld[2 * MC_N];   /* step 2's R - G, B - G */
  __local uchar lh[MC_N];       /* the decisions: 1 R horizontal, 2 B */
  __local uint4 sums[MENON_N];
#if !MENON_PIXELS
  __local float rgb[3][MT_H][MT_W];     /* the tile's demosaiced R, G, B */
#endif
  const int lid = (int) (get_local_id (1) * MENON_LX + get_local_id (0));
  const int tx = (int) get_group_id (0) * MT_W, ty = (int) get_group_id (1) * MT_H;
  /* the sample of cell (0, 0)'s R site (the tile at local 8 + phase) */
  const int x0 = tx - 8 - phase_x, y0 = ty - 8 - phase_y;

  /* the samples (mirrored outside the image), black level, white balance */
  const float top = (float) maxv;
  for (int n = lid; n < MC_N; n += MENON_N) {
    const int cy = n / MC_W, cx = n - cy * MC_W;
    const int xa = border_reflect101 (x0 + 2 * cx, width);
    const int xb = border_reflect101 (x0 + 2 * cx + 1, width);
    __global const in_t *ra = (__global const in_t *) (in + in_offset +
        (size_t) border_reflect101 (y0 + 2 * cy, height) * in_stride);
    __global const in_t *rb = (__global const in_t *) (in + in_offset +
        (size_t) border_reflect101 (y0 + 2 * cy + 1, height) * in_stride);
    const int v[4] = { min ((int) ra[xa], maxv), min ((int) ra[xb], maxv),
      min ((int) rb[xa], maxv), min ((int) rb[xb], maxv) };
    ls[n] = min (convert_float (max (v[0] - black, 0)) * gain.s0, top);
    ls[MC_N + n] = min (convert_float (max (v[1] - black, 0)) * gain.s1, top);
    ls[2 * MC_N + n] = min (convert_float (max (v[2] - black, 0)) * gain.s1, top);
    ls[3 * MC_N + n] = min (convert_float (max (v[3] - black, 0)) * gain.s2, top);
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  /* step 1, cells 1 .. MC - 2: C_H, C_V at the R and B sites */
  for (int n = lid; n < (MC_W - 2) * (MC_H - 2); n += MENON_N) {
    const int cy = 1 + n / (MC_W - 2), cx = 1 + n % (MC_W - 2);
    const int c = MC_AT (cx, cy);
    __local const float *sr = ls, *sgr = ls + MC_N, *sgb = ls + 2 * MC_N, *sb = ls + 3 * MC_N;
    const float r2 = 2.0f * sr[c], b2 = 2.0f * sb[c];
    la[c] = (r2 - 2.0f * (sgr[c - 1] + sgr[c]) + sr[c - 1] + sr[c + 1]) * 0.25f;
    la[MC_N + c] = (r2 - 2.0f * (sgb[c - MC_W] + sgb[c]) + sr[c - MC_W] + sr[c + MC_W]) * 0.25f;
    la[2 * MC_N + c] = (b2 - 2.0f * (sgb[c] + sgb[c + 1]) + sb[c - 1] + sb[c + 1]) * 0.25f;
    la[3 * MC_N + c] = (b2 - 2.0f * (sgr[c] + sgr[c + MC_W]) + sb[c - MC_W] + sb[c + MC_W]) *
        0.25f;
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  /* step 2, cells 2 .. MC - 3, MT_RUN down a column a work-item (the last
   * run of a column overlaps the one before): the gradient sums from the
   * differences of the C_H (C_V) of neighbouring sites along rows
   * (columns), each computed once for the run */
#define RUNS ((MC_H - 4 + MT_RUN - 1) / MT_RUN)
  for (int n = lid; n < (MC_W - 4) * RUNS; n += MENON_N) {
    const int cx = 2 + n % (MC_W - 4);
    const int cy0 = min (2 + MT_RUN * (n / (MC_W - 4)), MC_H - 2 - MT_RUN);
    /* rows cy0 - 1 .. cy0 + MT_RUN, columns cx - 1 .. cx + 1:
     * hr, hb |C_H (x) - C_H (x + 1)| at R, B sites (x = cx - 1, cx);
     * vr, vb |C_V (y) - C_V (y + 1)| (columns cx - 1 .. cx + 1) */
    float hr[MT_RUN + 2][2], hb[MT_RUN + 2][2], vr[MT_RUN + 1][3], vb[MT_RUN + 1][3];
    float cvr[3], cvb[3];
#pragma unroll
    for (int k = 0; k < MT_RUN + 2; k++) {
      const int c = MC_AT (cx, cy0 - 1 + k);
      const float r0 = la[c - 1], r1 = la[c], r2 = la[c + 1];
      const float b0 = la[2 * MC_N + c - 1], b1 = la[2 * MC_N + c], b2 = la[2 * MC_N + c + 1];
      hr[k][0] = fabs (r0 - r1);
      hr[k][1] = fabs (r1 - r2);
      hb[k][0] = fabs (b0 - b1);
      hb[k][1] = fabs (b1 - b2);
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
    }
#pragma unroll
    for (int k = 1; k <= MT_RUN; k++) {
      const int c = MC_AT (cx, cy0 - 1 + k);
      /* the sums in the order of the definition (exact for integer
       * samples in any order) */
      const float hr_sum = 3.0f * (hr[k][1] + hr[k][0]) + hr[k - 1][1] + hr[k - 1][0] +
          hr[k + 1][1] + hr[k + 1][0] + hb[k - 1][0] + hb[k][0];
      const float vr_sum = 3.0f * (vr[k][1] + vr[k - 1][1]) + vr[k][0] + vr[k - 1][0] +
          vr[k][2] + vr[k - 1][2] + vb[k - 1][0] + vb[k - 1][1];
      const float hb_sum = 3.0f * (hb[k][1] + hb[k][0]) + hb[k - 1][1] + hb[k - 1][0] +
          hb[k + 1][1] + hb[k + 1][0] + hr[k][1] + hr[k + 1][1];
      const float vb_sum = 3.0f * (vb[k][1] + vb[k - 1][1]) + vb[k][0] + vb[k - 1][0] +
          vb[k][2] + vb[k - 1][2] + vr[k][1] + vr[k][2];
      const bool h_r = vr_sum >= hr_sum, h_b = vb_sum >= hb_sum;
      ld[c] = h_r ? la[c] : la[MC_N + c];
      ld[MC_N + c] = h_b ? la[2 * MC_N + c] : la[3 * MC_N + c];
      lh[c] = (uchar) (h_r | (h_b << 1));
    }
  }
#undef RUNS
  barrier (CLK_LOCAL_MEM_FENCE);

  /* steps 3 (R and B at G sites, as means), 4 and 5's green at R and B
   * sites, cells 3 .. MC - 4 */
  for (int n = lid; n < (MC_W - 6) * (MC_H - 6); n += MENON_N) {
    const int cy = 3 + n / (MC_W - 6), cx = 3 + n % (MC_W - 6);
    const int c = MC_AT (cx, cy);
    float r[6], b[6], rg[6], bg[6];
    LOAD_CROSS (ld, c, r, b);
    green_sites (r, b, rg, bg);
    const int h = lh[c];
    int m, p;
    R_NEIGHBOURS (h & 1, m, p);
    la[c] = (r[1] + rg[m] + rg[p]) * (1.0f / 3.0f);
    la[2 * MC_N + c] = 0.5f * ((bg[m] - rg[m]) + (bg[p] - rg[p]));     /* B - R */
    B_NEIGHBOURS (h & 2, m, p);
    la[MC_N + c] = (b[3] + bg[m] + bg[p]) * (1.0f / 3.0f);
    la[3 * MC_N + c] = 0.5f * ((rg[m] - bg[m]) + (rg[p] - bg[p]));     /* R - B */
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  /* step 5's R and B at G sites and at B and R sites, cells 4 .. 4 + MT / 2
   * (the tile's pixels among them) */
  for (int n = lid; n < (MT_W / 2 + 1) * (MT_H / 2 + 1); n += MENON_N) {
    const int cy = 4 + n / (MT_W / 2 + 1), cx = 4 + n % (MT_W / 2 + 1);
    const int c = MC_AT (cx, cy);
    float r[6], b[6], rg[6], bg[6];
    LOAD_CROSS (la, c, r, b);
    green_sites (r, b, rg, bg);
    const int h = lh[c];
    const float sr = ls[c], sgr = ls[MC_N + c], sgb = ls[2 * MC_N + c], sb = ls[3 * MC_N + c];
    float red[4], green[4], blue[4];    /* R, Gr, Gb, B sites */
    int m, p;
    R_NEIGHBOURS (h & 1, m, p);
    red[0] = sr;
    green[0] = sr - r[1];
    blue[0] = sr - (-la[2 * MC_N + c] + (rg[m] - bg[m]) + (rg[p] - bg[p])) * (1.0f / 3.0f);
    red[1] = sgr + rg[1];
    green[1] = sgr;
    blue[1] = sgr + bg[1];
    red[2] = sgb + rg[3];
    green[2] = sgb;
    blue[2] = sgb + bg[3];
    B_NEIGHBOURS (h & 2, m, p);
    red[3] = sb + (la[3 * MC_N + c] + (rg[m] - bg[m]) + (rg[p] - bg[p])) * (1.0f / 3.0f);
    green[3] = sb - b[3];
    blue[3] = sb;
#pragma unroll
    for (int k = 0; k < 4; k++) {
      /* the pixel, relative to the tile */
      const int px = 2 * (cx - 4) + (k & 1) - phase_x, py = 2 * (cy - 4) + (k >> 1) - phase_y;
      if (px < 0 || px >= MT_W || py < 0 || py >= MT_H)
        continue;
      const float rr = clamp (red[k], 0.0f, top), gg = clamp (green[k], 0.0f, top),
          bb = clamp (blue[k], 0.0f, top);
#if MENON_PIXELS
      /* stages 4-6 */
      const int x = tx + px, y = ty + py;
      if (x < width && y < height) {
        const float ro = transfer1 (clamp (mat.s0 * rr + mat.s1 * gg + mat.s2 * bb, 0.0f, 1.0f), tf);
        const float go = transfer1 (clamp (mat.s3 * rr + mat.s4 * gg + mat.s5 * bb, 0.0f, 1.0f), tf);
        const float bo = transfer1 (clamp (mat.s6 * rr + mat.s7 * gg + mat.s8 * bb, 0.0f, 1.0f), tf);
        put_pixel (out + out_offset + (size_t) y * out_stride, x, convert_uint (ro * OUT_MAX + 0.5f),
            convert_uint (go * OUT_MAX + 0.5f), convert_uint (bo * OUT_MAX + 0.5f), layout);
      }
#else
      rgb[0][py][px] = rr;
      rgb[1][py][px] = gg;
      rgb[2][py][px] = bb;
#endif
    }
  }

  uint4 cells = (uint4) (0);
#if MENON_PIXELS
  /* the white-balance statistics by 8 x 2 blocks */
  if (stats && lid < (MT_W / BLOCK_W) * (MT_H / 2)) {
    const int bx = tx + BLOCK_W * (lid % (MT_W / BLOCK_W)), by = ty + 2 * (lid / (MT_W / BLOCK_W));
    if (bx < width && by < height) {
      int8 raw_e[WIN_H], raw_o[WIN_H];
      load_window (in + in_offset, in_stride, width, height, maxv, bx, by, raw_e, raw_o);
      cells = cell_sums (raw_e, raw_o, bx, by, width, height, black, lo, hi, phase_x, phase_y);
    }
  }
#else
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
      if (stats) {
        int8 raw_e[WIN_H], raw_o[WIN_H];
        load_window (in + in_offset, in_stride, width, height, maxv, bx0, by0, raw_e, raw_o);
        cells = cell_sums (raw_e, raw_o, bx0, by0, width, height, black, lo, hi, phase_x,
            phase_y);
      }
      camera_output (CAMERA_PASS, bx0, by0, red, green, blue);
    }
  }
#endif
  if (stats)
    add_group_stats (sums, cells, lid, MENON_N, totals,
        (int) (get_group_id (1) * get_num_groups (0) + get_group_id (0)));
}
