/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "device_limits.h"
#include "runner.h"
#include "stats.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>

namespace bench {

static double
median_gbps (size_t bytes, int reps, const std::function<gint64 ()> &one)
{
  one ();  /* first touch, driver set-up */
  std::vector<double> rates;
  for (int i = 0; i < reps; i++) {
    const gint64 ns = one ();
    if (ns > 0)
      rates.push_back ((double) bytes / ns);  /* bytes/ns = GB/s */
  }
  return median_of (rates);
}

static gint64
wall (const std::function<void ()> &f)
{
  const gint64 t0 = now_ns ();
  f ();
  return now_ns () - t0;
}

Limits
measure_limits (const cl::Context &context, const cl::Device &,
    const cl::CommandQueue &q, size_t bytes, int reps)
{
  Limits l;
  l.bytes = bytes;
  l.reps = reps;
  void *plain = nullptr;
  try {
    cl::Buffer a (context, CL_MEM_READ_WRITE, bytes), b (context, CL_MEM_READ_WRITE, bytes);
    q.enqueueFillBuffer (a, (cl_uchar) 1, 0, bytes);
    q.enqueueFillBuffer (b, (cl_uchar) 2, 0, bytes);
    q.finish ();
    l.copy_gbps = median_gbps (2 * bytes, reps, [&] () -> gint64 {
      cl::Event ev;
      q.enqueueCopyBuffer (a, b, 0, 0, bytes, nullptr, &ev);
      ev.wait ();
      return (gint64) (ev.getProfilingInfo<CL_PROFILING_COMMAND_END> () -
          ev.getProfilingInfo<CL_PROFILING_COMMAND_START> ());
    });

    cl::Buffer pinned (context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes);
    void *host = q.enqueueMapBuffer (pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes);
    std::memset (host, 3, bytes);
    l.h2d_pinned_gbps = median_gbps (bytes, reps, [&] () {
      return wall ([&] () { q.enqueueWriteBuffer (a, CL_TRUE, 0, bytes, host); });
    });
    l.d2h_pinned_gbps = median_gbps (bytes, reps, [&] () {
      return wall ([&] () { q.enqueueReadBuffer (a, CL_TRUE, 0, bytes, host); });
    });
    q.enqueueUnmapMemObject (pinned, host);
    q.finish ();

    plain = std::aligned_alloc (4096, (bytes + 4095) / 4096 * 4096);
    if (!plain)
      throw std::bad_alloc ();
    std::memset (plain, 4, bytes);
    l.h2d_malloc_gbps = median_gbps (bytes, reps, [&] () {
      return wall ([&] () { q.enqueueWriteBuffer (a, CL_TRUE, 0, bytes, plain); });
    });
    l.d2h_malloc_gbps = median_gbps (bytes, reps, [&] () {
      return wall ([&] () { q.enqueueReadBuffer (a, CL_TRUE, 0, bytes, plain); });
    });
    l.ok = l.copy_gbps > 0 && l.h2d_pinned_gbps > 0 && l.d2h_pinned_gbps > 0;
    if (!l.ok)
      l.error = "a transfer took no measurable time";
  } catch (const cl::Error &e) {
    l.error = gstcl::describe (e);
  } catch (const std::exception &e) {
    l.error = e.what ();
  }
  std::free (plain);
  return l;
}

double
copy_ms (const cl::Context &context, const cl::CommandQueue &q, size_t bytes, int reps)
{
  bytes = std::max<size_t> (bytes, 4);
  cl::Buffer a (context, CL_MEM_READ_WRITE, bytes), b (context, CL_MEM_READ_WRITE, bytes);
  q.enqueueFillBuffer (a, (cl_uchar) 1, 0, bytes);
  q.finish ();
  std::vector<double> ms;
  for (int i = 0; i <= reps; i++) {
    cl::Event ev;
    q.enqueueCopyBuffer (a, b, 0, 0, bytes, nullptr, &ev);
    ev.wait ();
    if (i > 0)  /* the first one sets things up */
      ms.push_back ((ev.getProfilingInfo<CL_PROFILING_COMMAND_END> () -
              ev.getProfilingInfo<CL_PROFILING_COMMAND_START> ()) / 1e6);
  }
  return median_of (ms);
}

double
transfer_limit_fps (const Limits &l, double in, double out, bool duplex)
{
  if (!l.ok || (in <= 0 && out <= 0))
    return 0;
  const double up = in / (l.h2d_pinned_gbps * 1e9), down = out / (l.d2h_pinned_gbps * 1e9);
  return 1.0 / (duplex ? std::max (up, down) : up + down);
}

Json
limits_json (const Limits &l)
{
  Json j = Json::object ();
  j["ok"] = l.ok;
  if (!l.ok)
    j["error"] = l.error;
  j["bytes"] = l.bytes;
  j["repeats"] = l.reps;
  j["copy_gbps"] = l.copy_gbps;
  j["h2d_pinned_gbps"] = l.h2d_pinned_gbps;
  j["d2h_pinned_gbps"] = l.d2h_pinned_gbps;
  j["h2d_malloc_gbps"] = l.h2d_malloc_gbps;
  j["d2h_malloc_gbps"] = l.d2h_malloc_gbps;
  return j;
}

}  // namespace bench
