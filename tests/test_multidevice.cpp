/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Several OpenCL devices in one process (on CI: PoCL with
 * POCL_DEVICES="pthread pthread", tests/meson.build). Pipelines pinned to
 * different devices run at the same time, each in a context of its own
 * device, and give the bytes one device gives; a chain whose elements sit on
 * different devices moves its frames through the host and is still right. */
#include "cltest.h"

#include <gst/app/gstappsink.h>
#include <gst/opencl/gstcldevice.hpp>

static const char *const CHAIN =
    "videotestsrc num-buffers=12 pattern=ball ! video/x-raw,format=RGBA,width=97,height=61 ! "
    "clupload device=%s ! clconvolve device=%s kernel=<1,2,1,2,4,2,1,2,1> ! "
    "clsobel device=%s name=sobel ! cldownload device=%s ! appsink name=out sync=false";

struct Run {
  GstElement *pipeline = nullptr;
  std::vector<std::string> digests;   /* one per frame */
  cl_device_id sobel_device = nullptr;
};

static GstElement *
launch (const char *a, const char *b, const char *c, const char *d)
{
  gchar *desc = g_strdup_printf (CHAIN, a, b, c, d);
  GError *error = nullptr;
  GstElement *p = gst_parse_launch (desc, &error);
  fail_unless (p && !error, "%s: %s", desc, error ? error->message : "");
  g_free (desc);
  return p;
}

/* Pulls every frame of the runs, in turns, so that they stream together. */
static void
play_together (std::vector<Run *> runs)
{
  for (Run *r : runs)
    fail_unless (gst_element_set_state (r->pipeline, GST_STATE_PLAYING) !=
        GST_STATE_CHANGE_FAILURE);
  bool any = true;
  while (any) {
    any = false;
    for (Run *r : runs) {
      GstElement *sink = gst_bin_get_by_name (GST_BIN (r->pipeline), "out");
      GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 30 * GST_SECOND);
      if (sample) {
        any = true;
        GstMapInfo map;
        GstBuffer *buf = gst_sample_get_buffer (sample);
        fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
        gchar *sum = g_compute_checksum_for_data (G_CHECKSUM_SHA256, map.data, map.size);
        r->digests.push_back (sum);
        g_free (sum);
        gst_buffer_unmap (buf, &map);
        gst_sample_unref (sample);
        if (!r->sobel_device) {
          GstElement *sobel = gst_bin_get_by_name (GST_BIN (r->pipeline), "sobel");
          GstClContext *ctx = gst_cl_base_transform_get_context (GST_CL_BASE_TRANSFORM (sobel));
          fail_unless (ctx != nullptr);
          r->sobel_device = gst_cl_context_get_cl_device (ctx);
          gst_object_unref (ctx);
          gst_object_unref (sobel);
        }
      } else {
        fail_unless (gst_app_sink_is_eos (GST_APP_SINK (sink)), "no frame and no EOS");
      }
      gst_object_unref (sink);
    }
  }
  for (Run *r : runs) {
    GstBus *bus = gst_element_get_bus (r->pipeline);
    fail_if (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) != nullptr, "a pipeline failed");
    gst_object_unref (bus);
    gst_element_set_state (r->pipeline, GST_STATE_NULL);
    gst_object_unref (r->pipeline);
  }
}

GST_START_TEST (test_pipelines_on_two_devices)
{
  const auto devices = gstcl::enumerate_devices ();
  fail_unless (devices.size () >= 2, "%zu OpenCL devices: this test needs two "
      "(POCL_DEVICES=\"pthread pthread\")", devices.size ());

  Run on0, on1, crossing;
  on0.pipeline = launch ("0", "0", "0", "0");
  on1.pipeline = launch ("1", "1", "1", "1");
  /* Each element on its own device: every hop goes through the host. */
  crossing.pipeline = launch ("0", "1", "0", "1");
  play_together ({&on0, &on1, &crossing});

  fail_unless_equals_int (on0.digests.size (), 12);
  fail_unless (on0.sobel_device != on1.sobel_device,
      "both pipelines ran on one device");
  fail_unless (on0.sobel_device == devices[0].device ());
  fail_unless (on1.sobel_device == devices[1].device ());
  fail_unless (crossing.sobel_device == devices[0].device ());
  for (const Run *r : {&on1, &crossing}) {
    fail_unless_equals_int (r->digests.size (), on0.digests.size ());
    for (size_t i = 0; i < on0.digests.size (); i++)
      fail_unless (r->digests[i] == on0.digests[i], "frame %zu differs between devices", i);
  }
}
GST_END_TEST

static Suite *
multidevice_suite (void)
{
  Suite *s = suite_create ("multidevice");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_pipelines_on_two_devices);
  return s;
}

GST_CHECK_MAIN (multidevice);
