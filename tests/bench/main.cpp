/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-opencl-bench: throughput, latency, kernel time and device limits of
 * the gst-opencl elements, with the peers on the same frames. See
 * docs/benchmarks.md. */
#include "report.h"
#include "suite.h"

#include <gst/opencl/gstcldevice.hpp>

#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>

using namespace bench;

static const char *kUsage =
    "usage: gst-opencl-bench [options]\n"
    "  --quick                 tiny run: 1080p, 4 frames, 1 repeat, 2 concurrent\n"
    "  --sizes LIST            1080p,4k,8k or WxH, comma-separated (default: all three)\n"
    "  --device SEL            OpenCL device (sets GST_OPENCL_DEVICE): gpu, gpu:1, cpu,\n"
    "                          an index or id (pci:..., uuid:...) as gst-opencl-info\n"
    "                          prints it, part of its name, or auto (contexts dealt\n"
    "                          over the GPUs)\n"
    "  --repeats N             runs of each case (default 5)\n"
    "  --frames N              frames a run (default 100), the first ones not timed\n"
    "  --warmup N              frames not timed (default: frames/10, 1..10)\n"
    "  --max-seconds S         stop feeding a run after S seconds (default 5)\n"
    "  --concurrent N          N pipelines at once on one device (default 8, 0: off)\n"
    "  --limit-mib N           bytes of the bandwidth tests in MiB (default 256)\n"
    "  --fresh-kernel-cache    empty driver kernel caches (PoCL, NVIDIA) for cold figures\n"
    "  --system-input          system-memory input frames even where the first element\n"
    "                          offers its (pinned) buffer pool\n"
    "  --only LIST             only the cases whose name contains one of these\n"
    "                          comma-separated substrings; =NAME matches NAME exactly\n"
    "  --device-seconds S      device-resident runs: time at least S seconds of frames\n"
    "                          (default 0.5)\n"
    "  --device-pipelines N    device-resident: then N pipelines together in one context\n"
    "                          for the device's frames/s, where one pipeline left it idle\n"
    "                          10 %% of the time or more (default 4; given: every case;\n"
    "                          0: off)\n"
    "  --concurrent-seconds S  window of the concurrent runs (default 2)\n"
    "Camera farm (docs/scale.md; runs the farm instead of the cases):\n"
    "  --farm-paced LIST       pipeline counts to run paced at the frame rate, e.g. 16,32,64\n"
    "  --farm-unpaced LIST     pipeline counts to run as fast as they go\n"
    "  --farm-ways WAYS        shared (one process, one context), processes (one each)\n"
    "                          or both (default)\n"
    "  --farm-contexts K       one process: the pipelines dealt out over K OpenCL contexts\n"
    "                          (default 1, the application's shared one); 0: none\n"
    "                          handed in, each pipeline makes its own on --device's\n"
    "                          device (with --device auto: dealt over the GPUs)\n"
    "  --farm-devices LIST     spread the pipelines over devices: selectors as the\n"
    "                          `device` property takes them (1,2 or pci:...) or auto\n"
    "                          (every device auto deals over); pipeline i on device\n"
    "                          i % D, each device with --farm-contexts K contexts;\n"
    "                          processes get GST_OPENCL_DEVICE likewise\n"
    "  --farm-until-late       paced counts: stop after the first with late or dropped frames\n"
    "  --farm-seconds S        measurement window (default 10), after --farm-warmup S (2)\n"
    "  --farm-format F         NV12 (default) or RGBA out\n"
    "  --farm-size WxH         camera size (default 1920x1080); --farm-fps N (default 30)\n"
    "  --list                  print the cases and exit\n"
    "  --json FILE             write the results as JSON\n"
    "  --markdown FILE         write the results as Markdown (else printed on stdout)\n"
    "The plugin is found through GST_PLUGIN_PATH.\n";

/* --only: empty selects every case; else one of its comma-separated
 * patterns matches (a substring, or the whole name after '='). */
static bool
selected (const std::string &only, const std::string &name)
{
  if (only.empty ())
    return true;
  size_t start = 0;
  while (start <= only.size ()) {
    size_t end = only.find (',', start);
    if (end == std::string::npos)
      end = only.size ();
    const std::string pattern = only.substr (start, end - start);
    if (!pattern.empty () && (pattern[0] == '=' ? name == pattern.substr (1) :
            name.find (pattern) != std::string::npos))
      return true;
    start = end + 1;
  }
  return false;
}

static bool
parse_size (const std::string &s, Size *out)
{
  if (s == "1080p")
    *out = {s, 1920, 1080};
  else if (s == "4k")
    *out = {s, 3840, 2160};
  else if (s == "8k")
    *out = {s, 7680, 4320};
  else if (std::sscanf (s.c_str (), "%dx%d", &out->width, &out->height) == 2 &&
      out->width > 0 && out->height > 0)
    out->name = s;
  else
    return false;
  return true;
}

static int
fail_usage (const std::string &why)
{
  std::fprintf (stderr, "gst-opencl-bench: %s\n%s", why.c_str (), kUsage);
  return 2;
}

static bool
parse_counts (const std::string &s, std::vector<int> *out)
{
  gchar **parts = g_strsplit (s.c_str (), ",", -1);
  bool ok = true;
  for (gchar **p = parts; *p && ok; p++) {
    char *end = nullptr;
    const long v = std::strtol (*p, &end, 10);
    ok = **p && !*end && v > 0 && v <= 4096;
    if (ok)
      out->push_back ((int) v);
  }
  g_strfreev (parts);
  return ok && !out->empty ();
}

struct ChildArgs {
  int index = -1, count = 1;
  bool paced = true;
};

static bool
parse_args (int argc, char **argv, Options *o, bool *list, std::string *error,
    FarmOptions *farm, ChildArgs *child)
{
  std::string sizes;
  int warmup = -1, repeats = -1, frames = -1, concurrent = -1, limit_mib = -1;
  double max_seconds = -1;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i], value;
    const size_t eq = a.find ('=');
    const bool has_eq = a.rfind ("--", 0) == 0 && eq != std::string::npos;
    if (has_eq) {
      value = a.substr (eq + 1);
      a = a.substr (0, eq);
    }
    auto next = [&] () -> bool {
      if (has_eq)
        return true;
      if (i + 1 >= argc) {
        *error = a + " needs a value";
        return false;
      }
      value = argv[++i];
      return true;
    };
    auto number = [&] (int *dst) -> bool {
      if (!next ())
        return false;
      char *end = nullptr;
      long v = std::strtol (value.c_str (), &end, 10);
      if (!*value.c_str () || *end || v < 0 || v > 1000000) {
        *error = "bad number for " + a + ": " + value;
        return false;
      }
      *dst = (int) v;
      return true;
    };
    if (a == "--quick")
      o->quick = true;
    else if (a == "--list")
      *list = true;
    else if (a == "--fresh-kernel-cache")
      o->fresh_kernel_cache = true;
    else if (a == "--system-input")
      o->system_input = true;
    else if (a == "--help" || a == "-h") {
      std::fputs (kUsage, stdout);
      std::exit (0);
    } else if (a == "--sizes") {
      if (!next ())
        return false;
      sizes = value;
    } else if (a == "--device") {
      if (!next ())
        return false;
      o->device = value;
    } else if (a == "--only") {
      if (!next ())
        return false;
      o->only = value;
    } else if (a == "--json") {
      if (!next ())
        return false;
      o->json_path = value;
    } else if (a == "--markdown") {
      if (!next ())
        return false;
      o->markdown_path = value;
    } else if (a == "--max-seconds") {
      if (!next ())
        return false;
      max_seconds = std::atof (value.c_str ());
    } else if (a == "--repeats") {
      if (!number (&repeats))
        return false;
    } else if (a == "--frames") {
      if (!number (&frames))
        return false;
    } else if (a == "--warmup") {
      if (!number (&warmup))
        return false;
    } else if (a == "--concurrent") {
      if (!number (&concurrent))
        return false;
    } else if (a == "--device-pipelines") {
      if (!number (&o->device_pipelines))
        return false;
      o->device_pipelines_given = true;
    } else if (a == "--limit-mib") {
      if (!number (&limit_mib))
        return false;
    } else if (a == "--device-seconds" || a == "--concurrent-seconds" ||
        a == "--farm-seconds" || a == "--farm-warmup") {
      if (!next ())
        return false;
      const double v = std::atof (value.c_str ());
      if (!(v >= 0 && v < 3600)) {
        *error = "bad number for " + a + ": " + value;
        return false;
      }
      (a == "--device-seconds" ? o->device_seconds : a == "--concurrent-seconds" ?
          o->concurrent_seconds : a == "--farm-seconds" ? farm->seconds :
          farm->warmup_seconds) = v;
    } else if (a == "--farm-paced" || a == "--farm-unpaced") {
      if (!next ())
        return false;
      if (!parse_counts (value, a == "--farm-paced" ? &farm->paced : &farm->unpaced)) {
        *error = "bad pipeline counts for " + a + ": " + value;
        return false;
      }
    } else if (a == "--farm-ways") {
      if (!next ())
        return false;
      farm->shared = value == "shared" || value == "both";
      farm->processes = value == "processes" || value == "both";
      if (!farm->shared && !farm->processes) {
        *error = "--farm-ways is shared, processes or both";
        return false;
      }
    } else if (a == "--farm-format") {
      if (!next ())
        return false;
      if (value != "NV12" && value != "RGBA") {
        *error = "--farm-format is NV12 or RGBA";
        return false;
      }
      farm->format = value;
    } else if (a == "--farm-size") {
      if (!next ())
        return false;
      Size z;
      if (!parse_size (value, &z)) {
        *error = "bad size " + value;
        return false;
      }
      farm->width = z.width;
      farm->height = z.height;
    } else if (a == "--farm-fps") {
      if (!number (&farm->fps))
        return false;
      if (farm->fps < 1) {
        *error = "--farm-fps must be at least 1";
        return false;
      }
    } else if (a == "--farm-contexts") {
      if (!number (&farm->contexts))
        return false;

    } else if (a == "--farm-devices") {
      if (!next ())
        return false;
      farm->devices.clear ();
      std::string item;
      for (size_t at = 0; at <= value.size (); at++)
        if (at == value.size () || value[at] == ',') {
          if (!item.empty ())
            farm->devices.push_back (item);
          item.clear ();
        } else {
          item += value[at];
        }
      if (farm->devices.empty ()) {
        *error = "--farm-devices needs a list of devices, e.g. 1,2 or auto";
        return false;
      }
    } else if (a == "--farm-until-late") {
      farm->until_late = true;
    } else if (a == "--farm-child") {
      if (!number (&child->index))
        return false;
    } else if (a == "--farm-child-count") {
      if (!number (&child->count))
        return false;
    } else if (a == "--farm-child-paced") {
      int v = 1;
      if (!number (&v))
        return false;
      child->paced = v != 0;
    } else {
      *error = "unknown option " + a;
      return false;
    }
  }
  if (o->quick) {
    o->repeats = 1;
    o->frames = 4;
    o->concurrent = 2;
    o->max_seconds = 2;
    o->limit_bytes = 16u << 20;
    o->limit_reps = 3;
    o->device_seconds = 0;
    o->device_pipelines = 2;
    o->concurrent_seconds = 0.5;
  }
  if (repeats >= 0)
    o->repeats = repeats;
  if (frames >= 0)
    o->frames = frames;
  if (concurrent >= 0)
    o->concurrent = concurrent;
  if (limit_mib >= 0)
    o->limit_bytes = (size_t) limit_mib << 20;
  if (max_seconds > 0)
    o->max_seconds = max_seconds;
  o->warmup = warmup >= 0 ? warmup : std::max (1, std::min (10, o->frames / 10));
  if (o->repeats < 1 || o->frames < o->warmup + 2 || o->limit_bytes == 0) {
    *error = "need --repeats >= 1, --frames >= warmup + 2 and --limit-mib >= 1";
    return false;
  }
  if (sizes.empty ())
    sizes = o->quick ? "1080p" : "1080p,4k,8k";
  gchar **parts = g_strsplit (sizes.c_str (), ",", -1);
  for (gchar **p = parts; *p; p++) {
    Size s;
    if (!parse_size (g_strstrip (*p), &s)) {
      *error = std::string ("bad size ") + *p;
      g_strfreev (parts);
      return false;
    }
    o->sizes.push_back (s);
  }
  g_strfreev (parts);
  return !o->sizes.empty ();
}

static std::string
fresh_kernel_cache ()
{
  gchar *dir = g_dir_make_tmp ("gst-opencl-bench-XXXXXX", nullptr);
  if (!dir)
    return "";
  std::string d = dir;
  g_free (dir);
  /* Read by the drivers when they start, i.e. before any OpenCL call. */
  g_setenv ("POCL_CACHE_DIR", (d + "/pocl").c_str (), TRUE);
  g_setenv ("CUDA_CACHE_PATH", (d + "/nv").c_str (), TRUE);
  return d;
}

static std::string
host_description ()
{
  struct utsname u;
  std::string s = uname (&u) == 0 ? std::string (u.sysname) + " " + u.release + " " +
      u.machine : "unknown";
  return s + ", " + std::to_string (sysconf (_SC_NPROCESSORS_ONLN)) + " CPUs";
}

static std::string
now_iso ()
{
  char buf[64];
  const std::time_t t = std::time (nullptr);
  std::strftime (buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime (&t));
  return buf;
}

/* The benchmark's own context on the device, wrapped for the pipelines. */
static GstClContext *
wrap_context (const cl::Context &ctx, const gstcl::DeviceEntry &dev, const cl::CommandQueue &q)
{
  GError *err = nullptr;
  GstClContext *c = gst_cl_context_new_wrapped (ctx (), dev.device (), q (), &err);
  if (!c) {
    std::fprintf (stderr, "cannot wrap the OpenCL context: %s\n", err ? err->message : "?");
    g_clear_error (&err);
  }
  return c;
}

static bool
write_file (const std::string &path, const std::string &text)
{
  std::ofstream f (path);
  f << text;
  f.close ();
  if (!f) {
    std::fprintf (stderr, "gst-opencl-bench: cannot write %s\n", path.c_str ());
    return false;
  }
  return true;
}

int
main (int argc, char **argv)
{
  farm_keep_environment ();
  Suite suite;
  bool list = false;
  std::string error;
  ChildArgs child;
  if (!parse_args (argc, argv, &suite.opt, &list, &error, &suite.farm_opt, &child))
    return fail_usage (error);
  const Options &opt = suite.opt;
  const bool farm = !suite.farm_opt.paced.empty () || !suite.farm_opt.unpaced.empty ();
  const std::string cache_dir = opt.fresh_kernel_cache ? fresh_kernel_cache () : "";
  if (!opt.device.empty ())
    g_setenv ("GST_OPENCL_DEVICE", opt.device.c_str (), TRUE);
  gst_init (&argc, &argv);

  if (child.index >= 0) {
    /* one pipeline of --farm-ways processes, started by the benchmark */
    const int rc = farm_child (suite.farm_opt, child.paced, child.index, child.count);
    gst_deinit ();
    return rc;
  }
  if (list) {
    for (const Case &c : all_cases ())
      std::printf ("%-40s %s\n  system: %s\n  device: %s\n", c.name.c_str (), c.caps.c_str (),
          c.sys.empty () ? "-" : c.sys.c_str (), c.dev.empty () ? "-" : c.dev.c_str ());
    return 0;
  }
  if (!missing_elements ("clupload ! clsobel ! cldownload").empty ()) {
    std::fprintf (stderr, "gst-opencl-bench: the gst-opencl plugin is not found; set "
        "GST_PLUGIN_PATH to the folder of libgstopencl.so\n");
    return 1;
  }

  Environment env;
  try {
    env.device = gstcl::select_device ("");
  } catch (const std::exception &e) {
    std::fprintf (stderr, "gst-opencl-bench: %s\n", e.what ());
    return 1;
  }
  guint major, minor, micro, nano;
  gst_version (&major, &minor, &micro, &nano);
  env.gstreamer = std::to_string (major) + "." + std::to_string (minor) + "." +
      std::to_string (micro) + (nano ? "." + std::to_string (nano) : "");
  env.host = host_description ();
  env.date = now_iso ();
  for (int i = 0; i < argc; i++)
    env.command_line += (i ? " " : "") + std::string (argv[i]);
  std::fprintf (stderr, "device: %s (%s, %s, driver %s); GStreamer %s\n",
      env.device.full_name ().c_str (), env.device.type_name (), env.device.version.c_str (),
      env.device.driver_version.c_str (), env.gstreamer.c_str ());

  cl::Context cl_ctx;
  cl::CommandQueue cl_queue, cl_plain_queue;
  try {
    cl_ctx = cl::Context (env.device.device);
    cl_queue = cl::CommandQueue (cl_ctx, env.device.device, CL_QUEUE_PROFILING_ENABLE);
    cl_plain_queue = cl::CommandQueue (cl_ctx, env.device.device);
    suite.profiling_context = wrap_context (cl_ctx, env.device, cl_queue);
    suite.shared_context = wrap_context (cl_ctx, env.device, cl_plain_queue);
    std::fprintf (stderr, "measuring device limits with %zu MiB...\n", opt.limit_bytes >> 20);
    suite.limits = measure_limits (cl_ctx, env.device.device, cl_queue, opt.limit_bytes,
        opt.limit_reps);
  } catch (const cl::Error &e) {
    suite.limits.error = gstcl::describe (e);
  }
  const Limits &l = suite.limits;
  if (l.ok)
    std::fprintf (stderr, "limits: copy %.1f GB/s, h2d %.1f / d2h %.1f GB/s pinned, "
        "%.1f / %.1f GB/s malloc\n", l.copy_gbps, l.h2d_pinned_gbps, l.d2h_pinned_gbps,
        l.h2d_malloc_gbps, l.d2h_malloc_gbps);
  else
    std::fprintf (stderr, "limits not measured: %s\n", l.error.c_str ());

  /* Size by size, so that an interrupted run has whole sizes. */
  const Case *concurrent_case = nullptr;
  for (const Case &c : all_cases ())
    if (c.name == concurrent_case_name ())
      concurrent_case = &c;
  size_t concurrent_size = 0;
  for (size_t i = 0; i < opt.sizes.size (); i++)
    if (opt.sizes[i].name == "4k")
      concurrent_size = i;
  if (farm) {
    gchar *exe = g_file_read_link ("/proc/self/exe", nullptr);
    suite.farm = run_farm (suite.farm_opt, suite.shared_context, suite.limits,
        exe ? exe : argv[0]);
    g_free (exe);
  }
  for (size_t i = 0; i < opt.sizes.size () && !farm; i++) {
    const Size &size = opt.sizes[i];
    for (const Case &c : all_cases ()) {
      if (!selected (opt.only, c.name) || (opt.quick && c.heavy))
        continue;
      if (!c.sys.empty ())
        suite.run_case (c, size, Mode::SYSTEM);
      if (!c.dev.empty ())
        suite.run_case (c, size, Mode::DEVICE);
    }
    if (i == concurrent_size && opt.concurrent > 0 && concurrent_case &&
        selected (opt.only, concurrent_case->name))
      for (bool shared : {false, true})
        suite.run_concurrent (*concurrent_case, size, opt.concurrent, shared);
  }

  bool ok = true;
  const std::string md = report_markdown (suite, env);
  if (!opt.json_path.empty ())
    ok = write_file (opt.json_path, report_json (suite, env).dump (2) + "\n") && ok;
  if (!opt.markdown_path.empty ())
    ok = write_file (opt.markdown_path, md) && ok;
  else
    std::fputs (md.c_str (), stdout);

  if (suite.profiling_context)
    gst_object_unref (suite.profiling_context);
  if (suite.shared_context)
    gst_object_unref (suite.shared_context);
  if (!cache_dir.empty ()) {
    std::error_code ec;
    std::filesystem::remove_all (cache_dir, ec);
  }
  gst_deinit ();
  return ok ? 0 : 1;
}
