/* C++ side of the runtime: typed access to a context's OpenCL objects and the
 * per-context program cache. */
#pragma once

#include "gstclhpp.hpp"
#include <gst/opencl/gstclcontext.h>

#include <stdexcept>
#include <string>

/* The C++ API is exported as a whole (the library hides everything else). */
#pragma GCC visibility push(default)
namespace gstcl {

/* A program that failed to build; what() carries the driver's build log. */
class BuildError : public std::runtime_error {
public:
  explicit BuildError (const std::string &msg) : std::runtime_error (msg) {}
};

const cl::Context &context_of (GstClContext *ctx);
const cl::Device &device_of (GstClContext *ctx);
const cl::CommandQueue &queue_of (GstClContext *ctx);

/* Built once per (context, source, options) and cached; thread-safe. Throws
 * BuildError with the build log, cl::Error on other failures. */
cl::Program program (GstClContext *ctx, const std::string &source,
    const std::string &options);

/* Whether kernels should take the shapes that suit GPUs (a few pixels per
 * work-item, many work-items) rather than CPUs (rows vectorised across
 * work-items). The device type decides; GST_OPENCL_TUNING=gpu|cpu overrides
 * it (tests). */
bool tuned_for_gpu (GstClContext *ctx);

/* Number of programs actually compiled in this process (for tests). */
unsigned program_builds ();

/* Enqueues `kernel` over at least w x h work-items, in lw x lh groups (global
 * size rounded up; kernels check bounds). Zero-sized ranges enqueue nothing.
 * Every kernel should go through here: on a queue with profiling enabled its
 * device time is counted (gstclprofile.h). */
void enqueue_2d (GstClContext *ctx, const cl::Kernel &kernel, size_t w, size_t h,
    size_t lw = 16, size_t lh = 8);

/* "clEnqueueNDRangeKernel failed: CL_OUT_OF_RESOURCES (-5)" */
std::string describe (const cl::Error &e);
const char *error_name (cl_int code);

}  // namespace gstcl
#pragma GCC visibility pop
