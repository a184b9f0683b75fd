/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* debayer_camera_sensor_cpu: debayer_camera_cpu (camera_cpu.cl, after it)
 * with the sensor stages of sensor.cl done as the rows enter its ring, in
 * one pass: the host runs it on CPUs when a sensor stage is on (defects,
 * lens shading, the 3A statistics, auto exposure), where a pass over the
 * frame before the camera kernel (sensor_cpu.cl) read each raw row three
 * times and wrote the frame once more. The stages, formulas, float
 * arithmetic and the rounding to 16-bit words are sensor.cl's; the
 * statistics too, but the grey-world sums take the words (sensor.cl
 * rounds v x mid_max once more, at times a word apart) and a cell's luma
 * is rounded to 2^-20 by adding 2^23 (at times 2^-20 off convert_uint_rte
 * on PoCL).
 *
 * A second ring holds the raw rows after black level as 16-bit words, a
 * chunk's even columns in lanes 0-7 and its odd ones in 8-15: at row pair
 * y the walk loads rows y + 4 and y + 5 into it, each read and converted
 * once; corrects rows y + 2 and y + 3 from it into the demosaic's ring
 * (the defect test in 16-bit lanes, a sample's same-colour neighbours
 * being the next lanes of its parity and the same lanes 2 rows away; then
 * in float the shading, the word, white balance and exposure as
 * debayer_camera_cpu's samples), gathering their statistics; and
 * demosaics and writes rows y and y + 1 (cc_rows).
 *
 * Beyond the frame the demosaic reads the corrected frame mirrored
 * (reflect-101), so a mirrored row or column is corrected as the one it
 * mirrors: its shading gain is its mirror's, and its neighbours are those
 * of its mirror, sensor.cl's rule (a neighbour that the mirror takes to
 * the sample itself is the one on the other side) holding at mirrored
 * positions as: a neighbour 2 away that lands on the same sample as the
 * centre is replaced by the one 2 away on the other side. Of the chunks on
 * each side of the strip only the lane next to the strip is read, so their
 * outer lanes may take any neighbours. */

/* border_reflect101 of each lane */
inline int8 cs_reflect8 (int8 x, int n)
{
  if (n == 1)
    return (int8) (0);
  while (!all ((x >= 0) & (x < n))) {
    x = select (x, -x, x < 0);
    x = select (x, 2 * n - 2 - x, x >= n);
  }
  return x;
}

/* Loads rows y and y + 1 (mirrored) into the raw ring, chunks 0 .. n - 1
 * from column tx - 16, after black level: max (min (raw, maxv) - black, 0),
 * sensor.cl's samples, as 16-bit words, a chunk's even columns in lanes
 * 0-7 and its odd ones in 8-15. */
inline void cs_load_raw (__local ushort16 * raw, __global const uchar * in, int in_stride,
    int width, int height, int maxv, int black, int tx, int y, int n)
{
  const ushort16 top = (ushort16) ((ushort) maxv), zero = (ushort16) ((ushort) black);
#pragma unroll
  for (int dy = 0; dy < 2; dy++) {
    __global const in_t *row = (__global const in_t *) (in + (size_t) border_reflect101 (y + dy,
            height) * in_stride);
    const int b = CC_AT (y + dy);
    for (int k = 0; k < n; k++) {
      const int x = tx - 16 + 16 * k;
      ushort16 a;
      if (x >= 0 && x + 16 <= width) {
#if IN_16
        a = (ushort16) (vload8 (0, row + x), vload8 (1, row + x));
#else
        a = convert_ushort16 (vload16 (0, row + x));
#endif
      } else {
        ushort v[16];
        for (int j = 0; j < 16; j++)
          v[j] = (ushort) row[border_reflect101 (x + j, width)];
        a = (ushort16) (v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11],
            v[12], v[13], v[14], v[15]);
      }
      a = sub_sat (min (a, top), zero);
      raw[b + k] = (ushort16) (a.even, a.odd);
    }
  }
}

/* A ring row's samples 2 columns to the left and right of chunk c's (l,
 * r: the chunks beside it), each parity's 8 lanes on their own (one
 * byte-align instruction each). */
#if defined (__clang__) && !CS_SWIZZLE
/* (clang's swizzles of these came out as 3 and 5 instructions) */
#define CS_L(l, c) __builtin_shufflevector (l, c, 7, 16, 17, 18, 19, 20, 21, 22, 15, 24, 25, 26, \
    27, 28, 29, 30)
#define CS_R(c, r) __builtin_shufflevector (c, r, 1, 2, 3, 4, 5, 6, 7, 16, 9, 10, 11, 12, 13, 14, \
    15, 24)
#else
#define CS_L(l, c) ((ushort16) ((l).s7, (c).s0123, (c).s456, (l).sf, (c).s89ab, (c).scde))
#define CS_R(c, r) ((ushort16) ((c).s1234, (c).s567, (r).s0, (c).s9abc, (c).sdef, (r).s8))
#endif

/* The sensor stages' per-frame values (debayer_sensor's arguments). */
typedef struct {
  int defect;
  ushort16 threshold;           /* floor (the threshold), at most 65535 */
  float unit;
  __global const float *shading;
  int4 grid;
  float2 scale;
  float mid_max;
  int lo, hi;
  float4 wb;
} CsParams;

/* The lens-shading gains of the strip's columns on one grid row j: for
 * each chunk and parity, sc_shading8's interpolation along the rows j and
 * j + 1 (top) and their difference (bottom - top), by row parity, made
 * again when a row's j changes (13 grid rows: a few times a strip). */
typedef struct {
  int j[2];
  float8 top[2][2][CC_ROW], diff[2][2][CC_ROW];
} CsShading;

inline void cs_shading_row (CsShading * sh, const CsParams * sp, int dy, int j, int tx, int n,
    int width)
{
  sh->j[dy] = j;
  const int cols = sp->grid.s0;
  for (int p = 0; p < 2; p++) {
    __global const float *base = sp->shading + (SITE (dy, p) * sp->grid.s1 + j) * cols;
    for (int k = 0; k < n; k++) {
      /* the lanes' pixels (their mirrors beyond the frame) */
      const int8 xs = cs_reflect8 ((int8) (tx - 16 + 16 * k + p) + (int8) (0, 2, 4, 6, 8, 10, 12,
              14), width);
      const float8 gx = convert_float8 (xs) * sp->scale.s0;
      const int8 i = min (convert_int8 (gx), cols - 2);
      const float8 fx = gx - convert_float8 (i);
      float8 q0, q1, q2, q3;
#define CS_GATHER(q, d) q = (float8) (base[i.s0 + (d)], base[i.s1 + (d)], base[i.s2 + (d)], \
    base[i.s3 + (d)], base[i.s4 + (d)], base[i.s5 + (d)], base[i.s6 + (d)], base[i.s7 + (d)])
      CS_GATHER (q0, 0);
      CS_GATHER (q1, 1);
      CS_GATHER (q2, cols);
      CS_GATHER (q3, cols + 1);
#undef CS_GATHER
      const float8 t = mad (fx, q1 - q0, q0);
      sh->top[dy][p][k] = t;
      sh->diff[dy][p][k] = mad (fx, q3 - q2, q2) - t;
    }
  }
}

/* The statistics of a work-item: the grey-world sums by lane (stats.cl),
 * a histogram by lane (bin 64: lanes beyond the frame) and the zones' luma
 * sums (sensor.cl's); where the zones change along each output chunk's
 * cells: zone_x the zone of its first, split the first of its lanes in
 * the next zone (8: none; -1: more than one boundary, a narrow frame). */
typedef struct {
  int8 sums[4];
  uint hist[8][SENSOR_HIST + 1];
  uint zones[SENSOR_ZONES];
  int zone_x[CC_ROW], split[CC_ROW];
} CsStats;

inline void cs_stats_start (CsStats * st, int tx, int n, int width)
{
  for (int i = 0; i < 4; i++)
    st->sums[i] = (int8) (0);
  for (int l = 0; l < 8; l++)
    for (int i = 0; i <= SENSOR_HIST; i++)
      st->hist[l][i] = 0;
  for (int i = 0; i < SENSOR_ZONES; i++)
    st->zones[i] = 0;
  const int cw = width / 2;
  for (int k = 1; k < n - 1; k++) {
    const int first = (tx - 16 + 16 * k) / 2, zx = SENSOR_ZONES_X * first / cw;
    /* the first cells of the next two zones (16 c >= (zx + 1) cw) */
    const int c1 = ((zx + 1) * cw + SENSOR_ZONES_X - 1) / SENSOR_ZONES_X;
    const int c2 = ((zx + 2) * cw + SENSOR_ZONES_X - 1) / SENSOR_ZONES_X;
    st->zone_x[k] = zx;
    st->split[k] = c1 - first >= 8 || c1 >= cw ? 8 : c2 - first >= 8 || c2 >= cw ?
        c1 - first : -1;
  }
}

/* The sum of the lanes */
inline uint cs_sum8 (uint8 v)
{
  const uint4 a = v.lo + v.hi;
  const uint2 b = a.lo + a.hi;
  return b.s0 + b.s1;
}

/* The 3A statistics of the cells of output chunk k (columns x .. x + 15)
 * of a row pair (its zones: zrow): v (after the corrections) and their
 * words w, by row and parity (sensor_cpu.cl's, the words for the
 * grey-world sums). */
inline __attribute__ ((always_inline)) void cs_count (CsStats * st, const CsParams * sp,
    float8 v[2][2], float8 w[2][2], int k, int x, __private uint * zrow, int width)
{
  const int cw = width / 2;
  float8 c[4];
  int8 q[4];
  c[SITE (0, 0)] = v[0][0];
  c[SITE (0, 1)] = v[0][1];
  c[SITE (1, 0)] = v[1][0];
  c[SITE (1, 1)] = v[1][1];
  q[SITE (0, 0)] = convert_int8 (w[0][0]);
  q[SITE (0, 1)] = convert_int8 (w[0][1]);
  q[SITE (1, 0)] = convert_int8 (w[1][0]);
  q[SITE (1, 1)] = convert_int8 (w[1][1]);
  const int8 cx = (int8) (x / 2) + (int8) (0, 1, 2, 3, 4, 5, 6, 7);
  const int8 in_frame = cx < cw;
  const int8 top = max (max (q[0], q[1]), max (q[2], q[3]));
  const int8 use = in_frame & (top >= sp->lo) & (top < sp->hi);
  st->sums[0] += q[0] & use;
  st->sums[1] += (q[1] + q[2]) & use;
  st->sums[2] += q[3] & use;
  st->sums[3] -= use;
  const float4 wb = sp->wb;
  const float8 luma = 0.2126f * min (c[0] * wb.s0, 1.0f) +
      0.7152f * 0.5f * (min (c[1] * wb.s1, 1.0f) + min (c[2] * wb.s1, 1.0f)) +
      0.0722f * min (c[3] * wb.s2, 1.0f);
  const int8 bin = select ((int8) (SENSOR_HIST), min (convert_int8 (luma * (float) SENSOR_HIST),
          SENSOR_HIST - 1), in_frame);
  /* round (luma 2^20) to nearest even, as 2^23 + x does in float (below 2^21) */
  const uint8 part = (as_uint8 (mad (luma, (float8) (SENSOR_ZONE_ONE), (float8) (U2F_BASE))) -
      U2F_BITS) & as_uint8 (in_frame);
#pragma unroll
  for (int l = 0; l < 8; l++)
    st->hist[l][bin[l]]++;
  const int zx = st->zone_x[k], split = st->split[k];
  if (split == 8) {
    zrow[zx] += cs_sum8 (part);
  } else if (split > 0) {
    const uint next = cs_sum8 (part & as_uint8 ((int8) (0, 1, 2, 3, 4, 5, 6, 7) >= split));
    zrow[zx] += cs_sum8 (part) - next;
    zrow[zx + 1] += next;
  } else {
    /* a step at each boundary (16 cx / cw without a division a cell) */
    const int first = x / 2;
    int z = zx, next = (z + 1) * cw;
    for (int l = 0; l < 8; l++) {
      if (!in_frame[l])
        break;
      while (SENSOR_ZONES_X * (first + l) >= next) {
        z++;
        next += cw;
      }
      zrow[z] += part[l];
    }
  }
}

/* The samples of chunk k of a row (its ring rows: c, and u and d 2 above
 * and below) after the defect test, as the ring's words. The test in 16-bit
 * lanes: a sample more than the threshold t above the largest of its
 * neighbours, c - hi > t, is for integers c - hi > floor (t), i.e.
 * sat (sat (c - hi) - floor (t)) != 0. */
inline __attribute__ ((always_inline)) ushort16 cs_defects (__local const ushort16 * c,
    __local const ushort16 * u, __local const ushort16 * d, int k, int n, int x, int width,
    ushort16 t)
{
  const int kl = max (k - 1, 0), kr = min (k + 1, n - 1);
  const ushort16 m = c[k];
  ushort16 ul = CS_L (u[kl], u[k]), ur = CS_R (u[k], u[kr]);
  ushort16 cl = CS_L (c[kl], m), cr = CS_R (m, c[kr]);
  ushort16 dl = CS_L (d[kl], d[k]), dr = CS_R (d[k], d[kr]);
  if (!(x >= 2 && x + 18 <= width)) {
    /* a lane's neighbour 2 to the left or right that the mirror lands on
     * the lane itself is the other side's */
    const int8 xs = (int8) (x) + (int8) (0, 2, 4, 6, 8, 10, 12, 14);
    const int8 at0 = cs_reflect8 (xs, width), at1 = cs_reflect8 (xs + 1, width);
    const short16 fl = (short16) (convert_short8 (cs_reflect8 (xs - 2, width) == at0),
        convert_short8 (cs_reflect8 (xs - 1, width) == at1));
    const short16 fr = (short16) (convert_short8 (cs_reflect8 (xs + 2, width) == at0),
        convert_short8 (cs_reflect8 (xs + 3, width) == at1));
#define CS_FLIP(l, r) { const ushort16 l0 = l; l = select (l, r, fl); r = select (r, l0, fr); }
    CS_FLIP (ul, ur);
    CS_FLIP (cl, cr);
    CS_FLIP (dl, dr);
#undef CS_FLIP
  }
  const ushort16 hi8 = max (max (max (ul, u[k]), max (ur, cl)), max (max (cr, dl),
          max (d[k], dr)));
  const ushort16 lo8 = min (min (min (ul, u[k]), min (ur, cl)), min (min (cr, dl),
          min (d[k], dr)));
  const short16 hot = sub_sat (sub_sat (m, hi8), t) != (ushort16) (0);
  const short16 cold = sub_sat (sub_sat (lo8, m), t) != (ushort16) (0);
  return select (select (m, lo8, cold), hi8, hot);
}

/* The corrected samples (after shading) of chunk k, parity p of a row,
 * from its words after the defect test (a), in [0, 1] of full scale, and
 * their 16-bit words (*word). */
inline __attribute__ ((always_inline)) float8 cs_correct (float8 a, int k, const CsParams * sp,
    int shade, float fy, const float8 * top, const float8 * diff, float8 * word)
{
  float8 s = a * sp->unit;
  if (shade)
    s = min (s * mad ((float8) (fy), diff[k], top[k]), 1.0f);
  /* the 16-bit word (sensor.cl's rounding: 2^23 + v x mid_max in float),
   * which the camera stages take where corrected */
  *word = mad (s, (float8) (sp->mid_max), (float8) (U2F_BASE)) - U2F_BASE;
  return s;
}

/* Corrects walk rows y and y + 1 (y even; mirrored beyond the frame) from
 * the raw ring into the demosaic's ring (s0, s1) as debayer_camera_cpu's
 * samples (white balance and exposure: gain, clipped at cap), chunks
 * 0 .. n - 1, with the defect test and the shading where `defect` and
 * `shade` (constants where inlined; corrected: either); with `count`,
 * gathers the statistics of the pair's cells in the output chunks (row
 * y's corrected samples kept a row: v0, w0). */
inline __attribute__ ((always_inline)) void cs_correct_pair (__local float8 * s0,
    __local float8 * s1, __local const ushort16 * raw, const CsParams * sp, const int defect,
    const int shade, CsShading * sh, float g[2][2], float cap[2][2], int tx, int y, int n,
    int width, int height, int count, CsStats * st, float8 v0[2][CC_ROW],
    float8 w0[2][CC_ROW])
{
  const int corrected = defect || shade;
  count = count && y + 1 < height;
  __private uint *zrow = st->zones + (SENSOR_ZONES_Y * (y / 2) / max (height / 2, 1)) *
      SENSOR_ZONES_X;
#pragma unroll
  for (int dy = 0; dy < 2; dy++) {
    /* the ring rows of the centre and the neighbours 2 above and below
     * (flipped where the mirror lands on the centre), the shading's grid
     * row */
    const int r = y + dy, ri = border_reflect101 (r, height);
    const int bc = CC_AT (r);
    const int bu = CC_AT (border_reflect101 (r - 2, height) == ri ? r + 2 : r - 2);
    const int bd = CC_AT (border_reflect101 (r + 2, height) == ri ? r - 2 : r + 2);
    const float gy = (float) ri * sp->scale.s1;
    const int j = min ((int) gy, sp->grid.s1 - 2);
    const float fy = gy - (float) j;
    if (shade && j != sh->j[dy])
      cs_shading_row (sh, sp, dy, j, tx, n, width);
    for (int k = 0; k < n; k++) {
      const int x = tx - 16 + 16 * k;
      float8 v[2][2], w[2][2];
      const ushort16 m = defect ? cs_defects (raw + bc, raw + bu, raw + bd, k, n, x, width,
          sp->threshold) : raw[bc + k];
      const float8 a[2] = { convert_float8 (m.lo), convert_float8 (m.hi) };
#pragma unroll
      for (int p = 0; p < 2; p++) {
        v[dy][p] = cs_correct (a[p], k, sp, shade, fy, sh->top[dy][p], sh->diff[dy][p],
            &w[dy][p]);
        /* uncorrected, the samples' own scale (no defect test then); both
         * at least 0 (cc_stage12's max with 0 is for raw samples below
         * the black level) */
        (p ? s1 : s0)[bc + CC_OFF + k] = min ((corrected ? w[dy][p] : a[p]) * g[dy][p], cap[dy][p]);
      }
      if (count && k >= 1 && k < n - 1) {
        if (dy == 0) {
          v0[0][k] = v[0][0];
          v0[1][k] = v[0][1];
          w0[0][k] = w[0][0];
          w0[1][k] = w[0][1];
        } else {
          v[0][0] = v0[0][k];
          v[0][1] = v0[1][k];
          w[0][0] = w0[0][k];
          w[0][1] = w0[1][k];
          cs_count (st, sp, v, w, k, x, zrow, width);
        }
      }
    }
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
    float mid_max, int s_lo, int s_hi, float4 wb)
{
  /* the demosaic's ring, 64-byte aligned for cc_pair's float16 */
  __local float16 s0_16[CC_N / 2], s1_16[CC_N / 2];
  __local float8 *s0 = (__local float8 *) s0_16, *s1 = (__local float8 *) s1_16;
  __local ushort16 raw[CC_N];          /* the raw rows after black level */
  CC_STRIP
  const Curve3 cv = curve3_setup (tf);
  const CsParams sp = { defect, (ushort16) ((ushort) min (floor (threshold), 65535.0f)),
    1.0f / (float) (s_maxv - s_black), shading, grid, grid_scale, mid_max, s_lo, s_hi, wb };
  /* cc_load_pair's factors and caps by row and column parity */
  CC_GAINS (g, cap);
  CsShading sh;
  sh.j[0] = sh.j[1] = -1;
  CsStats st;
  float8 v0[2][CC_ROW], w0[2][CC_ROW];   /* cs_correct_pair's */
  if (stats)
    cs_stats_start (&st, tx, n, width);

  /* row pair y: the raw rows y + 4 and y + 5 loaded, y + 2 and y + 3
   * corrected, y and y + 1 demosaiced (the first pairs only load or
   * correct: the rows above the strip) */
  for (int y = ya - 8; y < yb; y += 2) {
    cs_load_raw (raw, src, in_stride, width, height, s_maxv, s_black, tx, y + 4, n);
    if (y >= ya - 4) {
      const int count = stats && y + 2 >= ya && y + 2 < yb;
      /* the loop specialised for the corrections on (constants once inlined) */
#define CS_PAIR(d, s) cs_correct_pair (s0, s1, raw, &sp, d, s, &sh, g, cap, tx, y + 2, n, width, \
    height, count, &st, v0, w0)
      if (defect) {
        if (grid.s2)
          CS_PAIR (1, 1);
        else
          CS_PAIR (1, 0);
      } else {
        if (grid.s2)
          CS_PAIR (0, 1);
        else
          CS_PAIR (0, 0);
      }
#undef CS_PAIR
    }
    if (y < ya)
      continue;
    cc_rows (CAMERA_PASS, s0, s1, tx, y, chunks, cv);
    /* the sums to the counters every 16 row pairs and at the end (a lane's
     * words, and a zone's sums of 2^20 a cell, stay below 2^32) */
    if (stats && (((y - ya) / 2) % 16 == 15 || y + 2 >= yb)) {
      flush_lane_stats (totals, slot, st.sums);
      cs_flush_zones (&st, totals);
    }
  }
  if (stats) {
    __global uint *h = totals + SENSOR_HIST_AT + SENSOR_HIST * (slot % SENSOR_HIST_SLOTS);
    for (int i = 0; i < SENSOR_HIST; i++) {
      uint count = 0;
      for (int l = 0; l < 8; l++)
        count += st.hist[l][i];
      if (count)
        atomic_add (h + i, count);
    }
  }
}
