/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cl-build-lock: which OpenCL calls of a streaming thread wait while another
 * thread builds a program (NVIDIA's driver serialises some calls with a
 * build). One thread builds a large generated kernel (a fresh -D each
 * round, so no driver cache serves it); the main thread meanwhile times
 * each call below in turn, in a loop, and prints each call's longest time
 * during the builds against its longest time with no build. Not built by
 * meson:
 *
 *   g++ -O2 -std=c++17 tests/bench/tools/cl-build-lock.cpp -o cl-build-lock -lOpenCL -pthread
 *   ./cl-build-lock [rounds [lines of the big kernel, 600]]
 */
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_HPP_ENABLE_EXCEPTIONS
#include <CL/opencl.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

static double
now_ms ()
{
  return std::chrono::duration<double, std::milli> (
      std::chrono::steady_clock::now ().time_since_epoch ()).count ();
}

int
main (int argc, char **argv)
{
  setvbuf (stdout, nullptr, _IOLBF, 0);
  const int rounds = argc > 1 ? atoi (argv[1]) : 3;
  const int lines = argc > 2 ? atoi (argv[2]) : 600;
  std::vector<cl::Platform> platforms;
  cl::Platform::get (&platforms);
  cl::Device device;
  for (auto &p : platforms) {
    std::vector<cl::Device> d;
    p.getDevices (CL_DEVICE_TYPE_GPU, &d);
    if (!d.empty ()) {
      device = d[0];
      break;
    }
  }
  if (!device ()) {
    std::vector<cl::Device> d;
    platforms.at (0).getDevices (CL_DEVICE_TYPE_ALL, &d);
    device = d.at (0);
  }
  printf ("%s\n", device.getInfo<CL_DEVICE_NAME> ().c_str ());
  cl::Context ctx (device);
  cl::CommandQueue q (ctx, device), q2 (ctx, device);
  const size_t n = 1 << 20;
  cl::Buffer a (ctx, CL_MEM_READ_WRITE, n), b (ctx, CL_MEM_READ_WRITE, n);
  cl::Buffer pinned (ctx, CL_MEM_ALLOC_HOST_PTR, n);
  void *host = q.enqueueMapBuffer (pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, n);
  cl::Program small (ctx, "__kernel void k (__global int *p) { p[get_global_id (0)] += 1; }");
  small.build ();
  cl::Kernel k (small, "k");
  k.setArg (0, a);

  /* a kernel long enough to build for a while */
  std::string big = "__kernel void big (__global float *p) {\n float x = p[get_global_id (0)];\n";
  for (int i = 0; i < lines; i++)
    big += " x = x * " + std::to_string (1.0001 + i * 1e-7) + "f + sin (x * " +
        std::to_string (i % 17 + 1) + ".0f);\n";
  big += " p[get_global_id (0)] = x;\n}\n";

  struct Call {
    const char *name;
    std::function<void ()> run;
    double idle = 0, building = 0;
  };
  std::vector<Call> calls = {
    {"clCreateUserEvent + set", [&] { cl::UserEvent u (ctx); u.setStatus (CL_COMPLETE); }},
    {"enqueueNDRangeKernel", [&] { q.enqueueNDRangeKernel (k, cl::NullRange, cl::NDRange (256)); }},
    {"setArg", [&] { k.setArg (0, a); }},
    {"write (non-blocking) q2", [&] { q2.enqueueWriteBuffer (b, CL_FALSE, 0, 4096, host); }},
    {"read (non-blocking)", [&] { q.enqueueReadBuffer (a, CL_FALSE, 0, 4096, host); }},
    {"marker", [&] { cl::Event e; q.enqueueMarkerWithWaitList (nullptr, &e); }},
    {"barrier on q2's event", [&] { cl::Event e; q2.enqueueMarkerWithWaitList (nullptr, &e);
        std::vector<cl::Event> w {e}; q.enqueueBarrierWithWaitList (&w); }},
    {"flush", [&] { q.flush (); }},
    {"event status", [&] { cl::Event e; q.enqueueMarkerWithWaitList (nullptr, &e);
        e.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS> (); }},
    {"create buffer", [&] { cl::Buffer t (ctx, CL_MEM_READ_WRITE, 4096); }},
    {"clCreateKernel (built)", [&] { cl::Kernel t (small, "k"); }},
  };
  auto sweep = [&] (bool building, std::atomic<bool> *until) {
    do {
      for (auto &c : calls) {
        const double t0 = now_ms ();
        c.run ();
        const double d = now_ms () - t0;
        double &worst = building ? c.building : c.idle;
        if (d > worst)
          worst = d;
      }
      q.finish ();
      q2.finish ();
    } while (until && !until->load ());
  };
  for (int i = 0; i < 200; i++)
    sweep (false, nullptr);
  srand ((unsigned) time (nullptr));
  for (int r = 0; r < rounds; r++) {
    std::atomic<bool> done {false};
    double took = 0;
    std::thread builder ([&] {
          const double t0 = now_ms ();
          cl::Program p (ctx, big);
          p.build (("-D ROUND=" + std::to_string (rand ())).c_str ());
          took = now_ms () - t0;
          done = true;
        });
    sweep (true, &done);
    builder.join ();
    printf ("build %d: %.0f ms\n", r, took);
  }
  printf ("%-28s %12s %14s\n", "call", "worst idle ms", "worst building ms");
  for (auto &c : calls)
    printf ("%-28s %12.3f %14.3f\n", c.name, c.idle, c.building);
  q.enqueueUnmapMemObject (pinned, host);
  q.finish ();
  return 0;
}
