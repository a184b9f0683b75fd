/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "farm.h"
#include "runner.h"
#include "stats.h"

#include <gst/app/gstappsrc.h>
#include <gst/opencl/gstcldevice.hpp>
#include <gst/video/video.h>

#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace bench {

std::string
camera_manual_fragment ()
{
  /* every stage of docs/camera.md, with manual gains */
  return "cldebayer black-level=256 color-matrix=\"<1.6,-0.4,-0.2,-0.3,1.5,-0.2,0.05,-0.6,"
      "1.55>\" saturation=1.2 transfer=srgb white-balance=manual red-gain=1.9 blue-gain=1.45";
}

namespace {

/* Frames that arrive later than this after their capture are late: the
 * pipeline's latency is one frame (the source's, as a camera's), so the
 * sink renders each frame one frame period after its capture. */
gint64
budget_ns (const FarmOptions &o)
{
  return GST_SECOND / o.fps;
}

void
sleep_until (gint64 t)
{
  struct timespec ts;
  ts.tv_sec = t / GST_SECOND;
  ts.tv_nsec = t % GST_SECOND;
  while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

gint64
cpu_ns ()
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  return ((gint64) ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * GST_SECOND +
      ((gint64) ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

/* Device memory in use on the GPUs (all processes, all GPUs), from
 * nvidia-smi; -1 when there is none. */
double
gpu_used_mib ()
{
  FILE *f = popen ("nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits "
      "2>/dev/null", "r");
  if (!f)
    return -1;
  double v = -1, one = 0;
  while (std::fscanf (f, "%lf", &one) == 1)   /* one line a GPU: the sum */
    v = (v < 0 ? 0 : v) + one;
  pclose (f);
  return v;
}

GstClMemoryStats
mem_stats ()
{
  GstClMemoryStats s;
  gst_cl_memory_get_stats (&s);
  return s;
}

std::string
input_caps (const FarmOptions &o)
{
  return "video/x-bayer,format=rggb12le,width=" + std::to_string (o.width) + ",height=" +
      std::to_string (o.height) + ",framerate=" + std::to_string (o.fps) + "/1";
}

/* One camera pipeline. */
struct Pipe {
  const FarmOptions *opt = nullptr;
  bool paced = true;
  int device = -1;              /* of the --farm-devices list, or -1 */
  gint64 offset = 0;            /* phase of its frames within the period (paced) */
  GstElement *pipeline = nullptr, *src = nullptr;
  GstCaps *caps = nullptr;
  GstVideoInfo info, out_info;
  GstBufferPool *pool = nullptr;
  bool cl_pool = false;
  std::string error;
  gint64 base = 0;              /* base time: monotonic ns = running time 0 */

  /* the window: capture time (paced) or arrival time (unpaced) in [w0, w1) */
  std::atomic<gint64> w0{G_MAXINT64}, w1{G_MAXINT64};
  std::atomic<long> arrived{0}, in_window{0}, late{0}, dropped{0}, pushed_in_window{0};
  std::atomic<long> unready{0};   /* not readable (download not over) when rendered */
  std::vector<float> latency_ms;  /* of the frames in the window; streaming thread */
  /* cldebayer's own host CPU: its streaming thread's CPU time from the input
   * at its sink pad to the output at its src pad (the transform, its maps,
   * uploads and waits), over the frames of the window; streaming thread */
  gint64 element_t0 = 0, element_cpu = 0;
  long element_frames = 0;
  std::atomic<bool> stop{false};

  ~Pipe ()
  {
    if (pipeline) {
      gst_element_set_state (pipeline, GST_STATE_NULL);
      gst_object_unref (pipeline);
    }
    if (pool) {
      gst_buffer_pool_set_active (pool, FALSE);
      gst_object_unref (pool);
    }
    if (src)
      gst_object_unref (src);
    if (caps)
      gst_caps_unref (caps);
  }

  bool in (gint64 t) const { return t >= w0.load () && t < w1.load (); }

  /* One frame into the pipeline, captured at `t` (monotonic ns). */
  void push (gint64 t, bool wait)
  {
    if (!pool) {
      pool = input_pool (src, caps, &info, true, &cl_pool, &memory, &error);
      if (!pool || !error.empty ()) {
        stop = true;
        return;
      }
    }
    GstBuffer *buf = nullptr;
    GstBufferPoolAcquireParams params = {};
    params.flags = wait ? GST_BUFFER_POOL_ACQUIRE_FLAG_NONE :
        GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT;
    const bool counted = paced && in (t);
    if (gst_buffer_pool_acquire_buffer (pool, &buf, &params) != GST_FLOW_OK) {
      /* every frame of the ring still in the pipeline: a camera drops it */
      if (counted)
        dropped++;
      return;
    }
    /* What a camera writing the frame does: the host copy is the newest, so
     * it is uploaded again. */
    GstMapInfo map;
    if (gst_buffer_map (buf, &map, GST_MAP_WRITE))
      gst_buffer_unmap (buf, &map);
    GST_BUFFER_PTS (buf) = t - base;
    GST_BUFFER_DURATION (buf) = GST_SECOND / opt->fps;
    if (counted)
      pushed_in_window++;
    gst_app_src_push_buffer (GST_APP_SRC (src), buf);
  }
  std::string memory;
};

void
on_need_data (GstAppSrc *, guint, gpointer user_data)
{
  auto *p = static_cast<Pipe *> (user_data);
  if (!p->stop.load ())
    p->push (now_ns (), true);
}

gint64
thread_cpu_ns ()
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * GST_SECOND + ts.tv_nsec;
}

GstPadProbeReturn
on_element_in (GstPad *, GstPadProbeInfo *, gpointer user_data)
{
  static_cast<Pipe *> (user_data)->element_t0 = thread_cpu_ns ();
  return GST_PAD_PROBE_OK;
}

GstPadProbeReturn
on_element_out (GstPad *, GstPadProbeInfo * info, gpointer user_data)
{
  auto *p = static_cast<Pipe *> (user_data);
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  const gint64 t = p->paced && GST_BUFFER_PTS_IS_VALID (buf) ?
      p->base + (gint64) GST_BUFFER_PTS (buf) : now_ns ();
  if (p->element_t0 && p->in (t)) {
    p->element_cpu += thread_cpu_ns () - p->element_t0;
    p->element_frames++;
  }
  return GST_PAD_PROBE_OK;
}

GstPadProbeReturn
on_arrival (GstPad *, GstPadProbeInfo * info, gpointer user_data)
{
  auto *p = static_cast<Pipe *> (user_data);
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  const gint64 t = now_ns ();
  p->arrived++;
  if (!GST_BUFFER_PTS_IS_VALID (buf))
    return GST_PAD_PROBE_OK;
  const gint64 capture = p->base + (gint64) GST_BUFFER_PTS (buf);
  if (!p->in (p->paced ? capture : t))
    return GST_PAD_PROBE_OK;
  p->in_window++;
  const gint64 lat = t - capture;
  if (lat > budget_ns (*p->opt))
    p->late++;
  p->latency_ms.push_back ((float) (lat / 1e6));
  return GST_PAD_PROBE_OK;
}

std::string bus_error (Pipe * p);

/* The sink renders the frame (paced: at capture + one frame period): reads
 * it as a consumer would, which waits for its download if that is not over,
 * and counts it late when that took it past its time. */
void
on_handoff (GstElement *, GstBuffer * buf, GstPad *, gpointer user_data)
{
  auto *p = static_cast<Pipe *> (user_data);
  GstMapInfo map;
  const gint64 t0 = now_ns ();
  if (gst_buffer_map (buf, &map, GST_MAP_READ))
    gst_buffer_unmap (buf, &map);
  if (!p->paced || !GST_BUFFER_PTS_IS_VALID (buf))
    return;
  const gint64 capture = p->base + (gint64) GST_BUFFER_PTS (buf), t1 = now_ns ();
  /* the map waited (for a download) and ended past the frame's time; not
   * the sink's own wake-up jitter */
  if (p->in (capture) && t1 - t0 > GST_MSECOND / 2 && t1 - capture > budget_ns (*p->opt))
    p->unready++;
}

/* Builds and starts one pipeline; `context`: the application's (one
 * process), or none (the elements make their own, as in gst-launch). */
bool
start_pipe (Pipe * p, GstClContext * context)
{
  const FarmOptions &o = *p->opt;
  std::string desc = "appsrc name=src format=time " + std::string (p->paced ?
      "is-live=true min-latency=" + std::to_string (budget_ns (o)) : "is-live=false") +
      " ! " + camera_manual_fragment ().replace (0, 9, "cldebayer name=cam") +
      " ! video/x-raw,format=" + o.format +
      " ! fakesink name=sink enable-last-sample=false signal-handoffs=true "
      "processing-deadline=0 sync=" +
      (p->paced ? "true" : "false");
  GError *err = nullptr;
  p->pipeline = gst_parse_launch (desc.c_str (), &err);
  if (!p->pipeline || err) {
    p->error = std::string ("cannot build ") + desc + ": " + (err ? err->message : "?");
    g_clear_error (&err);
    return false;
  }
  p->caps = gst_caps_from_string (input_caps (o).c_str ());
  gst_cl_video_info_from_caps (&p->info, p->caps);
  GstCaps *out = gst_caps_from_string (("video/x-raw,format=" + o.format + ",width=" +
      std::to_string (o.width) + ",height=" + std::to_string (o.height)).c_str ());
  gst_cl_video_info_from_caps (&p->out_info, out);
  gst_caps_unref (out);
  p->src = gst_bin_get_by_name (GST_BIN (p->pipeline), "src");
  g_object_set (p->src, "caps", p->caps, "block", FALSE, nullptr);
  if (!p->paced) {
    GstAppSrcCallbacks cb = {};
    cb.need_data = on_need_data;
    gst_app_src_set_callbacks (GST_APP_SRC (p->src), &cb, p, nullptr);
  }
  GstElement *cam = gst_bin_get_by_name (GST_BIN (p->pipeline), "cam");
  GstPad *cam_in = gst_element_get_static_pad (cam, "sink"),
      *cam_out = gst_element_get_static_pad (cam, "src");
  gst_pad_add_probe (cam_in, GST_PAD_PROBE_TYPE_BUFFER, on_element_in, p, nullptr);
  gst_pad_add_probe (cam_out, GST_PAD_PROBE_TYPE_BUFFER, on_element_out, p, nullptr);
  gst_object_unref (cam_in);
  gst_object_unref (cam_out);
  gst_object_unref (cam);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p->pipeline), "sink");
  g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), p);
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_arrival, p, nullptr);
  gst_object_unref (pad);
  gst_object_unref (sink);
  /* The monotonic system clock: running time + base time = now_ns (). */
  GstClock *clock = gst_system_clock_obtain ();
  g_object_set (clock, "clock-type", GST_CLOCK_TYPE_MONOTONIC, nullptr);
  gst_pipeline_use_clock (GST_PIPELINE (p->pipeline), clock);
  gst_object_unref (clock);
  if (context) {
    GstContext *c = gst_context_new_cl_context (context);
    gst_element_set_context (p->pipeline, c);
    gst_context_unref (c);
  }
  /* A live pipeline is PLAYING, its base time chosen, when set_state returns
   * (the sink completes its state change with the first frame: no waiting
   * for it here). */
  if (gst_element_set_state (p->pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    if (bus_error (p).empty ())
      p->error = "the pipeline did not start";
    return false;
  }
  if (!p->paced && gst_element_get_state (p->pipeline, nullptr, nullptr, 30 * GST_SECOND) ==
      GST_STATE_CHANGE_FAILURE) {
    p->error = "the pipeline did not start";
    return false;
  }
  p->base = (gint64) gst_element_get_base_time (p->pipeline);
  if (p->base <= 0 || p->base > now_ns ()) {
    p->error = "no base time after PLAYING";
    return false;
  }
  return true;
}

/* The first error on a pipeline's bus, if any. */
std::string
bus_error (Pipe * p)
{
  if (!p->error.empty ())
    return p->error;
  GstBus *bus = gst_element_get_bus (p->pipeline);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  gst_object_unref (bus);
  if (!msg)
    return "";
  GError *e = nullptr;
  gchar *dbg = nullptr;
  gst_message_parse_error (msg, &e, &dbg);
  p->error = std::string (GST_OBJECT_NAME (GST_MESSAGE_SRC (msg))) + ": " +
      (e ? e->message : "error") + (dbg ? std::string (" (") + dbg + ")" : "");
  g_clear_error (&e);
  g_free (dbg);
  gst_message_unref (msg);
  return p->error;
}

/* Pushes the frames of the paced pipes at their times until told to stop:
 * pipe i captures at k * period + its offset (monotonic ns), so pipelines
 * (and processes) are spread evenly over the period, as free-running
 * cameras are. */
void
pace (std::vector<Pipe *> pipes, const FarmOptions &o, const std::atomic<bool> &stop)
{
  const gint64 period = GST_SECOND / o.fps;
  std::vector<std::pair<gint64, Pipe *>> slots;  /* within one period, by time */
  for (Pipe *p : pipes)
    slots.push_back ({p->offset % period, p});
  std::sort (slots.begin (), slots.end (), [] (const auto &a, const auto &b) {
    return a.first < b.first;
  });
  gint64 k = now_ns () / period + 1;
  while (!stop.load ()) {
    for (const auto &s : slots) {
      const gint64 t = k * period + s.first;
      sleep_until (t);
      if (stop.load ())
        return;
      if (!s.second->stop.load ())
        s.second->push (t, false);
    }
    k++;
  }
}

struct Window {
  gint64 w0 = 0, w1 = 0;
  gint64 cpu = 0;               /* process CPU ns over the window */
  GstClMemoryStats mem{};       /* during the window */
};

/* Opens the window [w0, w1) on every pipe, waits to its end (plus a grace
 * for the frames in flight) and takes the process's CPU time over it. */
Window
measure (std::vector<Pipe *> &pipes, gint64 w0, gint64 w1)
{
  Window w;
  w.w0 = w0;
  w.w1 = w1;
  for (Pipe *p : pipes) {
    p->w0 = w0;
    p->w1 = w1;
  }
  sleep_until (w0);
  const gint64 c0 = cpu_ns ();
  sleep_until (w0 + (w1 - w0) / 2);
  w.mem = mem_stats ();
  sleep_until (w1);
  w.cpu = cpu_ns () - c0;
  /* frames captured before w1 and still on their way */
  sleep_until (w1 + GST_SECOND / 2);
  return w;
}

struct Totals {
  long expected = 0, frames = 0, late = 0, dropped = 0, unready = 0;
  double element_cpu_ns = 0;
  long element_frames = 0;
  std::vector<double> latency_ms;
};

void
add_pipe (Totals & t, Pipe * p)
{
  const long got = p->in_window.load ();
  t.frames += got;
  if (p->paced) {
    t.late += p->late.load ();
    t.unready += p->unready.load ();
  }
  if (p->paced) {
    const long pushed = p->pushed_in_window.load (), dropped = p->dropped.load ();
    t.expected += pushed + dropped;
    t.dropped += dropped + std::max (0L, pushed - got);  /* lost on the way, or > 0.5 s late */
  }
  for (float v : p->latency_ms)
    t.latency_ms.push_back (v);
  t.element_cpu_ns += (double) p->element_cpu;
  t.element_frames += p->element_frames;
}

void
fill_result (FarmResult & r, const Totals & t, double window_s, double cpu_ns_total,
    const GstVideoInfo & in, const GstVideoInfo & out, const Limits & limits,
    size_t n_devices = 1)
{
  r.window_s = window_s;
  r.expected = t.expected;
  r.frames = t.frames;
  r.late = t.late + t.unready;
  r.unready = t.unready;
  r.dropped = t.dropped;
  r.aggregate_fps = t.frames / window_s;
  r.cpu_ms_per_frame = t.frames > 0 ? cpu_ns_total / 1e6 / t.frames : NAN;
  r.cpu_cores = cpu_ns_total / 1e9 / window_s;
  r.cpu_percent_per_stream = r.pipelines > 0 ? 100 * r.cpu_cores / r.pipelines : NAN;
  r.element_cpu_ms_per_frame = t.element_frames > 0 ?
      t.element_cpu_ns / 1e6 / t.element_frames : NAN;
  std::vector<double> lat = t.latency_ms;
  std::sort (lat.begin (), lat.end ());
  if (!lat.empty ()) {
    r.latency_p50_ms = lat[lat.size () / 2];
    r.latency_p99_ms = lat[std::min (lat.size () - 1, (size_t) (lat.size () * 0.99))];
    r.latency_max_ms = lat.back ();
  }
  const double in_b = (double) GST_VIDEO_INFO_SIZE (&in), out_b = (double) GST_VIDEO_INFO_SIZE (&out);
  /* Spread over devices, against the benchmark's device's limit times
   * their number (alike devices assumed). */
  const double serial = transfer_limit_fps (limits, in_b, out_b) * n_devices,
      duplex = transfer_limit_fps (limits, in_b, out_b, true) * n_devices;
  if (serial > 0) {
    r.transfer_fraction = r.aggregate_fps / serial;
    r.duplex_fraction = r.aggregate_fps / duplex;
  }
  Json &j = r.json;
  j["way"] = r.way;
  j["contexts"] = r.way == "processes" ? r.pipelines : r.contexts;
  j["own_contexts"] = r.own_contexts;
  j["paced"] = r.paced;
  j["pipelines"] = r.pipelines;
  j["window_s"] = window_s;
  j["frames_expected"] = r.expected;
  j["frames"] = r.frames;
  j["late"] = r.late;
  j["late_unreadable_at_render"] = r.unready;
  j["dropped"] = r.dropped;
  j["aggregate_fps"] = r.aggregate_fps;
  j["in_frame_bytes"] = in_b;
  j["out_frame_bytes"] = out_b;
  j["transfer_limit_fps"] = serial;
  j["fraction_of_transfer_limit"] = r.transfer_fraction;
  j["duplex_transfer_limit_fps"] = duplex;
  j["fraction_of_duplex_transfer_limit"] = r.duplex_fraction;
  j["cpu_ms_per_frame"] = r.cpu_ms_per_frame;
  j["cpu_cores"] = r.cpu_cores;
  j["cpu_percent_of_a_core_per_stream"] = r.cpu_percent_per_stream;
  j["n_devices"] = (double) n_devices;
  j["element_cpu_ms_per_frame"] = r.element_cpu_ms_per_frame;
  Json l = Json::object ();
  l["p50"] = r.latency_p50_ms;
  l["p99"] = r.latency_p99_ms;
  l["max"] = r.latency_max_ms;
  j["latency_ms"] = l;
  j["device_mib_per_pipeline"] = r.device_mib_per_pipeline;
  j["device_buffers_per_pipeline"] = r.buffers_per_pipeline;
  if (r.gpu_used_mib_before >= 0) {
    j["nvidia_smi_used_mib_before"] = r.gpu_used_mib_before;
    j["nvidia_smi_used_mib_during"] = r.gpu_used_mib_during;
  }
}

/* "one process (2 contexts)", "processes over 2 devices", ... */
std::string
way_text (const FarmResult & r)
{
  std::string s = r.way;
  if (r.own_contexts && r.way != "processes")
    s += " (a context a pipeline)";
  else if (!r.devices.empty () && r.way != "processes")
    s += " (" + std::to_string (r.contexts / (int) r.devices.size ()) + " context" +
        (r.contexts / (int) r.devices.size () == 1 ? "" : "s") + " a device)";
  else if (r.way != "processes" && r.contexts != 1)
    s += " (" + std::to_string (r.contexts) + " contexts)";
  if (!r.devices.empty ()) {
    s += " over device" + std::string (r.devices.size () > 1 ? "s " : " ");
    for (size_t i = 0; i < r.devices.size (); i++)
      s += (i ? "," : "") + std::to_string (r.devices[i].index);
  }
  return s;
}

/* "1: 3201.0 (32 pipelines, 0 late, 0 dropped), 2: ..." */
std::string
shares_text (const FarmResult & r)
{
  std::string s;
  char buf[128];
  for (const DeviceShare &d : r.devices) {
    std::snprintf (buf, sizeof buf, "%s%u: %.1f (%d pipelines, %ld late, %ld dropped)",
        s.empty () ? "" : ", ", d.index, d.fps, d.pipelines, d.late, d.dropped);
    s += buf;
  }
  return s;
}

std::string
label (const FarmResult & r)
{
  return "[farm] " + std::to_string (r.pipelines) + " x camera, " + way_text (r) + ", " +
      (r.paced ? "paced" : "unpaced");
}

void
report_progress (const FarmResult & r)
{
  if (r.status != "ok") {
    std::fprintf (stderr, "%s: %s %s\n", label (r).c_str (), r.status.c_str (),
        r.message.c_str ());
    return;
  }
  std::fprintf (stderr, "%s: %ld/%ld frames, %ld late, %ld dropped, %.1f frames/s, "
      "CPU %.3f ms/frame (%.2f cores, %.2f %% of a core a stream; cldebayer %.3f), "
      "latency p50 %.2f p99 %.2f max %.2f ms, %.1f MiB + %.1f buffers a pipeline%s%s\n",
      label (r).c_str (), r.frames, r.expected,
      r.late, r.dropped, r.aggregate_fps, r.cpu_ms_per_frame, r.cpu_cores,
      r.cpu_percent_per_stream, r.element_cpu_ms_per_frame, r.latency_p50_ms,
      r.latency_p99_ms, r.latency_max_ms, r.device_mib_per_pipeline, r.buffers_per_pipeline,
      r.devices.empty () ? "" : "; frames/s by device: ", shares_text (r).c_str ());
}

/* The index (as gst-opencl-info prints it) of the device the pipe's
 * cldebayer runs on, or -1. */
int
running_device (Pipe * p)
{
  GstElement *cam = gst_bin_get_by_name (GST_BIN (p->pipeline), "cam");
  GstClContext *c = cam ? gst_cl_base_transform_get_context (GST_CL_BASE_TRANSFORM (cam)) :
      nullptr;
  int index = -1;
  if (c) {
    try {
      for (const auto &d : gstcl::enumerate_devices ())
        if (d.device () == gst_cl_context_get_cl_device (c))
          index = (int) d.index;
    } catch (const std::exception &) {
    }
    gst_object_unref (c);
  }
  if (cam)
    gst_object_unref (cam);
  return index;
}

/* Waits until every pipe has had a frame out (or one failed). */
std::string
wait_streaming (std::vector<Pipe *> &pipes, double seconds)
{
  const gint64 give_up = now_ns () + (gint64) (seconds * GST_SECOND);
  for (;;) {
    bool all = true;
    for (Pipe *p : pipes) {
      const std::string e = bus_error (p);
      if (!e.empty ())
        return e;
      all = all && p->arrived.load () > 0;
    }
    if (all)
      return "";
    if (now_ns () > give_up)
      return "a pipeline had no frame out after " + std::to_string ((int) seconds) + " s";
    g_usleep (5000);
  }
}

/* The devices of --farm-devices, each once, in the order given. Throws
 * std::runtime_error when a selector matches none. */
std::vector<gstcl::DeviceEntry>
farm_devices (const FarmOptions &o)
{
  std::vector<gstcl::DeviceEntry> out;
  if (o.devices.empty ())
    return out;
  const auto all = gstcl::enumerate_devices ();
  auto add = [&] (const gstcl::DeviceEntry &d) {
    for (const auto &have : out)
      if (have.index == d.index)
        return;
    out.push_back (d);
  };
  for (const std::string &sel : o.devices) {
    if (sel == "auto") {
      for (const auto &d : gstcl::auto_devices (all))
        add (d);
      continue;
    }
    const gstcl::DeviceEntry *d = gstcl::match_device (all, sel);
    if (!d)
      throw std::runtime_error ("--farm-devices: no OpenCL device matches '" + sel + "'");
    add (*d);
  }
  return out;
}

/* Empty shares, one a device of the list. */
std::vector<DeviceShare>
device_shares (const std::vector<gstcl::DeviceEntry> &devs)
{
  std::vector<DeviceShare> out;
  for (const auto &d : devs) {
    DeviceShare s;
    s.index = d.index;
    s.name = d.full_name ();
    s.pci_bus = d.pci_bus;
    out.push_back (s);
  }
  return out;
}

/* The farm's devices (farm_devices) with their empty shares in r; a bad
 * selector makes r an error. */
static std::vector<gstcl::DeviceEntry>
take_devices (const FarmOptions & o, FarmResult & r)
{
  std::vector<gstcl::DeviceEntry> devs;
  try {
    devs = farm_devices (o);
  } catch (const std::exception &e) {
    r.status = "error";
    r.message = e.what ();
  }
  r.devices = device_shares (devs);
  return devs;
}

void
add_share (DeviceShare & s, const Totals & t)
{
  s.pipelines++;
  s.expected += t.expected;
  s.frames += t.frames;
  s.late += t.late + t.unready;
  s.dropped += t.dropped;
}

/* The shares' frames/s, and the JSON list of them. */
void
finish_shares (FarmResult & r)
{
  if (r.devices.empty ())
    return;
  Json list = Json::array ();
  for (DeviceShare &s : r.devices) {
    s.fps = r.window_s > 0 ? s.frames / r.window_s : 0;
    Json j = Json::object ();
    j["index"] = (double) s.index;
    j["name"] = s.name;
    j["pci_bus"] = s.pci_bus;
    j["pipelines"] = s.pipelines;
    j["frames_expected"] = s.expected;
    j["frames"] = s.frames;
    j["late"] = s.late;
    j["dropped"] = s.dropped;
    j["fps"] = s.fps;
    list.push (j);
  }
  r.json["devices"] = list;
}

/* --farm-contexts 0: the shares of the devices the pipelines' own
 * contexts went to. */
void
own_shares (FarmResult & r, std::vector<Pipe *> &pipes)
{
  std::vector<unsigned> on;
  for (Pipe *p : pipes) {
    const int d = running_device (p);
    p->device = d;
    if (d >= 0 && std::find (on.begin (), on.end (), (unsigned) d) == on.end ())
      on.push_back ((unsigned) d);
  }
  std::sort (on.begin (), on.end ());
  std::vector<gstcl::DeviceEntry> devs;
  try {
    for (const auto &d : gstcl::enumerate_devices ())
      if (std::find (on.begin (), on.end (), d.index) != on.end ())
        devs.push_back (d);
  } catch (const std::exception &) {
  }
  r.devices = device_shares (devs);
  for (Pipe *p : pipes)   /* from the device's index to its share */
    for (size_t s = 0; s < r.devices.size (); s++)
      if (p->device == (int) r.devices[s].index) {
        p->device = (int) s;
        break;
      }
}

FarmResult
run_one_process (const FarmOptions &o, bool paced, int n, GstClContext * shared,
    const Limits & limits)
{
  FarmResult r;
  r.way = "one process";
  r.paced = paced;
  r.pipelines = n;
  r.json = Json::object ();
  const GstClMemoryStats before = mem_stats ();
  r.gpu_used_mib_before = gpu_used_mib ();
  std::vector<std::unique_ptr<Pipe>> owned;
  std::vector<Pipe *> pipes;
  const gint64 period = GST_SECOND / o.fps;
  for (int i = 0; i < n; i++) {
    owned.emplace_back (new Pipe ());
    Pipe *p = owned.back ().get ();
    p->opt = &o;
    p->paced = paced;
    p->offset = period * i / n;
    pipes.push_back (p);
  }
  /* The application's context, or as many as asked for (each its own queue),
   * the pipelines dealt out over them; with --farm-devices, K contexts on
   * each device, pipeline i on device i % D. */
  std::vector<GstClContext *> contexts;
  const std::vector<gstcl::DeviceEntry> devs = take_devices (o, r);
  const int per_device = std::max (o.contexts, 1);
  r.own_contexts = o.contexts == 0;
  if (r.own_contexts && !devs.empty () && r.status == "ok") {
    r.status = "error";
    r.message = "--farm-contexts 0 takes the device of --device (GST_OPENCL_DEVICE), "
        "not --farm-devices";
  }
  if (r.own_contexts) {
    /* none handed in: each pipeline's elements make theirs, as in gst-launch */
  } else if (!devs.empty ()) {
    for (size_t d = 0; d < devs.size () && r.status == "ok"; d++)
      for (int k = 0; k < per_device && r.status == "ok"; k++) {
        GError *err = nullptr;
        GstClContext *c = gst_cl_context_new (std::to_string (devs[d].index).c_str (), &err);
        if (!c) {
          r.status = "error";
          r.message = std::string ("cannot make a context on device ") +
              std::to_string (devs[d].index) + ": " + (err ? err->message : "?");
          g_clear_error (&err);
        } else {
          contexts.push_back (c);
        }
      }
  } else if (o.contexts <= 1 && shared) {
    contexts.push_back (GST_CL_CONTEXT (gst_object_ref (shared)));
  } else {
    for (int i = 0; i < std::max (o.contexts, 1) && r.status == "ok"; i++) {
      GError *err = nullptr;
      GstClContext *c = gst_cl_context_new (nullptr, &err);
      if (!c) {
        r.status = "error";
        r.message = std::string ("cannot make a context: ") + (err ? err->message : "?");
        g_clear_error (&err);
      } else {
        contexts.push_back (c);
      }
    }
  }
  r.contexts = r.own_contexts ? n : (int) contexts.size ();
  std::atomic<bool> stop_pacing{false};
  std::thread pacer;
  auto context_of = [&] (size_t i) -> GstClContext * {
    if (r.own_contexts)
      return nullptr;
    if (devs.empty ())
      return contexts[i % contexts.size ()];
    const size_t d = i % devs.size ();
    pipes[i]->device = (int) d;
    return contexts[d * per_device + (i / devs.size ()) % per_device];
  };
  for (size_t i = 0; i < pipes.size () && r.status == "ok"; i++)
    if (!start_pipe (pipes[i], context_of (i))) {
      r.status = "error";
      r.message = pipes[i]->error;
    }
  if (r.status == "ok" && paced)
    pacer = std::thread (pace, pipes, std::cref (o), std::cref (stop_pacing));
  if (r.status == "ok") {
    const std::string e = wait_streaming (pipes, 60);
    if (!e.empty ()) {
      r.status = "error";
      r.message = e;
    }
  }
  if (r.status == "ok" && r.own_contexts)
    own_shares (r, pipes);
  for (size_t i = 0; i < pipes.size () && r.status == "ok" && !devs.empty (); i++) {
    const int on = running_device (pipes[i]), want = (int) devs[pipes[i]->device].index;
    if (on != want) {
      r.status = "error";
      r.message = "pipeline " + std::to_string (i) + " runs on device " +
          std::to_string (on) + ", not " + std::to_string (want);
    }
  }
  if (r.status == "ok") {
    const gint64 w0 = now_ns () + (gint64) (o.warmup_seconds * GST_SECOND);
    const Window w = measure (pipes, w0, w0 + (gint64) (o.seconds * GST_SECOND));
    r.gpu_used_mib_during = gpu_used_mib ();
    stop_pacing = true;
    for (Pipe *p : pipes) {
      p->stop = true;
      const std::string e = bus_error (p);
      if (!e.empty () && r.status == "ok") {
        r.status = "error";
        r.message = e;
      }
    }
    if (pacer.joinable ())
      pacer.join ();
    for (Pipe *p : pipes)
      gst_element_set_state (p->pipeline, GST_STATE_NULL);
    Totals t;
    for (Pipe *p : pipes) {
      add_pipe (t, p);
      if (p->device >= 0) {
        Totals one;
        add_pipe (one, p);
        add_share (r.devices[p->device], one);
      }
    }
    r.device_mib_per_pipeline = (double) (w.mem.live_bytes - before.live_bytes) / n / 1048576.0;
    r.buffers_per_pipeline = (double) (w.mem.live_buffers - before.live_buffers) / n;
    fill_result (r, t, (w.w1 - w.w0) / 1e9, (double) w.cpu, pipes[0]->info,
        pipes[0]->out_info, limits, std::max<size_t> (devs.size (), 1));
    finish_shares (r);
  }
  stop_pacing = true;
  if (pacer.joinable ())
    pacer.join ();
  owned.clear ();  /* the pipelines, before their contexts */
  for (GstClContext *c : contexts)
    gst_object_unref (c);
  if (r.status != "ok") {
    r.json["way"] = r.way;
    r.json["paced"] = paced;
    r.json["pipelines"] = n;
  }
  return r;
}

/* ---- N processes ---- */


gchar **startup_environment = nullptr;   /* farm_keep_environment () */

/* The environment now, with the ICD loader's variables as at startup, and
 * GST_OPENCL_DEVICE set to `device` when given. */
static gchar **
child_environment (const std::string &device)
{
  gchar **env = g_get_environ ();
  if (!device.empty ())
    env = g_environ_setenv (env, "GST_OPENCL_DEVICE", device.c_str (), TRUE);
  for (const char *name : {"OCL_ICD_FILENAMES", "OCL_ICD_VENDORS"}) {
    const gchar *kept = startup_environment ?
        g_environ_getenv (startup_environment, name) : nullptr;
    if (kept)
      env = g_environ_setenv (env, name, kept, TRUE);
  }
  return env;
}

struct Child {
  GPid pid = 0;
  int in = -1, out = -1;
  std::string buffer;
  std::string line;             /* the last complete line */
};

/* Reads complete lines from the children until each has one; false on a
 * timeout or a closed pipe. */
bool
read_lines (std::vector<Child> &kids, gint64 deadline, std::string *error)
{
  std::vector<bool> have (kids.size (), false);
  size_t left = kids.size ();
  while (left > 0) {
    std::vector<struct pollfd> fds;
    std::vector<size_t> which;
    for (size_t i = 0; i < kids.size (); i++)
      if (!have[i]) {
        fds.push_back ({kids[i].out, POLLIN, 0});
        which.push_back (i);
      }
    const gint64 wait_ms = (deadline - now_ns ()) / GST_MSECOND;
    if (wait_ms <= 0 || ::poll (fds.data (), fds.size (), (int) wait_ms) <= 0) {
      *error = std::to_string (left) + " processes did not answer in time";
      return false;
    }
    for (size_t f = 0; f < fds.size (); f++) {
      if (!(fds[f].revents & (POLLIN | POLLHUP)))
        continue;
      Child &c = kids[which[f]];
      char buf[65536];
      const ssize_t got = read (c.out, buf, sizeof buf);
      if (got <= 0) {
        *error = "a process ended early" + (c.buffer.empty () ? "" : ": " + c.buffer);
        return false;
      }
      c.buffer.append (buf, got);
      const size_t nl = c.buffer.find ('\n');
      if (nl != std::string::npos) {
        c.line = c.buffer.substr (0, nl);
        c.buffer.erase (0, nl + 1);
        have[which[f]] = true;
        left--;
      }
    }
  }
  return true;
}

FarmResult
run_processes (const FarmOptions &o, bool paced, int n, const Limits & limits,
    const std::string & exe)
{
  FarmResult r;
  r.way = "processes";
  r.paced = paced;
  r.pipelines = n;
  r.json = Json::object ();
  r.gpu_used_mib_before = gpu_used_mib ();
  const std::vector<gstcl::DeviceEntry> devs = take_devices (o, r);
  std::vector<Child> kids;
  for (int i = 0; i < n && r.status == "ok"; i++) {
    std::vector<std::string> args = {exe, "--farm-child", std::to_string (i),
      "--farm-child-count", std::to_string (n), "--farm-child-paced", paced ? "1" : "0",
      "--farm-format", o.format, "--farm-size",
      std::to_string (o.width) + "x" + std::to_string (o.height),
      "--farm-fps", std::to_string (o.fps)};
    std::vector<gchar *> argv;
    for (auto &a : args)
      argv.push_back (const_cast<gchar *> (a.c_str ()));
    argv.push_back (nullptr);
    Child c;
    GError *err = nullptr;
    gchar **envp = child_environment (devs.empty () ? std::string () :
        std::to_string (devs[i % devs.size ()].index));
    const gboolean spawned = g_spawn_async_with_pipes (nullptr, argv.data (), envp,
        G_SPAWN_DO_NOT_REAP_CHILD, nullptr, nullptr, &c.pid, &c.in, &c.out, nullptr, &err);
    g_strfreev (envp);
    if (!spawned) {
      r.status = "error";
      r.message = std::string ("cannot start a process: ") + (err ? err->message : "?");
      g_clear_error (&err);
      break;
    }
    kids.push_back (c);
  }
  std::string error;
  if (r.status == "ok" && !read_lines (kids, now_ns () + 120 * GST_SECOND, &error)) {
    r.status = "error";
    r.message = error;
  }
  if (r.status == "ok") {
    int failed = 0;
    std::string first;
    for (size_t k = 0; k < kids.size (); k++) {
      const std::string &line = kids[k].line;
      /* "ready D": D the device its cldebayer runs on */
      if (line.rfind ("ready", 0) != 0) {
        if (failed++ == 0)
          first = line;
      } else if (!devs.empty () && line != "ready " +
          std::to_string (devs[k % devs.size ()].index)) {
        if (failed++ == 0)
          first = "process " + std::to_string (k) + " is " + line + ", not on device " +
              std::to_string (devs[k % devs.size ()].index);
      }
    }
    if (failed) {
      r.status = "error";
      r.message = std::to_string (failed) + " of " + std::to_string (n) +
          " processes failed, the first: " + first;
    }
  }
  gint64 w0 = 0, w1 = 0;
  if (r.status == "ok") {
    w0 = now_ns () + (gint64) (o.warmup_seconds * GST_SECOND);
    w1 = w0 + (gint64) (o.seconds * GST_SECOND);
    const std::string msg = std::to_string (w0) + " " + std::to_string (w1) + "\n";
    for (Child &c : kids)
      if (write (c.in, msg.data (), msg.size ()) != (ssize_t) msg.size ()) {
        r.status = "error";
        r.message = "cannot talk to a process";
      }
  }
  if (r.status == "ok") {
    sleep_until (w0 + (w1 - w0) / 2);
    r.gpu_used_mib_during = gpu_used_mib ();
    if (!read_lines (kids, w1 + 60 * GST_SECOND, &error)) {
      r.status = "error";
      r.message = error;
    }
  }
  Totals t;
  double cpu = 0, bytes = 0, buffers = 0;
  for (size_t k = 0; k < kids.size (); k++) {
    Child &c = kids[k];
    if (r.status != "ok")
      break;
    std::istringstream in (c.line);
    std::string word;
    long expected = 0, got = 0, late = 0, dropped = 0, nlat = 0, el_frames = 0;
    double cpu_ns = 0, live_bytes = 0, live_buffers = 0, el_cpu = 0;
    long unready = 0;
    in >> word >> expected >> got >> late >> unready >> dropped >> cpu_ns >> live_bytes >>
        live_buffers >> el_cpu >> el_frames >> nlat;
    if (word != "result" || !in) {
      r.status = "error";
      r.message = "a process failed: " + c.line;
      break;
    }
    t.expected += expected;
    t.frames += got;
    t.late += late;
    t.unready += unready;
    t.dropped += dropped;
    if (!devs.empty ()) {
      Totals one;
      one.expected = expected;
      one.frames = got;
      one.late = late;
      one.unready = unready;
      one.dropped = dropped;
      add_share (r.devices[k % devs.size ()], one);
    }
    t.element_cpu_ns += el_cpu;
    t.element_frames += el_frames;
    cpu += cpu_ns;
    bytes += live_bytes;
    buffers += live_buffers;
    for (long i = 0; i < nlat; i++) {
      double v;
      if (in >> v)
        t.latency_ms.push_back (v);
    }
  }
  for (Child &c : kids) {
    if (r.status != "ok")
      kill (c.pid, SIGTERM);
    int status = 0;
    waitpid (c.pid, &status, 0);
    g_spawn_close_pid (c.pid);
    close (c.in);
    close (c.out);
  }
  if (r.status == "ok") {
    r.device_mib_per_pipeline = bytes / n / 1048576.0;
    r.buffers_per_pipeline = buffers / n;
    GstVideoInfo in, out;
    GstCaps *ic = gst_caps_from_string (input_caps (o).c_str ());
    GstCaps *oc = gst_caps_from_string (("video/x-raw,format=" + o.format + ",width=" +
        std::to_string (o.width) + ",height=" + std::to_string (o.height)).c_str ());
    gst_cl_video_info_from_caps (&in, ic);
    gst_cl_video_info_from_caps (&out, oc);
    gst_caps_unref (ic);
    gst_caps_unref (oc);
    fill_result (r, t, (w1 - w0) / 1e9, cpu, in, out, limits,
        std::max<size_t> (devs.size (), 1));
    finish_shares (r);
  } else {
    r.json["way"] = r.way;
    r.json["paced"] = paced;
    r.json["pipelines"] = n;
  }
  return r;
}

}  // namespace

void
farm_keep_environment ()
{
  if (!startup_environment)
    startup_environment = g_get_environ ();
}

int
farm_child (const FarmOptions &o, bool paced, int index, int count)
{
  /* "ready", then "w0 w1" from the parent, then "result ..." */
  Pipe p;
  p.opt = &o;
  p.paced = paced;
  p.offset = (GST_SECOND / o.fps) * index / std::max (count, 1);
  std::vector<Pipe *> pipes = {&p};
  std::atomic<bool> stop_pacing{false};
  std::thread pacer;
  std::string e;
  if (!start_pipe (&p, nullptr))
    e = p.error;
  if (e.empty () && paced)
    pacer = std::thread (pace, pipes, std::cref (o), std::cref (stop_pacing));
  if (e.empty ())
    e = wait_streaming (pipes, 100);
  if (!e.empty ()) {
    for (char &ch : e)
      if (ch == '\n')
        ch = ' ';
    std::printf ("error %s\n", e.c_str ());
    std::fflush (stdout);
    stop_pacing = true;
    if (pacer.joinable ())
      pacer.join ();
    return 1;
  }
  std::printf ("ready %d\n", running_device (&p));
  std::fflush (stdout);
  long long w0 = 0, w1 = 0;
  if (std::scanf ("%lld %lld", &w0, &w1) != 2) {   /* the parent went away */
    stop_pacing = true;
    if (pacer.joinable ())   /* none when unpaced */
      pacer.join ();
    gst_element_set_state (p.pipeline, GST_STATE_NULL);
    return 1;
  }
  const Window w = measure (pipes, w0, w1);
  stop_pacing = true;
  p.stop = true;
  if (pacer.joinable ())
    pacer.join ();
  e = bus_error (&p);
  gst_element_set_state (p.pipeline, GST_STATE_NULL);
  if (!e.empty ()) {
    std::printf ("error %s\n", e.c_str ());
    return 1;
  }
  Totals t;
  add_pipe (t, &p);
  std::printf ("result %ld %ld %ld %ld %ld %lld %llu %llu %.0f %ld %zu", t.expected, t.frames,
      t.late, t.unready, t.dropped, (long long) w.cpu, (unsigned long long) w.mem.live_bytes,
      (unsigned long long) w.mem.live_buffers, t.element_cpu_ns, t.element_frames,
      t.latency_ms.size ());
  for (double v : t.latency_ms)
    std::printf (" %.3f", v);
  std::printf ("\n");
  std::fflush (stdout);
  return 0;
}

std::vector<FarmResult>
run_farm (const FarmOptions &o, GstClContext * shared, const Limits & limits,
    const std::string & exe)
{
  std::vector<FarmResult> out;
  for (int way = 0; way < 2; way++) {
    if ((way == 0 && !o.shared) || (way == 1 && !o.processes))
      continue;
    for (bool paced : {true, false}) {
      bool stop = false;
      for (int n : paced ? o.paced : o.unpaced) {
        if (stop)
          break;
        FarmResult r = way == 0 ? run_one_process (o, paced, n, shared, limits) :
            run_processes (o, paced, n, limits, exe);
        /* --farm-until-late: the larger counts would be late too */
        stop = paced && o.until_late && (r.status != "ok" || r.late > 0 || r.dropped > 0);
        if (r.status != "ok") {
          r.json["status"] = r.status;
          r.json["message"] = r.message;
        } else {
          r.json["status"] = "ok";
        }
        report_progress (r);
        out.push_back (std::move (r));
      }
    }
  }
  return out;
}

std::string
farm_markdown (const std::vector<FarmResult> &results, const FarmOptions &o)
{
  std::ostringstream md;
  char buf[1024];
  md << "## Camera farm: " << o.width << "x" << o.height << " " << o.fps
     << " frames/s 12-bit RGGB > cldebayer (camera stages, manual white balance) > "
     << o.format << " > fakesink\n\n";
  md << "Window " << o.seconds << " s after " << o.warmup_seconds << " s of warmup. Paced: "
        "each pipeline gets a frame every 1/" << o.fps << " s (phases spread over the "
        "period), sink sync=true; late = at the sink more than one frame period after "
        "capture, or not readable (download not over) when the sink renders it at capture + one period; the sink maps every frame it renders, as a consumer would; dropped = no free input buffer at capture time (a camera drops it) or never "
        "at the sink. CPU = process CPU time (user + system, all threads; all processes) over "
        "the window / frames; CPU % a stream = CPU cores / pipelines. Over several devices: "
        "pipeline i on device i % D, the transfer limit that of the benchmark's device times "
        "D.\n\n";
  md << "| way | paced | pipelines | frames (of expected) | late | dropped | frames/s together "
        "| of transfer limit (serial / duplex) | CPU ms a frame (process) | cldebayer CPU ms a "
        "frame | CPU cores | CPU % of a core a stream | latency ms p50 / p99 / max | device MiB "
        "a pipeline (buffers) | nvidia-smi MiB before / during | frames/s by device |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const FarmResult &r : results) {
    if (r.status != "ok") {
      md << "| " << r.way << " | " << (r.paced ? "yes" : "no") << " | " << r.pipelines
         << " | " << r.status << ": " << r.message.substr (0, 200) << " ||||||||||||\n";
      continue;
    }
    std::snprintf (buf, sizeof buf, "| %s | %s | %d | %ld (%ld) | %ld | %ld | %.1f | %.0f %% / "
        "%.0f %% | %.3f | %.3f | %.2f | %.2f | %.2f / %.2f / %.2f | %.1f (%.1f) | %.0f / %.0f | "
        "%s |\n",
        way_text (r).c_str (),
        r.paced ? "yes" : "no", r.pipelines, r.frames, r.expected, r.late,
        r.dropped, r.aggregate_fps, 100 * r.transfer_fraction, 100 * r.duplex_fraction,
        r.cpu_ms_per_frame, r.element_cpu_ms_per_frame, r.cpu_cores, r.cpu_percent_per_stream,
        r.latency_p50_ms,
        r.latency_p99_ms, r.latency_max_ms,
        r.device_mib_per_pipeline, r.buffers_per_pipeline, r.gpu_used_mib_before,
        r.gpu_used_mib_during, shares_text (r).c_str ());
    md << buf;
  }
  md << "\n";
  return md.str ();
}

}  // namespace bench
