/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reliability of every element: state changes in any order, linked or not;
 * nothing lost (N frames in, N out, timestamps, flags, offsets and metas
 * kept); flushing seeks while streaming; allocation failures; several
 * pipelines in several threads on one shared context. */
#include "cltest.h"

#include <gst/opencl/opencl.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

struct Case {
  std::string element;     /* as gst-launch takes it */
  std::string input_caps;  /* what the test source produces */
};

/* Every element of the plugin with the first format its template lists,
 * and one chain. */
static std::vector<Case>
all_cases ()
{
  std::vector<Case> cases;
  for (const std::string & name : cltest::plugin_elements ())
    cases.push_back ({name, cltest::caps_string (cltest::template_formats (name)[0], 67, 33)});
  cases.push_back ({"clupload ! clsobel ! cldownload",
        "video/x-raw,format=GRAY8,width=67,height=33"});
  return cases;
}

static GstElement *
launch (const gchar * desc)
{
  GError *err = nullptr;
  GstElement *p = gst_parse_launch (desc, &err);
  fail_unless (p && !err, "%s: %s", desc, err ? err->message : "");
  return p;
}

static void
set_state_checked (GstElement * e, GstState s)
{
  GstStateChangeReturn r = gst_element_set_state (e, s);
  fail_if (r == GST_STATE_CHANGE_FAILURE, "%s -> %s failed", GST_OBJECT_NAME (e),
      gst_element_state_get_name (s));
  /* Long enough for a first preroll under helgrind, where PoCL compiles
   * each program and kernel under the tool (for the tool's CPU, so its
   * cache of the plain runs does not serve); a hang still fails. */
  if (r == GST_STATE_CHANGE_ASYNC)
    fail_unless_equals_int (gst_element_get_state (e, nullptr, nullptr, 180 * GST_SECOND),
        GST_STATE_CHANGE_SUCCESS);
}

/* Pops the first error or EOS; fails on timeout. */
static GstMessageType
wait_end (GstElement * pipeline, GstClockTime timeout = 60 * GST_SECOND)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, timeout,
      (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  fail_unless (msg != nullptr, "no EOS or error in time: a hang");
  GstMessageType t = GST_MESSAGE_TYPE (msg);
  if (t == GST_MESSAGE_ERROR) {
    GError *e = nullptr;
    gst_message_parse_error (msg, &e, nullptr);
    GST_INFO ("error: %s", e->message);
    g_error_free (e);
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  return t;
}

GST_START_TEST (test_state_cycling_unlinked)
{
  const std::vector<std::string> factories = cltest::plugin_elements ();
  const GstState orders[][6] = {
    {GST_STATE_READY, GST_STATE_NULL, GST_STATE_READY, GST_STATE_NULL},
    {GST_STATE_PAUSED, GST_STATE_NULL, GST_STATE_PLAYING, GST_STATE_NULL},
    {GST_STATE_PLAYING, GST_STATE_PAUSED, GST_STATE_PLAYING, GST_STATE_READY,
        GST_STATE_PLAYING, GST_STATE_NULL},
  };
  for (const std::string & name : factories) {
    const char *f = name.c_str ();
    GstElement *e = gst_element_factory_make (f, nullptr);
    fail_unless (e != nullptr, "%s", f);
    for (auto &order : orders)
      for (GstState s : order)
        if (s != GST_STATE_VOID_PENDING)
          set_state_checked (e, s);
    set_state_checked (e, GST_STATE_NULL);
    gst_object_unref (e);
  }
}
GST_END_TEST

GST_START_TEST (test_state_cycling_linked)
{
  for (const Case & c : all_cases ()) {
    /* Not live: a live source once left the pipeline short of preroll for
     * 30 s under load (not reproduced since; tracked in the reliability
     * issue), and a flaky CI helps nobody. */
    gchar *desc = g_strdup_printf ("videotestsrc ! %s ! %s ! fakesink sync=false",
        c.input_caps.c_str (), c.element.c_str ());
    GstElement *p = launch (desc);
    for (int round = 0; round < 3; round++) {
      set_state_checked (p, GST_STATE_PLAYING);
      g_usleep (50 * 1000);
      set_state_checked (p, round == 1 ? GST_STATE_READY : GST_STATE_PAUSED);
      set_state_checked (p, GST_STATE_PLAYING);
      g_usleep (20 * 1000);
      set_state_checked (p, GST_STATE_NULL);
    }
    gst_object_unref (p);
    g_free (desc);
  }
}
GST_END_TEST

/* N frames in, N frames out, each with its timestamps, flags, offsets and
 * metas; the harness pushes frames it made in system memory. */
GST_START_TEST (test_nothing_lost)
{
  const guint frames = 25;
  for (const Case & c : all_cases ()) {
    GstHarness *h = gst_harness_new_parse (c.element.c_str ());
    gst_harness_set_src_caps_str (h, c.input_caps.c_str ());
    GstCaps *caps = gst_caps_from_string (c.input_caps.c_str ());
    GstVideoInfo info;
    fail_unless (gst_cl_video_info_from_caps (&info, caps));
    const bool bayer = gst_structure_has_name (gst_caps_get_structure (caps, 0), "video/x-bayer");
    gst_caps_unref (caps);
    GstCaps *ref_caps = gst_caps_from_string ("timestamp/x-test");
    for (guint i = 0; i < frames; i++) {
      GstBuffer *b = cltest::random_frame (&info, i % 2 && !bayer ? 7 : 0, i);
      GST_BUFFER_PTS (b) = i * 40 * GST_MSECOND;
      GST_BUFFER_DTS (b) = i * 40 * GST_MSECOND - GST_MSECOND;
      GST_BUFFER_DURATION (b) = 40 * GST_MSECOND;
      GST_BUFFER_OFFSET (b) = i;
      GST_BUFFER_OFFSET_END (b) = i + 1;
      if (i % 3 == 0)
        GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DELTA_UNIT);
      if (i == 0)
        GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DISCONT);
      gst_buffer_add_reference_timestamp_meta (b, ref_caps, i * GST_SECOND,
          GST_CLOCK_TIME_NONE);
      fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
    }
    for (guint i = 0; i < frames; i++) {
      GstBuffer *b = gst_harness_pull (h);
      fail_unless (b != nullptr, "%s: frame %u lost", c.element.c_str (), i);
      fail_unless_equals_uint64 (GST_BUFFER_PTS (b), i * 40 * GST_MSECOND);
      fail_unless_equals_uint64 (GST_BUFFER_DTS (b), i * 40 * GST_MSECOND - GST_MSECOND);
      fail_unless_equals_uint64 (GST_BUFFER_DURATION (b), 40 * GST_MSECOND);
      fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b), i);
      fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (b), i + 1);
      fail_unless_equals_int (GST_BUFFER_FLAG_IS_SET (b, GST_BUFFER_FLAG_DELTA_UNIT),
          i % 3 == 0);
      fail_unless_equals_int (GST_BUFFER_FLAG_IS_SET (b, GST_BUFFER_FLAG_DISCONT), i == 0);
      GstReferenceTimestampMeta *m = gst_buffer_get_reference_timestamp_meta (b, ref_caps);
      fail_unless (m != nullptr, "%s: meta lost on frame %u", c.element.c_str (), i);
      fail_unless_equals_uint64 (m->timestamp, i * GST_SECOND);
      gst_buffer_unref (b);
    }
    fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
    gst_caps_unref (ref_caps);
    gst_harness_teardown (h);
  }
}
GST_END_TEST

/* Flushing seeks while frames flow: no deadlock, and the stream still ends. */
GST_START_TEST (test_flushing_seeks_while_streaming)
{
  for (const Case & c : all_cases ()) {
    gchar *desc = g_strdup_printf ("videotestsrc num-buffers=400 ! %s ! %s ! "
        "fakesink sync=false", c.input_caps.c_str (), c.element.c_str ());
    GstElement *p = launch (desc);
    set_state_checked (p, GST_STATE_PAUSED);
    set_state_checked (p, GST_STATE_PLAYING);
    for (int i = 0; i < 15; i++) {
      fail_unless (gst_element_seek_simple (p, GST_FORMAT_TIME,
              (GstSeekFlags) (GST_SEEK_FLAG_FLUSH | (i % 2 ? GST_SEEK_FLAG_ACCURATE : 0)),
              (i % 5) * 100 * GST_MSECOND));
      g_usleep (5 * 1000);
    }
    fail_unless_equals_int (wait_end (p), GST_MESSAGE_EOS);
    set_state_checked (p, GST_STATE_NULL);
    gst_object_unref (p);
    g_free (desc);
  }
}
GST_END_TEST

/* A failing device allocation, whichever one it is, gives an error, not a
 * crash; the next run of the same pipeline works. */
GST_START_TEST (test_allocation_failure_and_recovery)
{
  GstElement *p = launch ("videotestsrc num-buffers=40 ! video/x-raw,width=64,height=48 ! "
      "clupload ! clsobel ! cldownload ! fakesink sync=false");
  GstClMemoryStats before, after;
  gst_cl_memory_get_stats (&before);
  set_state_checked (p, GST_STATE_PLAYING);
  fail_unless_equals_int (wait_end (p), GST_MESSAGE_EOS);
  set_state_checked (p, GST_STATE_NULL);
  gst_cl_memory_get_stats (&after);
  const guint allocations = after.allocations - before.allocations;
  fail_unless (allocations >= 2);
  for (guint n = 1; n <= allocations; n++) {
    gst_cl_memory_fail_allocation_after (n);
    gst_element_set_state (p, GST_STATE_PLAYING);
    fail_unless_equals_int (wait_end (p), GST_MESSAGE_ERROR);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_cl_memory_fail_allocation_after (0);
    set_state_checked (p, GST_STATE_PLAYING);
    fail_unless_equals_int (wait_end (p), GST_MESSAGE_EOS);
    set_state_checked (p, GST_STATE_NULL);
  }
  gst_object_unref (p);
}
GST_END_TEST

static GstBusSyncReply
share_context (GstBus *, GstMessage * msg, gpointer data)
{
  const gchar *type = nullptr;
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_NEED_CONTEXT &&
      gst_message_parse_context_type (msg, &type) &&
      !g_strcmp0 (type, GST_CL_CONTEXT_TYPE_STR)) {
    GstContext *c = gst_context_new_cl_context (GST_CL_CONTEXT (data));
    gst_element_set_context (GST_ELEMENT (GST_MESSAGE_SRC (msg)), c);
    gst_context_unref (c);
  }
  return GST_BUS_PASS;
}

/* Pipelines in several threads on one context, created and destroyed in a
 * loop. */
GST_START_TEST (test_concurrent_pipelines_share_a_context)
{
  GstClContext *ctx = gst_cl_context_new (nullptr, nullptr);
  fail_unless (ctx != nullptr);
  /* As an application does: the plugin is loaded before the threads start
   * (otherwise helgrind reports the dynamic loader's relocations, made under
   * a lock the reading threads never take, as races). */
  GstPlugin *plugin = gst_plugin_load_by_name ("opencl");
  fail_unless (plugin != nullptr);
  gst_object_unref (plugin);
  std::vector<std::thread> threads;
  std::vector<int> eos (4, 0);
  for (int t = 0; t < 4; t++)
    threads.emplace_back ([&, t] {
      for (int round = 0; round < 5; round++) {
        GstElement *p = gst_parse_launch ("videotestsrc num-buffers=20 ! "
            "video/x-raw,format=RGBA,width=96,height=64 ! clupload ! clsobel ! "
            "cldownload ! fakesink sync=false", nullptr);
        GstBus *bus = gst_element_get_bus (p);
        gst_bus_set_sync_handler (bus, share_context, ctx, nullptr);
        gst_element_set_state (p, GST_STATE_PLAYING);
        /* Only EOS is popped: an error leaves it missing and the count short.
         * (Reading the message's fields here would also be a hand-over
         * through GstBus that helgrind cannot see.) */
        /* Under helgrind PoCL compiles for the tool's CPU (a cache of its
         * own) under the tool: the first rounds wait minutes; a hang still
         * fails. */
        GstMessage *m = gst_bus_timed_pop_filtered (bus, 300 * GST_SECOND, GST_MESSAGE_EOS);
        if (m) {
          eos[t]++;
          gst_message_unref (m);
        }
        gst_element_set_state (p, GST_STATE_NULL);
        gst_bus_set_sync_handler (bus, nullptr, nullptr, nullptr);
        gst_object_unref (bus);
        gst_object_unref (p);
      }
    });
  for (auto &th : threads)
    th.join ();
  for (int t = 0; t < 4; t++)
    fail_unless_equals_int (eos[t], 5);
  gst_object_unref (ctx);
}
GST_END_TEST

/* The application changes properties from its own threads while the
 * streaming thread reads them: settings live under a lock, negotiated state
 * does not change under the streaming thread's feet. */
GST_START_TEST (test_properties_set_while_streaming)
{
  GstElement *p = launch ("videotestsrc num-buffers=120 ! "
      "video/x-raw,format=RGBA,width=48,height=32 ! clupload ! clsobel name=s ! "
      "clconvolve name=c ! clfir name=f ! clkernel name=k ! cldownload ! "
      "fakesink sync=false");
  GstElement *s = gst_bin_get_by_name (GST_BIN (p), "s");
  GstElement *c = gst_bin_get_by_name (GST_BIN (p), "c");
  GstElement *f = gst_bin_get_by_name (GST_BIN (p), "f");
  GstElement *k = gst_bin_get_by_name (GST_BIN (p), "k");
  const char *sources[] = {
    "float4 filter (image_t img, int x, int y) { return 1.0f - read_pixel (img, x, y); }",
    "float4 filter (image_t img, int x, int y) { return read_pixel (img, x, y); }",
  };
  gst_util_set_object_arg (G_OBJECT (c), "kernel", "<1,2,1,2,4,2,1,2,1>");
  set_state_checked (p, GST_STATE_PLAYING);
  std::atomic<bool> done {false};
  std::thread other ([&] {
    for (int i = 0; !done; i++) {
      g_object_set (s, "scale", 0.5 + (i % 4), "threshold", (gdouble) (i % 7), nullptr);
      gst_util_set_object_arg (G_OBJECT (f), "coefficients",
          i % 2 ? "<0,0,0,0,1,0,0,0,0>" : "<1,1,1,1,1,1,1,1,1>");
      g_usleep (500);
    }
  });
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *end = nullptr;
  for (int i = 0; !end; i++) {
    gst_util_set_object_arg (G_OBJECT (c), "kernel", i % 2 ? "<0,0,0,0,1,0,0,0,0>" :
        "<1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1>");
    g_object_set (k, "source", sources[i % 2], nullptr);
    gst_util_set_object_arg (G_OBJECT (s), "border", i % 2 ? "reflect" : "replicate");
    end = gst_bus_timed_pop_filtered (bus, 2 * GST_MSECOND, GST_MESSAGE_EOS);
  }
  done = true;
  other.join ();
  gst_message_unref (end);
  /* No warning or error was posted: every value set was valid. */
  GstMessage *bad = gst_bus_pop_filtered (bus,
      (GstMessageType) (GST_MESSAGE_ERROR | GST_MESSAGE_WARNING));
  fail_unless (bad == nullptr, "unexpected %s", bad ? GST_MESSAGE_TYPE_NAME (bad) : "");
  gst_object_unref (bus);
  set_state_checked (p, GST_STATE_NULL);
  for (GstElement *e : {s, c, f, k})
    gst_object_unref (e);
  gst_object_unref (p);
}
GST_END_TEST

/* ------------------------------------------- same input, same bytes */

/* An element on frames whose rows are padded, and the output caps it is
 * asked for (without memory feature). Every element of the plugin needs one:
 * test_padded_cases_cover_every_element names one without. */
struct PaddedCase {
  const char *element;
  const char *input_caps;
  const char *output_caps;
  bool cl_out, system_out;  /* the output memories the element offers */
};

/* Rows of 37 pixels: GRAY8 rows are 40 bytes, RGB 112, GRAY16_LE 76, so
 * every output has padding; raw input carries 5 more padding bytes a row
 * (random, described by a GstVideoMeta). */
#define RGB_37 "video/x-raw,format=RGB,width=37,height=23,framerate=30/1"
#define GRAY_37 "video/x-raw,format=GRAY8,width=37,height=23,framerate=30/1"
static const PaddedCase padded_cases[] = {
  {"clupload", RGB_37, "video/x-raw,format=RGB", true, false},
  {"cldownload", RGB_37, "video/x-raw,format=RGB", false, true},
  {"clsobel", RGB_37, "video/x-raw,format=GRAY8", true, true},
  {"clsobel output=dx", GRAY_37, "video/x-raw,format=GRAY16_LE", true, true},
  {"clkernel", RGB_37, "video/x-raw,format=RGB", true, true},
  {"clconvolve kernel=<1,2,1,2,4,2,1,2,1>", RGB_37, "video/x-raw,format=RGB", true, true},
  {"clconvolve kernel=<1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1> normalize=true",
      GRAY_37, "video/x-raw,format=GRAY8", true, true},
  {"clfir", GRAY_37, "video/x-raw,format=GRAY8", true, true},
  {"cldebayer", "video/x-bayer,format=rggb,width=37,height=23,framerate=30/1",
      "video/x-raw,format=RGB", true, true},
  {"cldebayer method=bilinear", "video/x-bayer,format=gbrg,width=37,height=23,"
      "framerate=30/1", "video/x-raw,format=GRAY8", true, true},
  {"clconvert", RGB_37, "video/x-raw,format=GRAY8", true, true},
  {"clconvert video-direction=90r", RGB_37, "video/x-raw,format=RGB", true, true},
  {"clpicture denoise=0.5 sharpen=1", RGB_37, "video/x-raw,format=RGB", true, true},
};

/* The list above is written by hand (each element with the properties and
 * caps that give padded output); the registry says whether it is complete. */
GST_START_TEST (test_padded_cases_cover_every_element)
{
  for (const std::string & name : cltest::plugin_elements ()) {
    bool found = false;
    for (const PaddedCase & c : padded_cases) {
      const std::string element = c.element;
      found = found || element.substr (0, element.find (' ')) == name;
    }
    fail_unless (found, "%s has no case in padded_cases (tests/test_reliability.cpp)",
        name.c_str ());
  }
}
GST_END_TEST

/* The bytes of each output buffer of `frames` padded frames through a fresh
 * element (so fresh pools, on the test's context); checks that every byte outside the
 * pixels is zero. */
static std::vector<std::vector<guint8>>
run_padded (const PaddedCase & c, bool cl_out, guint frames, const std::string & what)
{
  GstHarness *h = gst_harness_new_parse (c.element);
  cltest::share_context (h->element);  /* each program built once */
  gst_harness_set_src_caps_str (h, c.input_caps);
  std::string out_caps = c.output_caps;
  if (cl_out)
    out_caps.insert (out_caps.find (','), "(memory:OpenCLMemory)");
  gst_harness_set_sink_caps_str (h, out_caps.c_str ());
  GstCaps *caps = gst_caps_from_string (c.input_caps);
  GstVideoInfo in_info;
  fail_unless (gst_cl_video_info_from_caps (&in_info, caps));
  const bool bayer = gst_structure_has_name (gst_caps_get_structure (caps, 0), "video/x-bayer");
  gst_caps_unref (caps);
  for (guint i = 0; i < frames; i++)
    fail_unless_equals_int (gst_harness_push (h, cltest::random_frame (&in_info,
                bayer ? 0 : 5, 1000 + i)), GST_FLOW_OK);
  GstCaps *negotiated = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (negotiated != nullptr);
  fail_unless_equals_int (gst_caps_features_contains (gst_caps_get_features (negotiated, 0),
          GST_CAPS_FEATURE_MEMORY_CL), cl_out);
  GstVideoInfo out_info;
  fail_unless (gst_video_info_from_caps (&out_info, negotiated));
  gst_caps_unref (negotiated);
  std::vector<std::vector<guint8>> outputs;
  for (guint i = 0; i < frames; i++) {
    GstBuffer *b = gst_harness_pull (h);
    fail_unless (b != nullptr, "%s: frame %u lost", what.c_str (), i);
    GstVideoInfo layout = out_info;
    if (GstVideoMeta * meta = gst_buffer_get_video_meta (b))
      for (guint p = 0; p < meta->n_planes; p++) {
        GST_VIDEO_INFO_PLANE_OFFSET (&layout, p) = meta->offset[p];
        GST_VIDEO_INFO_PLANE_STRIDE (&layout, p) = meta->stride[p];
      }
    GstMapInfo map;
    fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
    std::vector<bool> pixel (map.size, false);
    const gsize row_bytes = (gsize) GST_VIDEO_INFO_COMP_WIDTH (&out_info, 0) *
        GST_VIDEO_INFO_COMP_PSTRIDE (&out_info, 0);
    fail_unless_equals_int (GST_VIDEO_INFO_N_PLANES (&out_info), 1);
    for (int y = 0; y < GST_VIDEO_INFO_HEIGHT (&out_info); y++) {
      const gsize row = GST_VIDEO_INFO_PLANE_OFFSET (&layout, 0) +
          (gsize) y * GST_VIDEO_INFO_PLANE_STRIDE (&layout, 0);
      fail_unless (row + row_bytes <= map.size);
      for (gsize x = 0; x < row_bytes; x++)
        pixel[row + x] = true;
    }
    gsize padding = 0;
    for (gsize j = 0; j < map.size; j++)
      if (!pixel[j]) {
        padding++;
        fail_unless (map.data[j] == 0, "%s: frame %u, byte %" G_GSIZE_FORMAT " of %"
            G_GSIZE_FORMAT " is padding but %u, not 0", what.c_str (), i, j, map.size,
            map.data[j]);
      }
    fail_unless (padding > 0, "%s: no padding to check", what.c_str ());
    outputs.emplace_back (map.data, map.data + map.size);
    gst_buffer_unmap (b, &map);
    gst_buffer_unref (b);
  }
  gst_harness_teardown (h);
  return outputs;
}

/* Identical input gives identical output buffers, every byte of them: row
 * padding included, for every element, both output memories and both ways
 * the host sees device memory (mapped, as on CPUs and iGPUs, and staging,
 * as on discrete GPUs). */
GST_START_TEST (test_same_input_same_bytes)
{
  const gchar *own_mode = g_getenv ("GST_OPENCL_MEMORY");
  const std::string own = own_mode ? own_mode : "";
  /* Both memory paths with the device's kernel shapes, and the GPU shapes
   * (which store whole vectors) on the mapped path. */
  const std::pair<const char *, const char *> runs[] = {
    {"mapped", nullptr}, {"staging", nullptr}, {"mapped", "gpu"},
  };
  for (auto run : runs) {
    g_setenv ("GST_OPENCL_MEMORY", run.first, TRUE);  /* read when a context is made */
    cltest::use_tuning (run.second);  /* also drops the shared context */
    for (const PaddedCase & c : padded_cases)
      for (bool cl_out : {true, false}) {
        if (!(cl_out ? c.cl_out : c.system_out))
          continue;
        const std::string what = std::string (c.element) + " -> " + c.output_caps +
            (cl_out ? " (OpenCL memory, " : " (system memory, ") + run.first +
            (run.second ? ", gpu shapes)" : ")");
        auto first = run_padded (c, cl_out, 3, what);
        auto second = run_padded (c, cl_out, 3, what);
        for (size_t i = 0; i < first.size (); i++)
          fail_unless (first[i] == second[i], "%s: frame %zu differs between runs",
              what.c_str (), i);
      }
  }
  if (own_mode)
    g_setenv ("GST_OPENCL_MEMORY", own.c_str (), TRUE);
  else
    g_unsetenv ("GST_OPENCL_MEMORY");
  cltest::use_tuning (nullptr);
  cltest::drop_shared_context ();
}
GST_END_TEST

/* ------------------------------------------- one mistake, one error */

static const char *const BROKEN_SOURCE =
    "float4 filter (image_t img, int x, int y) { return undeclared_gain_42; }";

/* "source: message" of an ERROR message; its debug string in `debug`. */
static std::string
describe_error (GstMessage * m, std::string * debug = nullptr)
{
  GError *e = nullptr;
  gchar *d = nullptr;
  gst_message_parse_error (m, &e, &d);
  std::string text = std::string (GST_OBJECT_NAME (GST_MESSAGE_SRC (m))) + ": " + e->message;
  if (debug)
    *debug = d ? d : "";
  g_error_free (e);
  g_free (d);
  return text;
}

/* The ERROR messages on `bus` now, in order; with their debug strings in
 * `debug` if given. */
static std::vector<std::string>
pop_errors (GstBus * bus, std::vector<std::string> *debug = nullptr)
{
  std::vector<std::string> errors;
  while (GstMessage * m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR)) {
    std::string d;
    errors.push_back (describe_error (m, &d));
    if (debug)
      debug->push_back (d);
    gst_message_unref (m);
  }
  return errors;
}

static std::string
joined (const std::vector<std::string> & v)
{
  std::string out;
  for (const auto & s : v)
    out += "\n  " + s;
  return out;
}

/* Plays `p` until its first error and 300 ms of quiet after the last one
 * (or EOS), then stops it; returns every error it posted, in order. */
static std::vector<std::string>
errors_of_run (GstElement * p)
{
  GstBus *bus = gst_element_get_bus (p);
  gst_element_set_state (p, GST_STATE_PLAYING);
  std::vector<std::string> errors;
  for (;;) {
    GstMessage *m = gst_bus_timed_pop_filtered (bus,
        errors.empty () ? 60 * GST_SECOND : 300 * GST_MSECOND,
        (GstMessageType) (GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
    if (!m) {
      fail_if (errors.empty (), "no error and no EOS in time: a hang");
      break;
    }
    const bool eos = GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS;
    if (!eos)
      errors.push_back (describe_error (m));
    gst_message_unref (m);
    if (eos)
      break;
  }
  set_state_checked (p, GST_STATE_NULL);
  for (auto & e : pop_errors (bus))
    errors.push_back (e);
  gst_object_unref (bus);
  return errors;
}

static bool
from_source (const std::string & error)
{
  return error.rfind ("videotestsrc", 0) == 0;
}

/* One mistake, one error message. An element that has posted an error
 * posts no other for that stream, however many buffers (and so however many
 * renegotiations or failed frames) upstream sends after it; it posts again
 * when the stream starts over. */
GST_START_TEST (test_one_mistake_one_error)
{
  /* A program that does not build, 4 frames pushed: one error, with the
   * build log in its debug string. */
  {
    GstHarness *h = gst_harness_new ("clkernel");
    cltest::share_context (h->element);
    GstBus *bus = gst_bus_new ();
    gst_element_set_bus (h->element, bus);
    g_object_set (h->element, "source", BROKEN_SOURCE, nullptr);
    gst_harness_set_src_caps_str (h, cltest::caps_string ("RGBA", 16, 8).c_str ());
    GstVideoInfo info = cltest::video_info ("RGBA", 16, 8);
    for (int i = 0; i < 4; i++)
      fail_if (gst_harness_push (h, cltest::random_frame (&info, 0, i)) == GST_FLOW_OK);
    std::vector<std::string> debug;
    auto errors = pop_errors (bus, &debug);
    fail_unless_equals_int (errors.size (), 1);
    fail_unless (debug[0].find ("undeclared_gain_42") != std::string::npos,
        "no build log in '%s'", debug[0].c_str ());
    gst_element_set_bus (h->element, nullptr);
    gst_object_unref (bus);
    gst_harness_teardown (h);
  }

  /* Buffers half as long as their caps say, 3 in a row, into every
   * element: one error each. */
  for (const Case & c : all_cases ()) {
    GstHarness *h = gst_harness_new_parse (c.element.c_str ());
    cltest::share_context (h->element);
    GstBus *bus = gst_bus_new ();
    gst_element_set_bus (h->element, bus);
    gst_harness_set_src_caps_str (h, c.input_caps.c_str ());
    GstCaps *caps = gst_caps_from_string (c.input_caps.c_str ());
    GstVideoInfo info;
    fail_unless (gst_cl_video_info_from_caps (&info, caps));
    gst_caps_unref (caps);
    for (int i = 0; i < 3; i++) {
      GstBuffer *b = gst_buffer_new_allocate (nullptr, GST_VIDEO_INFO_SIZE (&info) / 2, nullptr);
      gst_buffer_memset (b, 0, 0x55, gst_buffer_get_size (b));
      fail_if (gst_harness_push (h, b) == GST_FLOW_OK, "%s: short buffer taken", c.element.c_str ());
    }
    auto errors = pop_errors (bus);
    fail_unless (errors.size () == 1, "%s: %zu errors for one mistake:%s", c.element.c_str (),
        errors.size (), joined (errors).c_str ());
    gst_element_set_bus (h->element, nullptr);
    gst_object_unref (bus);
    gst_harness_teardown (h);
  }

  /* Bayer frames below 2x2: cldebayer's caps say it does not take them, so
   * such a pipeline does not even link; with the caps set after linking,
   * negotiation refuses them and the source's not-negotiated error is the
   * only one (8 before: cldebayer posted one for each renegotiation). */
  {
    const char *desc = "videotestsrc num-buffers=20 ! "
        "video/x-bayer,format=rggb,width=1,height=131 ! clupload ! cldebayer ! fakesink";
    GError *err = nullptr;
    GstElement *p = gst_parse_launch (desc, &err);
    fail_unless (err != nullptr && g_error_matches (err, GST_PARSE_ERROR,
            GST_PARSE_ERROR_LINK), "%s: linked", desc);
    g_clear_error (&err);
    if (p)
      gst_object_unref (p);
    p = launch ("videotestsrc num-buffers=20 ! capsfilter name=f ! clupload ! cldebayer ! "
        "fakesink");
    GstElement *f = gst_bin_get_by_name (GST_BIN (p), "f");
    gst_util_set_object_arg (G_OBJECT (f), "caps",
        "video/x-bayer,format=rggb,width=1,height=131");
    gst_object_unref (f);
    auto errors = errors_of_run (p);
    fail_unless (errors.size () == 1 && from_source (errors[0]),
        "%zu errors:%s", errors.size (), joined (errors).c_str ());
    gst_object_unref (p);
  }

  /* In a pipeline, a program that does not build: one error from clkernel,
   * the first. (GStreamer's source adds its own "Internal data stream error"
   * for the failed flow, as for any element's error.) Played again, the new
   * stream reports the mistake again, once. */
  {
    GstElement *p = launch ("videotestsrc num-buffers=20 ! "
        "video/x-raw,format=RGBA,width=16,height=8 ! clkernel name=k ! fakesink");
    GstElement *k = gst_bin_get_by_name (GST_BIN (p), "k");
    g_object_set (k, "source", BROKEN_SOURCE, nullptr);
    for (int run = 0; run < 2; run++) {
      auto errors = errors_of_run (p);
      int ours = 0, source = 0;
      for (auto & e : errors) {
        ours += e.rfind ("k: ", 0) == 0;
        source += from_source (e);
      }
      fail_unless (ours == 1 && errors[0].rfind ("k: ", 0) == 0 && source <= 1 &&
          ours + source == (int) errors.size (), "run %d, %zu errors:%s", run,
          errors.size (), joined (errors).c_str ());
    }
    gst_object_unref (k);
    gst_object_unref (p);
  }
  cltest::drop_shared_context ();
}
GST_END_TEST

static Suite *
reliability_suite (void)
{
  Suite *s = suite_create ("reliability");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_state_cycling_unlinked);
  tcase_add_test (tc, test_state_cycling_linked);
  tcase_add_test (tc, test_nothing_lost);
  tcase_add_test (tc, test_flushing_seeks_while_streaming);
  tcase_add_test (tc, test_allocation_failure_and_recovery);
  tcase_add_test (tc, test_concurrent_pipelines_share_a_context);
  tcase_add_test (tc, test_properties_set_while_streaming);
  tcase_add_test (tc, test_padded_cases_cover_every_element);
  tcase_add_test (tc, test_same_input_same_bytes);
  tcase_add_test (tc, test_one_mistake_one_error);
  return s;
}

GST_CHECK_MAIN (reliability);
