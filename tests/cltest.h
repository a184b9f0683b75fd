/* Shared helpers of the tests: CPU references and frame makers. Everything
 * here is written for the tests, independent of the plugin's code. */
#pragma once

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/opencl/opencl.h>

#include <cstdint>
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

inline std::string caps_string (const char *format, int w, int h, bool cl_memory = false)
{
  return std::string ("video/x-raw") + (cl_memory ? "(memory:OpenCLMemory)" : "") +
      ",format=" + format + ",width=" + std::to_string (w) + ",height=" +
      std::to_string (h) + ",framerate=30/1";
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

/* Gives `element` (and its children) the shared context. */
inline void share_context (GstElement * element)
{
  GstContext *context = gst_context_new_cl_context (shared_context ());
  gst_element_set_context (element, context);
  gst_context_unref (context);
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

}  // namespace cltest
