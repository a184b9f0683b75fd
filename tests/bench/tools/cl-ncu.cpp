/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cl-ncu: hardware counters for this project's OpenCL kernels on NVIDIA.
 *
 * Nsight Compute profiles CUDA launches only. This builds a kernel from
 * kernels/ with NVIDIA's OpenCL compiler, takes the PTX the driver made of
 * it, and launches that same code through the CUDA driver API on a 4K frame
 * (5 launches), so that `ncu` can read its counters. Not built by meson (it
 * needs the CUDA toolkit); on a machine with it, from the source root:
 *
 *   g++ -O2 -std=c++17 -I/usr/local/cuda/include tests/bench/tools/cl-ncu.cpp \
 *       -o cl-ncu -L/usr/local/cuda/lib64/stubs -lcuda -lOpenCL
 *   ncu --launch-skip 2 --launch-count 1 --section SpeedOfLight \
 *       --section ComputeWorkloadAnalysis --section Occupancy ./cl-ncu sobel
 *
 * Kernels: sobel (sobel_narrow, GRAY8), sobel16 (the 16-pixel kernel),
 * malvar, bilinear (debayer, 8-bit rggb to RGBA, aligned variant), conv3
 * (convolve_3x3_aligned, RGBA; its __constant weights are read from global
 * memory here, as CUDA launches have no OpenCL constant buffers), conv7
 * (the separable 7x7 Gaussian, RGBA: convolve_rows then convolve_columns,
 * two launches per round: profile with --launch-count 2), sep3 and sep7 (the
 * one-pass separable kernel, RGBA, with the same weights), camera
 * (debayer_camera: 12-bit RGGB to NV12, every stage, auto white balance
 * statistics on, the arguments of tests/bench/tools/cl-variants.cpp;
 * CLNCU_GEOM="rows lx ly" its CAMERA_ROWS and work-group, default 2 16 8;
 * CLNCU_OPTS adds build options, e.g. a variant's -D; a NATIVE_POW there
 * replaces the default 1), sensor (debayer_sensor: the sensor pass of the
 * same frame with defects, a 17 x 13 shading grid and the statistics, its
 * 16-bit words written: cl-sensor-gpu's arguments), finish
 * (picture_finish_tiled: 8-bit NV12 to NV12 as cldebayer's picture stages
 * run it, BT.709 limited range, sharpen 1 at radius 1 (3 taps a side), a
 * 33-point LUT packed as unorm16 pairs (LUT_PACKED) of a smooth function,
 * trilinear; the input a smooth colour ramp with noise; CLNCU_FINISH=
 * "radius interp" changes those two, e.g. "0 0" for neither stage;
 * CLNCU_PICTURE=file another picture.cl). */
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_HPP_ENABLE_EXCEPTIONS
#include <CL/opencl.hpp>
#include <cuda.h>
#include "camera-args.hpp"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>
static std::string slurp (const std::string &p) { std::ifstream f (p); std::stringstream s; s << f.rdbuf (); return s.str (); }
/* kernels/convolve/: every file, in the engine's order (prelude.cl lists them). */
static std::string convolve_source () {
  std::string s;
  for (const char *f : {"prelude", "direct", "aligned", "tiled", "separable", "one_pass", "fixed"})
    s += slurp (std::string ("kernels/convolve/") + f + ".cl");
  return s;
}
#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char *m; cuGetErrorString (r_, &m); printf ("%s: %s\n", #x, m); exit (1); } } while (0)

static std::string ptx_of (const std::string &src, const std::string &opts) {
  std::vector<cl::Platform> ps; cl::Platform::get (&ps); cl::Device dev; bool ok = false;
  for (auto &p : ps) { std::vector<cl::Device> ds; try { p.getDevices (CL_DEVICE_TYPE_GPU, &ds); } catch (...) {} if (!ds.empty ()) { dev = ds[0]; ok = true; break; } }
  if (!ok) { printf ("no GPU\n"); exit (1); }
  cl::Context ctx (dev); cl::Program p (ctx, src);
  try { p.build ({dev}, opts.c_str ()); } catch (...) { printf ("%s\n", p.getBuildInfo<CL_PROGRAM_BUILD_LOG> (dev).c_str ()); exit (1); }
  auto bins = p.getInfo<CL_PROGRAM_BINARIES> ();
  std::string ptx (bins[0].begin (), bins[0].end ());
  ptx.erase (std::remove (ptx.begin (), ptx.end (), '\0'), ptx.end ());
  /* OpenCL's global offsets live in environment registers: zero here.
   * __constant arguments become global pointers. */
  ptx = std::regex_replace (ptx, std::regex ("%envreg[0-9]+"), "0");
  ptx = std::regex_replace (ptx, std::regex ("\\.ptr \\.const"), ".ptr .global");
  return std::regex_replace (ptx, std::regex ("ld\\.const"), "ld.global");
}

int main (int argc, char **argv) {
  const std::string which = argc > 1 ? argv[1] : "sobel";
  const int W = 3840, H = 2160;
  std::string src = slurp ("kernels/common.cl"), opts, name;
  if (which == "sobel") { src += slurp ("kernels/sobel.cl"); opts = " -D IN_BPP=1 -D OUT_16=0 -D BORDER=0 -D OUTPUT=0 -D NORM=0 -D ALIGNED=1"; name = "sobel_narrow"; }
  else if (which == "sobel16") { src += slurp ("kernels/sobel.cl"); opts = " -D IN_BPP=1 -D OUT_16=0 -D BORDER=0 -D OUTPUT=0 -D NORM=0 -D ALIGNED=1"; name = "sobel"; }
  else if (which == "conv7") { src += convolve_source (); opts = " -D N=7 -D LAYOUT=2 -D TILE_W=16 -D TILE_H=16"; name = "convolve_rows"; }
  else if (which == "sep3" || which == "sep7") { src += convolve_source (); opts = std::string (" -D N=") + which[3] + " -D LAYOUT=2 -D TILE_W=16 -D TILE_H=16 -D SEP_TW=32 -D SEP_TH=4 -D SEP_S=8 -D SEP_PX=8"; name = "convolve_separable"; }
  else if (which == "conv3") { src += convolve_source (); opts = " -D N=3 -D LAYOUT=2 -D TILE_W=16 -D TILE_H=16"; name = "convolve_3x3_aligned"; }
  else if (which == "camera" || which == "sensor") { src += slurp ("kernels/color.cl") + slurp ("kernels/debayer/prelude.cl") + slurp ("kernels/debayer/filters.cl") + slurp ("kernels/debayer/io.cl") + slurp ("kernels/debayer/stages.cl") + slurp ("kernels/debayer/curve.cl") + slurp ("kernels/debayer/stats.cl") + slurp ("kernels/debayer/output.cl") + slurp ("kernels/debayer/sensor.cl") + slurp ("kernels/debayer/camera.cl"); opts = " -D IN_16=1 -D OUT_PLANES=2 -D OUT_SAMPLE=1 -D OUT_DEPTH=8 -D OUT_CH=1 -D OUT_BPP=1 -D OUT_YUV=1 -D METHOD=0 -D CAMERA=1 -D PHASE_X=0 -D PHASE_Y=0 -D ALIGNED=1 -D NATIVE_POW=1"; name = which == "sensor" ? "debayer_sensor" : "debayer_camera"; }
  else if (which == "finish") { src += slurp ("kernels/color.cl") + slurp (getenv ("CLNCU_PICTURE") ? getenv ("CLNCU_PICTURE") : "kernels/picture/picture.cl"); opts = " -D PX_PLANES=2 -D PX_SAMPLE=1 -D PX_DEPTH=8 -D PX_CH=3 -D PX_BPP=1 -D PX_YUV=1 -D PX_FOURTH=-1 -D PC_SPAN=128 -D LUT_PACKED=1"; name = "picture_finish_tiled"; }
  else { src += slurp ("kernels/debayer/prelude.cl") + slurp ("kernels/debayer/filters.cl") + slurp ("kernels/debayer/io.cl") + slurp ("kernels/debayer/exact.cl"); opts = std::string (" -D IN_16=0 -D OUT_CH=4 -D OUT_16=0 -D METHOD=") + (which == "bilinear" ? "1" : "0") + " -D ALIGNED=1 -D PHASE_X=0"; name = "debayer"; }
  /* the camera kernel's CAMERA_ROWS and work-group: CLNCU_GEOM="rows lx ly"
   * (default the element's, 2 16 8) */
  int cam_rows = 2, cam_lx = 16, cam_ly = 8;
  if (getenv ("CLNCU_GEOM"))
    sscanf (getenv ("CLNCU_GEOM"), "%d %d %d", &cam_rows, &cam_lx, &cam_ly);
  if (which == "camera" || which == "sensor")
    opts += " -D CAMERA_ROWS=" + std::to_string (cam_rows) + " -D CAMERA_LX=" +
        std::to_string (cam_lx) + " -D CAMERA_LY=" + std::to_string (cam_ly);
  if (getenv ("CLNCU_OPTS")) {
    const std::string more = getenv ("CLNCU_OPTS");
    if (more.find ("NATIVE_POW") != std::string::npos && opts.find (" -D NATIVE_POW=1") !=
        std::string::npos)
      opts.replace (opts.find (" -D NATIVE_POW=1"), 16, "");
    opts += " " + more;
  }
  std::string ptx = ptx_of (src, opts);
  if (getenv ("CLNCU_PTX")) {   /* CLNCU_PTX=file: the PTX, for ptxas and cuobjdump -sass */
    std::ofstream (getenv ("CLNCU_PTX")) << ptx;
  }
  CK (cuInit (0)); CUdevice d; CK (cuDeviceGet (&d, 0)); CUcontext c; CK (cuDevicePrimaryCtxRetain (&c, d)); CK (cuCtxSetCurrent (c));
  CUmodule m; CK (cuModuleLoadData (&m, ptx.c_str ())); CUfunction f; CK (cuModuleGetFunction (&f, m, name.c_str ()));
  const bool sobel = which.rfind ("sobel", 0) == 0, conv = which.rfind ("conv", 0) == 0;
  const bool sensor = which == "sensor", camera = which == "camera" || sensor;
  const bool sep = which.rfind ("sep", 0) == 0;
  const int n = which == "conv7" || which == "sep7" ? 7 : 3;
  CUfunction f2 = nullptr;
  if (which == "conv7")
    CK (cuModuleGetFunction (&f2, m, "convolve_columns"));
  const size_t nin = (size_t) W * H * (conv || sep ? 4 : camera || which == "finish" ? 2 : 1),
      nout = sobel ? nin : (size_t) W * H * 4;
  CUdeviceptr in, out; CK (cuMemAlloc (&in, nin)); CK (cuMemAlloc (&out, nout));
  std::vector<unsigned char> host (nin); unsigned s = 1; for (auto &b : host) { s = s * 1103515245 + 12345; b = s >> 24; }
  if (camera)   /* 12-bit samples */
    for (size_t i = 1; i < nin; i += 2)
      host[i] &= 0x0f;
  CK (cuMemcpyHtoD (in, host.data (), nin));
  int zero = 0, w = W, h = H, sin = conv || sep ? 4 * W : W, sout = sobel ? W : 4 * W, maxv = 255, shift = 0;
  unsigned mul = 0; float one = 1.0f, fz = 0.0f; int layout[4] = {0, 1, 2, 3};
  /* conv3: a [1 2 1]^2 / 16 blur, colour lanes; 9 taps + 2 x 3 factors */
  /* conv7: the binomial 7x7 Gaussian, its row and column factors after the taps */
  std::vector<float> wv (4 * (n * n + 2 * n), 0.0f);
  const float b3[3] = {1, 2, 1}, b7[7] = {1, 6, 15, 20, 15, 6, 1};
  const float *b = n == 7 ? b7 : b3;
  for (int y = 0; y < n; y++)
    for (int x = 0; x < n; x++)
      for (int c = 0; c < 3; c++) {
        wv[4 * (y * n + x) + c] = b[y] * b[x];
        wv[4 * (n * n + x) + c] = b[x];
        wv[4 * (n * n + n + x) + c] = b[x];
      }
  CUdeviceptr weights; CK (cuMemAlloc (&weights, wv.size () * sizeof (float)));
  CK (cuMemcpyHtoD (weights, wv.data (), wv.size () * sizeof (float)));
  const float norm = n == 7 ? 1 / 4096.f : 1 / 16.f;
  float scale[4] = {norm, norm, norm, 0}, bias[4] = {0, 0, 0, 0};
  CUdeviceptr tmp = 0;
  if (which == "conv7")
    CK (cuMemAlloc (&tmp, (size_t) W * H * 16));
  std::vector<void *> args2;
  std::vector<void *> args;
  args = {&in, &zero, &sin, &out, &zero, &sout, &w, &h};
  unsigned bx, by, gx, gy;
  if (which == "sobel") { args.push_back (&one); args.push_back (&fz); bx = 64; by = 4; gx = ((W + 3) / 4 + 63) / 64; gy = (H + 3) / 4; }
  else if (which == "sobel16") { args.push_back (&one); args.push_back (&fz); bx = 16; by = 4; gx = ((W + 15) / 16 + 15) / 16; gy = (H + 3) / 4; }
  else if (sep) {
    static int aligned = 1;
    args.insert (args.end (), {&weights, scale, bias, &zero, &aligned});
    bx = 32; by = 4; gx = (W + 31) / 32; gy = (H + 31) / 32;
  }
  else if (n == 7) {
    args = {&in, &zero, &sin, &tmp, &w, &h, &weights, &zero};
    args2 = {&tmp, &in, &zero, &sin, &out, &zero, &sout, &w, &h, &weights, scale, bias, &zero};
    bx = 16; by = 8; gx = (W + 15) / 16; gy = (H + 7) / 8;
  }
  else if (conv) { args.insert (args.end (), {&weights, scale, bias, &zero}); bx = 16; by = 8; gx = ((W + 3) / 4 + 15) / 16; gy = (H + 7) / 8; }
  else if (camera) {
    /* cl-variants' arguments: black 256, its matrix with saturation 1.2 in
     * units of full scale, sRGB, BT.709 limited range, gains 1.9 / 1 / 1.45 */
    static int in_stride = 2 * W, out_stride = W, maxv12 = 4095, black = 256, stats = 1,
        lo = 77, hi = 3763;
    static int chroma[4] = {W * H, W, 0, 0};
    static cl_float16 mat = camera_matrix ();
    static cl_float16 tf = camera_curve (false);
    static cl_float8 gain, yuv = camera_yuv ();
    const double bs = 4095.0 / (4095 - 256) / 4095.0;
    gain = camera_gains (1.9 * bs, bs, 1.45 * bs, black);
    static CUdeviceptr totals;
    CK (cuMemAlloc (&totals, 4096));
    CK (cuMemsetD8 (totals, 0, 4096));
    args = {&in, &zero, &in_stride, &out, &zero, &out_stride, &w, &h, &maxv12, layout, &black,
        gain.s, mat.s, tf.s, yuv.s, chroma, &stats, &lo, &hi, &totals};
    bx = cam_lx; by = cam_ly; gx = ((W + 7) / 8 + bx - 1) / bx;
    gy = ((H + cam_rows - 1) / cam_rows + by - 1) / by;
    if (sensor) {
      /* cl-sensor-gpu's: defects at 0.1, its 17 x 13 grid, words of full
       * scale 32767 */
      static const std::vector<float> grid = shading_grid ();
      static CUdeviceptr shading;
      CK (cuMemAlloc (&shading, grid.size () * 4));
      CK (cuMemcpyHtoD (shading, grid.data (), grid.size () * 4));
      static int one_i = 1, mid_stride = W, g4[4] = {kShadingCols, kShadingRows, 1, 0}, slo = 656, shi = 32112;
      static float thr = 0.1f * 3839, sc[2] = {(kShadingCols - 1.0f) / (W - 1),
          (kShadingRows - 1.0f) / (H - 1)}, mid_max = 32767,
          wb[4] = {1.9f, 1.0f, 1.45f, 0};
      args = {&in, &zero, &in_stride, &one_i, &out, &mid_stride, &w, &h, &maxv12, &black, &zero,
          &zero, &one_i, &thr, &shading, g4, sc, &one_i, &mid_max, &stats, &slo, &shi, wb,
          &totals};
      /* column pairs in groups of 128 down strips of 16 rows (sensor.cl's
       * defaults); CLNCU_SENSOR_BLOCKS=1: the kernels before 2026-12-03,
       * 8 x 2 blocks in groups of 16 x 8 */
      if (getenv ("CLNCU_SENSOR_BLOCKS")) {
        bx = 16; by = 8; gx = (W / 8 + 15) / 16; gy = (H / 2 + 7) / 8;
      } else {
        bx = 128; by = 1; gx = (W / 2 + 127) / 128; gy = (H + 15) / 16;
      }
    }
  }
  else if (which == "finish") {
    /* NV12 in: a ramp of colours with +-8 codes of noise; the LUT a smooth
     * function of its point, its entries' unorm16 pairs of red neighbours */
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        s = s * 1103515245 + 12345;
        host[(size_t) y * W + x] = (unsigned char) std::min (235, 16 + (x + y) * 219 / (W + H) + (int) (s >> 28));
      }
    for (int y = 0; y < H / 2; y++)
      for (int x = 0; x < W; x++)
        host[(size_t) W * H + (size_t) y * W + x] = (unsigned char) (64 + ((x & 1) ? y * 128 / (H / 2) : x * 128 / W));
    CK (cuMemcpyHtoD (in, host.data (), (size_t) W * H * 3 / 2));
    const int N = 33;
    std::vector<unsigned short> lut ((size_t) N * N * N * 8, 0);
    auto fn = [&] (int r, int g, int b, int c) {
      const double v[3] = {r / (N - 1.0), g / (N - 1.0), b / (N - 1.0)};
      return std::min (1.0, std::max (0.0, 0.9 * v[c] + 0.1 * v[(c + 1) % 3] * v[(c + 2) % 3]));
    };
    for (int b = 0; b < N; b++)
      for (int g = 0; g < N; g++)
        for (int r = 0; r < N; r++)
          for (int h = 0; h < 2; h++)
            for (int c = 0; c < 3; c++)
              lut[8 * ((size_t) r + N * (g + N * b)) + 4 * h + c] =
                  (unsigned short) (65535 * fn (std::min (r + h, N - 1), g, b, c) + 0.5);
    static CUdeviceptr lutd, rows;
    CK (cuMemAlloc (&lutd, lut.size () * 2));
    CK (cuMemcpyHtoD (lutd, lut.data (), lut.size () * 2));
    CK (cuMemAlloc (&rows, 4));
    static int o1 = W * H, sw = W, radius = 3, nn = N, interp = 1, direct = 1, order[4] = {0, 1, 2, 0};
    static float amount = 1, thr = 0, strength = 1;
    /* BT.709 limited range, and the constants derived from it where the
     * kernel takes a float16 (gstclpicturestages.cpp); a float8 argument
     * (older picture.cl) reads the first 8 */
    static float k[16] = {0.2126f, 0.0722f, 16, 219, 224, 0, 0, 0, 1.0f / 219, 1.0f / 224,
        1.0f / (1.0f - 0.2126f - 0.0722f), 0.5f / (1.0f - 0.0722f), 0.5f / (1.0f - 0.2126f),
        2.0f * (1.0f - 0.2126f), 2.0f * (1.0f - 0.0722f), 0};
    static float lsc[4] = {N - 1.0f, N - 1.0f, N - 1.0f, 1 / 65535.0f}, lof[4] = {0, 0, 0, 0};
    static float gauss[16] = {0};
    if (getenv ("CLNCU_FINISH"))   /* "radius interp": a stage off, to split the time */
      sscanf (getenv ("CLNCU_FINISH"), "%d %d", &radius, &interp);
    double sum = 0;
    for (int i = -3; i <= 3; i++)
      sum += std::exp (-i * i / 2.0);
    for (int i = 0; i <= 3; i++)
      gauss[i] = (float) (std::exp (-i * i / 2.0) / sum);
    args = {&rows, &in, &zero, &o1, &zero, &sw, &sw, &zero, &out, &zero, &o1, &zero, &sw, &sw,
        &zero, &w, &h, order, k, &radius, &amount, &thr, &lutd, &nn, &interp, lsc, lof,
        &strength, &direct, &rows, gauss};
    bx = 16; by = 8; gx = (W / 2 + 15) / 16; gy = (H / 2 + 7) / 8;
  }
  else { args.insert (args.end (), {&zero, &zero, &maxv, &mul, &shift, layout}); bx = 16; by = 8; gx = ((W + 7) / 8 + 15) / 16; gy = ((H + 1) / 2 + 7) / 8; }
  CUevent e0, e1; CK (cuEventCreate (&e0, 0)); CK (cuEventCreate (&e1, 0));
  /* CLNCU_LAUNCHES: how many (default 5); the median printed after them */
  const int launches = getenv ("CLNCU_LAUNCHES") ? atoi (getenv ("CLNCU_LAUNCHES")) : 5;
  std::vector<float> times;
  for (int i = 0; i < launches; i++) {
    CK (cuEventRecord (e0, 0));
    CK (cuLaunchKernel (f, gx, gy, 1, bx, by, 1, 0, 0, args.data (), nullptr));
    if (f2)
      CK (cuLaunchKernel (f2, gx, gy, 1, bx, by, 1, 0, 0, args2.data (), nullptr));
    CK (cuEventRecord (e1, 0)); CK (cuEventSynchronize (e1));
    float ms; CK (cuEventElapsedTime (&ms, e0, e1)); if (i < 5) printf ("%s launch %d: %.4f ms\n", which.c_str (), i, ms);
    times.push_back (ms);
  }
  std::sort (times.begin (), times.end ());
  printf ("%s median of %d launches: %.4f ms\n", which.c_str (), launches, times[times.size () / 2]);
  std::vector<unsigned char> o (nout); CK (cuMemcpyDtoH (o.data (), out, nout));
  unsigned long sum = 0; for (auto v : o) sum += v; printf ("checksum %lu\n", sum);
  return 0;
}
