/* With no OpenCL platform at all (OCL_ICD_VENDORS points at an empty folder),
 * every element fails to start with an element error that names the cause;
 * nothing crashes or hangs. */
#include <gst/check/gstcheck.h>
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

static Suite *
nodevice_suite (void)
{
  Suite *s = suite_create ("nodevice");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_no_platform_is_a_clear_error);
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
