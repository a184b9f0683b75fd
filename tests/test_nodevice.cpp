/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* With no OpenCL platform at all (OCL_ICD_VENDORS points at an empty folder),
 * every element fails to start with an element error that names the cause;
 * state cycling in several orders, alone or linked, fails the same way each
 * time and returns to NULL; nothing crashes or hangs. */
#include "cltest.h"
#include <glib/gstdio.h>

#include <cstring>

static void
expect_clear_failure (const char *desc, const char *element_name)
{
  GstElement *pipeline = gst_parse_launch (desc, nullptr);
  fail_unless (pipeline != nullptr);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_PLAYING),
      GST_STATE_CHANGE_FAILURE);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (msg != nullptr, "%s: no error message", desc);
  GError *err = nullptr;
  gchar *dbg = nullptr;
  gst_message_parse_error (msg, &err, &dbg);
  GST_INFO ("%s: %s (%s)", desc, err->message, dbg);
  fail_unless (g_str_has_prefix (GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), element_name),
      "error from %s", GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)));
  fail_unless (strstr (err->message, "No usable OpenCL device") &&
      strstr (err->message, "no OpenCL platform found"), "unclear message: %s", err->message);
  fail_unless (err->domain == GST_RESOURCE_ERROR);
  g_error_free (err);
  g_free (dbg);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_START_TEST (test_no_platform_is_a_clear_error)
{
  expect_clear_failure ("videotestsrc ! clsobel ! fakesink", "clsobel");
  expect_clear_failure ("videotestsrc ! clupload ! fakesink", "clupload");
  expect_clear_failure ("videotestsrc ! cldownload ! fakesink", "cldownload");
  /* And again: a second try fails the same way. */
  expect_clear_failure ("videotestsrc ! clsobel ! fakesink", "clsobel");
}
GST_END_TEST

/* Going up to PAUSED or PLAYING starts the element: that fails. */
static bool
needs_device (GstState s)
{
  return s == GST_STATE_PAUSED || s == GST_STATE_PLAYING;
}

/* Drives `e` (an element or a pipeline) through `order`, twice: every change
 * that needs the device fails (with the clear error on `bus`, when given),
 * then NULL works again. */
static void
cycle (GstElement * e, const GstState * order, int n, GstBus * bus, const char *what)
{
  for (int rep = 0; rep < 2; rep++)
    for (int i = 0; i < n; i++) {
      GstStateChangeReturn r = gst_element_set_state (e, order[i]);
      if (r == GST_STATE_CHANGE_ASYNC)
        r = gst_element_get_state (e, nullptr, nullptr, 10 * GST_SECOND);
      if (needs_device (order[i])) {
        fail_unless_equals_int (r, GST_STATE_CHANGE_FAILURE);
        if (bus) {
          GstMessage *msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
              GST_MESSAGE_ERROR);
          fail_unless (msg != nullptr, "%s: no error message", what);
          GError *err = nullptr;
          gst_message_parse_error (msg, &err, nullptr);
          fail_unless (strstr (err->message, "no OpenCL platform found"),
              "%s: unclear message: %s", what, err->message);
          g_error_free (err);
          gst_message_unref (msg);
        }
        /* Back to NULL from the failed state; nothing hangs. */
        fail_unless_equals_int (gst_element_set_state (e, GST_STATE_NULL),
            GST_STATE_CHANGE_SUCCESS);
        if (bus) {  /* drop the other messages of this failure */
          gst_bus_set_flushing (bus, TRUE);
          gst_bus_set_flushing (bus, FALSE);
        }
      } else {
        fail_unless_equals_int (r, GST_STATE_CHANGE_SUCCESS);
      }
    }
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
}

static const GstState orders[][5] = {
  {GST_STATE_READY, GST_STATE_PAUSED, GST_STATE_NULL},
  {GST_STATE_PLAYING, GST_STATE_NULL, GST_STATE_READY, GST_STATE_NULL},
  {GST_STATE_READY, GST_STATE_PLAYING, GST_STATE_READY, GST_STATE_PAUSED, GST_STATE_NULL},
  {GST_STATE_PAUSED, GST_STATE_PLAYING, GST_STATE_PAUSED, GST_STATE_READY, GST_STATE_NULL},
};
static const int order_lengths[] = {3, 4, 5, 5};

GST_START_TEST (test_state_cycling_unlinked)
{
  for (const std::string & name : cltest::plugin_elements ())
    for (guint o = 0; o < G_N_ELEMENTS (orders); o++) {
      const char *f = name.c_str ();
      GstElement *e = gst_element_factory_make (f, nullptr);
      fail_unless (e != nullptr, "%s", f);
      gst_object_ref_sink (e);
      cycle (e, orders[o], order_lengths[o], nullptr, f);
      gst_object_unref (e);
    }
}
GST_END_TEST

GST_START_TEST (test_state_cycling_linked)
{
  for (const std::string & name : cltest::plugin_elements ())
    for (guint o = 0; o < G_N_ELEMENTS (orders); o++) {
      const char *f = name.c_str ();
      gchar *desc = g_strdup_printf ("videotestsrc ! %s ! fakesink", f);
      GstElement *pipeline = gst_parse_launch (desc, nullptr);
      fail_unless (pipeline != nullptr, "%s", desc);
      GstBus *bus = gst_element_get_bus (pipeline);
      cycle (pipeline, orders[o], order_lengths[o], bus, desc);
      gst_object_unref (bus);
      gst_object_unref (pipeline);
      g_free (desc);
    }
}
GST_END_TEST

static Suite *
nodevice_suite (void)
{
  Suite *s = suite_create ("nodevice");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_no_platform_is_a_clear_error);
  tcase_add_test (tc, test_state_cycling_unlinked);
  tcase_add_test (tc, test_state_cycling_linked);
  return s;
}

int
main (int argc, char **argv)
{
  /* Before the ICD loader first runs: an empty vendor folder, no platform. */
  gchar *empty = g_dir_make_tmp ("no-opencl-vendors-XXXXXX", nullptr);
  g_setenv ("OCL_ICD_VENDORS", empty, TRUE);
  gst_check_init (&argc, &argv);
  int failed = gst_check_run_suite (nodevice_suite (), "nodevice", __FILE__);
  g_rmdir (empty);
  g_free (empty);
  return failed ? 1 : 0;
}
