/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The watchdog (docs/reliability.md, "Runaway kernels"): a kernel that never
 * ends gives one error of its element within kernel-timeout + 1 s and the
 * pipeline goes to NULL within 2 s; the same pipeline started again, and a
 * new one, then run frames right (a new context each time); slow but
 * finite kernels (each longer than a frame, shorter than its timeout, six
 * queued: longer together) are not cut off; a state change while a kernel
 * runs returns at once and the queue kept for it is released when it ends.
 *
 * Runs on the default device (GST_OPENCL_DEVICE picks another). The
 * never-ending kernel spins on one work-item (1x1 frames: one work-group),
 * so that PoCL (one worker thread a core) keeps a thread for the other
 * pipelines; each never-ending kernel holds one for the life of the
 * process, so test_runaway_kernel comes last and starts two. */
#include "cltest.h"

#include <gst/opencl/opencl.h>
#include <gst/opencl/gstcl.hpp>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>

#include <atomic>
#include <cstring>
#include <mutex>

using namespace cltest;

/* The loop: a float that stops growing at 2^24. */
static const char *const SPIN =
    "float4 filter (image_t img, int x, int y) { float4 p = read_pixel (img, x, y); "
    "while (p.x >= 0.0f) p.x += 1.0f; return p; }";
static const char *const INVERT =
    "float4 filter (image_t img, int x, int y) { float4 p = read_pixel (img, x, y); "
    "return (float4) (1.0f - p.xyz, p.w); }";
/* `iterations` steps of a 32-bit LCG from the red byte; red out = the top
 * byte (the host computes the same: lcg_top). */
static const char *const LCG =
    "float4 filter (image_t img, int x, int y) { float4 p = read_pixel (img, x, y); "
    "uint v = (uint) (p.x * 255.0f + 0.5f); "
    "for (int i = 0; i < iterations; i++) v = v * 1664525u + 1013904223u; "
    "return (float4) ((float) (v >> 24) / 255.0f, p.y, p.z, p.w); }";

static const guint kTimeoutMs = 1000;

/* The bounds: an error within the timeout + 1 s, NULL within 2 s;
 * under valgrind (CLTEST_SMALL), where every thread is tens of times
 * slower, 5 s and 10 s. */
static gint64
error_slack_ms ()
{
  return small_only () ? 5000 : 1000;
}

static gint64
stop_limit_ms ()
{
  return small_only () ? 10000 : 2000;
}

/* The LCG's `n` steps from `v` at once (its affine maps composed), top byte. */
static guint8
lcg_top (guint8 v, guint64 n)
{
  guint32 a = 1664525u, c = 1013904223u, A = 1, C = 0;
  for (; n; n >>= 1) {
    if (n & 1) {
      A *= a;
      C = C * a + c;
    }
    c = c * a + c;
    a *= a;
  }
  return (guint8) ((A * v + C) >> 24);
}

static gint64
ms_since (gint64 start_us)
{
  return (g_get_monotonic_time () - start_us) / 1000;
}

static GstBuffer *
frame (int w, int h, guint32 seed, std::vector<guint8> * bytes)
{
  GstVideoInfo info = video_info ("RGBA", w, h);
  GstBuffer *b = random_frame (&info, 0, seed);
  GstMapInfo map;
  gst_buffer_map (b, &map, GST_MAP_READ);
  bytes->assign (map.data, map.data + map.size);
  gst_buffer_unmap (b, &map);
  GST_BUFFER_PTS (b) = seed * GST_SECOND / 30;
  GST_BUFFER_DURATION (b) = GST_SECOND / 30;
  return b;
}

/* A pipeline around a clkernel named k, with the times its first buffer
 * reached k and k posted its first error (bus sync handler). */
struct Run {
  GstElement *pipeline = nullptr, *k = nullptr;
  GstBus *bus = nullptr;
  std::atomic<gint64> first_in_us {0};
  std::atomic<gint64> error_us {0};
  std::mutex lock;
  std::vector<std::string> errors;   /* k's, as posted (a pipeline's bus drops its
                                      * messages when it goes to NULL) */

  explicit Run (const std::string &launch)
  {
    GError *err = nullptr;
    pipeline = gst_parse_launch (launch.c_str (), &err);
    fail_unless (pipeline && !err, "%s: %s", launch.c_str (), err ? err->message : "");
    k = gst_bin_get_by_name (GST_BIN (pipeline), "k");
    bus = gst_pipeline_get_bus (GST_PIPELINE (pipeline));
    gst_bus_set_sync_handler (bus, on_message, this, nullptr);
    GstPad *pad = gst_element_get_static_pad (k, "sink");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_buffer, this, nullptr);
    gst_object_unref (pad);
  }
  ~Run ()
  {
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_bus_set_sync_handler (bus, nullptr, nullptr, nullptr);
    gst_bus_set_flushing (bus, TRUE);
    gst_object_unref (bus);
    gst_object_unref (k);
    gst_object_unref (pipeline);
  }

  static GstBusSyncReply on_message (GstBus *, GstMessage * m, gpointer data)
  {
    auto *self = static_cast<Run *> (data);
    gint64 none = 0;
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR && GST_MESSAGE_SRC (m) == GST_OBJECT (self->k)) {
      GError *error = nullptr;
      gst_message_parse_error (m, &error, nullptr);
      {
        std::lock_guard<std::mutex> guard (self->lock);
        self->errors.push_back (error->message);
      }
      g_error_free (error);
      self->error_us.compare_exchange_strong (none, g_get_monotonic_time ());
    }
    return GST_BUS_PASS;
  }
  static GstPadProbeReturn on_buffer (GstPad *, GstPadProbeInfo *, gpointer data)
  {
    auto *self = static_cast<Run *> (data);
    gint64 none = 0;
    self->first_in_us.compare_exchange_strong (none, g_get_monotonic_time ());
    return GST_PAD_PROBE_OK;
  }

  GstElement *by_name (const char *name)
  {
    GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
    gst_object_unref (e);   /* the bin keeps it */
    return e;
  }
  void play ()
  {
    first_in_us = 0;
    error_us = 0;
    {
      std::lock_guard<std::mutex> guard (lock);
      errors.clear ();
    }
    fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE);
  }
  void push (GstBuffer * b)
  {
    fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (by_name ("src")), b),
        GST_FLOW_OK);
  }
  /* Milliseconds gst_element_set_state (NULL) took. */
  gint64 stop ()
  {
    const gint64 start = g_get_monotonic_time ();
    fail_unless (gst_element_set_state (pipeline, GST_STATE_NULL) == GST_STATE_CHANGE_SUCCESS);
    return ms_since (start);
  }
  /* The errors k posted since play (), their texts joined. */
  int errors_of_k (std::string * texts)
  {
    std::lock_guard<std::mutex> guard (lock);
    for (const std::string &e : errors)
      *texts += e + "\n";
    return (int) errors.size ();
  }
  /* Waits (up to `ms`) for k's first error. */
  bool wait_for_error (gint64 ms)
  {
    for (gint64 start = g_get_monotonic_time (); ms_since (start) < ms; g_usleep (10000))
      if (error_us)
        return true;
    return false;
  }
};

static std::string
appsrc_pipeline (int w, int h, const std::string &k)
{
  return "appsrc name=src format=time caps=" + caps_string ("RGBA", w, h) + " ! " + k +
      " ! video/x-raw,format=RGBA ! appsink name=sink sync=false";
}

/* Pushes 3 frames of w x h through `run` (playing) and checks the output of
 * INVERT. */
static void
check_inverted (Run & run, int w, int h, const char *what)
{
  std::vector<std::vector<guint8>> in (3);
  for (int i = 0; i < 3; i++)
    run.push (frame (w, h, 100 + i, &in[i]));
  for (int i = 0; i < 3; i++) {
    GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (run.by_name ("sink")),
        60 * GST_SECOND);
    fail_unless (s != nullptr, "%s: no frame %d", what, i);
    GstMapInfo map;
    fail_unless (gst_buffer_map (gst_sample_get_buffer (s), &map, GST_MAP_READ));
    fail_unless_equals_int (map.size, in[i].size ());
    for (gsize b = 0; b < map.size; b++) {
      const int want = b % 4 == 3 ? in[i][b] : 255 - in[i][b];
      fail_unless (map.data[b] == want, "%s: frame %d byte %zu: %d, expected %d", what, i, b,
          map.data[b], want);
    }
    gst_buffer_unmap (gst_sample_get_buffer (s), &map);
    gst_sample_unref (s);
  }
  std::string texts;
  fail_unless_equals_int (run.errors_of_k (&texts), 0);
}

/* ------------------------------------------------ slow but finite kernels */

/* A chain of `n` clkernels running LCG (harness, system memory in and out,
 * 1x1 RGBA at 30 fps). */
struct Chain {
  GstHarness *h;
  std::vector<GstElement *> ks;
  GstBus *bus;

  explicit Chain (int n)
  {
    std::string launch;
    for (int i = 0; i < n; i++)
      launch += (i ? " ! clkernel name=k" : "clkernel name=k") + std::to_string (i);
    h = gst_harness_new_parse (launch.c_str ());
    share_context (h->element);
    for (int i = 0; i < n; i++) {
      ks.push_back (gst_bin_get_by_name (GST_BIN (h->element),
              ("k" + std::to_string (i)).c_str ()));
      g_object_set (ks.back (), "source", LCG, nullptr);
    }
    set (1, 0);
    bus = gst_bus_new ();
    gst_element_set_bus (h->element, bus);
    gst_harness_set_caps_str (h, caps_string ("RGBA", 1, 1).c_str (),
        caps_string ("RGBA", 1, 1).c_str ());
  }
  ~Chain ()
  {
    for (GstElement *k : ks)
      gst_object_unref (k);
    gst_element_set_bus (h->element, nullptr);
    gst_object_unref (bus);
    gst_harness_teardown (h);
  }
  void set (guint64 iterations, guint timeout_ms)
  {
    const std::string params = "p, iterations=(int)" + std::to_string (iterations);
    for (GstElement *k : ks) {
      gst_util_set_object_arg (G_OBJECT (k), "parameters", params.c_str ());
      g_object_set (k, "kernel-timeout", timeout_ms, nullptr);
    }
  }
  /* Pushes one frame; checks its red byte against the host's LCG; returns
   * the milliseconds from the push to the output's map (the push returns
   * with the kernels queued: docs/architecture.md, "Frames in flight"). */
  gint64 run_frame (guint64 iterations, guint32 seed)
  {
    std::vector<guint8> in;
    GstBuffer *b = frame (1, 1, seed, &in);
    const gint64 start = g_get_monotonic_time ();
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
    GstBuffer *out = gst_harness_pull (h);
    guint8 want = in[0];
    for (size_t i = 0; i < ks.size (); i++)
      want = lcg_top (want, iterations);
    GstMapInfo map;
    fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
    const gint64 took = ms_since (start);
    fail_unless (map.data[0] == want && !memcmp (map.data + 1, in.data () + 1, 3),
        "LCG x %zu: red %d, expected %d", ks.size (), map.data[0], want);
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
    return took;
  }
};

/* Iterations of LCG that make one launch last at least `ms` on this device,
 * from a chain of `n` (no timeout meanwhile). */
static guint64
calibrate (Chain & c, gint64 ms, gint64 * launch_ms)
{
  guint64 n = 1 << 16;
  for (guint32 seed = 1;; seed++) {
    c.set (n, 0);
    *launch_ms = c.run_frame (n, seed) / (gint64) c.ks.size ();
    if (*launch_ms >= ms)
      return n;
    fail_if (n >= (1u << 30), "LCG: %d ms a launch at 2^30 iterations", (int) *launch_ms);
    /* x8 while too short to time, then straight to the aim (and a bit). */
    n = *launch_ms < 10 ? n * 8 : n * (guint64) ms * 5 / 4 / (guint64) *launch_ms + 1;
  }
}

GST_START_TEST (test_slow_kernels_are_not_cut_off)
{
  /* Each launch ~150 ms (over 4 frame intervals at 30 fps), six queued a
   * frame, each element's kernel-timeout 2.5 launches (4 under valgrind,
   * below): the download waits for six launches, longer than the timeout,
   * and no launch runs past its own. */
  Chain c (6);
  gint64 launch_ms = 0;
  const guint64 n = calibrate (c, 150, &launch_ms);
  launch_ms = c.run_frame (n, 9) / 6;   /* the launch of n, as it runs now */
  /* Under valgrind a launch's time varies more with the machine's load (a
   * launch of 133 ms calibrated once ran past 332): 4 launches there. */
  const gint64 half_launches = small_only () ? 8 : 5;
  const guint timeout_ms = (guint) MAX (launch_ms * half_launches / 2, 100);
  c.set (n, timeout_ms);
  for (guint32 seed = 10; seed < 13; seed++) {
    const gint64 took = c.run_frame (n, seed);
    GST_INFO ("6 launches of %d ms each (calibrated), timeout %u ms: the frame took %d ms",
        (int) launch_ms, timeout_ms, (int) took);
    fail_unless (took > timeout_ms, "the frame took %d ms, not more than the timeout (%u ms): "
        "the test proves nothing", (int) took, timeout_ms);
  }
  fail_unless (launch_ms > 1000 / 30, "a launch (%d ms) is not longer than a frame",
      (int) launch_ms);
  GstMessage *m = gst_bus_pop_filtered (c.bus, GST_MESSAGE_ERROR);
  fail_unless (m == nullptr, "an error from a slow kernel");
}
GST_END_TEST

GST_START_TEST (test_stop_while_a_kernel_runs)
{
  /* A kernel of about 2 s with no timeout to speak of: the pipeline goes to
   * NULL at once, without an error; the queue is kept past the context's
   * end until the kernel ends, then released. */
  gint64 launch_ms = 0;
  guint64 n;
  {
    Chain c (1);
    n = calibrate (c, 100, &launch_ms) * 20;
  }
  const unsigned kept_before = gstcl::kept_queues ();
  {
    Run run (appsrc_pipeline (1, 1, "clkernel name=k kernel-timeout=600000 parameters=\"p, "
            "iterations=(int)" + std::to_string (n) + "\""));
    g_object_set (run.k, "source", LCG, nullptr);
    run.play ();
    std::vector<guint8> in;
    run.push (frame (1, 1, 1, &in));
    for (gint64 start = g_get_monotonic_time (); !run.first_in_us && ms_since (start) < 60000;)
      g_usleep (10000);
    fail_unless (run.first_in_us != 0, "no frame reached clkernel");
    g_usleep (300 * 1000);
    const gint64 stop_ms = run.stop ();
    fail_unless (stop_ms < stop_limit_ms (), "NULL took %d ms while a kernel ran",
        (int) stop_ms);
    fail_unless (ms_since (run.first_in_us) < launch_ms * 20 - 500,
        "the kernel had ended before the stop: the test proves nothing");
    std::string texts;
    fail_unless_equals_int (run.errors_of_k (&texts), 0);
  }
  /* The bin let go of the context: its queue is kept, then released. */
  fail_unless (gstcl::kept_queues () == kept_before + 1, "%u queues kept, %u before",
      gstcl::kept_queues (), kept_before);
  for (gint64 start = g_get_monotonic_time ();
      gstcl::kept_queues () > kept_before && ms_since (start) < launch_ms * 20 + 30000;)
    g_usleep (50 * 1000);
  fail_unless_equals_int (gstcl::kept_queues (), kept_before);
}
GST_END_TEST

/* ------------------------------------------------------ never-ending kernels */

GST_START_TEST (test_runaway_kernel)
{
  const unsigned kept_before = gstcl::kept_queues ();
  GstClContext *abandoned = nullptr;
  {
    Run run (appsrc_pipeline (1, 1, "clkernel name=k kernel-timeout=" +
            std::to_string (kTimeoutMs)));
    g_object_set (run.k, "source", SPIN, nullptr);
    run.play ();
    std::vector<guint8> in;
    for (int i = 0; i < 3; i++)
      run.push (frame (1, 1, i, &in));

    /* One error, from k, naming the kernel, within the timeout + 1 s of the
     * frame reaching k (its program built by then: in set_caps). */
    fail_unless (run.wait_for_error (60000), "no error from clkernel");
    const gint64 after_ms = (run.error_us - run.first_in_us) / 1000;
    GST_INFO ("the error came %d ms after the frame", (int) after_ms);
    fail_unless (after_ms >= kTimeoutMs && after_ms <= kTimeoutMs + error_slack_ms (),
        "the error came %d ms after the frame", (int) after_ms);
    abandoned = gst_cl_base_transform_get_context (GST_CL_BASE_TRANSFORM (run.k));
    fail_unless (abandoned && gst_cl_context_is_abandoned (abandoned));

    const gint64 stop_ms = run.stop ();
    GST_INFO ("NULL took %d ms", (int) stop_ms);
    fail_unless (stop_ms < stop_limit_ms (), "NULL took %d ms", (int) stop_ms);
    std::string texts;
    fail_unless_equals_int (run.errors_of_k (&texts), 1);
    for (const char *part : {"clkernel_main", " of k ", "kernel-timeout of 1000 ms"})
      fail_unless (texts.find (part) != std::string::npos, "'%s' not in: %s", part,
          texts.c_str ());

    /* The same pipeline again (its bin still has the abandoned context):
     * a new context, frames right. */
    g_object_set (run.k, "source", INVERT, nullptr);
    run.play ();
    check_inverted (run, 1, 1, "the same pipeline again");
    GstClContext *again = gst_cl_base_transform_get_context (GST_CL_BASE_TRANSFORM (run.k));
    fail_unless (again != abandoned && !gst_cl_context_is_abandoned (again));
    gst_object_unref (again);
  }
  {
    /* A new pipeline likewise. */
    Run second (appsrc_pipeline (8, 8, "clkernel name=k"));
    g_object_set (second.k, "source", INVERT, nullptr);
    second.play ();
    check_inverted (second, 8, 8, "a new pipeline");
    GstClContext *c = gst_cl_base_transform_get_context (GST_CL_BASE_TRANSFORM (second.k));
    fail_unless (c != abandoned && !gst_cl_context_is_abandoned (c));
    gst_object_unref (c);
  }
  gst_object_unref (abandoned);

  /* A never-ending kernel found by another element's thread: videotestsrc
   * maps a frame of k's pool behind the kernel (k itself never waits). k
   * still posts the one error. */
  {
    Run other ("videotestsrc ! video/x-raw,format=RGBA,width=1,height=1 ! "
        "clkernel name=k kernel-timeout=" + std::to_string (kTimeoutMs) +
        " ! fakesink sync=false");
    g_object_set (other.k, "source", SPIN, nullptr);
    other.play ();
    fail_unless (other.wait_for_error (60000), "no error from clkernel");
    const gint64 ms = (other.error_us - other.first_in_us) / 1000;
    fail_unless (ms >= kTimeoutMs && ms <= kTimeoutMs + error_slack_ms (), "the error came "
        "%d ms after the frame", (int) ms);
    const gint64 stop_ms = other.stop ();
    fail_unless (stop_ms < stop_limit_ms (), "NULL took %d ms", (int) stop_ms);
    std::string texts;
    fail_unless_equals_int (other.errors_of_k (&texts), 1);
    fail_unless (texts.find ("clkernel_main") != std::string::npos, "%s", texts.c_str ());
  }

  /* Both abandoned queues (their kernels still spin) are kept, not freed. */
  fail_unless (gstcl::kept_queues () == kept_before + 2, "%u queues kept, %u before",
      gstcl::kept_queues (), kept_before);
}
GST_END_TEST

static Suite *
watchdog_suite (void)
{
  /* The frames are copied, not wrapped (docs/architecture.md, "Memory"): a
   * kernel that never ends keeps what it reads, and a wrapped appsrc buffer
   * would stay alive to the end, which the leaks tracer reports. */
  g_setenv ("GST_OPENCL_WRAP", "0", TRUE);
  Suite *s = suite_create ("watchdog");
  TCase *tc = tcase_create ("general");
  tcase_add_checked_fixture (tc, nullptr, drop_shared_context);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_slow_kernels_are_not_cut_off);
  tcase_add_test (tc, test_stop_while_a_kernel_runs);
  tcase_add_test (tc, test_runaway_kernel);   /* last: its kernels spin on */
  return s;
}

GST_CHECK_MAIN (watchdog);
