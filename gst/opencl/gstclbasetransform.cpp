/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstclbasetransform.h"
#include "gstclbufferpool.h"
#include "gstcl.hpp"
#include "gstclwatchdog-private.hpp"
#include <gst/video/video.h>
#include "gstcl-debug.h"

#define GST_CAT_DEFAULT gst_cl_runtime_debug

#include <mutex>
#include <string>
#include <vector>

namespace {

/* One refused value, or a conflict (gst_cl_base_transform_refuse ()). */
struct Refusal {
  std::string property;   /* empty: none */
  std::string value;      /* as a launch line writes it */
  std::string why;
};

/* What the subclass refused, and whether the element runs. Under a lock of
 * its own: set_property may run under the object lock (a control binding's
 * gst_object_sync_values ()), and under the subclass's settings lock. */
struct Refusals {
  std::mutex lock;
  bool started = false;
  std::vector<Refusal> values;   /* refused while not started */
  Refusal conflict;
};

}  // namespace

struct GstClBaseTransformPrivate {
  GstClContext *context;
  gchar *device;  /* property; guarded by the object lock */
  gint posted_error;  /* atomic: an error was posted for the current stream */
  Refusals *refusals;  /* made in instance init */
  guint kernel_timeout;  /* property, ms; atomic */
  std::shared_ptr<gstcl::watchdog::Owner> *owner;  /* made in instance init */
};

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstClBaseTransform, gst_cl_base_transform,
    GST_TYPE_BASE_TRANSFORM)

enum { PROP_0, PROP_DEVICE, PROP_KERNEL_TIMEOUT };

static GstClBaseTransformPrivate *
priv_of (GstClBaseTransform * self)
{
  return static_cast<GstClBaseTransformPrivate *> (
      gst_cl_base_transform_get_instance_private (self));
}

static gchar *
device_selector (GstClBaseTransform * self)
{
  GST_OBJECT_LOCK (self);
  gchar *d = g_strdup (priv_of (self)->device);
  GST_OBJECT_UNLOCK (self);
  return d;
}

guint
gst_cl_base_transform_get_kernel_timeout (GstClBaseTransform * self)
{
  g_return_val_if_fail (GST_IS_CL_BASE_TRANSFORM (self), 0);
  return (guint) g_atomic_int_get ((gint *) &priv_of (self)->kernel_timeout);
}

std::shared_ptr<gstcl::watchdog::Owner>
gstcl::watchdog::owner_of (GstElement * element)
{
  if (!element || !GST_IS_CL_BASE_TRANSFORM (element))
    return nullptr;
  return *priv_of (GST_CL_BASE_TRANSFORM (element))->owner;
}

GstClContext *
gst_cl_base_transform_get_context (GstClBaseTransform * self)
{
  GST_OBJECT_LOCK (self);
  GstClContext *c = priv_of (self)->context;
  if (c)
    gst_object_ref (c);
  GST_OBJECT_UNLOCK (self);
  return c;
}

static void
gst_cl_base_transform_set_context (GstElement * element, GstContext * context)
{
  auto *self = GST_CL_BASE_TRANSFORM (element);
  gchar *selector = device_selector (self);
  gst_cl_handle_set_context (element, context, selector, &priv_of (self)->context);
  g_free (selector);
  GST_ELEMENT_CLASS (gst_cl_base_transform_parent_class)->set_context (element, context);
}

static gboolean
gst_cl_base_transform_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT) {
    /* Answer without holding our lock: the neighbour may be asking from its
     * own state change. */
    GstClContext *c = gst_cl_base_transform_get_context (GST_CL_BASE_TRANSFORM (trans));
    gboolean handled = gst_cl_handle_context_query (GST_ELEMENT (trans), query, c);
    if (c)
      gst_object_unref (c);
    if (handled)
      return TRUE;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cl_base_transform_parent_class)->query (trans,
      direction, query);
}

static gboolean
gst_cl_base_transform_start (GstBaseTransform * trans)
{
  auto *self = GST_CL_BASE_TRANSFORM (trans);
  gchar *selector = device_selector (self);
  gboolean ok = gst_cl_ensure_element_context (GST_ELEMENT (trans), selector,
      &priv_of (self)->context);
  g_free (selector);
  if (ok) {
    GstClContext *c = gst_cl_base_transform_get_context (self);
    GST_INFO_OBJECT (self, "running on %s", gst_cl_context_get_device_name (c));
    gst_object_unref (c);
  }
  return ok;
}

static gboolean
gst_cl_base_transform_propose_allocation (GstBaseTransform * trans, GstQuery *, GstQuery * query)
{
  GstCaps *caps = nullptr;
  gboolean need_pool = FALSE;
  gst_query_parse_allocation (query, &caps, &need_pool);
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, nullptr);
  GstClContext *ctx = gst_cl_base_transform_get_context (GST_CL_BASE_TRANSFORM (trans));
  if (caps && need_pool && ctx) {
    /* Producers that write into our memory save an upload copy, and write
     * into pinned memory that transfers at full bus speed. */
    guint size = 0;
    GstBufferPool *pool = gst_cl_buffer_pool_new_for_caps (ctx, caps, 0, &size);
    if (pool) {
      GST_DEBUG_OBJECT (trans, "proposing an OpenCL pool upstream, %u bytes a buffer", size);
      gst_query_add_allocation_pool (query, pool, size, 0, 0);
      gst_object_unref (pool);
    }
  }
  if (ctx)
    gst_object_unref (ctx);
  return TRUE;
}

/* Whether `pool`, proposed by downstream, can be our output pool: an
 * OpenCL pool of our context, configured for `caps` (a consumer's pool of
 * memory it shares with another API: gstclsource.hpp). */
static bool
fits (GstClBaseTransform * self, GstBufferPool * pool, GstClContext * ctx, GstCaps * caps)
{
  if (!pool || !GST_IS_CL_BUFFER_POOL (pool) || gst_cl_buffer_pool_get_context (pool) != ctx)
    return false;
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstCaps *pool_caps = nullptr;
  guint size = 0;
  GstVideoInfo info;
  const bool ok = gst_buffer_pool_config_get_params (config, &pool_caps, &size, nullptr,
      nullptr) && pool_caps && gst_caps_is_equal (pool_caps, caps) &&
      gst_cl_video_info_from_caps (&info, caps) && size >= GST_VIDEO_INFO_SIZE (&info);
  GST_DEBUG_OBJECT (self, "downstream proposes an OpenCL pool %" GST_PTR_FORMAT " for %"
      GST_PTR_FORMAT ": %s", pool, pool_caps, ok ? "taken" : "not for these caps");
  gst_structure_free (config);
  return ok;
}

static gboolean
gst_cl_base_transform_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  auto *self = GST_CL_BASE_TRANSFORM (trans);
  GstCaps *caps = nullptr;
  gst_query_parse_allocation (query, &caps, nullptr);
  GstClContext *ctx = gst_cl_base_transform_get_context (GST_CL_BASE_TRANSFORM (trans));
  if (!caps || !ctx) {
    if (ctx)
      gst_object_unref (ctx);
    return FALSE;
  }
  guint min = 0, size = 0, max = 0;
  GstBufferPool *proposed = nullptr;
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, &proposed, &size, &min, &max);
  /* An OpenCL pool of ours that downstream proposes is taken as it is: its
   * buffers may be memory it shares with another API (cldownload's CUDA
   * memory out), which our kernels then write straight into. */
  if (fits (self, proposed, ctx, caps)) {
    gst_object_unref (ctx);
    gst_object_unref (proposed);
    return TRUE;   /* (the query's first pool) */
  }
  if (proposed)
    gst_object_unref (proposed);
  /* Else our own. Output is always OpenCL memory: mappable by
   * system-memory peers too. */
  GstBufferPool *pool = gst_cl_buffer_pool_new_for_caps (ctx, caps, min, &size);
  gst_object_unref (ctx);
  if (!pool) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("Could not set up an OpenCL buffer pool"),
        ("caps %" GST_PTR_FORMAT, caps));
    return FALSE;
  }
  GST_DEBUG_OBJECT (self, "output pool: %u bytes a buffer, at least %u buffers", size, min);
  gst_cl_query_put_output_pool (query, pool, size, min);
  gst_object_unref (pool);
  return TRUE;
}

/* The default allocation from the output pool, with a clear error when the
 * device is out of memory. */
static GstFlowReturn
gst_cl_base_transform_prepare_output_buffer (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer ** outbuf)
{
  GstFlowReturn ret = GST_BASE_TRANSFORM_CLASS (gst_cl_base_transform_parent_class)->
      prepare_output_buffer (trans, inbuf, outbuf);
  if (ret == GST_FLOW_ERROR)
    GST_ELEMENT_ERROR (trans, RESOURCE, NO_SPACE_LEFT,
        ("Could not allocate an OpenCL output buffer"),
        ("the device is out of memory, or the pool could not grow"));
  return ret;
}

/* One mistake, one error message: once the element has posted an error for
 * a stream, it posts none again until the stream starts over (a state change
 * up to PAUSED, a flush or a new stream). Negotiation retries set_caps for
 * every buffer the source pushes, and each retry would otherwise post the
 * same error again; so would any later failure the first one causes. */
static gboolean
gst_cl_base_transform_post_message (GstElement * element, GstMessage * message)
{
  if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR &&
      GST_MESSAGE_SRC (message) == GST_OBJECT (element) &&
      !g_atomic_int_compare_and_exchange (&priv_of (GST_CL_BASE_TRANSFORM (element))->
          posted_error, 0, 1)) {
    GError *error = nullptr;
    gst_message_parse_error (message, &error, nullptr);
    GST_INFO_OBJECT (element, "an error was posted already for this stream; not "
        "posting \"%s\"", error ? error->message : "");
    g_clear_error (&error);
    gst_message_unref (message);
    return FALSE;
  }
  return GST_ELEMENT_CLASS (gst_cl_base_transform_parent_class)->post_message (element,
      message);
}

gboolean
gst_cl_base_transform_error_posted (GstClBaseTransform * self)
{
  return g_atomic_int_get (&priv_of (self)->posted_error) != 0;
}

static gboolean
gst_cl_base_transform_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP ||
      GST_EVENT_TYPE (event) == GST_EVENT_STREAM_START)
    g_atomic_int_set (&priv_of (GST_CL_BASE_TRANSFORM (trans))->posted_error, 0);
  return GST_BASE_TRANSFORM_CLASS (gst_cl_base_transform_parent_class)->sink_event (trans,
      event);
}

/* Refused values (gstclbasetransform.h): a g_warning remembered for the
 * start before it, a bus warning while the element runs. */

static void
forget_locked (Refusals * r, const char *property)
{
  auto &v = r->values;
  for (auto it = v.begin (); it != v.end ();)
    it = it->property == property ? v.erase (it) : it + 1;
}

void
gst_cl_base_transform_refuse (GstClBaseTransform * self, const gchar * property,
    const gchar * value, const gchar * why, const gchar * in_force)
{
  Refusals *r = priv_of (self)->refusals;
  bool running;
  {
    std::lock_guard<std::mutex> guard (r->lock);
    running = r->started;
    if (!running) {
      forget_locked (r, property);
      r->values.push_back ({property, value, why});
    }
  }
  GST_WARNING_OBJECT (self, "refused %s = %s: %s", property, value, why);
  if (running) {
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("Refused the value of %s: %s. %s",
            property, why, in_force), ("%s = %s", property, value));
  } else {
    g_warning ("%s: refused the value %s of property \"%s\": %s; the element will "
        "not start until %s has a valid value", GST_ELEMENT_NAME (self), value, property,
        why, property);
  }
}

void
gst_cl_base_transform_accept (GstClBaseTransform * self, const gchar * property)
{
  Refusals *r = priv_of (self)->refusals;
  std::lock_guard<std::mutex> guard (r->lock);
  forget_locked (r, property);
}

void
gst_cl_base_transform_set_conflict (GstClBaseTransform * self, const gchar * property,
    const gchar * value, const gchar * why)
{
  Refusal conflict;
  if (property)
    conflict = {property, value ? value : "", why ? why : ""};
  Refusals *r = priv_of (self)->refusals;
  std::lock_guard<std::mutex> guard (r->lock);
  r->conflict = std::move (conflict);
}

/* Up to PAUSED: fails, with the element error, for the first value refused
 * before (then a conflict), before any start of the subclass; else the
 * element runs (refusals are bus warnings) until it is back in READY. */
static bool
mark_started (GstClBaseTransform * self)
{
  Refusals *r = priv_of (self)->refusals;
  Refusal refused;
  {
    std::lock_guard<std::mutex> guard (r->lock);
    if (!r->values.empty ())
      refused = r->values.front ();
    else if (!r->conflict.property.empty ())
      refused = r->conflict;
    else
      r->started = true;
  }
  if (refused.property.empty ())
    return true;
  GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("Invalid value of property \"%s\": "
          "%s (%s)", refused.property.c_str (), refused.value.c_str (),
          refused.why.c_str ()), (nullptr));
  return false;
}

static void
mark_stopped (GstClBaseTransform * self)
{
  Refusals *r = priv_of (self)->refusals;
  std::lock_guard<std::mutex> guard (r->lock);
  r->started = false;
}

static GstStateChangeReturn
gst_cl_base_transform_change_state (GstElement * element, GstStateChange transition)
{
  auto *self = GST_CL_BASE_TRANSFORM (element);
  if (transition == GST_STATE_CHANGE_NULL_TO_READY ||
      transition == GST_STATE_CHANGE_READY_TO_PAUSED)
    g_atomic_int_set (&priv_of (self)->posted_error, 0);
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED && !mark_started (self))
    return GST_STATE_CHANGE_FAILURE;
  GstStateChangeReturn ret = GST_ELEMENT_CLASS (gst_cl_base_transform_parent_class)->
      change_state (element, transition);
  if ((transition == GST_STATE_CHANGE_READY_TO_PAUSED &&
          ret == GST_STATE_CHANGE_FAILURE) || transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    mark_stopped (self);
  if (transition == GST_STATE_CHANGE_READY_TO_NULL) {
    /* Forget the device: the next start finds or makes a context afresh. */
    auto *p = priv_of (GST_CL_BASE_TRANSFORM (element));
    GST_OBJECT_LOCK (element);
    GstClContext *c = p->context;
    p->context = nullptr;
    GST_OBJECT_UNLOCK (element);
    if (c)
      gst_object_unref (c);
  }
  return ret;
}

static void
gst_cl_base_transform_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  auto *p = priv_of (GST_CL_BASE_TRANSFORM (object));
  switch (prop_id) {
    case PROP_DEVICE:
      GST_OBJECT_LOCK (object);
      g_free (p->device);
      p->device = g_value_dup_string (value);
      GST_OBJECT_UNLOCK (object);
      break;
    case PROP_KERNEL_TIMEOUT:
      g_atomic_int_set ((gint *) &p->kernel_timeout, (gint) g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
gst_cl_base_transform_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  auto *p = priv_of (GST_CL_BASE_TRANSFORM (object));
  switch (prop_id) {
    case PROP_DEVICE:
      GST_OBJECT_LOCK (object);
      g_value_set_string (value, p->device);
      GST_OBJECT_UNLOCK (object);
      break;
    case PROP_KERNEL_TIMEOUT:
      g_value_set_uint (value, gst_cl_base_transform_get_kernel_timeout (
              GST_CL_BASE_TRANSFORM (object)));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
gst_cl_base_transform_finalize (GObject * object)
{
  auto *p = priv_of (GST_CL_BASE_TRANSFORM (object));
  g_free (p->device);
  if (p->context)
    gst_object_unref (p->context);
  delete p->refusals;
  delete p->owner;
  G_OBJECT_CLASS (gst_cl_base_transform_parent_class)->finalize (object);
}

/* A frame's size, Bayer included. */
static gboolean
gst_cl_base_transform_get_unit_size (GstBaseTransform *, GstCaps * caps, gsize * size)
{
  GstVideoInfo info;
  if (!gst_cl_video_info_from_caps (&info, caps))
    return FALSE;
  *size = GST_VIDEO_INFO_SIZE (&info);
  return TRUE;
}

static void
gst_cl_base_transform_class_init (GstClBaseTransformClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_cl_base_transform_set_property;
  gobject_class->get_property = gst_cl_base_transform_get_property;
  gobject_class->finalize = gst_cl_base_transform_finalize;

  g_object_class_install_property (gobject_class, PROP_DEVICE,
      g_param_spec_string ("device", "Device",
          "OpenCL device: empty (first GPU, else accelerator, else CPU); 'auto' "
          "(a new context goes to the GPU, else accelerator or CPU, with the fewest "
          "live contexts of the process: pipelines spread over the GPUs); 'gpu', "
          "'cpu', 'accelerator', or 'gpu:N' (the Nth GPU); an index as "
          "gst-opencl-info prints it; a stable id it prints, 'pci:0000:41:00.0' or "
          "'uuid:...'; or a case-insensitive part of 'platform / device'. Empty uses "
          "$GST_OPENCL_DEVICE when set. A value other than empty or 'auto' also "
          "decides which shared context this element accepts.",
          nullptr,
          (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
              GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property (gobject_class, PROP_KERNEL_TIMEOUT,
      g_param_spec_uint ("kernel-timeout", "Kernel timeout",
          "The longest time in milliseconds that one launch of this element's kernels "
          "may run on the device; 0: no limit. A frame whose kernel runs longer fails "
          "with an error naming the kernel, and the streaming thread returns instead "
          "of blocking. A running kernel cannot be stopped: its device queue is "
          "abandoned (its context and buffers kept until it ends), and the next start "
          "takes a new context. The default is 5000, or $GST_OPENCL_KERNEL_TIMEOUT.",
          0, G_MAXUINT, GST_CL_DEFAULT_KERNEL_TIMEOUT,
          (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
              GST_PARAM_MUTABLE_PLAYING)));

  element_class->set_context = gst_cl_base_transform_set_context;
  element_class->change_state = gst_cl_base_transform_change_state;
  element_class->post_message = gst_cl_base_transform_post_message;
  trans_class->sink_event = gst_cl_base_transform_sink_event;
  trans_class->query = gst_cl_base_transform_query;
  trans_class->start = gst_cl_base_transform_start;
  trans_class->propose_allocation = gst_cl_base_transform_propose_allocation;
  trans_class->decide_allocation = gst_cl_base_transform_decide_allocation;
  trans_class->prepare_output_buffer = gst_cl_base_transform_prepare_output_buffer;
  trans_class->get_unit_size = gst_cl_base_transform_get_unit_size;
  gst_cl_debug_init ();
  gst_type_mark_as_plugin_api (GST_TYPE_CL_BASE_TRANSFORM, (GstPluginAPIFlags) 0);
}

static void
gst_cl_base_transform_init (GstClBaseTransform * self)
{
  priv_of (self)->refusals = new Refusals ();
  priv_of (self)->kernel_timeout = gstcl::default_kernel_timeout ();
  priv_of (self)->owner = new std::shared_ptr<gstcl::watchdog::Owner> (
      std::make_shared<gstcl::watchdog::Owner> (GST_ELEMENT (self)));
}

GstCaps *
gst_cl_caps_in_memories (const GstCaps * caps, gboolean cl_memory, gboolean system_memory,
    gboolean cl_first)
{
  GstCaps *out = gst_caps_new_empty ();
  for (int pass = 0; pass < 2; pass++) {
    const bool cl = (pass == 0) == (cl_first != FALSE);
    if ((cl && !cl_memory) || (!cl && !system_memory))
      continue;
    for (guint i = 0; i < gst_caps_get_size (caps); i++) {
      GstCapsFeatures *f = cl ?
          gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CL, nullptr) :
          gst_caps_features_new_empty ();
      out = gst_caps_merge_structure_full (out,
          gst_structure_copy (gst_caps_get_structure (caps, i)), f);
    }
  }
  return out;
}

GstCaps *
gst_cl_base_transform_other_template (GstBaseTransform * trans, GstPadDirection direction)
{
  return gst_pad_get_pad_template_caps (direction == GST_PAD_SINK ? trans->srcpad :
      trans->sinkpad);
}

GstCaps *
gst_cl_caps_apply_filter (GstCaps * result, GstCaps * filter)
{
  if (!filter)
    return result;
  GstCaps *tmp = gst_caps_intersect_full (filter, result, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (result);
  return tmp;
}

GstCaps *
gst_cl_caps_with_features (const gchar * caps_str, gboolean cl_memory,
    gboolean system_memory)
{
  GstCaps *plain = gst_caps_from_string (caps_str);
  GstCaps *out = gst_cl_caps_in_memories (plain, cl_memory, system_memory, TRUE);
  gst_caps_unref (plain);
  return out;
}

void
gst_cl_base_transform_class_add_pad_templates (GstClBaseTransformClass * klass,
    const gchar * sink_caps, gboolean sink_cl, gboolean sink_system,
    const gchar * src_caps, gboolean src_cl, gboolean src_system)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCaps *sink = gst_cl_caps_with_features (sink_caps, sink_cl, sink_system);
  GstCaps *src = gst_cl_caps_with_features (src_caps, src_cl, src_system);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, sink));
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, src));
  gst_caps_unref (sink);
  gst_caps_unref (src);
}
