/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pow8-check: the worst error of the cheaper transfer curves for 8-bit
 * outputs (debayer/curve.cl's POW_FAST3, pow3_table16 with curve3_setup's
 * table and cubic, and transfer_curve3_16, their float
 * steps written again here with the same constants, fma where the kernel's
 * a * b + c may contract and, as a second run, without), against the
 * curve's formula in double, in 8-bit steps, for every 61st float x from
 * 2^-24 to 1 (3.3 million, and 0, and 1), for sRGB, BT.709 and power curves of gamma 0.1 to 10.
 * Not built by meson (docs/benchmarks.md, "The camera stages on CPUs"):
 *
 *   g++ -O2 -std=c++17 tests/bench/tools/pow8-check.cpp -o pow8-check && ./pow8-check
 *
 * Exits 1 if any error reaches 0.5 of an 8-bit step. */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

static float bits_f (uint32_t b) { float f; std::memcpy (&f, &b, 4); return f; }
static uint32_t f_bits (float f) { uint32_t b; std::memcpy (&b, &f, 4); return b; }
static bool contract = true;
/* a * b + c as the kernel may compute it */
static float mad (float a, float b, float c) { return contract ? std::fma (a, b, c) : a * b + c; }

/* POW_FAST3's steps for one value: s x^y, x >= pow_floor (y) */
static float pow8 (float x, float y, float s)
{
  const uint32_t bits = f_bits (x);
  const float e = (float) (int32_t) (bits >> 23);
  const float m = bits_f ((bits & 0x007fffff) | 0x3f800000);
  float q, k;
  if (y <= 1.0f) {   /* P of degree 3 */
    k = y * (-2.153620604f - 127.0f);
    q = 0.1582486672f;
    q = mad (m, q, -1.051874864f);
    q = mad (m, q, 3.047883918f);
  } else {
    k = y * (-2.512854535f - 127.0f);
    q = -0.08161578824f;
    q = mad (m, q, 0.6451422427f);
    q = mad (m, q, -2.120674866f);
    q = mad (m, q, 4.070090538f);
  }
  const float z = mad (y, mad (m, q, e), k);
  const float t = z + 12582912.0f;
  const float f = z - (t - 12582912.0f);
  float p = s * 0.05575464978f;
  p = mad (f, p, s * 0.2420353302f);
  p = mad (f, p, s * 0.6931471806f);
  p = mad (f, p, s);
  return bits_f (f_bits (p) + (f_bits (t) << 23));
}

/* pow3_table16 for one value with curve3_setup's table and cubic (the
 * table's exp2 and the nodes' powr in double, rounded: the kernel's are
 * within an ulp or two), for curves with a knee in [2^-15, 1] */
static float pow8_table (float x, float y, float s)
{
  static const double node[4] = { 1.9619397662556433, 1.6913417161825448, 1.3086582838174552,
    1.0380602337443567 };
  static const float inv[4][4] = {
    { -14.068241560753442f, 39.39760407067598f, -50.91841935084733f, 26.589056840924798f },
    { 32.620358556607535f, -88.1393861070825f, 105.10994885555974f, -49.59092130508478f },
    { -24.72478000554051f, 63.69089921606708f, -69.34775346555952f, 30.38163425503295f },
    { 6.1229349178414845f, -14.782072520180714f, 14.782072520180725f, -6.122934917841495f } };
  float v[4], c[4];
  for (int k = 0; k < 4; k++)
    v[k] = (float) std::pow (node[k], (double) y);
  for (int i = 0; i < 4; i++)   /* dot (): products summed in order, as PoCL's */
    c[i] = mad (inv[i][3], v[3], mad (inv[i][2], v[2], mad (inv[i][1], v[1], inv[i][0] * v[0])));
  const uint32_t bits = f_bits (x);
  const float m = bits_f ((bits & 0x007fffff) | 0x3f800000);
  float p = mad (c[3], m, c[2]);
  p = mad (p, m, c[1]);
  p = mad (p, m, c[0]);
  const float t = (float) ((double) s * std::exp2 ((double) y * ((int) ((bits >> 23) & 15) - 15)));
  return t * p;
}
static bool table = false;

static float pow_floor (float y) { return std::max (std::exp2 (-120.0f / y), 1.17549435e-38f); }

/* transfer_curve3_16 on one value: (e, a, b, knee, slope) as the host's
 * (transfer_curve3_16_plus_b, then b subtracted) */
static float curve (float x, const float tf[5])
{
  x = std::max (x, pow_floor (tf[0]));
  return (x <= tf[3] ? mad (tf[4], x, tf[2]) : (table ? pow8_table : pow8) (x, tf[0], tf[1])) -
      tf[2];
}

static double model (double x, const float tf[5])
{
  return x <= tf[3] ? (double) tf[4] * x : (double) tf[1] * std::pow (x, (double) tf[0]) - tf[2];
}

/* the largest error in 8-bit steps over every 61st float x in [2^-24, 1],
 * 0 and 1 */
static double worst (const float tf[5], float *at)
{
  double w = std::fabs (curve (0.0f, tf) - model (0.0, tf)) * 255.0;
  *at = 0.0f;
  if (std::fabs (curve (1.0f, tf) - model (1.0, tf)) * 255.0 > w) {
    w = std::fabs (curve (1.0f, tf) - model (1.0, tf)) * 255.0;
    *at = 1.0f;
  }
  for (uint32_t b = f_bits (0x1p-24f); b <= f_bits (1.0f); b += 61) {
    const float x = bits_f (b);
    const double d = std::fabs ((double) curve (x, tf) - model (x, tf)) * 255.0;
    if (d > w) {
      w = d;
      *at = x;
    }
  }
  return w;
}

int main ()
{
  double all = 0.0;
  for (int c = 1; c >= 0; c--) {
    contract = c;
    const float srgb[5] = { 1 / 2.4f, 1.055f, 0.055f, 0.0031308f, 12.92f };
    const float bt709[5] = { 0.45f, 1.099f, 0.099f, 0.018f, 4.5f };
    float at;
    double w;
    for (int t = 0; t < 2; t++) {   /* the series, then the table */
      table = t;
      const char *how = c ? (t ? "fma, table" : "fma") : (t ? "mul+add, table" : "mul+add");
      w = worst (srgb, &at);
      all = std::max (all, w);
      printf ("%s sRGB   %.4f steps (x %g)\n", how, w, at);
      w = worst (bt709, &at);
      all = std::max (all, w);
      printf ("%s BT.709 %.4f steps (x %g)\n", how, w, at);
    }
    table = false;
    double wp = 0.0;
    float gp = 0.0f;
    for (int i = 0; i <= 40; i++) {
      const float gamma = (float) std::pow (10.0, -1.0 + i / 20.0);   /* 0.1 .. 10 */
      const float tf[5] = { 1.0f / gamma, 1.0f, 0.0f, -1.0f, 0.0f };
      w = worst (tf, &at);
      if (w > wp) {
        wp = w;
        gp = gamma;
      }
    }
    all = std::max (all, wp);
    printf ("%s power, gamma 0.1 to 10: %.4f steps (gamma %g)\n", c ? "fma" : "mul+add", wp, gp);
  }
  printf ("worst %.4f of an 8-bit step\n", all);
  return all < 0.5 ? 0 : 1;
}
