/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cldebayer method=menon on CPUs (the host picks it where the CPU tuning is
 * selected; menon.cl's tile kernel serves GPUs). The same algorithm, steps
 * and float arithmetic as menon.cl (see its header), appended to debayer.cl
 * built with -D CAMERA=1 -D MENON=1 in its place.
 *
 * The shape: a work-group is one work-item, which computes a strip of
 * 8 (MC_CHUNKS - 2) output columns by `strip` rows, walking down it a row
 * pair at a time (a line-buffer pipeline). At each row pair it loads the
 * samples of MC_CHUNKS chunks of 8 columns (the strip and 8 columns on each
 * side) and runs each step k = 1..6 over the chunks at the row pair k pairs
 * further up, reading the results of step k - 1 around it from rings of
 * MC_PAIRS row pairs in local memory (a cache-sized working set: no plane
 * of the frame is written). All arithmetic is on float8, one chunk at a
 * time, with every formula evaluated for all 8 pixels and the site's or
 * the decision's chosen by select: explicit SIMD, straight-line code,
 * which needs no vectorisation across work-items (PoCL's does not happen
 * on code this size: its own SLP vectors in the body stop it) and no
 * barriers. The last step hands each 8 x 2 block to camera_output (stages
 * 4-6) and the white-balance statistics as debayer_camera's.
 *
 * Samples outside the image are mirrored as in menon.cl (reflect-101), so
 * the steps run on the same extended mosaic and give the same values. A
 * strip starts 6 row pairs (12 rows: the support of 8, in whole pairs at
 * each step) above its first row. */

#ifndef MC_CHUNKS
#define MC_CHUNKS 32            /* chunks of 8 columns a work-group (the host sets it) */
#endif
#define MC_ROW (8 * MC_CHUNKS + 16)   /* a local row: 8 columns of padding each side */
#define MC_PAIRS 8              /* the rings: row pairs */
#define MC_ROWS (2 * MC_PAIRS)
#define MC_N (MC_ROWS * MC_ROW)

/* The start of image row y in a ring (rows mod MC_ROWS). */
#define RB(y) (((y) & (MC_ROWS - 1)) * MC_ROW)
/* chunk k's 8 pixels of ring row base b, shifted by d columns */
#define V(plane, b, k, d) vload8 (0, (plane) + (b) + 8 + 8 * (k) + (d))
#define PUT(plane, b, k, v) vstore8 ((v), 0, (plane) + (b) + 8 + 8 * (k))

/* The rings, by step: samples; C_H, C_V (step 1); G (step 2) and the
 * decision (-1 horizontal, 0 vertical); R, B at G sites (step 3); refined G
 * and step 4 at R and B sites; refined R, B at G sites (step 5). */
typedef struct {
  __local float *s, *ch, *cv, *g, *r3, *b3, *g2, *x4, *r5, *b5;
  __local int *hz;
} MenonRings;

/* Step 1 at row y: the colour differences along the row and the column. */
inline void mc_differences (MenonRings m, int y)
{
  const int b = RB (y), u = RB (y - 1), d = RB (y + 1), uu = RB (y - 2), dd = RB (y + 2);
  for (int k = 0; k < MC_CHUNKS; k++) {
    const float8 c2 = 2.0f * V (m.s, b, k, 0);
    PUT (m.ch, b, k, (c2 - 2.0f * (V (m.s, b, k, -1) + V (m.s, b, k, 1)) + V (m.s, b, k, -2) +
            V (m.s, b, k, 2)) * 0.25f);
    PUT (m.cv, b, k, (c2 - 2.0f * (V (m.s, u, k, 0) + V (m.s, d, k, 0)) + V (m.s, uu, k, 0) +
            V (m.s, dd, k, 0)) * 0.25f);
  }
}

/* Step 2 at row y (rb: the R and B sites of its chunks): the decision and
 * green (G sites keep their sample). */
inline void mc_decide (MenonRings m, int y, int8 rb)
{
  __local const float *ch = m.ch, *cv = m.cv;
  const int b = RB (y), u = RB (y - 1), d = RB (y + 1), uu = RB (y - 2), dd = RB (y + 2);
  for (int k = 0; k < MC_CHUNKS; k++) {
    /* menon.cl's gradients (ch, i, 1, LW) and gradients (cv, i, LW, 1) */
    const float8 h0 = V (ch, b, k, 0), hu = V (ch, uu, k, 0), hd = V (ch, dd, k, 0);
    const float8 gh = 3.0f * (fabs (h0 - V (ch, b, k, 2)) + fabs (V (ch, b, k, -2) - h0)) +
        fabs (hu - V (ch, uu, k, 2)) + fabs (V (ch, uu, k, -2) - hu) +
        fabs (hd - V (ch, dd, k, 2)) + fabs (V (ch, dd, k, -2) - hd) +
        fabs (V (ch, u, k, -1) - V (ch, u, k, 1)) + fabs (V (ch, d, k, -1) - V (ch, d, k, 1));
    const float8 v0 = V (cv, b, k, 0), vl = V (cv, b, k, -2), vr = V (cv, b, k, 2);
    const float8 gv = 3.0f * (fabs (v0 - V (cv, dd, k, 0)) + fabs (V (cv, uu, k, 0) - v0)) +
        fabs (vl - V (cv, dd, k, -2)) + fabs (V (cv, uu, k, -2) - vl) +
        fabs (vr - V (cv, dd, k, 2)) + fabs (V (cv, uu, k, 2) - vr) +
        fabs (V (cv, u, k, -1) - V (cv, d, k, -1)) + fabs (V (cv, u, k, 1) - V (cv, d, k, 1));
    const int8 h = isgreaterequal (gv, gh);
    vstore8 (h, 0, m.hz + b + 8 + 8 * k);
    const float8 si = V (m.s, b, k, 0);
    PUT (m.g, b, k, select (si, si - select (v0, h0, h), rb));
  }
}

/* Steps 3 and 5 at G sites of row y: R and B from the differences S - G at
 * the neighbours (g: step 2's or the refined green), into r and b
 * (everywhere; only the G sites' are read). */
inline void mc_rb_at_green (__local const float * s, __local const float * g, int y,
    bool red_row, __local float * r, __local float * b_out)
{
  const int b = RB (y), u = RB (y - 1), d = RB (y + 1);
  for (int k = 0; k < MC_CHUNKS; k++) {
    const float8 h = 0.5f * ((V (s, b, k, -1) - V (g, b, k, -1)) +
        (V (s, b, k, 1) - V (g, b, k, 1)));
    const float8 v = 0.5f * ((V (s, u, k, 0) - V (g, u, k, 0)) + (V (s, d, k, 0) - V (g, d, k, 0)));
    const float8 si = V (s, b, k, 0);
    PUT (r, b, k, si + (red_row ? h : v));
    PUT (b_out, b, k, si + (red_row ? v : h));
  }
}

/* Step 5's green at the R and B sites of row y and step 4 (B at R, R at
 * B), along the chosen direction (both computed, the decision selects). */
inline void mc_refine_green (MenonRings m, int y, bool red_row, int8 rb)
{
  __local const float *s = m.s;
  __local const float *own = red_row ? m.r3 : m.b3, *other = red_row ? m.b3 : m.r3;
  const int b = RB (y), u = RB (y - 1), d = RB (y + 1);
  for (int k = 0; k < MC_CHUNKS; k++) {
    const float8 si = V (s, b, k, 0), sg = si - V (m.g, b, k, 0);
    const float8 ol = V (own, b, k, -1), orr = V (own, b, k, 1);
    const float8 ou = V (own, u, k, 0), od = V (own, d, k, 0);
    const float8 dh = sg + (ol - V (s, b, k, -1)) + (orr - V (s, b, k, 1));
    const float8 dv = sg + (ou - V (s, u, k, 0)) + (od - V (s, d, k, 0));
    const float8 xh = si + 0.5f * ((V (other, b, k, -1) - ol) + (V (other, b, k, 1) - orr));
    const float8 xv = si + 0.5f * ((V (other, u, k, 0) - ou) + (V (other, d, k, 0) - od));
    const int8 h = vload8 (0, m.hz + b + 8 + 8 * k);
    PUT (m.g2, b, k, select (si, si - select (dv, dh, h) * (1.0f / 3.0f), rb));
    PUT (m.x4, b, k, select (xv, xh, h));
  }
}

/* Step 5's B at R and R at B at chunk k of row y: its R, G, B. */
inline void mc_final (MenonRings m, int y, int k, bool red_row, int8 rb, float8 * red,
    float8 * green, float8 * blue)
{
  __local const float *r5 = m.r5, *b5 = m.b5;
  const int b = RB (y), u = RB (y - 1), d = RB (y + 1);
  const float8 si = V (m.s, b, k, 0), x4 = V (m.x4, b, k, 0);
  /* R - B at the site (step 4's value) and at the G neighbours (refined) */
  const float8 sx = red_row ? si - x4 : x4 - si;
  const float8 dh = sx + (V (r5, b, k, -1) - V (b5, b, k, -1)) +
      (V (r5, b, k, 1) - V (b5, b, k, 1));
  const float8 dv = sx + (V (r5, u, k, 0) - V (b5, u, k, 0)) + (V (r5, d, k, 0) - V (b5, d, k, 0));
  const float8 third = select (dv, dh, vload8 (0, m.hz + b + 8 + 8 * k)) * (1.0f / 3.0f);
  *red = select (V (r5, b, k, 0), red_row ? si : si + third, rb);
  *green = select (si, V (m.g2, b, k, 0), rb);
  *blue = select (V (b5, b, k, 0), red_row ? si - third : si, rb);
}

/* The samples of row y, black level and white balance applied (gain: by
 * the chunks' columns). */
inline void mc_load (MenonRings m, __global const uchar * in, int in_stride, int width,
    int height, int maxv, int black, int tx, int y, float8 gain)
{
  const int b = RB (y);
  /* border_reflect101 for n >= 2 without a loop */
  const int period = 2 * height - 2, wrapped = (y % period + period) % period;
  __global const in_t *row = (__global const in_t *) (in + (size_t) (wrapped < height ?
          wrapped : period - wrapped) * in_stride);
  const float top = (float) maxv;
  for (int k = 0; k < MC_CHUNKS; k++) {
    const int x = tx - 8 + 8 * k;
    int8 v;
    if (x >= 0 && x + 8 <= width) {
      v = convert_int8 (vload8 (0, row + x));
    } else {
      int w[8];
      for (int j = 0; j < 8; j++)
        w[j] = row[border_reflect101 (x + j, width)];
      v = vload8 (0, w);
    }
    v = min (v, (int8) (maxv));
    PUT (m.s, b, k, min (convert_float8 (max (v - black, 0)) * gain, top));
  }
}

/* Output rows 2 qa .. of group (x, y): rows from y * strip (even), at most
 * strip of them; columns from 8 (MC_CHUNKS - 2) x. */
__kernel __attribute__ ((reqd_work_group_size (1, 1, 1)))
void debayer_menon_cpu (CAMERA_ARGS, int phase_x, int phase_y, int strip)
{
  __local float s[MC_N], ch[MC_N], cv[MC_N], g[MC_N], r3[MC_N], b3[MC_N], g2[MC_N],
      x4[MC_N], r5[MC_N], b5[MC_N];
  __local int hz[MC_N];
  const MenonRings m = { s, ch, cv, g, r3, b3, g2, x4, r5, b5, hz };
  const int tx = (int) get_group_id (0) * 8 * (MC_CHUNKS - 2);
  const int qa = (int) get_group_id (1) * strip / 2;
  const int qb = min (qa + strip / 2, (height + 1) / 2);

  /* the rings start at 0 (their padding columns stay so) */
  for (int i = 0; i < MC_N; i++) {
    s[i] = ch[i] = cv[i] = g[i] = r3[i] = b3[i] = g2[i] = x4[i] = r5[i] = b5[i] = 0.0f;
    hz[i] = 0;
  }

  /* by lane (a chunk starts on an even column): its site in R rows and B
   * rows, its gain; row 0 of a pair (even y) is an R row when phase_y is 0 */
  const int8 lane = (int8) (0, 1, 2, 3, 4, 5, 6, 7);
  const int8 odd = -((lane + phase_x) & 1);   /* G in R rows, B in B rows */
  const bool red0 = phase_y == 0;
  const float8 gain_r = select ((float8) (gain.s0), (float8) (gain.s1), odd);
  const float8 gain_b = select ((float8) (gain.s1), (float8) (gain.s2), odd);
  const int8 rb_r = ~odd, rb_b = odd;   /* R sites of R rows, B sites of B rows */

  uint4 cells = (uint4) (0);
  const int first = qa - 6;
  for (int p = first; p < qb + 6; p++) {
    /* step k at row pair p - k */
    for (int dy = 0; dy < 2; dy++) {
      const bool red = red0 == (dy == 0);
      mc_load (m, in + in_offset, in_stride, width, height, maxv, black, tx, 2 * p + dy,
          red ? gain_r : gain_b);
    }
    for (int dy = 0; dy < 2; dy++)
      mc_differences (m, 2 * (p - 1) + dy);
    for (int dy = 0; dy < 2; dy++)
      mc_decide (m, 2 * (p - 2) + dy, red0 == (dy == 0) ? rb_r : rb_b);
    for (int dy = 0; dy < 2; dy++)
      mc_rb_at_green (s, g, 2 * (p - 3) + dy, red0 == (dy == 0), r3, b3);
    for (int dy = 0; dy < 2; dy++) {
      const bool red = red0 == (dy == 0);
      mc_refine_green (m, 2 * (p - 4) + dy, red, red ? rb_r : rb_b);
    }
    for (int dy = 0; dy < 2; dy++)
      mc_rb_at_green (s, g2, 2 * (p - 5) + dy, red0 == (dy == 0), r5, b5);

    /* step 5's last part, then stages 4-6 and the statistics by 8 x 2
     * blocks, on the output chunks */
    const int q = p - 6;
    if (q < qa)
      continue;
    const float top = (float) maxv;
    for (int k = 1; k < MC_CHUNKS - 1; k++) {
      const int x0 = tx - 8 + 8 * k, y0 = 2 * q;
      if (x0 >= width)
        break;
      float8 red[2], green[2], blue[2];
      for (int dy = 0; dy < 2; dy++) {
        const bool r = red0 == (dy == 0);
        mc_final (m, y0 + dy, k, r, r ? rb_r : rb_b, &red[dy], &green[dy], &blue[dy]);
        red[dy] = clamp (red[dy], 0.0f, top);
        green[dy] = clamp (green[dy], 0.0f, top);
        blue[dy] = clamp (blue[dy], 0.0f, top);
      }
      if (stats) {
        int8 raw_e[WIN_H], raw_o[WIN_H];
        load_window (in + in_offset, in_stride, width, height, maxv, x0, y0, raw_e, raw_o);
        cells += cell_sums (raw_e, raw_o, x0, y0, width, height, black, lo, hi, phase_x,
            phase_y);
      }
      camera_output (CAMERA_PASS, x0, y0, red, green, blue);
    }
  }
  if (stats)
    add_stats (totals, (int) (get_group_id (1) * get_num_groups (0) + get_group_id (0)), cells);
}
