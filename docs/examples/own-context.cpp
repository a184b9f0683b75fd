/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* own-context: a pipeline that runs in the application's own OpenCL context,
 * and an application that reads the pipeline's output on the device.
 *
 *   videotestsrc ! clupload ! clsobel ! appsink (video/x-raw(memory:OpenCLMemory),format=GRAY8)
 *
 * 1. The application creates its OpenCL context and command queue with the
 *    plain OpenCL C API, as it would for its own kernels.
 * 2. It wraps the context with gst_cl_context_new_wrapped() and hands it to
 *    the elements when they ask: a synchronous bus handler answers their
 *    NEED_CONTEXT message (type GST_CL_CONTEXT_TYPE_STR) with a GstContext.
 * 3. appsink takes OpenCL memory, so the edge images stay on the device.
 *    Mapping a buffer's memory with GST_MAP_READ | GST_MAP_CL gives its
 *    cl_mem, which the application reads with clEnqueueReadBuffer on its own
 *    queue, after clFinish on the pipeline's queue: the two queues are not
 *    ordered with each other. (An application kernel would take the cl_mem
 *    as an argument the same way.)
 * 4. For the check, the same buffer is mapped on the host too; both views
 *    must hold the same bytes.
 *
 * Build against an installed gst-opencl:
 *   c++ -std=c++17 own-context.cpp -o own-context \
 *       $(pkg-config --cflags --libs gstreamer-opencl-1.0 gstreamer-app-1.0)
 */
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/opencl/opencl.h>

#include <cstdio>
#include <cstring>
#include <vector>

constexpr int kFrames = 3;

struct App {
  cl_context context = nullptr;
  cl_device_id device = nullptr;
  cl_command_queue queue = nullptr;     /* the application's own queue */
  GstClContext *gst_context = nullptr;  /* the same cl_context, for GStreamer */
  guint answered = 0;
};

/* The first OpenCL device of the first platform that has one. */
static bool
create_opencl_context (App * app)
{
  cl_uint n_platforms = 0;
  if (clGetPlatformIDs (0, nullptr, &n_platforms) != CL_SUCCESS || n_platforms == 0) {
    std::fprintf (stderr, "no OpenCL platform\n");
    return false;
  }
  std::vector<cl_platform_id> platforms (n_platforms);
  clGetPlatformIDs (n_platforms, platforms.data (), nullptr);
  for (cl_platform_id p : platforms)
    if (clGetDeviceIDs (p, CL_DEVICE_TYPE_ALL, 1, &app->device, nullptr) == CL_SUCCESS)
      break;
  if (!app->device) {
    std::fprintf (stderr, "no OpenCL device\n");
    return false;
  }
  cl_int err;
  app->context = clCreateContext (nullptr, 1, &app->device, nullptr, nullptr, &err);
  if (err != CL_SUCCESS) {
    std::fprintf (stderr, "clCreateContext: %d\n", err);
    return false;
  }
  app->queue = clCreateCommandQueue (app->context, app->device, 0, &err);
  if (err != CL_SUCCESS) {
    std::fprintf (stderr, "clCreateCommandQueue: %d\n", err);
    return false;
  }
  /* NULL queue: GStreamer makes its own in-order queue in this context. */
  GError *error = nullptr;
  app->gst_context = gst_cl_context_new_wrapped (app->context, app->device, nullptr, &error);
  if (!app->gst_context) {
    std::fprintf (stderr, "gst_cl_context_new_wrapped: %s\n", error->message);
    g_error_free (error);
    return false;
  }
  std::printf ("application context on %s\n",
      gst_cl_context_get_device_name (app->gst_context));
  return true;
}

/* Runs in the thread of the element that asks, before it goes on. */
static GstBusSyncReply
on_sync_message (GstBus *, GstMessage * msg, gpointer data)
{
  auto *app = static_cast<App *> (data);
  const gchar *type = nullptr;
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_NEED_CONTEXT &&
      gst_message_parse_context_type (msg, &type) &&
      g_strcmp0 (type, GST_CL_CONTEXT_TYPE_STR) == 0) {
    GstContext *context = gst_context_new_cl_context (app->gst_context);
    gst_element_set_context (GST_ELEMENT (GST_MESSAGE_SRC (msg)), context);
    gst_context_unref (context);
    app->answered++;
  }
  return GST_BUS_PASS;
}

/* Reads frame `i` on the device with the application's queue and compares it
 * with the host view of the same buffer. */
static bool
check_frame (App * app, int i, GstSample * sample)
{
  GstBuffer *buffer = gst_sample_get_buffer (sample);
  GstVideoInfo info;
  gst_video_info_from_caps (&info, gst_sample_get_caps (sample));
  GstMemory *mem = gst_buffer_peek_memory (buffer, 0);
  if (gst_buffer_n_memory (buffer) != 1 || !gst_is_cl_memory (mem) ||
      gst_cl_memory_get_context (mem) != app->gst_context) {
    std::fprintf (stderr, "frame %d: not OpenCL memory of the application's context\n", i);
    return false;
  }

  /* Device view. The map makes the device copy current (it is already: the
   * frame was written by a kernel) and returns the cl_mem, which spans the
   * whole memory (pool buffers start at offset 0). */
  GstMapInfo map;
  if (mem->offset != 0 ||
      !gst_memory_map (mem, &map, (GstMapFlags) (GST_MAP_READ | GST_MAP_CL))) {
    std::fprintf (stderr, "frame %d: cannot map the cl_mem\n", i);
    return false;
  }
  cl_mem device_mem = (cl_mem) map.data;
  std::vector<guint8> from_device (map.size);
  /* clsobel's kernel ran on GStreamer's queue; wait for it before reading on
   * another queue. */
  cl_int err = clFinish (gst_cl_context_get_cl_queue (app->gst_context));
  if (err == CL_SUCCESS)
    err = clEnqueueReadBuffer (app->queue, device_mem, CL_TRUE, 0, from_device.size (),
        from_device.data (), 0, nullptr, nullptr);
  gst_memory_unmap (mem, &map);
  if (err != CL_SUCCESS) {
    std::fprintf (stderr, "frame %d: reading the cl_mem failed: %d\n", i, err);
    return false;
  }

  /* Host view, through the GstVideoMeta (real offset and stride). */
  GstVideoFrame frame;
  if (!gst_video_frame_map (&frame, &info, buffer, GST_MAP_READ)) {
    std::fprintf (stderr, "frame %d: cannot map on the host\n", i);
    return false;
  }
  GstVideoMeta *meta = gst_buffer_get_video_meta (buffer);
  const gsize offset = meta ? meta->offset[0] : GST_VIDEO_INFO_PLANE_OFFSET (&info, 0);
  const int stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
  const int width = GST_VIDEO_FRAME_WIDTH (&frame), height = GST_VIDEO_FRAME_HEIGHT (&frame);
  int differing_rows = 0, edge_pixels = 0;
  for (int y = 0; y < height; y++) {
    const guint8 *host_row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) + y * stride;
    const guint8 *device_row = from_device.data () + offset + (gsize) y * stride;
    if (std::memcmp (host_row, device_row, width) != 0)
      differing_rows++;
    for (int x = 0; x < width; x++)
      edge_pixels += host_row[x] > 64;
  }
  gst_video_frame_unmap (&frame);
  std::printf ("frame %d: %dx%d GRAY8 read from cl_mem %p, %d strong edge pixels, "
      "%d rows differ from the host view\n", i, width, height, (void *) device_mem,
      edge_pixels, differing_rows);
  /* videotestsrc's colour bars have vertical edges. */
  return differing_rows == 0 && edge_pixels >= height;
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  App app;
  if (!create_opencl_context (&app))
    return 1;

  GError *error = nullptr;
  gchar *description = g_strdup_printf ("videotestsrc num-buffers=%d ! "
      "video/x-raw,width=320,height=240 ! clupload ! clsobel ! "
      "appsink name=sink sync=false "
      "caps=video/x-raw(memory:OpenCLMemory),format=GRAY8", kFrames);
  GstElement *pipeline = gst_parse_launch (description, &error);
  g_free (description);
  if (error) {
    std::fprintf (stderr, "cannot build the pipeline: %s\n", error->message);
    return 1;
  }
  GstBus *bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, on_sync_message, &app, nullptr);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  bool ok = true;
  int frames = 0;
  /* Pull until end of stream; short waits so that an error ends the loop. */
  for (int idle_ms = 0; idle_ms < 30000; idle_ms += 100) {
    if (GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
            100 * GST_MSECOND)) {
      ok = check_frame (&app, frames++, sample) && ok;
      gst_sample_unref (sample);
      idle_ms = 0;
    } else if (gst_app_sink_is_eos (GST_APP_SINK (sink))) {
      break;
    } else if (GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR)) {
      GError *err = nullptr;
      gst_message_parse_error (msg, &err, nullptr);
      std::fprintf (stderr, "error from %s: %s\n", GST_OBJECT_NAME (msg->src), err->message);
      g_error_free (err);
      gst_message_unref (msg);
      ok = false;
      break;
    }
  }
  if (frames != kFrames || app.answered == 0) {
    std::fprintf (stderr, "%d frames, context asked for %u times\n", frames, app.answered);
    ok = false;
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_bus_set_sync_handler (bus, nullptr, nullptr, nullptr);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (pipeline);

  gst_object_unref (app.gst_context);
  clReleaseCommandQueue (app.queue);
  clReleaseContext (app.context);
  std::printf ("%s\n", ok ? "all frames right" : "FAILED");
  return ok ? 0 : 1;
}
