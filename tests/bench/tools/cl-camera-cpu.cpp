/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cl-camera-cpu: times build variants of cldebayer's camera kernels on the
 * CPU device (PoCL), side by side in one process (docs/benchmarks.md, "The
 * camera stages on CPUs"): debayer_camera_cpu (debayer/camera_cpu.cl) and
 * debayer_camera (the 8 x 2 blocks), on a 1920x1080 12-bit RGGB frame (a
 * smooth pattern plus noise), with the bench's manual-gains camera case's
 * arguments (black level 256, gains 1.9 / 1 / 1.45, its matrix, saturation
 * 1.2, sRGB or linear, BT.709 limited range). Prints the median, minimum
 * and 90th percentile of N launches after 2, the largest difference of the
 * output bytes from the first variant of the same output size, and the
 * white-balance cells counted. Not built by meson:
 *
 *   g++ -O2 -std=c++17 tests/bench/tools/cl-camera-cpu.cpp -o cl-camera-cpu -lOpenCL
 *   ./cl-camera-cpu kernels 30 "name|cpu|nv12|0|0|-D ALIGNED=1" "name|old|nv12|1|0|"
 *
 * A variant: name|kernel (cpu: debayer_camera_cpu, old: debayer_camera)|
 * output (nv12, rgba, rgba64)|1 for the linear curve|1 for the statistics|
 * more -D options[|kernels folder, in place of the first argument's]. CHUNKS=N
 * sets CC_CHUNKS (16), STRIP=N the rows a strip. */
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
static std::string slurp (const std::string &p) { std::ifstream f (p); std::stringstream s; s << f.rdbuf (); return s.str (); }
int main (int argc, char **argv)
{
  const auto sources = [] (const std::string &kdir, bool old) {
    /* the camera rows' files (gst/elements/debayer/gstcldebayervariants.cpp) */
    const std::string base = slurp (kdir + "/common.cl") + slurp (kdir + "/color.cl") + slurp (kdir + "/debayer/prelude.cl") + slurp (kdir + "/debayer/filters.cl") + slurp (kdir + "/debayer/io.cl") + slurp (kdir + "/debayer/stages.cl") + slurp (kdir + "/debayer/curve.cl") + slurp (kdir + "/debayer/stats.cl") + slurp (kdir + "/debayer/output.cl");
    return old ? base + slurp (kdir + "/debayer/camera.cl") : base + slurp (kdir + "/debayer/strips.cl") + slurp (kdir + "/debayer/camera_cpu.cl");
  };
  const int reps = atoi (argv[2]);
  std::vector<cl::Platform> plats; cl::Platform::get (&plats);
  cl::Device dev; for (auto &p : plats) { std::vector<cl::Device> ds; try { p.getDevices (CL_DEVICE_TYPE_CPU, &ds);} catch (...) {} if (!ds.empty ()) { dev = ds[0]; break; } }
  cl::Context ctx (dev); cl::CommandQueue q (ctx, dev, CL_QUEUE_PROFILING_ENABLE);
  const int W = 1920, H = 1080;
  std::mt19937 rng (1); std::vector<uint16_t> raw ((size_t) W * H);
  for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) { int v = (int) (2048 + 1500 * std::sin (x * 0.01) * std::cos (y * 0.013)) + (int) (rng () % 64) - 32; raw[(size_t) y * W + x] = (uint16_t) std::clamp (v, 0, 4095); }
  cl::Buffer in (ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, raw.size () * 2, raw.data ());
  cl::Buffer out (ctx, CL_MEM_READ_WRITE, (size_t) W * H * 8), totals (ctx, CL_MEM_READ_WRITE, 4096);
  std::vector<std::vector<uint8_t>> refs;
  for (int a = 3; a < argc; a++) {
    // name|kernel(old,cpu)|fmt(nv12,rgba,rgba64)|linear|stats|extra
    std::vector<std::string> f; { std::stringstream ss (argv[a]); std::string t; while (std::getline (ss, t, '|')) f.push_back (t); }
    while (f.size () < 7) f.push_back ("");
    const bool old = f[1] == "old"; const std::string fmt = f[2];
    std::string o = " -D IN_16=1 -D METHOD=0 -D CAMERA=1 -D PHASE_X=0 -D PHASE_Y=0";
    if (fmt == "nv12") o += " -D OUT_PLANES=2 -D OUT_SAMPLE=1 -D OUT_DEPTH=8 -D OUT_CH=1 -D OUT_BPP=1 -D OUT_YUV=1";
    else if (fmt == "rgba") o += " -D OUT_PLANES=1 -D OUT_SAMPLE=1 -D OUT_DEPTH=8 -D OUT_CH=4 -D OUT_BPP=4 -D OUT_YUV=0";
    else o += " -D OUT_PLANES=1 -D OUT_SAMPLE=2 -D OUT_DEPTH=16 -D OUT_CH=4 -D OUT_BPP=8 -D OUT_YUV=0";
    const int CH = getenv ("CHUNKS") ? atoi (getenv ("CHUNKS")) : 16; o += old ? " -D CAMERA_LX=16 -D CAMERA_LY=16 -D CAMERA_ROWS=2" : " -D CAMERA_CPU=1 -D CC_CHUNKS=" + std::to_string (CH);
    o += " " + f[5];
    cl::Program prog (ctx, sources (f[6].empty () ? argv[1] : f[6], old));
    try { prog.build ({dev}, ("-cl-std=CL1.2" + o).c_str ()); } catch (...) { std::cerr << prog.getBuildInfo<CL_PROGRAM_BUILD_LOG> (dev) << "\n"; return 1; }
    cl::Kernel k (prog, old ? "debayer_camera" : "debayer_camera_cpu");
    const int maxv = 4095, black = 256; const double bs = (double) maxv / (maxv - black) / maxv;
    const cl_float8 gain = camera_gains (1.9 * bs, bs, 1.45 * bs, black);
    const cl_float16 mat = camera_matrix ();
    const bool linear = f[3] == "1";
    const cl_float8 yuv = camera_yuv ();
    const int ostride = fmt == "nv12" ? W : fmt == "rgba" ? 4 * W : 8 * W;
    cl_int4 chroma = {{W * H, W, 0, 0}}; cl_int4 layout = {{0, 1, 2, 3}};
    int i = 0;
    k.setArg (i++, in); k.setArg (i++, 0); k.setArg (i++, 2 * W); k.setArg (i++, out); k.setArg (i++, 0); k.setArg (i++, ostride);
    k.setArg (i++, W); k.setArg (i++, H); k.setArg (i++, maxv); k.setArg (i++, layout); k.setArg (i++, black);
    /* kernels before the float8 gain and the float16 curve take float4 and float8 */
    try { k.setArg (i, gain); } catch (cl::Error &) { k.setArg (i, cl_float4 {{gain.s[0], gain.s[1], gain.s[2], 0}}); }
    i++; k.setArg (i++, mat);
    try { k.setArg (i, camera_curve (linear)); } catch (cl::Error &) { k.setArg (i, camera_curve_old (linear)); }
    i++; k.setArg (i++, yuv); k.setArg (i++, chroma);
    k.setArg (i++, atoi (f[4].c_str ())); k.setArg (i++, (int) std::ceil (0.02 * (maxv - black))); k.setArg (i++, (int) std::ceil (0.98 * (maxv - black))); k.setArg (i++, totals);
    const int units = dev.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS> ();
    int strip = 0;
    if (!old) { const int sw = 16 * CH; const int cols = (W + sw - 1) / sw; const int strips = std::max (1, std::min ((8 * units + cols - 1) / cols, H / 64)); strip = ((H + strips - 1) / strips + 1) / 2 * 2; if (getenv ("STRIP")) strip = atoi (getenv ("STRIP")); k.setArg (i++, strip); }
    cl::NDRange g = old ? cl::NDRange (((W + 7) / 8 + 15) & ~15, (H / 2 + 15) & ~15) : cl::NDRange ((W + 16 * CH - 1) / (16 * CH), (H + strip - 1) / strip);
    cl::NDRange l = old ? cl::NDRange (16, 16) : cl::NDRange (1, 1);
    std::vector<double> t;
    for (int r = 0; r < reps + 2; r++) { cl::Event e; q.enqueueFillBuffer (totals, (cl_uint) 0, 0, 4096); q.enqueueNDRangeKernel (k, cl::NullRange, g, l, nullptr, &e); e.wait ();
      if (r >= 2) t.push_back ((e.getProfilingInfo<CL_PROFILING_COMMAND_END> () - e.getProfilingInfo<CL_PROFILING_COMMAND_START> ()) * 1e-6); }
    std::sort (t.begin (), t.end ());
    std::vector<uint8_t> o8 ((size_t) ostride * H * (fmt == "nv12" ? 1.5 : 1)); q.enqueueReadBuffer (out, CL_TRUE, 0, o8.size (), o8.data ());
    std::vector<cl_uint> tot (8 * 64); q.enqueueReadBuffer (totals, CL_TRUE, 0, 2048, tot.data ()); unsigned long cells = 0; for (int sl = 0; sl < 64; sl++) cells += tot[8 * sl + 6] + ((unsigned long) tot[8 * sl + 7] << 16);
    int maxd = 0; long ndiff = 0; for (auto &rf : refs) if (rf.size () == o8.size ()) { for (size_t j = 0; j < o8.size (); j++) { int d = std::abs (o8[j] - rf[j]); if (d) ndiff++; maxd = std::max (maxd, d); } break; }
    refs.push_back (o8);
    printf ("%-24s median %.3f ms min %.3f p90 %.3f  diff vs first same size: max %d n %ld cells %lu\n", f[0].c_str (), t[t.size () / 2], t[0], t[t.size () * 9 / 10], maxd, ndiff, cells);
    fflush (stdout);
  }
}
