/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The camera farm: N camera pipelines "appsrc (1080p30 12-bit Bayer) !
 * cldebayer (camera stages) ! NV12 or RGBA ! fakesink" on one device, in one
 * process sharing one OpenCL context (an application) or in N processes
 * with a context each (N gst-launch-1.0), paced at the camera's frame rate
 * with the sink synchronised to the clock, or unpaced. See docs/scale.md. */
#pragma once

#include "device_limits.h"
#include "json.h"

#include <gst/opencl/opencl.h>

#include <string>
#include <vector>

namespace bench {

struct FarmOptions {
  std::vector<int> paced;       /* pipeline counts to run paced */
  std::vector<int> unpaced;     /* pipeline counts to run as fast as they go */
  bool shared = true;           /* one process, one context */
  bool processes = true;        /* one process and one context a pipeline */
  int contexts = 1;             /* one process: pipeline i on context i % contexts;
                                   0: none handed in, each pipeline makes its own */
  /* device selectors ("1", "pci:...", "auto": every device auto deals over);
   * empty: the benchmark's device. Pipeline i on device i % D, each device
   * with `contexts` contexts (one process) or GST_OPENCL_DEVICE (processes). */
  std::vector<std::string> devices;
  bool until_late = false;      /* paced: stop after the first count with late frames */
  double seconds = 10;          /* measurement window */
  double warmup_seconds = 2;    /* every pipeline streaming before the window */
  std::string format = "NV12";  /* output: NV12 or RGBA */
  int width = 1920, height = 1080, fps = 30;
};

/* One device's part of a point spread over several devices. */
struct DeviceShare {
  unsigned index = 0;           /* as gst-opencl-info prints it */
  std::string name, pci_bus;
  int pipelines = 0;
  long expected = 0, frames = 0, late = 0, dropped = 0;
  double fps = 0;
};

/* One point: a way (shared / processes), paced or not, N pipelines. */
struct FarmResult {
  std::string way;              /* "one process" or "processes" */
  int contexts = 1;             /* OpenCL contexts (queues) in the one process */
  bool own_contexts = false;    /* each pipeline made its own (--farm-contexts 0) */
  bool paced = true;
  int pipelines = 0;
  std::string status = "ok";
  std::string message;
  double window_s = 0;
  long expected = 0;            /* frames captured in the window (paced) */
  long frames = 0;              /* of them at the sink (paced); frames in the window (unpaced) */
  long late = 0, dropped = 0;
  long unready = 0;             /* of the late: not readable when rendered */
  double aggregate_fps = 0, transfer_fraction = 0, duplex_fraction = 0;
  double cpu_ms_per_frame = 0;  /* process CPU (user + system) / frames */
  double cpu_cores = 0;         /* process CPU / wall time */
  double cpu_percent_per_stream = 0;  /* cpu_cores / pipelines, in % of one core */
  std::vector<DeviceShare> devices;   /* with --farm-devices */
  double element_cpu_ms_per_frame = 0;  /* cldebayer's streaming-thread CPU, input to output */
  double latency_p50_ms = 0, latency_p99_ms = 0, latency_max_ms = 0;
  double device_mib_per_pipeline = 0, buffers_per_pipeline = 0;
  double gpu_used_mib_before = -1, gpu_used_mib_during = -1;  /* nvidia-smi, if any */
  Json json;
};

/* Keeps a copy of the environment for the child processes; call first in
 * main, before any OpenCL call. Some ICD loaders (the Khronos loader of CUDA
 * toolkits) split OCL_ICD_FILENAMES in place with strtok, leaving only its
 * first entry in the process environment: children spawned after that saw
 * PoCL and not the NVIDIA platform. */
void farm_keep_environment ();

/* Runs every point of `opt` (paced first, for each way), printing progress
 * to stderr. `shared` is the application's context for the one-process way. */
std::vector<FarmResult> run_farm (const FarmOptions &opt, GstClContext *shared,
    const Limits &limits, const std::string &self_exe);

/* The child process of the processes way (--farm-child): one pipeline with
 * its own context; talks to the parent on stdin/stdout. Returns the exit code. */
int farm_child (const FarmOptions &opt, bool paced, int index, int count);

std::string farm_markdown (const std::vector<FarmResult> &results, const FarmOptions &opt);

/* The camera stages of cldebayer used by the benchmark's camera cases, with
 * manual white balance (cases.cpp). */
std::string camera_manual_fragment ();

}  // namespace bench
