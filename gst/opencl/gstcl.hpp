/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* C++ side of the runtime: typed access to a context's OpenCL objects and the
 * per-context program cache. */
#pragma once

#include "gstclhpp.hpp"
#include <gst/opencl/gstclcontext.h>

#include <memory>
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

/* The context's two queues for transfers beside its queue of kernels, one
 * each way (made at the first call; thread-safe): a frame in row bands
 * (gstclbands.hpp) goes up on one and down on the other while the kernels
 * run, which discrete GPUs overlap. */
enum CopyDirection { COPY_UP = 0, COPY_DOWN = 1 };
const cl::CommandQueue &copy_queue (GstClContext *ctx, CopyDirection direction);

/* Built once per (context, source, options) and cached; thread-safe. Throws
 * BuildError with the build log, cl::Error on other failures. Builds of
 * different programs run in parallel; a second caller of the same program
 * waits for the first one's build. A program actually compiled (not taken
 * from the cache) is announced: an INFO message on the bus from the element
 * of the thread's BuildScope, if any, naming the device and `what` (e.g.
 * "convolve.cl (7x7)"; empty: the program's first kernel), and its time in
 * the debug log (category clruntime, INFO). */
cl::Program program (GstClContext *ctx, const std::string &source,
    const std::string &options, const std::string &what = "");

/* The program if it is already built in the cache, else a null cl::Program.
 * Never builds and never waits for a build. */
cl::Program cached_program (GstClContext *ctx, const std::string &source,
    const std::string &options);

/* While alive, `element` is the element this thread works for: program()
 * builds on this thread are announced by it (INFO message on its bus),
 * launches take its kernel-timeout and name it, and waits for the device
 * end when its sink pad flushes (gstclwatchdog.hpp). Scopes nest.
 * GstClFilter holds one around its subclass's set_info, plan and filter
 * and around its uploads and downloads, so every filter's builds announce
 * themselves and every wait of its streaming thread is its own. */
class BuildScope {
public:
  explicit BuildScope (GstElement *element);
  ~BuildScope ();
  BuildScope (const BuildScope &) = delete;
  BuildScope &operator= (const BuildScope &) = delete;
  /* The element of this thread's innermost scope, or nullptr. */
  static GstElement *current ();
private:
  GstElement *previous_;
};

/* One program built on a thread of its own, for a property change while
 * playing: the streaming thread keeps running the program it has, polls
 * ready() at each frame without blocking, and takes the new program at the
 * first frame after it is ready. Owned and used by one thread (the
 * streaming thread, and stop/finalize once streaming has stopped); the
 * build's thread touches no element, so the owner may be destroyed at any
 * time (its destructor waits for the build). */
class BackgroundBuild {
public:
  BackgroundBuild ();
  ~BackgroundBuild ();  /* waits for a build under way */
  BackgroundBuild (const BackgroundBuild &) = delete;
  BackgroundBuild &operator= (const BackgroundBuild &) = delete;

  /* Starts building (ctx, source, options) for `element`, which announces
   * the build on its bus now (see program()); returns at once. A build
   * already under way is waited for and dropped first. A program already in
   * the cache is ready at once, without a thread and unannounced. When
   * `element` is a GstClFilter, a build on a thread asks it for a plan
   * (gst_cl_filter_replan ()) as it finishes, so that its plan hook takes
   * the program at the first frame after it is ready; the BackgroundBuild
   * must then belong to the element (destroyed before it is freed). */
  void start (GstElement *element, GstClContext *ctx, const std::string &source,
      const std::string &options, const std::string &what = "");
  /* Whether a build was started and not yet taken or cancelled. */
  bool pending () const;
  /* Whether it has finished (built or failed): take() then returns at once.
   * Never blocks. */
  bool ready () const;
  /* Waits for the build if need be, forgets it, and returns its program or
   * throws what program() threw (BuildError, cl::Error). */
  cl::Program take ();
  /* Waits for a build under way and forgets it. */
  void cancel ();

private:
  struct Job;
  std::unique_ptr<Job> job_;
};

/* For tests: the number of background builds started in this process (not
 * counting programs found in the cache), and a wait until none is under
 * way. */
unsigned background_builds ();
void wait_for_background_builds ();

/* Whether kernels should take the shapes that suit GPUs (a few pixels per
 * work-item, many work-items) rather than CPUs (rows vectorised across
 * work-items). The device type decides; GST_OPENCL_TUNING=gpu|cpu overrides
 * it (tests). */
bool tuned_for_gpu (GstClContext *ctx);

/* Number of programs actually compiled in this process (for tests). */
unsigned program_builds ();
/* Number of background builds compiled first in a warm context (for tests;
 * gstclcontext.cpp, warm_driver_cache). */
unsigned warm_builds ();

/* Number of program lookups in this process: calls of program() and
 * cached_program(), and BackgroundBuild::start() (one each, whether the
 * program was in the cache or not). Elements look programs up when they
 * plan (GstClFilterClass::plan, set_info), never per frame: a stream whose
 * caps, settings and frame layouts stay the same makes none
 * (tests/test_plan.cpp). Thread-safe. */
unsigned program_lookups ();

/* Enqueues `kernel` over at least w x h work-items, in lw x lh groups (global
 * size rounded up; kernels check bounds). Zero-sized ranges enqueue nothing.
 * Every kernel should go through here: the watchdog records the launch with
 * the thread's element's kernel-timeout (gstclwatchdog.hpp; throws
 * DeviceTimeout, enqueuing nothing, on an abandoned queue); on a queue with
 * profiling enabled its device time is counted (gstclprofile.h), under the
 * kernel's name followed by `profile_suffix` where one is given (launches
 * of one kernel that do different work, e.g. " statistics"), which also
 * names it in the watchdog's messages. */
void enqueue_2d (GstClContext *ctx, const cl::Kernel &kernel, size_t w, size_t h,
    size_t lw = 16, size_t lh = 8, const char *profile_suffix = nullptr);

/* The same over the work-item rows [y0, y1) only (a global offset of y0:
 * get_global_id (1) counts from y0, get_group_id (1) from 0), for frames
 * in row bands (gstclbands.hpp); y0 a multiple of lh. */
void enqueue_2d_rows (GstClContext *ctx, const cl::Kernel &kernel, size_t w, size_t y0,
    size_t y1, size_t lw = 16, size_t lh = 8, const char *profile_suffix = nullptr);

/* While a LaunchRecord lives (a frame in bands), the calling thread's
 * launches through enqueue_2d and enqueue_2d_rows keep the last one's
 * event, which take_last_launch () hands over (none: nothing launched
 * since the last take); on an in-order queue its end is the end of
 * everything queued before it too, so a band's reads wait on it instead of
 * a marker (an enqueue call less a band). Its end drops the event, so that
 * nothing holds a context's objects past its frame. */
class LaunchRecord {
public:
  LaunchRecord ();
  ~LaunchRecord ();
  LaunchRecord (const LaunchRecord &) = delete;
  LaunchRecord &operator= (const LaunchRecord &) = delete;
};
cl::Event take_last_launch ();

/* Commands other than kernels that a frame takes (a plane copy): enqueue
 * with profile_event (ctx, &e) as the event argument, then call
 * profile_command (ctx, name, e): on a profiling queue the command's device
 * time is counted under `name` like a kernel's; elsewhere no event is made. */
cl_event *profile_event (GstClContext *ctx, cl_event *event);
void profile_command (GstClContext *ctx, const char *name, cl_event event);

/* "clEnqueueNDRangeKernel failed: CL_OUT_OF_RESOURCES (-5)" */
std::string describe (const cl::Error &e);
const char *error_name (cl_int code);

}  // namespace gstcl
#pragma GCC visibility pop

#include <gst/opencl/gstclwatchdog.hpp>
