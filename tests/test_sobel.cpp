/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clsobel against the CPU reference in ref_sobel.h: every input format, border,
 * norm and output, sizes from 1x1 to 1920x1080, padded strides, system and
 * OpenCL memory input. L1 must be bit-exact, L2 within 1. */
#include "cltest.h"
#include "ref_sobel.h"

#include <cmath>

using namespace cltest;
using namespace sobel_ref;

/* Pushes one frame through `h` (whose clsobel is `sobel`) with `p` and
 * compares every pixel. */
static void
check_frame (GstHarness * h, GstElement * sobel, const Format & f, int w, int hgt,
    int pad, const Params & p, uint32_t seed)
{
  g_object_set (sobel, "border", p.border, "output", p.output, "norm", p.norm,
      "scale", p.scale, "threshold", p.threshold, nullptr);
  GstVideoInfo info = video_info (f.name, w, hgt), layout;
  GstBuffer *in = random_frame (&info, pad, seed, &layout);
  std::vector<int> l = luma_of (in, &layout, f);
  GST_BUFFER_PTS (in) = seed * GST_MSECOND;

  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull (h);
  fail_unless (out != nullptr);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), seed * GST_MSECOND);

  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
  GstVideoInfo oinfo;
  fail_unless (gst_video_info_from_caps (&oinfo, caps));
  gst_caps_unref (caps);
  fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&oinfo), w);
  fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&oinfo), hgt);
  fail_unless_equals_int (GST_VIDEO_INFO_FORMAT (&oinfo),
      p.out16 ? GST_VIDEO_FORMAT_GRAY16_LE : GST_VIDEO_FORMAT_GRAY8);

  std::vector<float> scaled;
  std::vector<int> ref = sobel_reference (l, w, hgt, p, &scaled);
  GstVideoFrame frame;
  fail_unless (gst_video_frame_map (&frame, &oinfo, out, GST_MAP_READ));
  const bool exact = p.norm == 1 || p.output != 0;
  int worst = 0, bad = 0;
  for (int y = 0; y < hgt; y++) {
    const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    for (int x = 0; x < w; x++) {
      int got = p.out16 ? ((const guint16 *) row)[x] : row[x];
      int diff = std::abs (got - ref[y * w + x]);
      /* L2 thresholding may flip where the value sits on the threshold. */
      if (diff && !exact && p.threshold > 0 &&
          std::fabs (scaled[y * w + x] - (float) p.threshold) < 1.0f)
        continue;
      if (diff > (exact ? 0 : 1) && bad++ < 3)
        GST_ERROR ("%s %dx%d pad %d border %d output %d norm %d scale %f thr %f: "
            "(%d,%d) got %d want %d", f.name, w, hgt, pad, p.border, p.output, p.norm,
            p.scale, p.threshold, x, y, got, ref[y * w + x]);
      worst = std::max (worst, diff);
    }
  }
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (out);
  fail_unless (bad == 0, "%s %dx%d pad %d border %s norm %d: %d pixels differ, worst by %d",
      f.name, w, hgt, pad, border_name (p.border), p.norm, bad, worst);
}

static GstHarness *
sobel_harness (bool cl_input, GstElement ** sobel)
{
  GstHarness *h = gst_harness_new_parse (cl_input ? "clupload ! clsobel name=s" :
      "clsobel name=s");
  *sobel = gst_bin_get_by_name (GST_BIN (h->element), "s");
  if (!*sobel)  /* a single element is the harness element itself */
    *sobel = GST_ELEMENT (gst_object_ref (h->element));
  return h;
}

static const int sizes[][2] = { {1, 1}, {2, 3}, {17, 5}, {641, 479}, {1920, 1080} };

/* Every format, size, border and norm, in system memory with and without
 * padded strides and in OpenCL memory. */
static void
run_format (const Format & f)
{
  uint32_t seed = 1;
  for (auto &s : sizes) {
    if (small_only () && large_frame (s[0], s[1]))
      continue;  /* under the analysis tools */
    const bool big = s[0] >= 1920;
    for (int variant = 0; variant < 3; variant++) {
      if (big && variant == 0)
        continue;  /* the default layout is covered by the OpenCL variant */
      const bool cl_input = variant == 2;
      const int pad = variant == 1 ? 13 : 0;
      GstElement *sobel;
      GstHarness *h = sobel_harness (cl_input, &sobel);
      gst_harness_set_src_caps_str (h, caps_string (f.name, s[0], s[1]).c_str ());
      for (int border = 0; border < 3; border++)
        for (int norm = 0; norm < 2; norm++) {
          Params p;
          p.border = border;
          p.norm = norm;
          check_frame (h, sobel, f, s[0], s[1], pad, p, seed++);
        }
      gst_object_unref (sobel);
      gst_harness_teardown (h);
    }
  }
}

#define FORMAT_TEST(i) \
  GST_START_TEST (test_format_##i) { run_format (formats[i]); } GST_END_TEST
FORMAT_TEST (0) FORMAT_TEST (1) FORMAT_TEST (2) FORMAT_TEST (3) FORMAT_TEST (4)
FORMAT_TEST (5) FORMAT_TEST (6) FORMAT_TEST (7) FORMAT_TEST (8) FORMAT_TEST (9)
FORMAT_TEST (10) FORMAT_TEST (11) FORMAT_TEST (12)

/* dx, dy, scale and threshold, and GRAY16_LE output, on odd sizes. */
GST_START_TEST (test_outputs_and_scaling)
{
  uint32_t seed = 100;
  for (bool out16 : {false, true}) {
    for (auto &s : { std::pair<int, int> {17, 5}, {641, 479} }) {
      if (small_only () && large_frame (s.first, s.second))
        continue;  /* under the analysis tools */
      GstElement *sobel;
      GstHarness *h = sobel_harness (false, &sobel);
      gst_harness_set_sink_caps_str (h, out16 ? "video/x-raw,format=GRAY16_LE" :
          "video/x-raw,format=GRAY8");
      gst_harness_set_src_caps_str (h, caps_string ("RGBA", s.first, s.second).c_str ());
      for (int border = 0; border < 3; border++) {
        Params p;
        p.out16 = out16;
        p.border = border;
        for (int output = 0; output < 3; output++) {
          p.output = output;
          check_frame (h, sobel, formats[3], s.first, s.second, 5, p, seed++);
        }
        p.output = 0;
        p.norm = 1;
        p.scale = 0.37;
        check_frame (h, sobel, formats[3], s.first, s.second, 0, p, seed++);
        p.scale = 1.0;
        p.threshold = 100;
        check_frame (h, sobel, formats[3], s.first, s.second, 0, p, seed++);
        p.norm = 0;
        p.scale = 2.5;
        check_frame (h, sobel, formats[3], s.first, s.second, 0, p, seed++);
      }
      gst_object_unref (sobel);
      gst_harness_teardown (h);
    }
  }
}
GST_END_TEST

/* 16-bit input (GRAY16_LE, RGBA64_LE): GRAY16_LE out by default (its
 * gradients exceed 255), GRAY8 when downstream asks (scaled down); every
 * border and norm, odd sizes, padded rows, both memories. */
GST_START_TEST (test_deep_input)
{
  uint32_t seed = 300;
  for (const Format & f : deep_formats)
    /* 64 wide: rows of 16-byte multiples, the aligned (GPU: 4 pixels an
     * item) kernel */
    for (auto &s : {std::pair<int, int> {1, 1}, {17, 5}, {64, 6}})
      for (int variant = 0; variant < 3; variant++) {
        GstElement *sobel;
        GstHarness *h = sobel_harness (variant == 2, &sobel);
        if (variant == 1)
          gst_harness_set_sink_caps_str (h, "video/x-raw,format=GRAY8");
        gst_harness_set_src_caps_str (h, caps_string (f.name, s.first, s.second).c_str ());
        for (int border = 0; border < 3; border++)
          for (int norm = 0; norm < 2; norm++) {
            Params p;
            p.border = border;
            p.norm = norm;
            p.out16 = variant != 1;
            p.scale = variant == 1 ? 1.0 / 1024 : 0.25;
            p.output = (border + norm) % 3 == 2 ? 1 : 0;
            check_frame (h, sobel, f, s.first, s.second, variant == 1 ? 6 : 0, p, seed++);
          }
        gst_object_unref (sobel);
        gst_harness_teardown (h);
      }
}
GST_END_TEST

/* A buffer smaller than its caps say is an error, never a garbage frame. */
GST_START_TEST (test_short_buffer_is_an_error)
{
  GstHarness *h = gst_harness_new ("clsobel");
  gst_harness_set_src_caps_str (h, caps_string ("RGBA", 64, 48).c_str ());
  GstBuffer *in = gst_buffer_new_allocate (nullptr, 64 * 4 * 47, nullptr);
  gst_buffer_memset (in, 0, 0, gst_buffer_get_size (in));
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_ERROR);
  gst_harness_teardown (h);
}
GST_END_TEST

static Suite *
sobel_suite (void)
{
  Suite *s = suite_create ("clsobel");
  TCase *tc = tcase_create ("general");
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
  tcase_add_test (tc, test_format_11);
  tcase_add_test (tc, test_format_12);
  tcase_add_test (tc, test_outputs_and_scaling);
  tcase_add_test (tc, test_deep_input);
  tcase_add_test (tc, test_short_buffer_is_an_error);
  return s;
}

GST_CHECK_MAIN (sobel);
