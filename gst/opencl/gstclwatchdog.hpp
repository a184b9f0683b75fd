/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Bounded waits for the device (docs/reliability.md, "Runaway kernels").
 *
 * Every launch (gstcl::enqueue_2d) is recorded with the kernel-timeout of
 * the element that made it (the thread's gstcl::BuildScope; else the
 * default). A wait for the device polls instead of blocking in the driver,
 * and gives up when the oldest unfinished launch of the queue has run past
 * its own timeout: the queue is then abandoned (its context, queue, programs
 * and the buffers freed after it are kept, never released under the
 * device, until the work completes), every later wait or launch on it fails
 * at once, and elements take a new context at their next start. A wait in
 * an element's streaming thread also returns when the element flushes or
 * stops (WaitCancelled). No wait can stop a running kernel: OpenCL has no
 * call for it. */
#pragma once

#include "gstclhpp.hpp"
#include <gst/opencl/gstclcontext.h>

#include <memory>
#include <string>

#pragma GCC visibility push(default)
namespace gstcl {

/* A wait that gave up: a kernel ran past its kernel-timeout, or the queue
 * was abandoned before. what() names the kernel, its element and the time
 * it ran. A cl::Error (CL_OUT_OF_RESOURCES, as NVIDIA's driver reports a
 * kernel its display watchdog stopped), so that code which handles OpenCL
 * failures handles it. */
class DeviceTimeout : public cl::Error {
public:
  explicit DeviceTimeout (const std::string &message);
  const char *what () const noexcept override;
private:
  std::shared_ptr<const std::string> message_;
};

/* A wait of an element's streaming thread that the element's flush or stop
 * (its sink pad flushing) ended: not a failure; the element returns
 * GST_FLOW_FLUSHING without an error. */
class WaitCancelled : public cl::Error {
public:
  WaitCancelled ();
};

/* Waits until `event`, a command of ctx's queue (or of `queue`), has
 * completed, bounded as above. Throws DeviceTimeout, WaitCancelled, or
 * cl::Error when the command failed; DeviceTimeout also for an abandoned
 * queue whether or not the event completed (such a queue is not to be used
 * any more). A null event: nothing to wait for. `what` (a string literal)
 * names the wait in messages: "the download". */
void wait (GstClContext *ctx, const cl::Event &event, const char *what);
void wait (const cl::CommandQueue &queue, const cl::Event &event, const char *what);

/* clFinish, bounded: waits for every command enqueued on the queue so far. */
void finish (GstClContext *ctx, const char *what);
void finish (const cl::CommandQueue &queue, const char *what);

/* Whether ctx's queue was abandoned (a kernel ran past its timeout): such a
 * context is refused by every element (gst_cl_context_is_abandoned ()). */
bool abandoned (GstClContext *ctx);

/* The queues kept for work that had not completed when their context was
 * freed (abandoned ones, and busy ones past a short grace), after releasing
 * those whose work has completed since. Each kept queue was logged
 * (clruntime, WARNING). For tests and applications that report it. */
unsigned kept_queues ();

/* The default kernel-timeout in milliseconds (0: none): 5000, or
 * $GST_OPENCL_KERNEL_TIMEOUT when set. */
guint default_kernel_timeout ();

/* GstClMemory transfers that throw what the waits throw (the C functions of
 * gstclmemory.h return FALSE instead): for elements, which report a
 * DeviceTimeout as such (gstcl::post_exception ()). */
void sync_to_host (GstMemory *mem);
/* sync_to_host that does not wait: the buffer's map for the host (a
 * unified device) or its download into the staging area (a discrete one)
 * is queued behind the device's work and returned, to wait for; a later
 * host map of the memory waits for it too. */
cl::Event start_sync_to_host (GstMemory *mem);
void sync_to_device (GstMemory *mem);
void write_from_host (GstMemory *mem, const void *data, gsize size);

/* Call from a catch block: posts the exception in flight as an element
 * error of `element` (a BuildError with its build log, a DeviceTimeout with
 * its kernel, other cl::Error and std::exception as failures `stage`, e.g.
 * "running the kernel") and returns GST_FLOW_ERROR; a WaitCancelled posts
 * nothing and returns GST_FLOW_FLUSHING. */
GstFlowReturn post_exception (GstElement *element, const char *stage);

}  // namespace gstcl
#pragma GCC visibility pop
