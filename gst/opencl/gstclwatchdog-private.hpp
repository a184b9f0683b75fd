/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The watchdog's side inside the library (gstclwatchdog.hpp for what it
 * does): the record of a queue's launches, the bounded wait, and the
 * graveyard of queues kept for work that never completed. Not installed. */
#pragma once

#include "gstclwatchdog.hpp"

#include <memory>
#include <string>
#include <vector>

namespace gstcl {
namespace watchdog {

/* One in-order queue's unfinished launches and whether it was abandoned
 * (gstclwatchdog.cpp). Shared by every GstClContext on that queue. */
struct QueueWatch;

/* An element that launches kernels, as the watchdog knows it: it posts the
 * error of a launch of the element that ran past its timeout, whichever
 * thread found out, if the element still exists. */
struct Owner {
  explicit Owner (GstElement *element);
  ~Owner ();
  Owner (const Owner &) = delete;
  Owner &operator= (const Owner &) = delete;
  GWeakRef element;
};

/* gstclbasetransform.cpp: the Owner of a GstClBaseTransform, else null. */
std::shared_ptr<Owner> owner_of (GstElement *element);

/* The watch of `queue` (one per cl_command_queue in the process). */
std::shared_ptr<QueueWatch> watch_queue (const cl::CommandQueue &queue,
    const std::string &device);

/* Before a launch: throws DeviceTimeout when the queue is abandoned, or its
 * oldest launch ran past its timeout (then abandons it). */
void before_launch (QueueWatch &w);
/* After a launch: records it, with the kernel-timeout of the thread's
 * element; waits (bounded) for the oldest when too many are in flight. */
void after_launch (QueueWatch &w, const cl::Kernel &kernel, const char *suffix,
    const cl::Event &event);

bool abandoned (const QueueWatch &w);

/* How a wait sleeps: `first_sleep_us` before it looks again, then every
 * `step_us` (0: a 16th of the time waited so far, 20 us to 2 ms). */
struct Pacing {
  gint64 first_sleep_us = 0;
  gint64 step_us = 0;
};
/* gstcl::wait (), with `w` the queue's watch (may be null) and a pacing. */
void wait (QueueWatch *w, const cl::CommandQueue &queue, const cl::Event &event,
    const char *what, const Pacing &pacing = Pacing ());

/* A buffer freed on an abandoned queue: kept with the queue (a kernel may
 * still use it), released when the queue is. */
void keep_buffer (QueueWatch &w, const cl::Memory &buffer);
/* The same for what keeps a foreign buffer alive (gstclsource.hpp):
 * released with the queue, after the buffers kept with it. */
void keep_owner (QueueWatch &w, std::shared_ptr<void> owner);

/* A context being freed: when its queue was abandoned, or its work has not
 * completed within a short grace, keeps the queue, context and programs
 * (and the buffers kept before) until that work completes, and returns
 * true; else false (the caller releases them as usual). Also releases the
 * kept queues whose work has completed since. */
bool keep_if_busy (const std::shared_ptr<QueueWatch> &w, const cl::Context &context,
    const std::vector<cl::Program> &programs);

/* Releases the kept queues whose work has completed. */
void release_completed ();

}  // namespace watchdog

/* gstclcontext.cpp: the watch of ctx's queue. */
watchdog::QueueWatch *watch_of (GstClContext *ctx);

}  // namespace gstcl
