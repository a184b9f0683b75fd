/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The benchmark's cases: each is a gst-launch-style fragment placed between
 * the benchmark's appsrc and its sink, plus the input caps (without size). */
#pragma once

#include <string>
#include <vector>

namespace bench {

struct Case {
  std::string name;     /* unique; --only selects by it (main.cpp) */
  std::string caps;     /* input media type and format, e.g. "video/x-raw,format=GRAY8" */
  /* System memory in and out: appsrc ! sys ! fakesink. Empty: not run. */
  std::string sys;
  /* Device-resident: appsrc ! dev ! fakesink, where dev starts with clupload
   * and leaves the result on the device; the input frames are uploaded once
   * and reused, so only kernels run. Empty: not run. */
  std::string dev;
  bool peer = false;    /* an element of another project, for comparison */
  /* What the sink accepts in system-memory mode (a sink that takes any caps
   * would let an OpenCL element keep its output on the device). */
  std::string sys_sink = "video/x-raw";
  /* left out of --quick: seconds a frame on a busy CPU (the picture
   * stages' denoise through PoCL) */
  bool heavy = false;
};

/* What the sink accepts in device-resident mode. */
#define BENCH_DEVICE_SINK_CAPS "video/x-raw(memory:OpenCLMemory)"

/* A ratio of frames/s, system memory in and out, on the same frames. */
struct Comparison {
  std::string ours;     /* case names */
  std::string peer;
};

const std::vector<Case> &all_cases ();
const std::vector<Comparison> &all_comparisons ();
/* The case that --concurrent runs several times at once. */
const char *concurrent_case_name ();

/* Factories named in a fragment that are not installed (caps filters skipped). */
std::vector<std::string> missing_elements (const std::string &fragment);

}  // namespace bench
