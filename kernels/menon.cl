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
 * local memory: it loads the samples of the tile and 8 around it (mirrored
 * about the edge sample outside the image, reflect-101, as the other
 * methods), then each step over the part of the tile the next steps need
 * (margins 6, 4, 3, 2, 1, 0 pixels), 2 x 2 cells per work-item, with a
 * barrier between steps; the last step writes R, G, B of the tile to local
 * memory, and stages 4-6 run on them pixel by pixel with every work-item
 * (MENON_PIXELS), or for NV12 / I420 through camera_output by 8 x 2 blocks. */

#ifndef MT_W
#define MT_W 32                 /* output tile (the host may set another) */
#define MT_H 16
#endif
#define MT_M 8                  /* margin of the samples loaded */
#define LW (MT_W + 2 * MT_M)    /* local arrays: LW x LH */
#define LH (MT_H + 2 * MT_M)
#define LN (LW * LH)
#define MENON_LX 32             /* work-group (the host enqueues it so) */
#define MENON_LY 8
#define MENON_N (MENON_LX * MENON_LY)
#ifndef MENON_PIXELS
#define MENON_PIXELS 0          /* 1: output pixel by pixel (not YUV; 4-byte rows) */
#endif
#if (MT_W / BLOCK_W) * (MT_H / 2) > MENON_N || MT_W % BLOCK_W || MT_H % 2
#error "a tile must be at most MENON_N blocks of 8 x 2"
#endif

/* The pattern is an argument (phase_x, phase_y: RGGB shifted so), so that
 * one program serves the four. The sites of a 2 x 2 cell at even local
 * coordinates (x, y): R at
 * (x + RX, y + RY), B at (x + BX, y + BY); G of the R row at (x + BX, y + RY),
 * G of the B row at (x + RX, y + BY). */
#define RX phase_x
#define RY phase_y
#define BX (1 - phase_x)
#define BY (1 - phase_y)

#define AT(x, y) ((y) * LW + (x))

/* Cells of the square ring margin `m` (even) around the tile: cx, cy for
 * the n-th, n < cells_in (m). */
#define CELLS_W(m) ((MT_W + 2 * (m)) / 2)
#define CELLS_H(m) ((MT_H + 2 * (m)) / 2)
#define CELLS_IN(m) (CELLS_W (m) * CELLS_H (m))
#define CELL_X(n, m) (MT_M - (m) + 2 * ((n) % CELLS_W (m)))
#define CELL_Y(n, m) (MT_M - (m) + 2 * ((n) / CELLS_W (m)))

/* Step 1 at the site i: the colour differences along the row and the
 * column. */
inline void differences (__local const float * s, int i, __local float * ch, __local float * cv)
{
  const float c2 = 2.0f * s[i];
  ch[i] = (c2 - 2.0f * (s[i - 1] + s[i + 1]) + s[i - 2] + s[i + 2]) * 0.25f;
  cv[i] = (c2 - 2.0f * (s[i - LW] + s[i + LW]) + s[i - 2 * LW] + s[i + 2 * LW]) * 0.25f;
}

/* Step 2's gradient sum along the direction of unit step `a` (1: along
 * rows, LW: along columns), across it `b`. */
inline float gradients (__local const float * c, int i, int a, int b)
{
  const float c0 = c[i], cm = c[i - 2 * a], cp = c[i + 2 * a];
  const int u = i - 2 * b, d = i + 2 * b;
  const float u0 = c[u];
  const float d0 = c[d];
  return 3.0f * (fabs (c0 - cp) + fabs (cm - c0)) +
      fabs (u0 - c[u + 2 * a]) + fabs (c[u - 2 * a] - u0) +
      fabs (d0 - c[d + 2 * a]) + fabs (c[d - 2 * a] - d0) +
      fabs (c[i - b - a] - c[i - b + a]) + fabs (c[i + b - a] - c[i + b + a]);
}

/* Step 2 at the R or B site i: the direction (1 horizontal) and green. */
inline void decide (__local const float * s, __local const float * ch,
    __local const float * cv, int i, __local float * g, __local uchar * horiz)
{
  const bool h = gradients (cv, i, LW, 1) >= gradients (ch, i, 1, LW);
  horiz[i] = h;
  g[i] = s[i] - (h ? ch[i] : cv[i]);
}

/* mean (S - G) of the neighbours of i at distance 1 along `a`. */
inline float mean_diff (__local const float * s, __local const float * g, int i, int a)
{
  return 0.5f * ((s[i - a] - g[i - a]) + (s[i + a] - g[i + a]));
}

/* Steps 3 / 5 at the G site i, whose row holds `row_red` R (else B): R and B
 * from the differences S - G at the neighbours. */
inline void rb_at_green (__local const float * s, __local const float * g, int i, bool row_red,
    __local float * r, __local float * b)
{
  const float h = mean_diff (s, g, i, 1), v = mean_diff (s, g, i, LW);
  const float gi = s[i];
  r[i] = gi + (row_red ? h : v);
  b[i] = gi + (row_red ? v : h);
}

/* The chosen direction's unit step at site i. */
#define STEP(i) (horiz[i] ? 1 : LW)

__kernel __attribute__ ((reqd_work_group_size (MENON_LX, MENON_LY, 1)))
void debayer_menon (CAMERA_ARGS, int phase_x, int phase_y)
{
  __local float s[LN];          /* samples after black level and gains */
  __local float ch[LN], cv[LN]; /* C_H, C_V; then R, B at G sites (step 3, then refined)
                                 * and step 4 at R and B sites in ch; then the output R, B */
  __local float g[LN];          /* G: samples at G sites, step 2, then refined (step 5) */
  __local uchar horiz[LN];      /* the decision */
  __local uint4 sums[MENON_N];
  const int lid = (int) (get_local_id (1) * MENON_LX + get_local_id (0));
  const int tx = (int) get_group_id (0) * MT_W, ty = (int) get_group_id (1) * MT_H;

  /* the samples, black level and white balance applied */
  const float top = (float) maxv;
  for (int i = lid; i < LN; i += MENON_N) {
    const int ly = i / LW, lx = i - ly * LW;
    const int x = border_reflect101 (tx - MT_M + lx, width);
    const int y = border_reflect101 (ty - MT_M + ly, height);
    const int v = min ((int) ((__global const in_t *) (in + in_offset + (size_t) y * in_stride))[x],
        maxv);
    s[i] = min (convert_float (max (v - black, 0)) * gain_of (SITE_OF (ly & 1, lx & 1, phase_x, phase_y), gain), top);
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  /* step 1, margin 6 */
  for (int n = lid; n < CELLS_IN (6); n += MENON_N) {
    const int c = AT (CELL_X (n, 6), CELL_Y (n, 6));
    differences (s, c + AT (RX, RY), ch, cv);
    differences (s, c + AT (BX, BY), ch, cv);
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  /* step 2, margin 4 (G sites keep their sample) */
  for (int n = lid; n < CELLS_IN (4); n += MENON_N) {
    const int c = AT (CELL_X (n, 4), CELL_Y (n, 4));
    decide (s, ch, cv, c + AT (RX, RY), g, horiz);
    decide (s, ch, cv, c + AT (BX, BY), g, horiz);
    g[c + AT (BX, RY)] = s[c + AT (BX, RY)];
    g[c + AT (RX, BY)] = s[c + AT (RX, BY)];
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  /* step 3, G sites of margin 3 (cells of margin 4 whose neighbours are
   * there; the others are not needed), R into ch, B into cv */
  for (int n = lid; n < CELLS_IN (4); n += MENON_N) {
    const int x = CELL_X (n, 4), y = CELL_Y (n, 4);
    const int c = AT (x, y);
    /* G of the R row at (x + BX, y + RY), of the B row at (x + RX, y + BY):
     * inside margin 3 when 1 <= local - (MT_M - 4) <= 2 (MT_W + 4) - 2 */
#define INSIDE3(lx, ly) ((lx) >= MT_M - 3 && (lx) < MT_M + MT_W + 3 && \
    (ly) >= MT_M - 3 && (ly) < MT_M + MT_H + 3)
    if (INSIDE3 (x + BX, y + RY))
      rb_at_green (s, g, c + AT (BX, RY), true, ch, cv);
    if (INSIDE3 (x + RX, y + BY))
      rb_at_green (s, g, c + AT (RX, BY), false, ch, cv);
#undef INSIDE3
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  /* step 5's green at R and B sites, margin 2, in place (each site reads
   * its own g only); step 4 at R and B sites into ch (dead there since
   * step 2; the G sites' ch and cv are read) */
  for (int n = lid; n < CELLS_IN (2); n += MENON_N) {
    const int c = AT (CELL_X (n, 2), CELL_Y (n, 2));
    {
      const int i = c + AT (RX, RY), a = STEP (i);
      /* R - G at the site and at its G neighbours (R of step 3 there) */
      const float d = (s[i] - g[i]) + (ch[i - a] - s[i - a]) + (ch[i + a] - s[i + a]);
      g[i] = s[i] - d * (1.0f / 3.0f);
      /* B at R: R + mean (B - R) at the G neighbours */
      ch[i] = s[i] + 0.5f * ((cv[i - a] - ch[i - a]) + (cv[i + a] - ch[i + a]));
    }
    {
      const int i = c + AT (BX, BY), a = STEP (i);
      const float d = (s[i] - g[i]) + (cv[i - a] - s[i - a]) + (cv[i + a] - s[i + a]);
      g[i] = s[i] - d * (1.0f / 3.0f);
      /* R at B */
      ch[i] = s[i] + 0.5f * ((ch[i - a] - cv[i - a]) + (ch[i + a] - cv[i + a]));
    }
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  /* step 5's R and B at G sites, margin 1 (cells of margin 2: the outer
   * ones read unrefined greens and are not needed), into ch and cv (step
   * 3's values there are no longer read) */
  for (int n = lid; n < CELLS_IN (2); n += MENON_N) {
    const int c = AT (CELL_X (n, 2), CELL_Y (n, 2));
    rb_at_green (s, g, c + AT (BX, RY), true, ch, cv);
    rb_at_green (s, g, c + AT (RX, BY), false, ch, cv);
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  /* step 5's B at R and R at B, margin 0: the tile's R is then in ch, B in
   * cv, G in g (each site writes only itself, and reads its neighbours' ch
   * and cv at G sites, final already) */
  for (int n = lid; n < CELLS_IN (0); n += MENON_N) {
    const int c = AT (CELL_X (n, 0), CELL_Y (n, 0));
    {
      const int i = c + AT (RX, RY), a = STEP (i);
      /* R - B at the site (B of step 4) and at the G neighbours (refined) */
      const float d = (s[i] - ch[i]) + (ch[i - a] - cv[i - a]) + (ch[i + a] - cv[i + a]);
      ch[i] = s[i];
      cv[i] = s[i] - d * (1.0f / 3.0f);
    }
    {
      const int i = c + AT (BX, BY), a = STEP (i);
      const float d = (ch[i] - s[i]) + (ch[i - a] - cv[i - a]) + (ch[i + a] - cv[i + a]);
      ch[i] = s[i] + d * (1.0f / 3.0f);
      cv[i] = s[i];
    }
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  uint4 cells = (uint4) (0);
#if MENON_PIXELS
  /* stages 4-6 pixel by pixel, every work-item (RGB formats, GRAY8) */
  for (int n = lid; n < MT_W * MT_H; n += MENON_N) {
    const int py = n / MT_W, px = n - py * MT_W;
    const int x = tx + px, y = ty + py;
    if (x < width && y < height) {
      const int i = AT (MT_M + px, MT_M + py);
      const float r = clamp (ch[i], 0.0f, top), gg = clamp (g[i], 0.0f, top),
          b = clamp (cv[i], 0.0f, top);
      const float ro = transfer1 (clamp (mat.s0 * r + mat.s1 * gg + mat.s2 * b, 0.0f, 1.0f), tf);
      const float go = transfer1 (clamp (mat.s3 * r + mat.s4 * gg + mat.s5 * b, 0.0f, 1.0f), tf);
      const float bo = transfer1 (clamp (mat.s6 * r + mat.s7 * gg + mat.s8 * b, 0.0f, 1.0f), tf);
      put_pixel (out + out_offset + (size_t) y * out_stride, x, convert_uint (ro * OUT_MAX + 0.5f),
          convert_uint (go * OUT_MAX + 0.5f), convert_uint (bo * OUT_MAX + 0.5f), layout);
    }
  }
  /* the white-balance statistics by 8 x 2 blocks */
  if (stats && lid < (MT_W / BLOCK_W) * (MT_H / 2)) {
    const int x0 = tx + BLOCK_W * (lid % (MT_W / BLOCK_W)), y0 = ty + 2 * (lid / (MT_W / BLOCK_W));
    if (x0 < width && y0 < height) {
      int8 raw_e[WIN_H], raw_o[WIN_H];
      load_window (in + in_offset, in_stride, width, height, maxv, x0, y0, raw_e, raw_o);
      cells = cell_sums (raw_e, raw_o, x0, y0, width, height, black, lo, hi, phase_x, phase_y);
    }
  }
#else
  /* stages 4-6 by 8 x 2 blocks (NV12 / I420: whole 2 x 2 chroma blocks) */
  if (lid < (MT_W / BLOCK_W) * (MT_H / 2)) {
    const int bx = lid % (MT_W / BLOCK_W), by = lid / (MT_W / BLOCK_W);
    const int x0 = tx + BLOCK_W * bx, y0 = ty + 2 * by;
    if (x0 < width && y0 < height) {
      float8 red[2], green[2], blue[2];
      for (int dy = 0; dy < 2; dy++) {
        const int i = AT (MT_M + BLOCK_W * bx, MT_M + 2 * by + dy);
        red[dy] = clamp (vload8 (0, ch + i), 0.0f, top);
        green[dy] = clamp (vload8 (0, g + i), 0.0f, top);
        blue[dy] = clamp (vload8 (0, cv + i), 0.0f, top);
      }
      if (stats) {
        int8 raw_e[WIN_H], raw_o[WIN_H];
        load_window (in + in_offset, in_stride, width, height, maxv, x0, y0, raw_e, raw_o);
        cells = cell_sums (raw_e, raw_o, x0, y0, width, height, black, lo, hi, phase_x,
            phase_y);
      }
      camera_output (CAMERA_PASS, x0, y0, red, green, blue);
    }
  }
#endif
  if (stats)
    add_group_stats (sums, cells, lid, MENON_N, totals,
        (int) (get_group_id (1) * get_num_groups (0) + get_group_id (0)));
}
