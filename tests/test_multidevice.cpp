/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Several OpenCL devices in one process (on CI: PoCL with
 * POCL_DEVICES="pthread pthread", tests/meson.build). Pipelines pinned to
 * different devices run at the same time, each in a context of its own
 * device, and give the bytes one device gives; a chain whose elements sit on
 * different devices moves its frames through the host and is still right;
 * device=auto deals pipelines over the devices, every element of a pipeline
 * in its one context; the selectors (type, gpu:N, index, PCI address, UUID,
 * name) pick what they say. */
#include "cltest.h"

#include <gst/app/gstappsink.h>
#include <gst/opencl/gstcldevice.hpp>

static const char *const CHAIN =
    "videotestsrc num-buffers=12 pattern=ball ! video/x-raw,format=RGBA,width=97,height=61 ! "
    "clupload name=up device=%s ! clconvolve name=conv device=%s kernel=<1,2,1,2,4,2,1,2,1> ! "
    "clsobel device=%s name=sobel ! cldownload name=down device=%s ! "
    "appsink name=out sync=false";

struct Run {
  GstElement *pipeline = nullptr;
  std::vector<std::string> digests;   /* one per frame */
  cl_device_id sobel_device = nullptr;
  bool one_context = true;            /* every OpenCL element in sobel's context */
};

/* Whether every OpenCL element of the pipeline holds `ctx`. */
static bool
all_in_context (GstElement * pipeline, GstClContext * ctx)
{
  bool same = true;
  for (const char *name : {"up", "conv", "sobel", "down"}) {
    GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
    fail_unless (e != nullptr, "no element %s", name);
    GstClContext *c = gst_cl_base_transform_get_context (GST_CL_BASE_TRANSFORM (e));
    same = same && c == ctx;
    if (c)
      gst_object_unref (c);
    gst_object_unref (e);
  }
  return same;
}

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
          r->one_context = all_in_context (r->pipeline, ctx);
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

/* device=auto: two pipelines started together land on the two devices
 * (the fewest live contexts), a third on either; within a pipeline every
 * element shares the context; the frames are those of one device. The
 * second one takes `auto` from GST_OPENCL_DEVICE, its property unset. */
GST_START_TEST (test_auto_spreads_pipelines)
{
  /* on CI both PoCL devices; on a GPU host (PoCL first) its GPUs */
  const auto devices = gstcl::auto_devices (gstcl::enumerate_devices ());
  fail_unless (devices.size () >= 2, "%zu OpenCL devices for auto: this test needs two",
      devices.size ());
  for (const auto &d : devices)
    fail_unless_equals_int (gstcl::live_contexts (d.device ()), 0);

  Run reference, a, b, c;
  const std::string first = std::to_string (devices[0].index);
  reference.pipeline = launch (first.c_str (), first.c_str (), first.c_str (), first.c_str ());
  play_together ({&reference});
  a.pipeline = launch ("auto", "auto", "auto", "auto");
  g_setenv ("GST_OPENCL_DEVICE", "auto", TRUE);
  b.pipeline = launch ("\"\"", "\"\"", "\"\"", "\"\"");
  c.pipeline = launch ("auto", "auto", "auto", "auto");
  play_together ({&a, &b, &c});
  g_unsetenv ("GST_OPENCL_DEVICE");

  fail_unless (a.sobel_device == devices[0].device (), "the first auto pipeline is not "
      "on the first device, which had no context");
  fail_unless (b.sobel_device == devices[1].device (), "the second auto pipeline is not "
      "on the second device, which had no context");
  /* with two devices either (one context each); with more the third */
  if (devices.size () > 2)
    fail_unless (c.sobel_device == devices[2].device ());
  else
    fail_unless (c.sobel_device == devices[0].device () || c.sobel_device ==
        devices[1].device ());
  for (const Run *r : {&a, &b, &c}) {
    fail_unless (r->one_context, "the elements of one pipeline hold different contexts");
    fail_unless_equals_int (r->digests.size (), reference.digests.size ());
    for (size_t i = 0; i < reference.digests.size (); i++)
      fail_unless (r->digests[i] == reference.digests[i], "frame %zu differs", i);
  }
  /* every context gone with its pipeline */
  for (const auto &d : devices)
    fail_unless_equals_int (gstcl::live_contexts (d.device ()), 0);
}
GST_END_TEST

/* `auto` counts contexts made through the API as well, and an element with
 * device=auto accepts an application's context on any device, while one
 * with a device of its own accepts only that device's. */
GST_START_TEST (test_auto_counts_contexts)
{
  const auto devices = gstcl::auto_devices (gstcl::enumerate_devices ());
  fail_unless (devices.size () >= 2);
  /* "cpu:1" on CI, "gpu:1" on a GPU host: the second device auto deals to */
  const std::string second_of_type = std::string (devices[1].type_name ()) + ":1",
      first_of_type = devices[0].type_name (), second_index = std::to_string (devices[1].index),
      first_index = std::to_string (devices[0].index);
  GstClContext *first = gst_cl_context_new ("auto", nullptr);
  GstClContext *second = gst_cl_context_new ("auto", nullptr);
  fail_unless (first && second);
  fail_unless (gst_cl_context_get_cl_device (first) == devices[0].device ());
  fail_unless (gst_cl_context_get_cl_device (second) == devices[1].device ());
  fail_unless_equals_int (gstcl::live_contexts (devices[0].device ()), 1);
  fail_unless_equals_int (gstcl::live_contexts (devices[1].device ()), 1);
  /* one more on the second device: the next auto goes to the first (to the
   * third where there is one, with none) */
  GstClContext *pinned = gst_cl_context_new (second_of_type.c_str (), nullptr);
  fail_unless (gst_cl_context_get_cl_device (pinned) == devices[1].device ());
  GstClContext *third = gst_cl_context_new ("auto", nullptr);
  fail_unless (gst_cl_context_get_cl_device (third) ==
      devices[devices.size () > 2 ? 2 : 0].device ());

  fail_unless (gst_cl_context_matches (second, "auto"));
  fail_unless (gst_cl_context_matches (second, second_index.c_str ()));
  fail_unless (gst_cl_context_matches (second, second_of_type.c_str ()));
  fail_if (gst_cl_context_matches (second, first_index.c_str ()));
  fail_if (gst_cl_context_matches (second, first_of_type.c_str ()));
  for (GstClContext *c : {first, second, pinned, third})
    gst_object_unref (c);
  fail_unless_equals_int (gstcl::live_contexts (devices[0].device ()), 0);
  fail_unless_equals_int (gstcl::live_contexts (devices[1].device ()), 0);
}
GST_END_TEST

/* The selectors over a made-up host with PoCL first and two GPUs, as
 * where PoCL shifts the GPUs' indices to 1 and 2: index, type, gpu:N,
 * PCI address (with or without the domain, any case), UUID (with or
 * without dashes, nvidia-smi's GPU- form), name; ids that match nothing. */
GST_START_TEST (test_selectors)
{
  std::vector<gstcl::DeviceEntry> host (3);
  const char *names[] = {"cpu-skylake", "NVIDIA H200", "NVIDIA H200"};
  for (unsigned i = 0; i < 3; i++) {
    host[i].index = i;
    host[i].platform_name = i == 0 ? "Portable Computing Language" : "NVIDIA CUDA";
    host[i].device_name = names[i];
    host[i].type = i == 0 ? CL_DEVICE_TYPE_CPU : CL_DEVICE_TYPE_GPU;
  }
  host[1].pci_bus = "0000:1b:00.0";
  host[1].uuid = "6b3a8d2e-0c1f-4e7a-9b2d-1f0e3c4a5b6d";
  host[2].pci_bus = "0000:c1:00.0";
  host[2].uuid = "a1b2c3d4-e5f6-0718-293a-4b5c6d7e8f90";
  const struct {
    const char *selector;
    int index;   /* -1: none */
  } cases[] = {
    {"", 1}, {"auto", 1}, {"gpu", 1}, {"GPU:1", 2}, {"gpu:2", -1}, {"cpu", 0},
    {"cpu:0", 0}, {"accelerator", -1}, {"2", 2}, {"3", -1},
    {"pci:0000:c1:00.0", 2}, {"pci:C1:00.0", 2}, {"c1:00.0", 2}, {"0000:1b:00.0", 1},
    {"00000000:C1:00.0", 2},   /* as nvidia-smi --query-gpu=pci.bus_id prints it */
    {"pci:0000:c2:00.0", -1}, {"pci:nonsense", -1},
    {"uuid:a1b2c3d4-e5f6-0718-293a-4b5c6d7e8f90", 2},
    {"A1B2C3D4E5F60718293A4B5C6D7E8F90", 2},
    {"GPU-6b3a8d2e-0c1f-4e7a-9b2d-1f0e3c4a5b6d", 1},
    {"uuid:00000000-0000-0000-0000-000000000000", -1}, {"uuid:xyz", -1},
    {"nvidia", 1}, {"portable", 0}, {"h200", 1}, {"radeon", -1},
  };
  for (const auto &c : cases) {
    const gstcl::DeviceEntry *d = gstcl::match_device (host, c.selector);
    fail_unless ((d ? (int) d->index : -1) == c.index, "'%s' picks %d, expected %d",
        c.selector, d ? (int) d->index : -1, c.index);
  }
  fail_unless (gstcl::selector_takes_any ("") && gstcl::selector_takes_any (" AUTO "));
  fail_if (gstcl::selector_takes_any ("gpu"));
}
GST_END_TEST

/* On the real devices: a pipeline with device=cpu:1 (gpu:1 on a GPU host)
 * runs on the second such device, each device's stable ids pick it, and the
 * error for an id that matches nothing names the devices. */
GST_START_TEST (test_select_real_devices)
{
  const auto devices = gstcl::enumerate_devices ();
  const auto of_type = gstcl::auto_devices (devices);
  fail_unless (of_type.size () >= 2);
  const std::string second = std::string (of_type[1].type_name ()) + ":1";
  Run r;
  r.pipeline = launch (second.c_str (), second.c_str (), second.c_str (), second.c_str ());
  play_together ({&r});
  fail_unless (r.sobel_device == of_type[1].device ());
  fail_unless_equals_int (r.digests.size (), 12);
  for (const auto &d : devices) {
    /* a device's own ids pick it (PoCL gives none: then nothing to check) */
    if (!d.pci_bus.empty ())
      fail_unless (gstcl::select_device ("pci:" + d.pci_bus).device () == d.device ());
    if (!d.uuid.empty ())
      fail_unless (gstcl::select_device ("uuid:" + d.uuid).device () == d.device ());
  }
  GError *error = nullptr;
  fail_unless (gst_cl_context_new ("pci:00ff:ff:1f.7", &error) == nullptr);
  fail_unless (error && strstr (error->message, "no OpenCL device matches") &&
      strstr (error->message, "\n  1: "), "%s", error ? error->message : "no error");
  g_clear_error (&error);
}
GST_END_TEST

static Suite *
multidevice_suite (void)
{
  Suite *s = suite_create ("multidevice");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_pipelines_on_two_devices);
  tcase_add_test (tc, test_auto_spreads_pipelines);
  tcase_add_test (tc, test_auto_counts_contexts);
  tcase_add_test (tc, test_selectors);
  tcase_add_test (tc, test_select_real_devices);
  return s;
}

GST_CHECK_MAIN (multidevice);
