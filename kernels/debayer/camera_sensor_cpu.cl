/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* debayer_camera_sensor_cpu: debayer_camera_cpu (camera_cpu.cl, after it)
 * with the sensor stages of sensor.cl done as the rows enter its ring, in
 * one pass: the host runs it on CPUs when a sensor stage is on (defects,
 * lens shading, the 3A statistics, auto exposure), instead of
 * debayer_sensor_cpu and debayer_camera_cpu one after the other. The
 * stages, formulas, float arithmetic, the rounding to 16-bit words and the
 * statistics are sensor.cl's (sensor_cpu.cl's vector forms); the result is
 * that of the two passes.
 *
 * A second ring holds the raw rows after black level (in sample units, by
 * column parity in chunks of 8, as the demosaic's): at each row pair y it
 * takes rows y + 4 and y + 5, each loaded and converted once; rows y + 2
 * and y + 3 are then corrected from it (a sample's same-colour neighbours
 * are the next lanes of its parity and the same lanes 2 rows away) into the
 * demosaic's ring, where the corrected words go through white balance and
 * exposure as debayer_camera_cpu's samples; their statistics are gathered
 * there; then rows y and y + 1 are demosaiced and written (cc_rows).
 *
 * Beyond the frame the demosaic reads the corrected frame mirrored
 * (reflect-101), so a mirrored row or column is corrected as the one it
 * mirrors: its neighbours are those of its mirror, the rule of sensor.cl (a
 * neighbour that the mirror takes to the sample itself is the one on the
 * other side) applied to the mirrored positions (the neighbour 2 away that
 * lands on the same sample as the centre is replaced by the one 2 away on
 * the other side), and its shading gain is its mirror's. Of the chunks on
 * each side of the strip, only the lane next to the strip is read. */

/* The strip's columns, once a work-item: for chunk k (from tx - 16) and
 * parity p, the lanes whose neighbour 2 to the left or right is to be taken
 * from the other side (reflect-101's edges), the lanes' pixels in the frame
 * (for the shading), and the shading's grid column and fraction
 * (sc_shading8's; cell -1 where the lanes are not in one grid cell). */
typedef struct {
  int8 flip_l[CC_ROW][2], flip_r[CC_ROW][2];
  int8 xs[CC_ROW][2];
  float8 fx[CC_ROW][2];
  int cell[CC_ROW][2];
} CsColumns;

inline void cs_columns (CsColumns * c, int tx, int n, int width, int4 grid, float scale)
{
  for (int k = 0; k < n; k++)
    for (int p = 0; p < 2; p++) {
      int xs[8], fl[8], fr[8];
      for (int l = 0; l < 8; l++) {
        const int x = tx - 16 + 16 * k + p + 2 * l;
        xs[l] = border_reflect101 (x, width);
        fl[l] = border_reflect101 (x - 2, width) == xs[l] ? -1 : 0;
        fr[l] = border_reflect101 (x + 2, width) == xs[l] ? -1 : 0;
      }
      c->xs[k][p] = (int8) (xs[0], xs[1], xs[2], xs[3], xs[4], xs[5], xs[6], xs[7]);
      c->flip_l[k][p] = (int8) (fl[0], fl[1], fl[2], fl[3], fl[4], fl[5], fl[6], fl[7]);
      c->flip_r[k][p] = (int8) (fr[0], fr[1], fr[2], fr[3], fr[4], fr[5], fr[6], fr[7]);
      const float8 gx = convert_float8 (c->xs[k][p]) * scale;
      const int8 i = min (convert_int8 (gx), grid.s0 - 2);
      c->fx[k][p] = gx - convert_float8 (i);
      const int8 same = i == (int8) (i.s0);
      c->cell[k][p] = all (same) ? i.s0 : -1;
    }
}

/* Loads rows y and y + 1 (mirrored) into the raw ring (r0 even, r1 odd
 * columns), chunks 0 .. n - 1 from column tx - 16, after black level:
 * max (min (raw, maxv) - black, 0) as sensor.cl's samples. */
inline void cs_load_raw (__local float8 * r0, __local float8 * r1, __global const uchar * in,
    int in_stride, int width, int height, int maxv, int black, int tx, int y, int n)
{
#pragma unroll
  for (int dy = 0; dy < 2; dy++) {
    __global const in_t *row = (__global const in_t *) (in + (size_t) border_reflect101 (y + dy,
            height) * in_stride);
    const int b = CC_AT (y + dy);
    for (int k = 0; k < n; k++) {
      const int x = tx - 16 + 16 * k;
      int8 e, o;
      if (x >= 0 && x + 16 <= width) {
        const int8 a = convert_int8 (vload8 (0, row + x)), c = convert_int8 (vload8 (1, row + x));
        e = (int8) (a.even, c.even);
        o = (int8) (a.odd, c.odd);
      } else {
        int v[16];
        for (int j = 0; j < 16; j++)
          v[j] = (int) row[border_reflect101 (x + j, width)];
        e = (int8) (v[0], v[2], v[4], v[6], v[8], v[10], v[12], v[14]);
        o = (int8) (v[1], v[3], v[5], v[7], v[9], v[11], v[13], v[15]);
      }
      r0[b + k] = convert_float8 (max (min (e, maxv) - black, 0));
      r1[b + k] = convert_float8 (max (min (o, maxv) - black, 0));
    }
  }
}

/* A row's samples 2 columns to the left and right of chunk c's (l, r: the
 * chunks beside it), with the lanes of flip_l / flip_r taken from the other
 * side. */
#define CS_L(l, c) ((float8) ((l).s7, (c).s0123, (c).s456))
#define CS_R(c, r) ((float8) ((c).s1234, (c).s567, (r).s0))

/* The sensor stages' per-frame values (debayer_sensor's arguments). */
typedef struct {
  int defect;
  float threshold, unit;
  __global const float *shading;
  int4 grid;
  float2 scale;
  int corrected;
  float mid_max;
  int lo, hi;
  float4 wb;
} CsParams;

/* The statistics of a work-item: the grey-world sums by lane (stats.cl),
 * the histogram and the zones' luma sums (sensor.cl's). */
typedef struct {
  int8 sums[4];
  uint hist[SENSOR_HIST];
  uint zones[SENSOR_ZONES];
} CsStats;

/* The 3A statistics of the cells of a chunk (columns x .. x + 15) on rows
 * y, y + 1: v by row and parity, after the corrections (sensor_cpu.cl's). */
inline void cs_count (CsStats * st, const CsParams * sp, float8 v[2][2], int x, int y,
    int width, int height)
{
  const int cw = width / 2, ch = height / 2;
  float8 c[4];
  c[SITE (0, 0)] = v[0][0];
  c[SITE (0, 1)] = v[0][1];
  c[SITE (1, 0)] = v[1][0];
  c[SITE (1, 1)] = v[1][1];
  const int8 cx = (int8) (x / 2) + (int8) (0, 1, 2, 3, 4, 5, 6, 7);
  const int8 in_frame = cx < cw;
  uint8 q[4];
  for (int i = 0; i < 4; i++)
    q[i] = convert_uint8_sat_rte (c[i] * sp->mid_max);
  const uint8 top = max (max (q[0], q[1]), max (q[2], q[3]));
  const int8 use = in_frame & (top >= (uint) sp->lo) & (top < (uint) sp->hi);
  st->sums[0] += as_int8 (q[0]) & use;
  st->sums[1] += as_int8 (q[1] + q[2]) & use;
  st->sums[2] += as_int8 (q[3]) & use;
  st->sums[3] -= use;
  const float4 wb = sp->wb;
  const float8 luma = 0.2126f * min (c[0] * wb.s0, 1.0f) +
      0.7152f * 0.5f * (min (c[1] * wb.s1, 1.0f) + min (c[2] * wb.s1, 1.0f)) +
      0.0722f * min (c[3] * wb.s2, 1.0f);
  const int8 bin = min (convert_int8 (luma * (float) SENSOR_HIST), SENSOR_HIST - 1);
  const uint8 part = convert_uint8_rte (luma * SENSOR_ZONE_ONE);
  /* the zone of the lanes' cells: that of the first, then a step at each
   * boundary (16 cx / cw without a division a cell) */
  const int first = x / 2;
  int zx = SENSOR_ZONES_X * first / cw, next = (zx + 1) * cw;
  __private uint *zrow = st->zones + (SENSOR_ZONES_Y * (y / 2) / ch) * SENSOR_ZONES_X;
  for (int l = 0; l < 8; l++) {
    if (!in_frame[l])
      break;
    while (SENSOR_ZONES_X * (first + l) >= next) {
      zx++;
      next += cw;
    }
    st->hist[bin[l]]++;
    zrow[zx] += part[l];
  }
}

/* Corrects walk rows y and y + 1 (y even; mirrored beyond the frame) from
 * the raw ring into the demosaic's ring (s0, s1) as debayer_camera_cpu's
 * samples (white balance and exposure: gain, clipped at cap), chunks
 * 0 .. n - 1; with `count`, gathers the statistics of the pair's cells in
 * the output chunks. */
inline void cs_correct_pair (__local float8 * s0, __local float8 * s1,
    __local const float8 * r0, __local const float8 * r1, const CsColumns * cols,
    const CsParams * sp, float g[2][2], float cap[2][2], int tx, int y, int n, int width,
    int height, int count, CsStats * st)
{
  /* per row: the ring rows of the centre and the neighbours 2 above and
   * below (flipped where the mirror lands on the centre), the shading's
   * grid row */
  int bc[2], bu[2], bd[2], j[2];
  float fy[2];
  for (int dy = 0; dy < 2; dy++) {
    const int r = y + dy, ri = border_reflect101 (r, height);
    bc[dy] = CC_AT (r);
    bu[dy] = CC_AT (border_reflect101 (r - 2, height) == ri ? r + 2 : r - 2);
    bd[dy] = CC_AT (border_reflect101 (r + 2, height) == ri ? r - 2 : r + 2);
    const float gy = (float) ri * sp->scale.s1;
    j[dy] = min ((int) gy, sp->grid.s1 - 2);
    fy[dy] = gy - (float) j[dy];
  }
  const bool rows_in = y + 1 < height;
  for (int k = 0; k < n; k++) {
    const int x = tx - 16 + 16 * k;
    const int kl = max (k - 1, 0), kr = min (k + 1, n - 1);
    /* no lane's neighbour mirrored */
    const bool inside = x >= 2 && x + 18 <= width;
    float8 v[2][2];
#pragma unroll
    for (int dy = 0; dy < 2; dy++) {
#pragma unroll
      for (int p = 0; p < 2; p++) {
        __local const float8 *rp = p ? r1 : r0;
        const float8 c = rp[bc[dy] + k];
        float8 s = c;
        if (sp->defect) {
#define CS_ROW(b, l, m, r) const float8 m = rp[(b) + k]; \
          float8 l = CS_L (rp[(b) + kl], m), r = CS_R (m, rp[(b) + kr]); \
          if (!inside) { \
            const float8 l0 = l; \
            l = select (l, r, cols->flip_l[k][p]); \
            r = select (r, l0, cols->flip_r[k][p]); \
          }
          CS_ROW (bu[dy], ul, uc, ur);
          CS_ROW (bc[dy], cl, cc, cr);
          CS_ROW (bd[dy], dl, dc, dr);
#undef CS_ROW
          const float8 hi8 = max (max (max (ul, uc), max (ur, cl)), max (max (cr, dl),
                  max (dc, dr)));
          const float8 lo8 = min (min (min (ul, uc), min (ur, cl)), min (min (cr, dl),
                  min (dc, dr)));
          s = select (select (cc, lo8, lo8 - cc > sp->threshold), hi8,
              cc - hi8 > sp->threshold);
        }
        s *= sp->unit;
        float8 out;
        if (sp->corrected) {
          if (sp->grid.s2) {
            /* sc_shading8 at the lanes' pixels, its colour's grid */
            const int cols_n = sp->grid.s0;
            __global const float *base = sp->shading + (SITE (dy, p) * sp->grid.s1 + j[dy]) *
                cols_n;
            const float8 fx = cols->fx[k][p];
            float8 gain;
            const int i0 = cols->cell[k][p];
            if (i0 >= 0) {
              __global const float *q = base + i0;
              const float top0 = q[0], top1 = q[1], bot0 = q[cols_n], bot1 = q[cols_n + 1];
              const float8 top = mad (fx, (float8) (top1 - top0), (float8) (top0));
              const float8 bottom = mad (fx, (float8) (bot1 - bot0), (float8) (bot0));
              gain = mad ((float8) (fy[dy]), bottom - top, top);
            } else {
              const int8 xs = cols->xs[k][p];
              float w[8];
              for (int l = 0; l < 8; l++) {
                const int il = min ((int) ((float) xs[l] * sp->scale.s0), cols_n - 2);
                const float fxl = (float) xs[l] * sp->scale.s0 - (float) il;
                __global const float *q = base + il;
                const float top = mad (fxl, q[1] - q[0], q[0]);
                const float bottom = mad (fxl, q[cols_n + 1] - q[cols_n], q[cols_n]);
                w[l] = mad (fy[dy], bottom - top, top);
              }
              gain = (float8) (w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]);
            }
            s = min (s * gain, 1.0f);
          }
          /* the 16-bit word (sensor.cl's rounding: 2^23 + v x mid_max in
           * float) in full-scale units of the words */
          out = mad (s, (float8) (sp->mid_max), (float8) (U2F_BASE)) - U2F_BASE;
        } else {
          out = c;
        }
        v[dy][p] = s;
        (p ? s1 : s0)[bc[dy] + k] = min (max (out * g[dy][p], 0.0f), cap[dy][p]);
      }
    }
    if (count && rows_in && k >= 1 && k < n - 1)
      cs_count (st, sp, v, x, y, width, height);
  }
}

/* Adds the zone sums to the counters and zeroes them. */
inline void cs_flush_zones (CsStats * st, __global uint * totals)
{
  for (int i = 0; i < SENSOR_ZONES; i++)
    if (st->zones[i]) {
      atomic_add (totals + SENSOR_ZONES_AT + 2 * i, st->zones[i] & 0xffff);
      atomic_add (totals + SENSOR_ZONES_AT + 2 * i + 1, st->zones[i] >> 16);
      st->zones[i] = 0;
    }
}

/* Output rows y .. y + strip - 1 (y even) of group (x, y), columns from
 * 16 CC_CHUNKS x, as debayer_camera_cpu; the sensor stages' arguments
 * (debayer_sensor's): the raw samples' full scale and black level (the
 * camera arguments' are those of the words when `corrected`, else the
 * raw samples'), the defect test, the shading grids, whether the samples
 * are corrected (defects or shading: then carried as words of full scale
 * mid_max), the grey-world range in words, the white balance in force. */
__kernel __attribute__ ((reqd_work_group_size (1, 1, 1)))
void debayer_camera_sensor_cpu (CAMERA_ARGS, int strip, int s_maxv, int s_black, int defect,
    float threshold, __global const float * shading, int4 grid, float2 grid_scale,
    int corrected, float mid_max, int s_lo, int s_hi, float4 wb)
{
  __local float8 s0[CC_N], s1[CC_N];   /* the demosaic's ring */
  __local float8 r0[CC_N], r1[CC_N];   /* the raw rows after black level */
  const int tx = (int) get_group_id (0) * 16 * CC_CHUNKS;
  const int ya = (int) get_group_id (1) * strip;
  const int yb = min (ya + strip, height);
  const int chunks = min (CC_CHUNKS, (width - tx + 15) / 16);
  const int n = chunks + 2;
  const int slot = (int) (get_group_id (1) * get_num_groups (0) + get_group_id (0));
  __global const uchar *src = in + in_offset;
  const float floor3 = cc_floor3 (tf);
  const CsParams sp = { defect, threshold, 1.0f / (float) (s_maxv - s_black), shading, grid,
    grid_scale, corrected, mid_max, s_lo, s_hi, wb };
  /* cc_load_pair's factors and caps by row and column parity */
  float g[2][2], cap[2][2];
#pragma unroll
  for (int dy = 0; dy < 2; dy++)
#pragma unroll
    for (int p = 0; p < 2; p++) {
      g[dy][p] = gain_of (SITE (dy, p), gain.lo);
      cap[dy][p] = min (min ((float) (maxv - black) * g[dy][p], gain.s3), 1.0f);
    }
  CsColumns cols;
  cs_columns (&cols, tx, n, width, grid, grid_scale.s0);
  CsStats st;
  for (int i = 0; i < 4; i++)
    st.sums[i] = (int8) (0);
  if (stats) {
    for (int i = 0; i < SENSOR_HIST; i++)
      st.hist[i] = 0;
    for (int i = 0; i < SENSOR_ZONES; i++)
      st.zones[i] = 0;
  }

  for (int r = ya - 4; r < ya + 4; r += 2)
    cs_load_raw (r0, r1, src, in_stride, width, height, s_maxv, s_black, tx, r, n);
  cs_correct_pair (s0, s1, r0, r1, &cols, &sp, g, cap, tx, ya - 2, n, width, height, 0, &st);
  cs_correct_pair (s0, s1, r0, r1, &cols, &sp, g, cap, tx, ya, n, width, height, stats, &st);
  for (int y = ya; y < yb; y += 2) {
    cs_load_raw (r0, r1, src, in_stride, width, height, s_maxv, s_black, tx, y + 4, n);
    cs_correct_pair (s0, s1, r0, r1, &cols, &sp, g, cap, tx, y + 2, n, width, height,
        stats && y + 2 < yb, &st);
    cc_rows (CAMERA_PASS, s0, s1, tx, y, chunks, floor3);
    /* the sums to the counters every 16 row pairs and at the end (their
     * lanes' words, and a zone's sums of 2^20 a cell, stay below 2^31) */
    if (stats && (((y - ya) / 2) % 16 == 15 || y + 2 >= yb)) {
      flush_lane_stats (totals, slot, st.sums);
      cs_flush_zones (&st, totals);
    }
  }
  if (stats) {
    __global uint *h = totals + SENSOR_HIST_AT + SENSOR_HIST * (slot % SENSOR_HIST_SLOTS);
    for (int i = 0; i < SENSOR_HIST; i++)
      if (st.hist[i])
        atomic_add (h + i, st.hist[i]);
  }
}
