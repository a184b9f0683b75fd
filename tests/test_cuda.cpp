/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Frames to and from CUDA memory (docs/interop.md).
 *
 * Everywhere: whether the plugin offers CUDA memory agrees with what the
 * machine has (gstcl::cuda::available ()); without it, no pad template,
 * caps query or accept-caps of clupload and cldownload mentions CUDA
 * memory, no link to CUDA memory is made, and the OpenCL pipelines run as
 * before. With it, new elements (NULL state) offer it, so gst-launch
 * links, and started ones only where their device matched. CI has no
 * CUDA, so the first half is what it checks.
 *
 * With a CUDA device that is the OpenCL device (tests/gpu/cuda.sh sets
 * GST_OPENCL_EXPECT_CUDA=1, which fails the test where CUDA memory is not
 * offered), the pipelines through the nvcodec elements: each gives the same
 * bytes as its system-memory twin, the CUDA legs with no host transfer of
 * ours (GstClMemoryStats), one device copy a frame in and none out (Stats's
 * direct and wrapped counters: the OpenCL frame is shared memory), one out
 * with GST_OPENCL_CUDA_WRAP=0, two each way with GST_OPENCL_CUDA_DIRECT=0;
 * frames out read on the host, deep-copied and kept after their pipeline;
 * caps changes, a flushing seek and EOS through them; errors in the CUDA
 * legs; no file descriptor left open.
 * $GST_OPENCL_TEST_H264 (an H.264 file, made by the script) adds NVDEC. */
#include "cltest.h"

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/opencl/gstclcuda.hpp>

#include <dirent.h>

#include <cstring>

static bool
expect_cuda ()
{
  const char *e = g_getenv ("GST_OPENCL_EXPECT_CUDA");
  return e && !strcmp (e, "1");
}

static bool
has_cuda_feature (GstCaps * caps)
{
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    if (f && gst_caps_features_contains (f, GST_CL_CAPS_FEATURE_MEMORY_CUDA))
      return true;
  }
  return false;
}

static bool
template_has_cuda (const char *factory, const char *pad)
{
  GstElement *e = gst_element_factory_make (factory, nullptr);
  fail_unless (e != nullptr, "no %s", factory);
  GstCaps *caps = gst_pad_template_get_caps (gst_element_get_pad_template (e, pad));
  const bool has = has_cuda_feature (caps);
  gst_caps_unref (caps);
  gst_object_unref (e);
  return has;
}

/* Whether pad `pad` of `e` has CUDA memory in its caps query and accepts
 * NV12 in it. */
static void
pad_cuda (GstElement * e, const char *pad, bool *in_query, bool *accepted)
{
  GstPad *p = gst_element_get_static_pad (e, pad);
  GstCaps *caps = gst_pad_query_caps (p, nullptr);
  *in_query = has_cuda_feature (caps);
  gst_caps_unref (caps);
  GstCaps *cuda = gst_caps_from_string ("video/x-raw(memory:CUDAMemory), format=NV12, "
      "width=64, height=48, framerate=30/1");
  *accepted = gst_pad_query_accept_caps (p, cuda);
  gst_caps_unref (cuda);
  gst_object_unref (p);
}

/* The caps query and accept-caps of a started element's pad. */
static void
started_pad_cuda (const char *desc, const char *name, const char *pad, bool *in_query,
    bool *accepted)
{
  GstElement *pipeline = gst_parse_launch (desc, nullptr);
  fail_unless (pipeline != nullptr);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE);
  gst_element_get_state (pipeline, nullptr, nullptr, 30 * GST_SECOND);
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  pad_cuda (e, pad, in_query, accepted);
  gst_object_unref (e);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

/* Whether gst_parse_launch links `desc` (in NULL state: no device yet). */
static bool
links (const char *desc)
{
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  GST_INFO ("%s: %s", desc, error ? error->message : "linked");
  const bool ok = pipeline && !error;
  g_clear_error (&error);
  if (pipeline)
    gst_object_unref (pipeline);
  return ok;
}

/* The caps query and accept-caps of a new element's pad (NULL state). */
static void
new_pad_cuda (const char *factory, const char *pad, bool *in_query, bool *accepted)
{
  GstElement *e = gst_element_factory_make (factory, nullptr);
  pad_cuda (e, pad, in_query, accepted);
  gst_object_unref (e);
}

GST_START_TEST (test_cuda_offered_only_where_it_works)
{
  const bool available = gstcl::cuda::available ();
  GST_INFO ("CUDA memory available: %d", available);
  if (expect_cuda ())
    fail_unless (available, "GST_OPENCL_EXPECT_CUDA=1 but no CUDA memory (GST_DEBUG=clcuda:5)");
  fail_unless_equals_int (template_has_cuda ("clupload", "sink"), available);
  fail_unless_equals_int (template_has_cuda ("cldownload", "src"), available);
  fail_if (template_has_cuda ("clupload", "src"));
  fail_if (template_has_cuda ("cldownload", "sink"));
  fail_if (template_has_cuda ("clsobel", "sink"));

  /* Before a device is known, as the templates say: gst-launch links in
   * NULL state, where the device is not chosen yet. */
  bool query, accepted;
  new_pad_cuda ("clupload", "sink", &query, &accepted);
  fail_unless_equals_int (query, available);
  fail_unless_equals_int (accepted, available);
  new_pad_cuda ("cldownload", "src", &query, &accepted);
  fail_unless_equals_int (query, available);
  fail_unless_equals_int (accepted, available);
  fail_unless (links ("fakesrc ! video/x-raw(memory:OpenCLMemory),format=NV12 ! cldownload ! "
          "video/x-raw,format=NV12 ! fakesink"));
  fail_unless_equals_int (links ("fakesrc ! video/x-raw(memory:CUDAMemory),format=NV12 ! "
          "clupload ! fakesink"), available);
  fail_unless_equals_int (links ("fakesrc ! video/x-raw(memory:OpenCLMemory),format=NV12 ! "
          "cldownload ! video/x-raw(memory:CUDAMemory) ! fakesink"), available);

  /* Once started, as the device is. */
  started_pad_cuda ("videotestsrc ! clupload name=e ! fakesink", "e", "sink", &query, &accepted);
  GstElement *probe = gst_parse_launch ("videotestsrc ! clupload name=e ! fakesink", nullptr);
  gst_element_set_state (probe, GST_STATE_PAUSED);
  gst_element_get_state (probe, nullptr, nullptr, 30 * GST_SECOND);
  GstElement *e = gst_bin_get_by_name (GST_BIN (probe), "e");
  GstClContext *ctx = gst_cl_base_transform_get_context (GST_CL_BASE_TRANSFORM (e));
  fail_unless (ctx != nullptr);
  const bool matched = gstcl::cuda::device_for (ctx) >= 0;
  gst_object_unref (ctx);
  gst_object_unref (e);
  gst_element_set_state (probe, GST_STATE_NULL);
  gst_object_unref (probe);
  if (expect_cuda ())
    fail_unless (matched, "no CUDA device shares memory with the OpenCL device "
        "(GST_DEBUG=clcuda:5 says which step failed)");
  fail_if (matched && !available);
  fail_unless_equals_int (query, matched);
  fail_unless_equals_int (accepted, matched);
  started_pad_cuda ("videotestsrc ! clupload ! cldownload name=e ! fakesink", "e", "src", &query,
      &accepted);
  fail_unless_equals_int (query, matched);
  fail_unless_equals_int (accepted, matched);

  /* Without CUDA memory, nothing else changed: the usual chain runs, and
   * the bridge copied nothing. */
  if (!matched) {
    GstElement *p = gst_parse_launch ("videotestsrc num-buffers=3 ! "
        "video/x-raw,format=NV12,width=64,height=48 ! clupload ! clsobel ! cldownload ! "
        "fakesink", nullptr);
    cltest::play_to_eos (p, "the OpenCL chain");
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (p);
    fail_unless_equals_int (gstcl::cuda::stats ().to_cl + gstcl::cuda::stats ().from_cl, 0);
  }
}
GST_END_TEST

/* CUDA caps name only the formats GStreamer 1.22's CUDA allocator lays
 * out: a GRAY8 buffer from its pool aborts the process (clsobel's GRAY8
 * output of a decoder's NV12 did, before). Caps logic: runs anywhere. */
GST_START_TEST (test_cuda_formats)
{
  GstCaps *in = gst_caps_from_string ("video/x-raw,format={GRAY8,NV12,GRAY16_LE,RGBA},"
      "width=64,height=48; video/x-raw,format=GRAY8; video/x-bayer,format=rggb");
  GstCaps *cuda = gstcl::cuda::to_cuda_caps (in);
  GstCaps *want = gst_caps_from_string ("video/x-raw(memory:CUDAMemory),format={NV12,RGBA},"
      "width=64,height=48");
  fail_unless (gst_caps_is_equal (cuda, want), "%" GST_PTR_FORMAT, cuda);
  gst_caps_unref (want);
  gst_caps_unref (cuda);
  gst_caps_unref (in);
  /* no format field: the allocator's formats */
  in = gst_caps_from_string ("video/x-raw,width=64,height=48");
  cuda = gstcl::cuda::to_cuda_caps (in);
  fail_unless (gstcl::cuda::caps_in_cuda (cuda));
  GstCaps *gray = gst_caps_from_string ("video/x-raw(memory:CUDAMemory),format=GRAY8");
  fail_if (gst_caps_can_intersect (cuda, gray));
  GstCaps *nv12 = gst_caps_from_string ("video/x-raw(memory:CUDAMemory),format=NV12");
  fail_unless (gst_caps_can_intersect (cuda, nv12));
  gst_caps_unref (nv12);
  gst_caps_unref (gray);
  gst_caps_unref (cuda);
  gst_caps_unref (in);
  if (gstcl::cuda::available ())
    fail_if (links ("fakesrc ! video/x-raw(memory:OpenCLMemory),format=GRAY8 ! cldownload ! "
            "video/x-raw(memory:CUDAMemory) ! fakesink"));
}
GST_END_TEST

/* ---- on a CUDA device ---- */

struct Frames {
  std::vector<std::vector<guint8>> rows;  /* each frame's visible bytes, plane after plane */
  std::vector<std::string> caps;          /* each frame's caps */
};

/* Whether EOS is on `bus` (waiting up to `timeout`); an error there fails
 * the test. One pop for both: a pop for errors alone would drop an EOS
 * posted meanwhile (a filtered pop discards what does not match). */
static bool
error_or_eos (GstBus *bus, GstClockTime timeout, const char *what)
{
  GstMessage *m = gst_bus_timed_pop_filtered (bus, timeout,
      (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  if (!m)
    return false;
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    GError *e = nullptr;
    gchar *dbg = nullptr;
    gst_message_parse_error (m, &e, &dbg);
    fail ("%s: error from %s: %s (%s)", what, GST_OBJECT_NAME (GST_MESSAGE_SRC (m)),
        e->message, dbg);
  }
  gst_message_unref (m);
  return true;
}

/* The visible bytes of a frame (mapped for the host), plane after plane. */
static std::vector<guint8>
visible_bytes (GstBuffer *buf, GstCaps *caps)
{
  GstVideoInfo info;
  fail_unless (gst_video_info_from_caps (&info, caps));
  GstVideoFrame frame;
  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_READ));
  std::vector<guint8> bytes;
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component (info.finfo, p, comp);
    const guint c = comp[0] >= 0 ? comp[0] : p;
    const gsize row = GST_VIDEO_FRAME_COMP_WIDTH (&frame, c) *
        GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, c);
    const guint8 *d = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, p);
    for (gint y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&frame, c); y++)
      bytes.insert (bytes.end (), d + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p),
          d + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p) + row);
  }
  gst_video_frame_unmap (&frame);
  return bytes;
}

/* The visible bytes of every frame at `out` (an appsink in system memory). */
static Frames
run (const std::string &desc, const char *what, void (*feed) (GstElement *) = nullptr)
{
  GST_INFO ("%s: %s", what, desc.c_str ());
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch (desc.c_str (), &error);
  fail_unless (pipeline != nullptr && !error, "%s: %s", what, error ? error->message : "");
  if (feed)
    feed (pipeline);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  GstBus *bus = gst_element_get_bus (pipeline);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE,
      "%s: does not play", what);
  Frames f;
  const gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  bool eos = false;
  while (!gst_app_sink_is_eos (GST_APP_SINK (sink))) {
    fail_if (g_get_monotonic_time () > deadline, "%s: no EOS within a minute", what);
    eos |= error_or_eos (bus, 0, what);
    GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), GST_SECOND / 2);
    if (!s)
      continue;
    std::vector<guint8> bytes = visible_bytes (gst_sample_get_buffer (s),
        gst_sample_get_caps (s));
    gchar *c = gst_caps_to_string (gst_sample_get_caps (s));
    f.caps.push_back (c);
    g_free (c);
    f.rows.push_back (std::move (bytes));
    gst_sample_unref (s);
  }
  fail_unless (eos || error_or_eos (bus, 10 * GST_SECOND, what), "%s: no EOS", what);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return f;
}

static const char *kSink = " ! appsink name=out sync=false max-buffers=4";

struct Counts {
  GstClMemoryStats mem;
  gstcl::cuda::Stats cuda;
};

static Counts
counts ()
{
  Counts c;
  gst_cl_memory_get_stats (&c.mem);
  c.cuda = gstcl::cuda::stats ();
  return c;
}

static void
same_frames (const Frames &a, const Frames &b, int n, const char *what)
{
  fail_unless_equals_int (a.rows.size (), n);
  fail_unless_equals_int (b.rows.size (), n);
  for (int i = 0; i < n; i++) {
    fail_unless_equals_int (a.rows[i].size (), b.rows[i].size ());
    fail_unless (a.rows[i] == b.rows[i], "%s: frame %d differs", what, i);
  }
}

/* `n` frames out to CUDA memory from shared memory: none copied where the
 * bridge wraps them (gstcl::cuda::wraps (): GStreamer 1.22's CUDA library),
 * else one copy each. */
static void
out_copies (const Counts &before, const Counts &after, int n)
{
  fail_unless_equals_int (after.cuda.from_cl - before.cuda.from_cl, n);
  const bool wrapped = gstcl::cuda::wraps ();
  fail_unless_equals_int (after.cuda.wrapped_from_cl - before.cuda.wrapped_from_cl,
      wrapped ? n : 0);
  fail_unless_equals_int (after.cuda.direct_from_cl - before.cuda.direct_from_cl,
      wrapped ? 0 : n);
}

/* `n` NV12 frames through `cudaupload ! clupload<middle> ! cldownload` into
 * CUDA memory and back, against the same chain in system memory: the same
 * bytes and no host transfer on the CUDA legs; the CUDA counters' change. */
static Counts
in_and_out (const std::string & middle, int n, const char *what)
{
  const std::string src = "videotestsrc pattern=ball num-buffers=" + std::to_string (n) +
      " ! video/x-raw,format=NV12,width=322,height=242";
  Frames sys = run (src + " ! clupload" + middle + " ! cldownload" + kSink, "system memory");
  const Counts before = counts ();
  Frames cuda = run (src + " ! cudaupload ! video/x-raw(memory:CUDAMemory) ! clupload" + middle +
      " ! cldownload ! video/x-raw(memory:CUDAMemory) ! cudadownload" + kSink,
      "CUDA memory in and out");
  const Counts after = counts ();
  same_frames (sys, cuda, n, what);
  fail_unless_equals_int (after.mem.uploads - before.mem.uploads, 0);
  fail_unless_equals_int (after.mem.downloads - before.mem.downloads, 0);
  Counts d = after;
  d.cuda.to_cl -= before.cuda.to_cl;
  d.cuda.from_cl -= before.cuda.from_cl;
  d.cuda.direct_to_cl -= before.cuda.direct_to_cl;
  d.cuda.direct_from_cl -= before.cuda.direct_from_cl;
  d.cuda.wrapped_from_cl -= before.cuda.wrapped_from_cl;
  return d;
}

/* The formats both cudaupload and our elements take. */
static const char *kFormats[] = { "NV12", "RGBA", "I420", "BGRx", "P010_10LE" };

GST_START_TEST (test_cuda_in)
{
  const int n = 8;
  for (const char *format : kFormats) {
    /* 322 x 242: rows that no pitch rounds to. */
    std::string src = std::string ("videotestsrc pattern=ball num-buffers=8 ! video/x-raw,format=") +
        format + ",width=322,height=242";
    Frames sys = run (src + " ! clupload ! cldownload" + kSink, "system memory");
    Counts before = counts ();
    Frames cuda = run (src + " ! cudaupload ! video/x-raw(memory:CUDAMemory) ! clupload ! "
        "cldownload" + kSink, "CUDA memory in");
    Counts after = counts ();
    same_frames (sys, cuda, n, format);
    fail_unless_equals_int (after.mem.uploads - before.mem.uploads, 0);
    fail_unless_equals_int (after.cuda.to_cl - before.cuda.to_cl, n);
    /* one copy a frame: into clupload's pool of shared memory */
    fail_unless_equals_int (after.cuda.direct_to_cl - before.cuda.direct_to_cl, n);
  }
  /* And through a filter. */
  std::string src = "videotestsrc pattern=smpte num-buffers=8 ! "
      "video/x-raw,format=RGBA,width=640,height=360";
  Frames sys = run (src + " ! clupload ! clsobel ! cldownload" + kSink, "system memory");
  Counts before = counts ();
  Frames cuda = run (src + " ! cudaupload ! video/x-raw(memory:CUDAMemory) ! clupload ! clsobel ! "
      "cldownload" + kSink, "CUDA memory in");
  Counts after = counts ();
  same_frames (sys, cuda, n, "clsobel");
  fail_unless_equals_int (after.cuda.direct_to_cl - before.cuda.direct_to_cl, n);
}
GST_END_TEST

GST_START_TEST (test_cuda_out)
{
  const int n = 8;
  for (const char *format : kFormats) {
    std::string src = std::string ("videotestsrc pattern=ball num-buffers=8 ! video/x-raw,format=") +
        format + ",width=322,height=242 ! clupload";
    Frames sys = run (src + " ! cldownload" + kSink, "system memory");
    Counts before = counts ();
    Frames cuda = run (src + " ! cldownload ! video/x-raw(memory:CUDAMemory) ! cudadownload" +
        kSink, "CUDA memory out");
    Counts after = counts ();
    same_frames (sys, cuda, n, format);
    fail_unless_equals_int (after.mem.downloads - before.mem.downloads, 0);
    /* clupload took cldownload's pool of shared memory */
    out_copies (before, after, n);
  }
  /* CUDA in and out: clupload's shared frames read by cldownload as they are */
  const Counts d = in_and_out ("", n, "CUDA in and out");
  fail_unless_equals_int (d.cuda.direct_to_cl, n);
  fail_unless_equals_int (d.cuda.direct_from_cl + d.cuda.wrapped_from_cl, n);
}
GST_END_TEST

/* GST_OPENCL_CUDA_DIRECT=0: two copies a frame each way (the path of an
 * OpenCL frame that is not shared memory), the same bytes. */
GST_START_TEST (test_two_copies)
{
  g_setenv ("GST_OPENCL_CUDA_DIRECT", "0", TRUE);
  const int n = 8;
  /* (clsobel gives GRAY8, which 1.22's CUDA memory does not carry) */
  const Counts d = in_and_out (" ! clsobel ! clconvert ! video/x-raw(memory:OpenCLMemory),"
      "format=NV12", n, "two copies");
  g_unsetenv ("GST_OPENCL_CUDA_DIRECT");
  fail_unless_equals_int (d.cuda.to_cl, n);
  fail_unless_equals_int (d.cuda.from_cl, n);
  fail_unless_equals_int (d.cuda.direct_to_cl, 0);
  fail_unless_equals_int (d.cuda.direct_from_cl, 0);
  fail_unless_equals_int (d.cuda.wrapped_from_cl, 0);
}
GST_END_TEST

/* The camera path: 12-bit Bayer, every camera stage, NV12 out in CUDA memory. */
static void
feed_bayer12 (GstElement * pipeline)
{
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  guint32 x = 12345;
  for (int i = 0; i < 6; i++) {
    const int w = 640, h = 480;
    GstBuffer *buf = gst_buffer_new_allocate (nullptr, w * h * 2, nullptr);
    GstMapInfo map;
    gst_buffer_map (buf, &map, GST_MAP_WRITE);
    auto *words = (guint16 *) map.data;
    for (int k = 0; k < w * h; k++) {
      x = x * 1664525u + 1013904223u;
      words[k] = (guint16) ((k % w) * 4095 / w / 2 + (x >> 22));  /* a ramp and noise */
    }
    gst_buffer_unmap (buf, &map);
    GST_BUFFER_PTS (buf) = i * GST_SECOND / 30;
    GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
    fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src), buf), GST_FLOW_OK);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  gst_object_unref (src);
}

GST_START_TEST (test_camera_to_cuda)
{
  const int n = 6;
  const std::string src = "appsrc name=src format=time "
      "caps=video/x-bayer,format=rggb12le,width=640,height=480,framerate=30/1 ! clupload ! "
      "cldebayer black-level=256 saturation=1.2 transfer=srgb white-balance=auto ! "
      "video/x-raw(memory:OpenCLMemory),format=NV12";
  Frames sys = run (src + " ! cldownload" + kSink, "system memory", feed_bayer12);
  Counts before = counts ();
  Frames cuda = run (src + " ! cldownload ! video/x-raw(memory:CUDAMemory),format=NV12 ! "
      "cudadownload" + kSink, "CUDA memory out", feed_bayer12);
  Counts after = counts ();
  same_frames (sys, cuda, n, "camera NV12");
  fail_unless_equals_int (after.mem.downloads - before.mem.downloads, 0);
  /* cldebayer wrote into cldownload's shared memory */
  out_copies (before, after, n);
}
GST_END_TEST

static const char *kCameraNv12 = "appsrc name=src format=time "
    "caps=video/x-bayer,format=rggb12le,width=640,height=480,framerate=30/1 ! clupload ! "
    "cldebayer black-level=256 saturation=1.2 transfer=srgb white-balance=auto ! "
    "video/x-raw(memory:OpenCLMemory),format=NV12";

/* GST_OPENCL_CUDA_WRAP=0: one copy a frame out (the path where the CUDA
 * library cannot wrap), the same bytes. */
GST_START_TEST (test_one_copy_out)
{
  const int n = 6;
  const std::string src = kCameraNv12;
  Frames sys = run (src + " ! cldownload" + kSink, "system memory", feed_bayer12);
  g_setenv ("GST_OPENCL_CUDA_WRAP", "0", TRUE);
  const Counts before = counts ();
  Frames cuda = run (src + " ! cldownload ! video/x-raw(memory:CUDAMemory),format=NV12 ! "
      "cudadownload" + kSink, "CUDA memory out, one copy", feed_bayer12);
  const Counts after = counts ();
  g_unsetenv ("GST_OPENCL_CUDA_WRAP");
  same_frames (sys, cuda, n, "camera NV12, one copy");
  fail_unless_equals_int (after.cuda.direct_from_cl - before.cuda.direct_from_cl, n);
  fail_unless_equals_int (after.cuda.wrapped_from_cl - before.cuda.wrapped_from_cl, 0);
}
GST_END_TEST

/* Frames handed on as CUDA memory read on the host (the appsink maps
 * them), kept after their pipeline is gone, and deep-copied: the same
 * bytes; freeing them last frees everything (the leaks tracer). */
GST_START_TEST (test_cuda_frames_outlive_pipeline)
{
  const int n = 6;
  const std::string src = kCameraNv12;
  const std::string cuda_out = " ! cldownload ! video/x-raw(memory:CUDAMemory),format=NV12";
  Frames sys = run (src + " ! cldownload" + kSink, "system memory", feed_bayer12);
  const Counts before = counts ();
  Frames host = run (src + cuda_out + kSink, "CUDA memory mapped on the host", feed_bayer12);
  out_copies (before, counts (), n);
  same_frames (sys, host, n, "host maps of CUDA memory");

  GstElement *pipeline = gst_parse_launch ((src + cuda_out + kSink).c_str (), nullptr);
  fail_unless (pipeline != nullptr);
  feed_bayer12 (pipeline);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  std::vector<GstSample *> kept;   /* the last two frames */
  for (int i = 0; i < n; i++) {
    GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 30 * GST_SECOND);
    fail_unless (s != nullptr, "frame %d did not come", i);
    kept.push_back (s);
    if (kept.size () > 2) {
      gst_sample_unref (kept.front ());
      kept.erase (kept.begin ());
    }
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  for (size_t k = 0; k < kept.size (); k++) {
    GstBuffer *buf = gst_sample_get_buffer (kept[k]);
    GstCaps *caps = gst_sample_get_caps (kept[k]);
    fail_unless (gst_memory_is_type (gst_buffer_peek_memory (buf, 0), "gst.cuda.memory"));
    const int i = n - (int) kept.size () + (int) k;
    fail_unless (visible_bytes (buf, caps) == sys.rows[i], "frame %d after its pipeline", i);
    GstBuffer *copy = gst_buffer_copy_deep (buf);
    fail_unless (copy != nullptr);
    fail_unless (gst_memory_is_type (gst_buffer_peek_memory (copy, 0), "gst.cuda.memory"));
    fail_unless (visible_bytes (copy, caps) == sys.rows[i], "a deep copy of frame %d", i);
    gst_buffer_unref (copy);
    gst_sample_unref (kept[k]);
  }
}
GST_END_TEST

/* NVDEC -> clupload -> clsobel: the same bytes as through cudadownload. */
GST_START_TEST (test_nvdec_in)
{
  const char *file = g_getenv ("GST_OPENCL_TEST_H264");
  fail_unless (file && g_file_test (file, G_FILE_TEST_EXISTS),
      "GST_OPENCL_TEST_H264 names no file (tests/gpu/cuda.sh makes one)");
  const std::string src = std::string ("filesrc location=") + file + " ! h264parse ! nvh264dec";
  Frames sys = run (src + " ! cudadownload ! video/x-raw ! clupload ! clsobel ! cldownload" +
      kSink, "through system memory");
  Counts before = counts ();
  Frames cuda = run (src + " ! video/x-raw(memory:CUDAMemory) ! clupload ! clsobel ! cldownload" +
      kSink, "CUDA memory in");
  Counts after = counts ();
  fail_unless (sys.rows.size () > 0);
  same_frames (sys, cuda, (int) sys.rows.size (), "nvh264dec");
  fail_unless_equals_int (after.mem.uploads - before.mem.uploads, 0);
  fail_unless_equals_int (after.cuda.to_cl - before.cuda.to_cl, sys.rows.size ());
  fail_unless_equals_int (after.cuda.direct_to_cl - before.cuda.direct_to_cl, sys.rows.size ());
}
GST_END_TEST

/* New sizes while playing, through both CUDA legs. */
static GstPadProbeReturn
resize_after (GstPad *, GstPadProbeInfo * info, gpointer data)
{
  auto *filter = GST_ELEMENT (data);
  static int seen = 0;
  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER) {
    if (++seen == 4) {
      GstCaps *caps = gst_caps_from_string ("video/x-raw,format=NV12,width=160,height=90");
      g_object_set (filter, "caps", caps, nullptr);
      gst_caps_unref (caps);
    }
  }
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_caps_change_and_seek)
{
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=30 ! capsfilter name=cf "
      "caps=video/x-raw,format=NV12,width=320,height=240 ! cudaupload ! "
      "video/x-raw(memory:CUDAMemory) ! clupload ! cldownload ! video/x-raw(memory:CUDAMemory) ! "
      "cudadownload ! video/x-raw ! appsink name=out sync=false max-buffers=2", &error);
  fail_unless (pipeline != nullptr && !error, "%s", error ? error->message : "no pipeline");
  GstElement *cf = gst_bin_get_by_name (GST_BIN (pipeline), "cf");
  GstPad *pad = gst_element_get_static_pad (cf, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, resize_after, cf, nullptr);
  gst_object_unref (pad);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  GstBus *bus = gst_element_get_bus (pipeline);
  const gstcl::cuda::Stats before = gstcl::cuda::stats ();
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  /* After 10 frames, a flushing seek back to the start; then on to EOS. */
  int small = 0, large = 0, pulled = 0, after_seek = 0;
  GstClockTime last_before = 0;
  bool went_back = false, eos = false;
  for (;;) {
    GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 20 * GST_SECOND);
    if (!s) {
      eos = error_or_eos (bus, 0, "the seek");
      break;
    }
    GstVideoInfo info;
    gst_video_info_from_caps (&info, gst_sample_get_caps (s));
    (info.width == 160 ? small : large)++;
    const GstClockTime pts = GST_BUFFER_PTS (gst_sample_get_buffer (s));
    if (++pulled <= 10) {
      last_before = pts;
    } else {
      after_seek++;
      went_back |= pts < last_before;
    }
    gst_sample_unref (s);
    if (pulled == 10)
      fail_unless (gst_element_seek_simple (pipeline, GST_FORMAT_TIME,
              (GstSeekFlags) (GST_SEEK_FLAG_FLUSH), 0));
  }
  GST_INFO ("%d frames at 320x240, %d at 160x90, %d after the seek", large, small, after_seek);
  fail_unless (large >= 3 && small >= 3, "%d and %d frames", large, small);
  fail_unless (after_seek > 0 && went_back, "%d frames after the seek, back: %d", after_seek,
      went_back);
  fail_unless (eos || error_or_eos (bus, 10 * GST_SECOND, "after the seek"),
      "no EOS after the seek");
  /* Every frame pulled crossed both CUDA legs (the caps pin the memories). */
  const gstcl::cuda::Stats after = gstcl::cuda::stats ();
  fail_unless (after.to_cl - before.to_cl >= (guint64) pulled &&
      after.from_cl - before.from_cl >= (guint64) pulled, "%d frames, %d in, %d out", pulled,
      (int) (after.to_cl - before.to_cl), (int) (after.from_cl - before.from_cl));
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (cf);
  gst_object_unref (pipeline);
}
GST_END_TEST

/* Errors in the CUDA leg, as in the other memories: a buffer that is not
 * CUDA memory under CUDA caps into clupload, and one that is not OpenCL
 * memory into cldownload's CUDA output, each stop the pipeline with an
 * element error of that element (no crash, nothing leaked). */
GST_START_TEST (test_cuda_leg_errors)
{
  const char *caps = "format=NV12,width=64,height=48,framerate=30/1";
  const std::string cases[] = {
    std::string ("appsrc name=src caps=\"video/x-raw(memory:CUDAMemory),") + caps +
        "\" ! clupload name=bad ! cldownload ! fakesink",
    std::string ("appsrc name=src caps=\"video/x-raw(memory:OpenCLMemory),") + caps +
        "\" ! cldownload name=bad ! video/x-raw(memory:CUDAMemory) ! fakesink",
  };
  for (const std::string &desc : cases) {
    GError *error = nullptr;
    GstElement *pipeline = gst_parse_launch (desc.c_str (), &error);
    fail_unless (pipeline != nullptr && !error, "%s: %s", desc.c_str (),
        error ? error->message : "");
    GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
    GstBus *bus = gst_element_get_bus (pipeline);
    fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
    /* a plain system-memory frame, whatever the caps say */
    gst_app_src_push_buffer (GST_APP_SRC (src), gst_buffer_new_allocate (nullptr,
            64 * 48 * 3 / 2, nullptr));
    gst_app_src_end_of_stream (GST_APP_SRC (src));
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
        (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    fail_unless (m != nullptr, "%s: neither an error nor EOS", desc.c_str ());
    fail_unless_equals_int (GST_MESSAGE_TYPE (m), GST_MESSAGE_ERROR);
    GError *e = nullptr;
    gst_message_parse_error (m, &e, nullptr);
    GST_INFO ("%s: %s: %s", desc.c_str (), GST_OBJECT_NAME (GST_MESSAGE_SRC (m)), e->message);
    fail_unless_equals_string (GST_OBJECT_NAME (GST_MESSAGE_SRC (m)), "bad");
    g_error_free (e);
    gst_message_unref (m);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (bus);
    gst_object_unref (src);
    gst_object_unref (pipeline);
  }
}
GST_END_TEST

static int
open_fds ()
{
  int n = 0;
  DIR *d = opendir ("/proc/self/fd");
  if (!d)
    return -1;
  while (readdir (d))
    n++;
  closedir (d);
  return n;
}

/* Each start exports and imports shared memory: nothing stays open. */
GST_START_TEST (test_no_descriptor_left)
{
  const std::string desc = "videotestsrc num-buffers=4 ! video/x-raw,format=NV12,width=320,"
      "height=240 ! cudaupload ! video/x-raw(memory:CUDAMemory) ! clupload ! cldownload ! "
      "video/x-raw(memory:CUDAMemory) ! cudadownload";
  run (desc + kSink, "warm-up");
  const int before = open_fds ();
  for (int i = 0; i < 3; i++)
    run (desc + kSink, "again");
  const int after = open_fds ();
  GST_INFO ("open file descriptors: %d before, %d after three runs", before, after);
  fail_unless (after <= before, "%d file descriptors more after three runs (the imports' "
      "descriptors are not the driver's?)", after - before);
}
GST_END_TEST

static Suite *
cuda_suite (void)
{
  Suite *s = suite_create ("cuda");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_cuda_offered_only_where_it_works);
  tcase_add_test (tc, test_cuda_formats);
  /* The pipelines need CUDA: where none is, the test above checked that
   * nothing offers it. Not asked here: CUDA must not start in this process,
   * which check forks for each test. */
  if (expect_cuda ()) {
    tcase_add_test (tc, test_cuda_in);
    tcase_add_test (tc, test_cuda_out);
    tcase_add_test (tc, test_two_copies);
    tcase_add_test (tc, test_camera_to_cuda);
    tcase_add_test (tc, test_one_copy_out);
    tcase_add_test (tc, test_cuda_frames_outlive_pipeline);
    tcase_add_test (tc, test_caps_change_and_seek);
    tcase_add_test (tc, test_no_descriptor_left);
    tcase_add_test (tc, test_cuda_leg_errors);
    tcase_add_test (tc, test_nvdec_in);
  }
  return s;
}

GST_CHECK_MAIN (cuda);
