/**
 * SECTION:element-clconvolve
 * @title: clconvolve
 *
 * A user-defined N x N convolution (N odd, 1 to 31) on any OpenCL device, per
 * colour channel of GRAY8 and packed 8-bit RGB formats. Each channel is
 *   out = saturate (round (sum (k * pixel) / divisor + bias))
 * computed in float, rounded to nearest (ties to even), where divisor is the
 * sum of that channel's kernel when normalize is on and the sum is not 0,
 * else 1. Alpha and x bytes are copied. Every property can change while
 * playing and applies from the next frame, except a kernel of a new size:
 * its program builds on a thread of its own while the previous weights keep
 * serving the frames, and it takes over at the first frame after the build.
 * Rank-1 kernels (a Gaussian, a box) are found automatically and run as two
 * 1-D passes.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! clconvolve kernel="<1,4,6,4,1,4,16,24,16,4,6,24,36,24,6,4,16,24,16,4,1,4,6,4,1>" ! videoconvert ! autovideosink
 * gst-launch-1.0 filesrc location=in.mp4 ! decodebin ! videoconvert ! clupload ! clconvolve kernel="<0,-1,0,-1,5,-1,0,-1,0>" ! cldownload ! videoconvert ! autovideosink
 * gst-launch-1.0 videotestsrc ! clconvolve kernel="<-2,-1,0,-1,0,1,0,1,2>" bias=128 ! videoconvert ! autovideosink
 * gst-launch-1.0 videotestsrc ! clupload ! clconvolve kernel="<0,0,0,0,1,0,0,0,0>" red-kernel="<1,1,1,1,1,1,1,1,1>" ! clsobel ! cldownload ! videoconvert ! autovideosink
 * ]|
 */
#include "gstclconvolve.h"
#include "gstclconvolution.hpp"
#include "gstclelements.h"
#include "gstclenums.h"

#include <mutex>
#include <string>

GST_DEBUG_CATEGORY_STATIC (gst_cl_convolve_debug);
#define GST_CAT_DEFAULT gst_cl_convolve_debug

struct ConvolveSettings {
  std::vector<double> kernel {1.0};
  std::array<std::vector<double>, 3> overrides;  /* red, green, blue; empty = none */
  bool normalize = true;
  double bias = 0.0;
  GstClBorder border = GST_CL_BORDER_REPLICATE;
  /* Derived from the above; `generation` counts its changes. */
  clconv::Weights weights;
  guint64 generation = 1;
};

/* Negotiated state, used from the streaming thread only. */
struct ConvolveState {
  clconv::Engine engine;
};

struct _GstClConvolve {
  GstClFilter parent;
  std::mutex *settings_lock;
  ConvolveSettings *settings;
  ConvolveState *state;
};

G_DEFINE_TYPE (GstClConvolve, gst_cl_convolve, GST_TYPE_CL_FILTER)
GST_ELEMENT_REGISTER_DEFINE (clconvolve, "clconvolve", GST_RANK_NONE, GST_TYPE_CL_CONVOLVE)

enum {
  PROP_0, PROP_KERNEL, PROP_RED_KERNEL, PROP_GREEN_KERNEL, PROP_BLUE_KERNEL,
  PROP_NORMALIZE, PROP_BIAS, PROP_BORDER, PROP_SEPARABLE
};

static void
update_weights (ConvolveSettings * s)
{
  s->weights = clconv::prepare_weights (s->kernel, s->overrides, s->normalize, s->bias);
  s->generation++;
}

static void
gst_cl_convolve_set_info (GstClFilter * filter, GstClContext *, GstCaps *,
    const GstVideoInfo * in_info, GstCaps *, const GstVideoInfo *)
{
  auto *self = GST_CL_CONVOLVE (filter);
  self->state->engine.set_format (in_info);
}

static GstFlowReturn
gst_cl_convolve_filter (GstClFilter * filter, GstClContext * ctx, const GstClFrame * in,
    const GstClFrame * out)
{
  auto *self = GST_CL_CONVOLVE (filter);
  ConvolveState *st = self->state;
  GstClBorder border;
  {
    std::lock_guard<std::mutex> lock (*self->settings_lock);
    border = self->settings->border;
    if (st->engine.take_weights (self->settings->weights, self->settings->generation)) {
      GST_DEBUG_OBJECT (self, "new weights, %dx%d", self->settings->weights.n,
          self->settings->weights.n);
    }
  }
  st->engine.run (ctx, in, out, border);
  return GST_FLOW_OK;
}

/* Checks and stores a kernel property; returns why it was refused, or "". */
static std::string
set_kernel (ConvolveSettings * s, guint prop_id, const GValue * value)
{
  static const char *const names[] = {"red-kernel", "green-kernel", "blue-kernel"};
  std::vector<double> k;
  std::string why;
  if (!clconv::values_from_array (value, &k, &why))
    return why;
  if (prop_id == PROP_KERNEL) {
    if (!(why = clconv::check_kernel (k)).empty ())
      return why;
    for (int c = 0; c < 3; c++)
      if (!s->overrides[c].empty () && s->overrides[c].size () != k.size ())
        return std::string (names[c]) + " has " + std::to_string (s->overrides[c].size ()) +
            " values and this kernel " + std::to_string (k.size ()) + ": clear the "
            "per-channel kernels (set them to <>) before changing the size";
    s->kernel = std::move (k);
  } else {
    const int c = prop_id - PROP_RED_KERNEL;
    if (!k.empty ()) {
      if (!(why = clconv::check_kernel (k)).empty ())
        return why;
      if (k.size () != s->kernel.size ())
        return std::to_string (k.size ()) + " values where kernel has " +
            std::to_string (s->kernel.size ()) + ": a per-channel kernel has the size "
            "of kernel";
    }
    s->overrides[c] = std::move (k);
  }
  update_weights (s);
  return "";
}

static void
gst_cl_convolve_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  auto *self = GST_CL_CONVOLVE (object);
  std::string refused;
  {
    std::lock_guard<std::mutex> lock (*self->settings_lock);
    ConvolveSettings *s = self->settings;
    switch (prop_id) {
      case PROP_KERNEL:
      case PROP_RED_KERNEL:
      case PROP_GREEN_KERNEL:
      case PROP_BLUE_KERNEL:
        refused = set_kernel (s, prop_id, value);
        break;
      case PROP_NORMALIZE:
        s->normalize = g_value_get_boolean (value);
        update_weights (s);
        break;
      case PROP_BIAS:
        s->bias = g_value_get_double (value);
        update_weights (s);
        break;
      case PROP_BORDER:
        s->border = (GstClBorder) g_value_get_enum (value);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
  }
  /* Posted without the lock: a bus sync handler may read our properties. */
  if (!refused.empty ()) {
    GST_WARNING_OBJECT (self, "refused %s: %s", pspec->name, refused.c_str ());
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("Refused the value of %s: %s. "
            "The previous kernel stays in force.", pspec->name, refused.c_str ()), (nullptr));
  }
}

static void
gst_cl_convolve_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  auto *self = GST_CL_CONVOLVE (object);
  std::lock_guard<std::mutex> lock (*self->settings_lock);
  const ConvolveSettings *s = self->settings;
  switch (prop_id) {
    case PROP_KERNEL: clconv::array_from_values (s->kernel, value); break;
    case PROP_RED_KERNEL:
    case PROP_GREEN_KERNEL:
    case PROP_BLUE_KERNEL:
      clconv::array_from_values (s->overrides[prop_id - PROP_RED_KERNEL], value);
      break;
    case PROP_NORMALIZE: g_value_set_boolean (value, s->normalize); break;
    case PROP_BIAS: g_value_set_double (value, s->bias); break;
    case PROP_BORDER: g_value_set_enum (value, s->border); break;
    case PROP_SEPARABLE: {
      bool separable = true;
      for (const auto &c : s->weights.channel)
        separable = separable && c.separable;
      g_value_set_boolean (value, separable);
      break;
    }
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
gst_cl_convolve_finalize (GObject * object)
{
  auto *self = GST_CL_CONVOLVE (object);
  delete self->state;
  delete self->settings;
  delete self->settings_lock;
  G_OBJECT_CLASS (gst_cl_convolve_parent_class)->finalize (object);
}

static void
gst_cl_convolve_class_init (GstClConvolveClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstClFilterClass *filter_class = GST_CL_FILTER_CLASS (klass);
  const auto flags = (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING);

  gobject_class->set_property = gst_cl_convolve_set_property;
  gobject_class->get_property = gst_cl_convolve_get_property;
  gobject_class->finalize = gst_cl_convolve_finalize;

  g_object_class_install_property (gobject_class, PROP_KERNEL,
      clconv::param_spec_weights ("kernel", "Kernel", "The N x N weights, row-major, "
          "N odd from 1 to 31 (taken from the length), for every colour channel, e.g. "
          "\"<1,2,1,2,4,2,1,2,1>\"", flags));
  g_object_class_install_property (gobject_class, PROP_RED_KERNEL,
      clconv::param_spec_weights ("red-kernel", "Red kernel", "Weights for the red "
          "channel in place of kernel, of the same size; <> = use kernel", flags));
  g_object_class_install_property (gobject_class, PROP_GREEN_KERNEL,
      clconv::param_spec_weights ("green-kernel", "Green kernel", "Weights for the "
          "green channel in place of kernel, of the same size; <> = use kernel", flags));
  g_object_class_install_property (gobject_class, PROP_BLUE_KERNEL,
      clconv::param_spec_weights ("blue-kernel", "Blue kernel", "Weights for the blue "
          "channel in place of kernel, of the same size; <> = use kernel", flags));
  g_object_class_install_property (gobject_class, PROP_NORMALIZE,
      g_param_spec_boolean ("normalize", "Normalize", "Divide each channel by the "
          "sum of its kernel, when that sum is not 0", TRUE, flags));
  g_object_class_install_property (gobject_class, PROP_BIAS,
      g_param_spec_double ("bias", "Bias", "Added to each channel after the division",
          -1.0e6, 1.0e6, 0.0, flags));
  g_object_class_install_property (gobject_class, PROP_BORDER,
      g_param_spec_enum ("border", "Border", "How pixels outside the image are read",
          GST_TYPE_CL_BORDER, GST_CL_BORDER_REPLICATE, flags));
  g_object_class_install_property (gobject_class, PROP_SEPARABLE,
      g_param_spec_boolean ("separable", "Separable", "Whether every channel's kernel "
          "is rank 1 (a column times a row): such kernels run as a row pass then "
          "a column pass (2N instead of N*N multiply-adds a pixel)", TRUE, (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));

  gst_element_class_set_static_metadata (element_class, "OpenCL N x N convolution",
      "Filter/Effect/Video/Hardware", "User-defined N x N convolution per colour "
      "channel on an OpenCL device", "gst-opencl developers");
  gst_cl_filter_class_add_pad_templates (filter_class, GST_CL_CONVOLUTION_CAPS,
      GST_CL_CONVOLUTION_CAPS);

  filter_class->set_info = gst_cl_convolve_set_info;
  filter_class->filter = gst_cl_convolve_filter;

  GST_DEBUG_CATEGORY_INIT (gst_cl_convolve_debug, "clconvolve", 0,
      "OpenCL N x N convolution");
}

static void
gst_cl_convolve_init (GstClConvolve * self)
{
  self->settings_lock = new std::mutex ();
  self->settings = new ConvolveSettings ();
  update_weights (self->settings);
  self->state = new ConvolveState ();
}
