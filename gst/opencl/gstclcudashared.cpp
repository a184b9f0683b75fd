/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The memory the CUDA bridge shares: gstclcudashared.hpp. */
#include "gstclcudashared.hpp"
#include "gstclmemory.h"

#include <fcntl.h>
#include <unistd.h>

#define GST_CAT_DEFAULT gst_cl_cuda_debug

namespace gstcl::cuda::api {

Shared::Shared (GstClContext *ctx, int device, size_t size, GstObject *cuda)
    : fns_ (ctx), device_ (device)
{
  const Loaded &l = loaded ();
  CUmemAllocationProp prop {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  size_t granularity = 0;
  check (l.cu.MemGetAllocationGranularity (&granularity, &prop,
          CU_MEM_ALLOC_GRANULARITY_MINIMUM), "cuMemGetAllocationGranularity");
  if (granularity == 0)
    granularity = 2 << 20;
  size_ = (size + granularity - 1) / granularity * granularity;
  try {
    check (l.cu.MemCreate (&handle_, size_, &prop, 0), "cuMemCreate");
    created_ = true;
    check (l.cu.MemAddressReserve (&ptr_, size_, 0, 0, 0), "cuMemAddressReserve");
    reserved_ = true;
    check (l.cu.MemMap (ptr_, size_, 0, handle_, 0), "cuMemMap");
    mapped_ = true;
    CUmemAccessDesc access {};
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = device;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    check (l.cu.MemSetAccess (ptr_, size_, &access, 1), "cuMemSetAccess");
    /* Bytes no copy writes (row padding) are zero, as in every pool. */
    check (l.cu.MemsetD8 (ptr_, 0, size_), "cuMemsetD8");
    /* The memset runs on the context's default stream, which our
     * non-blocking stream does not wait for: done before any copy. */
    check (l.cu.CtxSynchronize (), "cuCtxSynchronize (after cuMemsetD8)");
    int fd = -1;
    check (l.cu.MemExportToShareableHandle (&fd, handle_,
            CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), "cuMemExportToShareableHandle");
    GST_DEBUG ("exported %" G_GSIZE_FORMAT " bytes (granularity %" G_GSIZE_FORMAT
        ") at 0x%llx as fd %d", size_, granularity, ptr_, fd);
    cl_device_id dev = gst_cl_context_get_cl_device (ctx);
    const cl_ulong props[] = {kClExternalMemoryHandleOpaqueFd, (cl_ulong) fd,
      kClMemDeviceHandleList, (cl_ulong) (uintptr_t) dev, kClMemDeviceHandleListEnd, 0};
    cl_int err = CL_SUCCESS;
    mem_ = l.create_buffer (gst_cl_context_get_cl_context (ctx), props, CL_MEM_READ_WRITE,
        size_, nullptr, &err);
    if (!mem_) {
      /* The device list is optional (one device per context here). */
      GST_INFO ("import with a device list: %s (%d); again without", gstcl::error_name (err),
          err);
      const cl_ulong bare[] = {kClExternalMemoryHandleOpaqueFd, (cl_ulong) fd, 0};
      mem_ = l.create_buffer (gst_cl_context_get_cl_context (ctx), bare, CL_MEM_READ_WRITE,
          size_, nullptr, &err);
    }
    if (!mem_) {
      close (fd);  /* not imported: still ours */
      throw cl::Error (err, "clCreateBufferWithProperties (import of a CUDA allocation)");
    }
    /* A successful import hands the descriptor to the driver, as Vulkan's
     * and CUDA's imports do; the log says whether it is still open. */
    GST_DEBUG ("imported fd %d as cl_mem %p (fd %s after the import)", fd, mem_,
        fcntl (fd, F_GETFD) == -1 ? "closed" : "still open");
  } catch (...) {
    release ();
    throw;
  }
  cl_ = GST_CL_CONTEXT (gst_object_ref (ctx));
  if (cuda)
    cuda_ = GST_OBJECT (gst_object_ref (cuda));
}

Shared::~Shared ()
{
  /* Given back to CUDA first when OpenCL holds it (a pool's frame, acquired
   * for the producer's next write): NVIDIA's driver keeps an external
   * buffer freed while acquired, and the release of its OpenCL context
   * then never returns. */
  if (owned_ && cl_) {
    try {
      to_cuda ("the release of shared memory before it is freed");
    } catch (...) {
      GST_WARNING ("shared memory freed while OpenCL holds it (its release failed)");
    }
  }
  release ();
  if (cuda_)
    gst_object_unref (cuda_);
  if (cl_)
    gst_object_unref (cl_);
}

void
Shared::to_opencl ()
{
  std::lock_guard<std::mutex> g (lock_);
  if (owned_)
    return;
  cl_command_queue q = gst_cl_context_get_cl_queue (cl_);
  const gint64 t0 = g_get_monotonic_time ();
  cl_int err;
  if (fns_.acquire && (err = fns_.acquire (q, 1, &mem_, 0, nullptr, nullptr)) != CL_SUCCESS)
    throw cl::Error (err, "clEnqueueAcquireExternalMemObjectsKHR");
  owned_ = true;
  clFlush (q);
  took.acquire = g_get_monotonic_time () - t0;
}

void
Shared::to_cuda (const char *what)
{
  cl::Event done;
  const gint64 t0 = g_get_monotonic_time ();
  {
    std::lock_guard<std::mutex> g (lock_);
    release_locked ();
    done = last;
  }
  const gint64 t1 = g_get_monotonic_time ();
  gstcl::wait (cl_, done, what);
  took.release = t1 - t0;
  took.wait = g_get_monotonic_time () - t1;
}

void
Shared::returned ()
{
  if (!release_on_return)
    return;
  std::lock_guard<std::mutex> g (lock_);
  try {
    release_locked ();
  } catch (const cl::Error &e) {
    GST_WARNING ("releasing shared memory for CUDA: %s (again before CUDA writes)",
        gstcl::describe (e).c_str ());
  } catch (...) {
    GST_WARNING ("releasing shared memory for CUDA failed (again before CUDA writes)");
  }
}

void
Shared::release_locked ()
{
  if (!owned_)
    return;
  cl_command_queue q = gst_cl_context_get_cl_queue (cl_);
  cl_event ev = nullptr;
  cl_int err = fns_.release ? fns_.release (q, 1, &mem_, 0, nullptr, &ev) :
      clEnqueueMarkerWithWaitList (q, 0, nullptr, &ev);
  if (err != CL_SUCCESS)
    throw cl::Error (err, fns_.release ? "clEnqueueReleaseExternalMemObjectsKHR" :
        "clEnqueueMarkerWithWaitList (shared memory)");
  last = cl::Event (ev);
  owned_ = false;
  clFlush (q);
}

void
Shared::release ()
{
  const Loaded &l = loaded ();
  if (mem_)
    clReleaseMemObject (mem_);
  mem_ = nullptr;
  if (!mapped_ && !reserved_ && !created_)
    return;
  try {
    /* (a context already current stays: nested) */
    std::unique_ptr<GstCurrent> current;
    if (cuda_)
      current = std::make_unique<GstCurrent> (cuda_);
    if (mapped_)
      l.cu.MemUnmap (ptr_, size_);
    if (reserved_)
      l.cu.MemAddressFree (ptr_, size_);
    if (created_)
      l.cu.MemRelease (handle_);
    GST_DEBUG ("freed shared memory at 0x%llx (%" G_GSIZE_FORMAT " bytes)", ptr_, size_);
  } catch (const std::exception &e) {
    GST_WARNING ("shared memory not freed (%" G_GSIZE_FORMAT " bytes): %s", size_, e.what ());
  }
  mapped_ = reserved_ = created_ = false;
}

/* Copies shared.mem() -> dst (or dst -> shared.mem() when `into_shared`),
 * bracketed by the acquire and release the extension asks for; returns the
 * release's event (the copy's, without the extension's functions). */
cl::Event
enqueue_cl_copy (GstClContext *ctx, const ExternalFns &fns, Shared &shared, cl_mem other,
    size_t other_offset, size_t size, bool into_shared)
{
  cl_command_queue q = gst_cl_context_get_cl_queue (ctx);
  cl_mem sm = shared.mem ();
  cl_int err;
  if (fns.acquire && (err = fns.acquire (q, 1, &sm, 0, nullptr, nullptr)) != CL_SUCCESS)
    throw cl::Error (err, "clEnqueueAcquireExternalMemObjectsKHR");
  cl_event copy = nullptr;
  err = into_shared ?
      clEnqueueCopyBuffer (q, other, sm, other_offset, 0, size, 0, nullptr, &copy) :
      clEnqueueCopyBuffer (q, sm, other, 0, other_offset, size, 0, nullptr, &copy);
  if (err != CL_SUCCESS)
    throw cl::Error (err, "clEnqueueCopyBuffer (shared memory)");
  cl::Event done (copy);  /* takes the reference */
  if (fns.release) {
    cl_event rel = nullptr;
    if ((err = fns.release (q, 1, &sm, 0, nullptr, &rel)) != CL_SUCCESS)
      throw cl::Error (err, "clEnqueueReleaseExternalMemObjectsKHR");
    done = cl::Event (rel);
  }
  clFlush (q);
  return done;
}

std::shared_ptr<gstcl::ForeignBuffer>
SharedSource::make (GstClContext *ctx, size_t size)
{
  std::shared_ptr<Shared> s;
  {
    GstCurrent current (cuda_);
    s = std::make_shared<Shared> (ctx, device_, size, cuda_);
  }
  s->release_on_return = release_on_return_;
  s->to_opencl ();
  GST_DEBUG ("shared memory for a pool: %" G_GSIZE_FORMAT " bytes at 0x%llx", s->size (),
      s->ptr ());
  return s;
}

/* The Shared under `mem` when it is one of CUDA device `device` on `cl`
 * (any element's: the pointer is the process's on that device). */
Shared *
shared_of (GstMemory *mem, int device, GstClContext *cl)
{
  auto *s = dynamic_cast<Shared *> (gstcl::foreign_buffer_of (mem).get ());
  return s && s->device () == device && gst_cl_memory_get_context (mem) == cl ? s : nullptr;
}

/* Row bytes and rows of `plane`. */
void
plane_shape (const GstVideoInfo &info, guint plane, size_t &row_bytes, size_t &rows,
    size_t other_stride)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];
  gst_video_format_info_component (info.finfo, plane, comp);
  const int c = comp[0] >= 0 ? comp[0] : (int) plane;
  rows = GST_VIDEO_INFO_COMP_HEIGHT (&info, c);
  row_bytes = (size_t) GST_VIDEO_INFO_COMP_WIDTH (&info, c) * GST_VIDEO_INFO_COMP_PSTRIDE (&info, c);
  if (row_bytes == 0)  /* packed formats with no pixel stride (v210): the rows as they are */
    row_bytes = MIN ((size_t) GST_VIDEO_INFO_PLANE_STRIDE (&info, plane), other_stride);
}

/* Enqueues on `stream` the planes of the CUDA frame `cuda` to (`to_shared`)
 * or from shared memory at `shared`, laid out as `layout`. */
void
copy_planes (CUstream stream, GstVideoFrame &cuda, const GstVideoInfo &layout,
    CUdeviceptr shared, bool to_shared)
{
  for (guint i = 0; i < GST_VIDEO_FRAME_N_PLANES (&cuda); i++) {
    CUDA_MEMCPY2D c {};
    size_t rows;
    plane_shape (layout, i, c.WidthInBytes, rows, GST_VIDEO_FRAME_PLANE_STRIDE (&cuda, i));
    c.Height = rows;
    const CUdeviceptr frame = (CUdeviceptr) GST_VIDEO_FRAME_PLANE_DATA (&cuda, i);
    const size_t frame_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (&cuda, i);
    const CUdeviceptr plane = shared + GST_VIDEO_INFO_PLANE_OFFSET (&layout, i);
    const size_t plane_pitch = GST_VIDEO_INFO_PLANE_STRIDE (&layout, i);
    c.srcMemoryType = c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcDevice = to_shared ? frame : plane;
    c.srcPitch = to_shared ? frame_pitch : plane_pitch;
    c.dstDevice = to_shared ? plane : frame;
    c.dstPitch = to_shared ? plane_pitch : frame_pitch;
    check (loaded ().cu.Memcpy2DAsync (&c, stream), to_shared ?
        "cuMemcpy2DAsync (CUDA -> shared)" : "cuMemcpy2DAsync (shared -> CUDA)");
  }
}

}  // namespace gstcl::cuda::api
