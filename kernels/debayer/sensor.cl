/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* debayer_sensor: the sensor corrections of the camera pass and the 3A
 * statistics, a pass over the raw frame before the demosaic (in every
 * camera program; the host runs it when a correction or the statistics are
 * on):
 *   1. black level      v = max (min (raw, maxv) - black, 0)
 *   2. defects          (defect set) v above the largest of its 8
 *                       same-colour neighbours (distance 2 in x, y and
 *                       diagonals; mirrored beyond the frame, as the
 *                       demosaic's window, but a sample is not its own
 *                       neighbour: the second row or column from an edge
 *                       takes the other side's) by more than `threshold` (in
 *                       the units of v) becomes that largest; below the
 *                       smallest by more, that smallest
 *   3. lens shading     (grid.s2 set) v / (maxv - black) times the bilinear
 *                       interpolation of its colour's grid at the sample,
 *                       clipped at 1
 *   4. the result       (write set) round (v x mid_max) into `mid`, 16-bit
 *                       words, which the camera kernel then reads as its
 *                       input (black level 0, full scale mid_max)
 *   5. statistics       (stats set) of the 2 x 2 cells at even (x, y)
 *                       inside the frame, after 1-3: the grey-world sums
 *                       of the result's words (stats.cl's counters, cells
 *                       whose largest word is in [lo, hi)); a 64-bin
 *                       histogram of the linear luma 0.2126 R + 0.7152 G
 *                       + 0.0722 B after white balance (each sample times
 *                       its gain in `wb`, clipped at 1; G the mean of the
 *                       two greens), bins of 1/64, values >= 1 in the last;
 *                       and that luma summed in 2^-20 units over 16 x 12
 *                       zones (cell (cx, cy) in zone (16 cx / cw, 12 cy /
 *                       ch)).
 * The statistics' buffer: STATS_SLOTS sets of the grey-world counters
 * (stats.cl), then SENSOR_HIST_SLOTS histograms, then per zone a pair of
 * words (the low 16 bits of the sums and the bits above), all added up by
 * the host.
 *
 * A work-item takes a column pair (x, x + 1), x even, down a strip of
 * SENSOR_STRIP rows (one cell of the statistics a row pair), in groups of
 * SENSOR_LX along the row: it reads each row of its strip and two above and
 * below once, three words a row (its two samples and their neighbours two
 * columns away), and keeps per row the two samples and the larger and the
 * smaller of their left and right neighbours, so that the defect test of a
 * row is a handful of integer maxima with the rows two above and below.
 * Samples are 8- or 16-bit by `in16` (this kernel is built with the camera
 * kernel's options, whose input may be `mid`). */

#define SENSOR_HIST 64
#define SENSOR_HIST_SLOTS 16
#define SENSOR_ZONES_X 16
#define SENSOR_ZONES_Y 12
#define SENSOR_ZONES (SENSOR_ZONES_X * SENSOR_ZONES_Y)
#define SENSOR_HIST_AT (8 * STATS_SLOTS)
#define SENSOR_ZONES_AT (SENSOR_HIST_AT + SENSOR_HIST * SENSOR_HIST_SLOTS)
/* the work-group's column pairs and a work-item's rows (the host's
 * kSensorLx, kSensorStrip) */
#ifndef SENSOR_LX
#define SENSOR_LX 128
#endif
#ifndef SENSOR_STRIP
#define SENSOR_STRIP 16
#endif
/* the zone sums' unit */
#define SENSOR_ZONE_ONE 1048576.0f

/* Sample x of row `row`, as read (8- or 16-bit). */
inline int sensor_raw (__global const uchar * row, int x, int in16)
{
  return in16 ? (int) ((__global const ushort *) row)[x] : (int) row[x];
}

/* Row i of a frame of n rows, mirrored (reflect-101). */
inline int sensor_row_index (int i, int n)
{
  return i >= 0 && i < n ? i : border_reflect101 (i, n);
}

/* How a work-item reads its rows (sensor_row). */
#define SENSOR_WORDS16 0   /* the columns x - 2 .. x + 3 as three 32-bit words */
#define SENSOR_WORDS8 1    /* ... as three 16-bit words of 8-bit samples */
#define SENSOR_COLUMNS 2   /* the columns `cols` one by one (edges, 8/16-bit) */

/* Row `row` at the work-item's columns, each sample clamped to [black,
 * maxv]: its two samples (v), and the larger (hi) and the smaller (lo) of
 * each one's left and right neighbours (clamping commutes with them). SENSOR_WORDS16/8:
 * x even, rows on 4 (2) bytes; else the columns `cols`: x, x + 1, left and
 * right of x, left and right of x + 1. */
inline void sensor_row (__global const uchar * row, int x, int8 cols, const int mode,
    int in16, int black, int maxv, int2 * v, int2 * hi, int2 * lo)
{
  int2 l, r;
  if (mode == SENSOR_WORDS16) {
    __global const uint *p = (__global const uint *) (row + 2 * x);
    const uint a = p[-1], b = p[0], c = p[1];
    l = (int2) (a & 0xffff, a >> 16);
    *v = (int2) (b & 0xffff, b >> 16);
    r = (int2) (c & 0xffff, c >> 16);
  } else if (mode == SENSOR_WORDS8) {
    __global const ushort *p = (__global const ushort *) (row + x);
    const uint a = p[-1], b = p[0], c = p[1];
    l = (int2) (a & 0xff, a >> 8);
    *v = (int2) (b & 0xff, b >> 8);
    r = (int2) (c & 0xff, c >> 8);
  } else {
    *v = (int2) (sensor_raw (row, cols.s0, in16), sensor_raw (row, cols.s1, in16));
    l = (int2) (sensor_raw (row, cols.s2, in16), sensor_raw (row, cols.s4, in16));
    r = (int2) (sensor_raw (row, cols.s3, in16), sensor_raw (row, cols.s5, in16));
  }
  *v = clamp (*v, black, maxv);
  *hi = clamp (max (l, r), black, maxv);
  *lo = clamp (min (l, r), black, maxv);
}

/* Adds 1 to bin `bin` of the local histogram (none for bin < 0). Plain
 * local atomics: on the H200 they beat aggregating a warp's lanes of one
 * bin first (match.any: 0.063 against 0.068 ms a 4K frame). */
inline void sensor_count (__local uint * hist, int bin)
{
  if (bin >= 0)
    atomic_add (hist + bin, 1u);
}

/* Adds `sum` to zone `zone` of the local zone sums (none for zone < 0). */
inline void sensor_zone_add (__local uint * zones, int zone, uint sum)
{
  if (zone >= 0)
    atomic_add (zones + zone, sum);
}

/* The arguments of debayer_sensor that the walk down a strip reads, and
 * what it gathers (sensor_walk). */
typedef struct {
  __global const uchar *base;   /* the frame's first row */
  int in_stride, in16, width, height, maxv, black, defect, ti, write, stats, lo, hi;
  __global ushort *mid;
  int mid_stride;
  __global const float *shading;
  int4 grid;
  float2 grid_scale;
  float mid_max, words;         /* the words' full scale, over the samples' */
} SensorArgs;

/* A work-item's walk down its strip, rows y_begin .. y_end, at column pair
 * (x, x + 1) (`mode`: how it reads a row, a constant in each call). The
 * statistics go to the local histogram and zone sums, and the grey-world
 * sums of the cells by position in the cell (top left, top right, bottom
 * left, bottom right) and their count to `pos` and `count`. */
inline void sensor_walk (const SensorArgs * a, int x, bool on, int8 cols, const int mode,
    int y_begin, int y_end, const int * gi, const float * fx, int2 site_of, float4 lw,
    float4 lg, int zone_x, bool has_cell, __local uint * hist, __local uint * zones,
    uint4 * pos, uint * count)
{
  const int height = a->height;
#define LOAD(i, v, h, l) sensor_row (a->base + (size_t) sensor_row_index ((i), height) * \
    a->in_stride, x, cols, mode, a->in16, a->black, a->maxv, &(v), &(h), &(l))
  /* the rows two above (their 3-column maxima and minima) and the centre
   * rows; a sample's neighbours are mirrored as the columns: the second
   * row from an edge takes the other side's (row 1 its row 3 above, row
   * height - 2 its row height - 4 below) */
  int2 v[2], h[2], l[2], uh[2], ul[2];
  for (int r = 0; r < 2; r++) {
    const int yy = y_begin + r;
    LOAD (yy == 1 ? yy + 2 : yy - 2, v[r], h[r], l[r]);
    uh[r] = max (h[r], v[r]);
    ul[r] = min (l[r], v[r]);
    LOAD (yy, v[r], h[r], l[r]);
  }
  /* lens shading: the gains of the four sites as top + fy d in grid row
   * j[r] of each row parity, in words a sample */
  float2 top[2] = { (float2) (a->words), (float2) (a->words) }, d[2] = { (float2) (0),
    (float2) (0) };
  int j[2] = { -1, -1 };
  const int ch = height / 2;
  int zone_y = -1, zone_end = 0;
  uint zone_sum = 0;
  for (int y = y_begin; y < y_end; y += 2) {
    int2 nv[2], nh[2], nl[2], dh[2], dl[2];
    for (int r = 0; r < 2; r++) {
      const int yy = y + r;
      LOAD (yy == height - 2 ? yy - 2 : yy + 2, nv[r], nh[r], nl[r]);
      dh[r] = max (nh[r], nv[r]);
      dl[r] = min (nl[r], nv[r]);
    }
    float2 val[2];
    uint2 word[2];
    for (int r = 0; r < 2; r++) {
      const int yy = y + r;
      int2 s = v[r];
      if (a->defect) {
        const int2 hi8 = max (max (uh[r], dh[r]), h[r]), lo8 = min (min (ul[r], dl[r]), l[r]);
        s = s - hi8 > (int2) (a->ti) ? hi8 : lo8 - s > (int2) (a->ti) ? lo8 : s;
      }
      /* s - black as a float, by its bits (below 2^16: no conversion) */
      const float2 sf = as_float2 (as_uint2 (s - a->black) | U2F_BITS) - U2F_BASE;
      if (a->grid.s2) {
        const float gy = (float) min (yy, height - 1) * a->grid_scale.s1;
        const int jj = min ((int) gy, a->grid.s1 - 2);
        if (jj != j[r]) {
          j[r] = jj;
          for (int c = 0; c < 2; c++) {
            const int site = c ? site_of.s1 ^ (r << 1) : site_of.s0 ^ (r << 1);
            __global const float *p = a->shading + (site * a->grid.s1 + jj) * a->grid.s0 + gi[c];
            const float t = mad (fx[c], p[1] - p[0], p[0]);
            const float b = mad (fx[c], p[a->grid.s0 + 1] - p[a->grid.s0], p[a->grid.s0]);
            if (c == 0) {
              top[r].s0 = t * a->words;
              d[r].s0 = (b - t) * a->words;
            } else {
              top[r].s1 = t * a->words;
              d[r].s1 = (b - t) * a->words;
            }
          }
        }
        const float fy = gy - (float) jj;
        val[r] = min (sf * mad ((float2) (fy), d[r], top[r]), (float2) (a->mid_max));
      } else {
        val[r] = min (sf * a->words, (float2) (a->mid_max));
      }
      /* round to nearest even as 2^23 + v does in float */
      word[r] = as_uint2 (val[r] + U2F_BASE) & 0xffff;
      if (a->write && on && yy < height)
        *(__global uint *) (a->mid + (size_t) yy * a->mid_stride + x) =
            word[r].s0 | (word[r].s1 << 16);
    }
    if (a->stats) {
      const bool cell = has_cell && y + 1 < height;
      const uint t4 = max (max (word[0].s0, word[0].s1), max (word[1].s0, word[1].s1));
      if (cell && t4 >= (uint) a->lo && t4 < (uint) a->hi) {
        *pos += (uint4) (word[0], word[1]);
        *count += 1;
      }
      /* the luma after white balance: each position's weight and gain */
      const float luma = mad (lw.s0, min (val[0].s0 * lg.s0, 1.0f),
          mad (lw.s1, min (val[0].s1 * lg.s1, 1.0f), mad (lw.s2, min (val[1].s0 * lg.s2, 1.0f),
                  lw.s3 * min (val[1].s1 * lg.s3, 1.0f))));
      sensor_count (hist, cell ? min ((int) (luma * (float) SENSOR_HIST), SENSOR_HIST - 1) : -1);
      /* the zone sums in the work-item until its zone row changes (the
       * same rows for the whole group): zone row zone_y ends at cell row
       * zone_end */
      if (y + 1 < height && y / 2 >= zone_end) {
        if (zone_y >= 0)
          sensor_zone_add (zones, has_cell ? zone_y * SENSOR_ZONES_X + zone_x : -1, zone_sum);
        zone_y = SENSOR_ZONES_Y * (y / 2) / ch;
        zone_end = ((zone_y + 1) * ch + SENSOR_ZONES_Y - 1) / SENSOR_ZONES_Y;
        zone_sum = 0;
      }
      /* round (luma 2^20) by its bits, as words above */
      if (cell)
        zone_sum += as_uint (mad (luma, SENSOR_ZONE_ONE, U2F_BASE)) & 0x7fffff;
    }
    /* down a row pair: the centre rows are the next step's rows above */
    for (int r = 0; r < 2; r++) {
      uh[r] = max (h[r], v[r]);
      ul[r] = min (l[r], v[r]);
      v[r] = nv[r];
      h[r] = nh[r];
      l[r] = nl[r];
    }
  }
#undef LOAD
  if (a->stats && zone_y >= 0)
    sensor_zone_add (zones, has_cell ? zone_y * SENSOR_ZONES_X + zone_x : -1, zone_sum);
}

__kernel __attribute__ ((reqd_work_group_size (SENSOR_LX, 1, 1)))
void debayer_sensor (__global const uchar * in, int in_offset, int in_stride, int in16,
    __global ushort * mid, int mid_stride, int width, int height, int maxv, int black,
    int phase_x, int phase_y, int defect, float threshold, __global const float * shading,
    int4 grid, float2 grid_scale, int write, float mid_max, int stats, int lo, int hi,
    float4 wb, __global uint * totals)
{
  __local uint4 sums[SENSOR_LX];
  __local uint hist[SENSOR_HIST];
  __local uint zones[SENSOR_ZONES];
  const int lid = (int) get_local_id (0);
  const int x = 2 * (int) get_global_id (0);
  /* the strip: the same rows for the whole group */
  const int y_begin = (int) get_global_id (1) * SENSOR_STRIP;
  const int y_end = min (y_begin + SENSOR_STRIP, height);
  if (stats) {
    for (int i = lid; i < SENSOR_HIST; i += SENSOR_LX)
      hist[i] = 0;
    for (int i = lid; i < SENSOR_ZONES; i += SENSOR_LX)
      zones[i] = 0;
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  /* a work-item beyond the frame reads column 0 and writes nothing (the
   * statistics' warp adds need every lane) */
  const bool on = x < width;
  const int xs = on ? x : 0;
  /* the neighbours 2 columns away, mirrored about the edges (reflect-101),
   * but a sample is not its own neighbour: the second column from an edge
   * takes the other side's */
  const int8 cols = (int8) (xs, border_reflect101 (xs + 1, width),
      border_reflect101 (xs - 2, width),
      xs == width - 2 ? border_reflect101 (xs - 2, width) : border_reflect101 (xs + 2, width),
      xs + 1 == 1 ? border_reflect101 (xs + 3, width) : border_reflect101 (xs - 1, width),
      xs + 1 == width - 2 ? border_reflect101 (xs - 1, width) : border_reflect101 (xs + 3, width),
      0, 0);
  SensorArgs a;
  a.base = in + in_offset;
  a.in_stride = in_stride;
  a.in16 = in16;
  a.width = width;
  a.height = height;
  a.maxv = maxv;
  a.black = black;
  a.defect = defect;
  a.ti = (int) threshold;   /* s - hi > threshold for integers */
  a.write = write;
  a.stats = stats;
  a.lo = lo;
  a.hi = hi;
  a.mid = mid;
  a.mid_stride = mid_stride;
  a.shading = shading;
  a.grid = grid;
  a.grid_scale = grid_scale;
  a.mid_max = mid_max;
  a.words = mid_max / (float) (maxv - black);
  /* each column's grid position, and its site on the first row (the
   * second row's: bit 1 flipped) */
  int gi[2];
  float fx[2];
  for (int c = 0; c < 2; c++) {
    const float gx = (float) min (xs + c, width - 1) * grid_scale.s0;
    gi[c] = min ((int) gx, grid.s0 - 2);
    fx[c] = gx - (float) gi[c];
  }
  const int2 site_of = (int2) ((phase_y & 1) << 1 | (phase_x & 1),
      (phase_y & 1) << 1 | ((1 + phase_x) & 1));
  /* the luma's weight and white balance gain (over the words' scale) at
   * each position of a cell: top left, top right, bottom left, bottom
   * right */
  float4 lw, lg;
  {
    const float w[4] = { 0.2126f, 0.7152f * 0.5f, 0.7152f * 0.5f, 0.0722f };
    const float g[4] = { wb.s0 / mid_max, wb.s1 / mid_max, wb.s1 / mid_max, wb.s2 / mid_max };
    const int s0 = site_of.s0, s1 = site_of.s1;
    lw = (float4) (w[s0], w[s1], w[s0 ^ 2], w[s1 ^ 2]);
    lg = (float4) (g[s0], g[s1], g[s0 ^ 2], g[s1 ^ 2]);
  }
  const int cw = width / 2;
  const bool has_cell = on && xs + 1 < width;
  const int zone_x = SENSOR_ZONES_X * (xs / 2) / max (cw, 1);
  uint4 pos = (uint4) (0);
  uint count = 0;
  /* one walk for each way of reading rows (specialized: no branch in the
   * loop on it) */
  const bool words = ((in_offset | in_stride) & (in16 ? 3 : 1)) == 0 && xs >= 2 &&
      xs + 3 < width;
  if (words && in16)
    sensor_walk (&a, xs, on, cols, SENSOR_WORDS16, y_begin, y_end, gi, fx, site_of, lw, lg,
        zone_x, has_cell, hist, zones, &pos, &count);
  else if (words)
    sensor_walk (&a, xs, on, cols, SENSOR_WORDS8, y_begin, y_end, gi, fx, site_of, lw, lg,
        zone_x, has_cell, hist, zones, &pos, &count);
  else
    sensor_walk (&a, xs, on, cols, SENSOR_COLUMNS, y_begin, y_end, gi, fx, site_of, lw, lg,
        zone_x, has_cell, hist, zones, &pos, &count);
  if (stats) {
    /* the sums by colour: R, both greens, B (positions by site) */
    const uint p[4] = { pos.s0, pos.s1, pos.s2, pos.s3 };
    int at[4];
    at[site_of.s0] = 0;
    at[site_of.s1] = 1;
    at[site_of.s0 ^ 2] = 2;
    at[site_of.s1 ^ 2] = 3;
    const uint4 cells = (uint4) (p[at[0]], p[at[1]] + p[at[2]], p[at[3]], count);
    const int group = (int) (get_group_id (1) * get_num_groups (0) + get_group_id (0));
    add_group_stats (sums, cells, lid, SENSOR_LX, totals, group);
    barrier (CLK_LOCAL_MEM_FENCE);
    __global uint *hg = totals + SENSOR_HIST_AT + SENSOR_HIST * (group % SENSOR_HIST_SLOTS);
    for (int i = lid; i < SENSOR_HIST; i += SENSOR_LX)
      if (hist[i])
        atomic_add (hg + i, hist[i]);
    for (int i = lid; i < SENSOR_ZONES; i += SENSOR_LX)
      if (zones[i]) {
        atomic_add (totals + SENSOR_ZONES_AT + 2 * i, zones[i] & 0xffff);
        atomic_add (totals + SENSOR_ZONES_AT + 2 * i + 1, zones[i] >> 16);
      }
  }
}
