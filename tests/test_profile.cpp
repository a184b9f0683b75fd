/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Kernel profiling (gstclprofile.h): kernels run on an application's context
 * whose queue has profiling enabled are counted, per kernel name; kernels on
 * ordinary contexts are not. */
#include <string>
#include "cltest.h"

#include <gst/opencl/opencl.h>
#include <gst/opencl/gstcldevice.hpp>

static const int kFrames = 3;

/* Runs kFrames 64x48 GRAY8 frames through clsobel, on `context` if given. */
static void
run_sobel (GstClContext * context)
{
  GError *err = nullptr;
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=3 ! "
      "video/x-raw,format=GRAY8,width=64,height=48 ! clsobel ! fakesink", &err);
  fail_unless (pipeline != nullptr && err == nullptr);
  if (context) {
    GstContext *c = gst_context_new_cl_context (context);
    gst_element_set_context (pipeline, c);
    gst_context_unref (c);
  }
  cltest::play_to_eos (pipeline, "clsobel");
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

static void
wait_counted (cl_command_queue queue)
{
  clFinish (queue);
  for (int i = 0; i < 5000 && gst_cl_kernel_profile_pending () > 0; i++)
    g_usleep (1000);
  fail_unless_equals_int ((int) gst_cl_kernel_profile_pending (), 0);
}

/* An application's context whose queue has profiling on (the benchmark's
 * way), released at the end of the scope. */
struct ProfilingContext {
  gstcl::DeviceEntry dev = gstcl::select_device ("");
  cl::Context ctx {dev.device};
  cl::CommandQueue queue {ctx, dev.device, CL_QUEUE_PROFILING_ENABLE};
  GstClContext *context = gst_cl_context_new_wrapped (ctx (), dev.device (), queue (), nullptr);

  ProfilingContext () { fail_unless (context != nullptr); }
  ~ProfilingContext () { gst_object_unref (context); }
};

GST_START_TEST (test_profiling_queue_counts_kernels)
{
  ProfilingContext p;

  gst_cl_kernel_profile_reset ();
  run_sobel (p.context);
  wait_counted (p.queue ());
  /* one kernel a frame: "sobel" on CPUs, "sobel_narrow" on GPUs */
  gchar **names = gst_cl_kernel_profile_names ();
  fail_unless_equals_int (g_strv_length (names), 1);
  fail_unless (g_str_has_prefix (names[0], "sobel"), "counted %s", names[0]);
  const std::string name = names[0];
  g_strfreev (names);
  guint64 count = 0, ns = 0;
  fail_unless (gst_cl_kernel_profile_get (name.c_str (), &count, &ns));
  fail_unless_equals_int ((int) count, kFrames);
  fail_unless (ns > 0);

  gst_cl_kernel_profile_reset ();
  fail_if (gst_cl_kernel_profile_get (name.c_str (), &count, &ns));
  fail_unless (count == 0 && ns == 0);
}
GST_END_TEST

GST_START_TEST (test_ordinary_context_counts_nothing)
{
  gst_cl_kernel_profile_reset ();
  run_sobel (nullptr);  /* clsobel makes its own context, without profiling */
  fail_unless_equals_int ((int) gst_cl_kernel_profile_pending (), 0);
  gchar **names = gst_cl_kernel_profile_names ();
  fail_unless_equals_int (g_strv_length (names), 0);
  g_strfreev (names);
}
GST_END_TEST

/* Runs kFrames 64x48 RGGB frames through cldebayer (`props`: its white
 * balance) on `p`'s context, waiting for its queue after each: the element's
 * read of the statistics has completed by the next frame, so that it
 * gathers them in every frame when it gathers any. */
static void
run_debayer (const ProfilingContext & p, const char *props)
{
  GstElement *e = gst_parse_bin_from_description (
      (std::string ("cldebayer ") + props).c_str (), TRUE, nullptr);
  fail_unless (e != nullptr);
  GstContext *c = gst_context_new_cl_context (p.context);
  gst_element_set_context (e, c);
  gst_context_unref (c);
  GstHarness *h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_set_src_caps_str (h, "video/x-bayer,format=rggb,width=64,height=48,"
      "framerate=30/1");
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=RGBA");
  for (int i = 0; i < kFrames; i++) {
    GstBuffer *in = gst_buffer_new_allocate (nullptr, 64 * 48, nullptr);
    gst_buffer_memset (in, 0, (guint8) (60 + 40 * i), 64 * 48);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    GstBuffer *out = gst_harness_pull (h);
    fail_unless (out != nullptr);
    gst_buffer_unref (out);
    wait_counted (p.queue ());
  }
  gst_harness_teardown (h);
}

/* The counted names that end in " statistics", and the count of the one. */
static int
statistics_names (guint64 * count)
{
  gchar **names = gst_cl_kernel_profile_names ();
  int n = 0;
  for (gchar **p = names; *p; p++)
    if (g_str_has_suffix (*p, " statistics")) {
      n++;
      fail_unless (gst_cl_kernel_profile_get (*p, count, nullptr));
    }
  g_strfreev (names);
  return n;
}

/* cldebayer's launches that gather the white-balance statistics are counted
 * under the kernel's name and " statistics", apart from those that do not
 * (the bench times them apart: docs/benchmarks.md). */
GST_START_TEST (test_statistics_launches_counted_apart)
{
  ProfilingContext p;

  gst_cl_kernel_profile_reset ();
  run_debayer (p, "white-balance=auto");
  guint64 count = 0;
  fail_unless_equals_int (statistics_names (&count), 1);
  fail_unless_equals_int ((int) count, kFrames);

  /* manual gains: the same stages, no statistics */
  gst_cl_kernel_profile_reset ();
  run_debayer (p, "white-balance=manual red-gain=1.5");
  fail_unless_equals_int (statistics_names (&count), 0);
  gchar **names = gst_cl_kernel_profile_names ();
  fail_unless_equals_int (g_strv_length (names), 1);
  fail_unless (gst_cl_kernel_profile_get (names[0], &count, nullptr));
  fail_unless_equals_int ((int) count, kFrames);
  g_strfreev (names);
}
GST_END_TEST

static Suite *
profile_suite (void)
{
  Suite *s = suite_create ("profile");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_profiling_queue_counts_kernels);
  tcase_add_test (tc, test_ordinary_context_counts_nothing);
  tcase_add_test (tc, test_statistics_launches_counted_apart);
  return s;
}

GST_CHECK_MAIN (profile);
