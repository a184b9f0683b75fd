/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Runs one pipeline "appsrc ! FRAGMENT ! fakesink" on frames prepared before
 * the clock starts, and times what reaches the sink. */
#pragma once

#include <gst/opencl/opencl.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace bench {

struct RunSpec {
  std::string fragment;      /* between appsrc and the sink */
  std::string caps;          /* fixed input caps */
  std::string sink_caps;     /* what the sink accepts; empty: anything */
  int frames = 100;
  int warmup = 5;            /* frames not timed */
  double max_seconds = 5;    /* stop feeding after this long (slow elements) */
  /* Keep feeding past `frames` until the frames after the warmup have taken
   * at least this long (device-resident runs, whose frames take microseconds),
   * up to `max_frames`. */
  double min_seconds = 0;
  int max_frames = 0;        /* 0: `frames` */
  /* When set, the run feeds frames (up to max_frames) until it turns true:
   * concurrent runs that stop together. */
  const std::atomic<bool> *stop = nullptr;
  /* Device-resident input: the frames are not rewritten between pushes, so
   * an OpenCL pool's buffers are uploaded once. Otherwise every push marks
   * the frame as newly written by the host, as a producer would. */
  bool resident_input = false;
  /* Take the input frames from the pool the first element proposes, when it
   * does (an OpenCL element's pinned buffers); else from system memory. */
  bool proposed_pool = true;
  /* Set on the pipeline when given (the elements then use it). */
  GstClContext *context = nullptr;
  /* Device timing (needs `context`, with a profiling queue for kernel
   * times): the queue is finished at the warmup boundary and at the end, and
   * the kernel counters cover exactly the timed frames. Only for a pipeline
   * that runs alone. */
  bool device_timing = false;
  /* When set (device-resident pipelines running together), a pipeline
   * finishes this queue each kPaceFrames pushes (runner.cpp), so that no
   * backlog builds up that a window would not see, and no pipeline's frames
   * wait behind thousands of another's; the others keep the device busy
   * meanwhile. */
  cl_command_queue pace_queue = nullptr;
};

struct KernelTime {
  std::string name;
  guint64 count = 0;
  guint64 ns = 0;
};

struct RunResult {
  bool ok = false;
  std::string error;
  int frames_out = 0;
  int timed_frames = 0;
  double fps = 0;             /* timed frames / their time */
  double latency_ms = 0;      /* median, push (PTS) -> arrival at the sink */
  double first_frame_ms = 0;  /* set_state (PLAYING) -> first buffer at the sink */
  std::string input_memory;   /* "opencl-pool" (proposed by the first element) or "system-pool" */
  gsize in_frame_bytes = 0, out_frame_bytes = 0;
  gsize in_transfer_bytes = 0, out_transfer_bytes = 0;  /* host <-> device, per frame */
  std::string out_caps;
  std::vector<KernelTime> kernels;  /* with device_timing: kernels of the timed frames */
};

/* Finishes the context's queue and waits until every profiled command of it
 * is counted (gstclprofile.h). */
void drain (GstClContext * ctx);

struct RunState;

/* One pipeline; several can run at once. */
class Run {
public:
  explicit Run (const RunSpec &spec);
  ~Run ();
  Run (const Run &) = delete;
  Run &operator= (const Run &) = delete;

  bool start ();                /* parse and set PLAYING; false on error */
  bool poll (int timeout_ms);   /* true once finished (EOS, error or timeout) */
  RunResult finish ();          /* stops the pipeline and computes the figures */

  /* Arrival times at the sink (monotonic ns) and the index of the first timed one. */
  const std::vector<gint64> &arrivals () const;
  int warmup () const { return spec_.warmup; }
  int frames_out () const;    /* so far; any thread */

private:
  RunSpec spec_;
  std::unique_ptr<RunState> st_;
};

/* The input frames of a pipeline whose source is `src`: the pool the element
 * after it proposes (an OpenCL element's pinned buffers) when `proposed` and
 * it does, else a system-memory pool; a few buffers, each filled with random
 * bytes once. Sets `error` (and may still return the pool) on failure. */
GstBufferPool *input_pool (GstElement *src, GstCaps *caps, const GstVideoInfo *info,
    bool proposed, bool *cl_pool, std::string *memory, std::string *error);
void fill_random (guint8 *data, gsize size, guint64 seed);

/* start + poll + finish. */
RunResult run_once (const RunSpec &spec);

gint64 now_ns ();

}  // namespace bench
