/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cl-sensor-gpu: times the GPU shape of cldebayer's camera pass with the
 * sensor stages on a GPU, variants side by side in one process
 * (docs/benchmarks.md, "The sensor pass"): the camera kernel alone
 * (debayer_camera on the raw frame, auto white balance statistics), and
 * the sensor pass and the camera kernel on its words (debayer_sensor,
 * then debayer_camera), the time from the first's start to the second's
 * end. A 4K
 * 12-bit RGGB frame (a smooth pattern, noise and 0.1 % hot and dead
 * pixels), the arguments of cl-sensor-cpu (the bench's isp case: black
 * level 256, gains 1.9 / 1 / 1.45, its matrix, saturation 1.2, sRGB,
 * BT.709 limited range, NV12; defects at 0.1, a 17 x 13 vignetting, the
 * statistics). First each variant's largest difference of the NV12 bytes
 * from the first variant of its kind and its statistics' counts; then
 * ROUNDS (3) rounds of N launches of each variant in turn, timed by
 * profiling events: the median of each round, and the least. Not built by
 * meson:
 *
 *   g++ -O2 -std=c++17 tests/bench/tools/cl-sensor-gpu.cpp -o cl-sensor-gpu -lOpenCL
 *   ./cl-sensor-gpu kernels 200 "camera|camera|1|0|0" "pass|pass|1|1|1" "other|pass|1|1|1||other/kernels"
 *
 * A variant: name|kind|statistics|defects|shading[|more -D options[|kernels
 * folder, in place of the first argument's]]; kind camera or pass (the
 * sensor kernel's column pairs down strips, its SENSOR_LX and SENSOR_STRIP
 * as the options give them; a folder whose name has "old" in it holds the
 * kernels before 2026-12-02's, 8 x 2 blocks in groups of 16 x 8). Each
 * variant's line also gives the first kernel's own time.
 * Without defects and shading the camera kernel takes the raw samples (no
 * words), as cldebayer does. CPU=1: the CPU device (PoCL), to try it. */
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_HPP_ENABLE_EXCEPTIONS
#include <CL/opencl.hpp>
#include "camera-args.hpp"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

static std::string slurp (const std::string &p) { std::ifstream f (p); std::stringstream s; s << f.rdbuf (); return s.str (); }

int main (int argc, char **argv)
{
  if (argc < 4) { std::cerr << "usage: cl-sensor-gpu KERNELS-DIR N VARIANT...\n"; return 2; }
  const auto sources = [] (const std::string &k) {
    /* kCameraFiles (gst/elements/debayer/gstcldebayervariants.cpp) */
    std::string s;
    for (const char *f : { "common", "color", "debayer/prelude", "debayer/filters", "debayer/io",
        "debayer/stages", "debayer/curve", "debayer/stats", "debayer/output", "debayer/sensor",
        "debayer/camera" })
      s += slurp (k + "/" + f + ".cl");
    return s;
  };
  const int reps = atoi (argv[2]);
  std::vector<cl::Platform> plats; cl::Platform::get (&plats);
  cl::Device dev;
  for (auto &p : plats) { std::vector<cl::Device> ds; try { p.getDevices (getenv ("CPU") ? CL_DEVICE_TYPE_CPU : CL_DEVICE_TYPE_GPU, &ds); } catch (...) {} if (!ds.empty ()) { dev = ds[0]; break; } }
  if (!dev ()) { std::cerr << "no GPU\n"; return 1; }
  printf ("device: %s\n", dev.getInfo<CL_DEVICE_NAME> ().c_str ());
  const bool nvidia = dev.getInfo<CL_DEVICE_EXTENSIONS> ().find ("cl_nv_compiler_options") != std::string::npos;
  cl::Context ctx (dev); cl::CommandQueue q (ctx, dev, CL_QUEUE_PROFILING_ENABLE);
  const int W = 3840, H = 2160, maxv = 4095, black = 256, mid = 32767;
  std::mt19937 rng (1); std::vector<uint16_t> raw ((size_t) W * H);
  for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) {
    int v = (int) (2048 + 1500 * std::sin (x * 0.005) * std::cos (y * 0.0065)) + (int) (rng () % 64) - 32;
    if (rng () % 1000 == 0) v = rng () % 2 ? maxv : 0;
    raw[(size_t) y * W + x] = (uint16_t) std::clamp (v, 0, maxv); }
  const int gc = kShadingCols, gr = kShadingRows;
  std::vector<float> grid = shading_grid ();
  cl::Buffer in (ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, raw.size () * 2, raw.data ());
  cl::Buffer words (ctx, CL_MEM_READ_WRITE, raw.size () * 2);
  cl::Buffer shading (ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, grid.size () * 4, grid.data ());
  cl::Buffer out (ctx, CL_MEM_READ_WRITE, (size_t) W * H * 3 / 2), totals (ctx, CL_MEM_READ_WRITE, 16384);
  std::vector<uint8_t> ref[3];
  struct Run { std::string name; std::vector<cl::Kernel> k; std::vector<cl::NDRange> g, l; std::vector<double> meds, firsts; };
  std::vector<Run> runs;
  for (int a = 3; a < argc; a++) {
    std::vector<std::string> f; { std::stringstream ss (argv[a]); std::string t; while (std::getline (ss, t, '|')) f.push_back (t); }
    while (f.size () < 7) f.push_back ("");
    const int kind = f[1] == "camera" ? 0 : 1;
    /* the sensor kernel's shape (sensor.cl's SENSOR_LX, SENSOR_STRIP, as
     * the variant's options give them): column pairs down strips; "old"
     * folders' kernels (before 2026-12-03): 8 x 2 blocks in 16 x 8 groups */
    const auto option = [&] (const char *name, int dflt) {
      const size_t at = f[5].find (std::string ("-D ") + name + "=");
      return at == std::string::npos ? dflt : atoi (f[5].c_str () + at + strlen (name) + 4);
    };
    const int slx = option ("SENSOR_LX", 128), sstrip = option ("SENSOR_STRIP", 16);
    const bool blocks_pass = f[6].find ("old") != std::string::npos;
    const int stats = atoi (f[2].c_str ()), defect = atoi (f[3].c_str ()), shade = atoi (f[4].c_str ());
    const bool corrected = kind != 0 && (defect || shade);
    /* LX=N, LY=N: work-groups of LX x LY (debayer_camera's CAMERA_LX and
     * CAMERA_LY: 16 x 8; debayer_sensor takes 16 x 8 only) */
    const int lx = getenv ("LX") ? atoi (getenv ("LX")) : 16, ly = getenv ("LY") ? atoi (getenv ("LY")) : 8;
    std::string o = " -D IN_16=1 -D IN_15=1 -D METHOD=0 -D CAMERA=1 -D PHASE_X=0 -D PHASE_Y=0"
        " -D CAMERA_ROWS=2 -D CAMERA_LX=" + std::to_string (lx) + " -D ALIGNED=1 -D CAMERA_LY=" + std::to_string (ly) +
        " -D OUT_PLANES=2 -D OUT_SAMPLE=1 -D OUT_DEPTH=8 -D OUT_CH=1 -D OUT_BPP=1 -D OUT_YUV=1" +
        std::string (nvidia ? " -D NATIVE_POW=2 -D NV_REDUX=1 -cl-nv-verbose" : " -D NATIVE_POW=1") + " " + f[5];
    cl::Program prog (ctx, sources (f[6].empty () ? argv[1] : f[6]));
    try { prog.build ({dev}, ("-cl-std=CL1.2" + o).c_str ()); } catch (...) { std::cerr << prog.getBuildInfo<CL_PROGRAM_BUILD_LOG> (dev) << "\n"; return 1; }
    if (nvidia) {
      /* ptxas's lines on registers */
      std::stringstream log (prog.getBuildInfo<CL_PROGRAM_BUILD_LOG> (dev)); std::string line, fn;
      while (std::getline (log, line)) {
        if (line.find ("Compiling entry function") != std::string::npos) fn = line.substr (line.find ('\''));
        if (line.find ("Used") != std::string::npos && (fn.find ("'debayer_camera'") != std::string::npos || fn.find ("'debayer_sensor'") != std::string::npos))
          printf ("  %s %s %s\n", f[0].c_str (), fn.c_str (), line.c_str ());
      }
    }
    /* the camera arguments on the words (full scale 32767, black 0) where
     * corrected, else on the raw samples (gstcldebayercamera.cpp) */
    const int cmax = corrected ? mid : maxv, cblack = corrected ? 0 : black;
    const double bs = (double) cmax / (cmax - cblack) / cmax;
    cl_float8 gain = camera_gains (1.9 * bs, bs, 1.45 * bs, cblack);
    const cl_float16 mat = camera_matrix ();
    cl_int4 chroma = {{W * H, W, 0, 0}}, layout = {{0, 1, 2, 3}};
    const int slo = (int) std::ceil (0.02 * mid), shi = (int) std::ceil (0.98 * mid);
    const cl_int4 g4 {{gc, gr, shade, 0}};
    const cl_float2 scale {{(float) ((gc - 1.0) / (W - 1)), (float) ((gr - 1.0) / (H - 1))}};
    const cl_float4 wb {{1.9f, 1.0f, 1.45f, 0}};
    const auto camera_args = [&] (cl::Kernel & k, const cl::Buffer & src, int stride, int st) {
      int i = 0;
      k.setArg (i++, src); k.setArg (i++, 0); k.setArg (i++, stride); k.setArg (i++, out); k.setArg (i++, 0); k.setArg (i++, W);
      k.setArg (i++, W); k.setArg (i++, H); k.setArg (i++, cmax); k.setArg (i++, layout); k.setArg (i++, cblack);
      k.setArg (i++, gain); k.setArg (i++, mat); k.setArg (i++, camera_curve (false)); k.setArg (i++, camera_yuv ()); k.setArg (i++, chroma);
      k.setArg (i++, st); k.setArg (i++, (int) std::ceil (0.02 * (cmax - cblack))); k.setArg (i++, (int) std::ceil (0.98 * (cmax - cblack))); k.setArg (i++, totals);
      return i;
    };
    Run run { f[0] };
    const cl::NDRange blocks (W / 8, H / 2), group (lx, ly);
    if (kind == 0) {
      cl::Kernel k (prog, "debayer_camera");
      camera_args (k, in, 2 * W, stats);
      run.k.push_back (k);
    } else {
      cl::Kernel ks (prog, "debayer_sensor");
      int i = 0;
      ks.setArg (i++, in); ks.setArg (i++, 0); ks.setArg (i++, 2 * W); ks.setArg (i++, 1); ks.setArg (i++, words);
      ks.setArg (i++, W); ks.setArg (i++, W); ks.setArg (i++, H); ks.setArg (i++, maxv); ks.setArg (i++, black);
      ks.setArg (i++, 0); ks.setArg (i++, 0); ks.setArg (i++, defect); ks.setArg (i++, (float) (0.1 * (maxv - black)));
      ks.setArg (i++, shading); ks.setArg (i++, g4); ks.setArg (i++, scale); ks.setArg (i++, (int) corrected);
      ks.setArg (i++, (float) mid); ks.setArg (i++, stats); ks.setArg (i++, slo); ks.setArg (i++, shi); ks.setArg (i++, wb);
      ks.setArg (i++, totals);
      cl::Kernel kc (prog, "debayer_camera");
      camera_args (kc, corrected ? words : in, 2 * W, 0);
      run.k = { ks, kc };
    }
    for (size_t j = 0; j < run.k.size (); j++) {
      const bool pass = kind == 1 && j == 0;
      run.g.push_back (pass && !blocks_pass ? cl::NDRange ((W / 2 + slx - 1) / slx * slx,
          (H + sstrip - 1) / sstrip) : blocks);
      run.l.push_back (pass ? (blocks_pass ? cl::NDRange (16, 8) : cl::NDRange (slx, 1)) : group);
    }
    /* the first launch: the output and the statistics */
    q.enqueueFillBuffer (totals, (cl_uint) 0, 0, 16384);
    for (size_t j = 0; j < run.k.size (); j++) q.enqueueNDRangeKernel (run.k[j], cl::NullRange, run.g[j], run.l[j]);
    q.finish ();
    std::vector<uint8_t> o8 ((size_t) W * H * 3 / 2); q.enqueueReadBuffer (out, CL_TRUE, 0, o8.size (), o8.data ());
    std::vector<cl_uint> tot (4096); q.enqueueReadBuffer (totals, CL_TRUE, 0, 16384, tot.data ());
    unsigned long cells = 0, hist = 0; for (int sl = 0; sl < 64; sl++) cells += tot[8 * sl + 6] + ((unsigned long) tot[8 * sl + 7] << 16);
    unsigned long hsum = 0, zsum = 0;
    for (int b = 0; b < 64 * 16; b++) { hist += tot[512 + b]; hsum += (unsigned long) tot[512 + b] * (b % 64); }
    for (int z = 0; z < 192; z++) zsum += tot[1536 + 2 * z] + ((unsigned long) tot[1536 + 2 * z + 1] << 16);
    /* outputs compare with the first variant with the same corrections */
    const int slot = corrected ? 1 : 0;
    int maxd = 0; long nd = 0;
    if (!ref[slot].empty ()) for (size_t j = 0; j < o8.size (); j++) { const int d = std::abs (o8[j] - ref[slot][j]);
      /* DIFFS=N: the first N differing luma bytes, where */
      if (d > 1 && j < (size_t) W * H && nd < (getenv ("DIFFS") ? atoi (getenv ("DIFFS")) : 0))
        printf ("  (%zu, %zu): %d against %d\n", j % W, j / W, o8[j], ref[slot][j]);
      nd += d != 0; maxd = std::max (maxd, d); }
    else ref[slot] = o8;
    printf ("%-24s vs first: max %d n %ld  cells %lu histogram %lu (bins x counts %lu) zones %lu\n",
        f[0].c_str (), maxd, nd, cells, hist, hsum, zsum);
    runs.push_back (run);
  }
  const int rounds = getenv ("ROUNDS") ? atoi (getenv ("ROUNDS")) : 3;
  for (int round = 0; round < rounds; round++)
    for (Run &run : runs) {
      std::vector<double> t, first;
      for (int r = 0; r < reps + 5; r++) {
        q.enqueueFillBuffer (totals, (cl_uint) 0, 0, 16384);
        std::vector<cl::Event> e (run.k.size ());
        for (size_t j = 0; j < run.k.size (); j++) q.enqueueNDRangeKernel (run.k[j], cl::NullRange, run.g[j], run.l[j], nullptr, &e[j]);
        e.back ().wait ();
        if (r >= 5) {
          t.push_back ((e.back ().getProfilingInfo<CL_PROFILING_COMMAND_END> () - e.front ().getProfilingInfo<CL_PROFILING_COMMAND_START> ()) * 1e-6);
          first.push_back ((e.front ().getProfilingInfo<CL_PROFILING_COMMAND_END> () - e.front ().getProfilingInfo<CL_PROFILING_COMMAND_START> ()) * 1e-6);
        }
      }
      std::sort (t.begin (), t.end ());
      std::sort (first.begin (), first.end ());
      run.meds.push_back (t[t.size () / 2]);
      run.firsts.push_back (first[first.size () / 2]);
    }
  for (Run &run : runs) {
    printf ("%-24s median %.4f ms (rounds:", run.name.c_str (), *std::min_element (run.meds.begin (), run.meds.end ()));
    for (double m : run.meds) printf (" %.4f", m);
    /* the first kernel alone (the sensor pass where there are two) */
    printf ("), first kernel %.4f ms\n", *std::min_element (run.firsts.begin (), run.firsts.end ()));
  }
}
