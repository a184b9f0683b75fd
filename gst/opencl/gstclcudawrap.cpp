/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CUDA memory over the bridge's device pointers: gstclcudawrap.hpp. */
#include "gstclcudawrap.hpp"

#include <atomic>
#include <mutex>

#define GST_CAT_DEFAULT gst_cl_cuda_debug

namespace gstcl::cuda::api {

namespace {

/* GstCudaMemory as gst/cuda/gstcudamemory.h declares it (1.22 and later),
 * and what a wrapped memory adds. priv stays null: only the parent
 * allocator's functions read it, and this allocator replaces them all. */
struct CudaMemory {
  GstMemory mem;
  GstObject *context;  /* GstCudaContext */
  GstVideoInfo info;
  gpointer priv;
  gpointer reserved[GST_PADDING];
};

struct Wrapped {
  CudaMemory cuda;
  CUdeviceptr ptr;
  gpointer user_data;
  GDestroyNotify notify;
  GMutex lock;          /* staging, for host maps */
  guint8 *staging;
};

GType wrap_type = 0;
GstAllocator *sub = nullptr;  /* the subclass's one allocator */

Wrapped *
wrapped (GstMemory *mem)
{
  return reinterpret_cast<Wrapped *> (mem);
}

/* A memory of the subclass over `ptr` (wrap ()'s 1.22 way). */
GstMemory *
make_sub (GstAllocator *a, GstObject *cuda, const GstVideoInfo &layout, CUdeviceptr ptr,
    size_t size, gpointer user_data, GDestroyNotify notify)
{
  auto *w = g_new0 (Wrapped, 1);
  gst_memory_init (GST_MEMORY_CAST (w), (GstMemoryFlags) 0, a, nullptr, size, 0, 0, size);
  w->cuda.context = GST_OBJECT (gst_object_ref (cuda));
  w->cuda.info = layout;
  w->ptr = ptr;
  w->user_data = user_data;
  w->notify = notify;
  g_mutex_init (&w->lock);
  return GST_MEMORY_CAST (w);
}

/* Host maps: the bytes copied down (every map: CUDA may have written since),
 * and up again after a write. */
gpointer
wrap_map (GstMemory *mem, gsize, GstMapFlags flags)
{
  Wrapped *w = wrapped (mem);
  if ((flags & GST_MAP_CUDA_FLAG) == GST_MAP_CUDA_FLAG)
    return reinterpret_cast<gpointer> (w->ptr);
  g_mutex_lock (&w->lock);
  gpointer ret = nullptr;
  try {
    if (!w->staging)
      w->staging = static_cast<guint8 *> (g_malloc (mem->maxsize));
    GstCurrent current (w->cuda.context);
    check (loaded ().cu.MemcpyDtoH (w->staging, w->ptr, mem->maxsize),
        "cuMemcpyDtoH (a host map of CUDA memory)");
    ret = w->staging;
  } catch (const std::exception &e) {
    GST_ERROR ("host map of wrapped CUDA memory: %s", e.what ());
  }
  g_mutex_unlock (&w->lock);
  return ret;
}

void
wrap_unmap_full (GstMemory *mem, GstMapInfo *info)
{
  Wrapped *w = wrapped (mem);
  if ((info->flags & GST_MAP_CUDA_FLAG) == GST_MAP_CUDA_FLAG ||
      !(info->flags & GST_MAP_WRITE))
    return;
  g_mutex_lock (&w->lock);
  try {
    GstCurrent current (w->cuda.context);
    check (loaded ().cu.MemcpyHtoD (w->ptr, w->staging, mem->maxsize),
        "cuMemcpyHtoD (after a host write to CUDA memory)");
  } catch (const std::exception &e) {
    GST_ERROR ("host write to wrapped CUDA memory lost: %s", e.what ());
  }
  g_mutex_unlock (&w->lock);
}

/* The copy of an allocation of its own (cuMemAlloc), of the same layout
 * (the buffer's GstVideoMeta stays right); offset and size are ignored, as
 * by 1.22's CUDA memory. */
struct Owned {
  GstObject *context;
  CUdeviceptr ptr;
};

void
free_owned (gpointer data)
{
  auto *o = static_cast<Owned *> (data);
  try {
    GstCurrent current (o->context);
    loaded ().cu.MemFree (o->ptr);
  } catch (const std::exception &e) {
    GST_WARNING ("a copy of CUDA memory not freed: %s", e.what ());
  }
  gst_object_unref (o->context);
  delete o;
}

GstMemory *
wrap_copy (GstMemory *mem, gssize, gssize)
{
  Wrapped *w = wrapped (mem);
  const auto &cu = loaded ().cu;
  auto *o = new Owned {GST_OBJECT (gst_object_ref (w->cuda.context)), 0};
  try {
    GstCurrent current (w->cuda.context);
    check (cu.MemAlloc (&o->ptr, mem->maxsize), "cuMemAlloc (a copy of CUDA memory)");
    check (cu.MemcpyDtoD (o->ptr, w->ptr, mem->maxsize), "cuMemcpyDtoD (a copy of CUDA memory)");
    check (cu.CtxSynchronize (), "cuCtxSynchronize (a copy of CUDA memory)");
  } catch (const std::exception &e) {
    GST_ERROR ("copy of wrapped CUDA memory: %s", e.what ());
    free_owned (o);
    return nullptr;
  }
  return make_sub (mem->allocator, w->cuda.context, w->cuda.info, o->ptr, mem->maxsize, o,
      free_owned);
}

void
wrap_free (GstAllocator *, GstMemory *mem)
{
  Wrapped *w = wrapped (mem);
  if (w->notify)
    w->notify (w->user_data);
  gst_object_unref (w->cuda.context);
  g_free (w->staging);
  g_mutex_clear (&w->lock);
  g_free (w);
}

void
wrap_class_init (gpointer klass, gpointer)
{
  GST_ALLOCATOR_CLASS (klass)->free = wrap_free;
}

/* (after GstCudaAllocator's own, which set the parent's functions) */
void
wrap_instance_init (GTypeInstance *instance, gpointer)
{
  GstAllocator *a = GST_ALLOCATOR (instance);
  a->mem_map = wrap_map;
  a->mem_unmap_full = wrap_unmap_full;
  a->mem_copy = wrap_copy;
  a->mem_share = nullptr;
  a->mem_is_span = nullptr;
}

/* How wrap () makes its memories, decided once. */
enum class Way { NONE, SUBCLASS, CALL };

Way
way ()
{
  static Way w = Way::NONE;
  static std::once_flag once;
  std::call_once (once, [] {
    const Loaded &l = loaded ();
    if (!l.ok) {
      GST_INFO ("no wrapped CUDA memory: %s", l.why.c_str ());
      return;
    }
    if (l.gc.alloc_wrapped) {
      GST_INFO ("wrapped CUDA memory through gst_cuda_allocator_alloc_wrapped (1.24 or later)");
      w = Way::CALL;
      return;
    }
    if (!l.gc.allocator_get_type) {
      GST_INFO ("no wrapped CUDA memory: libgstcuda-1.0 has no gst_cuda_allocator_get_type");
      return;
    }
    const GType parent = l.gc.allocator_get_type ();
    GTypeQuery q;
    g_type_query (parent, &q);
    if (!q.type || q.class_size < sizeof (GstAllocatorClass) ||
        q.instance_size < sizeof (GstAllocator)) {
      GST_WARNING ("GstCudaAllocator cannot be subclassed here");
      return;
    }
    GTypeInfo info {};
    info.class_size = (guint16) q.class_size;
    info.class_init = wrap_class_init;
    info.instance_size = (guint16) q.instance_size;
    info.instance_init = wrap_instance_init;
    wrap_type = g_type_register_static (parent, "GstClCudaWrapAllocator", &info,
        (GTypeFlags) 0);
    sub = GST_ALLOCATOR (g_object_new (wrap_type, nullptr));
    gst_object_ref_sink (sub);
    /* (kept for the process, as GStreamer keeps its registered allocators) */
    GST_OBJECT_FLAG_SET (sub, GST_OBJECT_FLAG_MAY_BE_LEAKED);
    GST_INFO ("wrapped CUDA memory: a GstCudaAllocator subclass (1.22)");
    w = Way::SUBCLASS;
  });
  return w;
}

/* 1.24's call, checked once: a CUDA map of its first memory must give the
 * pointer wrapped (else it is not used again: one copy a frame). */
std::atomic<int> call_checked {0};  /* 0 not yet, 1 good, -1 not */

GstMemory *
wrap_by_call (GstObject *cuda, const GstVideoInfo &layout, CUdeviceptr ptr, gpointer user_data,
    GDestroyNotify notify)
{
  if (call_checked.load () < 0)
    return nullptr;
  GstMemory *m = loaded ().gc.alloc_wrapped (nullptr, cuda, nullptr, &layout, ptr, user_data,
      notify);
  if (!m || call_checked.load () > 0)
    return m;
  GstMapInfo map;
  const bool mapped = gst_memory_map (m, &map, (GstMapFlags) (GST_MAP_READ | GST_MAP_CUDA_FLAG));
  const bool good = mapped && reinterpret_cast<CUdeviceptr> (map.data) == ptr;
  if (mapped)
    gst_memory_unmap (m, &map);
  call_checked = good ? 1 : -1;
  if (good)
    return m;
  GST_WARNING ("gst_cuda_allocator_alloc_wrapped's memory maps elsewhere: one copy a frame");
  /* (the caller's notify runs as it is freed) */
  gst_memory_unref (m);
  return nullptr;
}

/* Whether wrap () can make memories here (no environment: it runs a frame). */
bool
can_wrap ()
{
  return way () != Way::NONE && call_checked.load () >= 0;
}

}  // namespace

bool
wrap_available ()
{
  return g_strcmp0 (g_getenv ("GST_OPENCL_CUDA_WRAP"), "0") != 0 && can_wrap ();
}

GstMemory *
wrap (GstObject *cuda, const GstVideoInfo &layout, CUdeviceptr ptr, size_t size,
    gpointer user_data, GDestroyNotify notify)
{
  if (!can_wrap ())
    return nullptr;
  if (way () == Way::CALL)
    return wrap_by_call (cuda, layout, ptr, user_data, notify);
  return make_sub (sub, cuda, layout, ptr, size, user_data, notify);
}

}  // namespace gstcl::cuda::api
