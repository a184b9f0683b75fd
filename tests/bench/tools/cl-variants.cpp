/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cl-variants: times build variants of cldebayer's kernels side by side on
 * one device, one process (docs/benchmarks.md, camera section).
 *
 * Builds kernels/common.cl, color.cl and the camera row's files of
 * kernels/debayer/ (from the directory given) once per line of a variants file, prints NVIDIA's register counts
 * (-cl-nv-verbose where the driver has cl_nv_compiler_options), times 20 +
 * N launches on a 3840x2160 frame (12-bit RGGB, a smooth pattern plus noise)
 * with profiling events and prints the median, minimum and 90th percentile;
 * then compares the output bytes with the first output of the same kind
 * (kept in REFDIR, so that a second run, with other kernels, compares with
 * the first) and prints the white-balance totals of one launch. Arguments
 * as cldebayer's host code sets them for the bench's camera cases
 * (black-level=256, its matrix, saturation 1.2, sRGB, BT.709 limited range;
 * auto gains fixed at 1.9 / 1 / 1.45). Not built by meson:
 *
 *   g++ -O2 -std=c++17 tests/bench/tools/cl-variants.cpp -o cl-variants -lOpenCL
 *   REFDIR=/tmp ./cl-variants kernels variants.txt 300
 *
 * A line of the variants file: name|kind|stats|rows|lx|ly|options, kind
 * nv12, rgba (debayer_camera into NV12 or RGBA), malvar (the plain
 * aligned debayer, 8-bit rggb to RGBA) or malvar12 (the same from the
 * 12-bit frame); stats 1 for auto white balance;
 * rows, lx, ly debayer_camera's CAMERA_ROWS and work-group (default 2, 16,
 * 8); options more -D options, "@linear" for the linear transfer curve
 * (a -D NATIVE_POW there replaces the default NATIVE_POW=1), "@maxnreg=N"
 * the kernel rebuilt from its PTX with a .maxnreg N directive (NVIDIA).
 * OLDSTATS=1 reads the totals as 64-bit counters (the layout before the
 * 16-bit parts), PTXDIR=DIR writes each build's binary (PTX on NVIDIA)
 * there, OLDUNITS=1 passes the gains and matrix of the kernels
 * before debayer_camera worked in units of full scale, OLDARGS=1 the gains
 * (float4) and curve parameters (float8) of the kernels before FAST_LEVELS
 * and transfer_unit8, OLDCURVE=1 the curve parameters of the kernels before
 * transfer_offset8. How the launches run (each waited for, by default):
 * PIPE=1 back to back, EVERY=N statistics in one launch in N (the others
 * timed apart), FILL=1 and READ=1 the counters zeroed before and read
 * (into pinned memory, not waited for) after each launch with statistics,
 * as the element does, POLL=1 statistics only when the last read has
 * completed (the element's rule); ROTATE=N the input from N copies of the frame in
 * turn (from device memory rather than the L2 cache); CAPPED=1 a red gain
 * below 1; RANDOM16=1 random 16-bit words as the 12-bit frame (the bench's
 * frames). */
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
/* the program's binary for its one device (PTX text on NVIDIA), without its trailing zeros */
static std::string binary_of (const cl::Program &prog) { auto bins = prog.getInfo<CL_PROGRAM_BINARIES> (); std::string b (bins[0].begin (), bins[0].end ()); while (!b.empty () && b.back () == 0) b.pop_back (); return b; }

int main (int argc, char **argv)
{
  const std::string kdir = argv[1];
  /* the camera row's files (gst/elements/debayer/gstcldebayervariants.cpp) */
  const std::string src = slurp (kdir + "/common.cl") + slurp (kdir + "/color.cl") + slurp (kdir + "/debayer/prelude.cl") + slurp (kdir + "/debayer/filters.cl") + slurp (kdir + "/debayer/io.cl") + slurp (kdir + "/debayer/stages.cl") + slurp (kdir + "/debayer/curve.cl") + slurp (kdir + "/debayer/stats.cl") + slurp (kdir + "/debayer/output.cl") + slurp (kdir + "/debayer/camera.cl");
  std::vector<std::string> lines;
  { std::ifstream f (argv[2]); std::string l; while (std::getline (f, l)) if (!l.empty () && l[0] != '#') lines.push_back (l); }
  const int reps = argc > 3 ? atoi (argv[3]) : 200;
  std::vector<cl::Platform> plats; cl::Platform::get (&plats);
  cl::Device dev; bool found = false;
  for (auto &p : plats) { std::vector<cl::Device> ds; try { p.getDevices (CL_DEVICE_TYPE_GPU, &ds); } catch (...) {} if (!ds.empty ()) { dev = ds[0]; found = true; break; } }
  if (!found) { for (auto &p : plats) { std::vector<cl::Device> ds; p.getDevices (CL_DEVICE_TYPE_ALL, &ds); if (!ds.empty ()) { dev = ds[0]; break; } } }
  const bool nv = dev.getInfo<CL_DEVICE_EXTENSIONS> ().find ("cl_nv_compiler_options") != std::string::npos;
  printf ("device %s nv %d\n", dev.getInfo<CL_DEVICE_NAME> ().c_str (), nv);
  cl::Context ctx (dev);
  cl::CommandQueue q (ctx, dev, CL_QUEUE_PROFILING_ENABLE);
  /* HEIGHT=N: frames of 3840 x N (the wave count of the grid) */
  const int W = 3840, H = getenv ("HEIGHT") ? atoi (getenv ("HEIGHT")) : 2160;
  std::mt19937 rng (1);
  // smooth-ish 12-bit content plus noise
  std::vector<uint16_t> raw ((size_t) W * H); std::vector<uint8_t> raw8 ((size_t) W * H);
  for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) {
    int v = (int) (2048 + 1500 * std::sin (x * 0.01) * std::cos (y * 0.013)) + (int) (rng () % 64) - 32;
    v = std::clamp (v, 0, 4095); raw[(size_t) y * W + x] = (uint16_t) v; raw8[(size_t) y * W + x] = (uint8_t) (v >> 4); }
  /* RANDOM16=1: random 16-bit words in the 12-bit frame, as the bench's frames */
  if (getenv ("RANDOM16")) for (auto &v : raw) v = (uint16_t) (rng () >> 16);
  cl::Buffer in16 (ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, raw.size () * 2, raw.data ());
  cl::Buffer in8 (ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, raw8.size (), raw8.data ());
  cl::Buffer out (ctx, CL_MEM_READ_WRITE, (size_t) W * H * 8);
  /* ROTATE=N: launches take their input from N copies of the frame in turn
   * (N frames larger than the L2 cache are read from device memory, as a
   * pipeline's are); 1 by default */
  const int rotate = getenv ("ROTATE") ? std::max (1, atoi (getenv ("ROTATE"))) : 1;
  std::vector<cl::Buffer> in16s {in16}, in8s {in8};
  for (int i = 1; i < rotate; i++) {
    in16s.emplace_back (ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, raw.size () * 2, raw.data ());
    in8s.emplace_back (ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, raw8.size (), raw8.data ());
  }
  cl::Buffer totals (ctx, CL_MEM_READ_WRITE, 4096);
  /* READ=1's destination: pinned host memory, as the element's */
  cl::Buffer pinned (ctx, CL_MEM_ALLOC_HOST_PTR, 4096);
  void *pinned_totals = q.enqueueMapBuffer (pinned, CL_TRUE, CL_MAP_WRITE, 0, 4096);
  std::vector<std::vector<uint8_t>> ref_out (2);
  const char *fmt_nv12 = " -D IN_16=1 -D OUT_PLANES=2 -D OUT_SAMPLE=1 -D OUT_DEPTH=8 -D OUT_CH=1 -D OUT_BPP=1 -D OUT_YUV=1 -D METHOD=0 -D CAMERA=1 -D PHASE_X=0 -D PHASE_Y=0 -D ALIGNED=1 -D NATIVE_POW=1";
  const char *fmt_rgba = " -D IN_16=1 -D OUT_PLANES=1 -D OUT_SAMPLE=1 -D OUT_DEPTH=8 -D OUT_CH=4 -D OUT_BPP=4 -D OUT_YUV=0 -D METHOD=0 -D CAMERA=1 -D PHASE_X=0 -D PHASE_Y=0 -D ALIGNED=1 -D NATIVE_POW=1";
  const char *fmt_malvar = " -D IN_16=0 -D OUT_PLANES=1 -D OUT_SAMPLE=1 -D OUT_DEPTH=8 -D OUT_CH=4 -D OUT_BPP=4 -D OUT_YUV=0 -D METHOD=0 -D ALIGNED=1 -D PHASE_X=0";
  for (const std::string &l : lines) {
    // name|kind(nv12,rgba,malvar)|stats|rows|lx|ly|extra
    std::vector<std::string> f; { std::stringstream ss (l); std::string t; while (std::getline (ss, t, '|')) f.push_back (t); }
    while (f.size () < 7) f.push_back ("");
    const std::string name = f[0], kind = f[1]; const int stats = atoi (f[2].c_str ());
    const int rows = f[3].empty () ? 2 : atoi (f[3].c_str ()), lx = f[4].empty () ? 16 : atoi (f[4].c_str ()), ly = f[5].empty () ? 8 : atoi (f[5].c_str ());
    std::string opts = kind == "malvar" ? fmt_malvar : kind == "malvar12" ? std::string (fmt_malvar).replace (0, 11, " -D IN_16=1") : kind == "rgba" ? fmt_rgba : fmt_nv12;
    const bool plain = kind == "malvar" || kind == "malvar12";
    if (!plain) opts += " -D CAMERA_ROWS=" + std::to_string (rows) + " -D CAMERA_LX=" + std::to_string (lx) + " -D CAMERA_LY=" + std::to_string (ly);
    std::string extra = f[6]; const bool linear = extra.find ("@linear") != std::string::npos;
    if (linear) extra.replace (extra.find ("@linear"), 7, "");
    int maxnreg = 0;   /* "@maxnreg=N": the PTX rebuilt with .maxnreg N (NVIDIA) */
    const size_t at = extra.find ("@maxnreg=");
    if (at != std::string::npos) {
      maxnreg = atoi (extra.c_str () + at + 9);
      const size_t end = extra.find (' ', at);
      extra.erase (at, end == std::string::npos ? end : end - at);
    }
    if (extra.find ("NATIVE_POW") != std::string::npos)
      opts.replace (opts.find (" -D NATIVE_POW=1"), 16, "");
    opts += " " + extra;
    if (nv) opts += " -cl-nv-verbose";
    cl::Program prog (ctx, src);
    try { prog.build ({dev}, opts.c_str ()); } catch (cl::Error &e) { printf ("%s: BUILD FAILED\n%s\n", name.c_str (), prog.getBuildInfo<CL_PROGRAM_BUILD_LOG> (dev).c_str ()); continue; }
    std::string kname = plain ? "debayer" : "debayer_camera";
    if (maxnreg > 0) {
      std::string ptx = binary_of (prog);
      const size_t entry = ptx.find (".entry " + kname);
      const size_t body = entry == std::string::npos ? entry : ptx.find ("\n{", entry);
      if (body == std::string::npos) { printf ("%s: no entry in the PTX\n", name.c_str ()); continue; }
      ptx.insert (body, "\n.maxnreg " + std::to_string (maxnreg));
      cl::Program::Binaries b { std::vector<unsigned char> (ptx.begin (), ptx.end ()) };
      b[0].push_back (0);
      prog = cl::Program (ctx, {dev}, b);
      try { prog.build ({dev}, nv ? "-cl-nv-verbose" : ""); } catch (cl::Error &e) { printf ("%s: PTX BUILD FAILED\n%s\n", name.c_str (), prog.getBuildInfo<CL_PROGRAM_BUILD_LOG> (dev).c_str ()); continue; }
    }
    std::string log = prog.getBuildInfo<CL_PROGRAM_BUILD_LOG> (dev);
    { std::stringstream ss (log); std::string t; bool in = false; while (std::getline (ss, t)) { if (t.find ("Function properties for " + kname) != std::string::npos || t.find ("Compiling entry function '" + kname + "'") != std::string::npos) in = true; if (in && (t.find ("registers") != std::string::npos || t.find ("spill") != std::string::npos)) { printf ("  [%s] %s\n", name.c_str (), t.c_str ()); if (t.find ("registers") != std::string::npos) in = false; } } }
    if (getenv ("PTXDIR")) std::ofstream (std::string (getenv ("PTXDIR")) + "/" + name + ".ptx") << binary_of (prog);
    cl::Kernel k (prog, kname.c_str ());
    cl::NDRange global, local;
    int stats_arg = -1;
    if (kind == "malvar" || kind == "malvar12") {
      const bool b12 = kind == "malvar12";   /* the 12-bit frame: maxv 4095, scale to 8 bits */
      int a = 0; k.setArg (a++, b12 ? in16 : in8); k.setArg (a++, 0); k.setArg (a++, b12 ? W * 2 : W); k.setArg (a++, out); k.setArg (a++, 0); k.setArg (a++, W * 4);
      k.setArg (a++, W); k.setArg (a++, H); k.setArg (a++, 0); k.setArg (a++, 0); k.setArg (a++, b12 ? 4095 : 255);
      k.setArg (a++, (cl_uint) (b12 ? ((1ull << 42) + 4094) / 4095 : 0)); k.setArg (a++, b12 ? 42 : 38);
      k.setArg (a++, cl_int4 {{0, 1, 2, 3}});
      global = cl::NDRange ((W / 8 + 15) / 16 * 16, (H / 2 + 7) / 8 * 8); local = cl::NDRange (16, 8);
    } else {
      const int maxv = 4095, black = 256; const double bs = (double) maxv / (maxv - black);
      const cl_float16 mat = camera_matrix (getenv ("OLDUNITS") ? maxv : 1);
      const double gu = getenv ("OLDUNITS") ? 1.0 : 1.0 / maxv;
      int a = 0; k.setArg (a++, in16); k.setArg (a++, 0); k.setArg (a++, W * 2); k.setArg (a++, out); k.setArg (a++, 0); k.setArg (a++, kind == "rgba" ? W * 4 : W);
      k.setArg (a++, W); k.setArg (a++, H); k.setArg (a++, maxv); k.setArg (a++, cl_int4 {{0, 1, 2, 3}}); k.setArg (a++, black);
      /* CAPPED=1: a red gain below 1 (the kernel then caps each sample) */
      const double red = getenv ("CAPPED") ? 0.95 : 1.9;
      const cl_float8 gain = camera_gains (red * bs * gu, bs * gu, 1.45 * bs * gu, black);
      if (getenv ("OLDARGS"))   /* kernels before the float8 gain (FAST_LEVELS) */
        k.setArg (a++, cl_float4 {{gain.s[0], gain.s[1], gain.s[2], 0}});
      else
        k.setArg (a++, gain);
      k.setArg (a++, mat);
      if (getenv ("OLDARGS"))   /* kernels before the float16 tf (transfer_unit8) */
        k.setArg (a++, camera_curve_old (linear));
      else if (getenv ("OLDCURVE"))   /* kernels before transfer_offset8 */
        k.setArg (a++, camera_curve (linear, false));
      else
        k.setArg (a++, camera_curve (linear));
      k.setArg (a++, camera_yuv ());
      k.setArg (a++, cl_int4 {{W * H, W, 0, 0}}); stats_arg = a; k.setArg (a++, stats); k.setArg (a++, 77); k.setArg (a++, 3763); k.setArg (a++, totals);
      const int gx = (W + 7) / 8, gy = (H + rows - 1) / rows;
      global = cl::NDRange ((gx + lx - 1) / lx * lx, (gy + ly - 1) / ly * ly); local = cl::NDRange (lx, ly);
    }
    /* EVERY=N: statistics in one launch in N (the others with stats 0,
     * timed apart: "others"); FILL=1: the counters filled with zeros before
     * each launch with statistics, as the element does; READ=1: the
     * counters read back (without waiting, into pinned memory) after it, as
     * the element does; PIPE=1: launches enqueued back to back, not each
     * waited for */
    const int every = stats && getenv ("EVERY") ? std::max (1, atoi (getenv ("EVERY"))) : 1;
    const bool fill = getenv ("FILL") != nullptr, pipe = getenv ("PIPE") != nullptr;
    const bool read = getenv ("READ") != nullptr;
    /* POLL=1: statistics in a launch only when the last read has completed
     * (the element's rule; with READ=1) */
    const bool poll = getenv ("POLL") != nullptr;
    cl::Event reading;
    std::vector<double> ms, others;
    std::vector<std::pair<cl::Event, bool>> events;
    for (int i = 0; i < 20 + reps; i++) {
      const bool gather = stats && (poll ? !reading () || reading.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS> () == CL_COMPLETE : i % every == 0);
      if (stats_arg >= 0 && (every > 1 || poll)) k.setArg (stats_arg, (cl_int) gather);
      if (gather && fill) q.enqueueFillBuffer (totals, (cl_uint) 0, 0, 2048);
      if (rotate > 1) k.setArg (0, kind == "malvar" ? in8s[i % rotate] : in16s[i % rotate]);
      cl::Event ev; q.enqueueNDRangeKernel (k, cl::NullRange, global, local, nullptr, &ev);
      if (gather && read) q.enqueueReadBuffer (totals, CL_FALSE, 0, 2048, pinned_totals, nullptr, &reading);
      if (!pipe) ev.wait ();
      if (i >= 20) events.push_back ({ev, gather || !stats});
    }
    q.finish ();
    if (stats_arg >= 0 && (every > 1 || poll)) k.setArg (stats_arg, (cl_int) stats);
    for (auto &e : events)
      (e.second ? ms : others).push_back ((e.first.getProfilingInfo<CL_PROFILING_COMMAND_END> () - e.first.getProfilingInfo<CL_PROFILING_COMMAND_START> ()) / 1e6);
    std::sort (ms.begin (), ms.end ());
    std::sort (others.begin (), others.end ());
    // correctness vs first of the kind (nv12 / rgba)
    std::string diff = "";
    if (!plain) {
      const size_t bytes = kind == "rgba" ? (size_t) W * H * 4 : (size_t) W * H * 3 / 2;
      std::vector<uint8_t> o (bytes); q.enqueueReadBuffer (out, CL_TRUE, 0, bytes, o.data ());
      auto &r = ref_out[kind == "rgba"];
      const std::string rf = std::string (getenv ("REFDIR") ? getenv ("REFDIR") : ".") + "/ref-" + kind + ".bin";
      if (r.empty ()) { std::ifstream fi (rf, std::ios::binary); if (fi) { r.resize (bytes); fi.read ((char *) r.data (), bytes); } }
      if (r.empty ()) { r = o; diff = " (reference)"; std::ofstream fo (rf, std::ios::binary); fo.write ((const char *) o.data (), bytes); }
      else { int mx = 0; size_t n = 0; for (size_t i = 0; i < bytes; i++) { int d = std::abs ((int) o[i] - (int) r[i]); mx = std::max (mx, d); n += d != 0; } diff = " maxdiff " + std::to_string (mx) + " ndiff " + std::to_string (n); }
      if (stats) {
        q.enqueueFillBuffer (totals, (cl_uint) 0, 0, 2048); q.enqueueNDRangeKernel (k, cl::NullRange, global, local); q.finish ();
        std::vector<cl_uint> t (512); q.enqueueReadBuffer (totals, CL_TRUE, 0, 2048, t.data ());
        const bool old = getenv ("OLDSTATS") != nullptr;
        for (int c = 0; c < 4; c++) { unsigned long long sum = 0; for (int sl = 0; sl < 64; sl++) { unsigned long long lo = t[8 * sl + 2 * c], hi = t[8 * sl + 2 * c + 1]; sum += old ? (lo | hi << 32) : lo + (hi << 16); } diff += " " + std::to_string (sum); }
      }
    }
    printf ("%-28s median %.4f ms  min %.4f  p90 %.4f%s\n", name.c_str (), ms[ms.size () / 2], ms[0], ms[ms.size () * 9 / 10], diff.c_str ());
    if (!others.empty ())
      printf ("%-28s median %.4f ms  min %.4f  p90 %.4f (the launches without statistics; %zu with)\n", (name + "/others").c_str (), others[others.size () / 2], others[0], others[others.size () * 9 / 10], ms.size ());
    fflush (stdout);
  }
  return 0;
}
