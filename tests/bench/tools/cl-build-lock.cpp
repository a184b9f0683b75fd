/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cl-build-lock: which OpenCL calls of a streaming thread wait while another
 * thread builds a program (NVIDIA's driver serialises some calls with a
 * build). One thread builds a large generated kernel (a fresh -D each
 * round, so no driver cache serves it); the main thread meanwhile times
 * each call below in turn, in a loop, and prints each call's longest time
 * during the builds against its longest time with no build. Each round's
 * kernel differs in a constant, so that its PTX is new and NVIDIA's JIT
 * cache (~/.nv/ComputeCache) cannot serve it; each round builds it three
 * ways: in the streaming thread's context ("same"), in a context of its
 * own on the same device ("other"), then in the streaming thread's context
 * again once the other context's build has filled the JIT cache ("same
 * after other"). Not built by meson:
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
  std::string big = "__kernel void big (__global float *p) {\n"
      " float x = p[get_global_id (0)] + ROUND * 1e-9f;\n";
  for (int i = 0; i < lines; i++)
    big += " x = x * " + std::to_string (1.0001 + i * 1e-7) + "f + sin (x * " +
        std::to_string (i % 17 + 1) + ".0f);\n";
  big += " p[get_global_id (0)] = x;\n}\n";

  struct Call {
    const char *name;
    std::function<void ()> run;
    double idle = 0, building[3] = {0, 0, 0};
  };
  const char *ways[3] = {"same", "other", "same after other"};
  std::vector<char> pageable (n);
  std::vector<Call> calls = {
    {"clCreateUserEvent + set", [&] { cl::UserEvent u (ctx); u.setStatus (CL_COMPLETE); }},
    {"enqueueNDRangeKernel", [&] { q.enqueueNDRangeKernel (k, cl::NullRange, cl::NDRange (256)); }},
    {"setArg", [&] { k.setArg (0, a); }},
    {"write (non-blocking) q2", [&] { q2.enqueueWriteBuffer (b, CL_FALSE, 0, 4096, host); }},
    {"write pageable (non-blocking)", [&] { q.enqueueWriteBuffer (b, CL_FALSE, 0, 3072,
        pageable.data ()); }},
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
  auto sweep = [&] (int way, std::atomic<bool> *until) {
    do {
      for (auto &c : calls) {
        const double t0 = now_ms ();
        c.run ();
        const double d = now_ms () - t0;
        double &worst = way >= 0 ? c.building[way] : c.idle;
        if (d > worst)
          worst = d;
      }
      q.finish ();
      q2.finish ();
    } while (until && !until->load ());
  };
  for (int i = 0; i < 200; i++)
    sweep (-1, nullptr);
  srand ((unsigned) time (nullptr));
  cl::Context other (device);
  for (int r = 0; r < rounds; r++) {
    const std::string options = "-D ROUND=" + std::to_string (rand () % 100000 + 1);
    for (int way = 0; way < 3; way++) {
      /* same, then a new constant for other and same after other */
      const std::string o = way == 0 ? options : options + "1";
      std::atomic<bool> done {false};
      double took = 0;
      std::thread builder ([&] {
            const double t0 = now_ms ();
            cl::Program p (way == 1 ? other : ctx, big);
            p.build (o.c_str ());
            took = now_ms () - t0;
            done = true;
          });
      sweep (way, &done);
      builder.join ();
      printf ("round %d, %s: build %.0f ms\n", r, ways[way], took);
    }
  }
  printf ("%-30s %10s %10s %10s %10s  (worst ms)\n", "call", "idle", ways[0], ways[1],
      "same after");
  for (auto &c : calls)
    printf ("%-30s %10.3f %10.3f %10.3f %10.3f\n", c.name, c.idle, c.building[0],
        c.building[1], c.building[2]);
  q.enqueueUnmapMemObject (pinned, host);
  q.finish ();
  return 0;
}
