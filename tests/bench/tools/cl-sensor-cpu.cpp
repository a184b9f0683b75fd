/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cl-sensor-cpu: times debayer_camera_sensor_cpu (debayer/camera_sensor_cpu.cl,
 * cldebayer's CPU shape with the sensor stages) on the CPU device (PoCL),
 * variants side by side in one process (docs/benchmarks.md, "The sensor
 * pass"), on a 1920x1080 12-bit RGGB frame (a smooth pattern, noise and
 * 0.1 % hot and dead pixels) with the bench's isp case's arguments (black
 * level 256, gains 1.9 / 1 / 1.45, its matrix, saturation 1.2, sRGB,
 * BT.709 limited range, NV12; defects at 0.1, a 17 x 13 vignetting, the
 * statistics); each stage can be left out by its argument, which times
 * it. First the differences of the NV12 bytes from the first variant and
 * the statistics' counts; then ROUNDS (3) rounds of N launches of each
 * variant in turn: the minimum of each round, and the least of the
 * process's CPU time a launch (with POCL_MAX_PTHREAD_COUNT=1 the kernel's
 * own, steadier on a shared machine). Not built by meson:
 *
 *   g++ -O2 -std=c++17 tests/bench/tools/cl-sensor-cpu.cpp -o cl-sensor-cpu -lOpenCL
 *   ./cl-sensor-cpu kernels 20 "all|1|1|1" "no stats|0|1|1" "camera only|0|0|0"
 *
 * RANDOM=1: random 16-bit samples, as the bench's frames (most above
 * full scale). A variant: name|statistics|defects|shading[|more -D options[|kernels
 * folder, in place of the first argument's]]. Without defects and shading
 * the kernel takes the raw samples (no words), as cldebayer does. */
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_HPP_ENABLE_EXCEPTIONS
#include <CL/opencl.hpp>
#include "camera-args.hpp"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>
#include <sys/resource.h>
static std::string slurp (const std::string &p) { std::ifstream f (p); std::stringstream s; s << f.rdbuf (); return s.str (); }
int main (int argc, char **argv)
{
  if (argc < 4) { std::cerr << "usage: cl-sensor-cpu KERNELS-DIR N VARIANT...\n"; return 2; }
  const auto sources = [] (const std::string &k) {
    /* kCameraSensorCpuFiles (gst/elements/debayer/gstcldebayervariants.cpp) */
    std::string s;
    for (const char *f : { "common", "color", "debayer/prelude", "debayer/filters", "debayer/io",
        "debayer/stages", "debayer/curve", "debayer/stats", "debayer/output", "debayer/sensor",
        "debayer/strips", "debayer/camera_cpu", "debayer/camera_sensor_cpu" })
      s += slurp (k + "/" + f + ".cl");
    return s;
  };
  const int reps = atoi (argv[2]);
  std::vector<cl::Platform> plats; cl::Platform::get (&plats);
  cl::Device dev; for (auto &p : plats) { std::vector<cl::Device> ds; try { p.getDevices (CL_DEVICE_TYPE_CPU, &ds);} catch (...) {} if (!ds.empty ()) { dev = ds[0]; break; } }
  cl::Context ctx (dev); cl::CommandQueue q (ctx, dev, CL_QUEUE_PROFILING_ENABLE);
  const int W = 1920, H = 1080, maxv = 4095, black = 256, mid = 32767;
  std::mt19937 rng (1); std::vector<uint16_t> raw ((size_t) W * H);
  for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) {
    int v = (int) (2048 + 1500 * std::sin (x * 0.01) * std::cos (y * 0.013)) + (int) (rng () % 64) - 32;
    if (rng () % 1000 == 0) v = rng () % 2 ? maxv : 0;
    if (getenv ("RANDOM")) v = (int) (rng () & (getenv ("RANDOM")[0] == '2' ? 0xfff : 0xffff));   /* the bench's frames: random bytes */
    raw[(size_t) y * W + x] = (uint16_t) (getenv ("RANDOM") ? v : std::clamp (v, 0, maxv)); }
  const int gc = kShadingCols, gr = kShadingRows;
  std::vector<float> grid = shading_grid ();
  cl::Buffer in (ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, raw.size () * 2, raw.data ());
  cl::Buffer shading (ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, grid.size () * 4, grid.data ());
  cl::Buffer out (ctx, CL_MEM_READ_WRITE, (size_t) W * H * 3 / 2), totals (ctx, CL_MEM_READ_WRITE, 16384);
  std::vector<uint8_t> ref;
  struct Run { std::string name; cl::Kernel k; cl::NDRange g; std::vector<double> mins; double cpu = 1e9; };
  std::vector<Run> runs;
  for (int a = 3; a < argc; a++) {
    std::vector<std::string> f; { std::stringstream ss (argv[a]); std::string t; while (std::getline (ss, t, '|')) f.push_back (t); }
    while (f.size () < 6) f.push_back ("");
    const int stats = atoi (f[1].c_str ()), defect = atoi (f[2].c_str ()), shade = atoi (f[3].c_str ());
    const bool corrected = defect || shade;
    std::string o = " -D IN_16=1 -D METHOD=0 -D CAMERA=1 -D PHASE_X=0 -D PHASE_Y=0 -D CC_CHUNKS=16 -D ALIGNED=1"
        " -D OUT_PLANES=2 -D OUT_SAMPLE=1 -D OUT_DEPTH=8 -D OUT_CH=1 -D OUT_BPP=1 -D OUT_YUV=1 " + f[4];
    cl::Program prog (ctx, sources (f[5].empty () ? argv[1] : f[5]));
    try { prog.build ({dev}, ("-cl-std=CL1.2" + o).c_str ()); } catch (...) { std::cerr << prog.getBuildInfo<CL_PROGRAM_BUILD_LOG> (dev) << "\n"; return 1; }
    cl::Kernel k (prog, "debayer_camera_sensor_cpu");
    /* the camera arguments on the words (full scale 32767, black 0) where
     * corrected, else on the raw samples (gstcldebayercamera.cpp) */
    const int cmax = corrected ? mid : maxv, cblack = corrected ? 0 : black;
    const double bs = (double) cmax / (cmax - cblack) / cmax;
    const cl_float8 gain0 = camera_gains (1.9 * bs, bs, 1.45 * bs, cblack);
    cl_float8 gain = gain0;
    const cl_float16 mat = camera_matrix ();
    cl_int4 chroma = {{W * H, W, 0, 0}}, layout = {{0, 1, 2, 3}};
    const int units = dev.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS> ();
    const int sw = 256, cols = (W + sw - 1) / sw;
    const int strips = std::max (1, std::min ((8 * units + cols - 1) / cols, H / 64));
    const int strip = getenv ("STRIP") ? atoi (getenv ("STRIP")) : ((H + strips - 1) / strips + 1) / 2 * 2;
    int i = 0;
    k.setArg (i++, in); k.setArg (i++, 0); k.setArg (i++, 2 * W); k.setArg (i++, out); k.setArg (i++, 0); k.setArg (i++, W);
    k.setArg (i++, W); k.setArg (i++, H); k.setArg (i++, cmax); k.setArg (i++, layout); k.setArg (i++, cblack);
    k.setArg (i++, gain); k.setArg (i++, mat); k.setArg (i++, camera_curve (false)); k.setArg (i++, camera_yuv ()); k.setArg (i++, chroma);
    k.setArg (i++, stats); k.setArg (i++, (int) std::ceil (0.02 * (cmax - cblack))); k.setArg (i++, (int) std::ceil (0.98 * (cmax - cblack))); k.setArg (i++, totals);
    k.setArg (i++, strip); k.setArg (i++, maxv); k.setArg (i++, black); k.setArg (i++, defect);
    k.setArg (i++, (float) (0.1 * (maxv - black))); k.setArg (i++, shading);
    k.setArg (i++, cl_int4 {{gc, gr, shade, 0}});
    k.setArg (i++, cl_float2 {{(float) ((gc - 1.0) / (W - 1)), (float) ((gr - 1.0) / (H - 1))}});
    k.setArg (i++, (float) mid);
    k.setArg (i++, (int) std::ceil (0.02 * mid)); k.setArg (i++, (int) std::ceil (0.98 * mid));
    k.setArg (i++, cl_float4 {{1.9f, 1.0f, 1.45f, 0}});
    const cl::NDRange g ((W + sw - 1) / sw, (H + strip - 1) / strip), l (1, 1);
    runs.push_back ({f[0], k, g});
    /* the first launch: the output and the statistics */
    q.enqueueFillBuffer (totals, (cl_uint) 0, 0, 16384); q.enqueueNDRangeKernel (k, cl::NullRange, g, l); q.finish ();
    std::vector<uint8_t> o8 ((size_t) W * H * 3 / 2); q.enqueueReadBuffer (out, CL_TRUE, 0, o8.size (), o8.data ());
    std::vector<cl_uint> tot (4096); q.enqueueReadBuffer (totals, CL_TRUE, 0, 16384, tot.data ());
    unsigned long cells = 0, hist = 0; for (int sl = 0; sl < 64; sl++) cells += tot[8 * sl + 6] + ((unsigned long) tot[8 * sl + 7] << 16);
    for (int b = 0; b < 64 * 16; b++) hist += tot[512 + b];
    int maxd = 0; long nd = 0; if (!ref.empty ()) for (size_t j = 0; j < o8.size (); j++) { const int d = std::abs (o8[j] - ref[j]); nd += d != 0; maxd = std::max (maxd, d); }
    if (ref.empty ()) ref = o8;
    printf ("%-28s vs first: max %d n %ld  cells %lu histogram %lu\n", f[0].c_str (), maxd, nd, cells, hist);
  }
  /* ROUNDS rounds (default 3) of N launches of each variant in turn */
  const int rounds = getenv ("ROUNDS") ? atoi (getenv ("ROUNDS")) : 3;
  for (int round = 0; round < rounds; round++)
    for (Run &run : runs) {
      std::vector<double> t;
      double cpu0 = 0;
      for (int r = 0; r < reps + 1; r++) { cl::Event e;
        if (r == 1) { rusage u; getrusage (RUSAGE_SELF, &u); cpu0 = u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec); }
        q.enqueueFillBuffer (totals, (cl_uint) 0, 0, 16384); q.enqueueNDRangeKernel (run.k, cl::NullRange, run.g, cl::NDRange (1, 1), nullptr, &e); e.wait ();
        if (r >= 1) t.push_back ((e.getProfilingInfo<CL_PROFILING_COMMAND_END> () - e.getProfilingInfo<CL_PROFILING_COMMAND_START> ()) * 1e-6); }
      rusage u; getrusage (RUSAGE_SELF, &u);
      run.cpu = std::min (run.cpu, (u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec) - cpu0) * 1e3 / reps);
      std::sort (t.begin (), t.end ());
      run.mins.push_back (t[0]);
    }
  for (Run &run : runs) {
    printf ("%-28s min %.3f ms (rounds:", run.name.c_str (), *std::min_element (run.mins.begin (), run.mins.end ()));
    for (double m : run.mins) printf (" %.2f", m);
    printf (") cpu a launch %.3f ms\n", run.cpu);
  }
}
