/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clkernel against the CPU references in ref_clkernel.h: the documented examples
 * (invert, threshold, 3x3 box blur) and the sampling helpers on every format,
 * odd sizes, padded strides, system and OpenCL memory; build errors at start
 * and while playing; live changes of source, build-options and location;
 * frames staying on the device in clkernel ! clsobel. */
#include "cltest.h"
#include "ref_clkernel.h"

#include <gst/opencl/opencl.h>
#include <gst/opencl/gstcl.hpp>
#include <gst/app/gstappsink.h>
#include <gst/controller/gstdirectcontrolbinding.h>
#include <gst/controller/gstinterpolationcontrolsource.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include <cmath>

using namespace cltest;
using namespace clkernel_ref;

static const char *const BROKEN =
    "float4 filter (image_t img, int x, int y)\n"
    "{\n"
    "  return read_pixel (img, x, y) * undeclared_gain_42;\n"
    "}\n";

/* Pushes a random frame (rows padded by `pad`) and checks the output of `ex`.
 * Code set while playing builds in the background and serves from the first
 * frame after it is ready: when the frame started such a build, the check
 * waits for it and pushes the frame again. */
static void
check_frame (GstHarness * h, const Format & f, int w, int hgt, int pad, Example ex,
    uint32_t seed)
{
  GstVideoInfo info = video_info (f.name, w, hgt), layout;
  GstBuffer *in = random_frame (&info, pad, seed, &layout);
  const std::vector<Rgba> px = rgba_of (in, &layout, f);
  GstBuffer *out = push_built (h, in);
  std::vector<bool> ambiguous;
  const std::vector<Rgba> ref = reference (ex, px, w, hgt, &ambiguous);
  static const char *const names[] = {"identity", "invert", "threshold", "blur", "helpers"};
  check_output (h, out, f, w, hgt, ref, ambiguous, ex == BLURRED ? 1 : 0, names[ex]);
  gst_buffer_unref (out);
}

static void
use_example (GstElement * k, Example ex)
{
  const char *source = ex == INVERTED ? INVERT : ex == THRESHOLDED ? THRESHOLD :
      ex == BLURRED ? BLUR : ex == HELPERS ? HELPER_TEST : nullptr;
  g_object_set (k, "source", source, "build-options",
      ex == THRESHOLDED ? LEVEL_OPTION : "", nullptr);
}


/* A harness around `launch`, whose clkernel is named k; messages go to *bus. */
static GstHarness *
harness (const char *launch, GstElement ** k, GstBus ** bus = nullptr)
{
  GstHarness *h = gst_harness_new_parse (launch);
  cltest::share_context (h->element);
  *k = gst_bin_get_by_name (GST_BIN (h->element), "k");
  if (!*k)  /* a single element is the harness element itself */
    *k = GST_ELEMENT (gst_object_ref (h->element));
  if (bus) {
    *bus = gst_bus_new ();
    gst_element_set_bus (h->element, *bus);
  }
  return h;
}

static void
teardown (GstHarness * h, GstElement * k, GstBus * bus = nullptr)
{
  gst_object_unref (k);
  if (bus) {
    /* Messages left on the bus hold the elements that hold the bus. */
    gst_element_set_bus (h->element, nullptr);
    gst_object_unref (bus);
  }
  gst_harness_teardown (h);
}

/* Pops every message of `type` from `bus`; returns how many there were and
 * checks that each one's debug string contains `needle`. */
static int
pop_messages (GstBus * bus, GstMessageType type, const char *needle)
{
  int n = 0;
  while (GstMessage * m = gst_bus_pop_filtered (bus, type)) {
    GError *error = nullptr;
    gchar *debug = nullptr;
    if (type == GST_MESSAGE_ERROR)
      gst_message_parse_error (m, &error, &debug);
    else
      gst_message_parse_warning (m, &error, &debug);
    fail_unless (debug && strstr (debug, needle), "'%s' not in the message: %s / %s",
        needle, error->message, GST_STR_NULL (debug));
    g_error_free (error);
    g_free (debug);
    gst_message_unref (m);
    n++;
  }
  return n;
}

static const int sizes[][2] = { {1, 1}, {2, 3}, {17, 5}, {161, 67} };

/* The three examples on every size, in system memory with and without padded
 * strides and in OpenCL memory (through clupload, padded input). */
static void
run_format (const Format & f)
{
  uint32_t seed = 1;
  for (auto &s : sizes)
    for (int variant = 0; variant < 3; variant++) {
      GstElement *k;
      GstHarness *h = harness (variant == 2 ? "clupload ! clkernel name=k" : "clkernel name=k", &k);
      gst_harness_set_src_caps_str (h, caps_string (f.name, s[0], s[1]).c_str ());
      const int pad = variant == 0 ? 0 : variant == 1 ? 13 : 7;
      for (Example ex : {INVERTED, THRESHOLDED, BLURRED}) {
        use_example (k, ex);
        check_frame (h, f, s[0], s[1], pad, ex, seed++);
      }
      teardown (h, k);
    }
}

#define FORMAT_TEST(i) \
  GST_START_TEST (test_examples_##i) { run_format (formats[i]); } GST_END_TEST
FORMAT_TEST (0) FORMAT_TEST (1) FORMAT_TEST (2) FORMAT_TEST (3) FORMAT_TEST (4)
FORMAT_TEST (5) FORMAT_TEST (6) FORMAT_TEST (7) FORMAT_TEST (8) FORMAT_TEST (9)
FORMAT_TEST (10)

/* 16-bit samples (the examples in their precision: 0..65535) and NV12 /
 * I420 (the luma filtered as grey, the chroma planes copied unchanged), on
 * small odd sizes, padded rows, both memories. */
GST_START_TEST (test_deep_and_yuv_formats)
{
  uint32_t seed = 100;
  for (const Format & f : deep_and_yuv_formats)
    for (auto &s : {std::make_pair (1, 1), std::make_pair (17, 5)})
      for (int variant = 0; variant < 2; variant++) {
        GstElement *k;
        GstHarness *h = harness (variant ? "clupload ! clkernel name=k" : "clkernel name=k", &k);
        gst_harness_set_src_caps_str (h, caps_string (f.name, s.first, s.second).c_str ());
        for (Example ex : {INVERTED, BLURRED}) {
          use_example (k, ex);
          GstVideoInfo info = video_info (f.name, s.first, s.second), layout;
          GstBuffer *in = random_frame (&info, variant ? 7 : 0, seed++, &layout);
          const std::vector<Rgba> px = rgba_of (in, &layout, f);
          gst_buffer_ref (in);
          GstBuffer *out = push_built (h, in);
          std::vector<bool> ambiguous;
          const std::vector<Rgba> ref = reference (ex, px, s.first, s.second, &ambiguous,
              max_of (f));
          check_output (h, out, f, s.first, s.second, ref, ambiguous, ex == BLURRED ? 1 : 0,
              f.name);
          /* The chroma planes as they came in. */
          GstVideoFrame a, b;
          fail_unless (gst_video_frame_map (&a, &layout, in, GST_MAP_READ));
          fail_unless (gst_video_frame_map (&b, &info, out, GST_MAP_READ));
          for (guint p = 1; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
            gint comp[GST_VIDEO_MAX_COMPONENTS];
            gst_video_format_info_component (info.finfo, p, comp);
            const int row = GST_VIDEO_INFO_COMP_WIDTH (&info, comp[0]) *
                GST_VIDEO_INFO_COMP_PSTRIDE (&info, comp[0]);
            for (int y = 0; y < GST_VIDEO_INFO_COMP_HEIGHT (&info, comp[0]); y++)
              fail_unless (memcmp ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&a, p) +
                      y * GST_VIDEO_FRAME_PLANE_STRIDE (&a, p),
                      (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&b, p) +
                      y * GST_VIDEO_FRAME_PLANE_STRIDE (&b, p), row) == 0,
                  "%s: chroma plane %u row %d changed", f.name, p, y);
          }
          gst_video_frame_unmap (&b);
          gst_video_frame_unmap (&a);
          gst_buffer_unref (out);
          gst_buffer_unref (in);
        }
        teardown (h, k);
      }
}
GST_END_TEST

/* A larger frame, so that many work-groups and partial ones at the edges run. */
GST_START_TEST (test_examples_large_frame)
{
  GstElement *k;
  GstHarness *h = harness ("clkernel name=k", &k);
  gst_harness_set_src_caps_str (h, caps_string ("BGRx", 641, 479).c_str ());
  for (Example ex : {INVERTED, THRESHOLDED, BLURRED}) {
    use_example (k, ex);
    check_frame (h, formats[6], 641, 479, 5, ex, 77 + ex);
  }
  teardown (h, k);
}
GST_END_TEST

/* No source (or only blanks) copies the input; padding bytes become 255. */
GST_START_TEST (test_no_source_is_identity)
{
  for (int fi : {0, 1, 3, 9}) {
    const Format &f = formats[fi];
    GstElement *k;
    GstHarness *h = harness ("clkernel name=k", &k);
    gst_harness_set_src_caps_str (h, caps_string (f.name, 23, 9).c_str ());
    check_frame (h, f, 23, 9, 3, IDENTITY, 1);
    use_example (k, INVERTED);
    check_frame (h, f, 23, 9, 0, INVERTED, 2);
    g_object_set (k, "source", " \n\t", nullptr);
    check_frame (h, f, 23, 9, 3, IDENTITY, 3);
    g_object_set (k, "source", nullptr, nullptr);
    check_frame (h, f, 23, 9, 0, IDENTITY, 4);
    teardown (h, k);
  }
}
GST_END_TEST

GST_START_TEST (test_sampling_helpers)
{
  for (int fi : {0, 2, 3, 8, 9}) {
    for (auto &s : { std::pair<int, int> {1, 1}, {9, 7}, {4, 12} }) {
      GstElement *k;
      GstHarness *h = harness ("clkernel name=k", &k);
      gst_harness_set_src_caps_str (h, caps_string (formats[fi].name, s.first,
              s.second).c_str ());
      use_example (k, HELPERS);
      check_frame (h, formats[fi], s.first, s.second, 2, HELPERS, 5);
      teardown (h, k);
    }
  }
}
GST_END_TEST

/* Code that does not compile on the first caps: an element error that carries
 * the compiler's message, no frame, no crash. */
GST_START_TEST (test_build_error_at_start)
{
  GstElement *k;
  GstBus *bus;
  GstHarness *h = harness ("clkernel name=k", &k, &bus);
  g_object_set (k, "source", BROKEN, nullptr);
  gst_harness_set_src_caps_str (h, caps_string ("RGBA", 16, 8).c_str ());
  GstVideoInfo info = video_info ("RGBA", 16, 8);
  for (int i = 0; i < 2; i++)
    fail_if (gst_harness_push (h, random_frame (&info, 0, i)) == GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (h), 0);

  GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (m != nullptr);
  GError *error = nullptr;
  gchar *debug = nullptr;
  gst_message_parse_error (m, &error, &debug);
  fail_unless (error->domain == GST_LIBRARY_ERROR);
  fail_unless (strstr (error->message, "build") != nullptr, "%s", error->message);
  fail_unless (debug && strstr (debug, "undeclared_gain_42"), "%s", GST_STR_NULL (debug));
  g_error_free (error);
  g_free (debug);
  gst_message_unref (m);
  fail_unless_equals_int (pop_messages (bus, GST_MESSAGE_WARNING, ""), 0);
  teardown (h, k, bus);

  /* Build options that pass the element's check but break the code are
   * build errors too. */
  h = harness ("clkernel name=k", &k, &bus);
  g_object_set (k, "source", "float4 filter (image_t img, int x, int y) { return "
      "read_pixel (img, x, y) * GAIN; }", "build-options", "-D GAIN=unknown_gain_42",
      nullptr);
  gst_harness_set_src_caps_str (h, caps_string ("GRAY8", 16, 8).c_str ());
  info = video_info ("GRAY8", 16, 8);
  fail_if (gst_harness_push (h, random_frame (&info, 0, 3)) == GST_FLOW_OK);
  fail_unless (pop_messages (bus, GST_MESSAGE_ERROR, "unknown_gain_42") >= 1);
  teardown (h, k, bus);
}
GST_END_TEST

/* Build options the driver could choke on (PoCL dies on a bare -D or -I)
 * never reach it. Set before start, each is refused with a warning and the
 * element does not start, with an error naming it; set while playing, each
 * is refused with a warning on the bus and the previous program runs on. */
static const char *const hostile_options[] = {
  "-D", "-I", "-D -D", "-I -D", "-D X -I", "-Werror -D", "-D=1", "-D 1X", "-D X\"",
  "-DX='a b'", "-D X=a\\", "-I'", "-I-D", "-cl-std", "-cl-std=CL2.0", "-x cl",
  "-o /tmp/out", "--", "-", "-include /etc/passwd", "-Xclang -ast-dump",
  "-mllvm -debug", "-fsanitize=address", "-cl-no-such-option", "-D X\x01", "\x7f",
  "-D \xc3\xa9",
};

GST_START_TEST (test_hostile_build_options)
{
  for (const char *options : hostile_options) {
    GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=1 ! "
        "clkernel name=k ! fakesink", nullptr);
    fail_unless (pipeline != nullptr);
    GstElement *k = gst_bin_get_by_name (GST_BIN (pipeline), "k");
    {
      WarningFilter filter;
      g_object_set (k, "build-options", options, nullptr);
      fail_unless_equals_int (filter.warnings.count, 1);
      fail_unless (filter.warnings.last.find (options) != std::string::npos, "%s",
          filter.warnings.last.c_str ());
    }
    gchar *kept = nullptr;
    g_object_get (k, "build-options", &kept, nullptr);
    fail_unless_equals_string (kept, "");
    g_free (kept);
    gst_object_unref (k);
    expect_start_error (pipeline, options, "build-options", options);
  }

  /* Well-formed options are taken (not built here). */
  GstElement *k = gst_element_factory_make ("clkernel", nullptr);
  const char *good = "-D LEVEL=0.5f -DGAIN=(1.5f) -D EMPTY= -DFLAG -I /tmp -I/usr "
      "-w -Werror -cl-fast-relaxed-math -cl-mad-enable\t-cl-opt-disable "
      "-cl-fp32-correctly-rounded-divide-sqrt -cl-kernel-arg-info";
  {
    WarningFilter filter;
    g_object_set (k, "build-options", good, nullptr);
    fail_unless_equals_int (filter.warnings.count, 0);
  }
  gchar *kept = nullptr;
  g_object_get (k, "build-options", &kept, nullptr);
  fail_unless_equals_string (kept, good);
  g_free (kept);
  gst_object_unref (k);

  GstBus *bus;
  GstHarness *h = harness ("clkernel name=k", &k, &bus);
  const Format &f = formats[3];
  gst_harness_set_src_caps_str (h, caps_string (f.name, 13, 5).c_str ());
  use_example (k, INVERTED);
  uint32_t seed = 40;
  check_frame (h, f, 13, 5, 0, INVERTED, seed++);
  for (const char *options : hostile_options) {
    g_object_set (k, "build-options", options, nullptr);
    check_frame (h, f, 13, 5, 0, INVERTED, seed++);
    fail_unless_equals_int (pop_messages (bus, GST_MESSAGE_WARNING, "build-options"), 1);
  }
  fail_unless_equals_int (pop_messages (bus, GST_MESSAGE_ERROR, ""), 0);
  teardown (h, k, bus);
}
GST_END_TEST

/* source and build-options change between frames; code that does not build
 * is a warning with the compiler's message, and the previous program keeps
 * running. */
GST_START_TEST (test_live_changes)
{
  GstElement *k;
  GstBus *bus;
  GstHarness *h = harness ("clupload ! clkernel name=k", &k, &bus);
  const Format &f = formats[1];  /* RGB: 3-byte pixels */
  gst_harness_set_src_caps_str (h, caps_string (f.name, 37, 11).c_str ());
  uint32_t seed = 10;

  use_example (k, INVERTED);
  check_frame (h, f, 37, 11, 0, INVERTED, seed++);
  use_example (k, THRESHOLDED);
  check_frame (h, f, 37, 11, 4, THRESHOLDED, seed++);

  g_object_set (k, "source", BROKEN, nullptr);
  for (int i = 0; i < 3; i++)
    check_frame (h, f, 37, 11, 4, THRESHOLDED, seed++);
  fail_unless_equals_int (pop_messages (bus, GST_MESSAGE_WARNING, "undeclared_gain_42"), 1);

  /* Valid code again, but the option it needs is gone: still a warning. */
  g_object_set (k, "source", THRESHOLD, "build-options", "-D NOT_LEVEL=1", nullptr);
  check_frame (h, f, 37, 11, 0, THRESHOLDED, seed++);
  fail_unless_equals_int (pop_messages (bus, GST_MESSAGE_WARNING, "LEVEL"), 1);

  use_example (k, BLURRED);
  check_frame (h, f, 37, 11, 0, BLURRED, seed++);
  use_example (k, INVERTED);  /* back to a program built before */
  check_frame (h, f, 37, 11, 0, INVERTED, seed++);
  fail_unless_equals_int (pop_messages (bus, GST_MESSAGE_ERROR, ""), 0);
  fail_unless_equals_int (pop_messages (bus, GST_MESSAGE_WARNING, ""), 0);
  teardown (h, k, bus);
}
GST_END_TEST

/* New caps while the latest code does not build: the running program is
 * rebuilt for the new format. */
GST_START_TEST (test_caps_change_keeps_running_program)
{
  GstElement *k;
  GstBus *bus;
  GstHarness *h = harness ("clkernel name=k", &k, &bus);
  gst_harness_set_src_caps_str (h, caps_string ("RGBA", 20, 6).c_str ());
  use_example (k, INVERTED);
  check_frame (h, RGBA, 20, 6, 0, INVERTED, 1);
  g_object_set (k, "source", BROKEN, nullptr);
  check_frame (h, RGBA, 20, 6, 0, INVERTED, 2);
  fail_unless_equals_int (pop_messages (bus, GST_MESSAGE_WARNING, "undeclared_gain_42"), 1);

  gst_harness_set_src_caps_str (h, caps_string ("xBGR", 13, 9).c_str ());
  check_frame (h, formats[10], 13, 9, 3, INVERTED, 3);
  gst_harness_set_src_caps_str (h, caps_string ("GRAY8", 13, 9).c_str ());
  check_frame (h, formats[0], 13, 9, 3, INVERTED, 4);
  fail_unless_equals_int (pop_messages (bus, GST_MESSAGE_ERROR, ""), 0);
  teardown (h, k, bus);
}
GST_END_TEST

static gchar *
write_temp_source (const char *text)
{
  gchar *path = nullptr;
  gint fd = g_file_open_tmp ("clkernel-XXXXXX.cl", &path, nullptr);
  fail_unless (fd >= 0);
  close (fd);
  fail_unless (g_file_set_contents (path, text, -1, nullptr));
  return path;
}

/* Code from a file: read when set (also while playing) and at start; a file
 * that cannot be read is a warning while playing and an error at start. */
GST_START_TEST (test_location)
{
  gchar *path = write_temp_source (BLUR);
  GstElement *k;
  GstBus *bus;
  GstHarness *h = harness ("clkernel name=k", &k, &bus);
  const Format &f = formats[7];  /* ARGB */
  gst_harness_set_src_caps_str (h, caps_string (f.name, 29, 15).c_str ());
  g_object_set (k, "location", path, nullptr);
  check_frame (h, f, 29, 15, 6, BLURRED, 1);

  gchar *source = nullptr, *location = nullptr;
  g_object_get (k, "source", &source, "location", &location, nullptr);
  fail_unless_equals_string (source, BLUR);
  fail_unless_equals_string (location, path);
  g_free (source);
  g_free (location);

  /* The same path set again reads the file again. */
  fail_unless (g_file_set_contents (path, INVERT, -1, nullptr));
  g_object_set (k, "location", path, nullptr);
  check_frame (h, f, 29, 15, 0, INVERTED, 2);

  gchar *missing = g_strconcat (path, ".missing", nullptr);
  g_object_set (k, "location", missing, nullptr);
  check_frame (h, f, 29, 15, 0, INVERTED, 3);
  fail_unless_equals_int (pop_messages (bus, GST_MESSAGE_WARNING, ".missing"), 1);

  /* Setting source forgets the location. */
  g_object_set (k, "source", BLUR, nullptr);
  g_object_get (k, "location", &location, nullptr);
  fail_unless (location == nullptr);
  check_frame (h, f, 29, 15, 0, BLURRED, 4);
  teardown (h, k, bus);

  /* Unreadable at start: an error naming the file, the element does not start. */
  GstElement *e = gst_element_factory_make ("clkernel", nullptr);
  GstBus *ebus = gst_bus_new ();
  gst_element_set_bus (e, ebus);
  g_object_set (e, "location", missing, nullptr);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  GstMessage *m = gst_bus_pop_filtered (ebus, GST_MESSAGE_ERROR);
  fail_unless (m != nullptr);
  GError *error = nullptr;
  gst_message_parse_error (m, &error, nullptr);
  fail_unless (g_error_matches (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ));
  fail_unless (strstr (error->message, ".missing") != nullptr, "%s", error->message);
  g_error_free (error);
  gst_message_unref (m);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, nullptr);
  gst_object_unref (e);
  gst_object_unref (ebus);

  g_unlink (path);
  g_free (missing);
  g_free (path);
}
GST_END_TEST

/* clkernel ! clsobel between clupload and cldownload: one upload and one
 * download per frame, nothing through the host in between. */
GST_START_TEST (test_chain_stays_on_device)
{
  const int frames = 12;
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=12 pattern=smpte ! "
      "video/x-raw,format=RGBA,width=161,height=97 ! clupload ! clkernel name=k ! "
      "clsobel ! cldownload ! appsink name=sink sync=false", &error);
  fail_unless (pipeline != nullptr, "%s", error ? error->message : "");
  GstElement *k = gst_bin_get_by_name (GST_BIN (pipeline), "k");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  g_object_set (k, "source", BLUR, nullptr);

  GstClMemoryStats before, after;
  gst_cl_memory_get_stats (&before);
  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE);
  int received = 0;
  while (GstSample * s = gst_app_sink_pull_sample (GST_APP_SINK (sink))) {
    GstVideoInfo info;
    fail_unless (gst_video_info_from_caps (&info, gst_sample_get_caps (s)));
    fail_unless_equals_int (GST_VIDEO_INFO_FORMAT (&info), GST_VIDEO_FORMAT_GRAY8);
    fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&info), 161);
    gst_sample_unref (s);
    received++;
  }
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (m == nullptr, "pipeline error");
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_cl_memory_get_stats (&after);

  fail_unless_equals_int (received, frames);
  fail_unless_equals_int ((int) (after.uploads - before.uploads), frames);
  fail_unless_equals_int ((int) (after.downloads - before.downloads), frames);
  gst_object_unref (k);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}
GST_END_TEST

/* A program actually compiled is announced on the bus (INFO, from the
 * element, naming the device and the code); one from the cache is not. */
GST_START_TEST (test_build_announced)
{
  const std::string options = "-D ANNOUNCED_" + unique_tag () + "=1";
  const std::string device = gst_cl_context_get_device_name (shared_context ());
  for (int run = 0; run < 2; run++) {
    GstElement *k;
    GstBus *bus;
    GstHarness *h = harness ("clkernel name=k", &k, &bus);
    g_object_set (k, "source", INVERT, "build-options", options.c_str (), nullptr);
    gst_harness_set_src_caps_str (h, caps_string ("RGBA", 16, 8).c_str ());
    check_frame (h, RGBA, 16, 8, 0, INVERTED, 40 + run);
    int infos = 0;
    while (GstMessage * m = gst_bus_pop_filtered (bus, GST_MESSAGE_INFO)) {
      GError *error = nullptr;
      gchar *debug = nullptr;
      gst_message_parse_info (m, &error, &debug);
      fail_unless (GST_MESSAGE_SRC (m) == GST_OBJECT (k));
      /* gst-launch prints the debug string */
      for (const char *text : {(const char *) error->message, (const char *) debug}) {
        fail_unless (text && strstr (text, device.c_str ()), "no device in %s", text);
        fail_unless (strstr (text, "clkernel 'source'"), "no name in %s", text);
      }
      fail_unless (strstr (debug, options.c_str ()), "no options in %s", debug);
      g_error_free (error);
      g_free (debug);
      gst_message_unref (m);
      infos++;
    }
    fail_unless_equals_int (infos, run == 0 ? 1 : 0);
    teardown (h, k, bus);
  }
}
GST_END_TEST

/* Code whose output is (red, 0, 0, 1) everywhere, with a library of helper
 * functions that the filter does not call: PoCL takes a good part of a
 * second to build it (so that a frame waiting for the build would show),
 * while the kernel itself stays small (PoCL compiles a kernel's work-group
 * function at its first launch under a process-wide lock, see
 * docs/architecture.md). `tag` goes into the code: PoCL's disk cache is
 * keyed on the preprocessed source, without comments and -D options. */
static std::string
constant_source (float red, const std::string &tag)
{
  std::string s;
  for (int f = 0; f < 60; f++) {
    s += "float helper_" + std::to_string (f) + "_" + tag + " (float a, float b)\n{\n";
    for (int i = 0; i < 20; i++)
      s += "  a = sin (a * 1.0001f + b) + " + std::to_string (i % 7) + ".0f; "
          "b = cos (b * 0.999f) + 0.5f;\n";
    s += "  return a + b;\n}\n";
  }
  return s + "float4 filter (image_t img, int x, int y)\n{\n  return (float4) (" +
      std::to_string (red) + "f, 0.0f, 0.0f, 1.0f);\n}\n";
}

/* A new source while a live source streams at 30 frames/s: built in the
 * background, the old program serves the frames meanwhile, none waits. */
GST_START_TEST (test_live_source_change_does_not_stall)
{
  const std::string tag = unique_tag ();
  const std::string first = constant_source (0.2f, "first_" + tag);
  const std::string desc = "videotestsrc is-live=true ! video/x-raw,format=RGBA,"
      "width=64,height=48,framerate=30/1 ! clkernel name=k source=\"" + first +
      "\" ! fakesink name=sink sync=false";
  auto set_source = [] (GstElement * pipeline, const std::string &source) {
    GstElement *k = gst_bin_get_by_name (GST_BIN (pipeline), "k");
    g_object_set (k, "source", source.c_str (), nullptr);
    gst_object_unref (k);
  };
  check_live_rebuild (desc.c_str (),
      [&] (GstElement * p) { set_source (p, constant_source (0.8f, "second_" + tag)); },
      51, 204,
      [&] (GstElement * p) { set_source (p, constant_source (0.4f, "third_" + tag)); },
      3, true);
}
GST_END_TEST

/* `parameters`: named values reach the code; a new value applies from the
 * next frame with no build; new names build in the background (a name the
 * code does not use is refused, the running values staying); at start such
 * a name is an error naming it. */
static const char *const GAIN_LEVEL =
    "float4 filter (image_t img, int x, int y)\n"
    "{\n"
    "  float4 p = read_pixel (img, x, y);\n"
    "  return (float4) (p.xyz * gain + (float) level / 255.0f, p.w);\n"
    "}\n";

/* Pushes a frame (at `pts`) and checks out = round (v * gain + level)
 * within 1. */
static void
check_gain_level (GstHarness * h, double gain, int level, uint32_t seed,
    GstClockTime pts = GST_CLOCK_TIME_NONE)
{
  const GstVideoInfo info = video_info ("RGBA", 13, 5);
  GstBuffer *in = random_frame (&info, 0, seed);
  GST_BUFFER_PTS (in) = pts;
  gst_buffer_ref (in);
  GstBuffer *out = push_built (h, in);
  GstMapInfo a, b;
  gst_buffer_map (in, &a, GST_MAP_READ);
  gst_buffer_map (out, &b, GST_MAP_READ);
  for (gsize i = 0; i < a.size; i++) {
    const double want = i % 4 == 3 ? a.data[i] :
        std::min (255.0, std::max (0.0, std::round (a.data[i] * gain + level)));
    fail_unless (std::fabs (b.data[i] - want) <= 1, "byte %zu: %d for %d (gain %g, level %d)",
        i, b.data[i], a.data[i], gain, level);
  }
  gst_buffer_unmap (out, &b);
  gst_buffer_unmap (in, &a);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
}

static void
set_parameters (GstElement * k, const char *text)
{
  GstStructure *s = gst_structure_from_string (text, nullptr);
  fail_unless (s != nullptr, "%s", text);
  g_object_set (k, "parameters", s, nullptr);
  gst_structure_free (s);
}

/* A clkernel running GAIN_LEVEL with `params`. */
static GstHarness *
gain_level_harness (const char *params, GstElement ** k, GstBus ** bus)
{
  GstHarness *h = harness ("clkernel name=k", k, bus);
  g_object_set (*k, "source", GAIN_LEVEL, nullptr);
  set_parameters (*k, params);
  return h;
}

/* gain_level_harness at gain 0.5, level 10, its first frame checked. */
static GstHarness *
running_gain_level (GstElement ** k, GstBus ** bus)
{
  GstHarness *h = gain_level_harness ("p, gain=(float)0.5, level=(int)10", k, bus);
  gst_harness_set_src_caps_str (h, caps_string ("RGBA", 13, 5).c_str ());
  check_gain_level (h, 0.5, 10, 1);
  return h;
}

GST_START_TEST (test_parameters)
{
  GstElement *k;
  GstBus *bus;
  GstHarness *h = running_gain_level (&k, &bus);

  /* New values: the next frame, no build of any kind. */
  const unsigned builds = gstcl::program_builds (), background = gstcl::background_builds ();
  set_parameters (k, "p, gain=(double)2.0, level=(int)-30");
  check_gain_level (h, 2.0, -30, 2);
  set_parameters (k, "p, level=(int)3, gain=(float)1.0");   /* another order */
  check_gain_level (h, 1.0, 3, 3);
  fail_unless_equals_int (gstcl::program_builds (), builds);
  fail_unless_equals_int (gstcl::background_builds (), background);

  /* A name the code does not use: a warning, the running values stay. */
  set_parameters (k, "p, gain=(float)0.25, level=(int)0, offset=(uint)5");
  check_gain_level (h, 1.0, 3, 4);
  fail_unless_equals_int (pop_messages (bus, GST_MESSAGE_WARNING, "'offset'"), 1);
  /* Code that uses it: built in the background, then its values. */
  g_object_set (k, "source", "float4 filter (image_t img, int x, int y)\n"
      "{\n  float4 p = read_pixel (img, x, y);\n"
      "  return (float4) (p.xyz * gain + (float) (level + (int) offset) / 255.0f, p.w);\n}\n",
      nullptr);
  check_gain_level (h, 0.25, 5, 5);
  GstStructure *back = nullptr;
  g_object_get (k, "parameters", &back, nullptr);
  guint offset = 0;
  fail_unless (back && gst_structure_get_uint (back, "offset", &offset) && offset == 5);
  gst_structure_free (back);
  fail_unless_equals_int (pop_messages (bus, GST_MESSAGE_ERROR, ""), 0);
  teardown (h, k, bus);

  /* At start, an unused name is an error that names it. */
  h = harness ("clkernel name=k", &k, &bus);
  set_parameters (k, "p, brightness=(float)1");
  gst_harness_set_src_caps_str (h, caps_string ("RGBA", 13, 5).c_str ());
  const GstVideoInfo info = video_info ("RGBA", 13, 5);
  fail_if (gst_harness_push (h, random_frame (&info, 0, 6)) == GST_FLOW_OK);
  fail_unless_equals_int (pop_messages (bus, GST_MESSAGE_ERROR, "'brightness'"), 1);
  teardown (h, k, bus);
}
GST_END_TEST

/* A background build compiles first in the device's warm context where
 * asked (NVIDIA's default: its JIT holds a lock of the context, which would
 * stall the stream), then in the element's; the frames meanwhile and after
 * are right either way. */
GST_START_TEST (test_background_build_warms_elsewhere)
{
  GstElement *k;
  GstBus *bus;
  GstHarness *h = running_gain_level (&k, &bus);
  for (const char *asked : { "1", "0" }) {
    g_setenv ("GST_OPENCL_WARM_BUILDS", asked, TRUE);
    const unsigned warm = gstcl::warm_builds (), background = gstcl::background_builds ();
    /* a new program (a comment no earlier run compiled) */
    const std::string source = std::string ("/* ") + cltest::unique_tag () + asked + " */\n" +
        GAIN_LEVEL;
    g_object_set (k, "source", source.c_str (), nullptr);
    check_gain_level (h, 0.5, 10, 2);
    fail_unless_equals_int (gstcl::background_builds () - background, 1);
    fail_unless_equals_int (gstcl::warm_builds () - warm, asked[0] == '1' ? 1 : 0);
  }
  g_unsetenv ("GST_OPENCL_WARM_BUILDS");
  fail_unless_equals_int (pop_messages (bus, GST_MESSAGE_ERROR, ""), 0);
  teardown (h, k, bus);
}
GST_END_TEST

/* The parameters' child (GstChildProxy) has one controllable property per
 * parameter: a control binding changes the value frame by frame, with no
 * build; `parameters` and the child's properties read the values in force;
 * new names make a new child with their properties. */
GST_START_TEST (test_parameters_follow_a_controller)
{
  GstElement *k;
  GstBus *bus;
  GstHarness *h = gain_level_harness ("p, gain=(float)1.0, level=(int)0", &k, &bus);
  fail_unless_equals_int (gst_child_proxy_get_children_count (GST_CHILD_PROXY (k)), 1);
  GObject *child = gst_child_proxy_get_child_by_name (GST_CHILD_PROXY (k), "parameters");
  fail_unless (child != nullptr);
  GParamSpec *spec = g_object_class_find_property (G_OBJECT_GET_CLASS (child), "gain");
  fail_unless (spec && (spec->flags & GST_PARAM_CONTROLLABLE));

  GstControlSource *gain = gst_interpolation_control_source_new ();
  GstControlSource *level = gst_interpolation_control_source_new ();
  g_object_set (gain, "mode", GST_INTERPOLATION_MODE_NONE, nullptr);
  g_object_set (level, "mode", GST_INTERPOLATION_MODE_NONE, nullptr);
  const double gains[] = {0.5, 2.0, 1.25, 0.0};
  const int levels[] = {10, -30, 3, 77};
  for (guint i = 0; i < G_N_ELEMENTS (gains); i++) {
    gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE (gain),
        i * GST_SECOND, gains[i]);
    gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE (level),
        i * GST_SECOND, levels[i]);
  }
  gst_object_add_control_binding (GST_OBJECT (child),
      gst_direct_control_binding_new_absolute (GST_OBJECT (child), "gain", gain));
  gst_object_add_control_binding (GST_OBJECT (child),
      gst_direct_control_binding_new_absolute (GST_OBJECT (child), "level", level));
  gst_harness_set_src_caps_str (h, caps_string ("RGBA", 13, 5).c_str ());
  check_gain_level (h, 0.5, 10, 1, 0);   /* the first frame builds the program */

  const unsigned builds = gstcl::program_builds (), background = gstcl::background_builds ();
  for (guint i = 1; i < G_N_ELEMENTS (gains); i++)
    check_gain_level (h, gains[i], levels[i], 10 + i, i * GST_SECOND);
  fail_unless_equals_int (gstcl::program_builds (), builds);
  fail_unless_equals_int (gstcl::background_builds (), background);
  /* the values in force, from the child and from `parameters` */
  gint lv = 0;
  g_object_get (child, "level", &lv, nullptr);
  fail_unless_equals_int (lv, 77);
  GstStructure *back = nullptr;
  g_object_get (k, "parameters", &back, nullptr);
  fail_unless (back && gst_structure_get_int (back, "level", &lv) && lv == 77);
  gst_structure_free (back);
  /* set by hand through the child proxy, as a launch line's k::parameters::x */
  GstControlBinding *binding = gst_object_get_control_binding (GST_OBJECT (child), "level");
  gst_object_remove_control_binding (GST_OBJECT (child), binding);
  gst_object_unref (binding);
  gst_child_proxy_set (GST_CHILD_PROXY (k), "parameters::level", 5, nullptr);
  check_gain_level (h, 0.0, 5, 20, 3 * GST_SECOND);
  g_object_unref (child);

  /* new names: a new child, with their properties */
  set_parameters (k, "p, gain=(float)1.0, level=(int)0, offset=(uint)4");
  child = gst_child_proxy_get_child_by_name (GST_CHILD_PROXY (k), "parameters");
  fail_unless (child && g_object_class_find_property (G_OBJECT_GET_CLASS (child), "offset"));
  g_object_unref (child);
  set_parameters (k, "p");
  fail_unless_equals_int (gst_child_proxy_get_children_count (GST_CHILD_PROXY (k)), 0);
  gst_object_unref (gain);
  gst_object_unref (level);
  fail_unless_equals_int (pop_messages (bus, GST_MESSAGE_ERROR, ""), 0);
  teardown (h, k, bus);
}
GST_END_TEST

static Suite *
clkernel_suite (void)
{
  Suite *s = suite_create ("clkernel");
  TCase *tc = tcase_create ("general");
  tcase_add_checked_fixture (tc, nullptr, drop_shared_context);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_examples_0);
  tcase_add_test (tc, test_examples_1);
  tcase_add_test (tc, test_examples_2);
  tcase_add_test (tc, test_examples_3);
  tcase_add_test (tc, test_examples_4);
  tcase_add_test (tc, test_examples_5);
  tcase_add_test (tc, test_examples_6);
  tcase_add_test (tc, test_examples_7);
  tcase_add_test (tc, test_examples_8);
  tcase_add_test (tc, test_examples_9);
  tcase_add_test (tc, test_examples_10);
  tcase_add_test (tc, test_examples_large_frame);
  tcase_add_test (tc, test_deep_and_yuv_formats);
  tcase_add_test (tc, test_no_source_is_identity);
  tcase_add_test (tc, test_sampling_helpers);
  tcase_add_test (tc, test_build_error_at_start);
  tcase_add_test (tc, test_hostile_build_options);
  tcase_add_test (tc, test_live_changes);
  tcase_add_test (tc, test_parameters);
  tcase_add_test (tc, test_background_build_warms_elsewhere);
  tcase_add_test (tc, test_parameters_follow_a_controller);
  tcase_add_test (tc, test_caps_change_keeps_running_program);
  tcase_add_test (tc, test_location);
  tcase_add_test (tc, test_chain_stays_on_device);
  tcase_add_test (tc, test_build_announced);
  tcase_add_test (tc, test_live_source_change_does_not_stall);
  return s;
}

GST_CHECK_MAIN (clkernel);
