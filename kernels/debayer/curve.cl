/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The transfer curve (stage 5) of the camera kernels. */

/* x^y for x in [0, 1], y > 0. On GPUs two special-function instructions:
 * NVIDIA's PTX (-D NATIVE_POW=2, below), native_powr elsewhere (-D
 * NATIVE_POW=1; within 2^-21 on NVIDIA). Elsewhere
 * exp2 (y log2 x) in plain arithmetic that PoCL vectorises across
 * work-items (its powr is a scalar library call, 6x the whole kernel):
 * log2 from the exponent bits and an odd series in t = (m - 1) / (m + 1),
 * 2^f from a degree-7 series; relative error below 2e-6, far inside 1 LSB
 * of 16 bits. */
#if NATIVE_POW == 2
/* NVIDIA (the host's NATIVE_POW=2, when the device has
 * cl_nv_compiler_options): lg2 and ex2 that flush denormals, in PTX.
 * native_powr's lg2.approx and ex2.approx keep them, and the driver wraps
 * each special-function instruction in a test, a scaling and a select (7
 * more instructions a value: 14 % of the camera kernel's time on the H100).
 * x below 2^-126 counts as 0 (x^y is then far below an output step). */
inline float lg2_ftz (float x)
{
  float r;
  asm ("lg2.approx.ftz.f32 %0, %1;" : "=f" (r) : "f" (x));
  return r;
}
inline float ex2_ftz (float x)
{
  float r;
  asm ("ex2.approx.ftz.f32 %0, %1;" : "=f" (r) : "f" (x));
  return r;
}
inline float pow_unit1 (float x, float y)
{
  return ex2_ftz (y * lg2_ftz (x));
}
inline float8 pow_unit8 (float8 x, float8 y)
{
  return (float8) (pow_unit1 (x.s0, y.s0), pow_unit1 (x.s1, y.s1), pow_unit1 (x.s2, y.s2),
      pow_unit1 (x.s3, y.s3), pow_unit1 (x.s4, y.s4), pow_unit1 (x.s5, y.s5),
      pow_unit1 (x.s6, y.s6), pow_unit1 (x.s7, y.s7));
}
/* s x^y as 2^(y log2 x + log2 s): the factor costs nothing (an fma where
 * the product was) */
inline float pow_times1 (float x, float y, float log2s)
{
  return ex2_ftz (fma (y, lg2_ftz (x), log2s));
}
inline float8 pow_times8 (float8 x, float y, float s, float log2s)
{
  return (float8) (pow_times1 (x.s0, y, log2s), pow_times1 (x.s1, y, log2s),
      pow_times1 (x.s2, y, log2s), pow_times1 (x.s3, y, log2s), pow_times1 (x.s4, y, log2s),
      pow_times1 (x.s5, y, log2s), pow_times1 (x.s6, y, log2s), pow_times1 (x.s7, y, log2s));
}
#elif NATIVE_POW
#define pow_unit1(x, y) native_powr ((x), (y))
#define pow_unit8(x, y) native_powr ((x), (y))
#define pow_times8(x, y, s, log2s) native_exp2 (fma ((float8) (y), native_log2 (x), \
    (float8) (log2s)))
#else
#define POW_UNIT(name, T, IT) \
inline T name (T x, T y) \
{ \
  const IT bits = as_##IT (max (x, (T) (FLT_MIN))); \
  const T e = convert_##T ((bits >> 23) - 127); \
  const T m = as_##T ((bits & 0x007fffff) | 0x3f800000);   /* [1, 2) */ \
  const T t = (m - 1.0f) / (m + 1.0f), t2 = t * t; \
  const T log2x = e + t * (2.8853900817779268f + t2 * (0.9617966939259756f + \
      t2 * (0.5770780163555854f + t2 * (0.4121985831111324f + t2 * 0.3205988979753252f)))); \
  const T z = max (y * log2x, (T) (-126.0f)); \
  const T n = floor (z), f = z - n; \
  const T p = 1.0f + f * (0.6931471805599453f + f * (0.2402265069591007f + \
      f * (0.0555041086648216f + f * (0.0096181291076285f + f * (0.0013333558146428f + \
      f * (0.0001540353039338f + f * 0.0000152527338040f)))))); \
  return select (p * as_##T ((convert_##IT (n) + 127) << 23), (T) (0.0f), x <= 0.0f); \
}
POW_UNIT (pow_unit1, float, int)
#if OUT_SAMPLE == 1 && !FAST_POW_OFF
/* For 8-bit outputs a cheaper x^y (within 1 LSB is the requirement):
 * log2 x = E - 127 + P (m), E the biased exponent (a conversion of the
 * float's bits shifted), m the mantissa in [1, 2) and P a degree-4 fit of
 * log2 on [1, 2] in m itself (absolute error 8.8e-5; no m - 1; P's constant
 * term and the bias folded into one fma with y: z = y (E + m Q (m)) + K,
 * K = y (P0 - 127)); 2^z as 2^n 2^f with n = z rounded through 1.5 2^23
 * (no floor: PoCL's takes 12 instructions) and 2^f, f in [-1/2, 1/2], a
 * degree-3 fit (relative error 2e-4), its coefficients times a factor s
 * (the curve's a); no division. The three-channel version, for y <= 1
 * (sRGB, BT.709, gamma >= 1, where log2's error counts y times), a
 * degree-3 P (6.4e-4). At most 0.17 of an 8-bit step from the formula for
 * any gamma from 0.1 to 10 (at 0.1), 0.06 for sRGB, 0.08 for BT.709 (the
 * whole curve in float against the formula in double, every 61st float x
 * from 2^-24 to 1: tests/bench/tools/pow8-check.cpp). 2^n needs n >= -126:
 * pow_unit8 takes z below -126 as -126 (x = 0 then gives 2^(-126 max (y,
 * 1)) roughly, 0 in 8 bits); the three-channel version leaves that to its
 * caller, whose x are at least pow_floor (y). */
/* The steps of the series for one value v (pointer), written once and
 * applied to one value (PF1) or to three (PF3) in turn: three chains of
 * about 16 dependent operations interleaved, which keeps more of the
 * core's units busy than one after another (5 % of the CPU camera kernel). */
/* (Every step takes the value and three more arguments, used or not:
 * variadic macros are not OpenCL C, and NVIDIA's compiler refuses them.) */
#define PF1(S, T, IT, k) S (a, T, IT, k)
#define PF3(S, T, IT, k) S (a, T, IT, k) S (b, T, IT, k) S (c, T, IT, k)
#define PF_P0 (-2.512854535f)   /* P's constant term */
#define PF_P0_3 (-2.153620604f)   /* that of the degree-3 fit */
#define PF_LOG(v, T, IT, c) const IT bits_##v = as_##IT (*v); \
  const T e_##v = convert_##T (bits_##v >> 23); \
  const T m_##v = as_##T ((bits_##v & 0x007fffff) | 0x3f800000);   /* [1, 2) */ \
  T q_##v = (T) (c);
#define PF_Q(v, T, IT, k) q_##v = (k) + m_##v * q_##v;
#define PF_Z(v, T, y, k) T z_##v = (y) * (e_##v + m_##v * q_##v) + (k);
#define PF_ZMAX(v, T, IT, k) z_##v = max (z_##v, (T) (-126.0f));
#define PF_EXP(v, T, IT, k) const T t_##v = z_##v + 12582912.0f;   /* n in the low bits */ \
  const T f_##v = z_##v - (t_##v - 12582912.0f); \
  T p_##v = (T) (k);
#define PF_P(v, T, IT, k) p_##v = (k) + f_##v * p_##v;
/* p 2^n: n added to p's exponent (t's bits are 0x4b400000 + n, whose shift
 * by 23 leaves n << 23) */
#define PF_OUT(v, T, IT, k) *v = as_##T (as_##IT (p_##v) + (as_##IT (t_##v) << 23));
#define POW_FAST_LOG(PFN, T, IT, y, k) \
  PFN (PF_LOG, T, IT, -0.08161578824f) PFN (PF_Q, T, IT, 0.6451422427f) \
  PFN (PF_Q, T, IT, -2.120674866f) PFN (PF_Q, T, IT, 4.070090538f) PFN (PF_Z, T, y, k)
/* P of degree 3 (absolute error 6.4e-4), for y <= 1 */
#define POW_FAST_LOG_3(PFN, T, IT, y, k) \
  PFN (PF_LOG, T, IT, 0.1582486672f) PFN (PF_Q, T, IT, -1.051874864f) \
  PFN (PF_Q, T, IT, 3.047883918f) PFN (PF_Z, T, y, k)
/* s 2^z, 2^f's coefficients times s */
#define POW_FAST_EXP(PFN, T, IT, s) \
  PFN (PF_EXP, T, IT, (s) * 0.05575464978f) PFN (PF_P, T, IT, (s) * 0.2420353302f) \
  PFN (PF_P, T, IT, (s) * 0.6931471806f) PFN (PF_P, T, IT, (s)) PFN (PF_OUT, T, IT, 0)
/* s x^y of x (a function's argument, overwritten), y a T or a float */
#define POW_FAST(T, IT, y, s) \
  T *a = &x; \
  POW_FAST_LOG (PF1, T, IT, y, y * (PF_P0 - 127.0f)) \
  PF1 (PF_ZMAX, T, IT, 0) \
  POW_FAST_EXP (PF1, T, IT, s) \
  return x;
/* s x^y of three values in place, x >= pow_floor (y); for y <= 1 (sRGB,
 * BT.709, gamma >= 1: y times log2's error) with P of degree 3 */
#define POW_FAST3(name, T, IT) \
inline void name (T * a, T * b, T * c, float y, float s) \
{ \
  if (y <= 1.0f) { \
    const float k = y * (PF_P0_3 - 127.0f); \
    POW_FAST_LOG_3 (PF3, T, IT, y, k) \
    POW_FAST_EXP (PF3, T, IT, s) \
  } else { \
    const float k = y * (PF_P0 - 127.0f); \
    POW_FAST_LOG (PF3, T, IT, y, k) \
    POW_FAST_EXP (PF3, T, IT, s) \
  } \
}
/* The least x of pow3's: 2^(-120 / y), whose x^y is 2^-120 (0 in 8 bits,
 * z well above -126 with the errors), or the least normal float. */
inline float pow_floor (float y)
{
  return max (exp2 (-120.0f / y), FLT_MIN);
}
inline float8 pow_unit8 (float8 x, float8 y)
{
  POW_FAST (float8, int8, y, 1.0f)
}
/* s x^y (s in 2^f's coefficients) */
inline float8 pow_times8 (float8 x, float y, float s, float log2s)
{
  POW_FAST (float8, int8, y, s)
}
POW_FAST3 (pow3_unit16, float16, int16)
#else
POW_UNIT (pow_unit8, float8, int8)
#define pow_times8(x, y, s, log2s) ((s) * pow_unit8 ((x), (float8) (y)))
#endif
#endif

/* The transfer curves as one formula, without branches (PoCL vectorises no
 * switch): x <= knee ? slope x : a x^e - b, with tf = (e, a, b, knee,
 * slope) set by the host: sRGB (1/2.4, 1.055, 0.055, 0.0031308, 12.92),
 * BT.709 (0.45, 1.099, 0.099, 0.018, 4.5), power (1/gamma, 1, 0, -1, 0),
 * linear (1, 1, 0, 2, 1). */
#define TRANSFER_CURVE(name, T, pow) \
inline T name (T x, float16 tf) \
{ \
  if (tf.s3 > 1.0f)   /* linear */ \
    return x; \
  return select (tf.s1 * pow (x, (T) (tf.s0)) - tf.s2, tf.s4 * x, x <= tf.s3); \
}
TRANSFER_CURVE (transfer1, float, pow_unit1)
TRANSFER_CURVE (transfer_curve, float8, pow_unit8)

#if OUT_SAMPLE == 1
/* For 8-bit outputs the curve v as q = (v + b) / u, u = c + b, c = slope
 * knee the curve's value at the knee (1 for the power curves, whose b is
 * 0): max ((a / u) x^e, sat ((slope / u) x + b / u)), tf.s5-s8 = (a / u,
 * log2 (a / u), slope / u, b / u); the factor goes into x^e's exponent, so
 * that an fma-saturate and a max are all the formula's multiply, compare
 * and select take. That is max (a x^e - b, min (slope x, c)): the formula
 * where the power branch lies below the linear one up to the knee and
 * above c past it: the power curves (slope 0), and sRGB but within 1e-5
 * just below its knee; BT.709's power branch lies above its linear one
 * just below the knee, by at most 2.5e-4 (0.06 of an 8-bit step). The
 * outputs take v = u q - b (CURVE_UNIT u, CURVE_OFFSET b in tf.s9-s10; 1
 * and 0 for the linear curve), b in their offsets. x is in [0, 1] (the
 * matrix's clamp). */
inline float8 transfer_offset8 (float8 x, float16 tf)
{
  if (tf.s3 > 1.0f)   /* linear */
    return x;
  return max (pow_times8 (x, tf.s0, tf.s5, tf.s6), SAT_FMA8 (x, tf.s7, tf.s8));
}
#define CAMERA_CURVE(x, tf) transfer_offset8 ((x), (tf))
#define CURVE_UNIT(tf) ((tf).s9)
#define CURVE_OFFSET(tf) ((tf).sa)
#else
#define CAMERA_CURVE(x, tf) transfer_curve ((x), (tf))
#define CURVE_UNIT(tf) 1.0f
#define CURVE_OFFSET(tf) 0.0f
#endif
#if OUT_SAMPLE == 1 && !NATIVE_POW && !FAST_POW_OFF && !CURVE_TABLE_OFF && \
    (defined (__AVX512F__) || defined (__AVX2__))
/* x86 CPUs (PoCL compiles for the host's CPU and defines its features): a
 * curve with a knee (sRGB, BT.709) as a table of the exponent and a
 * polynomial of the mantissa, a third of the instructions of the log and
 * exp above. (-D CURVE_TABLE_OFF=1 and -D CURVE_AVX2=1, through
 * GST_OPENCL_EXTRA_BUILD_OPTIONS, let the tests take the series, or AVX2's
 * code on an AVX-512 CPU.) */
#define CURVE_TABLE 1
#endif

/* What the camera kernels' curve of three float16 takes besides tf, set
 * once a work-group (curve3_setup): the least value it takes and, with
 * CURVE_TABLE, the table's factors. */
typedef struct
{
  float floor;
#if CURVE_TABLE
  int tabled;       /* the table applies: a knee in [2^-15, 1], y <= 1 */
  float16 table;    /* a 2^(y (j - 15)), j = 0 .. 15 */
  float4 poly;      /* m^y for m in [1, 2): s0 + s1 m + s2 m^2 + s3 m^3 */
#endif
} Curve3;

#if OUT_SAMPLE == 1 && !NATIVE_POW && !FAST_POW_OFF
#if CURVE_TABLE
/* t[i & 15] for each lane: one vpermps (AVX-512), or two of 8 entries and
 * a blend on bit 3 (AVX2). OpenCL's shuffle () with a mask not known at
 * build time is lane by lane through memory in PoCL. */
inline float16 lookup16 (float16 t, int16 i)
{
#if defined (__AVX512F__) && !CURVE_AVX2
  return as_float16 (__builtin_ia32_permvarsf512 (t, i));
#else
  const int16 bit3 = i << 28;   /* select () tests the sign */
  return (float16) (select (as_float8 (__builtin_ia32_permvarsf256 (t.lo, i.lo)),
          as_float8 (__builtin_ia32_permvarsf256 (t.hi, i.lo)), bit3.lo),
      select (as_float8 (__builtin_ia32_permvarsf256 (t.lo, i.hi)),
          as_float8 (__builtin_ia32_permvarsf256 (t.hi, i.hi)), bit3.hi));
#endif
}

/* a x^y of three float16 in place, x in (2^-16, 1]: x = 2^E m, E from -15
 * to 0, m in [1, 2); a 2^(y E) is the table's entry (E + 127) & 15, m^y a
 * cubic through m^y at the 4 Chebyshev nodes of [1, 2] (relative error
 * 1.1e-4 for y = 1/2.4 or 0.45: within 0.03 of an 8-bit step of the
 * formula in double, tests/bench/tools/pow8-check.cpp). Seven
 * instructions a value against the log and exp's sixteen. Values below
 * 2^-15 come out wrong but finite; the knee's branch replaces them. */
#define PT_M(v) const int16 i_##v = as_int16 (*v); \
  const float16 m_##v = as_float16 ((i_##v & 0x007fffff) | 0x3f800000); \
  float16 p_##v = cv.poly.s3 * m_##v + cv.poly.s2;
#define PT_P(v, k) p_##v = p_##v * m_##v + (k);
#define PT_OUT(v) *v = lookup16 (cv.table, i_##v >> 23) * p_##v;
inline void pow3_table16 (float16 * a, float16 * b, float16 * c, Curve3 cv)
{
  PT_M (a) PT_M (b) PT_M (c)
  PT_P (a, cv.poly.s1) PT_P (b, cv.poly.s1) PT_P (c, cv.poly.s1)
  PT_P (a, cv.poly.s0) PT_P (b, cv.poly.s0) PT_P (c, cv.poly.s0)
  PT_OUT (a) PT_OUT (b) PT_OUT (c)
}
#undef PT_M
#undef PT_P
#undef PT_OUT
#endif

/* The least value that transfer_curve3_16 takes: pow_floor, or 0 for the
 * linear curve; with CURVE_TABLE, the table and polynomial of tf's curve. */
inline Curve3 curve3_setup (float16 tf)
{
  Curve3 cv;
  cv.floor = tf.s3 > 1.0f ? 0.0f : pow_floor (tf.s0);
#if CURVE_TABLE
  const float y = tf.s0;
  cv.tabled = tf.s3 >= 0x1p-15f && tf.s3 <= 1.0f && y <= 1.0f;
  cv.table = tf.s1 * exp2 (y * ((float16) (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
              15) - 15.0f));
  /* the cubic through m^y at the nodes 1.5 + 0.5 cos ((2 k + 1) pi / 8):
   * its coefficients are the inverse Vandermonde matrix's rows times the
   * values */
  const float4 v = powr ((float4) (1.9619397662556433f, 1.6913417161825448f,
          1.3086582838174552f, 1.0380602337443567f), y);
  cv.poly = (float4) (dot ((float4) (-14.068241560753442f, 39.39760407067598f,
              -50.91841935084733f, 26.589056840924798f), v),
      dot ((float4) (32.620358556607535f, -88.1393861070825f, 105.10994885555974f,
              -49.59092130508478f), v),
      dot ((float4) (-24.72478000554051f, 63.69089921606708f, -69.34775346555952f,
              30.38163425503295f), v),
      dot ((float4) (6.1229349178414845f, -14.782072520180714f, 14.782072520180725f,
              -6.122934917841495f), v));
#endif
  return cv;
}

/* The curve plus its offset (tf.s2: x <= knee ? slope x + b : a x^y) of
 * three float16 at once, in place, for outputs where b cancels or is
 * subtracted later (Y'CbCr: Cb and Cr are differences, Y' a sum of
 * weights 1); values in [cv.floor, 1]. a is in the table, or in 2^f's
 * coefficients: a compare and a masked fma a value. */
inline void transfer_curve3_16_plus_b (float16 * a, float16 * b, float16 * c, float16 tf,
    Curve3 cv)
{
  if (tf.s3 > 1.0f)   /* linear (b = 0) */
    return;
  float16 pa = *a, pb = *b, pc = *c;
#if CURVE_TABLE
  if (cv.tabled)
    pow3_table16 (&pa, &pb, &pc, cv);
  else
#endif
    pow3_unit16 (&pa, &pb, &pc, tf.s0, tf.s1);
  *a = select (pa, tf.s4 * *a + tf.s2, *a <= tf.s3);
  *b = select (pb, tf.s4 * *b + tf.s2, *b <= tf.s3);
  *c = select (pc, tf.s4 * *c + tf.s2, *c <= tf.s3);
}

/* The curve of three float16 at once, in place; values in [cv.floor, 1]. */
inline void transfer_curve3_16 (float16 * a, float16 * b, float16 * c, float16 tf, Curve3 cv)
{
  transfer_curve3_16_plus_b (a, b, c, tf, cv);
  *a -= tf.s2;
  *b -= tf.s2;
  *c -= tf.s2;
}
#else
/* the curve's values from 0 */
inline Curve3 curve3_setup (float16 tf)
{
  Curve3 cv;
  cv.floor = 0.0f;
  return cv;
}
#endif
