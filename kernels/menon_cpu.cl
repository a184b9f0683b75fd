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
#define MC_ROW8 (MC_CHUNKS + 2) /* a local row in float8: a chunk of padding each side */
#define MC_PAIRS 8              /* the rings: row pairs */
#define MC_ROWS (2 * MC_PAIRS)
#define MC_N8 (MC_ROWS * MC_ROW8)

/* The start of image row y in a ring (rows mod MC_ROWS), in float8; chunk
 * k of the row is at + 1 + k. */
#define RB(y) (((y) & (MC_ROWS - 1)) * MC_ROW8)

/* A chunk with the chunks left and right of it (aligned loads); the values
 * 1 or 2 columns to the left (M1, M2) or right (P1, P2) of its pixels as
 * shuffles of them (unaligned vector loads come out split in pieces). */
typedef struct {
  float8 l, c, r;
} Nb;

inline Nb nb (__local const float8 * p, int base, int k)
{
  const Nb n = { p[base + k], p[base + k + 1], p[base + k + 2] };
  return n;
}

inline Nb nb_sub (Nb a, Nb b)
{
  const Nb n = { a.l - b.l, a.c - b.c, a.r - b.r };
  return n;
}

#define M1(n) ((float8) ((n).l.s7, (n).c.s0123, (n).c.s456))
#define P1(n) ((float8) ((n).c.s1234, (n).c.s567, (n).r.s0))
#define M2(n) ((float8) ((n).l.s67, (n).c.s0123, (n).c.s45))
#define P2(n) ((float8) ((n).c.s2345, (n).c.s67, (n).r.s01))

/* The rings, by step: samples; C_H, C_V (step 1); G (step 2) and the
 * decision (-1 horizontal, 0 vertical); R, B at G sites (step 3); refined G
 * and step 4 at R and B sites; refined R, B at G sites (step 5). */
typedef struct {
  __local float8 *s, *ch, *cv, *g, *r3, *b3, *g2, *x4, *r5, *b5;
  __local int8 *hz;
} MenonRings;

/* Step 1 at row y: the colour differences along the row and the column. */
inline void mc_differences (MenonRings m, int y)
{
  __local const float8 *s = m.s;
  const int b = RB (y) + 1, u = RB (y - 1) + 1, d = RB (y + 1) + 1;
  const int uu = RB (y - 2) + 1, dd = RB (y + 2) + 1;
  for (int k = 0; k < MC_CHUNKS; k++) {
    const Nb n = nb (s, b - 1, k);
    const float8 c2 = 2.0f * n.c;
    m.ch[b + k] = (c2 - 2.0f * (M1 (n) + P1 (n)) + M2 (n) + P2 (n)) * 0.25f;
    m.cv[b + k] = (c2 - 2.0f * (s[u + k] + s[d + k]) + s[uu + k] + s[dd + k]) * 0.25f;
  }
}

/* Step 2 at row y (rb: the R and B sites of its chunks): the decision and
 * green (G sites keep their sample). */
inline void mc_decide (MenonRings m, int y, int8 rb)
{
  __local const float8 *ch = m.ch, *cv = m.cv;
  const int b = RB (y), u = RB (y - 1), d = RB (y + 1), uu = RB (y - 2), dd = RB (y + 2);
  for (int k = 0; k < MC_CHUNKS; k++) {
    /* menon.cl's gradients (ch, i, 1, LW) and gradients (cv, i, LW, 1) */
    const Nb h0 = nb (ch, b, k), hu = nb (ch, uu, k), hd = nb (ch, dd, k);
    const Nb h1u = nb (ch, u, k), h1d = nb (ch, d, k);
    const float8 gh = 3.0f * (fabs (h0.c - P2 (h0)) + fabs (M2 (h0) - h0.c)) +
        fabs (hu.c - P2 (hu)) + fabs (M2 (hu) - hu.c) +
        fabs (hd.c - P2 (hd)) + fabs (M2 (hd) - hd.c) +
        fabs (M1 (h1u) - P1 (h1u)) + fabs (M1 (h1d) - P1 (h1d));
    const Nb v0 = nb (cv, b, k), vu = nb (cv, u, k), vd = nb (cv, d, k);
    const Nb vuu = nb (cv, uu, k), vdd = nb (cv, dd, k);
    const float8 vl = M2 (v0), vr = P2 (v0);
    const float8 gv = 3.0f * (fabs (v0.c - vdd.c) + fabs (vuu.c - v0.c)) +
        fabs (vl - M2 (vdd)) + fabs (M2 (vuu) - vl) +
        fabs (vr - P2 (vdd)) + fabs (P2 (vuu) - vr) +
        fabs (M1 (vu) - M1 (vd)) + fabs (P1 (vu) - P1 (vd));
    const int8 h = isgreaterequal (gv, gh);
    m.hz[b + 1 + k] = h;
    const float8 si = m.s[b + 1 + k];
    m.g[b + 1 + k] = select (si, si - select (v0.c, h0.c, h), rb);
  }
}

/* Steps 3 and 5 at G sites of row y: R and B from the differences S - G at
 * the neighbours (g: step 2's or the refined green), into r and b_out
 * (everywhere; only the G sites' are read). */
inline void mc_rb_at_green (__local const float8 * s, __local const float8 * g, int y,
    bool red_row, __local float8 * r, __local float8 * b_out)
{
  const int b = RB (y), u = RB (y - 1) + 1, d = RB (y + 1) + 1;
  for (int k = 0; k < MC_CHUNKS; k++) {
    const Nb sg = nb_sub (nb (s, b, k), nb (g, b, k));
    const float8 h = 0.5f * (M1 (sg) + P1 (sg));
    const float8 v = 0.5f * ((s[u + k] - g[u + k]) + (s[d + k] - g[d + k]));
    const float8 si = s[b + 1 + k];
    r[b + 1 + k] = si + (red_row ? h : v);
    b_out[b + 1 + k] = si + (red_row ? v : h);
  }
}

/* Step 5's green at the R and B sites of row y and step 4 (B at R, R at
 * B), along the chosen direction (both computed, the decision selects). */
inline void mc_refine_green (MenonRings m, int y, bool red_row, int8 rb)
{
  __local const float8 *s = m.s;
  __local const float8 *own = red_row ? m.r3 : m.b3, *other = red_row ? m.b3 : m.r3;
  const int b = RB (y), u = RB (y - 1) + 1, d = RB (y + 1) + 1;
  for (int k = 0; k < MC_CHUNKS; k++) {
    const Nb o = nb (own, b, k);
    const Nb os = nb_sub (o, nb (s, b, k)), to = nb_sub (nb (other, b, k), o);
    const float8 si = s[b + 1 + k], sg = si - m.g[b + 1 + k];
    const float8 ou = own[u + k], od = own[d + k];
    const float8 dh = sg + M1 (os) + P1 (os);
    const float8 dv = sg + (ou - s[u + k]) + (od - s[d + k]);
    const float8 xh = si + 0.5f * (M1 (to) + P1 (to));
    const float8 xv = si + 0.5f * ((other[u + k] - ou) + (other[d + k] - od));
    const int8 h = m.hz[b + 1 + k];
    m.g2[b + 1 + k] = select (si, si - select (dv, dh, h) * (1.0f / 3.0f), rb);
    m.x4[b + 1 + k] = select (xv, xh, h);
  }
}

/* Step 5's B at R and R at B at chunk k of row y: its R, G, B. */
inline void mc_final (MenonRings m, int y, int k, bool red_row, int8 rb, float8 * red,
    float8 * green, float8 * blue)
{
  const int b = RB (y), u = RB (y - 1) + 1 + k, d = RB (y + 1) + 1 + k, i = b + 1 + k;
  const float8 si = m.s[i], x4 = m.x4[i];
  /* R - B at the site (step 4's value) and at the G neighbours (refined) */
  const float8 sx = red_row ? si - x4 : x4 - si;
  const Nb rb5 = nb_sub (nb (m.r5, b, k), nb (m.b5, b, k));
  const float8 dh = sx + M1 (rb5) + P1 (rb5);
  const float8 dv = sx + (m.r5[u] - m.b5[u]) + (m.r5[d] - m.b5[d]);
  const float8 third = select (dv, dh, m.hz[i]) * (1.0f / 3.0f);
  *red = select (m.r5[i], red_row ? si : si + third, rb);
  *green = select (si, m.g2[i], rb);
  *blue = select (m.b5[i], red_row ? si - third : si, rb);
}

/* The samples of row y, black level and white balance applied (gain: by
 * the chunks' columns). */
inline void mc_load (MenonRings m, __global const uchar * in, int in_stride, int width,
    int height, int maxv, int black, int tx, int y, float8 gain)
{
  const int b = RB (y) + 1;
  __global const in_t *row = (__global const in_t *) (in + (size_t) border_reflect101 (y,
          height) * in_stride);
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
    m.s[b + k] = min (convert_float8 (max (v - black, 0)) * gain, top);
  }
}

/* Output rows 2 qa .. of group (x, y): rows from y * strip (even), at most
 * strip of them; columns from 8 (MC_CHUNKS - 2) x. */
__kernel __attribute__ ((reqd_work_group_size (1, 1, 1)))
void debayer_menon_cpu (CAMERA_ARGS, int phase_x, int phase_y, int strip)
{
  __local float8 s[MC_N8], ch[MC_N8], cv[MC_N8], g[MC_N8], r3[MC_N8], b3[MC_N8],
      g2[MC_N8], x4[MC_N8], r5[MC_N8], b5[MC_N8];
  __local int8 hz[MC_N8];
  const MenonRings m = { s, ch, cv, g, r3, b3, g2, x4, r5, b5, hz };
  const int tx = (int) get_group_id (0) * 8 * (MC_CHUNKS - 2);
  const int qa = (int) get_group_id (1) * strip / 2;
  const int qb = min (qa + strip / 2, (height + 1) / 2);

  /* the rings start at 0 (their padding columns stay so) */
  for (int i = 0; i < MC_N8; i++) {
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
