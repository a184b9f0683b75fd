/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-clfir
 * @title: clfir
 *
 * The 3x3 floating-point FIR filter of the founding OpenCL sample, on any
 * OpenCL device: each colour channel of GRAY8 and packed 8-bit RGB formats
 * becomes
 *   out = saturate (round (sum (coefficients * pixel)))
 * computed in float, rounded to nearest (ties to even), with the coefficients
 * used as given (no normalisation, no bias). Alpha and x bytes are copied.
 * It runs clconvolve's 3x3 fast path (four outputs per work-item); for other
 * sizes, per-channel weights, normalisation or a bias use clconvolve.
 *
 * Without `coefficients` the element is not the identity: the default is the
 * founding sample's [30 5 6; 19 30 9; 15 5 40] / 256, which blurs and darkens
 * (the weights sum to 159/256). <0,0,0,0,1,0,0,0,0> is the identity.
 *
 * Coefficients other than 9 finite numbers are refused: before the element
 * starts with a g_warning, and the element then fails to start with an error
 * naming the property and the value; while it runs with a warning on the
 * bus, the previous coefficients staying in force.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! clfir ! videoconvert ! autovideosink
 * gst-launch-1.0 filesrc location=in.mp4 ! decodebin ! videoconvert ! clupload ! clfir coefficients="<0,-0.5,0,-0.5,3,-0.5,0,-0.5,0>" ! cldownload ! videoconvert ! autovideosink
 * gst-launch-1.0 videotestsrc ! clupload ! clfir border=reflect ! clsobel ! cldownload ! videoconvert ! autovideosink
 * ]|
 */
#include "gstclfir.h"
#include "gstclconvolution.hpp"
#include "gstclelements.h"
#include "gstclenums.h"
#include "gstclsettings.hpp"

#include <mutex>
#include <string>

GST_DEBUG_CATEGORY_STATIC (gst_cl_fir_debug);
#define GST_CAT_DEFAULT gst_cl_fir_debug

/* The founding sample's coefficients. */
static const std::vector<double> default_coefficients = {
  30 / 256.0, 5 / 256.0, 6 / 256.0,
  19 / 256.0, 30 / 256.0, 9 / 256.0,
  15 / 256.0, 5 / 256.0, 40 / 256.0,
};

struct FirSettings {
  std::vector<double> coefficients = default_coefficients;
  GstClBorder border = GST_CL_BORDER_REPLICATE;
  bool started = false;
  clsettings::Refusals refusals;   /* values refused before start */
  clconv::Weights weights;     /* derived from coefficients */
  guint64 generation = 1;
};

struct FirState {
  clconv::Engine engine;
};

struct _GstClFir {
  GstClFilter parent;
  std::mutex *settings_lock;
  FirSettings *settings;
  FirState *state;
};

G_DEFINE_TYPE (GstClFir, gst_cl_fir, GST_TYPE_CL_FILTER)
GST_ELEMENT_REGISTER_DEFINE (clfir, "clfir", GST_RANK_NONE, GST_TYPE_CL_FIR)

enum { PROP_0, PROP_COEFFICIENTS, PROP_BORDER };

static void
update_weights (FirSettings * s)
{
  s->weights = clconv::prepare_weights (s->coefficients, {}, false, 0.0);
  s->generation++;
}

static void
gst_cl_fir_set_info (GstClFilter * filter, GstClContext *, GstCaps *,
    const GstVideoInfo * in_info, GstCaps *, const GstVideoInfo *)
{
  auto *self = GST_CL_FIR (filter);
  self->state->engine.set_format (in_info);
}

static gboolean
gst_cl_fir_start (GstBaseTransform * trans)
{
  auto *self = GST_CL_FIR (trans);
  return clsettings::mark_started (GST_ELEMENT (self), *self->settings_lock,
      self->settings->started, self->settings->refusals) &&
      clsettings::chain_start (trans, GST_BASE_TRANSFORM_CLASS (gst_cl_fir_parent_class),
      *self->settings_lock, self->settings->started);
}

static gboolean
gst_cl_fir_stop (GstBaseTransform * trans)
{
  auto *self = GST_CL_FIR (trans);
  clsettings::mark_stopped (*self->settings_lock, self->settings->started);
  return GST_BASE_TRANSFORM_CLASS (gst_cl_fir_parent_class)->stop (trans);
}

static GstFlowReturn
gst_cl_fir_filter (GstClFilter * filter, GstClContext * ctx, const GstClFrame * in,
    const GstClFrame * out)
{
  auto *self = GST_CL_FIR (filter);
  FirState *st = self->state;
  GstClBorder border;
  {
    std::lock_guard<std::mutex> lock (*self->settings_lock);
    border = self->settings->border;
    st->engine.take_weights (self->settings->weights, self->settings->generation);
  }
  st->engine.run (ctx, in, out, border);
  return GST_FLOW_OK;
}

static std::string
set_coefficients (FirSettings * s, const GValue * value)
{
  std::vector<double> k;
  std::string why;
  if (!clconv::values_from_array (value, &k, &why))
    return why;
  if (!(why = clconv::check_kernel (k)).empty ())
    return why;
  if (k.size () != 9)
    return std::to_string (k.size ()) + " values: clfir takes 9 (3x3); use "
        "clconvolve for other sizes";
  s->coefficients = std::move (k);
  update_weights (s);
  return "";
}

static void
gst_cl_fir_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  auto *self = GST_CL_FIR (object);
  std::string refused;
  bool running = false;
  {
    std::lock_guard<std::mutex> lock (*self->settings_lock);
    FirSettings *s = self->settings;
    running = s->started;
    switch (prop_id) {
      case PROP_COEFFICIENTS:
        refused = set_coefficients (s, value);
        if (refused.empty ())
          s->refusals.forget (pspec->name);
        else if (!running)
          s->refusals.add ({pspec->name, clsettings::describe_value (value), refused});
        break;
      case PROP_BORDER: self->settings->border = (GstClBorder) g_value_get_enum (value); break;
      default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
  }
  if (!refused.empty ())
    clsettings::report (GST_ELEMENT (self), running, pspec->name,
        clsettings::describe_value (value), refused,
        "The previous coefficients stay in force.");
}

static void
gst_cl_fir_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  auto *self = GST_CL_FIR (object);
  std::lock_guard<std::mutex> lock (*self->settings_lock);
  switch (prop_id) {
    case PROP_COEFFICIENTS:
      clconv::array_from_values (self->settings->coefficients, value);
      break;
    case PROP_BORDER: g_value_set_enum (value, self->settings->border); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
gst_cl_fir_finalize (GObject * object)
{
  auto *self = GST_CL_FIR (object);
  delete self->state;
  delete self->settings;
  delete self->settings_lock;
  G_OBJECT_CLASS (gst_cl_fir_parent_class)->finalize (object);
}

static void
gst_cl_fir_class_init (GstClFirClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstClFilterClass *filter_class = GST_CL_FILTER_CLASS (klass);
  const auto flags = (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING);

  gobject_class->set_property = gst_cl_fir_set_property;
  gobject_class->get_property = gst_cl_fir_get_property;
  gobject_class->finalize = gst_cl_fir_finalize;

  g_object_class_install_property (gobject_class, PROP_COEFFICIENTS,
      clconv::param_spec_weights ("coefficients", "Coefficients", "The 9 weights of "
          "the 3x3 filter, row-major, used as given. Default: the founding sample's "
          "[30 5 6; 19 30 9; 15 5 40] / 256, which blurs and darkens (not the "
          "identity, which is <0,0,0,0,1,0,0,0,0>)", flags));
  g_object_class_install_property (gobject_class, PROP_BORDER,
      g_param_spec_enum ("border", "Border", "How pixels outside the image are read",
          GST_TYPE_CL_BORDER, GST_CL_BORDER_REPLICATE, flags));

  gst_element_class_set_static_metadata (element_class, "OpenCL 3x3 FIR filter",
      "Filter/Effect/Video/Hardware", "3x3 floating-point FIR filter per colour "
      "channel on an OpenCL device. The default coefficients (the founding sample's "
      "[30 5 6; 19 30 9; 15 5 40] / 256) blur and darken: set coefficients for "
      "your own filter", "gst-opencl developers");
  gst_cl_filter_class_add_pad_templates (filter_class, GST_CL_CONVOLUTION_CAPS,
      GST_CL_CONVOLUTION_CAPS);

  trans_class->start = gst_cl_fir_start;
  trans_class->stop = gst_cl_fir_stop;
  filter_class->set_info = gst_cl_fir_set_info;
  filter_class->filter = gst_cl_fir_filter;

  GST_DEBUG_CATEGORY_INIT (gst_cl_fir_debug, "clfir", 0, "OpenCL 3x3 FIR filter");
}

static void
gst_cl_fir_init (GstClFir * self)
{
  self->settings_lock = new std::mutex ();
  self->settings = new FirSettings ();
  update_weights (self->settings);
  self->state = new FirState ();
}
