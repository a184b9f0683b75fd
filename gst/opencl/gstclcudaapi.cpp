/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libcuda and libgstcuda-1.0, opened at run time (gstclcuda-private.hpp). */
#include "gstclcuda-private.hpp"

#include <thread>

#include <dlfcn.h>

#include <cstring>
#include <mutex>
#include <stdexcept>

#ifndef GST_CL_CUDA
#define GST_CL_CUDA 0
#endif

GstDebugCategory *gst_cl_cuda_debug = nullptr;
#define GST_CAT_DEFAULT gst_cl_cuda_debug

namespace gstcl::cuda::api {

namespace {

template <typename F> bool
sym (void *lib, const char *name, F &out)
{
  out = reinterpret_cast<F> (dlsym (lib, name));
  if (!out)
    GST_WARNING ("%s not found", name);
  return out != nullptr;
}

void
init_debug ()
{
  static std::once_flag once;
  std::call_once (once, [] {
    GST_DEBUG_CATEGORY_INIT (gst_cl_cuda_debug, "clcuda", 0,
        "gst-opencl: frames to and from CUDA memory");
  });
}

}  // namespace

const char *
cu_name (CUresult r)
{
  const Loaded &l = loaded ();
  const char *name = nullptr;
  if (l.cu.GetErrorName && l.cu.GetErrorName (r, &name) == CUDA_SUCCESS && name)
    return name;
  return "unknown CUDA error";
}

const Loaded &
loaded ()
{
  static Loaded l;
  static std::once_flag once;
  std::call_once (once, [] {
    init_debug ();
#if !GST_CL_CUDA
    l.why = "built without the cuda option";
    return;
#else
    const char *env = g_getenv ("GST_OPENCL_CUDA");
    if (env && (!g_ascii_strcasecmp (env, "off") || !strcmp (env, "0"))) {
      l.why = "GST_OPENCL_CUDA=off";
      return;
    }
    /* Libraries stay loaded for the process, as libgstcuda keeps libcuda. */
    void *cuda = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!cuda) {
      l.why = std::string ("libcuda.so.1 not loaded: ") + dlerror ();
      return;
    }
    GST_INFO ("libcuda.so.1 loaded");
    CudaApi &c = l.cu;
    bool ok = sym (cuda, "cuInit", c.Init) && sym (cuda, "cuDeviceGetCount", c.DeviceGetCount) &&
        sym (cuda, "cuDeviceGet", c.DeviceGet) &&
        sym (cuda, "cuDeviceGetAttribute", c.DeviceGetAttribute) &&
        sym (cuda, "cuDevicePrimaryCtxRetain", c.DevicePrimaryCtxRetain) &&
        sym (cuda, "cuDevicePrimaryCtxRelease_v2", c.DevicePrimaryCtxRelease) &&
        sym (cuda, "cuCtxPushCurrent_v2", c.CtxPushCurrent) &&
        sym (cuda, "cuCtxPopCurrent_v2", c.CtxPopCurrent) &&
        sym (cuda, "cuCtxSynchronize", c.CtxSynchronize) &&
        sym (cuda, "cuMemGetAllocationGranularity", c.MemGetAllocationGranularity) &&
        sym (cuda, "cuMemCreate", c.MemCreate) && sym (cuda, "cuMemRelease", c.MemRelease) &&
        sym (cuda, "cuMemAddressReserve", c.MemAddressReserve) &&
        sym (cuda, "cuMemAddressFree", c.MemAddressFree) && sym (cuda, "cuMemMap", c.MemMap) &&
        sym (cuda, "cuMemUnmap", c.MemUnmap) && sym (cuda, "cuMemSetAccess", c.MemSetAccess) &&
        sym (cuda, "cuMemExportToShareableHandle", c.MemExportToShareableHandle) &&
        sym (cuda, "cuMemsetD8_v2", c.MemsetD8) &&
        sym (cuda, "cuMemcpy2DAsync_v2", c.Memcpy2DAsync) &&
        sym (cuda, "cuMemcpyDtoH_v2", c.MemcpyDtoH) && sym (cuda, "cuMemcpyHtoD_v2", c.MemcpyHtoD) &&
        sym (cuda, "cuMemcpyDtoD_v2", c.MemcpyDtoD) && sym (cuda, "cuMemAlloc_v2", c.MemAlloc) &&
        sym (cuda, "cuMemFree_v2", c.MemFree) &&
        sym (cuda, "cuStreamCreate", c.StreamCreate) &&
        sym (cuda, "cuStreamDestroy_v2", c.StreamDestroy) &&
        sym (cuda, "cuStreamQuery", c.StreamQuery) &&
        sym (cuda, "cuGetErrorName", c.GetErrorName);
    /* cuDeviceGetUuid_v2 (CUDA 11.4) gives a MIG instance's own UUID. */
    if (ok && !(c.DeviceGetUuid = reinterpret_cast<decltype (c.DeviceGetUuid)> (
                dlsym (cuda, "cuDeviceGetUuid_v2"))))
      ok = sym (cuda, "cuDeviceGetUuid", c.DeviceGetUuid);
    if (!ok) {
      l.why = "libcuda.so.1 lacks a function (too old a driver?)";
      return;
    }
    CUresult r = c.Init (0);
    int count = 0;
    if (r != CUDA_SUCCESS || (r = c.DeviceGetCount (&count)) != CUDA_SUCCESS || count == 0) {
      l.why = std::string ("no CUDA device: ") + (r != CUDA_SUCCESS ? cu_name (r) : "none");
      return;
    }
    GST_INFO ("cuInit: %d CUDA device(s)", count);

    void *gc = dlopen ("libgstcuda-1.0.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!gc) {
      l.why = std::string ("libgstcuda-1.0.so.0 (gst-plugins-bad) not loaded: ") + dlerror ();
      return;
    }
    GstCudaApi &g = l.gc;
    ok = sym (gc, "gst_cuda_load_library", g.load_library) &&
        sym (gc, "gst_cuda_memory_init_once", g.memory_init_once) &&
        sym (gc, "gst_is_cuda_memory", g.is_cuda_memory) &&
        sym (gc, "gst_cuda_context_push", g.context_push) &&
        sym (gc, "gst_cuda_context_pop", g.context_pop) &&
        sym (gc, "gst_cuda_ensure_element_context", g.ensure_element_context) &&
        sym (gc, "gst_cuda_handle_set_context", g.handle_set_context) &&
        sym (gc, "gst_cuda_handle_context_query", g.handle_context_query) &&
        sym (gc, "gst_cuda_buffer_pool_new", g.buffer_pool_new);
    if (!ok) {
      l.why = "libgstcuda-1.0.so.0 lacks a function (older than 1.22?)";
      return;
    }
    g.allocator_get_type = reinterpret_cast<GType (*) ()> (dlsym (gc,
            "gst_cuda_allocator_get_type"));
    g.alloc_wrapped = reinterpret_cast<decltype (g.alloc_wrapped)> (dlsym (gc,
            "gst_cuda_allocator_alloc_wrapped"));
    if (!g.load_library ()) {
      l.why = "gst_cuda_load_library failed";
      return;
    }
    g.memory_init_once ();
    /* Core in OpenCL 3.0; the ICD loader exports it (2.3 and later). */
    l.create_buffer = reinterpret_cast<CreateBufferWithPropertiesFn> (
        dlsym (RTLD_DEFAULT, "clCreateBufferWithProperties"));
    if (!l.create_buffer) {
      l.why = "the OpenCL ICD loader has no clCreateBufferWithProperties (OpenCL 3.0)";
      return;
    }
    GST_INFO ("libgstcuda-1.0.so.0 loaded");
    l.ok = true;
#endif
  });
  return l;
}

void
check (CUresult r, const char *what)
{
  if (r != CUDA_SUCCESS) {
    std::string msg = std::string (what) + " failed: " + cu_name (r) + " (" +
        std::to_string (r) + ")";
    GST_WARNING ("%s", msg.c_str ());
    throw std::runtime_error (msg);
  }
  GST_LOG ("%s: ok", what);
}

/* Polls the stream: a copy is microseconds, and nothing else runs on it.
 * The first 200 us spin (yielding): a sleep of 10 us is 60 us or more with
 * the kernel's timer slack, several times a 4K frame's copy. */
void
wait_stream (CUstream stream, const char *what)
{
  const auto &cu = loaded ().cu;
  const gint64 start = g_get_monotonic_time ();
  for (;;) {
    CUresult r = cu.StreamQuery (stream);
    if (r == CUDA_SUCCESS)
      return;
    if (r != CUDA_ERROR_NOT_READY)
      check (r, what);
    const gint64 waited = g_get_monotonic_time () - start;
    if (waited > 10 * G_USEC_PER_SEC)
      throw std::runtime_error (std::string (what) + ": not done after 10 s");
    if (waited < 200)
      std::this_thread::yield ();
    else
      g_usleep (CLAMP (waited / 16, 20, 1000));
  }
}

}  // namespace gstcl::cuda::api
