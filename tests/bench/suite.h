/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Runs the cases and keeps what the report needs. */
#pragma once

#include "cases.h"
#include "json.h"
#include "device_limits.h"
#include "farm.h"
#include "runner.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace bench {

struct Size {
  std::string name;   /* "1080p", "4k", "8k" or "WxH" */
  int width = 0, height = 0;
};

struct Options {
  bool quick = false;
  std::vector<Size> sizes;
  std::string device;
  int repeats = 5;
  int frames = 100;
  int warmup = 5;
  int concurrent = 8;
  double concurrent_seconds = 2;  /* the window of the concurrent runs */
  double device_seconds = 0.5;    /* device-resident runs: at least this long timed */
  int device_pipelines = 4;       /* device-resident: pipelines that feed the device together */
  bool device_pipelines_given = false;  /* on the command line: run them for every case */
  double max_seconds = 5;
  size_t limit_bytes = 256u << 20;
  int limit_reps = 10;
  bool fresh_kernel_cache = false;
  bool system_input = false;    /* never use the pool the first element proposes */
  std::string json_path, markdown_path, only;
};

enum class Mode { SYSTEM, DEVICE };

/* One case at one size in one mode, over the repeats. */
struct Result {
  const Case *c = nullptr;
  Size size;
  Mode mode = Mode::SYSTEM;
  std::string fragment;
  std::string status = "ok";    /* "ok", "skipped", "error" */
  std::string message;
  std::vector<RunResult> runs;  /* the successful repeats */

  /* medians over the repeats (NAN when not measured) */
  double fps = NAN, fps_min = NAN, fps_max = NAN, mpixel_s = NAN, latency_ms = NAN;
  double first_frame_first_ms = NAN, first_frame_warm_ms = NAN;
  double transfer_limit_fps = NAN, transfer_fraction = NAN;
  double kernel_ms = NAN, kernel_gbps = NAN, kernel_fraction = NAN;
  /* the launches counted as "<kernel> statistics" (cldebayer's that gather
   * the white-balance statistics; not every frame's): the device time of
   * one, and how many a frame */
  double statistics_launch_ms = NAN, statistics_launches = NAN;
  /* a copy of the same bytes (half of in+out, read and written) / kernel time */
  double copy_same_bytes_ms = NAN, kernel_vs_same_copy = NAN;
  /* device-resident: frames/s of device_pipelines pipelines together */
  double device_fps = NAN;
  int device_pipelines = 0;
  /* The device's frames/s: several pipelines' where they ran (one
   * pipeline's host cost sets the pace for short kernels on a GPU), else
   * one pipeline's. */
  double device_rate () const { return std::isfinite (device_fps) ? device_fps : fps; }
  Json json;
};

struct ConcurrentResult {
  const Case *c = nullptr;
  Size size;
  int pipelines = 0;
  bool shared = false;          /* one OpenCL context for all, else one each */
  std::string status = "ok";
  std::string message;
  double aggregate_fps = NAN, per_pipeline_fps = NAN;
  double transfer_fraction = NAN, duplex_fraction = NAN;
  Json json;
};

struct Suite {
  Options opt;
  Limits limits;
  GstClContext *profiling_context = nullptr;   /* for device-resident runs */
  GstClContext *shared_context = nullptr;      /* for concurrent pipelines sharing one */
  std::vector<Result> results;
  std::vector<ConcurrentResult> concurrent;
  std::vector<FarmResult> farm;
  FarmOptions farm_opt;

  void run_case (const Case &c, const Size &size, Mode mode);
  void run_concurrent (const Case &c, const Size &size, int n, bool shared);
  void saturate_device (Result &r);
  const Result *find (const std::string &case_name, const std::string &size, Mode mode) const;
};

const char *mode_name (Mode m);

}  // namespace bench
