/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstclcontext.h"
#include "gstcl.hpp"
#include "gstcldevice.hpp"
#include "gstclwatchdog-private.hpp"
#include "gstcl-debug.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

/* A program of the cache. `building` is held while it is compiled, so that
 * a second caller waits for the first one's build; `built` and `program`
 * are guarded by the context's programs_lock. Entries live as long as the
 * context. */
struct ProgramEntry {
  std::mutex building;
  bool built = false;
  cl::Program program;
};

struct ClContextPriv {
  cl::Context context;
  cl::Device device;
  cl::CommandQueue queue;
  std::string name;
  bool unified = false;
  bool profiling = false;  /* the queue has CL_QUEUE_PROFILING_ENABLE */
  std::mutex programs_lock;   /* the map and its entries' `built` and `program` */
  std::map<std::pair<std::string, std::string>, std::unique_ptr<ProgramEntry>> programs;
  bool gpu_tuning = false;
  /* the queue's launches and whether it was abandoned (gstclwatchdog.hpp) */
  std::shared_ptr<gstcl::watchdog::QueueWatch> watch;
  /* counts this context on its device, for device=auto's choice */
  std::unique_ptr<gstcl::DeviceClaim> claim;
  /* the frames' banded uploads and downloads (gstclbands.hpp), made at
   * their first use */
  std::once_flag copy_queues_once;
  cl::CommandQueue copy_queues[2];
  /* background builds compile first in a context of their own
   * (warm_driver_cache), made at the first one */
  bool warm_builds = false;
  std::mutex warm_lock;
  cl::Context warm_context;
};

struct _GstClContext {
  GstObject parent;
  ClContextPriv *priv;
};

G_DEFINE_TYPE (GstClContext, gst_cl_context, GST_TYPE_OBJECT)

static std::atomic<unsigned> n_program_builds{0};
static std::atomic<unsigned> n_warm_builds{0};
static std::atomic<unsigned> n_program_lookups{0};

static void
gst_cl_context_finalize (GObject * object)
{
  GstClContext *self = GST_CL_CONTEXT (object);
  auto *p = self->priv;
  /* Never released under a kernel that still runs (a runaway one, or one a
   * state change stopped waiting for): the watchdog keeps what it may use. */
  std::vector<cl::Program> programs;
  for (const auto &entry : p->programs)
    if (entry.second->built)
      programs.push_back (entry.second->program);
  if (p->watch && gstcl::watchdog::keep_if_busy (p->watch, p->context, programs))
    GST_CAT_INFO (gst_cl_runtime_debug, "context %p on %s freed, its queue kept", self,
        p->name.c_str ());
  delete p;
  G_OBJECT_CLASS (gst_cl_context_parent_class)->finalize (object);
}

static void
gst_cl_context_class_init (GstClContextClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_cl_context_finalize;
  gst_cl_debug_init ();
}

static void
gst_cl_context_init (GstClContext * self)
{
  self->priv = new ClContextPriv ();
}

/* `claim`: the device's count select_device() made for it, else one is
 * made here. */
static GstClContext *
context_from (cl::Context context, cl::Device device, cl::CommandQueue queue,
    std::unique_ptr<gstcl::DeviceClaim> claim = nullptr)
{
  auto *self = GST_CL_CONTEXT (g_object_new (GST_TYPE_CL_CONTEXT, nullptr));
  gst_object_ref_sink (self);
  auto *p = self->priv;
  p->claim = claim ? std::move (claim) : std::unique_ptr<gstcl::DeviceClaim> (
      new gstcl::DeviceClaim (device ()));
  p->context = std::move (context);
  p->device = std::move (device);
  p->queue = std::move (queue);
  cl::Platform platform (p->device.getInfo<CL_DEVICE_PLATFORM> ());
  p->name = platform.getInfo<CL_PLATFORM_NAME> () + " / " +
      p->device.getInfo<CL_DEVICE_NAME> ();
  /* Drivers may count the terminating NUL in the string length. */
  p->name.erase (std::find (p->name.begin (), p->name.end (), '\0'), p->name.end ());
  p->unified = p->device.getInfo<CL_DEVICE_HOST_UNIFIED_MEMORY> () != CL_FALSE;
  /* GST_OPENCL_MEMORY=staging|mapped forces one host-access strategy, so that
   * both are tested on any device. */
  const gchar *mode = g_getenv ("GST_OPENCL_MEMORY");
  if (!g_strcmp0 (mode, "staging"))
    p->unified = false;
  else if (!g_strcmp0 (mode, "mapped"))
    p->unified = true;
  /* GST_OPENCL_TUNING=gpu|cpu picks the kernel shapes of the other kind of
   * device, so that the tests run every variant on any device. */
  p->gpu_tuning = (p->device.getInfo<CL_DEVICE_TYPE> () & CL_DEVICE_TYPE_GPU) != 0;
  const gchar *tuning = g_getenv ("GST_OPENCL_TUNING");
  if (!g_strcmp0 (tuning, "gpu"))
    p->gpu_tuning = true;
  else if (!g_strcmp0 (tuning, "cpu"))
    p->gpu_tuning = false;
  /* NVIDIA's driver: its JIT cache spares the second compile
   * (warm_driver_cache) */
  p->warm_builds = platform.getInfo<CL_PLATFORM_NAME> ().find ("NVIDIA") != std::string::npos;
  p->profiling = (p->queue.getInfo<CL_QUEUE_PROPERTIES> () & CL_QUEUE_PROFILING_ENABLE) != 0;
  p->watch = gstcl::watchdog::watch_queue (p->queue, p->name);
  gstcl::watchdog::release_completed ();
  GST_CAT_INFO (gst_cl_runtime_debug, "new context %p on %s (%s memory)", self,
      p->name.c_str (), p->unified ? "unified" : "discrete");
  return self;
}

GstClContext *
gst_cl_context_new (const gchar * selector, GError ** error)
{
  try {
    /* Counted on its device from the choice on, so that `auto` deals
     * pipelines started together over the devices. */
    std::unique_ptr<gstcl::DeviceClaim> claim;
    gstcl::DeviceEntry entry = gstcl::select_device (selector ? selector : "", &claim);
    cl::Context context (entry.device);
    cl::CommandQueue queue (context, entry.device);
    return context_from (context, entry.device, queue, std::move (claim));
  } catch (const cl::Error & e) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "could not create an OpenCL context: %s", gstcl::describe (e).c_str ());
  } catch (const std::exception & e) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "%s", e.what ());
  }
  return nullptr;
}

GstClContext *
gst_cl_context_new_wrapped (cl_context context, cl_device_id device,
    cl_command_queue queue, GError ** error)
{
  g_return_val_if_fail (context != nullptr && device != nullptr, nullptr);
  try {
    cl::Context ctx (context, true);
    cl::Device dev (device, true);
    cl::CommandQueue q = queue ? cl::CommandQueue (queue, true) :
        cl::CommandQueue (ctx, dev);
    if (q.getInfo<CL_QUEUE_PROPERTIES> () & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "the command queue given must be in-order");
      return nullptr;
    }
    return context_from (ctx, dev, q);
  } catch (const cl::Error & e) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "could not wrap the OpenCL context: %s", gstcl::describe (e).c_str ());
  }
  return nullptr;
}

cl_context
gst_cl_context_get_cl_context (GstClContext * context)
{
  g_return_val_if_fail (GST_IS_CL_CONTEXT (context), nullptr);
  return context->priv->context ();
}

cl_device_id
gst_cl_context_get_cl_device (GstClContext * context)
{
  g_return_val_if_fail (GST_IS_CL_CONTEXT (context), nullptr);
  return context->priv->device ();
}

cl_command_queue
gst_cl_context_get_cl_queue (GstClContext * context)
{
  g_return_val_if_fail (GST_IS_CL_CONTEXT (context), nullptr);
  return context->priv->queue ();
}

const gchar *
gst_cl_context_get_device_name (GstClContext * context)
{
  g_return_val_if_fail (GST_IS_CL_CONTEXT (context), nullptr);
  return context->priv->name.c_str ();
}

gboolean
gst_cl_context_has_unified_memory (GstClContext * context)
{
  g_return_val_if_fail (GST_IS_CL_CONTEXT (context), FALSE);
  return context->priv->unified;
}

gboolean
gst_cl_context_is_abandoned (GstClContext * context)
{
  g_return_val_if_fail (GST_IS_CL_CONTEXT (context), FALSE);
  return gstcl::watchdog::abandoned (*context->priv->watch);
}

gboolean
gst_cl_context_matches (GstClContext * context, const gchar * selector)
{
  g_return_val_if_fail (GST_IS_CL_CONTEXT (context), FALSE);
  if (gst_cl_context_is_abandoned (context))
    return FALSE;   /* a runaway kernel holds its queue */
  if (!selector || gstcl::selector_takes_any (selector))
    return TRUE;   /* not set, or `auto`: whichever context the pipeline has */
  try {
    return gstcl::select_device (selector).device () == context->priv->device ();
  } catch (const std::exception &) {
    return FALSE;
  }
}

/* ---- GstContext ---- */

GstContext *
gst_context_new_cl_context (GstClContext * context)
{
  GstContext *c = gst_context_new (GST_CL_CONTEXT_TYPE_STR, TRUE);
  gst_structure_set (gst_context_writable_structure (c), "context",
      GST_TYPE_CL_CONTEXT, context, nullptr);
  return c;
}

gboolean
gst_context_get_cl_context (GstContext * context, GstClContext ** out)
{
  g_return_val_if_fail (GST_IS_CONTEXT (context) && out != nullptr, FALSE);
  if (g_strcmp0 (gst_context_get_context_type (context), GST_CL_CONTEXT_TYPE_STR))
    return FALSE;
  const GstStructure *s = gst_context_get_structure (context);
  return gst_structure_get (s, "context", GST_TYPE_CL_CONTEXT, out, nullptr);
}

void
gst_cl_handle_set_context (GstElement * element, GstContext * context,
    const gchar * selector, GstClContext ** stored)
{
  GstClContext *candidate = nullptr;
  if (!context || !gst_context_get_cl_context (context, &candidate))
    return;
  if (!gst_cl_context_matches (candidate, selector)) {
    GST_CAT_INFO_OBJECT (gst_cl_runtime_debug, element,
        "ignoring context on %s: %s", gst_cl_context_get_device_name (candidate),
        gst_cl_context_is_abandoned (candidate) ? "its queue was abandoned" :
        "it is not the device asked for");
    gst_object_unref (candidate);
    return;
  }
  GST_OBJECT_LOCK (element);
  GstClContext *old = *stored;
  *stored = candidate;
  GST_OBJECT_UNLOCK (element);
  GST_CAT_DEBUG_OBJECT (gst_cl_runtime_debug, element, "using context %p on %s",
      candidate, gst_cl_context_get_device_name (candidate));
  if (old)
    gst_object_unref (old);
}

gboolean
gst_cl_handle_context_query (GstElement * element, GstQuery * query,
    GstClContext * context)
{
  const gchar *type = nullptr;
  if (GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT || !context ||
      gst_cl_context_is_abandoned (context) ||
      !gst_query_parse_context_type (query, &type) ||
      g_strcmp0 (type, GST_CL_CONTEXT_TYPE_STR))
    return FALSE;
  GstContext *c = gst_context_new_cl_context (context);
  gst_query_set_context (query, c);
  gst_context_unref (c);
  GST_CAT_LOG_OBJECT (gst_cl_runtime_debug, element, "answered context query");
  return TRUE;
}

static gboolean
peer_query_fold (const GValue * item, GValue * result, gpointer query)
{
  GstPad *pad = GST_PAD (g_value_get_object (item));
  if (gst_pad_peer_query (pad, GST_QUERY (query))) {
    g_value_set_boolean (result, TRUE);
    return FALSE;
  }
  return TRUE;
}

static gboolean
query_peers (GstElement * element, GstQuery * query, GstPadDirection direction)
{
  GstIterator *it = direction == GST_PAD_SRC ?
      gst_element_iterate_src_pads (element) : gst_element_iterate_sink_pads (element);
  GValue res = G_VALUE_INIT;
  g_value_init (&res, G_TYPE_BOOLEAN);
  while (gst_iterator_fold (it, peer_query_fold, &res, query) == GST_ITERATOR_RESYNC)
    gst_iterator_resync (it);
  gst_iterator_free (it);
  return g_value_get_boolean (&res);
}

/* Whether *context holds a usable context: one whose queue was abandoned
 * is dropped (a new start must not reuse it). */
static bool
have_context (GstElement * element, GstClContext ** context)
{
  GstClContext *dropped = nullptr;
  GST_OBJECT_LOCK (element);
  if (*context && gst_cl_context_is_abandoned (*context)) {
    dropped = *context;
    *context = nullptr;
  }
  bool have = *context != nullptr;
  GST_OBJECT_UNLOCK (element);
  if (dropped) {
    GST_CAT_INFO_OBJECT (gst_cl_runtime_debug, element, "dropping context on %s: its "
        "queue was abandoned", gst_cl_context_get_device_name (dropped));
    gst_object_unref (dropped);
  }
  return have;
}

gboolean
gst_cl_ensure_element_context (GstElement * element, const gchar * selector,
    GstClContext ** context)
{
  g_return_val_if_fail (GST_IS_ELEMENT (element) && context, FALSE);
  if (have_context (element, context))
    return TRUE;

  /* Neighbours downstream, then upstream; set_context keeps a matching one. */
  for (GstPadDirection dir : {GST_PAD_SRC, GST_PAD_SINK}) {
    GstQuery *query = gst_query_new_context (GST_CL_CONTEXT_TYPE_STR);
    if (query_peers (element, query, dir)) {
      GstContext *c = nullptr;
      gst_query_parse_context (query, &c);
      if (c)
        gst_element_set_context (element, c);
    }
    gst_query_unref (query);
    if (have_context (element, context))
      return TRUE;
  }

  /* The bin answers with a context it has seen; an application may answer
   * from a synchronous bus handler. */
  gst_element_post_message (element, gst_message_new_need_context (GST_OBJECT (element),
          GST_CL_CONTEXT_TYPE_STR));
  if (have_context (element, context))
    return TRUE;

  GError *error = nullptr;
  GstClContext *created = gst_cl_context_new (selector, &error);
  if (!created) {
    GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND,
        ("No usable OpenCL device: %s", error->message),
        ("device selector '%s' (GST_OPENCL_DEVICE='%s')", selector ? selector : "",
            g_getenv ("GST_OPENCL_DEVICE") ? g_getenv ("GST_OPENCL_DEVICE") : ""));
    g_clear_error (&error);
    return FALSE;
  }
  GST_CAT_INFO_OBJECT (gst_cl_runtime_debug, element, "created context on %s",
      gst_cl_context_get_device_name (created));
  GST_OBJECT_LOCK (element);
  GstClContext *old = *context;
  *context = created;
  GST_OBJECT_UNLOCK (element);
  if (old)
    gst_object_unref (old);

  GstContext *c = gst_context_new_cl_context (created);
  gst_element_post_message (element, gst_message_new_have_context (GST_OBJECT (element), c));
  return TRUE;
}

/* ---- C++ API ---- */

namespace gstcl {

/* gstclprofile.cpp: count the command's device time when its event completes. */
void track_kernel (const cl::Kernel &kernel, const cl::Event &event, const char *suffix);
void track_command (const std::string &command, const cl::Event &event);

const cl::Context &context_of (GstClContext *ctx) { return ctx->priv->context; }
const cl::Device &device_of (GstClContext *ctx) { return ctx->priv->device; }
const cl::CommandQueue &queue_of (GstClContext *ctx) { return ctx->priv->queue; }

const cl::CommandQueue &copy_queue (GstClContext *ctx, CopyDirection direction)
{
  ClContextPriv *p = ctx->priv;
  std::call_once (p->copy_queues_once, [p] {
        for (cl::CommandQueue &q : p->copy_queues)
          q = cl::CommandQueue (p->context, p->device);
      });
  return p->copy_queues[direction];
}
watchdog::QueueWatch *watch_of (GstClContext *ctx) { return ctx->priv->watch.get (); }
unsigned program_builds () { return n_program_builds.load (); }
unsigned warm_builds () { return n_warm_builds.load (); }
unsigned program_lookups () { return n_program_lookups.load (); }
void count_program_lookup () { n_program_lookups++; }
bool tuned_for_gpu (GstClContext *ctx) { return ctx->priv->gpu_tuning; }

cl_event *profile_event (GstClContext *ctx, cl_event *event)
{
  *event = nullptr;
  return ctx->priv->profiling ? event : nullptr;
}

void profile_command (GstClContext *ctx, const char *name, cl_event event)
{
  if (!event)
    return;
  const cl::Event owned (event);   /* takes the enqueue's reference */
  if (ctx->priv->profiling)
    track_command (name, owned);
}

/* LaunchRecord */
static thread_local struct {
  bool on = false;
  cl::Event last;
} launches;

void enqueue_2d (GstClContext *ctx, const cl::Kernel &kernel, size_t w, size_t h,
    size_t lw, size_t lh, const char *profile_suffix)
{
  enqueue_2d_rows (ctx, kernel, w, 0, h, lw, lh, profile_suffix);
}

void enqueue_2d_rows (GstClContext *ctx, const cl::Kernel &kernel, size_t w, size_t y0,
    size_t y1, size_t lw, size_t lh, const char *profile_suffix)
{
  if (w == 0 || y1 <= y0)
    return;
  auto up = [] (size_t v, size_t m) { return (v + m - 1) / m * m; };
  const cl::NDRange global (up (w, lw), up (y1 - y0, lh)), local (lw, lh);
  watchdog::before_launch (*ctx->priv->watch);
  cl::Event event;
  ctx->priv->queue.enqueueNDRangeKernel (kernel, y0 ? cl::NDRange (0, y0) : cl::NullRange,
      global, local, nullptr, &event);
  if (ctx->priv->profiling)
    track_kernel (kernel, event, profile_suffix);
  watchdog::after_launch (*ctx->priv->watch, kernel, profile_suffix, event);
  if (launches.on)
    launches.last = std::move (event);
}

LaunchRecord::LaunchRecord ()
{
  launches.on = true;
  launches.last = cl::Event ();
}

LaunchRecord::~LaunchRecord ()
{
  launches.on = false;
  launches.last = cl::Event ();
}

cl::Event
take_last_launch ()
{
  cl::Event last = std::move (launches.last);
  launches.last = cl::Event ();
  return last;
}

/* The element that announces this thread's builds (BuildScope). */
static thread_local GstElement *announcing_element = nullptr;

BuildScope::BuildScope (GstElement *element) : previous_ (announcing_element)
{
  announcing_element = element;
}

BuildScope::~BuildScope ()
{
  announcing_element = previous_;
}

GstElement *
BuildScope::current ()
{
  return announcing_element;
}

/* "debayer_cells" or "convolve_direct (and 9 more kernels)": the kernels
 * the source defines, for a build announced without a name. */
static std::string
kernels_of (const std::string &source)
{
  static const std::string intro = "__kernel void ";
  auto is_name = [] (char c) { return g_ascii_isalnum (c) || c == '_'; };
  std::string first;
  int count = 0;
  for (size_t at = source.find (intro); at != std::string::npos;
      at = source.find (intro, at + 1)) {
    size_t begin = source.find_first_not_of (" \t\r\n", at + intro.size ());
    size_t end = begin;
    while (end < source.size () && is_name (source[end]))
      end++;
    if (begin == std::string::npos || end == begin)
      continue;
    if (count++ == 0)
      first = source.substr (begin, end - begin);
  }
  if (count == 0)
    return "program";
  return count == 1 ? first : first + " (and " + std::to_string (count - 1) +
      " more kernels)";
}

/* The name a build is announced and logged with. */
static std::string
build_name (const std::string &what, const std::string &source)
{
  return what.empty () ? kernels_of (source) : what;
}

/* Says on the bus (from `element`, if any) and in the log that a program is
 * being compiled. */
static void
announce (GstElement *element, ClContextPriv *p, const std::string &name,
    const std::string &full_options)
{
  GST_CAT_INFO (gst_cl_runtime_debug, "building %s on %s, options '%s'", name.c_str (),
      p->name.c_str (), full_options.c_str ());
  if (!element)
    return;
  /* gst-launch prints the debug string of INFO messages: the whole text. */
  const std::string text = "Building the OpenCL program " + name + " for " + p->name +
      " (a first build can take seconds)";
  GST_ELEMENT_INFO (element, LIBRARY, INIT, ("%s", text.c_str ()),
      ("%s; build options '%s'", text.c_str (), full_options.c_str ()));
}

static std::string
full_options_of (const std::string &options)
{
  /* GST_OPENCL_EXTRA_BUILD_OPTIONS: options for every build (a driver's
   * diagnostics: -cl-nv-verbose puts ptxas's registers and spills into the
   * build log, which the clruntime category shows at DEBUG) */
  static const char *extra = g_getenv ("GST_OPENCL_EXTRA_BUILD_OPTIONS");
  return "-cl-std=CL1.2 " + options + (extra ? std::string (" ") + extra : std::string ());
}

/* For BackgroundBuild, which announces from the streaming thread the build
 * that its thread makes quietly. */
void announce_build (GstElement *element, GstClContext *ctx, const std::string &what,
    const std::string &source, const std::string &options)
{
  announce (element, ctx->priv, build_name (what, source), full_options_of (options));
}

/* cached_program() and program() without counting a lookup: BackgroundBuild
 * counts its start() as one. */
cl::Program find_program (GstClContext *ctx, const std::string &source,
    const std::string &options)
{
  auto *p = ctx->priv;
  std::lock_guard<std::mutex> lock (p->programs_lock);
  auto it = p->programs.find (std::make_pair (source, options));
  return it != p->programs.end () && it->second->built ? it->second->program :
      cl::Program ();
}

cl::Program cached_program (GstClContext *ctx, const std::string &source,
    const std::string &options)
{
  n_program_lookups++;
  return find_program (ctx, source, options);
}

/* For BackgroundBuild: compiles `source` in the device's warm context, so
 * that the build in the context itself, which follows, finds the machine
 * code in the driver's cache. NVIDIA's driver holds a lock of the context
 * while it compiles a program's PTX into machine code, which stalls the
 * streaming threads' calls on that context (a 3 KB upload waited 0.36-0.60
 * s of a 0.9-1.4 s build with an empty ~/.nv/ComputeCache: docs/
 * architecture.md, "Kernels and programs"); the warm context's lock
 * stalls nobody.
 * Failures are left to the real build to report. */
void warm_driver_cache (GstClContext *ctx, const std::string &source,
    const std::string &options, const std::string &what)
{
  auto *p = ctx->priv;
  /* GST_OPENCL_WARM_BUILDS=0|1 overrides the driver's choice (tests; read
   * at each build, which is rare) */
  const gchar *asked = g_getenv ("GST_OPENCL_WARM_BUILDS");
  if (asked ? !g_strcmp0 (asked, "0") : !p->warm_builds)
    return;
  const gint64 start_us = g_get_monotonic_time ();
  try {
    cl::Context warm;
    {
      std::lock_guard<std::mutex> lock (p->warm_lock);
      if (!p->warm_context ())
        p->warm_context = cl::Context (p->device);
      warm = p->warm_context;
    }
    cl::Program prog (warm, source);
    prog.build (std::vector<cl::Device>{p->device}, full_options_of (options).c_str ());
    n_warm_builds++;
  } catch (const cl::Error & e) {
    GST_CAT_DEBUG (gst_cl_runtime_debug, "warm build of %s: %s", build_name (what,
            source).c_str (), describe (e).c_str ());
    return;
  }
  GST_CAT_INFO (gst_cl_runtime_debug, "warmed the driver's cache for %s on %s in %.1f ms",
      build_name (what, source).c_str (), p->name.c_str (),
      (g_get_monotonic_time () - start_us) / 1000.0);
}

cl::Program build_program (GstClContext *ctx, const std::string &source,
    const std::string &options, const std::string &what)
{
  auto *p = ctx->priv;
  ProgramEntry *entry;
  {
    std::lock_guard<std::mutex> lock (p->programs_lock);
    auto &slot = p->programs[std::make_pair (source, options)];
    if (!slot)
      slot.reset (new ProgramEntry ());
    entry = slot.get ();
    if (entry->built) {
      GST_CAT_LOG (gst_cl_runtime_debug, "program cache hit, options '%s'", options.c_str ());
      return entry->program;
    }
  }
  /* Held while building, so that two elements never build the same program;
   * other programs build in parallel. */
  std::lock_guard<std::mutex> building (entry->building);
  {
    std::lock_guard<std::mutex> lock (p->programs_lock);
    if (entry->built)
      return entry->program;  /* built while this thread waited */
  }

  const std::string name = build_name (what, source);
  const std::string full_options = full_options_of (options);
  announce (announcing_element, p, name, full_options);
  cl::Program prog (p->context, source);
  const gint64 start_us = g_get_monotonic_time ();
  try {
    prog.build (std::vector<cl::Device>{p->device}, full_options.c_str ());
  } catch (const cl::Error & e) {
    std::string log;
    try {
      log = prog.getBuildInfo<CL_PROGRAM_BUILD_LOG> (p->device);
    } catch (const cl::Error &) {
    }
    throw BuildError ("OpenCL program build failed (" + describe (e) +
        ") with options '" + full_options + "'; build log:\n" + log);
  }
  n_program_builds++;
  GST_CAT_INFO (gst_cl_runtime_debug, "built %s on %s in %.1f ms, options '%s'",
      name.c_str (), p->name.c_str (), (g_get_monotonic_time () - start_us) / 1000.0,
      full_options.c_str ());
  if (gst_debug_category_get_threshold (gst_cl_runtime_debug) >= GST_LEVEL_DEBUG) {
    try {
      GST_CAT_DEBUG (gst_cl_runtime_debug, "build log of %s:\n%s", name.c_str (),
          prog.getBuildInfo<CL_PROGRAM_BUILD_LOG> (p->device).c_str ());
    } catch (const cl::Error &) {
    }
  }
  std::lock_guard<std::mutex> lock (p->programs_lock);
  entry->program = prog;
  entry->built = true;
  return prog;
}

cl::Program program (GstClContext *ctx, const std::string &source,
    const std::string &options, const std::string &what)
{
  n_program_lookups++;
  return build_program (ctx, source, options, what);
}

}  // namespace gstcl
