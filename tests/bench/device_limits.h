/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The device's own limits, measured in the same run: device copy bandwidth
 * and host <-> device transfer rates. */
#pragma once

#include "json.h"

#include <gst/opencl/gstcl.hpp>

#include <string>

namespace bench {

struct Limits {
  bool ok = false;
  std::string error;
  size_t bytes = 0;
  int reps = 0;
  double copy_gbps = 0;         /* clEnqueueCopyBuffer, read + write bytes counted */
  double h2d_pinned_gbps = 0;   /* from a mapped CL_MEM_ALLOC_HOST_PTR buffer */
  double d2h_pinned_gbps = 0;
  double h2d_malloc_gbps = 0;   /* from ordinary (pageable) memory */
  double d2h_malloc_gbps = 0;
};

/* Medians over `reps` transfers of `bytes`. `queue` must have profiling on. */
Limits measure_limits (const cl::Context &context, const cl::Device &device,
    const cl::CommandQueue &queue, size_t bytes, int reps);

/* Frames/s the bus allows for `in` bytes up and `out` bytes down per frame,
 * at the pinned rates. Serial: one after the other (a single pipeline does
 * upload, kernels, download in turn). Duplex: both directions at once (the
 * bound when several frames are in flight). */
double transfer_limit_fps (const Limits &l, double in, double out, bool duplex = false);

Json limits_json (const Limits &l);

/* Median device time in ms of a clEnqueueCopyBuffer of `bytes` (it reads and
 * writes `bytes`): what a kernel that touches 2 x `bytes` can be compared
 * with, launch and ramp-up included on both sides. `queue` must have
 * profiling on. Throws cl::Error. */
double copy_ms (const cl::Context &context, const cl::CommandQueue &queue, size_t bytes,
    int reps);

}  // namespace bench
