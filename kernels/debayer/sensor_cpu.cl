/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* debayer_sensor_cpu: debayer_sensor (sensor.cl: its stages, formulas,
 * float arithmetic, result and statistics) in the CPU shape, which the
 * host runs before debayer_menon_cpu where the CPU tuning is selected,
 * with debayer_sensor's arguments (the camera strips do the same stages in
 * their own ring: camera_sensor_cpu.cl).
 *
 * A work-group is one work-item; it takes a strip of SC_STRIP_W columns
 * and a run of row pairs (the rows of the launch's second dimension
 * shared out), 16 columns of a row pair at a time as float8 of the even
 * and the odd columns: a sample's same-colour neighbours 2 columns away
 * are the next lanes of its parity's vector, those 2 rows away the same
 * lanes of the rows 2 above and below, so that the defect test is 16
 * vector min/max a parity and row. The 20 samples of a row that 16
 * columns need (2 each side) come in two vector loads inside the frame,
 * mirrored (reflect-101) one by one at its edges; the edge rule of
 * sensor.cl (a neighbour that the mirror takes to the sample itself is
 * the one on the other side) is a select on the lanes of the second and
 * the second last column and for the second and second last row. The
 * statistics are summed in the work-item's own registers and arrays
 * (grey-world sums by lane, a histogram, the zones' sums) and added to
 * the counters at the end (and the sums every 16 row pairs). */

#define SC_STRIP_W 128                 /* the host's kSensorCpuStrip */
#define SC_STRIP_ROWS 64               /* at most, a work-item (the zone sums' range) */

/* Samples x - 2 .. x + 17 of row `row` after black level: even (x - 2,
 * x, .. x + 16) and odd (x - 1, .. x + 17) columns as lanes 0..7 and their
 * 2 more (e8, o8: x + 14 .. x + 17 by parity). */
typedef struct {
  float8 e, o;          /* x - 2 .. x + 12 step 2, x - 1 .. x + 13 step 2 */
  float2 e2, o2;        /* x + 14, x + 16 and x + 15, x + 17 */
} ScRow;

inline ScRow sc_load_row (__global const uchar * row, int in16, int x, int width, int maxv,
    int black)
{
  int16 a;
  int4 b;
  if (x >= 2 && x + 18 <= width) {
    if (in16) {
      __global const ushort *p = (__global const ushort *) row + x - 2;
      a = convert_int16 (vload16 (0, p));
      b = convert_int4 (vload4 (4, p));
    } else {
      a = convert_int16 (vload16 (0, row + x - 2));
      b = convert_int4 (vload4 (4, row + x - 2));
    }
  } else {
    int v[20];
    for (int j = 0; j < 20; j++) {
      const int c = border_reflect101 (x - 2 + j, width);
      v[j] = in16 ? (int) ((__global const ushort *) row)[c] : (int) row[c];
    }
    a = (int16) (v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11],
        v[12], v[13], v[14], v[15]);
    b = (int4) (v[16], v[17], v[18], v[19]);
  }
  const float16 fa = convert_float16 (max (min (a, (int16) (maxv)) - black, 0));
  const float4 fb = convert_float4 (max (min (b, (int4) (maxv)) - black, 0));
  ScRow r;
  r.e = fa.even;
  r.o = fa.odd;
  r.e2 = fb.even;
  r.o2 = fb.odd;
  return r;
}

/* A parity's samples at the 8 columns (c), 2 to the left (l) and 2 to the
 * right (r) of them. */
#define SC_C(v, v2) ((float8) ((v).s1234, (v).s567, (v2).s0))
#define SC_L(v, v2) (v)
#define SC_R(v, v2) ((float8) ((v).s2345, (v).s67, (v2)))

/* The defect rule of a parity's 8 samples (c) given its rows above (u) and
 * below (d), already flipped at the frame's second and second last rows:
 * `first`/`last` the lanes at the second and second last column. */
inline float8 sc_defect8 (float8 c, float8 cl, float8 cr, float8 ul, float8 uc, float8 ur,
    float8 dl, float8 dc, float8 dr, int8 first, int8 last, bool inside, float threshold)
{
  /* left and right flipped: a mirrored neighbour that is the sample itself */
#define FLIP(l, r) const float8 l##f = inside ? l : select (l, r, first), \
    r##f = inside ? r : select (r, l, last)
  FLIP (cl, cr);
  FLIP (ul, ur);
  FLIP (dl, dr);
#undef FLIP
  const float8 hi8 = max (max (max (ulf, uc), max (urf, clf)), max (max (crf, dlf),
          max (dc, drf)));
  const float8 lo8 = min (min (min (ulf, uc), min (urf, clf)), min (min (crf, dlf),
          min (dc, drf)));
  return select (select (c, lo8, lo8 - c > threshold), hi8, c - hi8 > threshold);
}

/* The lens-shading gains of a parity's 8 samples at columns xs of row y,
 * colour `site`: sensor_shading, one grid column pair for all lanes where
 * they share it. */
inline float8 sc_shading8 (__global const float * g, int4 grid, float2 scale, int site,
    int8 xs, int y)
{
  const float gy = (float) y * scale.s1;
  const int j = min ((int) gy, grid.s1 - 2);
  const float fy = gy - (float) j;
  const float8 gx = convert_float8 (xs) * scale.s0;
  const int8 i = min (convert_int8 (gx), grid.s0 - 2);
  const float8 fx = gx - convert_float8 (i);
  __global const float *base = g + (site * grid.s1 + j) * grid.s0;
  if (i.s0 == i.s7) {
    __global const float *p = base + i.s0;
    const float top0 = p[0], top1 = p[1], bot0 = p[grid.s0], bot1 = p[grid.s0 + 1];
    /* sensor_shading's order: along the row first */
    const float8 top = mad (fx, (float8) (top1 - top0), (float8) (top0));
    const float8 bottom = mad (fx, (float8) (bot1 - bot0), (float8) (bot0));
    return mad ((float8) (fy), bottom - top, top);
  }
  float v[8];
  for (int l = 0; l < 8; l++) {
    const int il = min ((int) ((float) min (xs[l], 0x7fffffff) * scale.s0), grid.s0 - 2);
    const float fxl = (float) xs[l] * scale.s0 - (float) il;
    __global const float *p = base + il;
    const float top = mad (fxl, p[1] - p[0], p[0]);
    const float bottom = mad (fxl, p[grid.s0 + 1] - p[grid.s0], p[grid.s0]);
    v[l] = mad (fy, bottom - top, top);
  }
  return (float8) (v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
}

__kernel __attribute__ ((reqd_work_group_size (1, 1, 1)))
void debayer_sensor_cpu (__global const uchar * in, int in_offset, int in_stride, int in16,
    __global ushort * mid, int mid_stride, int width, int height, int maxv, int black,
    int phase_x, int phase_y, int defect, float threshold, __global const float * shading,
    int4 grid, float2 grid_scale, int write, float mid_max, int stats, int lo, int hi,
    float4 wb, __global uint * totals)
{
  const int tx = (int) get_group_id (0) * SC_STRIP_W;
  const int pairs = (height + 1) / 2, runs = (int) get_num_groups (1);
  const int run = (pairs + runs - 1) / runs;
  const int ya = 2 * run * (int) get_group_id (1), yb = min (ya + 2 * run, height);
  const int xb = min (tx + SC_STRIP_W, width);
  const int slot = (int) (get_group_id (1) * get_num_groups (0) + get_group_id (0));
  __global const uchar *src = in + in_offset;
  const float unit = 1.0f / (float) (maxv - black);
  const int cw = width / 2, ch = height / 2;
  int8 sums[4] = { (int8) (0), (int8) (0), (int8) (0), (int8) (0) };
  uint hist[SENSOR_HIST];
  uint zones[SENSOR_ZONES];
  if (stats) {
    for (int i = 0; i < SENSOR_HIST; i++)
      hist[i] = 0;
    for (int i = 0; i < SENSOR_ZONES; i++)
      zones[i] = 0;
  }
  const int8 lane2 = (int8) (0, 2, 4, 6, 8, 10, 12, 14);
  for (int y = ya; y < yb; y += 2) {
    /* rows y - 2 .. y + 3 (mirrored), and the rows each of y and y + 1
     * takes as its neighbours 2 above and below (sensor.cl's flip) */
    __global const uchar *rows[6];
    for (int r = 0; r < 6; r++)
      rows[r] = src + (size_t) border_reflect101 (y - 2 + r, height) * in_stride;
    for (int x = tx; x < xb; x += 16) {
      ScRow w[6];
#pragma unroll
      for (int r = 0; r < 6; r++)
        w[r] = sc_load_row (rows[r], in16, x, width, maxv, black);
      /* the lanes' columns 2 .. width - 3: no flip */
      const bool inside = x >= 2 && x + 18 <= width - 2;
      float8 v[2][2];   /* by row and parity */
#pragma unroll
      for (int dy = 0; dy < 2; dy++) {
        const int yy = min (y + dy, height - 1);
        /* the rows 2 above and below, flipped at the second and second last
         * row (selects: constant indices keep the rows in registers) */
        const ScRow c = w[dy + 2];
        const ScRow u = yy == 1 ? w[dy + 4] : w[dy];
        const ScRow d = yy == height - 2 ? w[dy] : w[dy + 4];
#pragma unroll
        for (int p = 0; p < 2; p++) {
          const int8 xs = (int8) (x + p) + lane2;
          float8 s = p ? SC_C (c.o, c.o2) : SC_C (c.e, c.e2);
          if (defect) {
#define ROWV(q, side) (p ? side (q.o, q.o2) : side (q.e, q.e2))
            s = sc_defect8 (s, ROWV (c, SC_L), ROWV (c, SC_R), ROWV (u, SC_L), ROWV (u, SC_C),
                ROWV (u, SC_R), ROWV (d, SC_L), ROWV (d, SC_C), ROWV (d, SC_R), xs == 1,
                xs == width - 2, inside, threshold);
#undef ROWV
          }
          s *= unit;
          if (grid.s2) {
            const int site = (((dy + phase_y) & 1) << 1) | ((p + phase_x) & 1);
            s = min (s * sc_shading8 (shading, grid, grid_scale, site, min (xs, width - 1), yy),
                1.0f);
          }
          v[dy][p] = s;
        }
      }
      if (write) {
        for (int dy = 0; dy < 2; dy++) {
          /* sensor.cl's rounding: 2^23 + v x mid_max in float */
          const ushort8 e = convert_ushort8 (as_uint8 (mad (v[dy][0], (float8) (mid_max),
                      (float8) (U2F_BASE))) & 0xffff);
          const ushort8 o = convert_ushort8 (as_uint8 (mad (v[dy][1], (float8) (mid_max),
                      (float8) (U2F_BASE))) & 0xffff);
          __global ushort *dst = mid + (size_t) (y + dy) * mid_stride + x;
          const ushort16 both = (ushort16) (e.s0, o.s0, e.s1, o.s1, e.s2, o.s2, e.s3, o.s3,
              e.s4, o.s4, e.s5, o.s5, e.s6, o.s6, e.s7, o.s7);
          /* rows hold whole 8-sample blocks */
          if (x + 16 <= mid_stride)
            vstore16 (both, 0, dst);
          else
            vstore8 (both.lo, 0, dst);
        }
      }
      if (stats && y + 1 < height) {
        /* the cells' samples by colour: R, Gr, Gb, B */
        float8 c[4];
        c[SITE_OF (0, 0, phase_x, phase_y)] = v[0][0];
        c[SITE_OF (0, 1, phase_x, phase_y)] = v[0][1];
        c[SITE_OF (1, 0, phase_x, phase_y)] = v[1][0];
        c[SITE_OF (1, 1, phase_x, phase_y)] = v[1][1];
        const int8 cx = (int8) (x / 2) + (int8) (0, 1, 2, 3, 4, 5, 6, 7);
        const int8 in_frame = cx < cw;
        uint8 q[4];
        for (int i = 0; i < 4; i++)
          q[i] = convert_uint8_sat_rte (c[i] * mid_max);
        const uint8 top = max (max (q[0], q[1]), max (q[2], q[3]));
        const int8 use = in_frame & (top >= (uint) lo) & (top < (uint) hi);
        sums[0] += as_int8 (q[0]) & use;
        sums[1] += as_int8 (q[1] + q[2]) & use;
        sums[2] += as_int8 (q[3]) & use;
        sums[3] -= use;
        const float8 luma = 0.2126f * min (c[0] * wb.s0, 1.0f) +
            0.7152f * 0.5f * (min (c[1] * wb.s1, 1.0f) + min (c[2] * wb.s1, 1.0f)) +
            0.0722f * min (c[3] * wb.s2, 1.0f);
        const int8 bin = min (convert_int8 (luma * (float) SENSOR_HIST), SENSOR_HIST - 1);
        const uint8 part = convert_uint8_rte (luma * SENSOR_ZONE_ONE);
        /* the zone of the lanes' cells: that of the first, then a step at
         * each boundary (16 cx / cw without a division a cell) */
        const int first = x / 2;
        int zx = SENSOR_ZONES_X * first / cw, next = (zx + 1) * cw;
        __private uint *zrow = zones + (SENSOR_ZONES_Y * (y / 2) / ch) * SENSOR_ZONES_X;
        for (int l = 0; l < 8; l++) {
          if (!in_frame[l])
            break;
          while (SENSOR_ZONES_X * (first + l) >= next) {
            zx++;
            next += cw;
          }
          hist[bin[l]]++;
          zrow[zx] += part[l];
        }
      }
    }
    if (stats && (((y - ya) / 2) % 16 == 15 || y + 2 >= yb))
      flush_lane_stats (totals, slot, sums);
  }
  if (stats) {
    __global uint *h = totals + SENSOR_HIST_AT + SENSOR_HIST * (slot % SENSOR_HIST_SLOTS);
    for (int i = 0; i < SENSOR_HIST; i++)
      if (hist[i])
        atomic_add (h + i, hist[i]);
    for (int i = 0; i < SENSOR_ZONES; i++)
      if (zones[i]) {
        atomic_add (totals + SENSOR_ZONES_AT + 2 * i, zones[i] & 0xffff);
        atomic_add (totals + SENSOR_ZONES_AT + 2 * i + 1, zones[i] >> 16);
      }
  }
}
