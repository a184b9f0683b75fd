/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-clkernel
 * @title: clkernel
 *
 * Runs OpenCL C code given at run time once per pixel, on any OpenCL device:
 * the OpenCL counterpart of glshader. The code defines
 *
 * |[
 * float4 filter (image_t img, int x, int y)
 * ]|
 *
 * which returns the output pixel (x, y) as RGBA, each channel in 0..1. The
 * element supplies the rest: `img.width`, `img.height`, and sampling helpers
 * that hide the buffer's format, strides and channel order:
 *
 * - `float4 read_pixel (image_t img, int x, int y)`: RGBA in 0..1, coordinates
 *   clamped to the image (replicated edges);
 * - `float4 read_pixel_border (image_t img, int x, int y, int border)` with
 *   BORDER_REPLICATE, BORDER_REFLECT (dcb|abcd|cba) or BORDER_CONSTANT
 *   (outside is (0, 0, 0, 0));
 * - `uchar4 read_pixel_u8 (image_t img, int x, int y)`: the bytes 0..255,
 *   clamped; `read_pixel_u8_unchecked` for coordinates known to be inside;
 * - `bool in_image (image_t img, int x, int y)`.
 *
 * The code always sees RGBA: GRAY8 reads as (v, v, v, 1) and its output
 * takes the red channel; formats without alpha (RGB, BGR, RGBx, ...) read
 * alpha as 1, and their padding byte is written as 255. Each output channel
 * is stored as convert_uchar_sat_rte (c * 255.0f): rounded to nearest (ties
 * to even) and saturated. Without code (`source` and `location` unset or
 * empty) the element copies its input: the identity filter
 * `return read_pixel (img, x, y);`.
 *
 * `source` (and `location`, `build-options`) may change while playing: the
 * new program is built on a thread of its own while the previous one keeps
 * serving the frames, and takes over at the first frame after it is ready.
 * If it does not build, the element posts a warning with the build log and
 * keeps running the previous program; if there is no previous program (the
 * first caps), it posts an error with the build log. A program actually
 * compiled is announced with an INFO message on the bus.
 *
 * `parameters` (a GstStructure, e.g. "p, gain=(float)1.5, level=(int)3")
 * gives the code named values: each field is read by its name (through
 * img), and a new value applies from the next frame without a rebuild.
 * Each is also a controllable property of the element's child `parameters`
 * (GstChildProxy: `parameters::gain`), for GstController bindings.
 *
 * `build-options` takes `-D NAME[=VALUE]`, `-I DIR`, `-w`, `-Werror` and the
 * `-cl-*` options of OpenCL C 1.2 (not `-cl-std`): drivers parse options with
 * little care (PoCL crashes on a bare `-D`), so no other reaches them. Other
 * options are refused when set: before the element starts with a g_warning,
 * and the element then fails to start with an error naming them; while it
 * runs with a warning on the bus, the previous options staying in force.
 *
 * Code that never ends (or runs too long) is given `kernel-timeout` (every
 * element's property; 5000 ms by default): then the element posts an error
 * naming the kernel and the time it ran, and the pipeline can stop. The
 * kernel itself cannot be stopped: its device queue and context are
 * abandoned, and the next start takes a new context. The code runs with the
 * device's access to the process's OpenCL buffers: do not run code from
 * people you do not trust without a sandbox (docs/clkernel.md, "Trust").
 *
 * ## Example launch lines
 * Invert colours:
 * |[
 * gst-launch-1.0 videotestsrc ! clkernel source="float4 filter (image_t img, int x, int y) { float4 p = read_pixel (img, x, y); return (float4) (1.0f - p.xyz, p.w); }" ! videoconvert ! autovideosink
 * ]|
 * Threshold the luma of a camera, the level given through build-options:
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! video/x-raw,format=BGRx ! clkernel build-options="-D LEVEL=0.5f" source="float4 filter (image_t img, int x, int y) { float4 p = read_pixel (img, x, y); float l = dot (p.xyz, (float3) (0.299f, 0.587f, 0.114f)); return (float4) ((float3) (l >= LEVEL ? 1.0f : 0.0f), p.w); }" ! videoconvert ! autovideosink
 * ]|
 * A 3x3 box blur of a file, read from blur.cl, chained on the device with
 * clsobel:
 * |[
 * gst-launch-1.0 filesrc location=in.mp4 ! decodebin ! videoconvert ! clupload ! clkernel location=blur.cl ! clsobel ! cldownload ! videoconvert ! autovideosink
 * ]|
 * where blur.cl holds
 * |[
 * float4 filter (image_t img, int x, int y)
 * {
 *   float4 sum = 0.0f;
 *   for (int dy = -1; dy <= 1; dy++)
 *     for (int dx = -1; dx <= 1; dx++)
 *       sum += read_pixel (img, x + dx, y + dy);
 *   return sum / 9.0f;
 * }
 * ]|
 */
#include "gstclkernel.h"
#include "gstclelements.h"
#include "gstclbuildoptions.hpp"
#include "gstclparameters.hpp"
#include "gstclparameterschild.hpp"
#include "gstclsettings.hpp"
#include <gst/opencl/gstclprivate.hpp>
#include "cl-kernels.h"

#include <gst/opencl/gstcl.hpp>
#include <gst/opencl/gstclframe.hpp>
#include <gst/opencl/gstclpixel.hpp>

#include <mutex>
#include <string>

GST_DEBUG_CATEGORY_STATIC (gst_clkernel_debug);
#define GST_CAT_DEFAULT gst_clkernel_debug

static const char *const IDENTITY_SOURCE =
    "float4 filter (image_t img, int x, int y)\n"
    "{\n"
    "  return read_pixel (img, x, y);\n"
    "}\n";

/* What the user asked for; every change bumps `generation`. */
struct KernelSettings {
  std::string source;        /* code in force: the `source` property or the file's */
  std::string location;      /* file the code came from; empty: `source` was set */
  std::string build_options; /* checked with clbuildoptions::check */
  clparams::Params parameters;  /* values change without a rebuild */
  std::string signature;        /* their names and types (made when set) */
  std::string parameters_text;  /* as set; read back with the values in force */
  guint64 generation = 1;       /* changes that need a build: not a parameter's value */
};

/* A user program: the code, what to call it in compiler messages, and the
 * user's build options. */
struct UserProgram {
  std::string source;
  std::string name;
  std::string build_options;
  clparams::Params parameters;  /* their names and types are built in */
  std::string signature;        /* clparams::signature (parameters) */
};

/* Negotiated state, touched only from the streaming thread (and stop). */
struct KernelState {
  std::string format_options;   /* -D options of the negotiated format */
  guint64 tried_generation = 0; /* settings generation last built (or tried) */
  bool running = false;         /* `kernel` holds `program` */
  UserProgram program;
  cl::Kernel kernel;
  /* A change while running builds here; `kernel` keeps running meanwhile. */
  gstcl::BackgroundBuild build;
  UserProgram building;         /* what `build` builds */

  void reset ()
  {
    build.cancel ();
    format_options.clear ();
    tried_generation = 0;
    running = false;
    program = UserProgram ();
    kernel = cl::Kernel ();
  }
};

struct _GstClKernel {
  GstClFilter parent;
  gstcl::ElementPrivate<KernelSettings, KernelState> *priv;
  /* The `parameters` child (controllable values), under priv->lock; made
   * again when the names or types change. */
  GstObject *parameters_child;
};

static void gst_clkernel_child_proxy_init (GstChildProxyInterface * iface);
static void renew_parameters_child (GstClKernel * self, const clparams::Params & params);

G_DEFINE_TYPE_WITH_CODE (GstClKernel, gst_clkernel, GST_TYPE_CL_FILTER,
    G_IMPLEMENT_INTERFACE (GST_TYPE_CHILD_PROXY, gst_clkernel_child_proxy_init))
GST_ELEMENT_REGISTER_DEFINE (clkernel, "clkernel", GST_RANK_NONE, GST_TYPE_CLKERNEL)

enum { PROP_0, PROP_SOURCE, PROP_LOCATION, PROP_BUILD_OPTIONS, PROP_PARAMETERS };

#define CAPS GST_CL_RAW_CAPS ("GRAY8, RGB, BGR, RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, " \
    "xRGB, xBGR, GRAY16_LE, RGBA64_LE, NV12, I420")

#define USER_CODE_MARKER "//@CLKERNEL_USER_CODE@"

/* The boilerplate of kernels/clkernel.cl split at the marker line. */
struct Boilerplate {
  std::string prelude;
  std::string epilogue;
  int epilogue_line = 1;        /* line of clkernel.cl where the epilogue starts */
};

static const Boilerplate &
boilerplate ()
{
  static const Boilerplate b = [] {
    Boilerplate r;
    const std::string all = gst_cl_kernel_clkernel;
    const size_t at = all.find (USER_CODE_MARKER);
    g_assert (at != std::string::npos);
    r.prelude = all.substr (0, at);
    r.epilogue = all.substr (at + sizeof (USER_CODE_MARKER) - 1);
    r.epilogue_line = 1;
    for (size_t i = 0; i < at; i++)
      r.epilogue_line += all[i] == '\n';
    return r;
  } ();
  return b;
}

/* A name that is safe inside a #line directive's string. */
static std::string
line_name (const std::string &name)
{
  for (char c : name)
    if (c == '"' || c == '\\' || c == '\n' || (unsigned char) c < 0x20)
      return "source";
  return name;
}

/* The whole program: common.cl, the prelude, the user's code, the epilogue.
 * #line directives make compiler messages point into the user's code. */
static std::string
program_text (const UserProgram &p)
{
  const Boilerplate &b = boilerplate ();
  return std::string ("#line 1 \"common.cl\"\n") + gst_cl_kernel_common +
      "\n" + clparams::declarations (p.parameters) +
      "#line 1 \"clkernel.cl\"\n" + b.prelude + "\n" + clparams::macros (p.parameters) +
      "#line 1 \"" + line_name (p.name) + "\"\n" + p.source + "\n" +
      clparams::undefs (p.parameters) +
      "#line " + std::to_string (b.epilogue_line) + " \"clkernel.cl\"\n" + b.epilogue;
}

static std::string
build_options (GstClKernel * self, const UserProgram &p)
{
  return self->priv->state.format_options + " " + p.build_options;
}

static std::string
build_name (const UserProgram &p)
{
  return "clkernel '" + p.name + "'";
}

/* A parameter the code never mentions is a mistake (a typo in the name, or
 * code that reads it under another name): refused like code that does not
 * build. */
static void
check_parameters (const UserProgram &p)
{
  const std::string name = clparams::unused (p.parameters, p.source);
  if (!name.empty ())
    throw gstcl::BuildError ("The parameter '" + name + "' is not used by the OpenCL "
        "code (" + p.name + ")");
}

static cl::Kernel
build_kernel (GstClKernel * self, GstClContext * ctx, const UserProgram &p)
{
  check_parameters (p);
  const std::string options = build_options (self, p);
  GST_DEBUG_OBJECT (self, "building '%s' with options %s", p.name.c_str (), options.c_str ());
  return cl::Kernel (gstcl::program (ctx, program_text (p), options, build_name (p)),
      "clkernel_main");
}

static void
warn_not_built (GstClKernel * self, const gstcl::BuildError & e)
{
  GST_ELEMENT_WARNING (self, LIBRARY, INIT,
      ("Could not build the new OpenCL code; still running the previous program"),
      ("%s", e.what ()));
}

/* Swaps in the program of the finished background build, or warns that it
 * did not build and keeps the running one. */
static void
take_background_build (GstClKernel * self)
{
  KernelState *st = &self->priv->state;
  try {
    cl::Program program = st->build.take ();
    st->kernel = cl::Kernel (program, "clkernel_main");
    st->program = st->building;
    GST_DEBUG_OBJECT (self, "now running '%s'", st->program.name.c_str ());
  } catch (const gstcl::BuildError & e) {
    warn_not_built (self, e);
  }
}

/* Snapshot of the settings as a program to build. */
static UserProgram
wanted_program (GstClKernel * self, guint64 * generation)
{
  std::lock_guard<std::mutex> lock (self->priv->lock);
  const KernelSettings *s = &self->priv->settings;
  UserProgram p;
  const bool empty = s->source.find_first_not_of (" \t\r\n") == std::string::npos;
  p.source = empty ? IDENTITY_SOURCE : s->source;
  p.name = s->location.empty () ? "source" : s->location;
  p.build_options = s->build_options;
  p.parameters = s->parameters;
  p.signature = s->signature;
  *generation = s->generation;
  return p;
}

/* Brings the kernel up to date with the settings and, when `format_changed`,
 * with the new format. A program that does not build throws BuildError when
 * nothing runs yet; otherwise it is reported as a warning and the running
 * program stays (rebuilt for the new format if need be). New settings while
 * a program runs build in the background (see BackgroundBuild): the running
 * program serves the frames until the new one is ready; settings changed
 * again meanwhile are built when that build is over. */
static void
update_kernel (GstClKernel * self, GstClContext * ctx, bool format_changed)
{
  KernelState *st = &self->priv->state;
  bool pending_settings = false;   /* a build for other settings was under way */
  if (st->build.pending ()) {
    if (format_changed) {
      st->build.cancel ();         /* it was for the old format */
      pending_settings = true;
    } else if (st->build.ready ()) {
      take_background_build (self);
    } else {
      return;                      /* still building: the running program serves */
    }
  }
  guint64 generation;
  UserProgram wanted = wanted_program (self, &generation);
  const bool new_settings = generation != st->tried_generation || pending_settings;
  if (!new_settings && !format_changed)
    return;
  st->tried_generation = generation;

  if (new_settings && st->running && !format_changed) {
    try {
      check_parameters (wanted);
    } catch (const gstcl::BuildError & e) {
      warn_not_built (self, e);
      return;
    }
    st->building = wanted;
    st->build.start (GST_ELEMENT (self), ctx, program_text (wanted),
        build_options (self, wanted), build_name (wanted));
    if (st->build.ready ())        /* in the cache: at once */
      take_background_build (self);
    return;
  }
  if (new_settings || !st->running) {
    try {
      st->kernel = build_kernel (self, ctx, wanted);
      st->program = wanted;
      st->running = true;
      return;
    } catch (const gstcl::BuildError & e) {
      if (!st->running)
        throw;
      warn_not_built (self, e);
    }
  }
  if (format_changed)
    st->kernel = build_kernel (self, ctx, st->program);
}

static void
gst_clkernel_set_info (GstClFilter * filter, GstClContext * ctx, GstCaps *,
    const GstVideoInfo * in_info, GstCaps *, const GstVideoInfo *)
{
  auto *self = GST_CLKERNEL (filter);
  self->priv->state.format_options = gstcl::pixel_layout (in_info).options ("PX");
  update_kernel (self, ctx, true);
}

/* The program of the settings (a background build taken when it is ready:
 * BackgroundBuild asks for this plan) and the parameters' values. */
static void
gst_clkernel_plan (GstClFilter * filter, GstClContext * ctx, const GstClFrame * in,
    const GstClFrame * out)
{
  auto *self = GST_CLKERNEL (filter);
  update_kernel (self, ctx, false);
  KernelState *st = &self->priv->state;
  /* The parameters' latest values while their names and types are the
   * running program's; else the last ones it ran with. */
  {
    std::lock_guard<std::mutex> lock (self->priv->lock);
    const KernelSettings &s = self->priv->settings;
    if (s.signature == st->program.signature)
      st->program.parameters = s.parameters;
  }
  const std::vector<guint8> values = clparams::bytes (st->program.parameters);
  cl::Kernel &k = st->kernel;
  gstcl::set_args (k, gstcl::set_frame_args (k, 0, in, out),
      gstcl::RawArg {values.size (), values.data ()});
}

static GstFlowReturn
gst_clkernel_filter (GstClFilter * filter, GstClContext * ctx, const GstClFrame * in,
    const GstClFrame * out)
{
  auto *self = GST_CLKERNEL (filter);
  cl::Kernel &k = self->priv->state.kernel;
  gstcl::set_frame_args (k, 0, in, out);
  gstcl::enqueue_2d (ctx, k, GST_VIDEO_INFO_WIDTH (&out->info),
      GST_VIDEO_INFO_HEIGHT (&out->info));
  gstcl::copy_planes (ctx, in, out, 1);   /* NV12, I420: the luma only */
  return GST_FLOW_OK;
}

/* Reads the code of `location` into the settings. FALSE (and `error` set)
 * when the file cannot be read; the settings then keep their code. */
static gboolean
load_location (GstClKernel * self, const std::string &location, GError ** error)
{
  gchar *contents = nullptr;
  if (!g_file_get_contents (location.c_str (), &contents, nullptr, error))
    return FALSE;
  std::lock_guard<std::mutex> lock (self->priv->lock);
  KernelSettings *s = &self->priv->settings;
  if (s->location == location && s->source != contents) {
    s->source = contents;
    s->generation++;
  }
  g_free (contents);
  return TRUE;
}

/* (A value refused before start failed it already: GstClBaseTransform.) */
static gboolean
gst_clkernel_start (GstBaseTransform * trans)
{
  auto *self = GST_CLKERNEL (trans);
  std::string location;
  {
    std::lock_guard<std::mutex> lock (self->priv->lock);
    location = self->priv->settings.location;
  }
  /* Read again at start: the file may have been written since it was set. */
  GError *error = nullptr;
  if (!location.empty () && !load_location (self, location, &error)) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ,
        ("Could not read the OpenCL code file \"%s\"", location.c_str ()),
        ("%s", error->message));
    g_error_free (error);
    return FALSE;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_clkernel_parent_class)->start (trans);
}

static gboolean
gst_clkernel_stop (GstBaseTransform * trans)
{
  auto *self = GST_CLKERNEL (trans);
  /* A fresh start has no previous program to fall back on; a background
   * build is waited for (it posts from this element). */
  self->priv->state.reset ();
  return GST_BASE_TRANSFORM_CLASS (gst_clkernel_parent_class)->stop (trans);
}

static void
set_location (GstClKernel * self, const gchar * location)
{
  {
    std::lock_guard<std::mutex> lock (self->priv->lock);
    self->priv->settings.location = location ? location : "";
  }
  if (!location || !*location)
    return;  /* forgets the path; the code read from it stays */
  GError *error = nullptr;
  if (load_location (self, location, &error))
    return;
  if (GST_STATE (self) >= GST_STATE_PAUSED) {
    GST_ELEMENT_WARNING (self, RESOURCE, OPEN_READ,
        ("Could not read the OpenCL code file \"%s\"; still running the previous "
            "program", location), ("%s", error->message));
  } else {
    GST_WARNING_OBJECT (self, "%s (read again at start)", error->message);
  }
  g_error_free (error);
}

static void
gst_clkernel_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  auto *self = GST_CLKERNEL (object);
  if (prop_id == PROP_LOCATION) {
    set_location (self, g_value_get_string (value));
    return;
  }
  std::string refused;
  bool new_names = false;
  clparams::Params params;
  {
    std::lock_guard<std::mutex> lock (self->priv->lock);
    KernelSettings *s = &self->priv->settings;
    const gchar *str = prop_id == PROP_PARAMETERS ? nullptr : g_value_get_string (value);
    switch (prop_id) {
      case PROP_SOURCE:
        s->source = str ? str : "";
        s->location.clear ();
        s->generation++;
        break;
      case PROP_PARAMETERS: {
        const GstStructure *st = gst_value_get_structure (value);
        refused = st ? clparams::from_structure (st, &params) : "";
        if (refused.empty ()) {
          std::string signature = clparams::signature (params);
          new_names = signature != s->signature || !self->parameters_child;
          if (signature != s->signature)
            s->generation++;   /* other names or types: another program */
          s->parameters = params;
          s->signature = std::move (signature);
          gchar *text = st ? gst_structure_to_string (st) : nullptr;
          s->parameters_text = text ? text : "";
          g_free (text);
        }
        break;
      }
      case PROP_BUILD_OPTIONS:
        /* Only well-formed options reach the driver: some crash on others. */
        refused = clbuildoptions::check (str ? str : "");
        if (refused.empty ()) {
          s->build_options = str ? str : "";
          s->generation++;
        }
        break;
      default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
  }
  if (new_names)
    renew_parameters_child (self, params);
  /* Without the lock: a bus sync handler may read our properties. */
  if (prop_id == PROP_PARAMETERS || prop_id == PROP_BUILD_OPTIONS)
    clsettings::settle (GST_CL_BASE_TRANSFORM (self), pspec, value, refused,
        prop_id == PROP_PARAMETERS ? "The previous parameters stay in force." :
        "The previous build options stay in force.");
}

/* The child's view of the parameters in force (clparams::Access). A value
 * set on the child notifies the child, not the element: the element tells
 * GstClFilter that its settings changed. */
static void
set_parameter (GstElement * element, const clparams::Param & p)
{
  auto *self = GST_CLKERNEL (element);
  {
    std::lock_guard<std::mutex> lock (self->priv->lock);
    for (clparams::Param &q : self->priv->settings.parameters)
      if (q.name == p.name && q.type == p.type)
        q.value = p.value;
  }
  gst_cl_filter_settings_changed (GST_CL_FILTER (self));
}

static void
get_parameter (GstElement * element, clparams::Param * p)
{
  auto *self = GST_CLKERNEL (element);
  std::lock_guard<std::mutex> lock (self->priv->lock);
  for (const clparams::Param &q : self->priv->settings.parameters)
    if (q.name == p->name && q.type == p->type)
      p->value = q.value;
}

/* A child for new names or types (none without parameters); the old one
 * is let go, with its control bindings. */
static void
renew_parameters_child (GstClKernel * self, const clparams::Params & params)
{
  GstObject *child = clparams::make_child (params, GST_ELEMENT (self),
      clparams::Access {set_parameter, get_parameter});
  if (child)
    gst_object_set_parent (child, GST_OBJECT (self));
  GstObject *old;
  {
    std::lock_guard<std::mutex> lock (self->priv->lock);
    old = self->parameters_child;
    self->parameters_child = child;
  }
  if (old)
    gst_object_unparent (old);
}

static GObject *
gst_clkernel_get_child_by_index (GstChildProxy * proxy, guint index)
{
  auto *self = GST_CLKERNEL (proxy);
  std::lock_guard<std::mutex> lock (self->priv->lock);
  return index == 0 && self->parameters_child ?
      G_OBJECT (gst_object_ref (self->parameters_child)) : nullptr;
}

static guint
gst_clkernel_get_children_count (GstChildProxy * proxy)
{
  auto *self = GST_CLKERNEL (proxy);
  std::lock_guard<std::mutex> lock (self->priv->lock);
  return self->parameters_child ? 1 : 0;
}

static void
gst_clkernel_child_proxy_init (GstChildProxyInterface * iface)
{
  iface->get_child_by_index = gst_clkernel_get_child_by_index;
  iface->get_children_count = gst_clkernel_get_children_count;
}

static void
gst_clkernel_dispose (GObject * object)
{
  renew_parameters_child (GST_CLKERNEL (object), clparams::Params ());
  G_OBJECT_CLASS (gst_clkernel_parent_class)->dispose (object);
}

static void
gst_clkernel_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  auto *self = GST_CLKERNEL (object);
  std::lock_guard<std::mutex> lock (self->priv->lock);
  const KernelSettings *s = &self->priv->settings;
  switch (prop_id) {
    case PROP_SOURCE: g_value_set_string (value, s->source.c_str ()); break;
    case PROP_LOCATION:
      g_value_set_string (value, s->location.empty () ? nullptr : s->location.c_str ());
      break;
    case PROP_BUILD_OPTIONS: g_value_set_string (value, s->build_options.c_str ()); break;
    case PROP_PARAMETERS: {
      /* as set, with the values in force (a child's control binding may
       * have changed them since) */
      GstStructure *as_set = s->parameters_text.empty () ? nullptr :
          gst_structure_from_string (s->parameters_text.c_str (), nullptr);
      g_value_take_boxed (value, as_set ? clparams::with_values (as_set, s->parameters) :
          nullptr);
      if (as_set)
        gst_structure_free (as_set);
      break;
    }
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
gst_clkernel_class_init (GstClKernelClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstClFilterClass *filter_class = GST_CL_FILTER_CLASS (klass);
  const auto flags = (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING);

  gobject_class->set_property = gst_clkernel_set_property;
  gobject_class->get_property = gst_clkernel_get_property;
  gobject_class->dispose = gst_clkernel_dispose;
  gobject_class->finalize =
      gstcl::finalize_deleting<&GstClKernel::priv, &gst_clkernel_parent_class>;

  g_object_class_install_property (gobject_class, PROP_SOURCE,
      g_param_spec_string ("source", "Source", "OpenCL C code that defines "
          "float4 filter (image_t img, int x, int y), called once per output pixel; "
          "it returns RGBA in 0..1 and reads pixels with read_pixel (img, x, y). "
          "Empty: identity. Setting it forgets `location`; reads back the code in "
          "force (also that of `location`)", nullptr, flags));
  g_object_class_install_property (gobject_class, PROP_LOCATION,
      g_param_spec_string ("location", "Location", "File with the OpenCL C code "
          "(as for `source`), read when set and again at start", nullptr, flags));
  g_object_class_install_property (gobject_class, PROP_BUILD_OPTIONS,
      g_param_spec_string ("build-options", "Build options", "Options passed to "
          "the OpenCL compiler, e.g. \"-D LEVEL=0.5f -cl-fast-relaxed-math\": "
          "-D, -I, -w, -Werror and the -cl-* options of OpenCL C 1.2; others are "
          "refused", nullptr, flags));
  g_object_class_install_property (gobject_class, PROP_PARAMETERS,
      g_param_spec_boxed ("parameters", "Parameters", "Named numbers for the code, "
          "e.g. \"p, gain=(float)1.5, level=(int)3\" (the structure's name is "
          "ignored): each field is a value the code reads by its name (through "
          "img), float, int or uint (boolean as int). A new value applies from the "
          "next frame without a rebuild; new names or types rebuild in the "
          "background. A name the code never uses is an error",
          GST_TYPE_STRUCTURE, flags));

  gst_element_class_set_static_metadata (element_class, "OpenCL kernel filter",
      "Filter/Effect/Video/Hardware", "Runs per-pixel OpenCL C code given at run "
      "time", "gst-opencl developers");
  gst_cl_filter_class_add_pad_templates (filter_class, CAPS, CAPS);

  trans_class->start = gst_clkernel_start;
  trans_class->stop = gst_clkernel_stop;
  filter_class->set_info = gst_clkernel_set_info;
  filter_class->plan = gst_clkernel_plan;
  filter_class->filter = gst_clkernel_filter;

  GST_DEBUG_CATEGORY_INIT (gst_clkernel_debug, "clkernel", 0,
      "OpenCL run-time kernel filter");
}

static void
gst_clkernel_init (GstClKernel * self)
{
  self->priv = new gstcl::ElementPrivate<KernelSettings, KernelState> ();
}
