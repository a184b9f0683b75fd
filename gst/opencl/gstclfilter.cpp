/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstclfilter.h"
#include "gstclbufferpool.h"
#include "gstclvideo.h"
#include "gstcl.hpp"
#include "gstclbands.hpp"
#include "gstcl-debug.h"

#include <algorithm>
#include <cstring>

#define GST_CAT_DEFAULT gst_cl_runtime_debug

/* What of a frame's layout a plan depends on: its planes' offsets and
 * strides (aligned or unaligned kernel variants). */
struct Layout {
  gsize offset[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
};

static Layout
layout_of (const GstVideoInfo * info)
{
  Layout l {};
  for (guint i = 0; i < GST_VIDEO_INFO_N_PLANES (info); i++) {
    l.offset[i] = GST_VIDEO_INFO_PLANE_OFFSET (info, i);
    l.stride[i] = GST_VIDEO_INFO_PLANE_STRIDE (info, i);
  }
  return l;
}

static bool
same_layout (const Layout & a, const Layout & b)
{
  for (guint i = 0; i < GST_VIDEO_MAX_PLANES; i++)
    if (a.offset[i] != b.offset[i] || a.stride[i] != b.stride[i])
      return false;
  return true;
}

struct GstClFilterPrivate {
  GstVideoInfo in_info;
  GstVideoInfo out_info;
  gboolean out_cl;              /* downstream negotiated memory:OpenCLMemory */
  GstAllocator *upload_allocator;
  GstMemory *upload_mem;        /* device copy of system-memory input */
  GByteArray *repacked;         /* misaligned input rows, repacked for upload_mem */
  GstCaps *failed_in, *failed_out;  /* the caps set_info last failed on */
  /* The plan (GstClFilterClass::plan). Atomic: `settings_generation` (bumped
   * by any thread that changes a setting), `replan` (set by any thread) and
   * `plans` (read by any). The rest is the streaming thread's. */
  gint settings_generation;
  gint replan;
  guint plans;
  gboolean planned;             /* a plan stands for the caps set_info took */
  gint planned_generation;      /* the settings it was made for */
  Layout planned_in, planned_out;  /* and the frames' layouts */
  /* the last frame's host readiness (system-memory output), waited for
   * after the next frame is queued */
  cl::Event *pending;
  /* the frame's bands (GstClFilterClass::band_rows), while @filter runs */
  gstcl::Bands *bands;
  gboolean banding;
  /* set_caps: frames of these caps go in bands where a side crosses the
   * bus (a filter with band_rows, a discrete device, large frames) */
  gboolean bands_for_caps;
  int band_count;               /* gstcl::band_count_asked (), asked at set_caps */
};

/* A system-memory input to upload in bands: the buffer stays mapped until
 * its upload completes. */
struct HeldInput {
  GstBuffer *buffer = nullptr;
  GstMapInfo map {};
  const void *data = nullptr;   /* the bytes to upload (the map's or repacked) */
  gsize size = 0;
};

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstClFilter, gst_cl_filter, GST_TYPE_CL_BASE_TRANSFORM)

static GstClFilterPrivate *
priv_of (GstClFilter * self)
{
  return static_cast<GstClFilterPrivate *> (gst_cl_filter_get_instance_private (self));
}

static gboolean
has_cl_feature (GstCaps * caps, guint i)
{
  GstCapsFeatures *f = gst_caps_get_features (caps, i);
  return f && gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CL);
}

/* Turns whatever a subclass or a wait threw into an element error (none for
 * a wait that a flush ended: GST_FLOW_FLUSHING). Call from a catch. */
static GstFlowReturn
post_current_exception (GstClFilter * self, const char *stage)
{
  return gstcl::post_exception (GST_ELEMENT (self), stage);
}

static GstCaps *
gst_cl_filter_transform_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * filter)
{
  auto *self = GST_CL_FILTER (trans);
  auto *klass = GST_CL_FILTER_GET_CLASS (self);
  GstCaps *result;

  if (gst_caps_is_any (caps)) {
    result = gst_cl_base_transform_other_template (trans, direction);
  } else {
    GstCaps *plain = gst_caps_new_empty ();
    for (guint i = 0; i < gst_caps_get_size (caps); i++)
      plain = gst_caps_merge_structure (plain,
          gst_structure_copy (gst_caps_get_structure (caps, i)));
    GstCaps *other = klass->transform_plain_caps ?
        klass->transform_plain_caps (self, direction, plain) : gst_caps_ref (plain);
    gst_caps_unref (plain);
    /* Both memories, the one the caller has first. */
    GstCaps *both = gst_cl_caps_in_memories (other, TRUE, TRUE,
        gst_caps_get_size (caps) > 0 && has_cl_feature (caps, 0));
    gst_caps_unref (other);
    /* Only what the other pad takes (e.g. cldebayer's 2x2 minimum), so that
     * negotiation refuses the rest up front. */
    GstCaps *templ = gst_cl_base_transform_other_template (trans, direction);
    result = gst_caps_intersect_full (both, templ, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (templ);
    gst_caps_unref (both);
  }
  result = gst_cl_caps_apply_filter (result, filter);
  GST_LOG_OBJECT (self, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, result);
  return result;
}

/* Prefers OpenCL memory whenever the peer takes it: the next element may be
 * an OpenCL one, and a system-memory reader can still map the buffer. */
static GstCaps *
gst_cl_filter_fixate_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * othercaps)
{
  GstCaps *sorted = gst_caps_new_empty ();
  for (int pass = 0; pass < 2; pass++)
    for (guint i = 0; i < gst_caps_get_size (othercaps); i++)
      if (has_cl_feature (othercaps, i) == (pass == 0))
        gst_caps_append_structure_full (sorted,
            gst_structure_copy (gst_caps_get_structure (othercaps, i)),
            gst_caps_features_copy (gst_caps_get_features (othercaps, i)));
  gst_caps_unref (othercaps);
  return GST_BASE_TRANSFORM_CLASS (gst_cl_filter_parent_class)->fixate_caps (trans,
      direction, caps, sorted);
}

static void
release_upload (GstClFilterPrivate * p)
{
  if (p->upload_mem)
    gst_memory_unref (p->upload_mem);
  p->upload_mem = nullptr;
  if (p->upload_allocator)
    gst_object_unref (p->upload_allocator);
  p->upload_allocator = nullptr;
  if (p->repacked)
    g_byte_array_unref (p->repacked);
  p->repacked = nullptr;
}

static gboolean
gst_cl_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps, GstCaps * outcaps)
{
  auto *self = GST_CL_FILTER (trans);
  auto *p = priv_of (self);
  GstVideoInfo in_info, out_info;
  if (!gst_cl_video_info_from_caps (&in_info, incaps) ||
      !gst_cl_video_info_from_caps (&out_info, outcaps)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Unsupported caps"),
        ("in %" GST_PTR_FORMAT ", out %" GST_PTR_FORMAT, incaps, outcaps));
    return FALSE;
  }
  GstClContext *ctx = gst_cl_base_transform_get_context (GST_CL_BASE_TRANSFORM (self));
  if (!ctx) {
    GST_ELEMENT_ERROR (self, CORE, STATE_CHANGE, ("No OpenCL context"),
        ("set_caps before start"));
    return FALSE;
  }
  /* Negotiation retries set_caps for every buffer upstream pushes: after the
   * error has been posted, the same caps fail again at once instead of
   * building the same broken program (and printing its log) again. */
  if (p->failed_in && gst_cl_base_transform_error_posted (GST_CL_BASE_TRANSFORM (self)) &&
      gst_caps_is_equal (incaps, p->failed_in) && gst_caps_is_equal (outcaps, p->failed_out)) {
    GST_DEBUG_OBJECT (self, "these caps failed already: %" GST_PTR_FORMAT, incaps);
    gst_object_unref (ctx);
    return FALSE;
  }
  gst_caps_replace (&p->failed_in, nullptr);
  gst_caps_replace (&p->failed_out, nullptr);
  gboolean ok = TRUE;
  try {
    gstcl::BuildScope announce (GST_ELEMENT (self));  /* builds announce themselves */
    if (GST_CL_FILTER_GET_CLASS (self)->set_info)
      GST_CL_FILTER_GET_CLASS (self)->set_info (self, ctx, incaps, &in_info, outcaps,
          &out_info);
  } catch (...) {
    post_current_exception (self, "setting up the kernels");
    ok = FALSE;
    gst_caps_replace (&p->failed_in, incaps);
    gst_caps_replace (&p->failed_out, outcaps);
  }
  if (ok) {
    p->in_info = in_info;
    p->out_info = out_info;
    p->out_cl = has_cl_feature (outcaps, 0);
    p->bands_for_caps = GST_CL_FILTER_GET_CLASS (self)->band_rows &&
        !gst_cl_context_has_unified_memory (ctx) &&
        gstcl::bands_for (GST_VIDEO_INFO_SIZE (&in_info));
    p->band_count = gstcl::band_count_asked ();
    p->planned = FALSE;   /* the first frame plans for these caps */
    release_upload (p);
    GST_DEBUG_OBJECT (self, "%" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, incaps, outcaps);
  }
  gst_object_unref (ctx);
  return ok;
}

/* The rows of the frame `from` lays out in `data`, into `packed` in the
 * layout `to`. */
static void
repack (const guint8 * data, const GstVideoInfo * from, const GstVideoInfo * to,
    GByteArray * packed)
{
  g_byte_array_set_size (packed, (guint) GST_VIDEO_INFO_SIZE (to));
  for (guint i = 0; i < GST_VIDEO_INFO_N_PLANES (to); i++) {
    const gsize row_bytes = gst_cl_video_plane_row_bytes (to, i);
    for (gint r = 0; r < GST_VIDEO_INFO_COMP_HEIGHT (to, (gint) i); r++)
      memcpy (packed->data + GST_VIDEO_INFO_PLANE_OFFSET (to, i) +
          (gsize) r * GST_VIDEO_INFO_PLANE_STRIDE (to, i),
          data + GST_VIDEO_INFO_PLANE_OFFSET (from, i) +
          (gsize) r * GST_VIDEO_INFO_PLANE_STRIDE (from, i), row_bytes);
  }
}

/* On a unified-memory device, the input's own host memory as a GstClMemory,
 * without a copy (gst_cl_allocator_wrap_buffer: the buffer stays referenced
 * until the kernels that read it have completed); NULL where it cannot be
 * (a discrete device; several memories; a misaligned start): the caller
 * copies. The frame's layout is the same either way: the plan stands. */
static GstMemory *
wrap_input (GstClFilterPrivate * p, GstClContext * ctx, GstBuffer * inbuf)
{
  if (!gst_cl_context_has_unified_memory (ctx))
    return nullptr;
  if (!p->upload_allocator)
    p->upload_allocator = gst_cl_allocator_new (ctx);
  return gst_cl_allocator_wrap_buffer (p->upload_allocator, inbuf, GST_MAP_READ);
}

/* The input as one GstClMemory of our context (a reference): the buffer's
 * own, its host memory wrapped (unified devices), or a device copy of it; a
 * copy of misaligned rows is repacked into the caps' default layout, and
 * *info says so. With `held`, a copy is not made here: the buffer stays
 * mapped and *held says what to upload (in bands). Returns NULL (error
 * posted, or a flush: *ret says which) on failure. */
static GstMemory *
input_memory (GstClFilter * self, GstClContext * ctx, GstBuffer * inbuf, GstVideoInfo * info,
    GstFlowReturn * ret, HeldInput * held)
{
  *ret = GST_FLOW_ERROR;
  auto *p = priv_of (self);
  const bool misaligned = !gst_cl_video_info_sample_aligned (info);
  if (gst_buffer_n_memory (inbuf) == 1 && gst_cl_buffer_is_on_context (inbuf, ctx)) {
    if (misaligned) {   /* device memory is read where it lies */
      GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("16-bit rows must be 2-byte aligned"),
          ("OpenCL memory with offset %" G_GSIZE_FORMAT ", stride %d",
              GST_VIDEO_INFO_PLANE_OFFSET (info, 0), GST_VIDEO_INFO_PLANE_STRIDE (info, 0)));
      return nullptr;
    }
    return gst_memory_ref (gst_buffer_peek_memory (inbuf, 0));
  }
  if (!misaligned)
    if (GstMemory *wrapped = wrap_input (p, ctx, inbuf))
      return wrapped;

  gsize size = misaligned ? GST_VIDEO_INFO_SIZE (&p->in_info) : gst_buffer_get_size (inbuf);
  if (p->upload_mem && p->upload_mem->maxsize < size) {
    gst_memory_unref (p->upload_mem);
    p->upload_mem = nullptr;
  }
  if (!p->upload_mem) {
    if (!p->upload_allocator)
      p->upload_allocator = gst_cl_allocator_new (ctx);
    p->upload_mem = gst_allocator_alloc (p->upload_allocator, size, nullptr);
  }
  GstMapInfo map;
  if (!p->upload_mem || !gst_buffer_map (inbuf, &map, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("Could not upload the input frame"),
        ("%" G_GSIZE_FORMAT " bytes", size));
    return nullptr;
  }
  bool ok = true;
  try {
    gstcl::BuildScope scope (GST_ELEMENT (self));   /* its waits are this element's */
    if (misaligned) {
      if (!p->repacked)
        p->repacked = g_byte_array_new ();
      repack (map.data, info, &p->in_info, p->repacked);
      *info = p->in_info;
      if (held) {
        held->data = p->repacked->data;
        held->size = p->repacked->len;
        gst_buffer_unmap (inbuf, &map);
        return gst_memory_ref (p->upload_mem);
      }
      gstcl::write_from_host (p->upload_mem, p->repacked->data, p->repacked->len);
    } else if (held) {
      held->buffer = inbuf;
      held->map = map;
      held->data = map.data;
      held->size = map.size;
      return gst_memory_ref (p->upload_mem);
    } else {
      gstcl::write_from_host (p->upload_mem, map.data, map.size);
    }
  } catch (...) {
    *ret = post_current_exception (self, "uploading the input frame");
    ok = false;
  }
  gst_buffer_unmap (inbuf, &map);
  return ok ? gst_memory_ref (p->upload_mem) : nullptr;
}

static void
shift_offsets (GstVideoInfo * info, gsize by)
{
  for (guint i = 0; i < GST_VIDEO_INFO_N_PLANES (info); i++)
    GST_VIDEO_INFO_PLANE_OFFSET (info, i) += by;
}

/* The input's real layout in *info; FALSE, with the element error, when the
 * buffer is smaller than its caps say. */
static gboolean
check_input (GstClFilter * self, GstBuffer * inbuf, GstVideoInfo * info)
{
  auto *p = priv_of (self);
  if (gst_cl_buffer_frame_info (inbuf, &p->in_info, info))
    return TRUE;
  GST_ELEMENT_ERROR (self, STREAM, FORMAT,
      ("Input buffer is smaller than its caps say"),
      ("%" G_GSIZE_FORMAT " bytes for a %dx%d frame that needs %" G_GSIZE_FORMAT,
          gst_buffer_get_size (inbuf), GST_VIDEO_INFO_WIDTH (&p->in_info),
          GST_VIDEO_INFO_HEIGHT (&p->in_info), GST_VIDEO_INFO_SIZE (&p->in_info)));
  return FALSE;
}

/* Passthrough (a subclass with nothing to do, e.g. clconvert between equal
 * caps): the buffer goes on untouched, but a short one is still an error,
 * never a frame downstream reads past. */
static GstFlowReturn
gst_cl_filter_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstVideoInfo info;
  return check_input (GST_CL_FILTER (trans), buf, &info) ? GST_FLOW_OK : GST_FLOW_ERROR;
}

/* Calls the subclass's plan hook when the plan does not stand for this
 * frame: the first frame after set_info, settings changed since, other
 * frame layouts, or the element asked (GstClFilterClass, @plan). Never
 * otherwise: a frame with nothing new costs two atomic reads and the
 * layouts' comparison. */
static void
plan_if_needed (GstClFilter * self, GstClContext * ctx, const GstClFrame * in,
    const GstClFrame * out)
{
  auto *p = priv_of (self);
  auto *klass = GST_CL_FILTER_GET_CLASS (self);
  if (!klass->plan)
    return;
  /* Read before the plan reads the settings: a change meanwhile is planned
   * again at the next frame. */
  const bool asked = g_atomic_int_compare_and_exchange (&p->replan, 1, 0);
  const gint generation = g_atomic_int_get (&p->settings_generation);
  const Layout in_layout = layout_of (&in->info), out_layout = layout_of (&out->info);
  const bool settings = p->planned && generation != p->planned_generation;
  const bool layouts = p->planned && (!same_layout (in_layout, p->planned_in) ||
      !same_layout (out_layout, p->planned_out));
  if (p->planned && !settings && !layouts && !asked)
    return;
  GST_DEBUG_OBJECT (self, "planning: %s", !p->planned ? "new caps" : settings ? "settings" :
      layouts ? "frame layouts" : "asked by the element");
  p->planned = FALSE;   /* until the plan returns: one that throws is made again */
  klass->plan (self, ctx, in, out);
  p->planned = TRUE;
  p->planned_generation = generation;
  p->planned_in = in_layout;
  p->planned_out = out_layout;
  g_atomic_int_inc ((gint *) &p->plans);
}

/* The plane rows above frame row `row` (chroma planes: fewer, rounded up). */
static gsize
plane_rows (const GstVideoInfo * info, guint plane, int row)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];
  gst_video_format_info_component (info->finfo, plane, comp);
  return (gsize) GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (info->finfo, comp[0], row);
}

/* The bytes of output rows [top, bottom) in each plane (Bands::RowBytes). */
static std::vector<std::pair<size_t, size_t>>
row_bytes (const void *data, int top, int bottom, size_t limit)
{
  const auto *info = static_cast<const GstVideoInfo *> (data);
  std::vector<std::pair<size_t, size_t>> ranges;
  for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES (info); plane++) {
    const gsize stride = GST_VIDEO_INFO_PLANE_STRIDE (info, plane);
    const gsize a = GST_VIDEO_INFO_PLANE_OFFSET (info, plane) + plane_rows (info, plane, top) *
        stride;
    const gsize b = std::min<gsize> (limit, GST_VIDEO_INFO_PLANE_OFFSET (info, plane) +
        plane_rows (info, plane, bottom) * stride);
    if (b > a)
      ranges.push_back ({a, b - a});
  }
  return ranges;
}

/* The frame goes on with its transfer to the host queued (`ready`: a host
 * map of the output waits for it) once the frame before has completed, so
 * that at most two are on the device (docs/architecture.md, "Frames in
 * flight"). */
static void
hand_on (GstClFilter * self, GstClContext * ctx, const cl::Event & ready)
{
  gst_cl_filter_wait_previous_frame (self, ctx);
  *priv_of (self)->pending = ready;
}

/* gst_cl_filter_transform for a filter with band_rows on a discrete device
 * (gstclbands.hpp): the plan, then @filter with the input's uploads and
 * the output's reads queued band by band as it goes. */
static GstFlowReturn
transform_in_bands (GstClFilter * self, GstClContext * ctx, GstMemory * in_mem,
    HeldInput * held, GstClFrame * in, GstMemory * out_mem, GstClFrame * out)
{
  auto *p = priv_of (self);
  auto *klass = GST_CL_FILTER_GET_CLASS (self);
  GstMapInfo out_map;
  if (!gst_memory_map (out_mem, &out_map, (GstMapFlags) (GST_MAP_WRITE | GST_MAP_CL))) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("Could not map the output on the device"),
        (nullptr));
    return GST_FLOW_ERROR;
  }
  GstFlowReturn ret = GST_FLOW_ERROR;
  cl::Event uploaded;
  const int height = GST_VIDEO_INFO_HEIGHT (&in->info);
  try {
    gstcl::BuildScope announce (GST_ELEMENT (self));
    shift_offsets (&in->info, in_mem->offset);
    shift_offsets (&out->info, out_mem->offset);
    plan_if_needed (self, ctx, in, out);
    const int count = gstcl::band_count (p->band_count,
        klass->band_launches ? klass->band_launches (self) : 1);
    const std::vector<int> ends = gstcl::band_ends (height,
        GST_VIDEO_INFO_N_PLANES (&in->info) == 1 ? klass->band_rows (self) : 0, count);
    /* the bands' bytes: the rows of the first plane, in the device buffer
     * (held data goes to its start) */
    std::vector<size_t> bytes;
    const gsize total = held->data ? held->size : in_mem->maxsize;
    for (int end : ends)
      bytes.push_back (end == height ? total : std::min (total,
              GST_VIDEO_INFO_PLANE_OFFSET (&in->info, 0) +
              (gsize) end * GST_VIDEO_INFO_PLANE_STRIDE (&in->info, 0)));
    /* one band: the transfers as without bands, on the kernels' queue (the
     * copy queues' waits would cost without an overlap to pay for them) */
    const bool one = ends.size () == 1;
    if (one && held->data)
      gstcl::write_from_host (in_mem, held->data, held->size);
    else if (one)
      gstcl::sync_to_device (in_mem);
    gstcl::BandUpload upload;
    in->mem = gstcl::device_in_bands (in_mem, one ? nullptr : held->data, total, &upload);
    out->mem = (cl_mem) out_map.data;
    p->bands->set_input (in_mem, ends, bytes, std::move (upload));
    if (!p->out_cl && !one) {
      cl::Buffer device;
      if (void *staging = gstcl::start_band_download (out_mem, &device))
        p->bands->set_output (device, staging, row_bytes, &out->info,
            out_mem->offset + out_mem->size);
    }
    p->banding = TRUE;
    {
      gstcl::LaunchRecord record;
      ret = klass->filter (self, ctx, in, out);
    }
    p->banding = FALSE;
    uploaded = p->bands->finish_input (ctx);
    if (ret == GST_FLOW_OK)
      p->bands->done (ctx, height);
    gstcl::queue_of (ctx).flush ();
  } catch (...) {
    p->banding = FALSE;
    ret = post_current_exception (self, "running the kernel");
  }
  gst_memory_unmap (out_mem, &out_map);
  if (held->data) {
    /* The map (or the repacked rows, which the next frame overwrites) goes
     * back once the upload queued from it has read it, whether the frame
     * failed or not (an upload that never ran waits behind a kernel that
     * did not end: the queue is abandoned and nothing reads the map). */
    if (!uploaded ())
      uploaded = p->bands->queued_upload ();
    try {
      gstcl::BuildScope scope (GST_ELEMENT (self));
      if (uploaded ())
        gstcl::wait (ctx, uploaded, "the upload of the input frame");
    } catch (...) {
      if (ret == GST_FLOW_OK)
        ret = post_current_exception (self, "uploading the input frame");
    }
    if (held->buffer)
      gst_buffer_unmap (held->buffer, &held->map);
  }
  /* as on one queue (gst_cl_filter_transform), with the bands' reads */
  if (ret == GST_FLOW_OK && !p->out_cl) {
    try {
      gstcl::BuildScope scope (GST_ELEMENT (self));
      cl::Event ready = p->bands->last_read ();
      if (ready ())
        gstcl::end_band_download (out_mem, ready, p->bands->bands_read () > 1);
      else
        ready = gstcl::start_sync_to_host (out_mem);
      hand_on (self, ctx, ready);
    } catch (...) {
      ret = post_current_exception (self, "downloading the output frame");
    }
  }
  p->bands->clear ();
  return ret;
}

static GstFlowReturn
gst_cl_filter_transform (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer * outbuf)
{
  auto *self = GST_CL_FILTER (trans);
  auto *p = priv_of (self);
  GstClFrame in{}, out{};
  in.buffer = inbuf;
  out.buffer = outbuf;
  if (!check_input (self, inbuf, &in.info))
    return GST_FLOW_ERROR;
  GstMemory *out_mem = gst_buffer_n_memory (outbuf) == 1 ?
      gst_buffer_peek_memory (outbuf, 0) : nullptr;
  if (!gst_cl_buffer_frame_info (outbuf, &p->out_info, &out.info) ||
      !gst_is_cl_memory (out_mem)) {
    GST_ELEMENT_ERROR (self, CORE, FAILED, ("Output buffer is not a usable OpenCL buffer"),
        ("%" GST_PTR_FORMAT, outbuf));
    return GST_FLOW_ERROR;
  }

  GstClContext *ctx = gst_cl_base_transform_get_context (GST_CL_BASE_TRANSFORM (self));
  GstFlowReturn ret = GST_FLOW_ERROR;
  /* In bands where the caps allow them and a side of this frame goes
   * through PCIe: system memory in or out. */
  const bool banded = p->bands_for_caps &&
      (!p->out_cl || !gst_cl_buffer_is_on_context (inbuf, ctx));
  HeldInput held;
  GstMemory *in_mem = input_memory (self, ctx, inbuf, &in.info, &ret, banded ? &held : nullptr);
  if (!in_mem) {
    gst_object_unref (ctx);
    return ret;
  }
  if (banded) {
    ret = transform_in_bands (self, ctx, in_mem, &held, &in, out_mem, &out);
    gst_memory_unref (in_mem);
    gst_object_unref (ctx);
    return ret;
  }
  GstMapInfo in_map, out_map;
  if (!gst_memory_map (in_mem, &in_map, (GstMapFlags) (GST_MAP_READ | GST_MAP_CL))) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("Could not map the input on the device"),
        (nullptr));
  } else {
    if (!gst_memory_map (out_mem, &out_map, (GstMapFlags) (GST_MAP_WRITE | GST_MAP_CL))) {
      GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("Could not map the output on the device"),
          (nullptr));
    } else {
      in.mem = (cl_mem) in_map.data;
      out.mem = (cl_mem) out_map.data;
      shift_offsets (&in.info, in_mem->offset);
      shift_offsets (&out.info, out_mem->offset);
      try {
        gstcl::BuildScope announce (GST_ELEMENT (self));
        plan_if_needed (self, ctx, &in, &out);
        ret = GST_CL_FILTER_GET_CLASS (self)->filter (self, ctx, &in, &out);
        gstcl::queue_of (ctx).flush ();
      } catch (...) {
        ret = post_current_exception (self, "running the kernel");
      }
      gst_memory_unmap (out_mem, &out_map);
    }
    gst_memory_unmap (in_mem, &in_map);
  }
  /* A wrapped input's owner gets it back when the kernels reading it have
   * completed, not now (gst_cl_allocator_wrap_buffer). */
  gst_memory_unref (in_mem);
  /* A system-memory neighbour gets the frame with its map (a unified
   * device) or its download (a discrete one) queued behind the kernels,
   * which its host map waits for. This thread waits for the frame before
   * instead, so that at most two are on the device
   * (docs/architecture.md, "Frames in flight"). The waits are bounded by
   * the watchdog (the element's kernel-timeout) and end when the element
   * flushes or stops. */
  if (ret == GST_FLOW_OK && !p->out_cl) {
    try {
      gstcl::BuildScope scope (GST_ELEMENT (self));
      hand_on (self, ctx, gstcl::start_sync_to_host (out_mem));
    } catch (...) {
      ret = post_current_exception (self, "downloading the output frame");
    }
  }
  gst_object_unref (ctx);
  return ret;
}

void
gst_cl_filter_wait_previous_frame (GstClFilter * filter, GstClContext * context)
{
  auto *p = priv_of (filter);
  if ((*p->pending) ())
    gstcl::wait (context, *p->pending, "the frame before");
  *p->pending = cl::Event ();
}

gboolean
gst_cl_filter_previous_frame_in_flight (GstClFilter * filter)
{
  return (*priv_of (filter)->pending) () != nullptr;
}

/* Drops what a stream left: the upload buffer and the caps that failed. */
static void
forget_stream (GstClFilterPrivate * p)
{
  release_upload (p);
  *p->pending = cl::Event ();
  gst_caps_replace (&p->failed_in, nullptr);
  gst_caps_replace (&p->failed_out, nullptr);
}

static gboolean
gst_cl_filter_stop (GstBaseTransform * trans)
{
  priv_of (GST_CL_FILTER (trans))->planned = FALSE;
  forget_stream (priv_of (GST_CL_FILTER (trans)));
  return TRUE;
}

static void
gst_cl_filter_finalize (GObject * object)
{
  forget_stream (priv_of (GST_CL_FILTER (object)));
  delete priv_of (GST_CL_FILTER (object))->pending;
  delete priv_of (GST_CL_FILTER (object))->bands;
  G_OBJECT_CLASS (gst_cl_filter_parent_class)->finalize (object);
}

/* Controllable properties (GST_PARAM_CONTROLLABLE) take the values of their
 * control bindings at each frame's stream time, before the frame runs: the
 * element's own and those of its children (a GstChildProxy such as
 * clkernel's `parameters`). A segment in another format than time (BYTES,
 * from filesrc or multifilesrc ! capsfilter, appsrc format=bytes) maps no
 * timestamp to a stream time: the frame's timestamp is taken as it is. */
static void
gst_cl_filter_before_transform (GstBaseTransform * trans, GstBuffer * buffer)
{
  const GstClockTime time = trans->segment.format == GST_FORMAT_TIME ?
      gst_segment_to_stream_time (&trans->segment, GST_FORMAT_TIME, GST_BUFFER_PTS (buffer)) :
      GST_BUFFER_PTS (buffer);
  if (!GST_CLOCK_TIME_IS_VALID (time))
    return;
  gst_object_sync_values (GST_OBJECT (trans), time);
  if (!GST_IS_CHILD_PROXY (trans))
    return;
  GstChildProxy *proxy = GST_CHILD_PROXY (trans);
  for (guint i = 0; i < gst_child_proxy_get_children_count (proxy); i++) {
    GObject *child = gst_child_proxy_get_child_by_index (proxy, i);
    if (child && GST_IS_OBJECT (child))
      gst_object_sync_values (GST_OBJECT (child), time);
    if (child)
      g_object_unref (child);
  }
}

/* Whether a change of `pspec` is a change of the element's settings: any
 * writable property but GstObject's (name, parent), GstBaseTransform's
 * (qos) and GstClBaseTransform's (device, kernel-timeout), which no plan
 * reads. */
static bool
is_setting (const GParamSpec * pspec)
{
  return (pspec->flags & G_PARAM_WRITABLE) && pspec->owner_type != GST_TYPE_OBJECT &&
      pspec->owner_type != G_TYPE_OBJECT && pspec->owner_type != GST_TYPE_BASE_TRANSFORM &&
      pspec->owner_type != GST_TYPE_CL_BASE_TRANSFORM;
}

/* Every property change that notifies comes through here once (g_object_set,
 * launch lines, control bindings, g_object_notify of a property with
 * G_PARAM_EXPLICIT_NOTIFY): the settings' generation moves on, and the next
 * frame is planned again. */
static void
gst_cl_filter_dispatch_properties_changed (GObject * object, guint n_pspecs,
    GParamSpec ** pspecs)
{
  for (guint i = 0; i < n_pspecs; i++)
    if (is_setting (pspecs[i])) {
      gst_cl_filter_settings_changed (GST_CL_FILTER (object));
      break;
    }
  G_OBJECT_CLASS (gst_cl_filter_parent_class)->dispatch_properties_changed (object, n_pspecs,
      pspecs);
}

static void
gst_cl_filter_class_init (GstClFilterClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_cl_filter_finalize;
  G_OBJECT_CLASS (klass)->dispatch_properties_changed =
      gst_cl_filter_dispatch_properties_changed;
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_caps = gst_cl_filter_transform_caps;
  trans_class->fixate_caps = gst_cl_filter_fixate_caps;
  trans_class->set_caps = gst_cl_filter_set_caps;
  trans_class->transform = gst_cl_filter_transform;
  /* Only ever called in passthrough: always_in_place stays FALSE. */
  trans_class->transform_ip = gst_cl_filter_transform_ip;
  trans_class->transform_ip_on_passthrough = TRUE;
  trans_class->stop = gst_cl_filter_stop;
  trans_class->before_transform = gst_cl_filter_before_transform;
  gst_type_mark_as_plugin_api (GST_TYPE_CL_FILTER, (GstPluginAPIFlags) 0);
}

static void
gst_cl_filter_init (GstClFilter * self)
{
  priv_of (self)->pending = new cl::Event ();
  priv_of (self)->bands = new gstcl::Bands ();
}

gstcl::Bands *
gst_cl_filter_bands (GstClFilter * filter)
{
  g_return_val_if_fail (GST_IS_CL_FILTER (filter), nullptr);
  return priv_of (filter)->banding ? priv_of (filter)->bands : nullptr;
}

void
gst_cl_filter_class_add_pad_templates (GstClFilterClass * klass, const gchar * sink_caps,
    const gchar * src_caps)
{
  gst_cl_base_transform_class_add_pad_templates (GST_CL_BASE_TRANSFORM_CLASS (klass),
      sink_caps, TRUE, TRUE, src_caps, TRUE, TRUE);
}

void
gst_cl_filter_settings_changed (GstClFilter * filter)
{
  g_return_if_fail (GST_IS_CL_FILTER (filter));
  g_atomic_int_inc (&priv_of (filter)->settings_generation);
}

void
gst_cl_filter_replan (GstClFilter * filter)
{
  g_return_if_fail (GST_IS_CL_FILTER (filter));
  g_atomic_int_set (&priv_of (filter)->replan, 1);
}

guint
gst_cl_filter_get_plan_count (GstClFilter * filter)
{
  g_return_val_if_fail (GST_IS_CL_FILTER (filter), 0);
  return (guint) g_atomic_int_get ((gint *) &priv_of (filter)->plans);
}
