/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CPU strip kernels (menon_cpu.cl, camera_cpu.cl) keep rows of samples
 * by column parity in local memory, in chunks of 8 values (16 columns). */
/* A chunk's 8 values of one parity with the chunks left and right of it
 * (aligned loads); the values of the same parity 2 columns to the left (M1)
 * or right (P1) of its pixels as shuffles of them (unaligned vector loads
 * come out split in pieces). */
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

#define M1(n) ((float8) ((n).l.s7, (n).c.s0, (n).c.s1, (n).c.s2, (n).c.s3, (n).c.s4, (n).c.s5, \
    (n).c.s6))
#define P1(n) ((float8) ((n).c.s1, (n).c.s2, (n).c.s3, (n).c.s4, (n).c.s5, (n).c.s6, (n).c.s7, \
    (n).r.s0))

/* Of the other parity (n), the values 1 column to the left and to the right
 * of the pixels of parity p. */
inline float8 left_of (Nb n, int p)
{
  return p ? n.c : M1 (n);
}

inline float8 right_of (Nb n, int p)
{
  return p ? P1 (n) : n.c;
}
