/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cl-bands-gpu: whether a discrete GPU overlaps a frame's transfers with
 * its kernels when the frame goes in row bands over three queues (upload,
 * kernels, download), against one queue that uploads, computes and
 * downloads the whole frame (docs/benchmarks.md, "Bands"). The camera
 * pass of cldebayer on a 4K 12-bit RGGB frame to NV12: `camera`
 * (debayer_camera alone, auto white balance statistics) or `isp`
 * (debayer_sensor with defects, shading and statistics, then
 * debayer_camera on its words), from and to pinned host buffers
 * (CL_MEM_ALLOC_HOST_PTR, mapped), as GstClMemory's staging. Wall time a
 * frame (host clock, the frame's last read waited for), medians of N
 * frames, modes alternating ROUNDS (3) times; the NV12 bytes of every
 * banded mode against the serial one. Not built by meson:
 *
 *   g++ -O2 -std=c++17 tests/bench/tools/cl-bands-gpu.cpp -o cl-bands-gpu -lOpenCL
 *   ./cl-bands-gpu kernels 200 isp 1 4 8 16
 *
 * The numbers after the kind: bands a frame (1: the serial mode, one
 * queue). */
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_HPP_ENABLE_EXCEPTIONS
#include <CL/opencl.hpp>
#include "camera-args.hpp"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>
#include <unistd.h>

static std::string slurp (const std::string &p) { std::ifstream f (p); std::stringstream s; s << f.rdbuf (); return s.str (); }
static double now_ms () { return std::chrono::duration<double, std::milli> (std::chrono::steady_clock::now ().time_since_epoch ()).count (); }

int main (int argc, char **argv)
{
  if (argc < 5) { std::cerr << "usage: cl-bands-gpu KERNELS-DIR N camera|isp BANDS...\n"; return 2; }
  std::string src;
  for (const char *f : { "common", "color", "debayer/prelude", "debayer/filters", "debayer/io",
      "debayer/stages", "debayer/curve", "debayer/stats", "debayer/output", "debayer/sensor",
      "debayer/camera" })
    src += slurp (std::string (argv[1]) + "/" + f + ".cl");
  const int reps = atoi (argv[2]);
  const bool isp = std::string (argv[3]) == "isp";
  std::vector<cl::Platform> plats; cl::Platform::get (&plats);
  cl::Device dev;
  for (auto &p : plats) { std::vector<cl::Device> ds; try { p.getDevices (getenv ("CPU") ? CL_DEVICE_TYPE_CPU : CL_DEVICE_TYPE_GPU, &ds); } catch (...) {} if (!ds.empty ()) { dev = ds[0]; break; } }
  if (!dev ()) { std::cerr << "no device\n"; return 1; }
  printf ("device: %s, %s\n", dev.getInfo<CL_DEVICE_NAME> ().c_str (), argv[3]);
  const bool nvidia = dev.getInfo<CL_DEVICE_EXTENSIONS> ().find ("cl_nv_compiler_options") != std::string::npos;
  cl::Context ctx (dev);
  cl::CommandQueue qc (ctx, dev), qu (ctx, dev), qd (ctx, dev);
  const int W = getenv ("W") ? atoi (getenv ("W")) : 3840, H = getenv ("H") ? atoi (getenv ("H")) : 2160;
  const int maxv = 4095, black = 256, mid = 32767;
  const size_t in_bytes = (size_t) W * H * 2, out_bytes = (size_t) W * H * 3 / 2;
  /* pinned staging */
  cl::Buffer in_host (ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, in_bytes);
  cl::Buffer out_host (ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, out_bytes);
  auto *raw = (uint16_t *) qc.enqueueMapBuffer (in_host, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, in_bytes);
  auto *o8 = (uint8_t *) qc.enqueueMapBuffer (out_host, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, out_bytes);
  std::mt19937 rng (1);
  for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) {
    int v = (int) (2048 + 1500 * std::sin (x * 0.005) * std::cos (y * 0.0065)) + (int) (rng () % 64) - 32;
    if (rng () % 1000 == 0) v = rng () % 2 ? maxv : 0;
    raw[(size_t) y * W + x] = (uint16_t) std::clamp (v, 0, maxv); }
  std::vector<float> grid = shading_grid ();
  const int gc = kShadingCols, gr = kShadingRows;
  cl::Buffer in (ctx, CL_MEM_READ_WRITE, in_bytes), words (ctx, CL_MEM_READ_WRITE, in_bytes);
  cl::Buffer shading (ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, grid.size () * 4, grid.data ());
  cl::Buffer out (ctx, CL_MEM_READ_WRITE, out_bytes), totals (ctx, CL_MEM_READ_WRITE, 16384);
  std::string o = " -D IN_16=1 -D IN_15=1 -D METHOD=0 -D CAMERA=1 -D PHASE_X=0 -D PHASE_Y=0"
      " -D CAMERA_ROWS=2 -D CAMERA_LX=16 -D ALIGNED=1 -D CAMERA_LY=8"
      " -D OUT_PLANES=2 -D OUT_SAMPLE=1 -D OUT_DEPTH=8 -D OUT_CH=1 -D OUT_BPP=1 -D OUT_YUV=1" +
      std::string (nvidia ? " -D NATIVE_POW=2 -D NV_REDUX=1" : " -D NATIVE_POW=1");
  cl::Program prog (ctx, src);
  try { prog.build ({dev}, ("-cl-std=CL1.2" + o).c_str ()); } catch (...) { std::cerr << prog.getBuildInfo<CL_PROGRAM_BUILD_LOG> (dev) << "\n"; return 1; }
  const int cmax = isp ? mid : maxv, cblack = isp ? 0 : black;
  const double bs = (double) cmax / (cmax - cblack) / cmax;
  cl_float8 gain = camera_gains (1.9 * bs, bs, 1.45 * bs, cblack);
  const cl_float16 mat = camera_matrix ();
  cl_int4 chroma = {{W * H, W, 0, 0}}, layout = {{0, 1, 2, 3}};
  cl::Kernel kc (prog, "debayer_camera"), ks (prog, "debayer_sensor");
  {
    int i = 0;
    kc.setArg (i++, isp ? words : in); kc.setArg (i++, 0); kc.setArg (i++, 2 * W); kc.setArg (i++, out); kc.setArg (i++, 0); kc.setArg (i++, W);
    kc.setArg (i++, W); kc.setArg (i++, H); kc.setArg (i++, cmax); kc.setArg (i++, layout); kc.setArg (i++, cblack);
    kc.setArg (i++, gain); kc.setArg (i++, mat); kc.setArg (i++, camera_curve (false)); kc.setArg (i++, camera_yuv ()); kc.setArg (i++, chroma);
    kc.setArg (i++, isp ? 0 : 1); kc.setArg (i++, (int) std::ceil (0.02 * (cmax - cblack))); kc.setArg (i++, (int) std::ceil (0.98 * (cmax - cblack))); kc.setArg (i++, totals);
  }
  {
    const cl_int4 g4 {{gc, gr, 1, 0}};
    const cl_float2 scale {{(float) ((gc - 1.0) / (W - 1)), (float) ((gr - 1.0) / (H - 1))}};
    const cl_float4 wb {{1.9f, 1.0f, 1.45f, 0}};
    int i = 0;
    ks.setArg (i++, in); ks.setArg (i++, 0); ks.setArg (i++, 2 * W); ks.setArg (i++, 1); ks.setArg (i++, words);
    ks.setArg (i++, W); ks.setArg (i++, W); ks.setArg (i++, H); ks.setArg (i++, maxv); ks.setArg (i++, black);
    ks.setArg (i++, 0); ks.setArg (i++, 0); ks.setArg (i++, 1); ks.setArg (i++, (float) (0.1 * (maxv - black)));
    ks.setArg (i++, shading); ks.setArg (i++, g4); ks.setArg (i++, scale); ks.setArg (i++, 1);
    ks.setArg (i++, (float) mid); ks.setArg (i++, 1); ks.setArg (i++, (int) std::ceil (0.02 * mid)); ks.setArg (i++, (int) std::ceil (0.98 * mid)); ks.setArg (i++, wb);
    ks.setArg (i++, totals);
  }
  /* rows [a, b) of a kernel of 8 x 2 blocks in groups of 16 x 8 (16 rows) */
  auto launch = [&] (cl::Kernel & k, int a, int b) {
    if (b <= a) return;
    const size_t items = (size_t) (b - a + 1) / 2;
    qc.enqueueNDRangeKernel (k, cl::NDRange (0, a / 2), cl::NDRange (W / 8, (items + 7) / 8 * 8), cl::NDRange (16, 8));
  };
  /* the element's ways (gstclfilter.cpp, gstclbands.cpp), each a letter
   * after the band count: u every band's upload queued first; a the first
   * upload after a marker of the kernels' queue; b barriers for the
   * kernels' waits (else markers); r the reads queued after every kernel;
   * s the read waited for by sleeping 3/4 of the last frame's time, then
   * polling the event every 20 us (else clWaitForEvents) */
  bool up_first = false, after_marker = false, barriers = false, reads_last = false, sleeps = false;
  double last_ms = 0;
  auto frame = [&] (int bands) {
    qc.enqueueFillBuffer (totals, (cl_uint) 0, 0, 16384);
    if (bands == 1) {
      qc.enqueueWriteBuffer (in, CL_FALSE, 0, in_bytes, raw);
      if (isp) launch (ks, 0, H);
      launch (kc, 0, H);
      cl::Event done;
      qc.enqueueReadBuffer (out, CL_FALSE, 0, out_bytes, o8, nullptr, &done);
      done.wait ();
      return;
    }
    const double t0 = now_ms ();
    const int R = (H / bands + 15) / 16 * 16;
    int s_done = 0, c_done = 0;
    cl::Event last;
    std::vector<cl::Event> ups;
    struct Read { size_t o, n; cl::Event after; };
    std::vector<Read> pending;
    auto upload = [&] (int k) {
      const int a = k * R, b = std::min (H, (k + 1) * R);
      std::vector<cl::Event> after (1);
      if (k == 0 && after_marker)
        qc.enqueueMarkerWithWaitList (nullptr, &after[0]);
      cl::Event up;
      qu.enqueueWriteBuffer (in, CL_FALSE, (size_t) a * W * 2, (size_t) (b - a) * W * 2, raw + (size_t) a * W, k == 0 && after_marker ? &after : nullptr, &up);
      qu.flush ();
      ups.push_back (up);
    };
    if (up_first)
      for (int k = 0; k * R < H; k++)
        upload (k);
    for (int k = 0; k < bands; k++) {
      const int a = k * R, b = std::min (H, (k + 1) * R);
      if (a >= H) break;
      if (!up_first)
        upload (k);
      std::vector<cl::Event> wl { ups[k] };
      if (barriers)
        qc.enqueueBarrierWithWaitList (&wl);
      else
        qc.enqueueMarkerWithWaitList (&wl);
      int c_lim;
      if (isp) {
        const int s_lim = b == H ? H : (b - 2) / 16 * 16;
        launch (ks, s_done, s_lim); s_done = std::max (s_done, s_lim);
        c_lim = s_done == H ? H : (s_done - 2) / 16 * 16;
      } else {
        c_lim = b == H ? H : (b - 2) / 16 * 16;
      }
      if (c_lim > c_done) {
        launch (kc, c_done, c_lim);
        cl::Event ce;
        qc.enqueueMarkerWithWaitList (nullptr, &ce);
        qc.flush ();
        const int ua = c_done / 2, ub = (c_lim + 1) / 2;
        pending.push_back ({(size_t) c_done * W, (size_t) (c_lim - c_done) * W, ce});
        pending.push_back ({(size_t) W * H + (size_t) ua * W, (size_t) (ub - ua) * W, ce});
        if (!reads_last) {
          for (Read &rd : pending) {
            std::vector<cl::Event> wd { rd.after };
            qd.enqueueReadBuffer (out, CL_FALSE, rd.o, rd.n, o8 + rd.o, &wd, &last);
          }
          pending.clear ();
          qd.flush ();
        }
        c_done = c_lim;
      }
    }
    for (Read &rd : pending) {
      std::vector<cl::Event> wd { rd.after };
      qd.enqueueReadBuffer (out, CL_FALSE, rd.o, rd.n, o8 + rd.o, &wd, &last);
    }
    qd.flush ();
    qc.flush ();
    if (sleeps) {
      const double t1 = now_ms ();
      const double nap = 0.75 * last_ms - (t1 - t0);
      if (nap > 0.05)
        usleep ((useconds_t) (nap * 1000));
      while (last.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS> () != CL_COMPLETE)
        usleep (20);
    } else {
      last.wait ();
    }
    last_ms = now_ms () - t0;
  };
  std::vector<int> modes;
  std::vector<std::string> names;
  for (int a = 4; a < argc; a++) { modes.push_back (atoi (argv[a])); names.push_back (argv[a]); }
  auto use = [&] (size_t i) {
    const std::string &n = names[i];
    up_first = n.find ('u') != std::string::npos; after_marker = n.find ('a') != std::string::npos;
    barriers = n.find ('b') != std::string::npos; reads_last = n.find ('r') != std::string::npos;
    sleeps = n.find ('s') != std::string::npos;
  };
  std::vector<uint8_t> ref;
  for (size_t i = 0; i < modes.size (); i++) {
    const int m = modes[i];
    use (i);
    std::memset (o8, 0, out_bytes);
    frame (m);
    qc.finish ();
    if (ref.empty ()) { ref.assign (o8, o8 + out_bytes); printf ("bands %d: reference\n", m); continue; }
    long nd = 0; for (size_t j = 0; j < out_bytes; j++) nd += o8[j] != ref[j];
    printf ("bands %s: %ld bytes differ from bands %d\n", names[i].c_str (), nd, modes[0]);
  }
  const int rounds = getenv ("ROUNDS") ? atoi (getenv ("ROUNDS")) : 3;
  std::vector<std::vector<double>> meds (modes.size ());
  for (int round = 0; round < rounds; round++)
    for (size_t i = 0; i < modes.size (); i++) {
      std::vector<double> t;
      use (i);
      for (int r = 0; r < reps + 5; r++) {
        const double t0 = now_ms ();
        frame (modes[i]);
        if (r >= 5) t.push_back (now_ms () - t0);
      }
      std::sort (t.begin (), t.end ());
      meds[i].push_back (t[t.size () / 2]);
    }
  /* the transfers alone, serial: the limit's frame time */
  std::vector<double> tt;
  for (int r = 0; r < reps; r++) {
    const double t0 = now_ms ();
    qc.enqueueWriteBuffer (in, CL_FALSE, 0, in_bytes, raw);
    qc.enqueueReadBuffer (out, CL_TRUE, 0, out_bytes, o8);
    tt.push_back (now_ms () - t0);
  }
  std::sort (tt.begin (), tt.end ());
  printf ("transfers alone (serial, one queue): %.4f ms\n", tt[tt.size () / 2]);
  for (size_t i = 0; i < modes.size (); i++) {
    printf ("bands %-6s median %.4f ms (rounds:", names[i].c_str (), *std::min_element (meds[i].begin (), meds[i].end ()));
    for (double m : meds[i]) printf (" %.4f", m);
    printf (")  %.0f %% of the serial transfers' rate\n", 100 * tt[tt.size () / 2] / *std::min_element (meds[i].begin (), meds[i].end ()));
  }
}
