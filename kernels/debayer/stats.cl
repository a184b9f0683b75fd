/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Grey-world statistics of the camera kernels: the sums of a block's
 * cells, and their addition to the counters the host reads back (STATS_SLOTS
 * sets of four counters, a pair of words each; see stages.cl). */
#define STATS_SLOTS 64

/* Sums of the cells of the block (see above) as (R, G, B, cells), from
 * rows 2 and 3 of the window (e, o: its even and odd columns, samples as
 * WINDOW_WORD). The samples are not clamped to maxv: a cell with a sample
 * above maxv has its largest at or above hi (which is at most maxv -
 * black), so it is left out either way. */
inline uint4 cell_sums (const int8 * e, const int8 * o, int x0, int y0, int width,
    int height, int black, int lo, int hi, int px, int py)
{
  /* in the window's units: (v - black) << WINDOW_SHIFT (below 2^23) */
  const int zero = WINDOW_WORD (black), sl = lo << WINDOW_SHIFT, sh = hi << WINDOW_SHIFT;
  int4 s[4];   /* by site */
  s[SITE_OF (0, 0, px, py)] = max (e[2].s1234 - zero, 0);
  s[SITE_OF (0, 1, px, py)] = max (o[2].s1234 - zero, 0);
  s[SITE_OF (1, 0, px, py)] = max (e[3].s1234 - zero, 0);
  s[SITE_OF (1, 1, px, py)] = max (o[3].s1234 - zero, 0);
  const int4 top = max (max (s[0], s[1]), max (s[2], s[3]));
  int4 use = as_int4 (as_uint4 (top - sl) < (uint4) ((uint) (sh - sl)));   /* lo <= top < hi */
  if (x0 + BLOCK_W > width)
    use &= (int4) (x0 + 1, x0 + 3, x0 + 5, x0 + 7) < (int4) (width);
  if (y0 + 1 >= height)
    use = (int4) (0);
  const int4 r = s[0] & use, g = (s[1] + s[2]) & use, b = s[3] & use;
  return (uint4) ((uint) ((r.s0 + r.s1) + (r.s2 + r.s3)) >> WINDOW_SHIFT,
      (uint) ((g.s0 + g.s1) + (g.s2 + g.s3)) >> WINDOW_SHIFT,
      (uint) ((b.s0 + b.s1) + (b.s2 + b.s3)) >> WINDOW_SHIFT,
      (uint) -((use.s0 + use.s1) + (use.s2 + use.s3)));
}

/* Adds the sums `group` to the set of counters `slot` of totals (STATS_SLOTS
 * sets, so that few work-groups contend for one) without waiting for them
 * (no value returned): each counter is a pair of words, the low 16 bits of
 * the sums and the bits above, so that no carry is needed (the host adds
 * low + 2^16 high). */
inline void add_stats (__global uint * totals, int slot, uint4 group)
{
  __global uint *t = totals + 8 * (slot % STATS_SLOTS);
  atomic_add (t, group.s0 & 0xffff);
  atomic_add (t + 1, group.s0 >> 16);
  atomic_add (t + 2, group.s1 & 0xffff);
  atomic_add (t + 3, group.s1 >> 16);
  atomic_add (t + 4, group.s2 & 0xffff);
  atomic_add (t + 5, group.s2 >> 16);
  atomic_add (t + 6, group.s3 & 0xffff);
  atomic_add (t + 7, group.s3 >> 16);
}

/* The CPU shapes' sums by lane (R, G, B, cells: int8 each) to the counters
 * of `slot` (add_stats), and the sums zeroed. */
inline void flush_lane_stats (__global uint * totals, int slot, int8 * sums)
{
  uint4 t;
  const int4 a = sums[0].lo + sums[0].hi, b = sums[1].lo + sums[1].hi,
      c = sums[2].lo + sums[2].hi, d = sums[3].lo + sums[3].hi;
  t.s0 = (uint) (a.s0 + a.s1 + a.s2 + a.s3);
  t.s1 = (uint) (b.s0 + b.s1 + b.s2 + b.s3);
  t.s2 = (uint) (c.s0 + c.s1 + c.s2 + c.s3);
  t.s3 = (uint) (d.s0 + d.s1 + d.s2 + d.s3);
  add_stats (totals, slot, t);
  for (int i = 0; i < 4; i++)
    sums[i] = (int8) (0);
}

#if NATIVE_POW == 2
/* NVIDIA (PTX): v of the work-item of the warp whose lane differs by
 * `lanes` (a butterfly step) */
inline uint shuffle_xor (uint v, int lanes)
{
  uint r;
  asm volatile ("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r" (r) : "r" (v),
      "r" (lanes));
  return r;
}

/* The sum of v over the warp: one instruction on NVIDIA's sm_80 and later
 * (the host's NV_REDUX=1), where five shuffles and additions took ten. */
#if NV_REDUX
inline uint warp_sum (uint v)
{
  uint r;
  asm volatile ("redux.sync.add.u32 %0, %1, 0xffffffff;" : "=r" (r) : "r" (v));
  return r;
}
#endif
#endif

/* Adds the `cells` of the n work-items of a group (n a multiple of 4, lid
 * their index) to the set of counters `slot` of totals: a tree through
 * local memory (4 to 1 at each step, 2 to 1 at the last when n is not a
 * power of 4), then one work-item adds the group's sums (add_stats). Every
 * work-item of the group calls it (barriers). On NVIDIA, for n a multiple
 * of 32, one barrier instead: the first warp adds up the group's sums and
 * reduces its own by register shuffles (2 % of debayer_camera's time on the
 * H100); on sm_80 and later each warp reduces its own sums first, in one
 * instruction a sum, and one work-item adds the warps' (4 % more). */
inline void add_group_stats (__local uint4 * sums, uint4 cells, int lid, int n,
    __global uint * totals, int slot)
{
#if NATIVE_POW == 2 && NV_REDUX
  if (n % 32 == 0) {
    const uint4 w = (uint4) (warp_sum (cells.s0), warp_sum (cells.s1), warp_sum (cells.s2),
        warp_sum (cells.s3));
    if ((lid & 31) == 0)
      sums[lid >> 5] = w;
    barrier (CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
      uint4 t = sums[0];
      for (int i = 1; i < n / 32; i++)
        t += sums[i];
      add_stats (totals, slot, t);
    }
    return;
  }
#endif
  sums[lid] = cells;
  barrier (CLK_LOCAL_MEM_FENCE);
#if NATIVE_POW == 2
  if (n % 32 == 0) {
    if (lid < 32) {
      uint4 t = sums[lid];
      for (int i = lid + 32; i < n; i += 32)
        t += sums[i];
#pragma unroll
      for (int m = 16; m > 0; m >>= 1)
        t += (uint4) (shuffle_xor (t.s0, m), shuffle_xor (t.s1, m), shuffle_xor (t.s2, m),
            shuffle_xor (t.s3, m));
      if (lid == 0)
        add_stats (totals, slot, t);
    }
    return;
  }
#endif
  for (int m = n; m > 1;) {
    const int q = m % 4 == 0 ? m / 4 : m / 2;
    if (lid < q)
      sums[lid] = m % 4 == 0 ? sums[lid] + sums[lid + q] + sums[lid + 2 * q] + sums[lid + 3 * q]
          : sums[lid] + sums[lid + q];
    barrier (CLK_LOCAL_MEM_FENCE);
    m = q;
  }
  if (lid == 0)
    add_stats (totals, slot, sums[0]);
}
