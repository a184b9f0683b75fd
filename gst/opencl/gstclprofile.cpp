/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstclprofile.h"
#include "gstcl.hpp"

#include <deque>
#include <map>
#include <mutex>
#include <string>

namespace {

struct Totals {
  guint64 count = 0;
  guint64 ns = 0;
};

/* Commands enqueued and not counted yet, oldest first, with their names;
 * everything under `lock`. No completion callbacks: NVIDIA's driver runs
 * them on one thread at about 30 000 a second, which capped a busy
 * device's frame rate; completed events are collected instead, from the
 * front, every kHarvest new ones and whenever the figures are read. */
struct InFlight {
  cl_event event;
  std::string name;
};
std::mutex lock;
std::map<std::string, Totals> totals;
std::deque<InFlight> in_flight;
const size_t kHarvest = 64;

/* Counts and drops the completed commands at the front (whole list:
 * `all`, for commands of several queues completing out of order). */
void
harvest (bool all)
{
  for (auto it = in_flight.begin (); it != in_flight.end ();) {
    cl_int status = CL_QUEUED;
    if (clGetEventInfo (it->event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
            nullptr) != CL_SUCCESS)
      status = -1;
    if (status > CL_COMPLETE) {   /* queued, submitted or running */
      if (!all)
        break;
      ++it;
      continue;
    }
    cl_ulong start = 0, end = 0;
    if (status == CL_COMPLETE &&
        clGetEventProfilingInfo (it->event, CL_PROFILING_COMMAND_START, sizeof start, &start,
            nullptr) == CL_SUCCESS &&
        clGetEventProfilingInfo (it->event, CL_PROFILING_COMMAND_END, sizeof end, &end,
            nullptr) == CL_SUCCESS && end >= start) {
      Totals &t = totals[it->name];
      t.count++;
      t.ns += end - start;
    }
    clReleaseEvent (it->event);   /* the reference taken in track_command() */
    it = in_flight.erase (it);
  }
}

}  // namespace

namespace gstcl {

/* Called for queues with profiling enabled: by enqueue_2d() for kernels,
 * by profile_command() for other commands. */
void track_command (const std::string &command, const cl::Event &event)
{
  clRetainEvent (event ());
  std::lock_guard<std::mutex> guard (lock);
  in_flight.push_back ({event (), command});
  if (in_flight.size () % kHarvest == 0)
    harvest (false);
}

void track_kernel (const cl::Kernel &kernel, const cl::Event &event, const char *suffix)
{
  std::string name = kernel.getInfo<CL_KERNEL_FUNCTION_NAME> ();
  name.erase (name.find_last_not_of ('\0') + 1);
  track_command (suffix ? name + suffix : name, event);
}

}  // namespace gstcl

void
gst_cl_kernel_profile_reset (void)
{
  std::lock_guard<std::mutex> guard (lock);
  harvest (true);
  totals.clear ();
}

gboolean
gst_cl_kernel_profile_get (const gchar * name, guint64 * count, guint64 * total_ns)
{
  g_return_val_if_fail (name != nullptr, FALSE);
  std::lock_guard<std::mutex> guard (lock);
  harvest (true);
  auto it = totals.find (name);
  Totals t = it == totals.end () ? Totals () : it->second;
  if (count)
    *count = t.count;
  if (total_ns)
    *total_ns = t.ns;
  return it != totals.end ();
}

gchar **
gst_cl_kernel_profile_names (void)
{
  std::lock_guard<std::mutex> guard (lock);
  harvest (true);
  gchar **names = g_new0 (gchar *, totals.size () + 1);
  size_t i = 0;
  for (const auto &kv : totals)
    names[i++] = g_strdup (kv.first.c_str ());
  return names;
}

guint64
gst_cl_kernel_profile_pending (void)
{
  std::lock_guard<std::mutex> guard (lock);
  harvest (true);
  return in_flight.size ();
}
