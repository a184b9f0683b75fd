/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstclprofile.h"
#include "gstcl.hpp"
#include "gstcl-debug.h"

#include <atomic>
#include <map>
#include <mutex>
#include <string>

#define GST_CAT_DEFAULT gst_cl_runtime_debug

namespace {

struct Totals {
  guint64 count = 0;
  guint64 ns = 0;
};

std::mutex totals_lock;
std::map<std::string, Totals> totals;
std::atomic<guint64> pending{0};

/* Runs on a driver thread when the command's event completes. */
void CL_CALLBACK
on_command_complete (cl_event event, cl_int status, void *user_data)
{
  auto *name = static_cast<std::string *> (user_data);
  cl_ulong start = 0, end = 0;
  if (status == CL_COMPLETE &&
      clGetEventProfilingInfo (event, CL_PROFILING_COMMAND_START, sizeof start, &start,
          nullptr) == CL_SUCCESS &&
      clGetEventProfilingInfo (event, CL_PROFILING_COMMAND_END, sizeof end, &end,
          nullptr) == CL_SUCCESS && end >= start) {
    std::lock_guard<std::mutex> lock (totals_lock);
    Totals &t = totals[*name];
    t.count++;
    t.ns += end - start;
  }
  delete name;
  clReleaseEvent (event);  /* the reference taken in track_command() */
  pending--;
}

}  // namespace

namespace gstcl {

/* Called for queues with profiling enabled: by enqueue_2d() for kernels,
 * by track_command() for other commands. */
void track_command (const std::string &command, const cl::Event &event)
{
  auto *user = new std::string (command);
  clRetainEvent (event ());
  pending++;
  cl_int err = clSetEventCallback (event (), CL_COMPLETE, on_command_complete, user);
  if (err != CL_SUCCESS) {
    GST_CAT_WARNING (gst_cl_runtime_debug, "profiling off: %s", error_name (err));
    pending--;
    clReleaseEvent (event ());
    delete user;
  }
}

void track_kernel (const cl::Kernel &kernel, const cl::Event &event)
{
  std::string name = kernel.getInfo<CL_KERNEL_FUNCTION_NAME> ();
  name.erase (name.find_last_not_of ('\0') + 1);
  track_command (name, event);
}

}  // namespace gstcl

void
gst_cl_kernel_profile_reset (void)
{
  std::lock_guard<std::mutex> lock (totals_lock);
  totals.clear ();
}

gboolean
gst_cl_kernel_profile_get (const gchar * name, guint64 * count, guint64 * total_ns)
{
  g_return_val_if_fail (name != nullptr, FALSE);
  std::lock_guard<std::mutex> lock (totals_lock);
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
  std::lock_guard<std::mutex> lock (totals_lock);
  gchar **names = g_new0 (gchar *, totals.size () + 1);
  size_t i = 0;
  for (const auto &kv : totals)
    names[i++] = g_strdup (kv.first.c_str ());
  return names;
}

guint64
gst_cl_kernel_profile_pending (void)
{
  return pending.load ();
}
