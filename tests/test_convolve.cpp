/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clconvolve and clfir against the CPU reference in ref_convolve.h: N in {1, 3, 5,
 * 7, 15, 31}, every border, every format, sizes 1x1 to 1920x1080, padded
 * strides, system and OpenCL memory input, random kernels (negative weights,
 * rank 1, per channel). Colour bytes within 1, alpha and x bytes exact.
 * Also: changes while playing, frames staying on the device in a chain, and
 * bad property values refused. */
#include "cltest.h"
#include "ref_convolve.h"

#include <gst/app/gstappsink.h>
#include <gst/controller/gstdirectcontrolbinding.h>
#include <gst/controller/gstinterpolationcontrolsource.h>
#include <gst/opencl/gstclcontext.h>
#include <gst/opencl/gstclmemory.h>
#include <gst/opencl/gstcldevice.hpp>
#include <gst/opencl/gstcl.hpp>

#include <algorithm>
#include <array>
#include <cmath>

using namespace cltest;
using namespace convolve_ref;

static const int kGray = 0, kRGBA = 3;
static const int sides[] = {1, 3, 5, 7, 15, 31};

/* ---------------------------------------------------------------- kernels */

/* Random weights in [-1, 1] around a centre that dominates, so that the sum
 * is well away from 0, times `gain` (sign and scale vary). */
static Kernel
random_kernel (int n, std::mt19937 & rng, double gain)
{
  std::uniform_real_distribution<double> u (-1.0, 1.0);
  Kernel k;
  k.n = n;
  k.k.resize (n * n);
  for (auto &v : k.k)
    v = u (rng);
  k.k[n * n / 2] += 0.3 * n * n + 1.0;
  double sum = 0;
  for (double v : k.k)
    sum += v;
  for (auto &v : k.k)
    v *= gain / sum;
  return k;
}

/* A random rank-1 kernel col * row^T with negative entries. */
static Kernel
random_separable (int n, std::mt19937 & rng, double gain)
{
  std::uniform_real_distribution<double> u (-1.0, 1.0);
  Kernel k;
  k.n = n;
  k.row.resize (n);
  k.col.resize (n);
  double rs = 0, cs = 0;
  for (int i = 0; i < n; i++) {
    k.row[i] = u (rng) + (i == n / 2 ? 0.5 * n + 1.0 : 0.0);
    k.col[i] = u (rng) + (i == n / 2 ? 0.5 * n + 1.0 : 0.0);
    rs += k.row[i];
    cs += k.col[i];
  }
  for (int i = 0; i < n; i++) {
    k.row[i] *= gain / rs;
    k.col[i] /= cs;
  }
  k.k.resize (n * n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      k.k[i * n + j] = k.col[i] * k.row[j];
  return k;
}

/* ---------------------------------------------------------------- harness */

static GValue
array_value (const std::vector<double> &values)
{
  GValue array = G_VALUE_INIT;
  g_value_init (&array, GST_TYPE_ARRAY);
  GValue v = G_VALUE_INIT;
  g_value_init (&v, G_TYPE_DOUBLE);
  for (double d : values) {
    g_value_set_double (&v, d);
    gst_value_array_append_value (&array, &v);
  }
  g_value_unset (&v);
  return array;
}

static void
set_array (GstElement * e, const char *name, const std::vector<double> &values)
{
  GValue array = array_value (values);
  g_object_set_property (G_OBJECT (e), name, &array);
  g_value_unset (&array);
}

static std::vector<double>
get_array (GstElement * e, const char *name)
{
  GValue array = G_VALUE_INIT;
  g_value_init (&array, GST_TYPE_ARRAY);
  g_object_get_property (G_OBJECT (e), name, &array);
  std::vector<double> out;
  for (guint i = 0; i < gst_value_array_get_size (&array); i++)
    out.push_back (g_value_get_double (gst_value_array_get_value (&array, i)));
  g_value_unset (&array);
  return out;
}

/* Sets every property of clconvolve `e` to `conv`, overrides cleared first
 * so that the size may change. */
static void
apply (GstElement * e, const Conv & conv)
{
  static const char *const names[] = {"red-kernel", "green-kernel", "blue-kernel"};
  for (const char *name : names)
    set_array (e, name, {});
  set_array (e, "kernel", conv.main.k);
  for (int c = 0; c < 3; c++)
    if (conv.overrides[c].n)
      set_array (e, names[c], conv.overrides[c].k);
  g_object_set (e, "normalize", conv.normalize, "bias", conv.bias, "border", conv.border,
      nullptr);
}


/* A harness around `description`, whose element under test is named "c". */
static GstHarness *
make_harness (const std::string & description, GstElement ** element)
{
  GError *error = nullptr;
  GstElement *bin = gst_parse_bin_from_description (description.c_str (), TRUE, &error);
  fail_unless (bin != nullptr, "%s", error ? error->message : "");
  gst_object_ref_sink (bin);
  share_context (bin);
  *element = gst_bin_get_by_name (GST_BIN (bin), "c");
  GstHarness *h = gst_harness_new_with_element (bin, "sink", "src");
  gst_object_unref (bin);
  return h;
}

/* Calls body (h, c) with clconvolve named "c" fed w x hgt frames of `f`, from
 * system memory and then through clupload, and tears each harness down. */
template <typename Body>
static void
with_both_memories (const Format & f, int w, int hgt, Body body)
{
  for (bool cl_input : {false, true}) {
    GstElement *c;
    GstHarness *h = make_harness (cl_input ? "clupload ! clconvolve name=c" :
        "clconvolve name=c", &c);
    gst_harness_set_src_caps_str (h, caps_string (f.name, w, hgt).c_str ());
    body (h, c);
    gst_object_unref (c);
    gst_harness_teardown (h);
  }
}

static GstVideoInfo
negotiated_output (GstHarness * h)
{
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
  GstVideoInfo info;
  fail_unless (caps && gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  return info;
}

/* Pushes one random frame and checks the output against `conv`. A kernel of
 * a new size set while playing builds in the background and serves from the
 * first frame after it is ready: when the frame started such a build, the
 * check waits for it and pushes the frame again. */
static void
push_and_check (GstHarness * h, const Format & f, int w, int hgt, int pad, uint32_t seed,
    const Conv & conv, const char *what)
{
  GstVideoInfo info = video_info (f.name, w, hgt), layout;
  GstBuffer *in = random_frame (&info, pad, seed, &layout);
  GST_BUFFER_PTS (in) = seed * GST_MSECOND;
  GstBuffer *out = push_built (h, gst_buffer_ref (in));
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), seed * GST_MSECOND);
  GstVideoInfo out_info = negotiated_output (h);
  fail_unless_equals_int (GST_VIDEO_INFO_FORMAT (&out_info), GST_VIDEO_INFO_FORMAT (&info));
  fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&out_info), w);
  fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&out_info), hgt);
  check_output (in, &layout, out, &out_info, f, conv, what);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
}

/* A random convolution of side n: kind 0 one kernel, 1 one rank-1 kernel,
 * 2 a kernel per channel, 3 a rank-1 kernel per channel. */
static Conv
random_conv (int n, int kind, int border, std::mt19937 & rng)
{
  static const double gains[] = {1.0, 3.7, -2.0, 0.8};
  std::uniform_int_distribution<int> pick (0, 3);
  Conv conv;
  conv.border = border;
  conv.normalize = pick (rng) != 0;
  conv.bias = conv.normalize ? 0.0 : (pick (rng) - 1) * 20.5;
  /* Normalised kernels may have any gain; others keep the sum near 1. */
  auto gain = [&] () { return conv.normalize ? gains[pick (rng)] : 0.8 + 0.1 * pick (rng); };
  const bool separable = kind == 1 || kind == 3;
  auto make = [&] () { return separable ? random_separable (n, rng, gain ()) :
        random_kernel (n, rng, gain ()); };
  conv.main = make ();
  if (kind >= 2)
    for (auto &o : conv.overrides)
      o = make ();
  return conv;
}

/* ---------------------------------------------------------------- tests */

/* Every side, border and kind of kernel on small frames, in system memory
 * (with and without padded strides) and in OpenCL memory; the kernel changes
 * between frames of one harness. */
static void
run_format (const Format & f)
{
  static const int small[][2] = {{1, 1}, {2, 2}, {33, 17}};
  std::mt19937 rng (1234 + f.bpp * 7 + f.off[0]);
  uint32_t seed = 1;
  for (auto &s : small) {
    for (bool cl_input : {false, true}) {
      GstElement *c;
      GstHarness *h = make_harness (cl_input ? "clupload ! clconvolve name=c" :
          "clconvolve name=c", &c);
      gst_harness_set_src_caps_str (h, caps_string (f.name, s[0], s[1]).c_str ());
      for (int n : sides)
        for (int border = 0; border < 3; border++)
          for (int kind = 0; kind < 4; kind++) {
            Conv conv = random_conv (n, kind, border, rng);
            apply (c, conv);
            if (n > 1) {
              gboolean separable;
              g_object_get (c, "separable", &separable, nullptr);
              fail_unless_equals_int (separable, kind == 1 || kind == 3);
            }
            push_and_check (h, f, s[0], s[1], seed % 2 ? 7 : 0, seed, conv,
                cl_input ? "OpenCL memory" : "system memory");
            seed++;
          }
      gst_object_unref (c);
      gst_harness_teardown (h);
    }
  }
}

#define FORMAT_TEST(i) \
  GST_START_TEST (test_format_##i) { run_format (formats[i]); } GST_END_TEST
FORMAT_TEST (0) FORMAT_TEST (1) FORMAT_TEST (2) FORMAT_TEST (3) FORMAT_TEST (4)
FORMAT_TEST (5) FORMAT_TEST (6) FORMAT_TEST (7) FORMAT_TEST (8) FORMAT_TEST (9)
FORMAT_TEST (10)

/* GRAY16_LE and RGBA64_LE in their precision (bias in their units, values
 * near full scale saturating), NV12 and I420 (luma filtered, chroma
 * copied): sides 1, 3 and 7, every border and kind of kernel in turn, odd
 * sizes, padded rows, both memories. */
GST_START_TEST (test_deep_and_yuv_formats)
{
  std::mt19937 rng (99);
  uint32_t seed = 1;
  for (const Format & f : deep_and_yuv_formats)
    for (auto s : {std::make_pair (1, 1), std::make_pair (33, 17)})
      for (bool cl_input : {false, true}) {
        GstElement *c;
        GstHarness *h = make_harness (cl_input ? "clupload ! clconvolve name=c" :
            "clconvolve name=c", &c);
        gst_harness_set_src_caps_str (h, caps_string (f.name, s.first, s.second).c_str ());
        for (int n : {1, 3, 7})
          for (int kind = 0; kind < 4; kind++) {
            Conv conv = random_conv (n, kind, seed % 3, rng);
            if (f.sample == 2)
              conv.bias *= 257;   /* the same bias in 16-bit units */
            apply (c, conv);
            push_and_check (h, f, s.first, s.second, seed % 2 ? 6 : 0, seed, conv,
                cl_input ? "OpenCL memory" : "system memory");
            seed++;
          }
        gst_object_unref (c);
        gst_harness_teardown (h);
      }
}
GST_END_TEST

/* 640x480 and 1920x1080 with a subset of sides, formats and kinds; N=31
 * only at 640x480 or rank 1. */
GST_START_TEST (test_large_frames)
{
  struct Case { int format, w, h, n, kind, border; bool cl_input; int pad; };
  static const Case cases[] = {
    {3, 640, 480, 31, 0, REFLECT, true, 0},        /* RGBA, tiled */
    {0, 640, 480, 15, 2, CONSTANT, false, 12},     /* GRAY8, tiled */
    {2, 640, 480, 5, 2, REPLICATE, false, 0},      /* BGR, direct, per channel */
    {9, 640, 480, 3, 0, CONSTANT, true, 0},        /* xRGB, 3x3 */
    {1, 640, 480, 31, 3, REFLECT, false, 5},       /* RGB, separable per channel */
    {5, 1920, 1080, 3, 2, REFLECT, false, 8},      /* RGBx, 3x3 */
    {0, 1920, 1080, 7, 0, REPLICATE, true, 0},     /* GRAY8, tiled */
    {4, 1920, 1080, 31, 1, CONSTANT, true, 0},     /* BGRA, separable */
    {8, 1920, 1080, 1, 0, REPLICATE, false, 4},    /* ABGR, 1x1 */
    {1, 1920, 1080, 15, 3, REPLICATE, false, 0},   /* RGB, separable */
  };
  std::mt19937 rng (99);
  uint32_t seed = 500;
  for (const Case &t : cases) {
    const Format &f = formats[t.format];
    GstElement *c;
    GstHarness *h = make_harness (t.cl_input ? "clupload ! clconvolve name=c" :
        "clconvolve name=c", &c);
    gst_harness_set_src_caps_str (h, caps_string (f.name, t.w, t.h).c_str ());
    Conv conv = random_conv (t.n, t.kind, t.border, rng);
    apply (c, conv);
    push_and_check (h, f, t.w, t.h, t.pad, seed++, conv, "large");
    gst_object_unref (c);
    gst_harness_teardown (h);
  }
}
GST_END_TEST

/* The 3x3 path has a variant for rows at 16-byte boundaries (1- and
 * 4-sample formats of 8 and 16 bits, input and output offsets and strides
 * multiples of 16). Widths and paddings on both sides of that: 64 and 68
 * aligned (pad 16 too), 65 and pad 7 not; GRAY8 77 (stride 80) aligned with
 * a segment of 16 pixels cut by the right edge; 16x1 and 4x1 a single
 * segment (GRAY16: 8 of its 16 pixels; RGBA64: one segment). */
GST_START_TEST (test_3x3_alignment)
{
  const Format *test_formats[] = {&formats[kGray], &formats[kRGBA], &formats[7] /* ARGB */,
    &formats[10] /* xBGR */, &deep_and_yuv_formats[0] /* GRAY16_LE */,
    &deep_and_yuv_formats[1] /* RGBA64_LE */};
  static const int sizes[][2] = {{64, 9}, {65, 9}, {68, 3}, {77, 5}, {20, 2}, {16, 1}, {4, 1}};
  std::mt19937 rng (321);
  uint32_t seed = 2000;
  for (const Format *f : test_formats) {
    for (auto &s : sizes)
      with_both_memories (*f, s[0], s[1], [&] (GstHarness * h, GstElement * c) {
        for (int pad : {0, 16, 7})
          for (int border = 0; border < 3; border++) {
            Conv conv = random_conv (3, border == 1 ? 2 : 0, border, rng);
            if (f->sample == 2)
              conv.bias *= 257;   /* the same bias in 16-bit units */
            apply (c, conv);
            push_and_check (h, *f, s[0], s[1], pad, seed++, conv, "3x3 alignment");
          }
      });
  }
}
GST_END_TEST

/* ------------------------------------------------- CPU integer path */

/* col * row^T / div: integer factors, as the CPU variant's integer path
 * wants them. */
static Kernel
integer_kernel (const std::vector<double> &row, const std::vector<double> &col, double div)
{
  Kernel k;
  k.n = (int) row.size ();
  for (double c : col)
    for (double r : row)
      k.k.push_back (c * r / div);
  return k;
}

/* An integer kernel with the element's other settings. */
struct IntegerCase {
  Kernel k;
  bool normalize;
  double bias;
};

/* Sets `kc` (and a border chosen by `seed`) on `c`, pushes one frame and
 * checks it. */
static void
push_integer_case (GstHarness * h, GstElement * c, const Format & f, int width, int height,
    int pad, uint32_t seed, const IntegerCase & kc, const char *what)
{
  Conv conv;
  conv.main = kc.k;
  conv.normalize = kc.normalize;
  conv.bias = kc.bias;
  conv.border = (int) (seed % 3);
  apply (c, conv);
  push_and_check (h, f, width, height, pad, seed, conv, what);
}

/* Set by the log function below when the engine logs its integer paths. */
static gint integer_path_logged, one_pass_int_logged, int3x3_logged, one_pass_logged;

static void
watch_path (GstDebugCategory * category, GstDebugLevel, const gchar *, const gchar *,
    gint, GObject *, GstDebugMessage * message, gpointer)
{
  if (g_strcmp0 (gst_debug_category_get_name (category), "clconvolution") == 0 &&
      strstr (gst_debug_message_get (message), "CPU integer separable path"))
    g_atomic_int_set (&integer_path_logged, 1);
  if (g_strcmp0 (gst_debug_category_get_name (category), "clconvolution") == 0 &&
      strstr (gst_debug_message_get (message), "one-pass integer separable path"))
    g_atomic_int_set (&one_pass_int_logged, 1);
  if (g_strcmp0 (gst_debug_category_get_name (category), "clconvolution") == 0 &&
      strstr (gst_debug_message_get (message), "3x3 integer path"))
    g_atomic_int_set (&int3x3_logged, 1);
  if (g_strcmp0 (gst_debug_category_get_name (category), "clconvolution") == 0 &&
      strstr (gst_debug_message_get (message), "one-pass separable path"))
    g_atomic_int_set (&one_pass_logged, 1);
}

/* Kernels with small integer factors (binomial Gaussians, boxes, negative
 * weights, scales that are not powers of 2, biases; symmetric factors,
 * which take paired-tap code on AVX2, and others) on every format and
 * border, frame sizes around the integer path's limits (rows of 16 bytes;
 * segments that overlap at the right edge; 5x20 GRAY8 too narrow for it;
 * 3 rows; 300 rows: a strip of 128 rows whose window needs no border
 * rule, and a partial last one), padded strides, system and OpenCL memory; once
 * with the variant chosen for the device (on PoCL: the CPU variant, whose
 * integer path must then be taken) and once forced to the GPU variant with
 * GST_OPENCL_TUNING. Colour within 1 of the double reference. */
GST_START_TEST (test_integer_kernels)
{
  const std::vector<double> binomial7 = {1, 6, 15, 20, 15, 6, 1};
  const IntegerCase kernels[] = {
    {integer_kernel (binomial7, binomial7, 4096.0), false, 0.0},
    {integer_kernel ({1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, 1.0), true, 0.0},
    {integer_kernel ({1, 2, 1}, {-1, 4, -1}, 8.0), false, 10.5},
    {integer_kernel ({2, 3, 2}, {2, 3, 2}, 1.0), true, 0.0},
    {integer_kernel ({1, 2, 3, 4, 5, 6, 7, 8, 7, 6, 5, 4, 3, 2, 1},
        std::vector<double> (15, 1.0), 1.0), true, -3.0},
    /* not symmetric; symmetric with row sums too large to pair in 16 bits */
    {integer_kernel ({1, 2, 3}, {1, 1, 2}, 1.0), true, 0.0},
    {integer_kernel ({1, 100, 1}, {1, 2, 1}, 1.0), true, 0.0},
  };
  static const int sizes[][2] = {{16, 16}, {6, 16}, {33, 17}, {70, 35}, {5, 20}, {40, 3},
    {40, 300}};
  /* The variant chosen for the device, unless the process forces one. */
  const bool cpu_variant = own_tuning () ? g_strcmp0 (own_tuning (), "cpu") == 0 :
      (gstcl::select_device ("").type & CL_DEVICE_TYPE_CPU) != 0;
  gst_debug_set_threshold_for_name ("clconvolution", GST_LEVEL_DEBUG);
  gst_debug_add_log_function (watch_path, nullptr, nullptr);
  uint32_t seed = 7000;
  for (const char *variant : {(const char *) nullptr, "gpu"}) {
    if (variant)
      use_tuning (variant);
    for (size_t fi = 0; fi < G_N_ELEMENTS (formats); fi++) {
      const Format &f = formats[fi];
      for (size_t si = 0; si < G_N_ELEMENTS (sizes); si++) {
        const bool cl_input = (fi + si) % 2 == 1;
        GstElement *c;
        GstHarness *h = make_harness (cl_input ? "clupload ! clconvolve name=c" :
            "clconvolve name=c", &c);
        gst_harness_set_src_caps_str (h, caps_string (f.name, sizes[si][0],
                sizes[si][1]).c_str ());
        g_atomic_int_set (&integer_path_logged, 0);
        g_atomic_int_set (&one_pass_int_logged, 0);
        for (const IntegerCase &kc : kernels) {
          push_integer_case (h, c, f, sizes[si][0], sizes[si][1], seed % 2 ? 5 : 0, seed, kc,
              variant ? "integer kernel, GPU variant" : "integer kernel");
          seed++;
        }
        const bool big_enough = sizes[si][0] * f.bpp >= 16;
        if (variant || !cpu_variant)
          fail_if (g_atomic_int_get (&integer_path_logged), "%s %dx%d: integer path taken",
              f.name, sizes[si][0], sizes[si][1]);
        else
          fail_unless_equals_int (g_atomic_int_get (&integer_path_logged), big_enough);
        /* GPU variant: 4-byte formats take the one-pass integer kernel (every
         * kernel here has non-negative row factors). */
        fail_unless_equals_int (g_atomic_int_get (&one_pass_int_logged),
            (variant || !cpu_variant) && f.bpp == 4);
        gst_object_unref (c);
        gst_harness_teardown (h);
      }
    }
  }
  use_tuning (nullptr);
  gst_debug_remove_log_function (watch_path);
}
GST_END_TEST

/* The GPU variant's 3x3 integer kernel (4-byte formats, non-negative
 * integer factors, rows at 16-byte boundaries): the binomial blur, a
 * weighted one with a bias, a box, on widths and paddings on both sides of
 * the alignment (64 and 68 aligned, pad 16 too; 65 and pad 7 not; 4x1 and
 * 8x2 single segments; 6 rows, not a multiple of the item's 4), every
 * border, system and OpenCL memory. The kernel must be taken (when
 * aligned) and match the double reference. */
GST_START_TEST (test_3x3_integer_gpu)
{
  use_tuning ("gpu");
  gst_debug_set_threshold_for_name ("clconvolution", GST_LEVEL_DEBUG);
  gst_debug_add_log_function (watch_path, nullptr, nullptr);
  const IntegerCase kernels[] = {
    {integer_kernel ({1, 2, 1}, {1, 2, 1}, 16.0), false, 0.0},
    {integer_kernel ({2, 3, 2}, {1, 5, 1}, 1.0), true, 7.25},
    {integer_kernel ({1, 1, 1}, {1, 1, 1}, 9.0), false, -2.0},
  };
  static const int sizes[][2] = {{64, 9}, {65, 9}, {68, 6}, {4, 1}, {8, 2}};
  uint32_t seed = 9100;
  for (int fi : {kRGBA, 7 /* ARGB */, 10 /* xBGR */}) {
    const Format &f = formats[fi];
    g_atomic_int_set (&int3x3_logged, 0);
    for (auto &sz : sizes)
      with_both_memories (f, sz[0], sz[1], [&] (GstHarness * h, GstElement * c) {
        for (int pad : {0, 16, 7})
          for (const IntegerCase &kc : kernels)
            push_integer_case (h, c, f, sz[0], sz[1], pad, seed++, kc,
                "3x3 integer, GPU variant");
      });
    fail_unless (g_atomic_int_get (&int3x3_logged), "%s: 3x3 integer path not taken", f.name);
  }
  gst_debug_remove_log_function (watch_path);
  use_tuning (nullptr);
}
GST_END_TEST

/* The GPU variant's one-pass rank-1 kernel on 16-bit samples (GRAY16_LE,
 * RGBA64_LE): the benchmark's 7x7 binomial Gaussian, random rank-1 kernels
 * (negative weights, gains up to 3.7 that saturate, biases, one per
 * channel) and a 15x15 one (two 4-pixel groups each side); 104x40 with rows
 * at 16-byte boundaries (pad 16 too: the tiles inside read whole groups),
 * 101x37 and pad 6 not, 3x2; every border, system and OpenCL memory. The
 * kernel must be taken and match the double reference. */
GST_START_TEST (test_separable_deep_gpu)
{
  use_tuning ("gpu");
  gst_debug_set_threshold_for_name ("clconvolution", GST_LEVEL_DEBUG);
  gst_debug_add_log_function (watch_path, nullptr, nullptr);
  const std::vector<double> binomial7 = {1, 6, 15, 20, 15, 6, 1};
  std::mt19937 rng (4242);
  std::vector<Conv> convs;
  Conv gauss;
  gauss.main = integer_kernel (binomial7, binomial7, 4096.0);
  gauss.normalize = false;
  convs.push_back (gauss);
  convs.push_back (random_conv (7, 1, 0, rng));
  convs.push_back (random_conv (7, 3, 0, rng));
  convs.push_back (random_conv (15, 1, 0, rng));
  static const int sizes[][2] = {{104, 40}, {101, 37}, {3, 2}};
  uint32_t seed = 9500;
  for (const Format &f : {deep_and_yuv_formats[0], deep_and_yuv_formats[1]}) {
    g_atomic_int_set (&one_pass_logged, 0);
    for (auto &sz : sizes)
      with_both_memories (f, sz[0], sz[1], [&] (GstHarness * h, GstElement * c) {
        for (int pad : {0, 16, 6})
          for (Conv conv : convs) {
            conv.border = (int) (seed % 3);
            conv.bias *= 257;   /* the same bias in 16-bit units */
            apply (c, conv);
            push_and_check (h, f, sz[0], sz[1], pad, seed++, conv,
                "one-pass separable, 16-bit, GPU variant");
          }
      });
    fail_unless (g_atomic_int_get (&one_pass_logged), "%s: one-pass separable path not taken",
        f.name);
  }
  gst_debug_remove_log_function (watch_path);
  use_tuning (nullptr);
}
GST_END_TEST

/* The 7x7 binomial Gaussian of the benchmark on a 1080p RGB frame. */
GST_START_TEST (test_integer_gaussian_1080p)
{
  const std::vector<double> binomial7 = {1, 6, 15, 20, 15, 6, 1};
  GstElement *c;
  GstHarness *h = make_harness ("clconvolve name=c", &c);
  gst_harness_set_src_caps_str (h, caps_string ("RGB", 1920, 1080).c_str ());
  Conv conv;
  conv.main = integer_kernel (binomial7, binomial7, 4096.0);
  conv.normalize = false;
  conv.border = REFLECT;
  apply (c, conv);
  push_and_check (h, formats[1], 1920, 1080, 0, 77, conv, "Gaussian 1080p");
  gst_object_unref (c);
  gst_harness_teardown (h);
}
GST_END_TEST

/* clfir: the default coefficients and random ones (negative too), on every
 * format and border, small and large frames. */
GST_START_TEST (test_fir)
{
  static const int fir_sizes[][2] = {{1, 1}, {2, 2}, {33, 17}, {640, 480}, {1920, 1080}};
  const std::vector<double> default_k = {30 / 256.0, 5 / 256.0, 6 / 256.0, 19 / 256.0,
      30 / 256.0, 9 / 256.0, 15 / 256.0, 5 / 256.0, 40 / 256.0};
  std::mt19937 rng (7);
  uint32_t seed = 900;
  for (int fi = 0; fi < (int) G_N_ELEMENTS (formats); fi++) {
    const Format &f = formats[fi];
    for (int si = 0; si < 5; si++) {
      const int w = fir_sizes[si][0], hgt = fir_sizes[si][1];
      /* Large frames on a few formats only. */
      if ((si == 3 && fi % 3 != 0) || (si == 4 && fi % 5 != 1))
        continue;
      const bool cl_input = (fi + si) % 2 == 1;
      GstElement *c;
      GstHarness *h = make_harness (cl_input ? "clupload ! clfir name=c" :
          "clfir name=c", &c);
      gst_harness_set_src_caps_str (h, caps_string (f.name, w, hgt).c_str ());
      fail_unless (get_array (c, "coefficients") == default_k);
      for (int border = 0; border < 3; border++) {
        Conv conv;
        conv.normalize = false;
        conv.border = border;
        conv.main.n = 3;
        conv.main.k = default_k;
        g_object_set (c, "border", border, nullptr);
        if (border > 0) {
          conv.main = random_kernel (3, rng, border == 1 ? 1.0 : -1.0);
          conv.main.k[1] -= 0.5;
          if (border == 2)
            conv.main.k[4] += 2.0;  /* sum 1 again: not all black */
          set_array (c, "coefficients", conv.main.k);
        }
        push_and_check (h, f, w, hgt, seed % 2 ? 3 : 0, seed, conv, "clfir");
        seed++;
      }
      gst_object_unref (c);
      gst_harness_teardown (h);
    }
  }
}
GST_END_TEST

/* Kernel, per-channel kernels, normalize, bias and border changed between
 * frames while playing: each frame shows the settings of its push, none
 * before, even though all frames are read back only at the end (output in
 * OpenCL memory, so the device may still be working on earlier frames). */
GST_START_TEST (test_change_while_playing)
{
  const Format &f = formats[kRGBA];
  const int w = 45, hgt = 23;
  GstElement *c;
  GstHarness *h = make_harness ("clupload ! clconvolve name=c", &c);
  gst_harness_set_src_caps_str (h, caps_string (f.name, w, hgt).c_str ());
  gst_harness_set_sink_caps_str (h, caps_string (f.name, w, hgt, true).c_str ());

  std::mt19937 rng (5);
  std::vector<Conv> convs;
  Conv identity;
  convs.push_back (identity);                       /* the default: <1> */
  convs.push_back (random_conv (5, 0, REPLICATE, rng));
  convs.push_back (random_conv (5, 2, REPLICATE, rng));   /* same N, per channel */
  Conv c3 = convs.back ();
  c3.overrides[1] = Kernel ();                      /* green back to kernel */
  convs.push_back (c3);
  Conv c4 = c3;
  c4.bias = 30;
  c4.normalize = !c4.normalize;
  convs.push_back (c4);
  Conv c5 = c4;
  c5.border = CONSTANT;
  convs.push_back (c5);
  convs.push_back (random_conv (15, 1, REFLECT, rng));    /* separable */
  convs.push_back (random_conv (3, 0, CONSTANT, rng));    /* 3x3 path */
  convs.push_back (random_conv (31, 0, REFLECT, rng));    /* tiled */

  /* A kernel of a new size builds in the background: the frame that starts
   * the build (and any before it is ready) still has the previous weights,
   * with the new border. The test waits for the build after that frame. */
  std::vector<Conv> meanwhile (convs.size ());
  struct Sent { GstBuffer *in; GstVideoInfo layout; const Conv *conv; size_t index; };
  std::vector<Sent> sent;
  uint32_t seed = 3000;
  for (size_t i = 0; i < convs.size (); i++) {
    if (i > 0) {
      apply (c, convs[i]);
      meanwhile[i] = convs[i - 1];
      meanwhile[i].border = convs[i].border;
    }
    for (int frame = 0; frame < 3; frame++) {   /* several frames per setting */
      GstVideoInfo info = video_info (f.name, w, hgt), layout;
      GstBuffer *in = random_frame (&info, frame == 1 ? 9 : 0, seed++, &layout);
      const unsigned builds = gstcl::background_builds ();
      sent.push_back ({gst_buffer_ref (in), layout, &convs[i], i});
      fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
      if (gstcl::background_builds () != builds) {
        fail_unless (frame == 0 && i > 0 && convs[i].main.n != convs[i - 1].main.n);
        sent.back ().conv = &meanwhile[i];
        gstcl::wait_for_background_builds ();
      }
    }
  }
  GstVideoInfo out_info = negotiated_output (h);
  for (const Sent &s : sent) {
    GstBuffer *out = gst_harness_pull (h);
    fail_unless (out != nullptr);
    fail_unless (gst_is_cl_memory (gst_buffer_peek_memory (out, 0)));
    char what[64];
    g_snprintf (what, sizeof what, "setting %u%s", (unsigned) s.index,
        s.conv == &convs[s.index] ? "" : " (previous weights)");
    check_output (s.in, &s.layout, out, &out_info, f, *s.conv, what);
    gst_buffer_unref (out);
    gst_buffer_unref (s.in);
  }
  gst_object_unref (c);
  gst_harness_teardown (h);
}
GST_END_TEST

/* Frames from videotestsrc go up once and down once through the chain. */
static void
check_stays_on_device (const char *filters, int frames)
{
  std::string description = "videotestsrc pattern=ball num-buffers=" +
      std::to_string (frames) + " ! video/x-raw,format=RGBA,width=160,height=120 ! "
      "clupload ! " + filters + " ! cldownload ! appsink name=sink sync=false";
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch (description.c_str (), &error);
  fail_unless (pipeline != nullptr, "%s", error ? error->message : "");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstClMemoryStats before, after;
  gst_cl_memory_get_stats (&before);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  int pulled = 0;
  while (GstSample *sample = gst_app_sink_pull_sample (GST_APP_SINK (sink))) {
    pulled++;
    gst_sample_unref (sample);
  }
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *error_msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (error_msg == nullptr, "%s: error message", filters);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_cl_memory_get_stats (&after);
  fail_unless_equals_int (pulled, frames);
  fail_unless_equals_int ((int) (after.uploads - before.uploads), frames);
  fail_unless_equals_int ((int) (after.downloads - before.downloads), frames);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}

GST_START_TEST (test_chain_stays_on_device)
{
  check_stays_on_device ("clconvolve kernel=\"<1,2,1,2,4,2,1,2,1>\" ! clsobel", 10);
  check_stays_on_device ("clconvolve kernel=\"<1,4,6,4,1,4,16,24,16,4,6,24,36,24,6,"
      "4,16,24,16,4,1,4,6,4,1>\" ! clsobel", 10);
  check_stays_on_device ("clfir ! clconvolve red-kernel=\"<2>\" ! clsobel", 10);
}
GST_END_TEST

/* No warning or error waits on `bus` (INFO messages, such as build
 * announcements, may). */
static bool
no_warning_or_error (GstBus * bus)
{
  GstMessage *msg = gst_bus_pop_filtered (bus,
      (GstMessageType) (GST_MESSAGE_WARNING | GST_MESSAGE_ERROR));
  if (msg)
    gst_message_unref (msg);
  return msg == nullptr;
}

/* Pops the next warning of `bus`, if any, and says whether its text
 * mentions `needle`. */
static bool
warned (GstBus * bus, const char *needle)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  if (!msg)
    return false;
  GError *error = nullptr;
  gst_message_parse_warning (msg, &error, nullptr);
  const bool found = strstr (error->message, needle) != nullptr;
  if (!found)
    GST_ERROR ("warning '%s' lacks '%s'", error->message, needle);
  g_error_free (error);
  gst_message_unref (msg);
  return found;
}

/* While playing, kernels bad on their own are refused with a warning; the
 * kernel in force stays, for the property and for the frames. Per-channel
 * kernels of another size than kernel are stored: the next frame warns once
 * and runs the previous kernels until the sizes agree again. */
GST_START_TEST (test_bad_values_refused)
{
  const Format &f = formats[kRGBA];
  GstElement *c;
  GstHarness *h = make_harness ("clconvolve name=c", &c);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, caps_string (f.name, 19, 11).c_str ());

  std::mt19937 rng (11);
  Conv good = random_conv (5, 0, REFLECT, rng);
  good.overrides[2] = random_kernel (5, rng, 1.0);
  apply (c, good);
  fail_unless (no_warning_or_error (bus));

  const double nan = std::nan (""), inf = INFINITY;
  struct Bad { const char *property; std::vector<double> values; const char *reason; };
  const std::vector<Bad> bad = {
    {"kernel", {1, 2, 3, 4}, "N odd"},                        /* even N */
    {"kernel", std::vector<double> (10, 1.0), "N odd"},        /* not square */
    {"kernel", std::vector<double> (33 * 33, 1.0), "N odd"},   /* N > 31 */
    {"kernel", {}, "N odd"},                                   /* empty */
    {"kernel", {1, 1, 1, 1, nan, 1, 1, 1, 1}, "finite"},
    {"green-kernel", std::vector<double> (25, inf), "finite"},
    {"blue-kernel", std::vector<double> (24, 1.0), "N odd"},
  };
  for (const Bad &b : bad) {
    set_array (c, b.property, b.values);
    fail_unless (warned (bus, b.reason), "%s: no warning", b.property);
    fail_unless (get_array (c, "kernel") == good.main.k);
    fail_unless (get_array (c, "red-kernel").empty ());
    fail_unless (get_array (c, "blue-kernel") == good.overrides[2].k);
    push_and_check (h, f, 19, 11, 0, 77, good, "after a refused value");
  }
  /* A good value in between, from a string as gst-launch sets it. */
  gst_util_set_object_arg (G_OBJECT (c), "bias", "2");
  good.bias = 2;
  fail_unless (no_warning_or_error (bus));
  push_and_check (h, f, 19, 11, 0, 78, good, "after a good value");

  /* Clearing overrides, then a new size, is accepted. */
  set_array (c, "blue-kernel", {});
  gst_util_set_object_arg (G_OBJECT (c), "kernel", "<1,2,1,2,4,2,1,2,1>");
  fail_unless (no_warning_or_error (bus));
  fail_unless (get_array (c, "kernel") == std::vector<double> ({1, 2, 1, 2, 4, 2, 1, 2, 1}));
  Conv now = good;
  now.main = {3, {1, 2, 1, 2, 4, 2, 1, 2, 1}, {}, {}};
  now.overrides = {};
  push_and_check (h, f, 19, 11, 0, 79, now, "new size");

  /* A per-channel kernel of another size: stored, one warning at the next
   * frame, which runs the kernels in force. */
  const Kernel red = random_kernel (5, rng, 1.0), main5 = random_kernel (5, rng, 1.0);
  set_array (c, "red-kernel", red.k);
  fail_unless (no_warning_or_error (bus));
  fail_unless (get_array (c, "red-kernel") == red.k);
  push_and_check (h, f, 19, 11, 0, 80, now, "sizes disagree");
  fail_unless (warned (bus, "red-kernel"));
  push_and_check (h, f, 19, 11, 0, 81, now, "sizes still disagree");
  fail_unless (no_warning_or_error (bus));   /* once per configuration */
  /* kernel of that size: both apply. */
  set_array (c, "kernel", main5.k);
  now.main = main5;
  now.overrides[0] = red;
  push_and_check (h, f, 19, 11, 0, 82, now, "sizes agree again");
  fail_unless (no_warning_or_error (bus));

  gst_element_set_bus (h->element, nullptr);
  gst_object_unref (bus);
  gst_object_unref (c);
  gst_harness_teardown (h);

  /* clfir takes 9 finite coefficients only. */
  GstHarness *fh = make_harness ("clfir name=c", &c);
  bus = gst_bus_new ();
  gst_element_set_bus (fh->element, bus);
  const std::vector<double> before = get_array (c, "coefficients");
  set_array (c, "coefficients", std::vector<double> (25, 0.04));
  fail_unless (warned (bus, "9"));
  set_array (c, "coefficients", {1, 1, 1, 1, inf, 1, 1, 1, 1});
  fail_unless (warned (bus, "finite"));
  fail_unless (get_array (c, "coefficients") == before);
  gst_element_set_bus (fh->element, nullptr);
  gst_object_unref (bus);
  gst_object_unref (c);
  gst_harness_teardown (fh);
}
GST_END_TEST

/* Bad values on a launch line (the element not started): a warning when
 * set, and the element does not start, with an error naming the property
 * and the value. A good value set after a bad one is used. */
GST_START_TEST (test_refused_on_launch_line)
{
  check_refused_at_start ("videotestsrc num-buffers=1 ! clconvolve kernel=\"<1,2>\" ! "
      "fakesink", "kernel", "<1, 2>", 1);
  check_refused_at_start ("videotestsrc num-buffers=1 ! clconvolve "
      "kernel=\"<1,1,1,1,nan,1,1,1,1>\" ! fakesink", "kernel", "nan", 1);
  check_refused_at_start ("videotestsrc num-buffers=1 ! clconvolve "
      "blue-kernel=\"<1,1,1,inf>\" ! fakesink", "blue-kernel", "inf", 1);
  check_refused_at_start ("videotestsrc num-buffers=1 ! clfir coefficients=\"<1,2>\" ! "
      "fakesink", "coefficients", "<1, 2>", 1);
  check_refused_at_start ("videotestsrc num-buffers=1 ! clfir "
      "coefficients=\"<1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1>\" ! fakesink",
      "coefficients", "(25 values)", 1);
  /* Good on its own, of another size than kernel: refused at start. */
  check_refused_at_start ("videotestsrc num-buffers=1 ! clconvolve "
      "kernel=\"<1,2,1,2,4,2,1,2,1>\" red-kernel=\"<1>\" ! fakesink", "red-kernel",
      "<1>", 0);
  check_refused_at_start ("videotestsrc num-buffers=1 ! clconvolve "
      "green-kernel=\"<1,2,1,2,4,2,1,2,1>\" ! fakesink", "green-kernel",
      "<1, 2, 1, 2, 4, 2, 1, 2, 1>", 0);

  /* Corrected before start: it runs. */
  WarningFilter filter;
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=1 ! clconvolve "
      "kernel=\"<1,2>\" kernel=\"<1,2,1,2,4,2,1,2,1>\" ! fakesink", &error);
  fail_unless (pipeline != nullptr && error == nullptr);
  fail_unless_equals_int (filter.warnings.count, 1);
  share_context (pipeline);
  play_to_eos (pipeline, "pipeline");
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}
GST_END_TEST

/* The same properties in every order give the same output: per-channel
 * kernels set before kernel are not dropped. */
GST_START_TEST (test_property_order)
{
  std::mt19937 rng (21);
  Conv conv;
  conv.main = random_kernel (3, rng, 1.0);
  conv.overrides[0] = random_kernel (3, rng, 2.0);
  conv.overrides[2] = random_kernel (3, rng, -1.0);
  conv.normalize = false;
  auto text = [] (const Kernel & k) {
    std::string out = "\"<";
    for (size_t i = 0; i < k.k.size (); i++) {
      gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
      out += std::string (i ? "," : "") + g_ascii_dtostr (buf, sizeof (buf), k.k[i]);
    }
    return out + ">\"";
  };
  std::vector<std::string> props = {"kernel=" + text (conv.main),
    "red-kernel=" + text (conv.overrides[0]), "blue-kernel=" + text (conv.overrides[2])};
  std::sort (props.begin (), props.end ());
  const Format &f = formats[kRGBA];
  int orders = 0;
  do {
    std::string description = "clconvolve name=c normalize=false";
    for (const auto &p : props)
      description += " " + p;
    GstElement *c;
    GstHarness *h = make_harness (description, &c);
    gst_harness_set_src_caps_str (h, caps_string (f.name, 17, 9).c_str ());
    push_and_check (h, f, 17, 9, 0, 5, conv, description.c_str ());
    gst_object_unref (c);
    gst_harness_teardown (h);
    orders++;
  } while (std::next_permutation (props.begin (), props.end ()));
  fail_unless_equals_int (orders, 6);

  /* While playing, a per-channel kernel then kernel, both before the next
   * frame: no warning, both apply. */
  GstElement *c;
  GstHarness *h = make_harness ("clconvolve name=c normalize=false", &c);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, caps_string (f.name, 17, 9).c_str ());
  Conv identity;
  identity.normalize = false;
  push_and_check (h, f, 17, 9, 0, 6, identity, "identity");
  set_array (c, "red-kernel", conv.overrides[0].k);
  set_array (c, "blue-kernel", conv.overrides[2].k);
  set_array (c, "kernel", conv.main.k);
  push_and_check (h, f, 17, 9, 0, 7, conv, "per-channel kernels first, while playing");
  fail_unless (no_warning_or_error (bus));
  gst_element_set_bus (h->element, nullptr);
  gst_object_unref (bus);
  gst_object_unref (c);
  gst_harness_teardown (h);
}
GST_END_TEST

/* Semantics of the properties: the default is the identity; a kernel whose
 * sum is 0 is not divided (edge detection + bias 128); GRAY8 uses kernel and
 * ignores per-channel kernels; rank-1 detection tolerates rounding noise. */
GST_START_TEST (test_semantics)
{
  GstElement *c;
  GstHarness *h = make_harness ("clconvolve name=c", &c);
  const Format &f = formats[kRGBA];
  gst_harness_set_src_caps_str (h, caps_string (f.name, 21, 13).c_str ());
  Conv identity;
  push_and_check (h, f, 21, 13, 0, 1, identity, "default");

  Conv edges;
  edges.main.n = 3;
  edges.main.k = {-1, -1, -1, -1, 8, -1, -1, -1, -1};
  edges.bias = 128;
  apply (c, edges);
  push_and_check (h, f, 21, 13, 0, 2, edges, "zero sum");

  /* A Gaussian rounded to 4 digits is still found rank 1. */
  Conv gauss;
  gauss.main.n = 7;
  gauss.main.k.clear ();
  for (int i = 0; i < 7; i++)
    for (int j = 0; j < 7; j++)
      gauss.main.k.push_back (std::round (1e4 * std::exp (-((i - 3) * (i - 3) +
                      (j - 3) * (j - 3)) / 4.5)) / 1e4);
  apply (c, gauss);
  gboolean separable = FALSE;
  g_object_get (c, "separable", &separable, nullptr);
  fail_unless (separable);
  push_and_check (h, f, 21, 13, 3, 3, gauss, "rounded gaussian");
  /* One channel not rank 1: the whole kernel runs in 2-D. */
  std::mt19937 rng (3);
  gauss.overrides[0] = random_kernel (7, rng, 1.0);
  apply (c, gauss);
  g_object_get (c, "separable", &separable, nullptr);
  fail_unless (!separable);
  push_and_check (h, f, 21, 13, 0, 4, gauss, "one channel not rank 1");
  gst_object_unref (c);
  gst_harness_teardown (h);

  h = make_harness ("clconvolve name=c", &c);
  gst_harness_set_src_caps_str (h, caps_string ("GRAY8", 21, 13).c_str ());
  Conv gray = random_conv (5, 2, REPLICATE, rng);   /* overrides set: ignored */
  apply (c, gray);
  push_and_check (h, formats[kGray], 21, 13, 0, 5, gray, "GRAY8 with overrides");
  gst_object_unref (c);
  gst_harness_teardown (h);
}
GST_END_TEST

/* Every weight 2 / (n * n), not normalised: a grey 100 becomes 200. */
static std::string
doubling_kernel (int n)
{
  std::string k = "<";
  for (int i = 0; i < n * n; i++)
    k += (i ? "," : "") + std::to_string (2.0 / (n * n));
  return k + ">";
}

/* A kernel of another size while a live source streams at 30 frames/s: its
 * program builds in the background, the previous kernel serves the frames
 * meanwhile, none waits. PoCL compiles a kernel's work-group function at
 * its first launch, holding a lock that every launch in the process takes
 * (docs/architecture.md, Threads): that would stall the stream whichever
 * thread launched first, so the 7x7 kernel is launched once beforehand, in
 * a context of its own (this element's context still builds the program). */
GST_START_TEST (test_live_size_change_does_not_stall)
{
  const std::string caps = "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1";
  GError *error = nullptr;
  GstElement *warm = gst_parse_launch (("videotestsrc num-buffers=1 ! " + caps +
      " ! clconvolve normalize=false kernel=\"" + doubling_kernel (7) +
      "\" ! fakesink").c_str (), &error);
  fail_unless (warm != nullptr, "%s", error ? error->message : "");
  fail_if (gst_element_set_state (warm, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE);
  GstBus *bus = gst_element_get_bus (warm);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
      (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  fail_unless (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS);
  gst_message_unref (m);
  gst_object_unref (bus);
  gst_element_set_state (warm, GST_STATE_NULL);
  gst_object_unref (warm);

  auto set_kernel = [] (GstElement * pipeline, int n) {
    GstElement *c = gst_bin_get_by_name (GST_BIN (pipeline), "c");
    gst_util_set_object_arg (G_OBJECT (c), "kernel", doubling_kernel (n).c_str ());
    gst_object_unref (c);
  };
  check_live_rebuild (("videotestsrc is-live=true pattern=solid-color "
      "foreground-color=0xff646464 ! " + caps + " ! clconvolve name=c normalize=false ! "
      "fakesink name=sink sync=false").c_str (),
      [&] (GstElement * p) { set_kernel (p, 7); }, 100, 200,
      [&] (GstElement * p) { set_kernel (p, 9); }, 0, false);
}
GST_END_TEST

/* A control binding on `bias` (GST_PARAM_CONTROLLABLE) changes the output
 * frame by frame: GstClFilter syncs controllable properties at each frame's
 * stream time before the frame runs. */
GST_START_TEST (test_bias_follows_a_controller)
{
  GstHarness *h = gst_harness_new_parse ("clconvolve kernel=<0,0,0,0,1,0,0,0,0>");
  cltest::share_context (h->element);
  const std::vector<double> biases = {0.0, 40.0, -25.0, 7.0};
  cltest::bind_steps (h, "clconvolve", "bias", biases);
  gst_harness_set_src_caps_str (h, cltest::caps_string ("GRAY8", 5, 3).c_str ());
  const GstVideoInfo info = cltest::video_info ("GRAY8", 5, 3);
  for (guint i = 0; i < biases.size (); i++) {
    GstBuffer *in = gst_buffer_new_allocate (nullptr, GST_VIDEO_INFO_SIZE (&info), nullptr);
    gst_buffer_memset (in, 0, 100, GST_VIDEO_INFO_SIZE (&info));
    GST_BUFFER_PTS (in) = i * GST_SECOND;
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    GstBuffer *out = gst_harness_pull (h);
    GstVideoFrame frame;
    fail_unless (gst_video_frame_map (&frame, (GstVideoInfo *) &info, out, GST_MAP_READ));
    for (int y = 0; y < 3; y++)
      for (int x = 0; x < 5; x++)
        fail_unless_equals_int (((const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0))[
                y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0) + x], 100 + (int) biases[i]);
    gst_video_frame_unmap (&frame);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}
GST_END_TEST

static Suite *
convolve_suite (void)
{
  Suite *s = suite_create ("clconvolve");
  TCase *tc = tcase_create ("general");
  tcase_add_checked_fixture (tc, nullptr, drop_shared_context);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_format_0);
  tcase_add_test (tc, test_format_1);
  tcase_add_test (tc, test_format_2);
  tcase_add_test (tc, test_format_3);
  tcase_add_test (tc, test_format_4);
  tcase_add_test (tc, test_format_5);
  tcase_add_test (tc, test_format_6);
  tcase_add_test (tc, test_format_7);
  tcase_add_test (tc, test_format_8);
  tcase_add_test (tc, test_format_9);
  tcase_add_test (tc, test_format_10);
  tcase_add_test (tc, test_large_frames);
  tcase_add_test (tc, test_deep_and_yuv_formats);
  tcase_add_test (tc, test_3x3_alignment);
  tcase_add_test (tc, test_integer_kernels);
  tcase_add_test (tc, test_integer_gaussian_1080p);
  tcase_add_test (tc, test_3x3_integer_gpu);
  tcase_add_test (tc, test_separable_deep_gpu);
  tcase_add_test (tc, test_fir);
  tcase_add_test (tc, test_change_while_playing);
  tcase_add_test (tc, test_bias_follows_a_controller);
  tcase_add_test (tc, test_chain_stays_on_device);
  tcase_add_test (tc, test_bad_values_refused);
  tcase_add_test (tc, test_refused_on_launch_line);
  tcase_add_test (tc, test_property_order);
  tcase_add_test (tc, test_semantics);
  tcase_add_test (tc, test_live_size_change_does_not_stall);
  return s;
}

GST_CHECK_MAIN (convolve);
