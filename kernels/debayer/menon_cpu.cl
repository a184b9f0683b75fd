/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cldebayer method=menon on CPUs (the host picks it where the CPU tuning is
 * selected; menon.cl's tile kernel serves GPUs). The same algorithm, steps
 * and float arithmetic as menon.cl (see its header), after the camera
 * stages' files and strips.cl (prelude.cl lists them), built with
 * -D CAMERA=1.
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
#define MC_CHUNKS 16            /* chunks of 16 columns a work-group (the host sets it) */
#endif
#define MC_ROW8 (MC_CHUNKS + 2) /* a ring row in float8: a chunk of padding each side */
#define MC_PAIRS 8              /* the rings: row pairs */
#define MC_ROWS (2 * MC_PAIRS)
#define MC_N8 (MC_ROWS * MC_ROW8)

/* The start of image row y in a ring (rows mod MC_ROWS), in float8; chunk
 * k of the row is at + 1 + k. */
#define RB(y) (((y) & (MC_ROWS - 1)) * MC_ROW8)

/* The rings. The samples by column parity (s[0] even, s[1] odd columns);
 * the rest only where a step needs them, one value a column pair: at R and
 * B sites C_H, C_V (step 1), their gradients along the row and the column
 * (dh, dv), G and the decision (-1 horizontal, 0 vertical; step 2), the
 * refined G and step 4's B at R or R at B (x4); at G sites R and B of step
 * 3 (r3, b3) and refined (r5, b5). */
typedef struct {
  __local float8 *s[2], *ch, *cv, *dh, *dv, *g, *r3, *b3, *g2, *x4, *r5, *b5;
  __local int8 *hz;
} MenonRings;

/* The row y's R and B sites' column parity `p` (its G sites': 1 - p), the
 * sites being R ones (`red`); `rows` the ring rows y - 2 .. y + 2. */
typedef struct {
  int p, q, b, u, d, uu, dd;
  int red;
} RowOf;

inline RowOf row_of_y (int y, int red0, int phase_x)
{
  RowOf r;
  r.red = (y & 1) == (red0 ? 0 : 1) ? 1 : 0;
  r.p = r.red ? phase_x : 1 - phase_x;
  r.q = 1 - r.p;
  r.b = RB (y);
  r.u = RB (y - 1);
  r.d = RB (y + 1);
  r.uu = RB (y - 2);
  r.dd = RB (y + 2);
  return r;
}

/* Step 1 at the R and B sites of row r: the colour differences along the
 * row and the column. */
inline void mc_differences (MenonRings m, RowOf r)
{
  __local const float8 *sp = m.s[r.p], *sq = m.s[r.q];
  for (int k = 0; k < MC_CHUNKS; k++) {
    const Nb n = nb (sp, r.b, k), o = nb (sq, r.b, k);
    const float8 c2 = 2.0f * n.c;
    const int i = 1 + k;
    m.ch[r.b + i] = (c2 - 2.0f * (left_of (o, r.p) + right_of (o, r.p)) + M1 (n) + P1 (n)) *
        0.25f;
    m.cv[r.b + i] = (c2 - 2.0f * (sp[r.u + i] + sp[r.d + i]) + sp[r.uu + i] + sp[r.dd + i]) *
        0.25f;
  }
}

/* Step 2's gradients of row r at its R and B sites: along the row
 * |C_H (x) - C_H (x + 2)|, once C_H of the row is there; along the column
 * |C_V (y) - C_V (y + 2)|, once C_V of row y + 2 is there. */
inline void mc_gradients_h (MenonRings m, RowOf r)
{
  for (int k = 0; k < MC_CHUNKS; k++) {
    const Nb n = nb (m.ch, r.b, k);
    m.dh[r.b + 1 + k] = fabs (n.c - P1 (n));
  }
}

inline void mc_gradients_v (MenonRings m, RowOf r)
{
  for (int k = 0; k < MC_CHUNKS; k++)
    m.dv[r.b + 1 + k] = fabs (m.cv[r.b + 1 + k] - m.cv[r.dd + 1 + k]);
}

/* Step 2 at the R and B sites of row r: the decision and green. menon.cl's
 * gradients (ch, i, 1, LW) and gradients (cv, i, LW, 1) as sums of the
 * gradients above (exact: quarters below 2^22), the rows r +- 1 holding
 * their R and B at the other parity. */
inline void mc_decide (MenonRings m, RowOf r)
{
  __local const float8 *dh = m.dh, *dv = m.dv;
  for (int k = 0; k < MC_CHUNKS; k++) {
    const Nb h0 = nb (dh, r.b, k), huu = nb (dh, r.uu, k), hdd = nb (dh, r.dd, k);
    const float8 gh = 3.0f * (h0.c + M1 (h0)) + huu.c + M1 (huu) + hdd.c + M1 (hdd) +
        left_of (nb (dh, r.u, k), r.p) + left_of (nb (dh, r.d, k), r.p);
    const Nb v0 = nb (dv, r.b, k), vuu = nb (dv, r.uu, k), vu = nb (dv, r.u, k);
    const float8 gv = 3.0f * (v0.c + vuu.c) + M1 (v0) + M1 (vuu) + P1 (v0) + P1 (vuu) +
        left_of (vu, r.p) + right_of (vu, r.p);
    const int8 h = isgreaterequal (gv, gh);
    const int i = r.b + 1 + k;
    m.hz[i] = h;
    m.g[i] = m.s[r.p][i] - select (m.cv[i], m.ch[i], h);
  }
}

/* Steps 3 and 5 at the G sites of row r: R and B from the differences
 * S - G at the neighbours (g: step 2's or the refined green, at R and B
 * sites), into ro and bo. */
inline void mc_rb_at_green (MenonRings m, __local const float8 * g, RowOf r,
    __local float8 * ro, __local float8 * bo)
{
  __local const float8 *sp = m.s[r.p], *sq = m.s[r.q];
  for (int k = 0; k < MC_CHUNKS; k++) {
    /* the row's R and B sites left and right (parity p), the R and B sites
     * of the rows above and below in the same column (their parity q) */
    const Nb sg = nb_sub (nb (sp, r.b, k), nb (g, r.b, k));
    const float8 h = 0.5f * (left_of (sg, r.q) + right_of (sg, r.q));
    const int i = 1 + k;
    const float8 v = 0.5f * ((sq[r.u + i] - g[r.u + i]) + (sq[r.d + i] - g[r.d + i]));
    const float8 si = sq[r.b + i];
    ro[r.b + i] = si + (r.red ? h : v);
    bo[r.b + i] = si + (r.red ? v : h);
  }
}

/* Step 5's green at the R and B sites of row r and step 4 (B at R, R at
 * B), along the chosen direction (both computed, the decision selects). */
inline void mc_refine_green (MenonRings m, RowOf r)
{
  __local const float8 *sp = m.s[r.p], *sq = m.s[r.q];
  __local const float8 *own = r.red ? m.r3 : m.b3, *other = r.red ? m.b3 : m.r3;
  for (int k = 0; k < MC_CHUNKS; k++) {
    /* G neighbours: left and right at parity q, above and below at p */
    const Nb o = nb (own, r.b, k);
    const Nb os = nb_sub (o, nb (sq, r.b, k)), to = nb_sub (nb (other, r.b, k), o);
    const int i = r.b + 1 + k, u = r.u + 1 + k, d = r.d + 1 + k;
    const float8 si = sp[i], sg = si - m.g[i];
    const float8 ou = own[u], od = own[d];
    const float8 dh = sg + left_of (os, r.p) + right_of (os, r.p);
    const float8 dv = sg + (ou - sp[u]) + (od - sp[d]);
    const float8 xh = si + 0.5f * (left_of (to, r.p) + right_of (to, r.p));
    const float8 xv = si + 0.5f * ((other[u] - ou) + (other[d] - od));
    const int8 h = m.hz[i];
    m.g2[i] = si - select (dv, dh, h) * (1.0f / 3.0f);
    m.x4[i] = select (xv, xh, h);
  }
}

/* Pixels 0-7 (LO) or 8-15 (HI) of a chunk from its even and odd columns. */
#define LO8(e, o) ((float8) ((e).s0, (o).s0, (e).s1, (o).s1, (e).s2, (o).s2, (e).s3, (o).s3))
#define HI8(e, o) ((float8) ((e).s4, (o).s4, (e).s5, (o).s5, (e).s6, (o).s6, (e).s7, (o).s7))

/* Step 5's B at R and R at B at chunk k of row r; the chunk's R, G, B as
 * its pixels 0-7 (lo) and 8-15 (hi). */
inline void mc_final (MenonRings m, RowOf r, int k, float8 * r_lo, float8 * g_lo,
    float8 * b_lo, float8 * r_hi, float8 * g_hi, float8 * b_hi)
{
  const int i = r.b + 1 + k, u = r.u + 1 + k, d = r.d + 1 + k;
  const float8 si = m.s[r.p][i], x4 = m.x4[i];
  /* R - B at the site (step 4's value) and at the G neighbours (refined) */
  const float8 sx = r.red ? si - x4 : x4 - si;
  const Nb rb5 = nb_sub (nb (m.r5, r.b, k), nb (m.b5, r.b, k));
  const float8 dh = sx + left_of (rb5, r.p) + right_of (rb5, r.p);
  const float8 dv = sx + (m.r5[u] - m.b5[u]) + (m.r5[d] - m.b5[d]);
  const float8 third = select (dv, dh, m.hz[i]) * (1.0f / 3.0f);
  /* R and B sites at parity p, G sites at q (an index by r.p would put
   * them in memory) */
  const float8 red = r.red ? si : si + third, blue = r.red ? si - third : si;
  const float8 green = m.g2[i];
  const float8 gr = m.r5[i], gb = m.b5[i], gg = m.s[r.q][i];
  if (r.p) {
    *r_lo = LO8 (gr, red);
    *g_lo = LO8 (gg, green);
    *b_lo = LO8 (gb, blue);
    *r_hi = HI8 (gr, red);
    *g_hi = HI8 (gg, green);
    *b_hi = HI8 (gb, blue);
  } else {
    *r_lo = LO8 (red, gr);
    *g_lo = LO8 (green, gg);
    *b_lo = LO8 (blue, gb);
    *r_hi = HI8 (red, gr);
    *g_hi = HI8 (green, gg);
    *b_hi = HI8 (blue, gb);
  }
}

#if !OUT_YUV
/* The 8 x 2 block at (x0, y0) without camera stages (the host's
 * Settings::camera_stages; no statistics either): camera_output's
 * arithmetic without the terms that are 0 (the matrix sc = 1 / maxv on the
 * diagonal, no curve). Inlined, so that the layout's shifts are worked out
 * once a frame (as a call, with the camera arguments on the stack, the
 * output was a fifth of the kernel's time on PoCL). */
inline __attribute__ ((always_inline)) void mc_plain (__global uchar * out, int out_stride,
    int width, int height, int4 layout, float sc, int x0, int y0, const float8 * r8,
    const float8 * g8, const float8 * b8)
{
  const int count = min (BLOCK_W, width - x0);
#pragma unroll
  for (int dy = 0; dy < 2; dy++)
    if (y0 + dy < height)
      store_row ((__global out_t *) (out + (size_t) (y0 + dy) * out_stride), x0, 0, count,
          convert_uint8 (clamp (r8[dy] * sc, 0.0f, 1.0f) * OUT_MAX + 0.5f),
          convert_uint8 (clamp (g8[dy] * sc, 0.0f, 1.0f) * OUT_MAX + 0.5f),
          convert_uint8 (clamp (b8[dy] * sc, 0.0f, 1.0f) * OUT_MAX + 0.5f), layout);
}
#endif

/* Stages 4-6 and the statistics of the 8 x 2 block at (x0, y0) from its
 * demosaiced values (overwritten). */
inline void mc_output (CAMERA_ARGS, int phase_x, int phase_y, int x0, int y0, float8 * r8,
    float8 * g8, float8 * b8, uint4 * cells)
{
  const float top = (float) maxv;
#pragma unroll
  for (int dy = 0; dy < 2; dy++) {
    r8[dy] = clamp (r8[dy], 0.0f, top);
    g8[dy] = clamp (g8[dy], 0.0f, top);
    b8[dy] = clamp (b8[dy], 0.0f, top);
  }
  if (stats) {
    int8 raw_e[WIN_H], raw_o[WIN_H];
    load_window (in + in_offset, in_stride, width, height, maxv, x0, y0, raw_e, raw_o);
    *cells += cell_sums (raw_e, raw_o, x0, y0, width, height, black, lo, hi, phase_x, phase_y);
  }
  camera_output (CAMERA_PASS, x0, y0, r8, g8, b8);
}

/* The samples of row y, black level and white balance applied (gain: of
 * the even and the odd columns). */
inline void mc_load (MenonRings m, __global const uchar * in, int in_stride, int width,
    int height, int maxv, int black, int tx, int y, float gain_even, float gain_odd,
    float exposure)
{
  const int b = RB (y) + 1;
  __global const in_t *row = (__global const in_t *) (in + (size_t) border_reflect101 (y,
          height) * in_stride);
  /* white balance clips at full scale, then the exposure gain (in the
   * factors) at full scale again */
  const float top = (float) maxv * min (exposure, 1.0f);
  for (int k = 0; k < MC_CHUNKS; k++) {
    const int x = tx - 8 + 16 * k;
    int8 lo, hi;   /* (int8, not int16: Oclgrind 21.10 builds those wrong) */
    if (x >= 0 && x + 16 <= width) {
      lo = convert_int8 (vload8 (0, row + x));
      hi = convert_int8 (vload8 (1, row + x));
    } else {
#define AT(j) row[border_reflect101 (x + (j), width)]
      lo = (int8) (AT (0), AT (1), AT (2), AT (3), AT (4), AT (5), AT (6), AT (7));
      hi = (int8) (AT (8), AT (9), AT (10), AT (11), AT (12), AT (13), AT (14), AT (15));
#undef AT
    }
    int8 even = (int8) (lo.even, hi.even), odd = (int8) (lo.odd, hi.odd);
#if IN_16
    even = min (even, (int8) (maxv));
    odd = min (odd, (int8) (maxv));
#endif
    m.s[0][b + k] = min (convert_float8 (max (even - black, 0)) * gain_even, top);
    m.s[1][b + k] = min (convert_float8 (max (odd - black, 0)) * gain_odd, top);
  }
}

/* Output rows 2 qa .. of group (x, y): rows from y * strip (even), at most
 * strip of them; columns from 16 (MC_CHUNKS - 1) x. `plain`: no camera
 * stages (the host's Settings::camera_stages), and no statistics. */
__kernel __attribute__ ((reqd_work_group_size (1, 1, 1)))
void debayer_menon_cpu (CAMERA_ARGS, int phase_x, int phase_y, int strip, int plain)
{
  __local float8 s0[MC_N8], s1[MC_N8], ch[MC_N8], cv[MC_N8], dh[MC_N8], dv[MC_N8], g[MC_N8],
      r3[MC_N8], b3[MC_N8], g2[MC_N8], x4[MC_N8], r5[MC_N8], b5[MC_N8];
  __local int8 hz[MC_N8];
  const MenonRings m = { { s0, s1 }, ch, cv, dh, dv, g, r3, b3, g2, x4, r5, b5, hz };
  const int tx = (int) get_group_id (0) * 16 * (MC_CHUNKS - 1);
  const int qa = (int) get_group_id (1) * strip / 2;
  const int qb = min (qa + strip / 2, (height + 1) / 2);

  /* the rings start at 0 (their padding chunks stay so) */
  for (int i = 0; i < MC_N8; i++) {
    s0[i] = s1[i] = ch[i] = cv[i] = dh[i] = dv[i] = g[i] = r3[i] = b3[i] = g2[i] = x4[i] =
        r5[i] = b5[i] = 0.0f;
    hz[i] = 0;
  }

  /* row 0 of a pair (even y) is an R row when phase_y is 0 */
  const bool red0 = phase_y == 0;
  /* the gains of even and odd columns in R rows and in B rows */
  const float gr_even = phase_x ? gain.s1 : gain.s0, gr_odd = phase_x ? gain.s0 : gain.s1;
  const float gb_even = phase_x ? gain.s2 : gain.s1, gb_odd = phase_x ? gain.s1 : gain.s2;

  uint4 cells = (uint4) (0);
  const int slot = (int) (get_group_id (1) * get_num_groups (0) + get_group_id (0));
  for (int p = qa - 6; p < qb + 6; p++) {
    /* step k at row pair p - k */
    for (int dy = 0; dy < 2; dy++) {
      const bool red = red0 == (dy == 0);
      mc_load (m, in + in_offset, in_stride, width, height, maxv, black, tx, 2 * p + dy,
          red ? gr_even : gb_even, red ? gr_odd : gb_odd, gain.s3);
    }
    for (int dy = 0; dy < 2; dy++) {
      const RowOf r = row_of_y (2 * (p - 1) + dy, red0, phase_x);
      mc_differences (m, r);
      mc_gradients_h (m, r);
    }
    for (int dy = 0; dy < 2; dy++)
      mc_gradients_v (m, row_of_y (2 * (p - 2) + dy, red0, phase_x));
    for (int dy = 0; dy < 2; dy++)
      mc_decide (m, row_of_y (2 * (p - 2) + dy, red0, phase_x));
    for (int dy = 0; dy < 2; dy++)
      mc_rb_at_green (m, g, row_of_y (2 * (p - 3) + dy, red0, phase_x), r3, b3);
    for (int dy = 0; dy < 2; dy++)
      mc_refine_green (m, row_of_y (2 * (p - 4) + dy, red0, phase_x));
    for (int dy = 0; dy < 2; dy++)
      mc_rb_at_green (m, g2, row_of_y (2 * (p - 5) + dy, red0, phase_x), r5, b5);

    /* step 5's last part, then stages 4-6 and the statistics by 8 x 2
     * blocks, on the output columns */
    const int q = p - 6;
    if (q < qa)
      continue;
    const RowOf row0 = row_of_y (2 * q, red0, phase_x), row1 = row_of_y (2 * q + 1, red0,
        phase_x);
    for (int k = 0; k < MC_CHUNKS; k++) {
      /* pixels 0-7 of the chunk: output from the second chunk on; 8-15:
       * up to the last but one */
      const int x0 = tx - 8 + 16 * k;
      if (k > 0 && x0 >= width)
        break;
      float8 r_lo[2], g_lo[2], b_lo[2], r_hi[2], g_hi[2], b_hi[2];
#pragma unroll
      for (int dy = 0; dy < 2; dy++)
        mc_final (m, dy ? row1 : row0, k, &r_lo[dy], &g_lo[dy], &b_lo[dy], &r_hi[dy],
            &g_hi[dy], &b_hi[dy]);
      /* (not lo, hi: the statistics' bounds) */
      const bool first8 = k > 0, last8 = k < MC_CHUNKS - 1 && x0 + 8 < width;
#if !OUT_YUV
      if (plain) {
        if (first8)
          mc_plain (out + out_offset, out_stride, width, height, layout, mat.s0, x0, 2 * q,
              r_lo, g_lo, b_lo);
        if (last8)
          mc_plain (out + out_offset, out_stride, width, height, layout, mat.s0, x0 + 8, 2 * q,
              r_hi, g_hi, b_hi);
        continue;
      }
#endif
      if (first8)
        mc_output (CAMERA_PASS, phase_x, phase_y, x0, 2 * q, r_lo, g_lo, b_lo, &cells);
      if (last8)
        mc_output (CAMERA_PASS, phase_x, phase_y, x0 + 8, 2 * q, r_hi, g_hi, b_hi, &cells);
    }
    /* the sums to the counters every 16 row pairs and at the end (of more
     * rows 16-bit samples could pass 2^32) */
    if (stats && ((q - qa) % 16 == 15 || q == qb - 1)) {
      add_stats (totals, slot, cells);
      cells = (uint4) (0);
    }
  }
}
