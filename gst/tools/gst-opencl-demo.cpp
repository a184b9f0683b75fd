/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-opencl-demo: the README's first command. Runs Sobel on the default
 * OpenCL device, prints which device ran it and the frames per second, and
 * writes an edge image to a PNG. */
#include <gst/gst.h>
#include <gst/opencl/opencl.h>

#include <cstdio>
#include <cstdlib>
#include <string>

struct Timing {
  guint frames = 0;
  gint64 first_us = 0, last_us = 0;
};

static GstPadProbeReturn
on_buffer (GstPad *, GstPadProbeInfo *, gpointer data)
{
  auto *t = static_cast<Timing *> (data);
  gint64 now = g_get_monotonic_time ();
  if (t->frames++ == 0)
    t->first_us = now;
  t->last_us = now;
  return GST_PAD_PROBE_OK;
}

/* Runs to EOS; returns false (message printed) on error. */
static bool
run (GstElement * pipeline)
{
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  bool ok = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
  if (!ok) {
    GError *err = nullptr;
    gchar *dbg = nullptr;
    gst_message_parse_error (msg, &err, &dbg);
    std::fprintf (stderr, "error from %s: %s\n%s\n", GST_OBJECT_NAME (msg->src),
        err->message, dbg ? dbg : "");
    g_error_free (err);
    g_free (dbg);
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  return ok;
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  const char *png = argc > 1 ? argv[1] : "edges.png";
  const int frames = argc > 2 ? std::atoi (argv[2]) : 300;

  /* Throughput: frames uploaded, filtered on the device and downloaded. */
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%d pattern=smpte ! "
      "video/x-raw,format=RGBA,width=1920,height=1080 ! clupload ! clsobel name=sobel ! "
      "cldownload ! fakesink name=sink sync=false", frames);
  GError *err = nullptr;
  GstElement *pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  if (err) {  /* also set when an element is missing */
    std::fprintf (stderr, "could not build the pipeline: %s (is the plugin on "
        "GST_PLUGIN_PATH?)\n", err->message);
    return 1;
  }
  Timing t;
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_buffer, &t, nullptr);
  gst_object_unref (pad);
  gst_object_unref (sink);
  if (!run (pipeline))
    return 1;
  GstElement *sobel = gst_bin_get_by_name (GST_BIN (pipeline), "sobel");
  GstClContext *ctx = gst_cl_base_transform_get_context (GST_CL_BASE_TRANSFORM (sobel));
  std::printf ("device: %s\n", ctx ? gst_cl_context_get_device_name (ctx) : "?");
  double secs = (t.last_us - t.first_us) / 1e6;
  if (t.frames > 1 && secs > 0)
    std::printf ("1920x1080 RGBA -> Sobel GRAY8 (videotestsrc ! clupload ! clsobel ! "
        "cldownload): %u frames, %.1f frames/s\n", t.frames, (t.frames - 1) / secs);
  if (ctx)
    gst_object_unref (ctx);
  gst_object_unref (sobel);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);

  /* One edge image, straight from system memory. */
  desc = g_strdup_printf ("videotestsrc num-buffers=1 pattern=smpte ! "
      "video/x-raw,width=640,height=480 ! clsobel ! pngenc ! filesink location=\"%s\"", png);
  pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  if (err || !run (pipeline))
    return 1;
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  std::printf ("wrote %s\n", png);
  return 0;
}
