/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The planning rule, for every filter of the plugin (docs/architecture.md,
 * "Filters"): which kernel runs, its build options and the arguments that do
 * not change per frame are decided when the caps, the settings or the
 * frames' layouts change, never per frame. The counters of the runtime prove
 * it: the filter's plans (gst_cl_filter_get_plan_count ()) and the process's
 * program lookups (gstcl::program_lookups ()) do not move while frames
 * stream with nothing changed, and one property change makes exactly one
 * plan, at the next frame.
 *
 * Each filter element is a test of its own (a loop test; its failures name
 * it). CLTEST_ELEMENT=clsobel (or a comma-separated list) runs only that
 * loop, for those elements. */
#include "cltest.h"

#include <gst/base/gstbasetransform.h>
#include <gst/opencl/opencl.h>
#include <gst/opencl/gstcl.hpp>

#include <algorithm>
#include <string>
#include <vector>

static const int kWidth = 64, kHeight = 48;
static const int kSteadyFrames = 8;

/* The plugin's elements that are GstClFilters (not clupload and cldownload),
 * or those of CLTEST_ELEMENT, sorted. Read from the registry as
 * cltest::plugin_elements () does, without its checks: the suite is made
 * outside any test, where check's assertions cannot run. */
static const std::vector<std::string> &
filter_elements ()
{
  static const std::vector<std::string> names = [] {
    std::vector<std::string> r;
    const char *only = g_getenv ("CLTEST_ELEMENT");
    gchar **wanted = only && *only ? g_strsplit (only, ",", -1) : nullptr;
    GList *features = gst_registry_get_feature_list_by_plugin (gst_registry_get (), "opencl");
    for (GList *l = features; l; l = l->next) {
      if (!GST_IS_ELEMENT_FACTORY (l->data) ||
          (wanted && !g_strv_contains (wanted, GST_OBJECT_NAME (l->data))))
        continue;
      GstPluginFeature *loaded = gst_plugin_feature_load (GST_PLUGIN_FEATURE (l->data));
      const GType type = loaded ?
          gst_element_factory_get_element_type (GST_ELEMENT_FACTORY (loaded)) : 0;
      if (g_type_is_a (type, GST_TYPE_CL_FILTER))
        r.push_back (GST_OBJECT_NAME (l->data));
      if (loaded)
        gst_object_unref (loaded);
    }
    gst_plugin_feature_list_free (features);
    g_strfreev (wanted);
    std::sort (r.begin (), r.end ());
    return r;
  } ();
  return names;
}

/* A property change: the property and its new value (as gst-launch takes it). */
struct Change {
  std::string property, value;
};

/* Values for properties the generic choice below cannot make up. */
static const struct {
  const char *element, *property, *value;
} kKnownChanges[] = {
  {"clkernel", "build-options", "-D PLAN_TEST=1"},
};

/* Which kind of property the generic choice prefers: variants first. */
static int
preference (const GParamSpec * pspec)
{
  if (G_IS_PARAM_SPEC_ENUM (pspec))
    return 0;
  if (G_IS_PARAM_SPEC_BOOLEAN (pspec))
    return 1;
  if (G_IS_PARAM_SPEC_DOUBLE (pspec) || G_IS_PARAM_SPEC_INT (pspec) ||
      G_IS_PARAM_SPEC_UINT (pspec))
    return 2;
  return -1;
}

/* Another valid value of `pspec`, given its current one, as a string. */
static std::string
other_value (GObject * object, GParamSpec * pspec)
{
  GValue now = G_VALUE_INIT;
  g_value_init (&now, pspec->value_type);
  g_object_get_property (object, pspec->name, &now);
  std::string r;
  if (G_IS_PARAM_SPEC_ENUM (pspec)) {
    GEnumClass *e = G_PARAM_SPEC_ENUM (pspec)->enum_class;
    for (guint i = 0; i < e->n_values && r.empty (); i++)
      if (e->values[i].value != g_value_get_enum (&now))
        r = e->values[i].value_nick;
  } else if (G_IS_PARAM_SPEC_BOOLEAN (pspec)) {
    r = g_value_get_boolean (&now) ? "false" : "true";
  } else if (G_IS_PARAM_SPEC_DOUBLE (pspec)) {
    const GParamSpecDouble *d = G_PARAM_SPEC_DOUBLE (pspec);
    const double v = g_value_get_double (&now);
    gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
    r = g_ascii_dtostr (buf, sizeof buf, v + 1 <= d->maximum ? v + 1 : (v + d->minimum) / 2);
  } else if (G_IS_PARAM_SPEC_INT (pspec)) {
    const gint v = g_value_get_int (&now);
    r = std::to_string (v < G_PARAM_SPEC_INT (pspec)->maximum ? v + 1 : v - 1);
  } else if (G_IS_PARAM_SPEC_UINT (pspec)) {
    const guint v = g_value_get_uint (&now);
    r = std::to_string (v < G_PARAM_SPEC_UINT (pspec)->maximum ? v + 1 : v - 1);
  }
  g_value_unset (&now);
  return r;
}

/* The element's own properties that may change while playing. */
static bool
changeable (const GParamSpec * pspec)
{
  return (pspec->flags & G_PARAM_READWRITE) == G_PARAM_READWRITE &&
      (pspec->flags & GST_PARAM_MUTABLE_PLAYING) &&
      g_type_is_a (pspec->owner_type, GST_TYPE_CL_FILTER);
}

/* The changes to check on `element`: a known one, else its first changeable
 * property by kind (enum, boolean, number) and name; and every changeable
 * property that notifies only explicitly (G_PARAM_EXPLICIT_NOTIFY), which
 * must still count as a change of the settings. */
static std::vector<Change>
changes_for (const std::string &name, GstElement * element)
{
  std::vector<Change> changes;
  for (const auto &k : kKnownChanges)
    if (name == k.element)
      changes.push_back ({k.property, k.value});
  guint n = 0;
  GParamSpec **pspecs = g_object_class_list_properties (G_OBJECT_GET_CLASS (element), &n);
  std::vector<GParamSpec *> candidates;
  for (guint i = 0; i < n; i++)
    if (changeable (pspecs[i]) && preference (pspecs[i]) >= 0)
      candidates.push_back (pspecs[i]);
  std::sort (candidates.begin (), candidates.end (), [] (GParamSpec * a, GParamSpec * b) {
      return preference (a) != preference (b) ? preference (a) < preference (b) :
          strcmp (a->name, b->name) < 0;
    });
  if (changes.empty () && !candidates.empty ())
    changes.push_back ({candidates[0]->name, other_value (G_OBJECT (element), candidates[0])});
  for (GParamSpec *p : candidates)
    if ((p->flags & G_PARAM_EXPLICIT_NOTIFY) && p->name != changes[0].property)
      changes.push_back ({p->name, other_value (G_OBJECT (element), p)});
  g_free (pspecs);
  return changes;
}

struct Stream {
  GstHarness *h;
  GstVideoInfo info;
  bool bayer;
  guint32 seed = 1;
  int pad = 0;   /* bytes more a row, and before the first plane (GstVideoMeta) */

  /* Pushes `n` frames and drops the output. */
  void push (const std::string &name, int n)
  {
    for (int i = 0; i < n; i++) {
      fail_unless_equals_int (gst_harness_push (h, cltest::random_frame (&info, pad, seed++)),
          GST_FLOW_OK);
      GstBuffer *out = gst_harness_pull (h);
      fail_unless (out != nullptr, "%s: no output", name.c_str ());
      gst_buffer_unref (out);
    }
  }
};

static guint
plans_of (GstHarness * h)
{
  return gst_cl_filter_get_plan_count (GST_CL_FILTER (h->element));
}

/* With nothing changed, `frames` frames make no plan and look no program up. */
static void
check_steady (const std::string &name, Stream & s, const char *after)
{
  const guint plans = plans_of (s.h);
  const unsigned lookups = gstcl::program_lookups ();
  s.push (name, kSteadyFrames);
  fail_unless (plans_of (s.h) == plans, "%s (%s): %u plans in %d frames with nothing "
      "changed: it plans per frame", name.c_str (), after, plans_of (s.h) - plans,
      kSteadyFrames);
  fail_unless (gstcl::program_lookups () == lookups, "%s (%s): %u program lookups in %d "
      "frames with nothing changed: it chooses its program per frame", name.c_str (), after,
      gstcl::program_lookups () - lookups, kSteadyFrames);
}

/* Pushes one frame after a change (`what`) and checks that it made exactly
 * one plan. A change that started a background build is planned once more
 * when the build is ready: waits for it and pushes a frame, which may make
 * that one plan. */
static void
check_one_plan (const std::string &name, Stream & s, const std::string &what)
{
  const guint plans = plans_of (s.h);
  const unsigned background = gstcl::background_builds ();
  s.push (name, 1);
  fail_unless (plans_of (s.h) == plans + 1, "%s: %u plans at the first frame after %s, "
      "not 1%s", name.c_str (), plans_of (s.h) - plans, what.c_str (),
      plans_of (s.h) == plans ? " (does it implement GstClFilterClass::plan?)" : "");
  if (gstcl::background_builds () != background) {
    gstcl::wait_for_background_builds ();
    const guint before = plans_of (s.h);
    s.push (name, 1);
    fail_unless (plans_of (s.h) <= before + 1, "%s: %u plans at the frame after the "
        "background build for %s was ready, not 1", name.c_str (), plans_of (s.h) - before,
        what.c_str ());
  }
}

/* The plugin has filters (or CLTEST_ELEMENT names one). */
GST_START_TEST (test_there_are_filters)
{
  fail_if (filter_elements ().empty (), "no GstClFilter element in the plugin%s",
      g_getenv ("CLTEST_ELEMENT") ? " of those CLTEST_ELEMENT names" : "");
}
GST_END_TEST

/* The rule for `name` on frames of `format`; failures say "name (format)". */
static void
check_filter (const std::string &name, const std::string &format)
{
  const std::string id = name + " (" + format + ")";
  GstHarness *h = gst_harness_new (name.c_str ());
  cltest::share_context (h->element);
  const std::string caps = cltest::caps_string (format, kWidth, kHeight);
  gst_harness_set_src_caps_str (h, caps.c_str ());
  Stream s { h, {}, cltest::is_bayer (format) };
  GstCaps *c = gst_caps_from_string (caps.c_str ());
  fail_unless (gst_cl_video_info_from_caps (&s.info, c));
  gst_caps_unref (c);

  /* A filter that passes the frames through (clconvert between equal caps)
   * runs no kernel and plans nothing: ask it for half the size. */
  s.push (id, 1);
  if (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM (h->element))) {
    gst_harness_set_sink_caps_str (h, (std::string (s.bayer ? "video/x-bayer" : "video/x-raw") +
            ",width=" + std::to_string (kWidth / 2) + ",height=" +
            std::to_string (kHeight / 2)).c_str ());
    s.push (id, 1);
    fail_if (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM (h->element)),
        "%s: still passthrough at another size", id.c_str ());
  }
  s.push (id, 2);
  check_steady (id, s, "first frames");
  fail_unless (plans_of (h) >= 1, "%s made no plan in its first frames: it does not "
      "implement GstClFilterClass::plan", id.c_str ());

  /* (c) frames laid out otherwise (16 bytes more a row and before the first
   * plane: no repacking for 16-bit samples), then as before. */
  if (!s.bayer) {
    s.pad = 16;
    check_one_plan (id, s, "a frame with other strides");
    check_steady (id, s, "other strides");
    s.pad = 0;
    check_one_plan (id, s, "a frame with the first strides again");
    check_steady (id, s, "the first strides again");
  }

  /* (b) one property changed. */
  const std::vector<Change> changes = changes_for (name, h->element);
  fail_if (changes.empty (), "%s: no property to change while playing", id.c_str ());
  for (const Change &change : changes) {
    gst_util_set_object_arg (G_OBJECT (h->element), change.property.c_str (),
        change.value.c_str ());
    const std::string what = change.property + "=" + change.value;
    check_one_plan (id, s, what);
    check_steady (id, s, what.c_str ());
  }
  gst_harness_teardown (h);
}

/* One filter element, on the first and the last format of its sink
 * template. */
GST_START_TEST (test_filter_plans)
{
  const std::string name = filter_elements ()[__i__];
  for (const std::string &format : cltest::template_formats (name))
    check_filter (name, format);
}
GST_END_TEST

/* The settings' counter moves with every property set (GObject's notify),
 * also while the element is stopped, and not for GstObject's own
 * properties. */
GST_START_TEST (test_settings_changes_count)
{
  GstHarness *h = gst_harness_new ("clsobel");
  cltest::share_context (h->element);
  Stream s { h, cltest::video_info ("GRAY8", kWidth, kHeight), false };
  gst_harness_set_src_caps_str (h, cltest::caps_string ("GRAY8", kWidth, kHeight).c_str ());
  s.push ("clsobel", 2);
  check_steady ("clsobel", s, "first frames");
  /* two settings at once: one plan */
  g_object_set (h->element, "scale", 2.0, "threshold", 10.0, nullptr);
  check_one_plan ("clsobel", s, "scale and threshold");
  /* GstObject's name is no setting */
  gst_object_set_name (GST_OBJECT (h->element), "renamed");
  check_steady ("clsobel", s, "a new name");
  /* a change that does not notify, told by the element */
  gst_cl_filter_settings_changed (GST_CL_FILTER (h->element));
  check_one_plan ("clsobel", s, "gst_cl_filter_settings_changed ()");
  gst_cl_filter_replan (GST_CL_FILTER (h->element));
  check_one_plan ("clsobel", s, "gst_cl_filter_replan ()");
  check_steady ("clsobel", s, "a replan");
  gst_harness_teardown (h);
}
GST_END_TEST

/* clkernel's parameters change through its child object, whose notify the
 * filter does not see: the element tells the base class. */
GST_START_TEST (test_clkernel_parameter_child)
{
  GstHarness *h = gst_harness_new ("clkernel");
  cltest::share_context (h->element);
  gst_util_set_object_arg (G_OBJECT (h->element), "source", "float4 filter (image_t img, "
      "int x, int y) { return read_pixel (img, x, y) * gain; }");
  gst_util_set_object_arg (G_OBJECT (h->element), "parameters", "p, gain=(float)0.5");
  Stream s { h, cltest::video_info ("RGBA", kWidth, kHeight), false };
  gst_harness_set_src_caps_str (h, cltest::caps_string ("RGBA", kWidth, kHeight).c_str ());
  s.push ("clkernel", 2);
  check_steady ("clkernel", s, "first frames");
  gst_child_proxy_set (GST_CHILD_PROXY (h->element), "parameters::gain", 0.25f, nullptr);
  check_one_plan ("clkernel", s, "parameters::gain");
  check_steady ("clkernel", s, "parameters::gain");
  gst_harness_teardown (h);
}
GST_END_TEST

/* cldebayer's camera path: auto white balance reads its statistics back
 * and moves its gains every frame, and plans nothing for it; a change of
 * method (another variant of its table) is one plan. */
GST_START_TEST (test_cldebayer_camera_path)
{
  GstHarness *h = gst_harness_new ("cldebayer");
  cltest::share_context (h->element);
  gst_util_set_object_arg (G_OBJECT (h->element), "white-balance", "auto");
  gst_util_set_object_arg (G_OBJECT (h->element), "black-level", "16");
  gst_util_set_object_arg (G_OBJECT (h->element), "transfer", "srgb");
  const std::string caps = cltest::caps_string ("rggb", kWidth, kHeight);
  gst_harness_set_src_caps_str (h, caps.c_str ());
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=NV12");
  Stream s { h, {}, true };
  GstCaps *c = gst_caps_from_string (caps.c_str ());
  fail_unless (gst_cl_video_info_from_caps (&s.info, c));
  gst_caps_unref (c);
  s.push ("cldebayer", 2);
  check_steady ("cldebayer", s, "auto white balance");
  /* the statistics were read back while no plan was made */
  GstStructure *stats = nullptr;
  g_object_get (h->element, "statistics", &stats, nullptr);
  guint64 frames = 0;
  fail_unless (gst_structure_get_uint64 (stats, "frames", &frames));
  gst_structure_free (stats);
  fail_unless (frames >= 2, "cldebayer: %" G_GUINT64_FORMAT " statistics read back in %d "
      "frames", frames, kSteadyFrames + 2);
  gst_util_set_object_arg (G_OBJECT (h->element), "method", "menon");
  check_one_plan ("cldebayer", s, "method=menon");
  check_steady ("cldebayer", s, "method=menon");
  gst_harness_teardown (h);
}
GST_END_TEST

static Suite *
plan_suite (void)
{
  Suite *s = suite_create ("plan");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  /* (a kernel's first launch may still compile when a test ends) */
  tcase_add_checked_fixture (tc, nullptr, cltest::drop_shared_context_and_drain);
  tcase_add_test (tc, test_there_are_filters);
  tcase_add_loop_test (tc, test_filter_plans, 0, (int) filter_elements ().size ());
  if (g_getenv ("CLTEST_ELEMENT"))
    return s;
  tcase_add_test (tc, test_settings_changes_count);
  tcase_add_test (tc, test_clkernel_parameter_child);
  tcase_add_test (tc, test_cldebayer_camera_path);
  return s;
}

GST_CHECK_MAIN (plan);
