/* SPDX-License-Identifier: LGPL-2.1-or-later */
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
 * A kernel that is wrong on its own (not N x N with N odd up to 31, NaN or
 * infinite values) is refused when set: before the element starts, with a
 * g_warning, and the element then fails to start with an error naming the
 * property and the value; while it runs, with a warning on the bus, the
 * previous kernel staying in force. Whether the per-channel kernels have the
 * size of kernel is checked when the element starts and at each frame, so
 * the properties may be set in any order: at start a mismatch is an error,
 * while playing a warning (the previous kernels stay in force until the
 * sizes agree again).
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
#include "gstclelements.h"

static const char *const override_names[] = {"red-kernel", "green-kernel", "blue-kernel"};

/* As set, under the base's lock. Each is valid on its own; whether the
 * per-channel kernels have the size of `kernel` is checked in make_weights,
 * so the order in which properties are set does not matter. */
struct ConvolveSettings {
  std::vector<double> kernel {1.0};
  std::array<std::vector<double>, 3> overrides;  /* red, green, blue; empty = none */
  bool normalize = true;
  double bias = 0.0;
};

struct _GstClConvolve {
  GstClConvolutionFilter parent;
  ConvolveSettings *settings;
};

G_DEFINE_TYPE (GstClConvolve, gst_cl_convolve, GST_TYPE_CL_CONVOLUTION_FILTER)
GST_ELEMENT_REGISTER_DEFINE (clconvolve, "clconvolve", GST_RANK_NONE, GST_TYPE_CL_CONVOLVE)

enum {
  PROP_0, PROP_KERNEL, PROP_RED_KERNEL, PROP_GREEN_KERNEL, PROP_BLUE_KERNEL,
  PROP_NORMALIZE, PROP_BIAS, PROP_SEPARABLE
};

static std::string
describe_values (const std::vector<double> &values)
{
  GValue array = G_VALUE_INIT;
  g_value_init (&array, GST_TYPE_ARRAY);
  clsettings::array_from_values (values, &array);
  std::string out = clsettings::describe_value (&array);
  g_value_unset (&array);
  return out;
}

static gboolean
gst_cl_convolve_make_weights (GstClConvolutionFilter * base, clconv::Weights * weights,
    clsettings::Refusal * mismatch)
{
  const ConvolveSettings *s = GST_CL_CONVOLVE (base)->settings;
  for (int c = 0; c < 3; c++)
    if (!s->overrides[c].empty () && s->overrides[c].size () != s->kernel.size ()) {
      *mismatch = {override_names[c], describe_values (s->overrides[c]),
        std::to_string (s->overrides[c].size ()) + " values where kernel has " +
            std::to_string (s->kernel.size ()) + ": a per-channel kernel has the "
            "size of kernel, or is <> to use kernel"};
      return FALSE;
    }
  *weights = clconv::prepare_weights (s->kernel, s->overrides, s->normalize, s->bias);
  return TRUE;
}

/* Checks a kernel property on its own (the sizes are compared later) and
 * stores it; returns why it was refused, or "". */
static std::string
set_kernel (ConvolveSettings * s, guint prop_id, const GValue * value)
{
  std::vector<double> k;
  std::string why;
  if (!clsettings::values_from_array (value, &k, &why))
    return why;
  /* A per-channel kernel may be empty: kernel is used for that channel. */
  if ((prop_id == PROP_KERNEL || !k.empty ()) &&
      !(why = clconv::check_kernel (k)).empty ())
    return why;
  if (prop_id == PROP_KERNEL)
    s->kernel = std::move (k);
  else
    s->overrides[prop_id - PROP_RED_KERNEL] = std::move (k);
  return "";
}

static void
gst_cl_convolve_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  auto *self = GST_CL_CONVOLVE (object);
  ConvolveSettings *s = self->settings;
  std::function<std::string ()> apply;
  switch (prop_id) {
    case PROP_KERNEL:
    case PROP_RED_KERNEL:
    case PROP_GREEN_KERNEL:
    case PROP_BLUE_KERNEL:
      apply = [&] { return set_kernel (s, prop_id, value); };
      break;
    case PROP_NORMALIZE:
      apply = [&] { s->normalize = g_value_get_boolean (value); return std::string (); };
      break;
    case PROP_BIAS:
      apply = [&] { s->bias = g_value_get_double (value); return std::string (); };
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      return;
  }
  gst_cl_convolution_filter_set (GST_CL_CONVOLUTION_FILTER (self), pspec, value, apply);
}

static void
gst_cl_convolve_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  auto *self = GST_CL_CONVOLVE (object);
  if (prop_id == PROP_SEPARABLE) {
    bool separable = true;
    for (const auto &c : gst_cl_convolution_filter_weights (GST_CL_CONVOLUTION_FILTER (self)).channel)
      separable = separable && c.separable;
    g_value_set_boolean (value, separable);
    return;
  }
  std::lock_guard<std::mutex> lock (gst_cl_convolution_filter_lock (
          GST_CL_CONVOLUTION_FILTER (self)));
  const ConvolveSettings *s = self->settings;
  switch (prop_id) {
    case PROP_KERNEL: clsettings::array_from_values (s->kernel, value); break;
    case PROP_RED_KERNEL:
    case PROP_GREEN_KERNEL:
    case PROP_BLUE_KERNEL:
      clsettings::array_from_values (s->overrides[prop_id - PROP_RED_KERNEL], value);
      break;
    case PROP_NORMALIZE: g_value_set_boolean (value, s->normalize); break;
    case PROP_BIAS: g_value_set_double (value, s->bias); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
gst_cl_convolve_class_init (GstClConvolveClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  auto *conv_class = reinterpret_cast<GstClConvolutionFilterClass *> (klass);
  const auto flags = (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING);

  gobject_class->set_property = gst_cl_convolve_set_property;
  gobject_class->get_property = gst_cl_convolve_get_property;
  gobject_class->finalize =
      gstcl::finalize_deleting<&GstClConvolve::settings, &gst_cl_convolve_parent_class>;

  g_object_class_install_property (gobject_class, PROP_KERNEL,
      clsettings::param_spec_weights ("kernel", "Kernel", "The N x N weights, row-major, "
          "N odd from 1 to 31 (taken from the length), for every colour channel, e.g. "
          "\"<1,2,1,2,4,2,1,2,1>\"", flags));
  g_object_class_install_property (gobject_class, PROP_RED_KERNEL,
      clsettings::param_spec_weights ("red-kernel", "Red kernel", "Weights for the red "
          "channel in place of kernel, of the same size; <> = use kernel", flags));
  g_object_class_install_property (gobject_class, PROP_GREEN_KERNEL,
      clsettings::param_spec_weights ("green-kernel", "Green kernel", "Weights for the "
          "green channel in place of kernel, of the same size; <> = use kernel", flags));
  g_object_class_install_property (gobject_class, PROP_BLUE_KERNEL,
      clsettings::param_spec_weights ("blue-kernel", "Blue kernel", "Weights for the blue "
          "channel in place of kernel, of the same size; <> = use kernel", flags));
  g_object_class_install_property (gobject_class, PROP_NORMALIZE,
      g_param_spec_boolean ("normalize", "Normalize", "Divide each channel by the "
          "sum of its kernel, when that sum is not 0", TRUE, flags));
  g_object_class_install_property (gobject_class, PROP_BIAS,
      g_param_spec_double ("bias", "Bias", "Added to each channel after the division",
          -1.0e6, 1.0e6, 0.0, (GParamFlags) (flags | GST_PARAM_CONTROLLABLE)));
  g_object_class_install_property (gobject_class, PROP_SEPARABLE,
      g_param_spec_boolean ("separable", "Separable", "Whether every channel's kernel "
          "is rank 1 (a column times a row): such kernels run as a row pass then "
          "a column pass (2N instead of N*N multiply-adds a pixel)", TRUE, (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));

  gst_element_class_set_static_metadata (element_class, "OpenCL N x N convolution",
      "Filter/Effect/Video/Hardware", "User-defined N x N convolution per colour "
      "channel on an OpenCL device", "gst-opencl developers");
  conv_class->make_weights = gst_cl_convolve_make_weights;
  conv_class->kept = "The previous kernel stays in force.";
}

static void
gst_cl_convolve_init (GstClConvolve * self)
{
  self->settings = new ConvolveSettings ();
  gst_cl_convolution_filter_renew_weights (GST_CL_CONVOLUTION_FILTER (self));
}
