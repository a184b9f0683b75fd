/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The minimal element of the guide (docs/examples/clinvert.cpp, plugin
 * "clexample") against a CPU model: every 8-bit layout it takes, 1x1 to odd
 * sizes, padded rows, system and OpenCL memory in, amount 1 (exact) and a
 * fraction (within 1: float), and a change of amount while playing. */
#include "cltest.h"

#include <cmath>

using namespace cltest;

/* The expected byte: alpha or x copied, colours `amount` of the way to
 * 255 - v, rounded to nearest. */
static int
expected (int v, bool fourth, double amount)
{
  return fourth ? v : (int) std::lrint (std::min (255.0, std::max (0.0, v + amount * (255 - 2 * v))));
}

static void
check_frame (GstBuffer * in, GstBuffer * out, const GstVideoInfo * info, double amount,
    const std::string & what)
{
  GstVideoFrame src, dst;
  fail_unless (gst_video_frame_map (&src, (GstVideoInfo *) info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&dst, (GstVideoInfo *) info, out, GST_MAP_READ));
  const GstVideoFormatInfo *f = info->finfo;
  const int bpp = GST_VIDEO_FORMAT_INFO_PSTRIDE (f, 0);
  /* The byte of a 4-byte pixel that no colour uses. */
  int fourth = -1;
  if (bpp == 4)
    fourth = 6 - f->poffset[0] - f->poffset[1] - f->poffset[2];
  const int tolerance = amount == 1.0 || amount == 0.0 ? 0 : 1;
  for (int y = 0; y < GST_VIDEO_INFO_HEIGHT (info); y++) {
    const guint8 *s = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&src, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&src, 0);
    const guint8 *d = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&dst, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&dst, 0);
    for (int i = 0; i < GST_VIDEO_INFO_WIDTH (info) * bpp; i++) {
      const int want = expected (s[i], i % bpp == fourth, amount);
      fail_unless (std::abs (d[i] - want) <= tolerance, "%s: byte %d of row %d is %d, "
          "expected %d (input %d)", what.c_str (), i, y, d[i], want, s[i]);
    }
  }
  gst_video_frame_unmap (&dst);
  gst_video_frame_unmap (&src);
}

GST_START_TEST (test_against_cpu_model)
{
  const char *formats[] = {"GRAY8", "RGB", "BGRA", "xRGB"};
  const std::pair<int, int> sizes[] = {{1, 1}, {2, 3}, {37, 23}};
  int frames = 0;
  for (const char *format : formats)
    for (bool cl_input : {false, true})
      for (double amount : {1.0, 0.3}) {
        const std::string launch = std::string (cl_input ? "clupload ! " : "") +
            "clinvert name=e amount=" + std::to_string (amount);
        GstHarness *h = gst_harness_new_parse (launch.c_str ());
        share_context (h->element);
        for (const auto &size : sizes) {
          const GstVideoInfo info = video_info (format, size.first, size.second);
          gst_harness_set_src_caps_str (h, caps_string (format, size.first,
                  size.second).c_str ());
          GstVideoInfo layout;
          GstBuffer *in = random_frame (&info, frames % 2 ? 5 : 0, frames, &layout);
          gst_buffer_ref (in);
          fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
          GstBuffer *out = gst_harness_pull (h);
          fail_unless (out != nullptr);
          check_frame (in, out, &info, amount, launch + " " + format + " " +
              std::to_string (size.first) + "x" + std::to_string (size.second));
          gst_buffer_unref (out);
          gst_buffer_unref (in);
          frames++;
        }
        gst_harness_teardown (h);
      }
  GST_INFO ("%d frames checked", frames);
}
GST_END_TEST

/* A change while playing applies from the next frame. */
GST_START_TEST (test_amount_while_playing)
{
  GstHarness *h = gst_harness_new ("clinvert");
  share_context (h->element);
  const GstVideoInfo info = video_info ("RGBA", 19, 7);
  gst_harness_set_src_caps_str (h, caps_string ("RGBA", 19, 7).c_str ());
  for (double amount : {1.0, 0.0, 0.5}) {
    g_object_set (h->element, "amount", amount, nullptr);
    GstBuffer *in = random_frame (&info, 0, 7);
    gst_buffer_ref (in);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    GstBuffer *out = gst_harness_pull (h);
    check_frame (in, out, &info, amount, "amount " + std::to_string (amount));
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  gst_harness_teardown (h);
}
GST_END_TEST

static Suite *
example_suite (void)
{
  Suite *s = suite_create ("example-element");
  TCase *tc = tcase_create ("general");
  tcase_add_checked_fixture (tc, nullptr, drop_shared_context);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_against_cpu_model);
  tcase_add_test (tc, test_amount_while_playing);
  return s;
}

GST_CHECK_MAIN (example);
