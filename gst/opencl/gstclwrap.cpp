/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Foreign host memory wrapped without a copy on unified devices
 * (gst_cl_allocator_wrap_buffer, docs/architecture.md, "Memory"). */
#include "gstclmemory-private.hpp"
#include "gstcl.hpp"
#include "gstcl-debug.h"

#define GST_CAT_DEFAULT gst_cl_memory_debug

/* What keeps a wrapped buffer's owner from reusing it: the buffer, mapped
 * and referenced, until the driver deletes the cl buffer, which it does
 * only after the last command that uses it has completed (OpenCL 1.2,
 * clReleaseMemObject); PoCL then calls this from its worker thread. */
struct HostLease {
  GstBuffer *buffer;
  GstMapInfo map;
};

static void CL_CALLBACK
end_lease (cl_mem, void *data)
{
  auto *lease = static_cast<HostLease *> (data);
  gst_buffer_unmap (lease->buffer, &lease->map);
  gst_buffer_unref (lease->buffer);
  delete lease;
}

static bool
wrapping_allowed ()
{
  /* GST_OPENCL_WRAP=0: copy foreign memory as discrete devices do (a
   * driver that mishandles host pointers; before/after measurements). */
  static const bool allowed = g_strcmp0 (g_getenv ("GST_OPENCL_WRAP"), "0") != 0;
  return allowed;
}

GstMemory *
gst_cl_allocator_wrap_buffer (GstAllocator * allocator, GstBuffer * buffer, GstMapFlags flags)
{
  g_return_val_if_fail (GST_IS_CL_ALLOCATOR (allocator), nullptr);
  g_return_val_if_fail (GST_IS_BUFFER (buffer), nullptr);
  auto *alloc = GST_CL_ALLOCATOR (allocator);
  if (!wrapping_allowed () || !gst_cl_context_has_unified_memory (alloc->context) ||
      gst_buffer_n_memory (buffer) != 1)
    return nullptr;
  auto *lease = new HostLease { gst_buffer_ref (buffer), GstMapInfo () };
  if (!gst_buffer_map (buffer, &lease->map, flags)) {
    gst_buffer_unref (buffer);
    delete lease;
    return nullptr;
  }
  const gsize size = lease->map.size;
  if ((guintptr) lease->map.data % alloc->wrap_align || size == 0) {
    end_lease (nullptr, lease);
    return nullptr;
  }
  const bool write = (flags & GST_MAP_WRITE) != 0;
  cl_int err = CL_SUCCESS;
  cl_mem mem = clCreateBuffer (gstcl::context_of (alloc->context)(), CL_MEM_USE_HOST_PTR |
      (!write ? CL_MEM_READ_ONLY : (flags & GST_MAP_READ) ? CL_MEM_READ_WRITE :
          CL_MEM_WRITE_ONLY), size, lease->map.data, &err);
  if (mem && err == CL_SUCCESS)
    err = clSetMemObjectDestructorCallback (mem, end_lease, lease);
  if (err != CL_SUCCESS) {
    GST_WARNING ("could not wrap %" G_GSIZE_FORMAT " bytes of host memory: %s", size,
        gstcl::error_name (err));
    if (mem)
      clReleaseMemObject (mem);
    end_lease (nullptr, lease);
    return nullptr;
  }
  auto *p = new ClMemPriv ();
  g_mutex_init (&p->lock);
  p->context = GST_CL_CONTEXT (gst_object_ref (alloc->context));
  p->unified = true;
  p->wrapped = true;
  p->device = cl::Buffer (mem, false);   /* ours: released at free */
  auto *m = g_new0 (GstClMemory, 1);
  m->priv = p;
  gst_memory_init (&m->mem, (GstMemoryFlags) (GST_MEMORY_FLAG_NO_SHARE |
          (write ? 0 : GST_MEMORY_FLAG_READONLY)), allocator, nullptr, size, 0, 0, size);
  gstcl::count_wrapped (size);
  GST_LOG ("wrapped %p: %" G_GSIZE_FORMAT " bytes of %" GST_PTR_FORMAT, m, size, buffer);
  return &m->mem;
}

