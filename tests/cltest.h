/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared helpers of the tests: CPU references and frame makers. Everything
 * here is written for the tests, independent of the plugin's code. */
#pragma once

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/controller/gstdirectcontrolbinding.h>
#include <gst/controller/gstinterpolationcontrolsource.h>
#include <gst/opencl/opencl.h>
#include <gst/opencl/gstcl.hpp>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <mutex>
#include <random>
#include <string>
#include <vector>

namespace cltest {

enum Border { REPLICATE = 0, REFLECT = 1, CONSTANT = 2 };
inline const char *border_name (int b)
{
  return b == REPLICATE ? "replicate" : b == REFLECT ? "reflect" : "constant";
}

/* Index read for coordinate i of an axis of n samples; -1 = outside (constant). */
inline int border_index (int i, int n, int border)
{
  if (i >= 0 && i < n)
    return i;
  if (border == CONSTANT)
    return -1;
  if (border == REPLICATE)
    return i < 0 ? 0 : n - 1;
  if (n == 1)
    return 0;
  int period = 2 * (n - 1);  /* reflect-101 is periodic */
  int m = ((i % period) + period) % period;
  return m < n ? m : period - m;
}

/* A frame in system memory with `pad` extra bytes per row (and before the
 * first plane), described by a GstVideoMeta, filled with random bytes. */
inline GstBuffer *random_frame (const GstVideoInfo * info, int pad, uint32_t seed,
    GstVideoInfo * layout_out = nullptr)
{
  GstVideoInfo layout = *info;
  gsize offset = pad;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gint rows = GST_VIDEO_INFO_COMP_HEIGHT (info, p);
    GST_VIDEO_INFO_PLANE_STRIDE (&layout, p) = GST_VIDEO_INFO_PLANE_STRIDE (info, p) + pad;
    GST_VIDEO_INFO_PLANE_OFFSET (&layout, p) = offset;
    offset += (gsize) GST_VIDEO_INFO_PLANE_STRIDE (&layout, p) * rows + pad;
  }
  GST_VIDEO_INFO_SIZE (&layout) = offset;
  if (pad == 0)
    layout = *info;  /* exactly GStreamer's default layout, no meta */
  offset = GST_VIDEO_INFO_SIZE (&layout);
  GstBuffer *buf = gst_buffer_new_allocate (nullptr, offset, nullptr);
  GstMapInfo map;
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  std::mt19937 rng (seed);
  for (gsize i = 0; i < map.size; i++)
    map.data[i] = (guint8) (rng () >> 24);
  gst_buffer_unmap (buf, &map);
  if (pad)
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_N_PLANES (info), layout.offset,
        layout.stride);
  if (layout_out)
    *layout_out = layout;
  return buf;
}

inline GstVideoInfo video_info (const char *format, int w, int h)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, gst_video_format_from_string (format), w, h);
  return info;
}

inline bool is_bayer (const std::string & format)
{
  for (const char *pattern : {"bggr", "gbrg", "grbg", "rggb"})
    if (format.compare (0, 4, pattern) == 0)
      return true;
  return false;
}

/* Caps of a frame in `format`: a raw video format, or a Bayer one ("rggb",
 * "bggr12le"). */
inline std::string caps_string (const std::string & format, int w, int h,
    bool cl_memory = false)
{
  return std::string (is_bayer (format) ? "video/x-bayer" : "video/x-raw") +
      (cl_memory ? "(memory:OpenCLMemory)" : "") +
      ",format=" + format + ",width=" + std::to_string (w) + ",height=" +
      std::to_string (h) + ",framerate=30/1";
}

/* ------------------------------------------------------- the plugin's elements */

/* Every element of the plugin, from the registry, sorted. The generic suites
 * (state changes, nothing lost, flushing seeks, one error per mistake, short
 * buffers, no device) take their elements from here, so a new element is in
 * them as soon as it is registered. */
inline std::vector<std::string> plugin_elements ()
{
  std::vector<std::string> names;
  GList *features = gst_registry_get_feature_list_by_plugin (gst_registry_get (), "opencl");
  for (GList *l = features; l; l = l->next)
    if (GST_IS_ELEMENT_FACTORY (l->data))
      names.push_back (GST_OBJECT_NAME (l->data));
  gst_plugin_feature_list_free (features);
  fail_if (names.empty (), "the opencl plugin has no elements (GST_PLUGIN_PATH?)");
  std::sort (names.begin (), names.end ());
  return names;
}

/* Input formats an element takes, from its sink pad template: the first and
 * the last format of each media type (video/x-raw, video/x-bayer), "RGBA"
 * for a type whose template lists none. The first is the one a generic
 * suite uses when it needs one. */
inline std::vector<std::string> template_formats (const std::string & factory_name)
{
  GstElementFactory *factory = gst_element_factory_find (factory_name.c_str ());
  fail_unless (factory != nullptr, "no element %s", factory_name.c_str ());
  std::vector<std::string> formats;
  auto add = [&formats] (const std::string & f) {
    if (std::find (formats.begin (), formats.end (), f) == formats.end ())
      formats.push_back (f);
  };
  for (const GList *l = gst_element_factory_get_static_pad_templates (factory); l; l = l->next) {
    auto *templ = static_cast<GstStaticPadTemplate *> (l->data);
    if (templ->direction != GST_PAD_SINK)
      continue;
    GstCaps *caps = gst_static_caps_get (&templ->static_caps);
    for (guint i = 0; i < gst_caps_get_size (caps); i++) {
      const GValue *list = gst_structure_get_value (gst_caps_get_structure (caps, i), "format");
      if (!list)
        add ("RGBA");
      else if (G_VALUE_HOLDS_STRING (list))
        add (g_value_get_string (list));
      else if (GST_VALUE_HOLDS_LIST (list)) {
        add (g_value_get_string (gst_value_list_get_value (list, 0)));
        add (g_value_get_string (gst_value_list_get_value (list,
                    gst_value_list_get_size (list) - 1)));
      }
    }
    gst_caps_unref (caps);
  }
  gst_object_unref (factory);
  fail_if (formats.empty (), "%s: no sink template", factory_name.c_str ());
  return formats;
}

/* One OpenCL context for every harness of a test, so that each program is
 * built once. Dropped after each test by a checked fixture
 * (tcase_add_checked_fixture (tc, nullptr, cltest::drop_shared_context)) so
 * that the leaks tracer finds nothing alive at exit. */
inline GstClContext *&shared_context_slot ()
{
  static GstClContext *context = nullptr;
  return context;
}

inline GstClContext *shared_context ()
{
  GstClContext *&context = shared_context_slot ();
  if (!context) {
    GError *error = nullptr;
    context = gst_cl_context_new (nullptr, &error);
    fail_unless (context != nullptr, "no OpenCL device: %s", error ? error->message : "?");
  }
  return context;
}

inline void drop_shared_context ()
{
  GstClContext *&context = shared_context_slot ();
  if (context)
    gst_object_unref (context);
  context = nullptr;
}

/* drop_shared_context (), then a wait (at most two minutes) until no queue
 * is kept (gstcl::kept_queues ()): PoCL compiles a kernel at its first
 * launch, a second or more on a cold cache, so a test whose last frames ran
 * a new kernel may free the context with that launch still compiling; the
 * watchdog keeps the queue, with the frames its commands hold, and releases
 * it when the launch completes, which must happen before the leaks tracer
 * looks at exit. (Not for tests that leave a kernel running: their queues
 * stay kept.) */
inline void drop_shared_context_and_drain ()
{
  drop_shared_context ();
  const gint64 until = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;
  while (gstcl::kept_queues () > 0 && g_get_monotonic_time () < until)
    g_usleep (50 * 1000);
}

/* Gives `element` (and its children) the shared context. */
inline void share_context (GstElement * element)
{
  GstContext *context = gst_context_new_cl_context (shared_context ());
  gst_element_set_context (element, context);
  gst_context_unref (context);
}

/* Binds the `property` of the harness's `factory` element to a control
 * source that steps through `values`, one a second from 0 (no
 * interpolation: a frame at i seconds takes values[i]). */
inline void
bind_steps (GstHarness * h, const char *factory, const char *property,
    const std::vector<double> &values)
{
  GstControlSource *cs = gst_interpolation_control_source_new ();
  g_object_set (cs, "mode", GST_INTERPOLATION_MODE_NONE, nullptr);
  for (guint i = 0; i < values.size (); i++)
    gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE (cs),
        i * GST_SECOND, values[i]);
  GstElement *e = gst_harness_find_element (h, factory);
  gst_object_add_control_binding (GST_OBJECT (e),
      gst_direct_control_binding_new_absolute (GST_OBJECT (e), property, cs));
  gst_object_unref (e);
  gst_object_unref (cs);
}

/* cldebayer in a harness (after clupload for OpenCL-memory input) with the
 * shared context; *element the cldebayer (a reference). */
inline GstHarness *
debayer_harness (bool cl_input, GstElement ** element)
{
  GstElement *e = cl_input ?
      gst_parse_bin_from_description ("clupload ! cldebayer name=d", TRUE, nullptr) :
      gst_element_factory_make ("cldebayer", nullptr);
  share_context (e);
  GstHarness *h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  *element = cl_input ? gst_bin_get_by_name (GST_BIN (h->element), "d") :
      GST_ELEMENT (gst_object_ref (h->element));
  return h;
}

/* The process's own GST_OPENCL_TUNING (the gpu-tuning suite sets it), or
 * nullptr. */
inline const char *own_tuning ()
{
  static const std::string own = g_getenv ("GST_OPENCL_TUNING") ?
      g_getenv ("GST_OPENCL_TUNING") : "";
  return own.empty () ? nullptr : own.c_str ();
}

/* Forces the kernel shapes of `tuning` ("gpu" or "cpu"; nullptr: the
 * process's own setting, else the device's) for the contexts made from now
 * on, the shared one included (GST_OPENCL_TUNING is read when a context is
 * made). */
inline void use_tuning (const char *tuning)
{
  const char *own = own_tuning ();
  if (!tuning)
    tuning = own;
  if (tuning)
    g_setenv ("GST_OPENCL_TUNING", tuning, TRUE);
  else
    g_unsetenv ("GST_OPENCL_TUNING");
  drop_shared_context ();
}

/* The suite's one test case, whose tests may force a kernel shape: each
 * leaves the default (use_tuning (nullptr)) to the next. */
inline void restore_tuning (void) { use_tuning (nullptr); }

inline TCase *
tuning_tcase (Suite * s)
{
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, nullptr, restore_tuning);
  return tc;
}

/* True under the analysis tools (valgrind, Oclgrind: CLTEST_SMALL=1): the
 * tests keep their small and odd frames and leave out the large ones, which
 * add hours under a tool and nothing that the small ones do not cover. */
inline bool small_only ()
{
  return g_getenv ("CLTEST_SMALL") != nullptr;
}

inline bool large_frame (int w, int h)
{
  return (gint64) w * h > 64 * 1024;
}

/* ------------------------------------------------ refused property values */

/* Counts the g_warnings it is given and drops them (gst-check would fail
 * the test, G_DEBUG=fatal-warnings abort it). */
struct Warnings {
  int count = 0;
  std::string last;
};

inline gboolean
count_warning (const gchar *, GLogLevelFlags, const gchar * message, gpointer data)
{
  auto *w = static_cast<Warnings *> (data);
  w->count++;
  w->last = message;
  return TRUE;
}

/* Catches the elements' warnings about refused values until destroyed. */
class WarningFilter {
public:
  WarningFilter () : filter_ (gst_check_add_log_filter (nullptr, G_LOG_LEVEL_WARNING,
        g_regex_new ("refused the value", (GRegexCompileFlags) 0, (GRegexMatchFlags) 0,
            nullptr), count_warning, &warnings, nullptr)) {}
  ~WarningFilter () { gst_check_remove_log_filter (filter_); }
  WarningFilter (const WarningFilter &) = delete;
  WarningFilter & operator= (const WarningFilter &) = delete;
  Warnings warnings;

private:
  GstCheckLogFilter *filter_;
};

/* Going to PAUSED, `pipeline` (taken) fails with an element error whose text
 * names `property` and holds `value`; `what` names the case in failures. */
inline void
expect_start_error (GstElement * pipeline, const char *what, const char *property,
    const char *value)
{
  const std::string quoted = std::string ("\"") + property + "\"";
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != nullptr, "%s: no error", what);
  GError *error = nullptr;
  gst_message_parse_error (msg, &error, nullptr);
  fail_unless (strstr (error->message, quoted.c_str ()) && strstr (error->message, value),
      "%s: error '%s' lacks %s or %s", what, error->message, quoted.c_str (), value);
  fail_unless (g_error_matches (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS));
  g_error_free (error);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

/* `description` as gst-launch-1.0 takes it: `g_warnings` warnings while the
 * properties are set, then going to PAUSED fails with an error whose text
 * names `property` and holds `value`. */
inline void
check_refused_at_start (const char *description, const char *property, const char *value,
    int g_warnings)
{
  WarningFilter filter;
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch (description, &error);
  fail_unless (pipeline != nullptr && error == nullptr, "%s: %s", description,
      error ? error->message : "");
  fail_unless_equals_int (filter.warnings.count, g_warnings);
  const std::string quoted = std::string ("\"") + property + "\"";
  if (g_warnings)
    fail_unless (filter.warnings.last.find (quoted) != std::string::npos &&
        filter.warnings.last.find (value) != std::string::npos, "%s: warning '%s'",
        description, filter.warnings.last.c_str ());
  expect_start_error (pipeline, description, property, value);
}

/* Plays `pipeline` until EOS; an error message, or no EOS within a minute,
 * fails the test naming `what`. Leaves the pipeline PLAYING. */
inline void
play_to_eos (GstElement * pipeline, const char *what)
{
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE, "%s: does not play", what);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  fail_unless (msg != nullptr, "%s: no EOS within a minute", what);
  const bool eos = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
  gst_message_unref (msg);
  gst_object_unref (bus);
  fail_unless (eos, "%s: error before EOS", what);
}

/* Pushes `in` (taken) through the harness and pulls the output. When the
 * push started a background build (a property changed, so the element ran
 * the frame with its previous program), waits for the build and pushes the
 * frame again: the output is the new program's. */
inline GstBuffer *
push_built (GstHarness * h, GstBuffer * in)
{
  const unsigned builds = gstcl::background_builds ();
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull (h);
  if (gstcl::background_builds () != builds) {
    gst_buffer_unref (out);
    gstcl::wait_for_background_builds ();
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)), GST_FLOW_OK);
    out = gst_harness_pull (h);
  }
  gst_buffer_unref (in);
  fail_unless (out != nullptr);
  return out;
}

/* A property change that rebuilds a program while a live source streams at
 * 30 frames/s: `pipeline` (a live source ! ... ! fakesink name=sink
 * sync=false) plays; after 10 frames `change` sets the property. Every frame
 * that reaches the sink is recorded (arrival time, first byte; -2 where the
 * first byte of its last row differs: a torn frame). Checks that
 * each frame shows `old_value` until the first one that shows `new_value`
 * and none after it, that at least `min_meanwhile` frames came out of the
 * old program after the change (the build did not hold them), that the new
 * output appears within `max_wait_s`, and, outside the analysis tools, that
 * no frame waited for the build: no gap between frames above 2 frame
 * periods. With `first_launch_may_wait`, the gap before the first frame of
 * the new program is reported but not checked: PoCL compiles a kernel at
 * its first launch (see docs/architecture.md, Threads). Then
 * `change_again` sets the property once more and the pipeline stops at
 * once, with the build under way (stop waits for it). No warning or error
 * may be posted. */
inline void check_live_rebuild (const char *pipeline_desc,
    const std::function<void (GstElement *)> &change, int old_value, int new_value,
    const std::function<void (GstElement *)> &change_again, size_t min_meanwhile,
    bool first_launch_may_wait, double max_wait_s = 30.0)
{
  struct Frames {
    std::mutex lock;
    std::vector<gint64> at;
    std::vector<int> value;
  } frames;
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch (pipeline_desc, &error);
  fail_unless (pipeline != nullptr, "%s", error ? error->message : "");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER,
      [] (GstPad * pad, GstPadProbeInfo * info, gpointer data) -> GstPadProbeReturn {
        auto *f = (Frames *) data;
        GstMapInfo map;
        int v = -1;
        /* the first byte of the last row too: the pictures are uniform, so
         * a frame whose rows differ (rows read before their kernel wrote
         * them, as frames in bands could) shows as neither value */
        gsize last_row = 0;
        if (GstCaps *caps = gst_pad_get_current_caps (pad)) {
          GstVideoInfo vinfo;
          if (gst_video_info_from_caps (&vinfo, caps))
            last_row = GST_VIDEO_INFO_PLANE_OFFSET (&vinfo, 0) +
                (gsize) GST_VIDEO_INFO_PLANE_STRIDE (&vinfo, 0) *
                (GST_VIDEO_INFO_HEIGHT (&vinfo) - 1);
          gst_caps_unref (caps);
        }
        /* (a frame is there once its kernel has run: mapping waits for it) */
        if (gst_buffer_map (GST_PAD_PROBE_INFO_BUFFER (info), &map, GST_MAP_READ)) {
          v = map.size ? map.data[0] : -1;
          if (last_row < map.size && map.data[last_row] != v)
            v = -2;   /* torn */
          gst_buffer_unmap (GST_PAD_PROBE_INFO_BUFFER (info), &map);
        }
        const gint64 now = g_get_monotonic_time ();
        std::lock_guard<std::mutex> l (f->lock);
        f->at.push_back (now);
        f->value.push_back (v);
        return GST_PAD_PROBE_OK;
      }, &frames, nullptr);
  gst_object_unref (pad);
  gst_object_unref (sink);
  GstBus *bus = gst_element_get_bus (pipeline);

  auto count = [&] { std::lock_guard<std::mutex> l (frames.lock); return frames.at.size (); };
  auto wait_for = [&] (const std::function<bool ()> &done, double seconds, const char *what) {
    if (small_only ())
      seconds *= 20;   /* under valgrind */
    const gint64 until = g_get_monotonic_time () + (gint64) (seconds * G_USEC_PER_SEC);
    while (!done ()) {
      GstMessage *m = gst_bus_pop_filtered (bus,
          (GstMessageType) (GST_MESSAGE_ERROR | GST_MESSAGE_WARNING));
      fail_unless (m == nullptr, "%s message while waiting for %s", m ?
          GST_MESSAGE_TYPE_NAME (m) : "", what);
      fail_unless (g_get_monotonic_time () < until, "timed out waiting for %s", what);
      g_usleep (5000);
    }
  };

  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE);
  wait_for ([&] { return count () >= 10; }, 60.0, "the first 10 frames");
  size_t changed_at;
  {
    std::lock_guard<std::mutex> l (frames.lock);
    changed_at = frames.at.size ();
  }
  const gint64 change_time = g_get_monotonic_time ();
  change (pipeline);
  size_t first_new = 0;
  wait_for ([&] {
      std::lock_guard<std::mutex> l (frames.lock);
      for (size_t i = changed_at; i < frames.value.size () && !first_new; i++)
        if (frames.value[i] == new_value)
          first_new = i;
      return first_new != 0;
    }, max_wait_s, "the new program's output");
  wait_for ([&] { return count () >= first_new + 10; }, 60.0, "10 more frames");

  /* Stop with a build under way: stop waits for it, nothing is left behind. */
  const size_t again_at = count ();
  change_again (pipeline);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  GstMessage *m = gst_bus_pop_filtered (bus,
      (GstMessageType) (GST_MESSAGE_ERROR | GST_MESSAGE_WARNING));
  fail_unless (m == nullptr, "%s message", m ? GST_MESSAGE_TYPE_NAME (m) : "");
  gst_object_unref (bus);

  const double period_us = G_USEC_PER_SEC / 30.0;
  double worst_gap_us = 0.0;
  int worst_at = 0;   /* frames after the change */
  for (size_t i = 0; i < again_at; i++) {
    /* The old program until the new one takes over, then only the new one. */
    const int expected = i < first_new ? old_value : new_value;
    fail_unless (frames.value[i] == expected, "frame %u shows %d, not %d", (unsigned) i,
        frames.value[i], expected);
    if (i >= 5 && frames.at[i] - frames.at[i - 1] > worst_gap_us &&  /* after the start-up */
        !(first_launch_may_wait && i == first_new)) {
      worst_gap_us = (double) (frames.at[i] - frames.at[i - 1]);
      worst_at = (int) i - (int) changed_at;
    }
  }
  const double wait_s = (frames.at[first_new] - change_time) / 1e6;
  GST_INFO ("new output %.3f s after the change (%u frames); worst gap %.1f ms",
      wait_s, (unsigned) (first_new - changed_at), worst_gap_us / 1000.0);
  const double first_gap_ms = (frames.at[first_new] - frames.at[first_new - 1]) / 1000.0;
  g_print ("live rebuild: new output %.3f s after the change, %u frames meanwhile; "
      "worst gap between frames %.1f ms, before frame %d after the change; %.1f ms "
      "before the first new frame\n", wait_s, (unsigned) (first_new - changed_at),
      worst_gap_us / 1000.0, worst_at, first_gap_ms);
  fail_unless (first_new - changed_at >= min_meanwhile, "%u frames from the old "
      "program after the change, not %u: the build held the stream",
      (unsigned) (first_new - changed_at), (unsigned) min_meanwhile);
  if (!small_only ())
    fail_unless (worst_gap_us <= 2 * period_us, "a gap of %.1f ms between frames "
        "(2 periods: %.1f ms): a frame waited for the build", worst_gap_us / 1000.0,
        2 * period_us / 1000.0);
  gst_object_unref (pipeline);
}

/* A string no earlier run used: in build options or a comment, it makes the
 * OpenCL driver compile for real (PoCL caches compiled programs on disk). */
inline std::string unique_tag ()
{
  return std::to_string ((long long) getpid ()) + "_" +
      std::to_string ((long long) g_get_real_time ());
}

}  // namespace cltest
