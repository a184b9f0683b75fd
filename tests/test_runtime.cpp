/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The shared runtime: pipelines in both memories, transfer counts, context
 * sharing, application contexts, pools, device selection, program builds. */
#include "cltest.h"

#include <gst/app/gstappsink.h>
#include <gst/controller/controller.h>
#include <gst/opencl/gstcl.hpp>
#include <gst/opencl/opencl.h>

#include <cstring>

static GstClMemoryStats
stats_now ()
{
  GstClMemoryStats s;
  gst_cl_memory_get_stats (&s);
  return s;
}

/* Runs `desc` to EOS; fails on an error message. Returns buffers at "sink". */
static guint
run_to_eos (const char *desc, GstElement ** keep_pipeline = nullptr)
{
  GError *err = nullptr;
  GstElement *pipeline = gst_parse_launch (desc, &err);
  fail_unless (pipeline != nullptr, "%s: %s", desc, err ? err->message : "");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  fail_unless (sink != nullptr);
  guint count = 0;
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER,
      [] (GstPad *, GstPadProbeInfo *, gpointer data) -> GstPadProbeReturn {
        (*(guint *) data)++;
        return GST_PAD_PROBE_OK;
      }, &count, nullptr);
  gst_object_unref (pad);
  gst_object_unref (sink);

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
      (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  fail_unless (msg != nullptr, "%s: timed out", desc);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *e = nullptr;
    gchar *dbg = nullptr;
    gst_message_parse_error (msg, &e, &dbg);
    fail ("%s: %s (%s)", desc, e->message, dbg);
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  if (keep_pipeline) {
    *keep_pipeline = pipeline;
  } else {
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
  }
  return count;
}

GST_START_TEST (test_system_memory_pipeline)
{
  fail_unless_equals_int (run_to_eos ("videotestsrc num-buffers=5 ! clsobel ! "
          "fakesink name=sink"), 5);
  fail_unless_equals_int (run_to_eos ("videotestsrc num-buffers=5 ! "
          "video/x-raw,format=I420,width=321,height=241 ! clsobel ! videoconvert ! "
          "video/x-raw,format=RGBA ! fakesink name=sink"), 5);
}
GST_END_TEST

/* Between clupload and cldownload the frames stay on the device: exactly one
 * upload and one download per frame, whatever runs in between. */
GST_START_TEST (test_chain_has_no_host_transfer)
{
  const guint frames = 12;
  for (const char *middle : {"clsobel", "clsobel ! clsobel"}) {
    gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%u ! "
        "video/x-raw,format=RGBA,width=320,height=240 ! clupload ! %s ! cldownload ! "
        "fakesink name=sink", frames, middle);
    GstClMemoryStats before = stats_now ();
    fail_unless_equals_int (run_to_eos (desc), frames);
    GstClMemoryStats after = stats_now ();
    fail_unless_equals_uint64 (after.uploads - before.uploads, frames);
    fail_unless_equals_uint64 (after.downloads - before.downloads, frames);
    g_free (desc);
  }
}
GST_END_TEST

/* The same frames give the same bytes in system memory and in a device chain. */
static std::vector<guint8>
pull_all (const char *desc)
{
  GstElement *pipeline = gst_parse_launch (desc, nullptr);
  fail_unless (pipeline != nullptr);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  std::vector<guint8> all;
  while (GstSample *s = gst_app_sink_pull_sample (GST_APP_SINK (sink))) {
    GstBuffer *b = gst_sample_get_buffer (s);
    GstVideoInfo info;
    gst_video_info_from_caps (&info, gst_sample_get_caps (s));
    GstVideoFrame f;
    fail_unless (gst_video_frame_map (&f, &info, b, GST_MAP_READ));
    for (int y = 0; y < GST_VIDEO_INFO_HEIGHT (&info); y++) {
      const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);
      all.insert (all.end (), row, row + GST_VIDEO_INFO_WIDTH (&info));
    }
    gst_video_frame_unmap (&f);
    gst_sample_unref (s);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return all;
}

GST_START_TEST (test_memories_give_identical_output)
{
  const char *src = "videotestsrc num-buffers=4 pattern=ball ! "
      "video/x-raw,format=BGRx,width=173,height=91";
  gchar *a = g_strdup_printf ("%s ! clsobel ! appsink name=sink sync=false", src);
  gchar *b = g_strdup_printf ("%s ! clupload ! clsobel ! cldownload ! appsink name=sink "
      "sync=false", src);
  std::vector<guint8> sys = pull_all (a), dev = pull_all (b);
  fail_unless_equals_int (sys.size (), 4 * 173 * 91);
  fail_unless (sys == dev);
  g_free (a);
  g_free (b);
}
GST_END_TEST

static GstClContext *
context_of (GstElement * pipeline, const char *name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  fail_unless (e != nullptr);
  GstClContext *c = gst_cl_base_transform_get_context (GST_CL_BASE_TRANSFORM (e));
  gst_object_unref (e);
  return c;
}

GST_START_TEST (test_elements_share_one_context)
{
  GstElement *pipeline;
  run_to_eos ("videotestsrc num-buffers=2 ! clupload name=u ! clsobel name=s ! "
      "cldownload name=d ! clsobel name=s2 ! fakesink name=sink", &pipeline);
  GstClContext *u = context_of (pipeline, "u"), *s = context_of (pipeline, "s"),
      *d = context_of (pipeline, "d"), *s2 = context_of (pipeline, "s2");
  fail_unless (u != nullptr);
  fail_unless (u == s && s == d && d == s2);
  for (GstClContext * c : {u, s, d, s2})
    gst_object_unref (c);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}
GST_END_TEST

struct AppContext {
  GstClContext *context;
  guint asked;
};

static GstBusSyncReply
answer_need_context (GstBus *, GstMessage * msg, gpointer data)
{
  auto *app = static_cast<AppContext *> (data);
  const gchar *type = nullptr;
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_NEED_CONTEXT &&
      gst_message_parse_context_type (msg, &type) &&
      !g_strcmp0 (type, GST_CL_CONTEXT_TYPE_STR)) {
    GstContext *c = gst_context_new_cl_context (app->context);
    gst_element_set_context (GST_ELEMENT (GST_MESSAGE_SRC (msg)), c);
    gst_context_unref (c);
    app->asked++;
  }
  return GST_BUS_PASS;
}

/* An application makes its own OpenCL context with the plain C API and hands
 * it to the pipeline from a bus sync handler; every element uses it. */
GST_START_TEST (test_application_context_is_used)
{
  cl_platform_id platform;
  cl_device_id device;
  fail_unless_equals_int (clGetPlatformIDs (1, &platform, nullptr), CL_SUCCESS);
  fail_unless_equals_int (clGetDeviceIDs (platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr),
      CL_SUCCESS);
  cl_int err;
  cl_context raw = clCreateContext (nullptr, 1, &device, nullptr, nullptr, &err);
  fail_unless_equals_int (err, CL_SUCCESS);
  GError *error = nullptr;
  AppContext app { gst_cl_context_new_wrapped (raw, device, nullptr, &error), 0 };
  fail_unless (app.context != nullptr, "%s", error ? error->message : "");
  clReleaseContext (raw);  /* the wrapper holds its own reference */
  fail_unless (gst_cl_context_get_cl_context (app.context) == raw);

  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=3 ! clupload name=u ! "
      "clsobel name=s ! cldownload name=d ! fakesink name=sink", nullptr);
  GstBus *bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, answer_need_context, &app, nullptr);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  fail_unless (app.asked >= 1);
  for (const char *name : {"u", "s", "d"}) {
    GstClContext *c = context_of (pipeline, name);
    fail_unless (c == app.context, "%s did not use the application's context", name);
    gst_object_unref (c);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_bus_set_sync_handler (bus, nullptr, nullptr, nullptr);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  gst_object_unref (app.context);
}
GST_END_TEST

/* After the pools have filled, frames allocate no device buffer. */
GST_START_TEST (test_pools_stop_allocating)
{
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=60 ! "
      "video/x-raw,format=RGB,width=64,height=48 ! clupload ! clsobel ! cldownload ! "
      "fakesink name=sink", nullptr);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  struct Seen { guint frames; guint64 allocs_at_10; } seen {0, 0};
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER,
      [] (GstPad *, GstPadProbeInfo * info, gpointer data) -> GstPadProbeReturn {
        auto *s = static_cast<Seen *> (data);
        GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
        fail_unless (gst_is_cl_memory (gst_buffer_peek_memory (buf, 0)),
            "frames should come from an OpenCL pool");
        if (++s->frames == 10)
          s->allocs_at_10 = stats_now ().allocations;
        return GST_PAD_PROBE_OK;
      }, &seen, nullptr);
  gst_object_unref (pad);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  fail_unless_equals_int (seen.frames, 60);
  fail_unless (seen.allocs_at_10 > 0);
  fail_unless_equals_uint64 (stats_now ().allocations, seen.allocs_at_10);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}
GST_END_TEST

GST_START_TEST (test_device_selection)
{
  GError *err = nullptr;
  for (const char *ok : {"", "auto", "cpu", "0", "PORTABLE"}) {
    GstClContext *c = gst_cl_context_new (ok, &err);
    fail_unless (c != nullptr, "'%s': %s", ok, err ? err->message : "");
    gst_object_unref (c);
  }
  for (const char *bad : {"99", "no-such-device-anywhere"}) {
    GstClContext *c = gst_cl_context_new (bad, &err);
    fail_unless (c == nullptr);
    fail_unless (err && strstr (err->message, "no OpenCL device matches"), "%s",
        err ? err->message : "no error");
    fail_unless (strstr (err->message, "0: "), "the message lists the devices");
    g_clear_error (&err);
  }
  /* The environment gives the default. */
  g_setenv ("GST_OPENCL_DEVICE", "no-such-device-anywhere", TRUE);
  fail_unless (gst_cl_context_new (nullptr, &err) == nullptr);
  g_clear_error (&err);
  g_unsetenv ("GST_OPENCL_DEVICE");

  /* An element whose device matches nothing fails to start, with an error. */
  GstElement *pipeline = gst_parse_launch ("videotestsrc ! clsobel device=no-such-device "
      "! fakesink", nullptr);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_PLAYING),
      GST_STATE_CHANGE_FAILURE);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != nullptr);
  GError *e = nullptr;
  gst_message_parse_error (msg, &e, nullptr);
  fail_unless (strstr (e->message, "no OpenCL device matches 'no-such-device'"), "%s",
      e->message);
  g_error_free (e);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}
GST_END_TEST

GST_START_TEST (test_programs_are_cached_and_failures_carry_the_log)
{
  GstClContext *c = gst_cl_context_new (nullptr, nullptr);
  const std::string ok = "__kernel void k (__global int *a) { a[0] = 1; }";
  unsigned before = gstcl::program_builds ();
  gstcl::program (c, ok, "");
  gstcl::program (c, ok, "");
  fail_unless_equals_int (gstcl::program_builds () - before, 1);
  gstcl::program (c, ok, "-D X=1");
  fail_unless_equals_int (gstcl::program_builds () - before, 2);
  bool thrown = false;
  try {
    gstcl::program (c, "__kernel void k (__global int *a) { a[0] = undeclared_thing; }", "");
  } catch (const gstcl::BuildError & e) {
    thrown = true;
    fail_unless (strstr (e.what (), "build log") && strstr (e.what (), "undeclared_thing"),
        "%s", e.what ());
  }
  fail_unless (thrown);
  gst_object_unref (c);
}
GST_END_TEST

/* A program actually compiled is announced by the element of the thread's
 * BuildScope (INFO: the device and the program's name); one from the cache,
 * or built outside any scope, is not. */
GST_START_TEST (test_builds_are_announced)
{
  GstClContext *c = gst_cl_context_new (nullptr, nullptr);
  GstElement *element = gst_element_factory_make ("identity", "announcer");
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (element, bus);
  const std::string tag = cltest::unique_tag ();
  const std::string source = "__kernel void announced_" + tag + " (__global int *a) "
      "{ a[0] = 1; }";
  auto pop_infos = [&] (const char *needle) {
    int n = 0;
    while (GstMessage * m = gst_bus_pop_filtered (bus, GST_MESSAGE_INFO)) {
      GError *error = nullptr;
      gchar *debug = nullptr;
      gst_message_parse_info (m, &error, &debug);
      fail_unless (GST_MESSAGE_SRC (m) == GST_OBJECT (element));
      fail_unless (strstr (error->message, gst_cl_context_get_device_name (c)) &&
          strstr (error->message, needle), "%s", error->message);
      fail_unless (debug && strstr (debug, error->message), "%s", GST_STR_NULL (debug));
      g_error_free (error);
      g_free (debug);
      gst_message_unref (m);
      n++;
    }
    return n;
  };
  {
    gstcl::BuildScope scope (element);
    gstcl::program (c, source, "", "test program " + tag);
    fail_unless_equals_int (pop_infos (("test program " + tag).c_str ()), 1);
    gstcl::program (c, source, "", "test program " + tag);   /* cached */
    fail_unless_equals_int (pop_infos (""), 0);
    gstcl::program (c, source, "-D X=1");   /* no name: the kernel's */
    fail_unless_equals_int (pop_infos (("announced_" + tag).c_str ()), 1);
  }
  gstcl::program (c, source, "-D X=2");     /* no scope */
  fail_unless_equals_int (pop_infos (""), 0);
  gst_element_set_bus (element, nullptr);
  gst_object_unref (bus);
  gst_object_unref (element);
  gst_object_unref (c);
}
GST_END_TEST

/* BackgroundBuild: a program from the cache is ready at once; a new one
 * builds on another thread and is announced when started; a failure comes
 * out of take() with the build log; a build under way can be dropped. */
GST_START_TEST (test_background_builds)
{
  GstClContext *c = gst_cl_context_new (nullptr, nullptr);
  const std::string tag = cltest::unique_tag ();
  const std::string source = "__kernel void bg_" + tag + " (__global int *a) { a[0] = 1; }";
  gstcl::program (c, source, "");
  const unsigned started = gstcl::background_builds ();
  {
    gstcl::BackgroundBuild build;
    fail_if (build.pending ());
    build.start (nullptr, c, source, "");
    fail_unless (build.pending () && build.ready ());
    fail_unless (build.take () () != nullptr);
    fail_if (build.pending ());
    fail_unless_equals_int (gstcl::background_builds (), started);

    build.start (nullptr, c, source, "-D NEW=1");
    fail_unless (build.pending ());
    fail_unless_equals_int (gstcl::background_builds (), started + 1);
    gstcl::wait_for_background_builds ();
    fail_unless (build.ready ());
    const unsigned builds = gstcl::program_builds ();
    fail_unless (build.take () () != nullptr);
    fail_unless (gstcl::cached_program (c, source, "-D NEW=1") () != nullptr);
    fail_unless_equals_int (gstcl::program_builds (), builds);

    build.start (nullptr, c, "__kernel void k (__global int *a) { a[0] = bad_" + tag + "; }",
        "");
    bool thrown = false;
    try {
      build.take ();   /* waits */
    } catch (const gstcl::BuildError & e) {
      thrown = strstr (e.what (), ("bad_" + tag).c_str ()) != nullptr;
    }
    fail_unless (thrown);
    fail_if (build.pending ());

    build.start (nullptr, c, source, "-D DROPPED=1");
    build.cancel ();
    fail_if (build.pending ());
    build.start (nullptr, c, source, "-D LEFT=1");
  }   /* destroyed with a build under way */
  gstcl::wait_for_background_builds ();
  gst_object_unref (c);
}
GST_END_TEST

/* Host and device views stay coherent, and only stale views transfer. */
GST_START_TEST (test_memory_transfers_on_demand)
{
  GstClContext *c = gst_cl_context_new (nullptr, nullptr);
  GstAllocator *alloc = gst_cl_allocator_new (c);
  const GstClMemoryStats before_alloc = stats_now ();
  GstMemory *mem = gst_allocator_alloc (alloc, 4096, nullptr);
  fail_unless (gst_is_cl_memory (mem));
  /* live_bytes counts the device bytes of the buffers alive (docs/scale.md) */
  fail_unless_equals_uint64 (stats_now ().live_bytes - before_alloc.live_bytes, 4096);
  GstMapInfo map;
  fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE));
  for (int i = 0; i < 4096; i++)
    map.data[i] = (guint8) (i * 7);
  gst_memory_unmap (mem, &map);

  GstClMemoryStats s0 = stats_now ();
  fail_unless (gst_memory_map (mem, &map, (GstMapFlags) (GST_MAP_READ | GST_MAP_CL)));
  fail_unless (map.data != nullptr);
  gst_memory_unmap (mem, &map);
  GstClMemoryStats s1 = stats_now ();
  fail_unless_equals_uint64 (s1.uploads - s0.uploads, 1);
  /* Unchanged: a second device map and a host read move nothing. */
  fail_unless (gst_memory_map (mem, &map, (GstMapFlags) (GST_MAP_READ | GST_MAP_CL)));
  gst_memory_unmap (mem, &map);
  fail_unless (gst_memory_map (mem, &map, GST_MAP_READ));
  gst_memory_unmap (mem, &map);
  GstClMemoryStats s2 = stats_now ();
  fail_unless_equals_uint64 (s2.uploads, s1.uploads);
  fail_unless_equals_uint64 (s2.downloads, s1.downloads);

  /* GST_MAP_CL gives the cl_mem itself, also for a memory with an offset. */
  fail_unless (gst_memory_map (mem, &map, (GstMapFlags) (GST_MAP_READ | GST_MAP_CL)));
  cl_mem handle = (cl_mem) map.data;
  gst_memory_unmap (mem, &map);
  GstMemory *sub = gst_memory_copy (mem, 0, -1);
  gst_memory_resize (sub, 64, 1024);
  fail_unless (gst_memory_map (sub, &map, (GstMapFlags) (GST_MAP_READ | GST_MAP_CL)));
  cl_mem sub_handle = (cl_mem) map.data;
  gst_memory_unmap (sub, &map);
  fail_unless (clRetainMemObject (sub_handle) == CL_SUCCESS, "not a cl_mem");
  clReleaseMemObject (sub_handle);
  fail_unless (handle != sub_handle);
  fail_unless (gst_memory_map (sub, &map, GST_MAP_READ));
  fail_unless_equals_int (map.data[0], (guint8) (64 * 7));
  gst_memory_unmap (sub, &map);
  gst_memory_unref (sub);
  s2 = stats_now ();

  /* A device-side copy reads back with the same bytes. */
  GstMemory *copy = gst_memory_copy (mem, 16, 1000);
  fail_unless (copy != nullptr && gst_is_cl_memory (copy));
  fail_unless (gst_memory_map (copy, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, 1000);
  for (int i = 0; i < 1000; i++)
    fail_unless_equals_int (map.data[i], (guint8) ((i + 16) * 7));
  gst_memory_unmap (copy, &map);
  fail_unless_equals_uint64 (stats_now ().downloads - s2.downloads, 1);

  gst_memory_unref (copy);
  gst_memory_unref (mem);
  fail_unless_equals_uint64 (stats_now ().live_bytes, before_alloc.live_bytes);
  gst_object_unref (alloc);
  gst_object_unref (c);
}
GST_END_TEST

/* Caps the element cannot take fail negotiation with an error, no crash. */
GST_START_TEST (test_unsupported_caps_fail_cleanly)
{
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=2 ! "
      "video/x-raw,format=YUY2 ! clsobel ! fakesink", nullptr);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}
GST_END_TEST

/* A stream whose segment is in bytes (filesrc or multifilesrc ! capsfilter,
 * appsrc format=bytes): every filter runs its frames without a critical
 * warning (gst-check fails the test on one), frames with and without
 * timestamps; a control binding follows the frames' timestamps as they are
 * (a byte segment maps none to a stream time). */
GST_START_TEST (test_bytes_segment)
{
  struct Case { const char *element, *in, *out; };
  static const Case cases[] = {
    {"cldebayer", "video/x-bayer,format=rggb,width=16,height=8,framerate=30/1",
     "video/x-raw,format=RGBA"},
    {"clsobel", "video/x-raw,format=RGBA,width=16,height=8,framerate=30/1", "video/x-raw"},
    {"clconvert", "video/x-raw,format=RGBA,width=16,height=8,framerate=30/1",
     "video/x-raw,format=I420,width=8,height=4"},
    {"clconvolve bias=3", "video/x-raw,format=GRAY8,width=16,height=8,framerate=30/1",
     "video/x-raw,format=GRAY8"},
  };
  GstSegment bytes;
  gst_segment_init (&bytes, GST_FORMAT_BYTES);
  for (const Case &c : cases) {
    GstHarness *h = gst_harness_new_parse (c.element);
    cltest::share_context (h->element);
    gst_harness_set_sink_caps_str (h, c.out);
    gst_harness_set_src_caps_str (h, c.in);
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&bytes)));
    GstVideoInfo info;
    GstCaps *caps = gst_caps_from_string (c.in);
    fail_unless (gst_cl_video_info_from_caps (&info, caps));
    gst_caps_unref (caps);
    for (int i = 0; i < 3; i++) {
      GstBuffer *in = gst_buffer_new_allocate (nullptr, GST_VIDEO_INFO_SIZE (&info), nullptr);
      gst_buffer_memset (in, 0, 60, GST_VIDEO_INFO_SIZE (&info));
      GST_BUFFER_OFFSET (in) = i * GST_VIDEO_INFO_SIZE (&info);
      if (i > 0)
        GST_BUFFER_PTS (in) = i * GST_SECOND;
      fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
      GstBuffer *out = gst_harness_pull (h);
      fail_unless (out != nullptr, "%s: no output", c.element);
      gst_buffer_unref (out);
    }
    gst_harness_teardown (h);
  }

  /* clconvolve's bias from a control binding, at each frame's timestamp */
  GstHarness *h = gst_harness_new_parse ("clconvolve kernel=<0,0,0,0,1,0,0,0,0>");
  cltest::share_context (h->element);
  const std::vector<double> biases = {0.0, 40.0, -25.0};
  cltest::bind_steps (h, "clconvolve", "bias", biases);
  gst_harness_set_src_caps_str (h, cltest::caps_string ("GRAY8", 4, 2).c_str ());
  GstVideoInfo info = cltest::video_info ("GRAY8", 4, 2);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&bytes)));
  for (guint i = 0; i < biases.size (); i++) {
    GstBuffer *in = gst_buffer_new_allocate (nullptr, 8, nullptr);
    gst_buffer_memset (in, 0, 100, 8);
    GST_BUFFER_PTS (in) = i * GST_SECOND;
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    GstBuffer *out = gst_harness_pull (h);
    GstVideoFrame frame;
    fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
    fail_unless_equals_int (*(const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0),
        100 + (int) biases[i]);
    gst_video_frame_unmap (&frame);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
  cltest::drop_shared_context ();
}
GST_END_TEST

static Suite *
runtime_suite (void)
{
  Suite *s = suite_create ("runtime");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_system_memory_pipeline);
  tcase_add_test (tc, test_chain_has_no_host_transfer);
  tcase_add_test (tc, test_memories_give_identical_output);
  tcase_add_test (tc, test_elements_share_one_context);
  tcase_add_test (tc, test_application_context_is_used);
  tcase_add_test (tc, test_pools_stop_allocating);
  tcase_add_test (tc, test_device_selection);
  tcase_add_test (tc, test_programs_are_cached_and_failures_carry_the_log);
  tcase_add_test (tc, test_builds_are_announced);
  tcase_add_test (tc, test_background_builds);
  tcase_add_test (tc, test_memory_transfers_on_demand);
  tcase_add_test (tc, test_unsupported_caps_fail_cleanly);
  tcase_add_test (tc, test_bytes_segment);
  return s;
}

GST_CHECK_MAIN (runtime);
