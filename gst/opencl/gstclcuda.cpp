/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CUDA bridge (gstclcuda.hpp): the device match, the elements' side.
 * The memory both APIs share: gstclcudashared.hpp; libcuda and
 * libgstcuda-1.0: gstclcuda-private.hpp. */
#include "gstclcuda.hpp"
#include "gstclcuda-private.hpp"
#include "gstclcudashared.hpp"
#include "gstclcudawrap.hpp"
#include "gstcl.hpp"
#include "gstclmemory.h"
#include "gstclsource.hpp"
#include "gstclvideo.h"

#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#define GST_CAT_DEFAULT gst_cl_cuda_debug

namespace {

using namespace gstcl::cuda::api;

const char *
uuid_string (const unsigned char *b, char out[37])
{
  g_snprintf (out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
      b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
      b[14], b[15]);
  return out;
}

std::atomic<guint64> n_to_cl {0}, n_from_cl {0}, n_bytes {0}, n_direct_to_cl {0},
    n_direct_from_cl {0}, n_wrapped_from_cl {0};

bool
uuid_of (GstClContext *ctx, unsigned char out[16])
{
  const cl::Device &dev = gstcl::device_of (ctx);
  std::string ext = dev.getInfo<CL_DEVICE_EXTENSIONS> ();
  if (ext.find ("cl_khr_device_uuid") == std::string::npos) {
    GST_INFO ("%s: no cl_khr_device_uuid", gst_cl_context_get_device_name (ctx));
    return false;
  }
  if (ext.find ("cl_khr_external_memory_opaque_fd") == std::string::npos) {
    GST_INFO ("%s: no cl_khr_external_memory_opaque_fd", gst_cl_context_get_device_name (ctx));
    return false;
  }
  cl_uint types[8] = {};
  size_t got = 0;
  clGetDeviceInfo (dev (), kClDeviceExternalMemoryImportHandleTypes, sizeof (types), types,
      &got);
  bool fd_type = false;
  for (size_t i = 0; i < got / sizeof (cl_uint); i++)
    fd_type |= types[i] == kClExternalMemoryHandleOpaqueFd;
  GST_INFO ("%s: import handle types %s OPAQUE_FD", gst_cl_context_get_device_name (ctx),
      fd_type ? "include" : "lack");
  if (!fd_type)
    return false;
  return clGetDeviceInfo (dev (), kClDeviceUuid, 16, out, nullptr) == CL_SUCCESS;
}

/* A trial on the primary context of `device`: CUDA writes a pattern into a
 * shared allocation, OpenCL reads it back. */
bool
trial (GstClContext *ctx, int device)
{
  const Loaded &l = loaded ();
  CUdevice dev;
  CUcontext primary = nullptr;
  if (l.cu.DeviceGet (&dev, device) != CUDA_SUCCESS ||
      l.cu.DevicePrimaryCtxRetain (&primary, dev) != CUDA_SUCCESS)
    return false;
  bool ok = false;
  try {
    Current current (primary);
    Shared shared (ctx, device, 4096);
    check (l.cu.MemsetD8 (shared.ptr () + 64, 0x5a, 16), "cuMemsetD8 (trial)");
    check (l.cu.CtxSynchronize (), "cuCtxSynchronize (trial)");
    ExternalFns fns (ctx);
    GST_INFO ("clEnqueueAcquire/ReleaseExternalMemObjectsKHR %s",
        fns.acquire && fns.release ? "found" : "not found (copies without them)");
    unsigned char back[16] = {};
    cl_command_queue q = gst_cl_context_get_cl_queue (ctx);
    cl_mem sm = shared.mem ();
    cl_int err = CL_SUCCESS;
    if (fns.acquire && (err = fns.acquire (q, 1, &sm, 0, nullptr, nullptr)) != CL_SUCCESS)
      throw cl::Error (err, "clEnqueueAcquireExternalMemObjectsKHR (trial)");
    cl_event read = nullptr;
    if ((err = clEnqueueReadBuffer (q, sm, CL_FALSE, 64, 16, back, 0, nullptr, &read)) !=
        CL_SUCCESS)
      throw cl::Error (err, "clEnqueueReadBuffer (trial)");
    cl::Event done (read);
    if (fns.release && (err = fns.release (q, 1, &sm, 0, nullptr, nullptr)) != CL_SUCCESS)
      throw cl::Error (err, "clEnqueueReleaseExternalMemObjectsKHR (trial)");
    gstcl::wait (ctx, done, "the CUDA trial read");
    gstcl::finish (ctx, "the CUDA trial");
    ok = true;
    for (unsigned char b : back)
      ok &= b == 0x5a;
    GST_INFO ("trial: OpenCL read %s what CUDA wrote (first byte 0x%02x)",
        ok ? "back" : "NOT", back[0]);
  } catch (const cl::Error &e) {
    GST_WARNING ("trial failed: %s", gstcl::describe (e).c_str ());
  } catch (const std::exception &e) {
    GST_WARNING ("trial failed: %s", e.what ());
  }
  l.cu.DevicePrimaryCtxRelease (dev);
  return ok;
}

}  // namespace

namespace gstcl::cuda {

bool
available ()
{
  const Loaded &l = loaded ();
  static std::once_flag once;
  std::call_once (once, [&] {
    if (l.ok)
      GST_INFO ("CUDA memory available");
    else
      GST_INFO ("no CUDA memory: %s", l.why.c_str ());
  });
  return l.ok;
}

int
device_for (GstClContext *ctx)
{
  if (!available ())
    return -1;
  static std::mutex lock;
  static std::map<cl_device_id, int> found;
  std::lock_guard<std::mutex> guard (lock);
  cl_device_id id = gst_cl_context_get_cl_device (ctx);
  auto it = found.find (id);
  if (it != found.end ())
    return it->second;
  int device = -1;
  unsigned char uuid[16];
  char text[37];
  try {
    if (uuid_of (ctx, uuid)) {
      GST_INFO ("OpenCL device %s: UUID %s", gst_cl_context_get_device_name (ctx),
          uuid_string (uuid, text));
      const Loaded &l = loaded ();
      int count = 0;
      l.cu.DeviceGetCount (&count);
      for (int i = 0; i < count && device < 0; i++) {
        CUdevice dev;
        CUuuid cu_uuid;
        if (l.cu.DeviceGet (&dev, i) != CUDA_SUCCESS ||
            l.cu.DeviceGetUuid (&cu_uuid, dev) != CUDA_SUCCESS)
          continue;
        int vmm = 0, fd = 0;
        l.cu.DeviceGetAttribute (&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev);
        l.cu.DeviceGetAttribute (&fd,
            CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, dev);
        const bool same = !memcmp (cu_uuid.bytes, uuid, 16);
        GST_INFO ("CUDA device %d: UUID %s (%s), VMM %d, fd export %d", i,
            uuid_string (cu_uuid.bytes, text), same ? "the same" : "another", vmm, fd);
        if (same)
          device = i;
      }
      if (device >= 0 && !trial (ctx, device))
        device = -1;
    }
  } catch (const cl::Error &e) {
    GST_WARNING ("matching the device: %s", gstcl::describe (e).c_str ());
    device = -1;
  }
  GST_INFO ("%s: CUDA memory %s (CUDA device %d)", gst_cl_context_get_device_name (ctx),
      device >= 0 ? "offered" : "not offered", device);
  found[id] = device;
  return device;
}

bool
offered (GstClContext *ctx)
{
  return ctx ? device_for (ctx) >= 0 : available ();
}

bool
element_offers (GstClBaseTransform *trans)
{
  GstClContext *ctx = gst_cl_base_transform_get_context (trans);
  const bool yes = offered (ctx);
  if (ctx)
    gst_object_unref (ctx);
  return yes;
}

bool
refuses (GstBaseTransform *trans, GstPadDirection direction, GstPadDirection cuda_side,
    GstCaps *caps, gboolean *warned)
{
  if (direction != cuda_side || !caps_in_cuda (caps) ||
      element_offers (GST_CL_BASE_TRANSFORM (trans)))
    return false;
  if (!*warned) {
    *warned = TRUE;
    GST_ELEMENT_WARNING (trans, STREAM, FORMAT, ("CUDA memory refused"),
        ("this element's OpenCL device shares no memory with a CUDA device "
            "(GST_DEBUG=clcuda:5 says why): %" GST_PTR_FORMAT, caps));
  }
  return true;
}

bool
wraps ()
{
  return available () && wrap_available ();
}

Stats
stats ()
{
  Stats s;
  s.to_cl = n_to_cl.load ();
  s.from_cl = n_from_cl.load ();
  s.bytes = n_bytes.load ();
  s.direct_to_cl = n_direct_to_cl.load ();
  s.direct_from_cl = n_direct_from_cl.load ();
  s.wrapped_from_cl = n_wrapped_from_cl.load ();
  return s;
}

bool
caps_in_cuda (const GstCaps *caps)
{
  if (!caps || gst_caps_is_empty (caps) || gst_caps_is_any (caps))
    return false;
  GstCapsFeatures *f = gst_caps_get_features (caps, 0);
  return f && gst_caps_features_contains (f, GST_CL_CAPS_FEATURE_MEMORY_CUDA);
}

/* The formats GStreamer 1.22's CUDA allocator lays out: any other format
 * (GRAY8, GRAY16_LE, ...) aborts the process in gst_cuda_allocator_alloc
 * (g_assert_not_reached), so CUDA caps never name one. */
static GstStaticCaps cuda_formats = GST_STATIC_CAPS ("video/x-raw, format=(string){ I420, "
    "YV12, I420_10LE, Y444, Y444_16LE, NV12, NV21, P010_10LE, P016_LE, BGRA, RGBA, RGBx, BGRx, "
    "ARGB, ABGR, RGB, BGR, BGR10A2_LE, RGB10A2_LE }");

GstCaps *
to_cuda_caps (const GstCaps *caps)
{
  GstCaps *formats = gst_static_caps_get (&cuda_formats);
  GstCaps *out = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *s = gst_caps_get_structure (caps, i);
    if (!gst_structure_has_name (s, "video/x-raw"))
      continue;
    GstCaps *one = gst_caps_new_full (gst_structure_copy (s), nullptr);
    GstCaps *allowed = gst_caps_intersect_full (one, formats, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (one);
    for (guint j = 0; j < gst_caps_get_size (allowed); j++)
      out = gst_caps_merge_structure_full (out,
          gst_structure_copy (gst_caps_get_structure (allowed, j)),
          gst_caps_features_new (GST_CL_CAPS_FEATURE_MEMORY_CUDA, nullptr));
    gst_caps_unref (allowed);
  }
  gst_caps_unref (formats);
  return out;
}

GstCaps *
drop_cuda_caps (GstCaps *caps)
{
  caps = gst_caps_make_writable (caps);
  for (guint i = gst_caps_get_size (caps); i > 0; i--) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i - 1);
    if (f && gst_caps_features_contains (f, GST_CL_CAPS_FEATURE_MEMORY_CUDA))
      gst_caps_remove_structure (caps, i - 1);
  }
  return caps;
}

void
add_to_pad_template (GstElementClass *klass, const char *name)
{
  if (!available ())
    return;
  GstPadTemplate *old = gst_element_class_get_pad_template (klass, name);
  g_return_if_fail (old != nullptr);
  GstCaps *caps = gst_pad_template_get_caps (old);
  GstCaps *cuda = to_cuda_caps (caps);
  caps = gst_caps_merge (caps, cuda);
  /* Replaces the template of that name. */
  gst_element_class_add_pad_template (klass, gst_pad_template_new (name,
          GST_PAD_TEMPLATE_DIRECTION (old), GST_PAD_TEMPLATE_PRESENCE (old), caps));
  gst_caps_unref (caps);
}

struct Bridge::Impl {
  std::mutex lock;            /* context (set_context and queries come from any thread) */
  GstObject *context = nullptr;  /* GstCudaContext; written under `lock`, but in start (see there) */
  int device = -1;
  /* The streaming thread's: */
  GstClContext *cl = nullptr;
  CUstream stream = nullptr;
  std::vector<std::unique_ptr<Shared>> ring;
  size_t next = 0;
  GstVideoInfo last_layout {};
  bool has_layout = false;
  std::unique_ptr<ExternalFns> fns;
  GstBufferPool *pool = nullptr;
  GstCaps *pool_caps = nullptr;
  bool direct = true;  /* one copy where the OpenCL side is shared memory */
  bool wrap = false;   /* ... none out to CUDA (wrap_available ()) */
  gint64 last_out = 0;  /* when from_cl last returned (the log's frame gap) */

  GstObject *ref_context ()
  {
    std::lock_guard<std::mutex> g (lock);
    return context ? GST_OBJECT (gst_object_ref (context)) : nullptr;
  }

  /* A shared buffer of at least `size` bytes for frames laid out as
   * `layout`, whose last OpenCL command is done; a ring of three, so that
   * the next frame's CUDA copy rarely waits for the OpenCL queue. Another
   * layout takes new buffers: bytes outside the planes (row padding) stay
   * zero. Buffers are made and freed with `ctx` current: this runs on a
   * streaming thread, where no CUDA context is current of itself. */
  Shared &take (GstObject *ctx, size_t size, const GstVideoInfo &layout)
  {
    const bool same = has_layout && GST_VIDEO_INFO_FORMAT (&layout) ==
        GST_VIDEO_INFO_FORMAT (&last_layout) && layout.width == last_layout.width &&
        layout.height == last_layout.height &&
        gst_cl_video_info_same_layout (&layout, &last_layout);
    if (!ring.empty () && (!same || ring[0]->size () < size)) {
      GST_DEBUG ("frames of %" G_GSIZE_FORMAT " bytes in another layout: new shared buffers",
          size);
      for (auto &s : ring)
        gstcl::wait (cl, s->last, "a copy of shared memory");
      GstCurrent current (ctx);
      ring.clear ();
      next = 0;
    }
    last_layout = layout;
    has_layout = true;
    if (ring.size () < 3) {
      GstCurrent current (ctx);
      ring.push_back (std::make_unique<Shared> (cl, device, size));
      return *ring.back ();
    }
    Shared &s = *ring[next++ % ring.size ()];
    gstcl::wait (cl, s.last, "a copy of shared memory");
    return s;
  }

  /* A frame in shared memory handed on as it is (wrap_available ()): CUDA
   * memory over it that keeps `in` until CUDA's readers let it go; OpenCL
   * takes the memory back then, for the producer's next frame in it. Null
   * where it could not be wrapped (the caller copies). */
  GstBuffer *wrap_out (GstObject *ctx, GstBuffer *in, const GstVideoInfo &layout, Shared *shared,
      gint64 entered)
  {
    GstMemory *in_mem = gst_buffer_peek_memory (in, 0);
    /* Read on the device: anything newer on the host goes up first. */
    gstcl::sync_to_device (in_mem);
    const gint64 t0 = g_get_monotonic_time ();
    shared->to_cuda ("the OpenCL work on a shared frame");
    const gint64 t1 = g_get_monotonic_time ();
    auto *held = new Held {gst_buffer_ref (in), shared};
    GstMemory *mem = api::wrap (ctx, layout, shared->ptr () + in_mem->offset, in_mem->size,
        held, Held::release);
    if (!mem) {
      /* (1.24's call failed its check, and took `held` back: from now on
       * one copy a frame) */
      GST_WARNING ("a shared frame could not be wrapped as CUDA memory: one copy a frame");
      wrap = false;
      return nullptr;
    }
    GstBuffer *out = gst_buffer_new ();
    gst_buffer_append_memory (out, mem);
    GstVideoInfo planes = layout;
    gst_buffer_add_video_meta_full (out, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (&planes), GST_VIDEO_INFO_WIDTH (&planes),
        GST_VIDEO_INFO_HEIGHT (&planes), GST_VIDEO_INFO_N_PLANES (&planes), planes.offset,
        planes.stride);
    n_from_cl++;
    n_wrapped_from_cl++;
    const gint64 now = g_get_monotonic_time ();
    GST_LOG ("frame of %" G_GSIZE_FORMAT " bytes: OpenCL -> CUDA (wrapped, no copy), OpenCL "
        "queue %" G_GINT64_FORMAT " us (release %" G_GINT64_FORMAT " wait %" G_GINT64_FORMAT
        "), in all %" G_GINT64_FORMAT " us, upstream %" G_GINT64_FORMAT " us", in_mem->size,
        t1 - t0, shared->took.release.load (), shared->took.wait.load (), now - entered,
        last_out ? entered - last_out : 0);
    last_out = now;
    return out;
  }

  /* What a wrapped frame keeps: the OpenCL buffer, whose shared memory
   * goes back to OpenCL when CUDA's readers are done. */
  struct Held {
    GstBuffer *buffer;
    Shared *shared;  /* (the buffer's memory owns it) */
    static void release (gpointer data)
    {
      auto *h = static_cast<Held *> (data);
      try {
        h->shared->to_opencl ();
      } catch (const std::exception &e) {
        GST_WARNING ("shared memory not taken back by OpenCL: %s", e.what ());
      }
      gst_buffer_unref (h->buffer);
      delete h;
    }
  };

  void drop ()
  {
    if (pool) {
      gst_buffer_pool_set_active (pool, FALSE);
      gst_object_unref (pool);
      pool = nullptr;
    }
    gst_clear_caps (&pool_caps);
    GstObject *ctx = ref_context ();
    if (ctx && (stream || !ring.empty ())) {
      try {
        for (auto &s : ring)
          gstcl::wait (cl, s->last, "a copy of shared memory");
      } catch (...) {
        GST_WARNING ("a copy of shared memory did not end: its buffers are freed anyway");
      }
      try {
        GstCurrent current (ctx);
        ring.clear ();
        if (stream)
          loaded ().cu.StreamDestroy (stream);
      } catch (...) {
        GST_WARNING ("could not make the CUDA context current to free its buffers");
      }
    }
    ring.clear ();
    stream = nullptr;
    next = 0;
    has_layout = false;
    fns.reset ();
    if (ctx)
      gst_object_unref (ctx);
    if (cl)
      gst_object_unref (cl);
    cl = nullptr;
  }
};

Bridge::Bridge () : impl_ (new Impl) {}

Bridge::~Bridge ()
{
  stop ();
}

void
Bridge::set_context (GstElement *element, GstContext *context)
{
  if (!available ())
    return;
  std::lock_guard<std::mutex> g (impl_->lock);
  loaded ().gc.handle_set_context (element, context, impl_->device, &impl_->context);
}

bool
Bridge::handle_query (GstElement *element, GstQuery *query)
{
  if (!available () || GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT)
    return false;
  GstObject *ctx = impl_->ref_context ();
  gboolean handled = ctx && loaded ().gc.handle_context_query (element, query, ctx);
  if (ctx)
    gst_object_unref (ctx);
  return handled;
}

void
Bridge::start (GstElement *element, GstClContext *cl)
{
  Impl &p = *impl_;
  const int device = device_for (cl);
  if (device < 0)
    throw std::runtime_error (std::string ("no CUDA device shares memory with the OpenCL "
          "device ") + gst_cl_context_get_device_name (cl) + " (GST_DEBUG=clcuda:5 says why)");
  if (p.cl == cl && p.stream)
    return;
  p.drop ();
  {
    std::lock_guard<std::mutex> g (p.lock);
    /* A context kept from set_context for another device goes. */
    guint id = 0;
    if (p.context)
      g_object_get (p.context, "cuda-device-id", &id, nullptr);
    if (p.context && (int) id != device) {
      GST_INFO_OBJECT (element, "dropping the CUDA context of device %u", id);
      gst_object_unref (p.context);
      p.context = nullptr;
    }
    p.device = device;
  }
  /* gst_cuda_ensure_element_context fills the pointer it is given through
   * the element's set_context when a neighbour or the bin answers (a
   * pointer of its own would stay empty, and it would make a context of
   * its own): it gets p.context itself, as the nvcodec elements give
   * theirs. Without our lock, which set_context takes on this thread. */
  GstObject *ctx = p.ref_context ();
  if (!ctx) {
    if (!loaded ().gc.ensure_element_context (element, device, &p.context) ||
        !(ctx = p.ref_context ()))
      throw std::runtime_error ("no CUDA context for CUDA device " + std::to_string (device));
  }
  GST_INFO_OBJECT (element, "CUDA context %" GST_PTR_FORMAT " on CUDA device %d", ctx, device);
  {
    GstCurrent current (ctx);
    check (loaded ().cu.StreamCreate (&p.stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  }
  gst_object_unref (ctx);
  p.cl = GST_CL_CONTEXT (gst_object_ref (cl));
  p.fns = std::make_unique<ExternalFns> (cl);
  p.direct = g_strcmp0 (g_getenv ("GST_OPENCL_CUDA_DIRECT"), "0") != 0;
  p.wrap = p.direct && wrap_available ();
  if (!p.direct)
    GST_INFO_OBJECT (element, "GST_OPENCL_CUDA_DIRECT=0: two copies a frame");
  else
    GST_INFO_OBJECT (element, "frames out to CUDA memory: %s", p.wrap ? "no copy (wrapped)" :
        "one copy (GST_OPENCL_CUDA_WRAP=0, or not GStreamer 1.22's CUDA library)");
}

GstBufferPool *
Bridge::shared_pool (GstCaps *caps, guint min, guint *size, bool input)
{
  Impl &p = *impl_;
  if (!p.stream || !p.direct)
    return nullptr;
  GstObject *ctx = p.ref_context ();
  if (!ctx)
    return nullptr;
  GstBufferPool *pool = gstcl::buffer_pool_with_source (p.cl,
      std::make_shared<SharedSource> (ctx, p.device, input), caps, min, size);
  gst_object_unref (ctx);
  GST_DEBUG ("a pool of shared memory (%s) for %" GST_PTR_FORMAT ": %s", input ? "CUDA writes" :
      "CUDA reads", caps, pool ? "made" : "not for these caps");
  return pool;
}

void
Bridge::stop ()
{
  impl_->drop ();
  std::lock_guard<std::mutex> g (impl_->lock);
  if (impl_->context)
    gst_object_unref (impl_->context);
  impl_->context = nullptr;
}

void
Bridge::to_cl (GstBuffer *in, const GstVideoInfo &info, GstBuffer *out,
    const GstVideoInfo &out_frame)
{
  Impl &p = *impl_;
  if (!p.stream)
    throw std::runtime_error ("the CUDA leg was not started");
  GstMemory *out_mem = gst_buffer_peek_memory (out, 0);
  GstMemory *in_mem = gst_buffer_peek_memory (in, 0);
  if (gst_buffer_n_memory (in) != 1 || !loaded ().gc.is_cuda_memory (in_mem))
    throw std::runtime_error ("the input buffer is not CUDA memory");
  GstObject *ctx = p.ref_context ();
  GstVideoFrame frame;
  if (!gst_video_frame_map (&frame, &info, in,
          (GstMapFlags) (GST_MAP_READ | GST_MAP_CUDA_FLAG))) {
    gst_object_unref (ctx);
    throw std::runtime_error ("could not map the CUDA frame");
  }
  GstMapInfo map;
  bool mapped = false;
  Shared *direct = p.direct ? shared_of (out_mem, p.device, p.cl) : nullptr;
  try {
    if (direct) {
      /* Shared memory (our pool's): one copy, CUDA -> the frame itself.
       * Written whole on the device: nothing goes up, the host's view is
       * stale. */
      if (!gst_memory_map (out_mem, &map, (GstMapFlags) (GST_MAP_WRITE | GST_MAP_CL)))
        throw std::runtime_error ("could not map the OpenCL frame");
      gst_memory_unmap (out_mem, &map);
      const gint64 t0 = g_get_monotonic_time ();
      /* (after the commands of its last reader: mostly done, as the release
       * was queued when the pool took the buffer back) */
      direct->to_cuda ("the last reader of a shared frame");
      {
        GstCurrent current (ctx);
        copy_planes (p.stream, frame, out_frame, direct->ptr () + out_mem->offset, true);
        wait_stream (p.stream, "the copy from CUDA memory");
      }
      const gint64 t1 = g_get_monotonic_time ();
      direct->to_opencl ();   /* before any consumer's command: in order */
      n_to_cl++;
      n_direct_to_cl++;
      n_bytes += out_mem->size;
      GST_LOG ("frame of %" G_GSIZE_FORMAT " bytes: CUDA -> OpenCL (direct), wait and CUDA "
          "copy %" G_GINT64_FORMAT " us", out_mem->size, t1 - t0);
      gst_video_frame_unmap (&frame);
      gst_object_unref (ctx);
      return;
    }
    Shared &shared = p.take (ctx, out_mem->size, out_frame);
    const gint64 t0 = g_get_monotonic_time ();
    {
      GstCurrent current (ctx);
      copy_planes (p.stream, frame, out_frame, shared.ptr (), true);
      wait_stream (p.stream, "the copy from CUDA memory");
    }
    const gint64 t1 = g_get_monotonic_time ();
    /* Written whole on the device: mapped for writing only, nothing goes up. */
    if (!gst_memory_map (out_mem, &map, (GstMapFlags) (GST_MAP_WRITE | GST_MAP_CL)))
      throw std::runtime_error ("could not map the OpenCL frame");
    mapped = true;
    const size_t size = MIN (out_mem->size, shared.size ());
    shared.last = enqueue_cl_copy (p.cl, *p.fns, shared, (cl_mem) map.data, out_mem->offset,
        size, false);
    gst_memory_unmap (out_mem, &map);
    mapped = false;
    n_to_cl++;
    n_bytes += size;
    /* (the OpenCL copy runs on: the next frame into this buffer waits) */
    GST_LOG ("frame of %" G_GSIZE_FORMAT " bytes: CUDA -> OpenCL, CUDA copy %" G_GINT64_FORMAT
        " us", size, t1 - t0);
  } catch (...) {
    if (mapped)
      gst_memory_unmap (out_mem, &map);
    gst_video_frame_unmap (&frame);
    gst_object_unref (ctx);
    throw;
  }
  gst_video_frame_unmap (&frame);
  gst_object_unref (ctx);
}

GstBuffer *
Bridge::from_cl (GstBuffer *in, const GstVideoInfo &in_frame, GstCaps *caps)
{
  const gint64 entered = g_get_monotonic_time ();
  Impl &p = *impl_;
  if (!p.stream)
    throw std::runtime_error ("the CUDA leg was not started");
  GstMemory *in_mem = gst_buffer_peek_memory (in, 0);
  if (gst_buffer_n_memory (in) != 1 || !gst_is_cl_memory (in_mem))
    throw std::runtime_error ("the input buffer is not OpenCL memory");
  GstObject *ctx = p.ref_context ();
  Shared *direct = p.direct ? shared_of (in_mem, p.device, p.cl) : nullptr;
  if (direct && p.wrap) {
    GstBuffer *out = nullptr;
    try {
      out = p.wrap_out (ctx, in, in_frame, direct, entered);
    } catch (...) {
      gst_object_unref (ctx);
      throw;
    }
    if (out) {
      gst_object_unref (ctx);
      return out;
    }
  }
  if (!p.pool || !p.pool_caps || !gst_caps_is_equal (p.pool_caps, caps)) {
    if (p.pool) {
      gst_buffer_pool_set_active (p.pool, FALSE);
      gst_object_unref (p.pool);
    }
    gst_caps_replace (&p.pool_caps, caps);
    GstVideoInfo info;
    p.pool = gst_video_info_from_caps (&info, caps) ? loaded ().gc.buffer_pool_new (ctx) : nullptr;
    if (p.pool) {
      GstStructure *config = gst_buffer_pool_get_config (p.pool);
      gst_buffer_pool_config_set_params (config, caps, GST_VIDEO_INFO_SIZE (&info), 0, 0);
      gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
      if (!gst_buffer_pool_set_config (p.pool, config) ||
          !gst_buffer_pool_set_active (p.pool, TRUE))
        gst_clear_object (&p.pool);
    }
    if (!p.pool) {
      gst_object_unref (ctx);
      throw std::runtime_error ("could not make a CUDA buffer pool");
    }
    GST_DEBUG ("CUDA pool for %" GST_PTR_FORMAT, caps);
  }
  GstBuffer *out = nullptr;
  if (gst_buffer_pool_acquire_buffer (p.pool, &out, nullptr) != GST_FLOW_OK || !out) {
    gst_object_unref (ctx);
    throw std::runtime_error ("no buffer from the CUDA pool");
  }
  GstMapInfo map;
  bool mapped = false, frame_mapped = false;
  GstVideoFrame frame;
  try {
    /* Read on the device: anything newer on the host goes up first. */
    if (!gst_memory_map (in_mem, &map, (GstMapFlags) (GST_MAP_READ | GST_MAP_CL)))
      throw std::runtime_error ("could not map the OpenCL frame");
    mapped = true;
    const gint64 t0 = g_get_monotonic_time ();
    CUdeviceptr from;
    size_t size;
    if (direct) {
      /* Shared memory (upstream took our pool): CUDA reads the frame itself
       * once the OpenCL work on it (the kernels that wrote it) is done. */
      gst_memory_unmap (in_mem, &map);
      mapped = false;
      direct->to_cuda ("the OpenCL work on a shared frame");
      from = direct->ptr () + in_mem->offset;
      size = in_mem->size;
    } else {
      Shared &shared = p.take (ctx, in_mem->size, in_frame);
      size = MIN (in_mem->size, shared.size ());
      shared.last = enqueue_cl_copy (p.cl, *p.fns, shared, (cl_mem) map.data, in_mem->offset,
          size, true);
      gst_memory_unmap (in_mem, &map);
      mapped = false;
      gstcl::wait (p.cl, shared.last, "the copy into shared memory");
      from = shared.ptr ();
    }
    const gint64 t1 = g_get_monotonic_time ();
    GstVideoInfo out_info;
    gst_video_info_from_caps (&out_info, caps);
    if (!gst_video_frame_map (&frame, &out_info, out,
            (GstMapFlags) (GST_MAP_WRITE | GST_MAP_CUDA_FLAG)))
      throw std::runtime_error ("could not map the CUDA frame");
    frame_mapped = true;
    {
      GstCurrent current (ctx);
      copy_planes (p.stream, frame, in_frame, from, false);
      /* 1.22's CUDA memory has no stream of its own: its readers take it
       * as ready. */
      wait_stream (p.stream, "the copy into CUDA memory");
    }
    const gint64 t2 = g_get_monotonic_time ();
    gst_video_frame_unmap (&frame);
    frame_mapped = false;
    if (direct)
      direct->to_opencl ();   /* for the producer's next frame in it */
    n_from_cl++;
    if (direct)
      n_direct_from_cl++;
    n_bytes += size;
    /* The OpenCL wait includes the queue's work ahead of the copy (the
     * kernels of the frame); "upstream" is the time since the last frame
     * left (what the elements before took, when nothing queues between). */
    const gint64 now = g_get_monotonic_time ();
    GST_LOG ("frame of %" G_GSIZE_FORMAT " bytes: OpenCL -> CUDA%s, OpenCL %s %"
        G_GINT64_FORMAT " us (release %" G_GINT64_FORMAT " wait %" G_GINT64_FORMAT
        "), CUDA copy %" G_GINT64_FORMAT " us, acquire %" G_GINT64_FORMAT " us, in all %"
        G_GINT64_FORMAT " us, upstream %" G_GINT64_FORMAT " us", size,
        direct ? " (direct)" : "", direct ? "queue" : "copy and queue", t1 - t0,
        direct ? direct->took.release.load () : 0, direct ? direct->took.wait.load () : 0,
        t2 - t1, direct ? direct->took.acquire.load () : 0, now - entered,
        p.last_out ? entered - p.last_out : 0);
    p.last_out = now;
  } catch (...) {
    if (mapped)
      gst_memory_unmap (in_mem, &map);
    if (frame_mapped)
      gst_video_frame_unmap (&frame);
    gst_buffer_unref (out);
    gst_object_unref (ctx);
    throw;
  }
  gst_object_unref (ctx);
  return out;
}

}  // namespace gstcl::cuda
