/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstclconvolutionfilter.h"
#include "gstclenums.h"

GST_DEBUG_CATEGORY_STATIC (gst_cl_convolution_filter_debug);
#define GST_CAT_DEFAULT gst_cl_convolution_filter_debug

namespace {

struct Settings {
  GstClBorder border = GST_CL_BORDER_REPLICATE;
  /* The weights of the last configuration whose properties agree
   * (`weights_generation` counts their changes), and why the current one
   * does not (empty property: it does; `generation` counts changes; also
   * the base class's conflict, which fails a start). */
  clconv::Weights weights;
  guint64 weights_generation = 1;
  clsettings::Refusal mismatch;
  guint64 generation = 1;
};

/* Negotiated state, used from the streaming thread only. */
struct State {
  clconv::Engine engine;
  guint64 warned_generation = 0;   /* configuration last warned about */
};

using Private = gstcl::ElementPrivate<Settings, State>;

}  // namespace

typedef struct {
  Private *p;
} GstClConvolutionFilterPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstClConvolutionFilter, gst_cl_convolution_filter,
    GST_TYPE_CL_FILTER)

enum { PROP_0, PROP_BORDER };

static Private *
priv (GstClConvolutionFilter * self)
{
  return static_cast<GstClConvolutionFilterPrivate *> (
      gst_cl_convolution_filter_get_instance_private (self))->p;
}

std::mutex &
gst_cl_convolution_filter_lock (GstClConvolutionFilter * self)
{
  return priv (self)->lock;
}

clconv::Weights
gst_cl_convolution_filter_weights (GstClConvolutionFilter * self)
{
  std::lock_guard<std::mutex> lock (priv (self)->lock);
  return priv (self)->settings.weights;
}

/* Under the lock (the base class's conflict is set under its object lock,
 * which is never held while taking ours). */
static void
renew_weights_locked (GstClConvolutionFilter * self)
{
  Settings &s = priv (self)->settings;
  s.generation++;
  clconv::Weights weights;
  clsettings::Refusal mismatch;
  if (GST_CL_CONVOLUTION_FILTER_GET_CLASS (self)->make_weights (self, &weights, &mismatch)) {
    s.mismatch = clsettings::Refusal ();
    s.weights = std::move (weights);
    s.weights_generation++;
  } else {
    s.mismatch = mismatch;
  }
  const clsettings::Refusal &m = s.mismatch;
  gst_cl_base_transform_set_conflict (GST_CL_BASE_TRANSFORM (self),
      m.property.empty () ? nullptr : m.property.c_str (), m.value.c_str (), m.why.c_str ());
}

void
gst_cl_convolution_filter_renew_weights (GstClConvolutionFilter * self)
{
  std::lock_guard<std::mutex> lock (priv (self)->lock);
  renew_weights_locked (self);
}

void
gst_cl_convolution_filter_set (GstClConvolutionFilter * self, GParamSpec * pspec,
    const GValue * value, const std::function<std::string ()> &apply)
{
  std::string refused;
  {
    std::lock_guard<std::mutex> lock (priv (self)->lock);
    refused = apply ();
    if (refused.empty ())
      renew_weights_locked (self);
  }
  /* Without the lock: a bus sync handler may read our properties. */
  clsettings::settle (GST_CL_BASE_TRANSFORM (self), pspec, value, refused,
      GST_CL_CONVOLUTION_FILTER_GET_CLASS (self)->kept);
}

/* The next start warns of a mismatch again. */
static gboolean
gst_cl_convolution_filter_stop (GstBaseTransform * trans)
{
  priv (GST_CL_CONVOLUTION_FILTER (trans))->state.warned_generation = 0;
  return GST_BASE_TRANSFORM_CLASS (gst_cl_convolution_filter_parent_class)->stop (trans);
}

static void
gst_cl_convolution_filter_set_info (GstClFilter * filter, GstClContext *, GstCaps *,
    const GstVideoInfo * in_info, GstCaps *, const GstVideoInfo *)
{
  priv (GST_CL_CONVOLUTION_FILTER (filter))->state.engine.set_format (in_info);
}

/* New weights and border (the settings changed), or other frame layouts. */
static void
gst_cl_convolution_filter_plan (GstClFilter * filter, GstClContext * ctx,
    const GstClFrame * in, const GstClFrame * out)
{
  auto *self = GST_CL_CONVOLUTION_FILTER (filter);
  Private *p = priv (self);
  GstClBorder border;
  clsettings::Refusal mismatch;
  {
    std::lock_guard<std::mutex> lock (p->lock);
    const Settings &s = p->settings;
    border = s.border;
    if (p->state.engine.take_weights (s.weights, s.weights_generation))
      GST_DEBUG_OBJECT (self, "new weights, %dx%d", s.weights.n, s.weights.n);
    if (!s.mismatch.property.empty () && p->state.warned_generation != s.generation) {
      mismatch = s.mismatch;
      p->state.warned_generation = s.generation;
    }
  }
  if (!mismatch.property.empty ())   /* started: a bus warning */
    gst_cl_base_transform_refuse (GST_CL_BASE_TRANSFORM (self), mismatch.property.c_str (),
        mismatch.value.c_str (), mismatch.why.c_str (),
        GST_CL_CONVOLUTION_FILTER_GET_CLASS (self)->kept);
  p->state.engine.plan (ctx, in, out, border);
}

static GstFlowReturn
gst_cl_convolution_filter_filter (GstClFilter * filter, GstClContext * ctx,
    const GstClFrame * in, const GstClFrame * out)
{
  priv (GST_CL_CONVOLUTION_FILTER (filter))->state.engine.run (ctx, in, out);
  return GST_FLOW_OK;
}

static void
gst_cl_convolution_filter_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  Private *p = priv (GST_CL_CONVOLUTION_FILTER (object));
  std::lock_guard<std::mutex> lock (p->lock);
  switch (prop_id) {
    case PROP_BORDER: p->settings.border = (GstClBorder) g_value_get_enum (value); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
gst_cl_convolution_filter_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  Private *p = priv (GST_CL_CONVOLUTION_FILTER (object));
  std::lock_guard<std::mutex> lock (p->lock);
  switch (prop_id) {
    case PROP_BORDER: g_value_set_enum (value, p->settings.border); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
gst_cl_convolution_filter_finalize (GObject * object)
{
  delete priv (GST_CL_CONVOLUTION_FILTER (object));
  G_OBJECT_CLASS (gst_cl_convolution_filter_parent_class)->finalize (object);
}

static void
gst_cl_convolution_filter_class_init (GstClConvolutionFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstClFilterClass *filter_class = GST_CL_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cl_convolution_filter_set_property;
  gobject_class->get_property = gst_cl_convolution_filter_get_property;
  gobject_class->finalize = gst_cl_convolution_filter_finalize;

  g_object_class_install_property (gobject_class, PROP_BORDER,
      g_param_spec_enum ("border", "Border", "How pixels outside the image are read",
          GST_TYPE_CL_BORDER, GST_CL_BORDER_REPLICATE,
          (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
              GST_PARAM_MUTABLE_PLAYING)));

  gst_cl_filter_class_add_pad_templates (filter_class, GST_CL_CONVOLUTION_CAPS,
      GST_CL_CONVOLUTION_CAPS);
  trans_class->stop = gst_cl_convolution_filter_stop;
  filter_class->set_info = gst_cl_convolution_filter_set_info;
  filter_class->plan = gst_cl_convolution_filter_plan;
  filter_class->filter = gst_cl_convolution_filter_filter;
  klass->kept = "The previous weights stay in force.";

  GST_DEBUG_CATEGORY_INIT (gst_cl_convolution_filter_debug, "clconvolutionfilter", 0,
      "Base of the OpenCL convolution elements");
  gst_type_mark_as_plugin_api (GST_TYPE_CL_CONVOLUTION_FILTER, (GstPluginAPIFlags) 0);
}

static void
gst_cl_convolution_filter_init (GstClConvolutionFilter * self)
{
  static_cast<GstClConvolutionFilterPrivate *> (
      gst_cl_convolution_filter_get_instance_private (self))->p = new Private ();
}
