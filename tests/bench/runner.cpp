/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "runner.h"
#include "stats.h"

#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>

#include <algorithm>
#include <chrono>
#include <cstring>

namespace bench {

/* Buffers in the input ring: enough for every frame in flight. */
static const guint kRing = 4;
/* pace_queue: pushes between finishes of the queue (see RunSpec) */
static const int kPaceFrames = 8;

gint64
now_ns ()
{
  return std::chrono::duration_cast<std::chrono::nanoseconds> (
      std::chrono::steady_clock::now ().time_since_epoch ()).count ();
}

struct RunState {
  RunSpec spec;
  GstElement *pipeline = nullptr;
  GstElement *src = nullptr;
  GstElement *sink = nullptr;
  GstBus *bus = nullptr;
  GstCaps *caps = nullptr;
  GstVideoInfo info;
  std::string error;

  /* input; touched by the streaming thread only while running */
  GstBufferPool *pool = nullptr;
  bool cl_pool = false;
  std::string input_memory;
  int pushed = 0;
  bool eos_sent = false;
  gint64 setup_ns = 0;        /* the benchmark's own frame preparation */
  gint64 t_first_push = 0;
  gint64 t_timed_push = 0;    /* push of the first timed frame */
  int next_drain = 0;         /* device timing: frames pushed at the next check */

  /* output */
  int read_out = -1;          /* map each frame before it counts (system memory); -1: unknown */
  std::vector<gint64> arrivals, latencies;
  std::atomic<int> n_out{0};

  gint64 t_play = 0, t_end = 0, deadline = 0;
  bool done = false;
};

/* Finishes the context's queue and waits until every profiled kernel of it
 * is counted. */
void
drain (GstClContext * ctx)
{
  clFinish (gst_cl_context_get_cl_queue (ctx));
  const gint64 until = now_ns () + 5 * GST_SECOND;
  while (gst_cl_kernel_profile_pending () > 0 && now_ns () < until)
    g_usleep (100);
}

void
fill_random (guint8 * data, gsize size, guint64 seed)
{
  guint64 x = seed * 0x9E3779B97F4A7C15ull + 1;
  gsize i = 0;
  for (; i + 8 <= size; i += 8) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    std::memcpy (data + i, &x, 8);
  }
  for (; i < size; i++)
    data[i] = (guint8) (x >> (8 * (i % 8)));
}

static bool
configure_pool (GstBufferPool * pool, GstCaps * caps, guint size, bool raw_video)
{
  GstStructure *config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, kRing, kRing);
  if (raw_video && gst_buffer_pool_has_option (pool, GST_BUFFER_POOL_OPTION_VIDEO_META))
    gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  return gst_buffer_pool_set_config (pool, config);
}

GstBufferPool *
input_pool (GstElement * src, GstCaps * caps, const GstVideoInfo * info, bool proposed,
    bool *cl_pool, std::string * memory, std::string * error)
{
  const guint size = GST_VIDEO_INFO_SIZE (info);
  const bool raw = gst_structure_has_name (gst_caps_get_structure (caps, 0), "video/x-raw");
  *cl_pool = false;

  GstBufferPool *pool = nullptr;
  if (proposed) {
    GstPad *srcpad = gst_element_get_static_pad (src, "src");
    GstQuery *query = gst_query_new_allocation (caps, TRUE);
    if (gst_pad_peer_query (srcpad, query) && gst_query_get_n_allocation_pools (query) > 0)
      gst_query_parse_nth_allocation_pool (query, 0, &pool, nullptr, nullptr, nullptr);
    gst_query_unref (query);
    gst_object_unref (srcpad);
  }

  if (pool && configure_pool (pool, caps, size, raw)) {
    *cl_pool = GST_IS_CL_BUFFER_POOL (pool);
    *memory = *cl_pool ? "opencl-pool" : "proposed-pool";
  } else {
    if (pool)
      gst_object_unref (pool);
    pool = raw ? gst_video_buffer_pool_new () : gst_buffer_pool_new ();
    *memory = "system-pool";
    if (!configure_pool (pool, caps, size, raw)) {
      gst_object_unref (pool);
      *error = "could not configure the input buffer pool";
      return nullptr;
    }
  }
  if (!gst_buffer_pool_set_active (pool, TRUE)) {
    *error = "could not allocate the input frames";
    return pool;
  }
  GstBuffer *ring[kRing] = {};
  bool ok = true;
  for (guint i = 0; i < kRing && ok; i++) {
    GstMapInfo map;
    ok = gst_buffer_pool_acquire_buffer (pool, &ring[i], nullptr) == GST_FLOW_OK &&
        gst_buffer_map (ring[i], &map, GST_MAP_WRITE);
    if (ok) {
      fill_random (map.data, map.size, i + 1);
      gst_buffer_unmap (ring[i], &map);
    }
  }
  for (GstBuffer *b : ring)
    if (b)
      gst_buffer_unref (b);
  if (!ok)
    *error = "could not fill the input frames";
  return pool;
}

/* The ring of input frames: the pool the first element proposes (an OpenCL
 * element's pinned, device-visible buffers), else a system-memory pool; each
 * buffer is filled once, here, before any frame is timed. */
static bool
setup_pool (RunState * st)
{
  const gint64 t0 = now_ns ();
  st->pool = input_pool (st->src, st->caps, &st->info, st->spec.proposed_pool, &st->cl_pool,
      &st->input_memory, &st->error);
  st->setup_ns = now_ns () - t0;
  return st->pool && st->error.empty ();
}

static void
on_need_data (GstAppSrc * src, guint, gpointer user_data)
{
  auto *st = static_cast<RunState *> (user_data);
  if (st->eos_sent)
    return;
  auto stop = [&] () {
    st->eos_sent = true;
    gst_app_src_end_of_stream (src);
  };
  if (!st->pool && !setup_pool (st)) {
    stop ();
    return;
  }
  const gint64 now = now_ns ();
  const bool time_up = st->pushed > st->spec.warmup + 2 &&
      now - st->t_first_push > (gint64) (st->spec.max_seconds * GST_SECOND);
  /* Enough frames: `frames`, and the timed ones ran min_seconds (measured
   * from the push of the first timed frame), or told to stop. */
  if (st->pushed == st->spec.warmup + 1)
    st->t_timed_push = now;
  bool enough = st->pushed >= st->spec.frames;
  if (st->spec.stop) {
    enough = st->spec.stop->load ();
  } else if (enough && st->spec.min_seconds > 0 && st->t_timed_push) {
    if (st->spec.device_timing) {
      /* Pushing does not wait for the device: a slow one (PoCL) would
       * have minutes of frames queued by the time min_seconds of pushes
       * went by. Checked with the queue drained, at doubling frame counts
       * (a few waits a run, at most twice the frames needed). */
      enough = false;
      if (st->pushed >= st->next_drain) {
        drain (st->spec.context);
        enough = now_ns () - st->t_timed_push >= (gint64) (st->spec.min_seconds * GST_SECOND);
        st->next_drain = std::max (2 * st->pushed, st->spec.frames);
      }
    } else {
      enough = now - st->t_timed_push >= (gint64) (st->spec.min_seconds * GST_SECOND);
    }
  }
  if (enough || st->pushed >= (int) st->arrivals.size () || time_up) {
    stop ();
    return;
  }
  GstBuffer *buf = nullptr;
  if (gst_buffer_pool_acquire_buffer (st->pool, &buf, nullptr) != GST_FLOW_OK) {
    st->error = "could not get an input frame from the pool";
    stop ();
    return;
  }
  if (st->cl_pool && !st->spec.resident_input) {
    /* What a producer writing the frame does: the host copy becomes the
     * newest, so the device side uploads it again. */
    GstMapInfo map;
    if (gst_buffer_map (buf, &map, GST_MAP_WRITE))
      gst_buffer_unmap (buf, &map);
  }
  if (st->spec.pace_queue && st->pushed % kPaceFrames == kPaceFrames - 1)
    clFinish (st->spec.pace_queue);
  const gint64 t = now_ns ();
  if (!st->t_first_push)
    st->t_first_push = t;
  GST_BUFFER_PTS (buf) = t - st->t_play;
  GST_BUFFER_DTS (buf) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  GST_BUFFER_OFFSET (buf) = st->pushed++;
  gst_app_src_push_buffer (src, buf);
}

static GstPadProbeReturn
on_arrival (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  auto *st = static_cast<RunState *> (user_data);
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  const int i = st->n_out.load ();
  if (i >= (int) st->arrivals.size ())
    return GST_PAD_PROBE_OK;
  if (st->spec.device_timing && i == st->spec.warmup) {
    /* Timing and kernel counts start with nothing in flight. */
    drain (st->spec.context);
    gst_cl_kernel_profile_reset ();
  }
  if (st->read_out < 0) {
    /* A frame in system memory arrives when the sink can read it: elements
     * hand frames on before their kernels complete (docs/architecture.md,
     * "Frames in flight"), and a host map waits for them. Device and CUDA
     * memory arrive as they are handed on. */
    GstCaps *caps = gst_pad_get_current_caps (pad);
    GstCapsFeatures *f = caps ? gst_caps_get_features (caps, 0) : nullptr;
    st->read_out = !f || gst_caps_features_is_equal (f, GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY);
    if (caps)
      gst_caps_unref (caps);
  }
  GstMapInfo map;
  if (st->read_out && gst_buffer_map (buf, &map, GST_MAP_READ))
    gst_buffer_unmap (buf, &map);
  const gint64 t = now_ns ();
  st->arrivals[i] = t;
  st->latencies[i] = GST_BUFFER_PTS_IS_VALID (buf) ?
      t - st->t_play - (gint64) GST_BUFFER_PTS (buf) : -1;
  st->n_out.store (i + 1);
  return GST_PAD_PROBE_OK;
}

Run::Run (const RunSpec &spec) : spec_ (spec), st_ (new RunState ())
{
  st_->spec = spec;
}

Run::~Run ()
{
  if (st_->pipeline) {
    gst_element_set_state (st_->pipeline, GST_STATE_NULL);
    gst_object_unref (st_->pipeline);
  }
  if (st_->pool) {
    gst_buffer_pool_set_active (st_->pool, FALSE);
    gst_object_unref (st_->pool);
  }
  if (st_->src)
    gst_object_unref (st_->src);
  if (st_->sink)
    gst_object_unref (st_->sink);
  if (st_->bus)
    gst_object_unref (st_->bus);
  if (st_->caps)
    gst_caps_unref (st_->caps);
}

const std::vector<gint64> &
Run::arrivals () const
{
  return st_->arrivals;
}

int
Run::frames_out () const
{
  return st_->n_out.load ();
}

static std::string
take_error (GstMessage * msg)
{
  GError *err = nullptr;
  gchar *debug = nullptr;
  gst_message_parse_error (msg, &err, &debug);
  std::string s = std::string (GST_OBJECT_NAME (GST_MESSAGE_SRC (msg))) + ": " +
      (err ? err->message : "error");
  if (debug)
    s += std::string (" (") + debug + ")";
  g_clear_error (&err);
  g_free (debug);
  return s;
}

bool
Run::start ()
{
  RunState *st = st_.get ();
  g_return_val_if_fail (!spec_.device_timing || spec_.context, false);
  std::string desc = "appsrc name=bench_src ! " + spec_.fragment;
  if (!spec_.sink_caps.empty ())
    desc += " ! capsfilter caps=\"" + spec_.sink_caps + "\"";
  desc += " ! fakesink name=bench_sink sync=false enable-last-sample=false";
  GError *err = nullptr;
  st->pipeline = gst_parse_launch (desc.c_str (), &err);
  if (err || !st->pipeline) {
    st->error = std::string ("cannot build '") + desc + "': " + (err ? err->message : "?");
    g_clear_error (&err);
    st->done = true;
    return false;
  }
  st->caps = gst_caps_from_string (spec_.caps.c_str ());
  if (!st->caps || !gst_cl_video_info_from_caps (&st->info, st->caps)) {
    st->error = "bad input caps " + spec_.caps;
    st->done = true;
    return false;
  }
  st->src = gst_bin_get_by_name (GST_BIN (st->pipeline), "bench_src");
  st->sink = gst_bin_get_by_name (GST_BIN (st->pipeline), "bench_sink");
  st->bus = gst_element_get_bus (st->pipeline);
  g_object_set (st->src, "caps", st->caps, "format", GST_FORMAT_TIME, "block", FALSE,
      nullptr);
  GstAppSrcCallbacks callbacks = {};
  callbacks.need_data = on_need_data;
  gst_app_src_set_callbacks (GST_APP_SRC (st->src), &callbacks, st, nullptr);
  GstPad *sinkpad = gst_element_get_static_pad (st->sink, "sink");
  gst_pad_add_probe (sinkpad, GST_PAD_PROBE_TYPE_BUFFER, on_arrival, st, nullptr);
  gst_object_unref (sinkpad);
  const int capacity = std::max (spec_.frames, spec_.max_frames);
  st->arrivals.assign (capacity, 0);
  st->latencies.assign (capacity, -1);

  if (spec_.context) {
    GstContext *c = gst_context_new_cl_context (spec_.context);
    gst_element_set_context (st->pipeline, c);
    gst_context_unref (c);
  }
  st->t_play = now_ns ();
  st->deadline = st->t_play + (gint64) ((spec_.max_seconds + 120) * GST_SECOND);
  if (gst_element_set_state (st->pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    poll (1000);  /* takes the error message, if any */
    if (st->error.empty ())
      st->error = "the pipeline did not start";
    st->done = true;
    return false;
  }
  return true;
}

bool
Run::poll (int timeout_ms)
{
  RunState *st = st_.get ();
  if (st->done)
    return true;
  GstMessage *msg = gst_bus_timed_pop_filtered (st->bus, timeout_ms * GST_MSECOND,
      (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  if (msg) {
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
      st->error = take_error (msg);
    gst_message_unref (msg);
    if (spec_.device_timing)
      drain (spec_.context);
    st->t_end = now_ns ();
    st->done = true;
  } else if (now_ns () > st->deadline) {
    st->error = "timed out";
    st->done = true;
  }
  return st->done;
}

RunResult
Run::finish ()
{
  RunState *st = st_.get ();
  RunResult r;
  r.input_memory = st->input_memory;
  if (st->sink) {
    GstPad *pad = gst_element_get_static_pad (st->sink, "sink");
    GstCaps *caps = gst_pad_get_current_caps (pad);
    gst_object_unref (pad);
    GstVideoInfo out;
    if (caps && gst_cl_video_info_from_caps (&out, caps)) {
      gchar *s = gst_caps_to_string (caps);
      r.out_caps = s;
      g_free (s);
      r.out_frame_bytes = GST_VIDEO_INFO_SIZE (&out);
      GstCapsFeatures *f = gst_caps_get_features (caps, 0);
      /* OpenCL or CUDA memory: the frame stays on the device (the CUDA
       * cases' limit is the one-way upload's) */
      const bool on_device = f && (gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CL) ||
          gst_caps_features_contains (f, "memory:CUDAMemory"));
      r.out_transfer_bytes = on_device ? 0 : r.out_frame_bytes;
    }
    if (caps)
      gst_caps_unref (caps);
  }
  if (st->pipeline)
    gst_element_set_state (st->pipeline, GST_STATE_NULL);
  r.in_frame_bytes = st->caps ? GST_VIDEO_INFO_SIZE (&st->info) : 0;
  r.in_transfer_bytes = spec_.resident_input ? 0 : r.in_frame_bytes;

  const int n = st->n_out.load ();
  const int w = spec_.warmup;
  r.frames_out = n;
  if (n > 0)
    r.first_frame_ms = (st->arrivals[0] - st->t_play - st->setup_ns) / 1e6;
  if (!st->error.empty ()) {
    r.error = st->error;
    return r;
  }
  r.timed_frames = n - 1 - w;
  const gint64 end = spec_.device_timing ? st->t_end : (n > 0 ? st->arrivals[n - 1] : 0);
  if (r.timed_frames < 1 || end <= st->arrivals[w]) {
    r.error = "too few frames came out (" + std::to_string (n) + ")";
    return r;
  }
  r.fps = r.timed_frames / ((end - st->arrivals[w]) / 1e9);
  std::vector<double> lat;
  for (int i = w + 1; i < n; i++)
    if (st->latencies[i] >= 0)
      lat.push_back (st->latencies[i] / 1e6);
  r.latency_ms = median_of (lat);
  if (spec_.device_timing) {
    gchar **names = gst_cl_kernel_profile_names ();
    for (gchar **p = names; *p; p++) {
      KernelTime k;
      k.name = *p;
      gst_cl_kernel_profile_get (*p, &k.count, &k.ns);
      r.kernels.push_back (k);
    }
    g_strfreev (names);
  }
  r.ok = true;
  return r;
}

RunResult
run_once (const RunSpec &spec)
{
  Run run (spec);
  if (run.start ())
    while (!run.poll (100)) {
    }
  return run.finish ();
}

}  // namespace bench
