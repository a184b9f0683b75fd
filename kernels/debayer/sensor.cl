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
 * Each work-item takes an 8 x 2 block at (8 gx, 2 gy) from a 12 x 6 window
 * of raw samples (8- or 16-bit by `in16`: this kernel is built with the
 * camera kernel's options, whose input may be `mid`). */

#define SENSOR_HIST 64
#define SENSOR_HIST_SLOTS 16
#define SENSOR_ZONES_X 16
#define SENSOR_ZONES_Y 12
#define SENSOR_ZONES (SENSOR_ZONES_X * SENSOR_ZONES_Y)
#define SENSOR_HIST_AT (8 * STATS_SLOTS)
#define SENSOR_ZONES_AT (SENSOR_HIST_AT + SENSOR_HIST * SENSOR_HIST_SLOTS)
/* the work-group (the host's kSensorLx, kSensorLy) */
#define SENSOR_LX 16
#define SENSOR_LY 8
#define SENSOR_GROUP (SENSOR_LX * SENSOR_LY)
/* the zone sums' unit */
#define SENSOR_ZONE_ONE 1048576.0f

/* Sample x of row `row` (8- or 16-bit), clamped to maxv, minus black. */
inline float sensor_sample (__global const uchar * row, int x, int in16, int maxv, int black)
{
  const int v = in16 ? (int) ((__global const ushort *) row)[x] : (int) row[x];
  return (float) max (min (v, maxv) - black, 0);
}

/* The bilinear gain of colour `site` at (x, y): grid points (i, j) at
 * (i / scale.s0, j / scale.s1); the grids R, Gr, Gb, B one after the other,
 * row-major, grid.s0 columns and grid.s1 rows. */
inline float sensor_shading (__global const float * g, int4 grid, float2 scale, int site,
    int x, int y)
{
  const float gx = (float) x * scale.s0, gy = (float) y * scale.s1;
  const int i = min ((int) gx, grid.s0 - 2), j = min ((int) gy, grid.s1 - 2);
  const float fx = gx - (float) i, fy = gy - (float) j;
  __global const float *p = g + (site * grid.s1 + j) * grid.s0 + i;
  const float top = mad (fx, p[1] - p[0], p[0]);
  const float bottom = mad (fx, p[grid.s0 + 1] - p[grid.s0], p[grid.s0]);
  return mad (fy, bottom - top, top);
}

#if NATIVE_POW == 2 && NV_REDUX
/* NVIDIA sm_80 and later: the lanes of the warp whose v equals this lane's
 * (match.any), whether all lanes' v are equal (match.all), and the lanes
 * below this one. Every lane of the warp calls them. */
inline uint lanes_equal (uint v)
{
  uint r;
  asm volatile ("match.any.sync.b32 %0, %1, 0xffffffff;" : "=r" (r) : "r" (v));
  return r;
}
inline bool all_equal (uint v)
{
  uint r;
  asm volatile ("{ .reg .pred p; match.all.sync.b32 %0|p, %1, 0xffffffff; }" : "=r" (r) :
      "r" (v));
  return r != 0;
}
inline uint lanes_below (void)
{
  uint r;
  asm ("mov.u32 %0, %%lanemask_lt;" : "=r" (r));
  return r;
}
#define SENSOR_WARP_ADDS 1
#else
#define SENSOR_WARP_ADDS 0
#endif

/* Adds 1 to bin `bin` of the local histogram (none for bin < 0). Every
 * work-item of the group calls it; on NVIDIA the lanes of a warp with one
 * bin add once, their count (a smooth picture puts a warp in a few bins:
 * 32 adds to one word one after the other otherwise). */
inline void sensor_count (__local uint * hist, int bin)
{
#if SENSOR_WARP_ADDS
  const uint peers = lanes_equal ((uint) bin);
  if (bin >= 0 && (peers & lanes_below ()) == 0)
    atomic_add (hist + bin, popcount (peers));
#else
  if (bin >= 0)
    atomic_add (hist + bin, 1u);
#endif
}

/* Adds `sum` to zone `zone` of the local zone sums (none for zone < 0), as
 * sensor_count: on NVIDIA a warp whose lanes share the zone adds once. */
inline void sensor_zone_add (__local uint * zones, int zone, uint sum)
{
#if SENSOR_WARP_ADDS
  if (all_equal ((uint) zone)) {
    const uint total = warp_sum (sum);
    if (zone >= 0 && (lanes_below () == 0))
      atomic_add (zones + zone, total);
    return;
  }
#endif
  if (zone >= 0)
    atomic_add (zones + zone, sum);
}

__kernel __attribute__ ((reqd_work_group_size (SENSOR_LX, SENSOR_LY, 1)))
void debayer_sensor (__global const uchar * in, int in_offset, int in_stride, int in16,
    __global ushort * mid, int mid_stride, int width, int height, int maxv, int black,
    int phase_x, int phase_y, int defect, float threshold, __global const float * shading,
    int4 grid, float2 grid_scale, int write, float mid_max, int stats, int lo, int hi,
    float4 wb, __global uint * totals)
{
  __local uint4 sums[SENSOR_GROUP];
  __local uint hist[SENSOR_HIST];
  __local uint zones[SENSOR_ZONES];
  const int lid = (int) (get_local_id (1) * get_local_size (0) + get_local_id (0));
  const int x0 = (int) get_global_id (0) * BLOCK_W;
  const int y0 = (int) get_global_id (1) * 2;
  if (stats) {
    for (int i = lid; i < SENSOR_HIST; i += SENSOR_GROUP)
      hist[i] = 0;
    for (int i = lid; i < SENSOR_ZONES; i += SENSOR_GROUP)
      zones[i] = 0;
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  /* whole-word loads: rows and the first sample on 16 bytes */
  const bool aligned = ((in_offset | in_stride) & 15) == 0;
  uint4 cells = (uint4) (0);
  /* the statistics' adds of the block's 4 cells: bins, and the zones' luma
   * sums merged where consecutive cells share a zone (-1: none) */
  int bins[BLOCK_W / 2] = { -1, -1, -1, -1 }, zone_of[BLOCK_W / 2] = { -1, -1, -1, -1 };
  uint zone_sum[BLOCK_W / 2] = { 0, 0, 0, 0 };
  if (x0 < width && y0 < height) {
    /* the window: columns x0 - 2 .. x0 + 9, rows y0 - 2 .. y0 + 3 */
    float w[6][WIN_W];
    if (x0 >= 2 && x0 + 10 <= width && y0 >= 2 && y0 + 4 <= height) {
      /* inside: each row's 12 samples in three loads of words (NVIDIA
       * splits vloadN of uchar and ushort pointers into single bytes or
       * words): the block's 8 from its aligned start (x0 is a multiple of 8;
       * rows on 16 bytes, `aligned`), the 2 on each side */
#pragma unroll
      for (int r = 0; r < 6; r++) {
        __global const uchar *row = in + in_offset + (size_t) (y0 - 2 + r) * in_stride;
        int8 a;
        int4 b;
        if (in16 && aligned) {
          __global const ushort *p = (__global const ushort *) row + x0;
          const uint4 mid = *(__global const uint4 *) p;
          const uint l = *(__global const uint *) (p - 2), h = *(__global const uint *) (p + 8);
          const ushort8 m = as_ushort8 (mid);
          const ushort2 lo = as_ushort2 (l), hi2 = as_ushort2 (h);
          a = convert_int8 ((ushort8) (lo, m.s0123, m.s45));
          b = convert_int4 ((ushort4) (m.s67, hi2));
        } else if (aligned) {
          __global const uchar *p = row + x0;
          const uchar8 m = as_uchar8 (*(__global const uint2 *) p);
          const uchar2 lo = as_uchar2 (*(__global const ushort *) (p - 2)),
              hi2 = as_uchar2 (*(__global const ushort *) (p + 8));
          a = convert_int8 ((uchar8) (lo, m.s0123, m.s45));
          b = convert_int4 ((uchar4) (m.s67, hi2));
        } else if (in16) {
          __global const ushort *p = (__global const ushort *) row + x0 - 2;
          a = convert_int8 (vload8 (0, p));
          b = convert_int4 (vload4 (2, p));
        } else {
          a = convert_int8 (vload8 (0, row + x0 - 2));
          b = convert_int4 (vload4 (2, row + x0 - 2));
        }
        const float8 fa = convert_float8 (max (min (a, (int8) (maxv)) - black, 0));
        const float4 fb = convert_float4 (max (min (b, (int4) (maxv)) - black, 0));
        w[r][0] = fa.s0; w[r][1] = fa.s1; w[r][2] = fa.s2; w[r][3] = fa.s3;
        w[r][4] = fa.s4; w[r][5] = fa.s5; w[r][6] = fa.s6; w[r][7] = fa.s7;
        w[r][8] = fb.s0; w[r][9] = fb.s1; w[r][10] = fb.s2; w[r][11] = fb.s3;
      }
    } else {
      /* mirrored about the edges (reflect-101) */
      int cols[WIN_W];
#pragma unroll
      for (int c = 0; c < WIN_W; c++)
        cols[c] = border_reflect101 (x0 - 2 + c, width);
#pragma unroll
      for (int r = 0; r < 6; r++) {
        __global const uchar *row = in + in_offset +
            (size_t) border_reflect101 (y0 - 2 + r, height) * in_stride;
#pragma unroll
        for (int c = 0; c < WIN_W; c++)
          w[r][c] = sensor_sample (row, cols[c], in16, maxv, black);
      }
    }
    const float unit = 1.0f / (float) (maxv - black);
    /* Within 2 of an edge a mirrored neighbour may be the sample itself
     * (below); elsewhere the window's own neighbours. */
    const bool near_edge = x0 <= 1 || x0 + BLOCK_W >= width - 2 || y0 <= 1 ||
        y0 + 2 >= height - 2;
    float v[2][BLOCK_W];
#pragma unroll
    for (int dy = 0; dy < 2; dy++) {
      const int y = min (y0 + dy, height - 1);
      /* lens shading along the row: each column parity's colour, its grid
       * interpolated at y in the grid columns i and i + 1 around the block
       * (one pair for the whole block unless a grid column falls inside it:
       * then each pixel on its own) */
      const int site_row = ((dy + phase_y) & 1) << 1;
      const float gx0 = (float) x0 * grid_scale.s0;
      const int i0 = min ((int) gx0, grid.s0 - 2);
      const bool one_cell = grid.s2 &&
          (float) min (x0 + BLOCK_W - 1, width - 1) * grid_scale.s0 < (float) (i0 + 1);
      float left[2] = { 1, 1 }, right[2] = { 1, 1 };
      if (one_cell) {
        const float gy = (float) y * grid_scale.s1;
        const int j = min ((int) gy, grid.s1 - 2);
        const float fy = gy - (float) j;
#pragma unroll
        for (int p = 0; p < 2; p++) {
          __global const float *g = shading +
              ((site_row | ((p + phase_x) & 1)) * grid.s1 + j) * grid.s0 + i0;
          left[p] = mad (fy, g[grid.s0] - g[0], g[0]);
          right[p] = mad (fy, g[grid.s0 + 1] - g[1], g[1]);
        }
      }
#pragma unroll
      for (int dx = 0; dx < BLOCK_W; dx++) {
        const int r = dy + 2, c = dx + 2;
        float s = w[r][c];
        if (defect) {
          float hi8, lo8;
          if (near_edge) {
            /* a neighbour that the mirror takes to the sample itself (the
             * second row or column from an edge) is the one on the other
             * side (selects of constant indices: the window stays in
             * registers) */
            const int x = x0 + dx, yy = y0 + dy;
            const bool fl = x == 1, fr = x == width - 2, fu = yy == 1, fd = yy == height - 2;
#define ROW_L(rr) (fl ? w[rr][c + 2] : w[rr][c - 2])
#define ROW_R(rr) (fr ? w[rr][c - 2] : w[rr][c + 2])
            const float ul = fu ? ROW_L (r + 2) : ROW_L (r - 2),
                uc = fu ? w[r + 2][c] : w[r - 2][c], ur = fu ? ROW_R (r + 2) : ROW_R (r - 2);
            const float dl = fd ? ROW_L (r - 2) : ROW_L (r + 2),
                dc = fd ? w[r - 2][c] : w[r + 2][c], dr = fd ? ROW_R (r - 2) : ROW_R (r + 2);
            const float ml = ROW_L (r), mr = ROW_R (r);
#undef ROW_L
#undef ROW_R
            hi8 = max (max (max (ul, uc), max (ur, ml)), max (max (mr, dl), max (dc, dr)));
            lo8 = min (min (min (ul, uc), min (ur, ml)), min (min (mr, dl), min (dc, dr)));
          } else {
            hi8 = max (max (max (w[r - 2][c - 2], w[r - 2][c]), max (w[r - 2][c + 2], w[r][c - 2])),
                max (max (w[r][c + 2], w[r + 2][c - 2]), max (w[r + 2][c], w[r + 2][c + 2])));
            lo8 = min (min (min (w[r - 2][c - 2], w[r - 2][c]), min (w[r - 2][c + 2], w[r][c - 2])),
                min (min (w[r][c + 2], w[r + 2][c - 2]), min (w[r + 2][c], w[r + 2][c + 2])));
          }
          s = s - hi8 > threshold ? hi8 : lo8 - s > threshold ? lo8 : s;
        }
        s *= unit;
        if (one_cell) {
          const int p = dx & 1;
          const float fx = (float) (x0 + dx) * grid_scale.s0 - (float) i0;
          s = min (s * mad (fx, right[p] - left[p], left[p]), 1.0f);
        } else if (grid.s2) {
          s = min (s * sensor_shading (shading, grid, grid_scale,
                  site_row | ((dx + phase_x) & 1), min (x0 + dx, width - 1), y), 1.0f);
        }
        v[dy][dx] = s;
      }
    }
    if (write) {
      for (int dy = 0; dy < 2; dy++) {
        __global ushort *dst = mid + (size_t) (y0 + dy) * mid_stride + x0;
        /* round to nearest even as 2^23 + v does in float (v in [0, 65535]:
         * no conversion instruction) */
        const float8 f = (float8) (v[dy][0], v[dy][1], v[dy][2], v[dy][3], v[dy][4], v[dy][5],
            v[dy][6], v[dy][7]);
        /* one 128-bit store: rows of whole blocks on 16 bytes */
        *(__global uint4 *) dst = as_uint4 (convert_ushort8 (as_uint8 (mad (f,
                        (float8) (mid_max), (float8) (U2F_BASE))) & 0xffff));
      }
    }
    if (stats && y0 + 1 < height) {
      const int cw = width / 2, ch = height / 2, cy = y0 / 2;
      const int zy = SENSOR_ZONES_Y * cy / ch;
#pragma unroll
      for (int k = 0; k < BLOCK_W / 2; k++) {
        const int cx = x0 / 2 + k;
        if (cx >= cw)
          break;
        /* the cell's samples by colour: R, Gr, Gb, B */
        float s[4];
        uint q[4];
        /* site (dy + phase_y, dx + phase_x) of the cell: a permutation of
         * its four samples (selects: constant indices) */
        const float a = v[0][2 * k], b = v[0][2 * k + 1], c = v[1][2 * k], d = v[1][2 * k + 1];
        const float ab0 = phase_x ? b : a, ab1 = phase_x ? a : b;
        const float cd0 = phase_x ? d : c, cd1 = phase_x ? c : d;
        s[0] = phase_y ? cd0 : ab0;
        s[1] = phase_y ? cd1 : ab1;
        s[2] = phase_y ? ab0 : cd0;
        s[3] = phase_y ? ab1 : cd1;
        for (int i = 0; i < 4; i++)
          q[i] = convert_uint_sat_rte (s[i] * mid_max);
        const uint top = max (max (q[0], q[1]), max (q[2], q[3]));
        if (top >= (uint) lo && top < (uint) hi)
          cells += (uint4) (q[0], q[1] + q[2], q[3], 1);
        const float luma = 0.2126f * min (s[0] * wb.s0, 1.0f) +
            0.7152f * 0.5f * (min (s[1] * wb.s1, 1.0f) + min (s[2] * wb.s1, 1.0f)) +
            0.0722f * min (s[3] * wb.s2, 1.0f);
        bins[k] = min ((int) (luma * (float) SENSOR_HIST), SENSOR_HIST - 1);
        const int zone = zy * SENSOR_ZONES_X + SENSOR_ZONES_X * cx / cw;
        const uint part = convert_uint_rte (luma * SENSOR_ZONE_ONE);
        if (k > 0 && zone == zone_of[k - 1]) {
          zone_sum[k] = zone_sum[k - 1] + part;
          zone_of[k - 1] = -1;
          zone_sum[k - 1] = 0;
        } else {
          zone_sum[k] = part;
        }
        zone_of[k] = zone;
      }
    }
  }
  if (stats) {
#pragma unroll
    for (int k = 0; k < BLOCK_W / 2; k++) {
      sensor_count (hist, bins[k]);
      sensor_zone_add (zones, zone_of[k], zone_sum[k]);
    }
  }
  if (stats) {
    const int group = (int) (get_group_id (1) * get_num_groups (0) + get_group_id (0));
    add_group_stats (sums, cells, lid, SENSOR_GROUP, totals, group);
    barrier (CLK_LOCAL_MEM_FENCE);
    __global uint *h = totals + SENSOR_HIST_AT + SENSOR_HIST * (group % SENSOR_HIST_SLOTS);
    for (int i = lid; i < SENSOR_HIST; i += SENSOR_GROUP)
      if (hist[i])
        atomic_add (h + i, hist[i]);
    for (int i = lid; i < SENSOR_ZONES; i += SENSOR_GROUP)
      if (zones[i]) {
        atomic_add (totals + SENSOR_ZONES_AT + 2 * i, zones[i] & 0xffff);
        atomic_add (totals + SENSOR_ZONES_AT + 2 * i + 1, zones[i] >> 16);
      }
  }
}
