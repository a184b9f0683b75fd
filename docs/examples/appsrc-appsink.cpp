/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* appsrc-appsink: an application's own camera frames through OpenCL filters.
 *
 *   appsrc (video/x-bayer,format=rggb) ! cldebayer ! clsobel ! appsink (GRAY8)
 *
 * The application pushes raw Bayer frames it made itself (here: a bright
 * square on a dark background, as if a sensor looked at a grey scene), the
 * frames are demosaiced and edge-filtered on the OpenCL device, and the edge
 * images come back to the application in system memory. cldebayer uploads the
 * input, the frame stays on the device between cldebayer and clsobel, and
 * clsobel's output is read by the host when the application maps it.
 *
 * Checks what it gets: GRAY8 at the input's size, strong edges along the
 * square's outline and exact zeros far from it. Exit status 0 when all frames
 * are right.
 *
 * Build against an installed gst-opencl (only GStreamer itself is needed to
 * build it; the elements come from the plugin at run time):
 *   c++ -std=c++17 appsrc-appsink.cpp -o appsrc-appsink \
 *       $(pkg-config --cflags --libs gstreamer-app-1.0 gstreamer-video-1.0)
 */
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>

#include <algorithm>
#include <cstdio>
#include <vector>

constexpr int kWidth = 318, kHeight = 238;   /* rows of 318 samples take 320 bytes */
constexpr int kSquare = 64;                  /* side of the bright square */
constexpr guint8 kDark = 20, kBright = 230;
constexpr int kFrames = 5;

/* Where the square is in frame i: it moves, so every frame differs. */
static int square_x (int i) { return 60 + 12 * i; }
static int square_y (int i) { return 70 + 5 * i; }

/* One 8-bit Bayer frame. A grey scene gives every sample the same value
 * whatever its colour, so the pattern (rggb here) does not matter. 8-bit
 * Bayer rows are padded to a multiple of 4 bytes, like GStreamer's GRAY8. */
static GstBuffer *
make_bayer_frame (int i)
{
  const int stride = GST_ROUND_UP_4 (kWidth);
  std::vector<guint8> data (stride * kHeight, kDark);
  for (int y = square_y (i); y < square_y (i) + kSquare; y++)
    for (int x = square_x (i); x < square_x (i) + kSquare; x++)
      data[y * stride + x] = kBright;
  GstBuffer *buf = gst_buffer_new_memdup (data.data (), data.size ());
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale (i, GST_SECOND, 30);
  GST_BUFFER_DURATION (buf) = gst_util_uint64_scale (1, GST_SECOND, 30);
  return buf;
}

/* Distance of (x, y) from the outline of the square of frame i. */
static int
distance_to_outline (int i, int x, int y)
{
  const int x0 = square_x (i), y0 = square_y (i);
  const int x1 = x0 + kSquare - 1, y1 = y0 + kSquare - 1;
  /* distance to the rectangle [x0, x1] x [y0, y1] from outside, or to its
   * border from inside */
  const int dx = x < x0 ? x0 - x : x > x1 ? x - x1 : 0;
  const int dy = y < y0 ? y0 - y : y > y1 ? y - y1 : 0;
  if (dx || dy)
    return dx > dy ? dx : dy;
  const int in_x = std::min (x - x0, x1 - x), in_y = std::min (y - y0, y1 - y);
  return std::min (in_x, in_y);
}

/* The edge image of frame i: zero away from the square (a flat scene has no
 * gradient), strong all along its outline. */
static bool
check_edges (int i, GstSample * sample)
{
  GstVideoInfo info;
  if (!gst_video_info_from_caps (&info, gst_sample_get_caps (sample)) ||
      GST_VIDEO_INFO_FORMAT (&info) != GST_VIDEO_FORMAT_GRAY8 ||
      GST_VIDEO_INFO_WIDTH (&info) != kWidth || GST_VIDEO_INFO_HEIGHT (&info) != kHeight) {
    std::fprintf (stderr, "frame %d: unexpected caps\n", i);
    return false;
  }
  GstVideoFrame frame;
  /* Honours the buffer's GstVideoMeta (its real row stride). */
  if (!gst_video_frame_map (&frame, &info, gst_sample_get_buffer (sample), GST_MAP_READ)) {
    std::fprintf (stderr, "frame %d: cannot map\n", i);
    return false;
  }
  const guint8 *pixels = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0);
  const int stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
  auto at = [&] (int x, int y) { return pixels[y * stride + x]; };

  bool ok = true;
  int far_nonzero = 0, edge_pixels = 0;
  for (int y = 0; y < kHeight; y++)
    for (int x = 0; x < kWidth; x++) {
      if (at (x, y) > 0)
        edge_pixels++;
      /* The demosaic filter reaches 2 samples, Sobel 1 more. */
      if (distance_to_outline (i, x, y) > 4 && at (x, y) != 0)
        far_nonzero++;
    }
  if (far_nonzero) {
    std::fprintf (stderr, "frame %d: %d non-zero pixels far from the square\n", i,
        far_nonzero);
    ok = false;
  }
  /* Across each side, away from the corners, the step of 210 grey levels
   * gives a saturated gradient within a pixel of the outline. */
  const int x0 = square_x (i), y0 = square_y (i);
  const int x1 = x0 + kSquare - 1, y1 = y0 + kSquare - 1;
  int weak = 0;
  for (int t = 4; t < kSquare - 4; t++) {
    auto strongest = [&] (int cx, int cy, int step_x, int step_y) {
      int best = 0;
      for (int d = -1; d <= 1; d++)
        best = std::max (best, (int) at (cx + d * step_x, cy + d * step_y));
      return best;
    };
    if (strongest (x0, y0 + t, 1, 0) < 200 || strongest (x1, y0 + t, 1, 0) < 200 ||
        strongest (x0 + t, y0, 0, 1) < 200 || strongest (x0 + t, y1, 0, 1) < 200)
      weak++;
  }
  if (weak) {
    std::fprintf (stderr, "frame %d: weak edges at %d places along the square\n", i, weak);
    ok = false;
  }
  std::printf ("frame %d: %dx%d GRAY8, %d edge pixels%s\n", i, kWidth, kHeight, edge_pixels,
      ok ? "" : " (WRONG)");
  gst_video_frame_unmap (&frame);
  return ok;
}

static void
print_error (GstMessage * msg)
{
  GError *err = nullptr;
  gchar *debug = nullptr;
  gst_message_parse_error (msg, &err, &debug);
  std::fprintf (stderr, "error from %s: %s\n%s\n", GST_OBJECT_NAME (msg->src), err->message,
      debug ? debug : "");
  g_error_free (err);
  g_free (debug);
}

/* The next edge image, or NULL (message printed) after an error or 30 s.
 * Waits in short steps so that a pipeline error ends the wait at once. */
static GstSample *
pull_result (GstElement * pipeline, GstAppSink * sink)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstSample *sample = nullptr;
  for (int waited_ms = 0; !sample && waited_ms < 30000; waited_ms += 100) {
    sample = gst_app_sink_try_pull_sample (sink, 100 * GST_MSECOND);
    if (GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR)) {
      print_error (msg);
      gst_message_unref (msg);
      break;
    }
  }
  gst_object_unref (bus);
  if (!sample)
    std::fprintf (stderr, "no edge image\n");
  return sample;
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);

  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch ("appsrc name=src format=time ! "
      "cldebayer ! clsobel ! appsink name=sink sync=false", &error);
  if (error) {
    std::fprintf (stderr, "cannot build the pipeline: %s (is the opencl plugin "
        "installed, or on GST_PLUGIN_PATH?)\n", error->message);
    return 1;
  }
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");

  GstCaps *caps = gst_caps_new_simple ("video/x-bayer", "format", G_TYPE_STRING, "rggb",
      "width", G_TYPE_INT, kWidth, "height", G_TYPE_INT, kHeight,
      "framerate", GST_TYPE_FRACTION, 30, 1, nullptr);
  gst_app_src_set_caps (GST_APP_SRC (src), caps);
  gst_caps_unref (caps);
  caps = gst_caps_from_string ("video/x-raw,format=GRAY8");
  gst_app_sink_set_caps (GST_APP_SINK (sink), caps);
  gst_caps_unref (caps);

  gst_element_set_state (pipeline, GST_STATE_PLAYING);

  /* One frame in, one edge image out. */
  bool ok = true;
  for (int i = 0; i < kFrames && ok; i++) {
    /* appsrc takes the buffer; it queues it until the pipeline runs. */
    ok = gst_app_src_push_buffer (GST_APP_SRC (src), make_bayer_frame (i)) == GST_FLOW_OK;
    GstSample *sample = ok ? pull_result (pipeline, GST_APP_SINK (sink)) : nullptr;
    ok = sample && check_edges (i, sample);
    if (sample)
      gst_sample_unref (sample);
  }

  /* End of stream: the pipeline drains and posts EOS. */
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  if (!msg || GST_MESSAGE_TYPE (msg) != GST_MESSAGE_EOS) {
    if (msg)
      print_error (msg);
    else
      std::fprintf (stderr, "no end of stream\n");
    ok = false;
  }
  if (msg)
    gst_message_unref (msg);
  gst_object_unref (bus);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  std::printf ("%s\n", ok ? "all frames right" : "FAILED");
  return ok ? 0 : 1;
}
