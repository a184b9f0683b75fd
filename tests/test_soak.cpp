/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Soak: many small frames through every element, checking that neither the
 * process memory (RSS) nor the number of live OpenCL buffers grows after a
 * warm-up. SOAK_FRAMES sets the number of frames (default 30000 at 160x120: about
 * 20-30 s on 2 CPU cores with PoCL). */
#include "cltest.h"
#include <gst/opencl/opencl.h>

#include <unistd.h>

#include <atomic>
#include <cstdio>

/* Allowed RSS growth after the warm-up. Frames, pools and programs all
 * exist by then; what may still move is allocator slack (glibc arenas of the
 * streaming threads, PoCL's command bookkeeping): +4 KiB over 2700 frames and
 * +128 KiB over 90000 measured. 1 MiB fails a host leak of ~40 bytes a frame
 * at the default length; device leaks are caught exactly by the live-buffer
 * count. */
static const long kRssSlackKiB = 1024;

static long
rss_kib ()
{
  long pages_total = 0, pages_resident = 0;
  FILE *f = fopen ("/proc/self/statm", "r");
  fail_unless (f != nullptr);
  fail_unless_equals_int (fscanf (f, "%ld %ld", &pages_total, &pages_resident), 2);
  fclose (f);
  return pages_resident * (sysconf (_SC_PAGESIZE) / 1024);
}

static guint64
live_buffers ()
{
  GstClMemoryStats s;
  gst_cl_memory_get_stats (&s);
  return s.live_buffers;
}

struct Probe {
  guint warmup;
  std::atomic<guint> frames{0};
  long warm_rss = 0;
  guint64 warm_live = 0;
};

static void
on_handoff (GstElement *, GstBuffer *, GstPad *, Probe * p)
{
  if (++p->frames == p->warmup) {
    p->warm_rss = rss_kib ();
    p->warm_live = live_buffers ();
  }
}

GST_START_TEST (test_soak)
{
  const char *env = g_getenv ("SOAK_FRAMES");
  /* Under the analysis tools a short run: they count leaks themselves. */
  const guint frames = env ? (guint) g_ascii_strtoull (env, nullptr, 10) :
      cltest::small_only () ? 300 : 30000;
  fail_unless (frames >= 10);
  const guint64 live_before = live_buffers ();
  /* Every element: a Bayer chain on the device, and an upload/download branch
   * whose frames go through the host at both ends. */
  gchar *desc = g_strdup_printf (
      "videotestsrc num-buffers=%u pattern=ball ! video/x-raw,format=ARGB,width=160,"
      "height=120 ! tee name=t "
      "t. ! queue ! rgb2bayer ! video/x-bayer,format=rggb ! clupload ! cldebayer ! "
      "clsobel ! clconvolve kernel=<1,2,1,2,4,2,1,2,1> ! clfir ! clkernel ! cldownload ! "
      "fakesink name=s1 signal-handoffs=true "
      "t. ! queue ! clupload ! cldownload ! fakesink", frames);
  GError *err = nullptr;
  GstElement *pipeline = gst_parse_launch (desc, &err);
  fail_unless (pipeline && !err, "%s", err ? err->message : "");
  g_free (desc);
  Probe probe;
  probe.warmup = frames / 10;
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "s1");
  g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), &probe);
  gst_object_unref (sink);

  const gint64 t0 = g_get_monotonic_time ();
  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS, "error while soaking");
  gst_message_unref (msg);
  gst_object_unref (bus);
  const double seconds = (g_get_monotonic_time () - t0) / 1e6;
  /* At EOS the pools still hold their buffers: the same as at warm-up. */
  const long end_rss = rss_kib ();
  const guint64 end_live = live_buffers ();
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  const guint64 after_live = live_buffers ();

  g_print ("soak: %u frames in %.1f s (%.0f frames/s); RSS %ld KiB at warm-up "
      "(frame %u), %ld KiB at the end (%+ld KiB); live OpenCL buffers %" G_GUINT64_FORMAT
      " at warm-up, %" G_GUINT64_FORMAT " at the end, %" G_GUINT64_FORMAT
      " after teardown (%" G_GUINT64_FORMAT " before)\n", probe.frames.load (), seconds,
      probe.frames.load () / seconds, probe.warm_rss, probe.warmup, end_rss,
      end_rss - probe.warm_rss, probe.warm_live, end_live, after_live, live_before);
  fail_unless_equals_int (probe.frames.load (), frames);
  fail_unless (end_live <= probe.warm_live, "live OpenCL buffers grew: %" G_GUINT64_FORMAT
      " -> %" G_GUINT64_FORMAT, probe.warm_live, end_live);
  fail_unless_equals_uint64 (after_live, live_before);
  /* (Under valgrind RSS is the tool's own heap, not the process's.) */
  if (!cltest::small_only ())
    fail_unless (end_rss - probe.warm_rss <= kRssSlackKiB, "RSS grew by %ld KiB",
        end_rss - probe.warm_rss);
}
GST_END_TEST

static Suite *
soak_suite (void)
{
  Suite *s = suite_create ("soak");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_soak);
  return s;
}

GST_CHECK_MAIN (soak);
