/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The memory the CUDA bridge shares (gstclcuda.hpp): a CUDA VMM allocation
 * exported as a file descriptor and imported into OpenCL, its ownership
 * between the two APIs, the pools made of it, and the copies of frames
 * into and out of it. Not installed. */
#pragma once

#include "gstclcuda-private.hpp"
#include "gstcl.hpp"
#include "gstclsource.hpp"

#include <gst/video/video.h>

#include <atomic>
#include <memory>
#include <mutex>

namespace gstcl::cuda::api {

/* clEnqueueAcquire/ReleaseExternalMemObjectsKHR of ctx's platform. */
struct ExternalFns {
  ExternalFns (GstClContext *ctx)
  {
    cl_platform_id platform = nullptr;
    clGetDeviceInfo (gst_cl_context_get_cl_device (ctx), CL_DEVICE_PLATFORM, sizeof (platform),
        &platform, nullptr);
    acquire = reinterpret_cast<ExternalMemObjectsFn> (clGetExtensionFunctionAddressForPlatform (
            platform, "clEnqueueAcquireExternalMemObjectsKHR"));
    release = reinterpret_cast<ExternalMemObjectsFn> (clGetExtensionFunctionAddressForPlatform (
            platform, "clEnqueueReleaseExternalMemObjectsKHR"));
  }
  ExternalMemObjectsFn acquire = nullptr;
  ExternalMemObjectsFn release = nullptr;
};

/* One VMM allocation of `device`, exported and imported into ctx's OpenCL
 * context. Made with a CUDA context current; given `cuda` (a
 * GstCudaContext), it keeps it and frees the allocation with it current,
 * on whichever thread drops it (the memory of a pool: gstclsource.hpp),
 * else the caller makes one current.
 *
 * Who may touch the memory, for the pool's (gstclsource.hpp): OpenCL from
 * to_opencl () (an acquire on ctx's queue, cl_khr_external_memory), CUDA
 * once to_cuda () returned (the release after OpenCL's last command,
 * waited for); a new buffer is OpenCL's. */
class Shared : public gstcl::ForeignBuffer {
public:
  Shared (GstClContext *ctx, int device, size_t size, GstObject *cuda = nullptr);
  ~Shared () override;
  Shared (const Shared &) = delete;
  Shared &operator= (const Shared &) = delete;

  CUdeviceptr ptr () const { return ptr_; }
  cl_mem mem () const override { return mem_; }
  size_t size () const { return size_; }
  int device () const { return device_; }
  cl::Event last;  /* the last OpenCL command on it (the ring's; to_cuda's release) */
  bool release_on_return = false;  /* to CUDA as soon as a pool takes it back */
  /* What the last to_cuda () and to_opencl () took, in us (the log's):
   * the release's enqueue, the wait for it, the acquire's enqueue (any
   * thread: a pool's producer allocates, the consumer copies). */
  struct {
    std::atomic<gint64> release {0}, wait {0}, acquire {0};
  } took;

  /* OpenCL's from now: acquired on the queue (in order: before the
   * commands that follow). CUDA's work on it must have completed. */
  void to_opencl ();

  /* CUDA's: released on the queue after OpenCL's commands on it, unless it
   * was already (returned ()), and that release waited for (bounded:
   * gstcl::wait; throws what it throws). */
  void to_cuda (const char *what);

  /* A pool took it back: released now, so that the next frame's CUDA copy
   * waits for this buffer's last reader only, not for the queue's newer
   * work. */
  void returned () override;

private:
  void release_locked ();
  void release ();

  ExternalFns fns_;
  int device_;
  GstClContext *cl_ = nullptr;
  GstObject *cuda_ = nullptr;
  std::mutex lock_;  /* owned_ and last, for to_opencl, to_cuda and returned */
  bool owned_ = false;  /* acquired by OpenCL */
  CUmemGenericAllocationHandle handle_ = 0;
  CUdeviceptr ptr_ = 0;
  size_t size_ = 0;
  cl_mem mem_ = nullptr;
  bool created_ = false, reserved_ = false, mapped_ = false;
};

/* Copies shared.mem() -> `other` (or `other` -> shared.mem() when
 * `into_shared`) on ctx's queue, bracketed by the import's acquire and
 * release; the release's event (the copy's, without the extension's
 * functions). */
cl::Event enqueue_cl_copy (GstClContext *ctx, const ExternalFns &fns, Shared &shared,
    cl_mem other, size_t other_offset, size_t size, bool into_shared);

/* Shared memory for a pool (gstclsource.hpp): each buffer a Shared of the
 * CUDA context `cuda`, OpenCL's when made. `release_on_return`: given to
 * CUDA as soon as the pool takes it back (clupload's output, which CUDA
 * writes next). */
class SharedSource : public gstcl::BufferSource {
public:
  SharedSource (GstObject *cuda, int device, bool release_on_return)
      : cuda_ (GST_OBJECT (gst_object_ref (cuda))), device_ (device),
        release_on_return_ (release_on_return) {}
  ~SharedSource () override { gst_object_unref (cuda_); }
  SharedSource (const SharedSource &) = delete;
  SharedSource &operator= (const SharedSource &) = delete;

  std::shared_ptr<gstcl::ForeignBuffer> make (GstClContext *ctx, size_t size) override;

private:
  GstObject *cuda_;
  int device_;
  bool release_on_return_;
};

/* The Shared under `mem` when it is one of CUDA device `device` on `cl`
 * (any element's: the pointer is the process's on that device). */
Shared *shared_of (GstMemory *mem, int device, GstClContext *cl);

/* Row bytes and rows of `plane`. */
void plane_shape (const GstVideoInfo &info, guint plane, size_t &row_bytes, size_t &rows,
    size_t other_stride);
/* Enqueues on `stream` the planes of the CUDA frame `cuda` to (`to_shared`)
 * or from shared memory at `shared`, laid out as `layout`. */
void copy_planes (CUstream stream, GstVideoFrame &cuda, const GstVideoInfo &layout,
    CUdeviceptr shared, bool to_shared);

}  // namespace gstcl::cuda::api
