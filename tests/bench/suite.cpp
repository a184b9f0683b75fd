/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "suite.h"
#include "stats.h"

#include <algorithm>
#include <cstdio>
#include <atomic>
#include <map>
#include <memory>

namespace bench {

const char *
mode_name (Mode m)
{
  return m == Mode::SYSTEM ? "system" : "device";
}

static std::string
caps_at (const Case &c, const Size &s)
{
  return c.caps + ",width=" + std::to_string (s.width) + ",height=" +
      std::to_string (s.height) + ",framerate=30/1";
}

static RunSpec
spec_for (const Suite &suite, const Case &c, const Size &size, Mode mode)
{
  RunSpec spec;
  spec.fragment = mode == Mode::SYSTEM ? c.sys : c.dev;
  spec.caps = caps_at (c, size);
  spec.sink_caps = mode == Mode::SYSTEM ? c.sys_sink : BENCH_DEVICE_SINK_CAPS;
  spec.frames = suite.opt.frames;
  spec.warmup = suite.opt.warmup;
  spec.max_seconds = suite.opt.max_seconds;
  spec.resident_input = mode == Mode::DEVICE;
  spec.proposed_pool = mode == Mode::DEVICE || !suite.opt.system_input;
  spec.context = mode == Mode::DEVICE ? suite.profiling_context : nullptr;
  spec.device_timing = mode == Mode::DEVICE;
  if (mode == Mode::DEVICE) {
    /* Frames on the device take tens of microseconds: a run of --frames
     * would be over in a few ms, where start and end of stream weigh. */
    spec.min_seconds = suite.opt.device_seconds;
    spec.max_frames = 2000000;
    spec.max_seconds = std::max (spec.max_seconds, 2 * suite.opt.device_seconds);
  }
  return spec;
}

static Json
base_json (const Case &c, const Size &size, Mode mode)
{
  const std::string &fragment = mode == Mode::SYSTEM ? c.sys : c.dev;
  const std::string sink = mode == Mode::SYSTEM ? c.sys_sink : BENCH_DEVICE_SINK_CAPS;
  Json j = Json::object ();
  j["case"] = c.name;
  j["peer"] = c.peer;
  j["mode"] = mode_name (mode);
  j["size"] = size.name;
  j["width"] = size.width;
  j["height"] = size.height;
  j["pipeline"] = "appsrc ! " + fragment + " ! " + sink + " ! fakesink";
  j["caps"] = caps_at (c, size);
  return j;
}

static void
summarize (Result &r, const Suite &suite)
{
  const double pixels = (double) r.size.width * r.size.height;
  std::vector<double> fps, lat, first, kernel_ms, statistics_ms, statistics_launches;
  std::map<std::string, std::vector<double>> per_kernel_ms, per_kernel_launches;
  for (const RunResult &run : r.runs) {
    fps.push_back (run.fps);
    lat.push_back (run.latency_ms);
    first.push_back (run.first_frame_ms);
    if (r.mode == Mode::DEVICE && run.timed_frames > 0 && !run.kernels.empty ()) {
      double ns = 0, statistics_ns = 0;
      guint64 statistics_count = 0;
      for (const KernelTime &k : run.kernels) {
        ns += (double) k.ns;
        per_kernel_ms[k.name].push_back (k.ns / 1e6 / run.timed_frames);
        per_kernel_launches[k.name].push_back ((double) k.count / run.timed_frames);
        if (g_str_has_suffix (k.name.c_str (), " statistics")) {
          statistics_ns += (double) k.ns;
          statistics_count += k.count;
        }
      }
      kernel_ms.push_back (ns / 1e6 / run.timed_frames);
      if (statistics_count > 0) {
        statistics_ms.push_back (statistics_ns / 1e6 / (double) statistics_count);
        statistics_launches.push_back ((double) statistics_count / run.timed_frames);
      }
    }
  }
  const RunResult &any = r.runs.front ();
  const Spread f = spread_of (fps);
  r.fps = f.median;
  r.fps_min = f.min;
  r.fps_max = f.max;
  r.mpixel_s = f.median * pixels / 1e6;
  r.latency_ms = median_of (lat);
  r.first_frame_first_ms = first.front ();
  if (first.size () > 1)
    r.first_frame_warm_ms = median_of (std::vector<double> (first.begin () + 1, first.end ()));

  Json &j = r.json;
  j["status"] = "ok";
  j["repeats"] = (int) r.runs.size ();
  j["frames_timed"] = any.timed_frames;
  j["input_memory"] = any.input_memory;
  j["output_caps"] = any.out_caps;
  j["in_frame_bytes"] = any.in_frame_bytes;
  j["out_frame_bytes"] = any.out_frame_bytes;
  j["in_transfer_bytes"] = any.in_transfer_bytes;
  j["out_transfer_bytes"] = any.out_transfer_bytes;
  j["fps"] = spread_json (fps);
  j["mpixel_s"] = r.mpixel_s;
  j["latency_ms"] = spread_json (lat);
  Json ff = Json::object ();
  ff["first_run"] = r.first_frame_first_ms;
  ff["warm_median"] = r.first_frame_warm_ms;
  ff["runs"] = spread_json (first)["runs"];
  j["first_frame_ms"] = ff;

  if (r.mode == Mode::SYSTEM && !r.c->peer) {
    r.transfer_limit_fps = transfer_limit_fps (suite.limits, (double) any.in_transfer_bytes,
        (double) any.out_transfer_bytes);
    if (r.transfer_limit_fps > 0) {
      r.transfer_fraction = r.fps / r.transfer_limit_fps;
      j["transfer_limit_fps"] = r.transfer_limit_fps;
      j["fraction_of_transfer_limit"] = r.transfer_fraction;
    }
  }
  if (!kernel_ms.empty ()) {
    r.kernel_ms = median_of (kernel_ms);
    const double bytes = (double) (any.in_frame_bytes + any.out_frame_bytes);
    r.kernel_gbps = bytes / (r.kernel_ms * 1e6);
    Json k = Json::object ();
    k["ms_per_frame"] = spread_json (kernel_ms);
    if (!statistics_ms.empty ()) {
      r.statistics_launch_ms = median_of (statistics_ms);
      r.statistics_launches = median_of (statistics_launches);
      k["statistics_launch_ms"] = spread_json (statistics_ms);
      k["statistics_launches_per_frame"] = r.statistics_launches;
    }
    k["bytes_per_frame"] = bytes;
    k["gbps"] = r.kernel_gbps;
    if (suite.limits.ok) {
      r.kernel_fraction = r.kernel_gbps / suite.limits.copy_gbps;
      k["fraction_of_copy"] = r.kernel_fraction;
      try {
        GstClContext *pc = suite.profiling_context;
        r.copy_same_bytes_ms = copy_ms (gstcl::context_of (pc), gstcl::queue_of (pc),
            (size_t) (bytes / 2), 20);
        r.kernel_vs_same_copy = r.copy_same_bytes_ms / r.kernel_ms;
        k["copy_same_bytes_ms"] = r.copy_same_bytes_ms;
        k["fraction_of_same_bytes_copy"] = r.kernel_vs_same_copy;
      } catch (const cl::Error &e) {
        k["copy_same_bytes_error"] = gstcl::describe (e);
      }
    }
    Json names = Json::object ();
    for (const auto &kv : per_kernel_ms) {
      Json one = Json::object ();
      one["ms_per_frame"] = median_of (kv.second);
      one["launches_per_frame"] = median_of (per_kernel_launches[kv.first]);
      names[kv.first] = one;
    }
    k["kernels"] = names;
    /* frames/s (wall clock, --device-seconds at least) against what the
     * kernels alone allow: one pipeline's; saturate_device puts the
     * device's here where it runs */
    k["fps_vs_kernel_rate"] = r.fps * r.kernel_ms / 1000;
    j["kernel"] = k;
  }
}

void
Suite::run_case (const Case &c, const Size &size, Mode mode)
{
  Result r;
  r.c = &c;
  r.size = size;
  r.mode = mode;
  r.fragment = mode == Mode::SYSTEM ? c.sys : c.dev;
  r.json = base_json (c, size, mode);
  const std::string label = "[" + std::string (mode_name (mode)) + "] " + c.name + " " +
      std::to_string (size.width) + "x" + std::to_string (size.height);

  std::vector<std::string> missing = missing_elements (r.fragment);
  if (mode == Mode::DEVICE && !profiling_context) {
    r.status = "skipped";
    r.message = "no profiling context";
  } else if (!missing.empty ()) {
    r.status = "skipped";
    r.message = "element not available: " + missing.front ();
  }
  if (r.status == "skipped") {
    std::fprintf (stderr, "%s: skipped, %s\n", label.c_str (), r.message.c_str ());
    r.json["status"] = r.status;
    r.json["message"] = r.message;
    results.push_back (std::move (r));
    return;
  }

  const RunSpec spec = spec_for (*this, c, size, mode);
  for (int i = 0; i < opt.repeats; i++) {
    RunResult run = run_once (spec);
    if (!run.ok) {
      r.status = "error";
      r.message = run.error;
      std::fprintf (stderr, "%s: ERROR %s\n", label.c_str (), run.error.c_str ());
      break;
    }
    double kms = 0;
    for (const KernelTime &k : run.kernels)
      kms += k.ns / 1e6;
    if (run.timed_frames > 0)
      kms /= run.timed_frames;
    std::fprintf (stderr, "%s run %d/%d: %.1f frames/s, latency %.2f ms, first frame "
        "%.0f ms%s%s\n", label.c_str (), i + 1, opt.repeats, run.fps, run.latency_ms,
        run.first_frame_ms, mode == Mode::DEVICE ? ", kernels " : "",
        mode == Mode::DEVICE ? (std::to_string (kms) + " ms/frame").c_str () : "");
    r.runs.push_back (std::move (run));
  }
  if (r.status == "ok") {
    summarize (r, *this);
    if (mode == Mode::DEVICE)
      saturate_device (r);
  } else {
    r.json["status"] = r.status;
    r.json["message"] = r.message;
  }
  results.push_back (std::move (r));
}

/* n pipelines of `spec` at once, fed until told to stop. */
struct Window {
  std::string status = "ok", message;
  double aggregate_fps = NAN, seconds = 0;
  std::vector<double> each;       /* frames/s of each pipeline */
  std::vector<RunResult> out;
};

/* Runs n pipelines of `spec` together for `seconds`, by time, not frames:
 * every pipeline feeds until all are told to stop, and the window opens
 * once all are past their warmup (a pipeline with a context of its own
 * takes ~0.1 s to start, by then another has streamed hundreds of frames).
 * The frames counted are those that reached a sink in the window. With
 * `device_ctx` (device-resident frames, whose pushes wait for the device
 * only through spec.pace_queue), the window opens and closes with its
 * queue finished, and it counts every frame that reached a sink after it
 * opened: the device's rate, not how far the pushes ran ahead of it. */
static Window
run_window (RunSpec spec, int n, double seconds, GstClContext * device_ctx)
{
  Window w;
  std::vector<std::unique_ptr<Run>> runs;
  std::atomic<bool> stop{false};
  spec.stop = &stop;
  spec.max_frames = device_ctx ? 2000000 : 1000000;
  spec.max_seconds = 120;
  for (int i = 0; i < n; i++)
    runs.emplace_back (new Run (spec));
  for (auto &run : runs)
    run->start ();
  const gint64 give_up = now_ns () + 60 * GST_SECOND;
  bool all_in = false, ended = false;
  while (!all_in && !ended && now_ns () < give_up) {
    all_in = true;
    for (auto &run : runs) {
      ended = run->poll (0) || ended;  /* an error, or out of frames */
      all_in = all_in && run->frames_out () > run->warmup ();
    }
    if (!all_in)
      g_usleep (2000);
  }
  if (device_ctx)
    drain (device_ctx);
  const gint64 start = now_ns ();
  if (all_in && !ended)
    g_usleep ((gulong) (seconds * G_USEC_PER_SEC));
  gint64 end = now_ns ();
  stop = true;
  for (bool all_done = false; !all_done;) {
    all_done = true;
    for (auto &run : runs)
      all_done = run->poll (10) && all_done;
  }
  if (device_ctx) {
    drain (device_ctx);
    end = now_ns ();
  }
  for (auto &run : runs) {
    w.out.push_back (run->finish ());
    if (!w.out.back ().ok && w.status == "ok") {
      w.status = "error";
      w.message = w.out.back ().error;
    }
  }
  if (w.status != "ok")
    return w;
  long frames = 0;
  bool all_streamed = true;
  for (size_t i = 0; i < runs.size (); i++) {
    const auto &a = runs[i]->arrivals ();
    long mine = 0;
    for (int k = 0; k < w.out[i].frames_out; k++)
      mine += a[k] > start && (device_ctx || a[k] <= end);
    all_streamed = all_streamed && mine > 0 && w.out[i].frames_out > runs[i]->warmup () &&
        a[runs[i]->warmup ()] <= start;
    w.each.push_back (mine / ((end - start) / 1e9));
    frames += mine;
  }
  if (all_streamed && end > start) {
    w.aggregate_fps = frames / ((end - start) / 1e9);
    w.seconds = (end - start) / 1e9;
  } else {
    w.status = "error";
    w.message = "the pipelines never all streamed at the same time (a pipeline did not "
        "start within 60 s)";
  }
  return w;
}

void
Suite::run_concurrent (const Case &c, const Size &size, int n, bool shared)
{
  ConcurrentResult cr;
  cr.c = &c;
  cr.size = size;
  cr.pipelines = n;
  cr.shared = shared;
  Json j = base_json (c, size, Mode::SYSTEM);
  j["pipelines"] = n;
  j["contexts"] = shared ? "one shared" : "one per pipeline";
  const char *how = shared ? "one shared context" : "own contexts";
  const std::vector<std::string> missing = missing_elements (c.sys);
  if (!missing.empty ()) {
    cr.status = "skipped";
    cr.message = "element not available: " + missing.front ();
  } else if (shared && !shared_context) {
    cr.status = "skipped";
    cr.message = "no shared context";
  }
  Window w;
  if (cr.status == "ok") {
    RunSpec spec = spec_for (*this, c, size, Mode::SYSTEM);
    spec.context = shared ? shared_context : nullptr;
    w = run_window (spec, n, opt.concurrent_seconds, nullptr);
    cr.status = w.status;
    cr.message = w.message;
  }
  if (cr.status == "ok") {
    cr.aggregate_fps = w.aggregate_fps;
    cr.per_pipeline_fps = median_of (w.each);
    j["window_s"] = w.seconds;
    const double in = (double) w.out[0].in_transfer_bytes, o = (double) w.out[0].out_transfer_bytes;
    const double serial = transfer_limit_fps (limits, in, o), duplex =
        transfer_limit_fps (limits, in, o, true);
    j["status"] = "ok";
    j["aggregate_fps"] = cr.aggregate_fps;
    j["aggregate_mpixel_s"] = cr.aggregate_fps * size.width * size.height / 1e6;
    j["per_pipeline_fps"] = spread_json (w.each);
    j["input_memory"] = w.out[0].input_memory;
    if (serial > 0) {
      cr.transfer_fraction = cr.aggregate_fps / serial;
      cr.duplex_fraction = cr.aggregate_fps / duplex;
      j["transfer_limit_fps"] = serial;
      j["fraction_of_transfer_limit"] = cr.transfer_fraction;
      j["duplex_transfer_limit_fps"] = duplex;
      j["fraction_of_duplex_transfer_limit"] = cr.duplex_fraction;
    }
    std::fprintf (stderr, "[concurrent] %d x %s %dx%d, %s: %.1f frames/s together\n", n,
        c.name.c_str (), size.width, size.height, how, cr.aggregate_fps);
  } else {
    j["status"] = cr.status;
    j["message"] = cr.message;
    std::fprintf (stderr, "[concurrent] %d x %s, %s: %s %s\n", n, c.name.c_str (), how,
        cr.status.c_str (), cr.message.c_str ());
  }
  cr.json = j;
  concurrent.push_back (std::move (cr));
}

/* The device's frame rate for a device-resident case: --device-pipelines
 * pipelines of it at once in the shared context (one queue, no profiling)
 * for --device-seconds, so that no one pipeline's host cost sets the pace
 * (kernels of tens of microseconds on a GPU: one pipeline's source,
 * element, sink and the profiling take ~30 us a frame on one thread). */
void
Suite::saturate_device (Result &r)
{
  const int n = opt.device_pipelines;
  if (n < 1 || !shared_context || r.status != "ok" || !std::isfinite (r.kernel_ms))
    return;
  /* Only where one pipeline left the device idle a tenth of the time or
   * more (unless asked for): otherwise the device sets its pace already
   * (slow kernels, CPU devices). */
  if (r.fps * r.kernel_ms / 1000 >= 0.9 && !opt.device_pipelines_given)
    return;
  RunSpec spec = spec_for (*this, *r.c, r.size, Mode::DEVICE);
  spec.context = shared_context;
  spec.device_timing = false;
  spec.min_seconds = 0;
  spec.pace_queue = gst_cl_context_get_cl_queue (shared_context);
  const Window w = run_window (spec, n, opt.device_seconds > 0 ? opt.device_seconds : 0.05,
      shared_context);
  Json &k = r.json["kernel"];
  if (w.status != "ok") {
    k["device_fps_error"] = w.message;
    std::fprintf (stderr, "[device] %d x %s: %s\n", n, r.c->name.c_str (), w.message.c_str ());
    return;
  }
  r.device_fps = w.aggregate_fps;
  r.device_pipelines = n;
  k["device_fps"] = r.device_fps;
  k["device_pipelines"] = n;
  k["device_window_s"] = w.seconds;
  k["one_pipeline_fps_vs_kernel_rate"] = k["fps_vs_kernel_rate"];
  k["fps_vs_kernel_rate"] = r.device_rate () * r.kernel_ms / 1000;
  std::fprintf (stderr, "[device] %d x %s %dx%d: %.1f frames/s together, %.0f %% of 1 / kernel "
      "time\n", n, r.c->name.c_str (), r.size.width, r.size.height, r.device_fps,
      100 * r.device_fps * r.kernel_ms / 1000);
}

const Result *
Suite::find (const std::string &case_name, const std::string &size, Mode mode) const
{
  for (const Result &r : results)
    if (r.c->name == case_name && r.size.name == size && r.mode == mode && r.status == "ok")
      return &r;
  return nullptr;
}

}  // namespace bench
