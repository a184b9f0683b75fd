/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* debayer_camera: every camera stage in 8 x 2 blocks, the GPU shape. */

/* Pixel rows a work-item of debayer_camera computes (2 or 4: one or two
 * 8 x 2 blocks over one window) and its work-group (the host's CAMERA_*). */
#ifndef CAMERA_ROWS
#define CAMERA_ROWS 2
#endif
#ifndef CAMERA_LX
#define CAMERA_LX 16
#endif
#ifndef CAMERA_LY
#define CAMERA_LY 16
#endif
#define CAMERA_WIN_H (CAMERA_ROWS + 4)
#if IN_16
#define IN_MAX 65535
#else
#define IN_MAX 255
#endif

/* Stages 3 to 6 of the CAMERA_ROWS x 8 pixels at (x0, y0), both even, from
 * their window after stages 1 and 2 (e, o: even and odd columns). */
inline void camera_pixels (CAMERA_ARGS, int x0, int y0, const float8 * e, const float8 * o)
{
#pragma unroll
  for (int k = 0; k < CAMERA_ROWS / 2; k++) {
    if (y0 + 2 * k >= height)
      break;
    float8 red[2], green[2], blue[2];
#pragma unroll
    for (int dy = 0; dy < 2; dy++) {
      float4 r0, g0, b0, r1, g1, b1;
      demosaic_site (e + 2 * k, o + 2 * k, dy, 0, 1, &r0, &g0, &b0);
      demosaic_site (e + 2 * k, o + 2 * k, dy, 1, 1, &r1, &g1, &b1);
      red[dy] = INTERLEAVE (r0, r1);
      green[dy] = INTERLEAVE (g0, g1);
      blue[dy] = INTERLEAVE (b0, b1);
    }
    camera_output (CAMERA_PASS, x0, y0 + 2 * k, red, green, blue);
  }
}

/* The CAMERA_ROWS x 8 pixels at (x0, y0), both even, every stage, from a
 * window of their own; returns their white-balance cells' sums when `stats`
 * is set. */
inline uint4 camera_block (CAMERA_ARGS, int x0, int y0)
{
  uint4 cells = (uint4) (0);
  /* the samples as they are (no clamp to maxv: camera_gains) */
  int8 raw_e[CAMERA_WIN_H], raw_o[CAMERA_WIN_H];
  load_window_rows (in + in_offset, in_stride, width, height, IN_MAX, x0, y0, CAMERA_WIN_H,
      raw_e, raw_o);
  if (stats) {
#pragma unroll
    for (int k = 0; k < CAMERA_ROWS / 2; k++)
      cells += cell_sums (raw_e + 2 * k, raw_o + 2 * k, x0, y0 + 2 * k, width, height, black,
          lo, hi, PHASE_X, PHASE_Y);
  }
  /* window row r is block row r - 2, of the same parity */
  float8 e[CAMERA_WIN_H], o[CAMERA_WIN_H];
  float g[2][2], cap[2][2];
  const bool capped = camera_gains (gain.lo, maxv, black, g, cap);
#if FAST_LEVELS
  /* (2^15 + v) g + K, K = -(2^15 + black) g rounded down on the host
   * (gain.hi): at or below 0 at black; K's rounding is below 2^-9 of a
   * sample step (1e-6 of full scale for 12 bits) */
  float k[2][2];
#pragma unroll
  for (int dy = 0; dy < 2; dy++)
#pragma unroll
    for (int p = 0; p < 2; p++)
      k[dy][p] = gain_of (SITE (dy, p), gain.hi);
#pragma unroll
  for (int r = 0; r < CAMERA_WIN_H; r++) {
    e[r] = clamp (fma (as_float8 (raw_e[r]), (float8) (g[r & 1][0]), (float8) (k[r & 1][0])),
        0.0f, 1.0f);
    o[r] = clamp (fma (as_float8 (raw_o[r]), (float8) (g[r & 1][1]), (float8) (k[r & 1][1])),
        0.0f, 1.0f);
  }
#else
  const float base = WINDOW_BASE + (float) black;
#pragma unroll
  for (int r = 0; r < CAMERA_WIN_H; r++) {
    e[r] = SAT_MUL8 (as_float8 (raw_e[r]) - base, g[r & 1][0]);
    o[r] = SAT_MUL8 (as_float8 (raw_o[r]) - base, g[r & 1][1]);
  }
#endif
  if (capped) {
#pragma unroll
    for (int r = 0; r < CAMERA_WIN_H; r++) {
      e[r] = min (e[r], cap[r & 1][0]);
      o[r] = min (o[r], cap[r & 1][1]);
    }
  }
  camera_pixels (CAMERA_PASS, x0, y0, e, o);
  return cells;
}
#define CAMERA_GROUP (CAMERA_LX * CAMERA_LY)

__kernel __attribute__ ((reqd_work_group_size (CAMERA_LX, CAMERA_LY, 1)))
void debayer_camera (CAMERA_ARGS)
{
  __local uint4 sums[CAMERA_GROUP];
  const int lid = (int) (get_local_id (1) * get_local_size (0) + get_local_id (0));
  const int x0 = (int) get_global_id (0) * BLOCK_W;
  const int y0 = (int) get_global_id (1) * CAMERA_ROWS;
  uint4 cells = (uint4) (0);
  if (x0 < width && y0 < height)
    cells = camera_block (CAMERA_PASS, x0, y0);
  if (stats)
    add_group_stats (sums, cells, lid, CAMERA_GROUP, totals,
        (int) (get_group_id (1) * get_num_groups (0) + get_group_id (0)));
}
