/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gstcl::BackgroundBuild: one program built on a thread of its own while the
 * streaming thread keeps running the program it has. */
#include "gstcl.hpp"
#include "gstcl-debug.h"
#include "gstclfilter.h"

#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

namespace gstcl {

/* gstclcontext.cpp */
void announce_build (GstElement *element, GstClContext *ctx, const std::string &what,
    const std::string &source, const std::string &options);
/* program() and cached_program() without counting a lookup, and the count:
 * a background build is one lookup, made by start(). */
cl::Program build_program (GstClContext *ctx, const std::string &source,
    const std::string &options, const std::string &what);
cl::Program find_program (GstClContext *ctx, const std::string &source,
    const std::string &options);
void warm_driver_cache (GstClContext *ctx, const std::string &source,
    const std::string &options, const std::string &what);
void count_program_lookup ();

/* Builds of this process under way, for wait_for_background_builds(). */
static std::mutex building_lock;
static std::condition_variable building_done;
static int n_building = 0;
static unsigned n_started = 0;

/* The job's fields are written before the thread starts and read by the
 * owner only after joining it, except `done`, guarded by `lock`. The thread
 * touches no element but to ask a GstClFilter for a plan when it is done
 * (gst_cl_filter_replan (), an atomic flag): the build is announced by
 * start(), in the owner's thread, and a failure is reported by the owner
 * once it takes the result, so that the owner may be finalised with a build
 * under way (its destructor waits for the thread, and the element's own
 * data outlives its subclass's finalize). */
struct BackgroundBuild::Job {
  GstClContext *ctx = nullptr;    /* a reference */
  GstClFilter *filter = nullptr;  /* asked for a plan when done; not a reference */
  std::string source, options, what;
  cl::Program program;
  std::exception_ptr error;
  std::thread thread;
  mutable std::mutex lock;
  bool done = false;

  ~Job ()
  {
    if (thread.joinable ())
      thread.join ();
    gst_object_unref (ctx);
  }

  void run ()
  {
    const gint64 start_us = g_get_monotonic_time ();
    try {
      BuildScope quiet (nullptr);   /* announced by start() */
      /* frames stream meanwhile: compiled first where no lock of theirs
       * is held */
      warm_driver_cache (ctx, source, options, what);
      program = build_program (ctx, source, options, what);
    } catch (...) {
      error = std::current_exception ();
    }
    GST_CAT_DEBUG (gst_cl_runtime_debug, "background build of %s %s after %.1f ms",
        what.c_str (), error ? "failed" : "done",
        (g_get_monotonic_time () - start_us) / 1000.0);
    {
      std::lock_guard<std::mutex> l (lock);
      done = true;
    }
    /* The filter takes the program at its next frame's plan; asked before
     * the build counts as over (wait_for_background_builds ()). */
    if (filter)
      gst_cl_filter_replan (filter);
    std::lock_guard<std::mutex> l (building_lock);
    if (--n_building == 0)
      building_done.notify_all ();
  }
};

BackgroundBuild::BackgroundBuild () = default;

BackgroundBuild::~BackgroundBuild () = default;

void
BackgroundBuild::start (GstElement *element, GstClContext *ctx, const std::string &source,
    const std::string &options, const std::string &what)
{
  cancel ();
  count_program_lookup ();
  std::unique_ptr<Job> job (new Job ());
  job->ctx = GST_CL_CONTEXT (gst_object_ref (ctx));
  job->what = what;
  job->program = find_program (ctx, source, options);
  if (job->program ()) {
    job->done = true;   /* nothing to build: ready at once */
    job_ = std::move (job);
    return;
  }
  announce_build (element, ctx, what, source, options);
  job->filter = element && GST_IS_CL_FILTER (element) ? GST_CL_FILTER (element) : nullptr;
  job->source = source;
  job->options = options;
  {
    std::lock_guard<std::mutex> l (building_lock);
    n_building++;
    n_started++;
  }
  try {
    job->thread = std::thread (&Job::run, job.get ());
  } catch (const std::system_error & e) {
    /* No thread to be had: build here, as without a background build. */
    GST_CAT_WARNING (gst_cl_runtime_debug, "no thread for a background build (%s): "
        "building in the streaming thread", e.what ());
    job->run ();
  }
  job_ = std::move (job);
}

bool
BackgroundBuild::pending () const
{
  return job_ != nullptr;
}

bool
BackgroundBuild::ready () const
{
  if (!job_)
    return false;
  std::lock_guard<std::mutex> l (job_->lock);
  return job_->done;
}

cl::Program
BackgroundBuild::take ()
{
  g_return_val_if_fail (job_ != nullptr, cl::Program ());
  std::unique_ptr<Job> job = std::move (job_);
  if (job->thread.joinable ())
    job->thread.join ();
  if (job->error)
    std::rethrow_exception (job->error);
  return job->program;
}

void
BackgroundBuild::cancel ()
{
  job_.reset ();  /* ~Job joins */
}

unsigned
background_builds ()
{
  std::lock_guard<std::mutex> l (building_lock);
  return n_started;
}

void
wait_for_background_builds ()
{
  std::unique_lock<std::mutex> l (building_lock);
  building_done.wait (l, [] { return n_building == 0; });
}

}  // namespace gstcl
