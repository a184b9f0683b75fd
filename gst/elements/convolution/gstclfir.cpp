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
#include "gstclelements.h"

/* As set, under the base's lock (its ElementPrivate), as clconvolve keeps
 * its ConvolveSettings. */
struct FirSettings {
  /* Always 9 finite values; by default the founding sample's. */
  std::vector<double> coefficients {
    30 / 256.0, 5 / 256.0, 6 / 256.0,
    19 / 256.0, 30 / 256.0, 9 / 256.0,
    15 / 256.0, 5 / 256.0, 40 / 256.0,
  };
};

struct _GstClFir {
  GstClConvolutionFilter parent;
  FirSettings *settings;
};

G_DEFINE_TYPE (GstClFir, gst_cl_fir, GST_TYPE_CL_CONVOLUTION_FILTER)
GST_ELEMENT_REGISTER_DEFINE (clfir, "clfir", GST_RANK_NONE, GST_TYPE_CL_FIR)

enum { PROP_0, PROP_COEFFICIENTS };

static gboolean
gst_cl_fir_make_weights (GstClConvolutionFilter * base, clconv::Weights * weights,
    clsettings::Refusal *)
{
  *weights = clconv::prepare_weights (GST_CL_FIR (base)->settings->coefficients, {}, false,
      0.0);
  return TRUE;
}

/* Stores 9 good coefficients; else says why not. */
static std::string
set_coefficients (FirSettings * s, const GValue * value)
{
  std::vector<double> k;
  std::string why;
  if (!clsettings::values_from_array (value, &k, &why))
    return why;
  if (!(why = clconv::check_kernel (k)).empty ())
    return why;
  if (k.size () != 9)
    return std::to_string (k.size ()) + " values: clfir takes 9 (3x3); use "
        "clconvolve for other sizes";
  s->coefficients = std::move (k);
  return "";
}

static void
gst_cl_fir_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  auto *self = GST_CL_FIR (object);
  if (prop_id == PROP_COEFFICIENTS)
    gst_cl_convolution_filter_set (GST_CL_CONVOLUTION_FILTER (self), pspec, value,
        [&] { return set_coefficients (self->settings, value); });
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
gst_cl_fir_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  auto *self = GST_CL_FIR (object);
  std::lock_guard<std::mutex> lock (gst_cl_convolution_filter_lock (
          GST_CL_CONVOLUTION_FILTER (self)));
  if (prop_id == PROP_COEFFICIENTS)
    clsettings::array_from_values (self->settings->coefficients, value);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
gst_cl_fir_class_init (GstClFirClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  auto *conv_class = reinterpret_cast<GstClConvolutionFilterClass *> (klass);

  gobject_class->set_property = gst_cl_fir_set_property;
  gobject_class->get_property = gst_cl_fir_get_property;
  gobject_class->finalize =
      gstcl::finalize_deleting<&GstClFir::settings, &gst_cl_fir_parent_class>;
  g_object_class_install_property (gobject_class, PROP_COEFFICIENTS,
      clsettings::param_spec_weights ("coefficients", "Coefficients", "The 9 weights of "
          "the 3x3 filter, row-major, used as given. Default: the founding sample's "
          "[30 5 6; 19 30 9; 15 5 40] / 256, which blurs and darkens (not the "
          "identity, which is <0,0,0,0,1,0,0,0,0>)",
          (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
              GST_PARAM_MUTABLE_PLAYING)));
  gst_element_class_set_static_metadata (element_class, "OpenCL 3x3 FIR filter",
      "Filter/Effect/Video/Hardware", "3x3 floating-point FIR filter per colour "
      "channel on an OpenCL device. The default coefficients (the founding sample's "
      "[30 5 6; 19 30 9; 15 5 40] / 256) blur and darken: set coefficients for "
      "your own filter", "gst-opencl developers");
  conv_class->make_weights = gst_cl_fir_make_weights;
  conv_class->kept = "The previous coefficients stay in force.";
}

static void
gst_cl_fir_init (GstClFir * self)
{
  self->settings = new FirSettings ();
  gst_cl_convolution_filter_renew_weights (GST_CL_CONVOLUTION_FILTER (self));
}
