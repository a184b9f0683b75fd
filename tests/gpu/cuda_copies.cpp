/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What a 4K NV12 frame's device copies cost between OpenCL and CUDA on an
 * NVIDIA GPU (docs/interop.md, "What each leg costs"): plain buffers
 * against a CUDA VMM allocation exported as a file descriptor and imported
 * into OpenCL, the memory the CUDA bridge shares. No GStreamer, no CUDA
 * headers (libcuda is opened at run time, as the plugin does).
 *   g++ -O2 -std=c++17 tests/gpu/cuda_copies.cpp -o cuda-copies -lOpenCL -ldl
 *   ./cuda-copies [frames]     (on the GPU host; the first NVIDIA device) */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

typedef int CUresult;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;
typedef unsigned long long CUhandle;
struct Loc { int type; int id; };
struct Prop {
  int type, handles;
  Loc loc;
  void *win32;
  unsigned char flags[8];
};
struct Access { Loc loc; int flags; };
struct Copy2D {
  size_t srcX, srcY;
  int srcType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  void *srcArray;
  size_t srcPitch;
  size_t dstX, dstY;
  int dstType;
  void *dstHost;
  CUdeviceptr dstDevice;
  void *dstArray;
  size_t dstPitch;
  size_t width, height;
};

void *cuda;
template <typename F> F
fn (const char *name)
{
  void *p = dlsym (cuda, name);
  if (!p) {
    fprintf (stderr, "no %s in libcuda\n", name);
    exit (1);
  }
  return reinterpret_cast<F> (p);
}
#define CU(call) do { CUresult r_ = (call); if (r_) { fprintf (stderr, "%s: %d\n", #call, r_); exit (1); } } while (0)
#define CL(call) do { cl_int e_ = (call); if (e_) { fprintf (stderr, "%s: %d\n", #call, e_); exit (1); } } while (0)

double
now_us ()
{
  return std::chrono::duration<double, std::micro> (
      std::chrono::steady_clock::now ().time_since_epoch ()).count ();
}

}  // namespace

int
main (int argc, char **argv)
{
  const int frames = argc > 1 ? atoi (argv[1]) : 100;
  const size_t width = 3840, rows = 2160 * 3 / 2, size = width * rows;  /* 4K NV12 */
  cuda = dlopen ("libcuda.so.1", RTLD_NOW);
  if (!cuda) {
    fprintf (stderr, "no libcuda.so.1\n");
    return 1;
  }
  auto cuInit = fn<CUresult (*) (unsigned)> ("cuInit");
  auto cuDeviceGet = fn<CUresult (*) (int *, int)> ("cuDeviceGet");
  auto cuRetain = fn<CUresult (*) (CUcontext *, int)> ("cuDevicePrimaryCtxRetain");
  auto cuPush = fn<CUresult (*) (CUcontext)> ("cuCtxPushCurrent_v2");
  auto cuGran = fn<CUresult (*) (size_t *, const Prop *, int)> ("cuMemGetAllocationGranularity");
  auto cuCreate = fn<CUresult (*) (CUhandle *, size_t, const Prop *, unsigned long long)> (
      "cuMemCreate");
  auto cuReserve = fn<CUresult (*) (CUdeviceptr *, size_t, size_t, CUdeviceptr,
      unsigned long long)> ("cuMemAddressReserve");
  auto cuMap = fn<CUresult (*) (CUdeviceptr, size_t, size_t, CUhandle, unsigned long long)> (
      "cuMemMap");
  auto cuSetAccess = fn<CUresult (*) (CUdeviceptr, size_t, const Access *, size_t)> (
      "cuMemSetAccess");
  auto cuExport = fn<CUresult (*) (void *, CUhandle, int, unsigned long long)> (
      "cuMemExportToShareableHandle");
  auto cuAlloc = fn<CUresult (*) (CUdeviceptr *, size_t)> ("cuMemAlloc_v2");
  auto cuAllocPitch = fn<CUresult (*) (CUdeviceptr *, size_t *, size_t, size_t, unsigned)> (
      "cuMemAllocPitch_v2");
  auto cuCopy2D = fn<CUresult (*) (const Copy2D *, CUstream)> ("cuMemcpy2DAsync_v2");
  auto cuCopy1D = fn<CUresult (*) (CUdeviceptr, CUdeviceptr, size_t, CUstream)> (
      "cuMemcpyDtoDAsync_v2");
  auto cuStreamCreate = fn<CUresult (*) (CUstream *, unsigned)> ("cuStreamCreate");
  auto cuStreamSync = fn<CUresult (*) (CUstream)> ("cuStreamSynchronize");

  CU (cuInit (0));
  int dev = 0;
  CU (cuDeviceGet (&dev, 0));
  CUcontext ctx;
  CU (cuRetain (&ctx, dev));
  CU (cuPush (ctx));
  CUstream stream;
  CU (cuStreamCreate (&stream, 1));

  /* the shared allocation, as the bridge makes it */
  Prop prop {};
  prop.type = 1;     /* pinned */
  prop.handles = 1;  /* POSIX fd */
  prop.loc = {1, dev};
  size_t gran = 0;
  CU (cuGran (&gran, &prop, 0));
  const size_t vsize = (size + gran - 1) / gran * gran;
  CUhandle handle;
  CUdeviceptr shared;
  CU (cuCreate (&handle, vsize, &prop, 0));
  CU (cuReserve (&shared, vsize, 0, 0, 0));
  CU (cuMap (shared, vsize, 0, handle, 0));
  Access access {{1, dev}, 3};
  CU (cuSetAccess (shared, vsize, &access, 1));
  int fd = -1;
  CU (cuExport (&fd, handle, 1, 0));
  CUdeviceptr plain, plain2, pitched;
  size_t pitch = 0;
  CU (cuAlloc (&plain, size));
  CU (cuAlloc (&plain2, size));
  CU (cuAllocPitch (&pitched, &pitch, width, rows, 16));

  /* OpenCL: the NVIDIA device, the import */
  cl_uint np = 0;
  CL (clGetPlatformIDs (0, nullptr, &np));
  std::vector<cl_platform_id> plats (np);
  CL (clGetPlatformIDs (np, plats.data (), nullptr));
  cl_platform_id plat = nullptr;
  cl_device_id cldev = nullptr;
  for (auto p : plats) {
    char name[256] = {};
    clGetPlatformInfo (p, CL_PLATFORM_NAME, sizeof name, name, nullptr);
    if (strstr (name, "NVIDIA") && clGetDeviceIDs (p, CL_DEVICE_TYPE_GPU, 1, &cldev, nullptr) == 0) {
      plat = p;
      break;
    }
  }
  if (!cldev) {
    fprintf (stderr, "no NVIDIA OpenCL device\n");
    return 1;
  }
  cl_int err;
  cl_context clctx = clCreateContext (nullptr, 1, &cldev, nullptr, nullptr, &err);
  CL (err);
  cl_command_queue q = clCreateCommandQueue (clctx, cldev, 0, &err);
  CL (err);
  auto create = reinterpret_cast<cl_mem (*) (cl_context, const cl_mem_properties *, cl_mem_flags,
      size_t, void *, cl_int *)> (clGetExtensionFunctionAddressForPlatform (plat,
          "clCreateBufferWithProperties"));
  if (!create)
    create = clCreateBufferWithProperties;
  const cl_mem_properties props[] = {0x2060 /* OPAQUE_FD */, (cl_mem_properties) fd, 0};
  cl_mem imported = create (clctx, props, CL_MEM_READ_WRITE, vsize, nullptr, &err);
  CL (err);
  typedef cl_int (*AcqRel) (cl_command_queue, cl_uint, const cl_mem *, cl_uint, const cl_event *,
      cl_event *);
  auto acquire = reinterpret_cast<AcqRel> (clGetExtensionFunctionAddressForPlatform (plat,
          "clEnqueueAcquireExternalMemObjectsKHR"));
  auto release = reinterpret_cast<AcqRel> (clGetExtensionFunctionAddressForPlatform (plat,
          "clEnqueueReleaseExternalMemObjectsKHR"));
  cl_mem a = clCreateBuffer (clctx, CL_MEM_READ_WRITE, size, nullptr, &err);
  CL (err);
  cl_mem b = clCreateBuffer (clctx, CL_MEM_READ_WRITE, size, nullptr, &err);
  CL (err);
  const char *src = "__kernel void fill (__global uint4 *p, uint v) {"
      " p[get_global_id (0)] = (uint4) (v + get_global_id (0)); }";
  cl_program prog = clCreateProgramWithSource (clctx, 1, &src, nullptr, &err);
  CL (err);
  CL (clBuildProgram (prog, 1, &cldev, "", nullptr, nullptr));
  cl_kernel fill = clCreateKernel (prog, "fill", &err);
  CL (err);

  auto report = [&] (const char *what, double us) {
    printf ("%-52s %8.1f us a frame  %7.1f GB/s\n", what, us / frames,
        size / (us / frames) / 1e3);
  };
  /* OpenCL copies and a fill kernel: enqueued `frames` times, then finished */
  auto cl_time = [&] (const char *what, cl_mem from, cl_mem to, bool ext) {
    for (int pass = 0; pass < 2; pass++) {
      const double t0 = now_us ();
      for (int i = 0; i < frames; i++) {
        if (ext && acquire)
          CL (acquire (q, 1, &imported, 0, nullptr, nullptr));
        if (from) {
          CL (clEnqueueCopyBuffer (q, from, to, 0, 0, size, 0, nullptr, nullptr));
        } else {
          cl_uint v = i;
          CL (clSetKernelArg (fill, 0, sizeof to, &to));
          CL (clSetKernelArg (fill, 1, sizeof v, &v));
          size_t n = size / 16;
          CL (clEnqueueNDRangeKernel (q, fill, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
        }
        if (ext && release)
          CL (release (q, 1, &imported, 0, nullptr, nullptr));
      }
      CL (clFinish (q));
      if (pass)
        report (what, now_us () - t0);
    }
  };
  cl_time ("OpenCL copy, plain -> plain", a, b, false);
  cl_time ("OpenCL copy, plain -> imported", a, imported, true);
  cl_time ("OpenCL copy, imported -> plain", imported, a, true);
  cl_time ("OpenCL fill kernel, plain", nullptr, a, false);
  cl_time ("OpenCL fill kernel, imported", nullptr, imported, true);

  /* one frame at a time, each waited for (clFinish): the latency a
   * pipeline sees, with and without the acquire/release of the import */
  auto cl_latency = [&] (const char *what, cl_mem from, cl_mem to, bool ext) {
    double t = 0;
    for (int i = 0; i < frames; i++) {
      const double t0 = now_us ();
      if (ext && acquire)
        CL (acquire (q, 1, &imported, 0, nullptr, nullptr));
      CL (clEnqueueCopyBuffer (q, from, to, 0, 0, size, 0, nullptr, nullptr));
      if (ext && release)
        CL (release (q, 1, &imported, 0, nullptr, nullptr));
      CL (clFinish (q));
      t += now_us () - t0;
    }
    report (what, t);
  };
  cl_latency ("OpenCL copy plain -> plain, each waited for", a, b, false);
  cl_latency ("OpenCL copy plain -> imported, each waited for", a, imported, false);
  cl_latency ("  ... with acquire/release", a, imported, true);

  auto cu_time = [&] (const char *what, auto &&enqueue) {
    for (int pass = 0; pass < 2; pass++) {
      const double t0 = now_us ();
      for (int i = 0; i < frames; i++)
        enqueue ();
      CU (cuStreamSync (stream));
      if (pass)
        report (what, now_us () - t0);
    }
  };
  auto copy2d = [&] (CUdeviceptr from, size_t from_pitch, CUdeviceptr to, size_t to_pitch,
      CUstream on = nullptr) {
    Copy2D c {};
    c.srcType = c.dstType = 2;
    c.srcDevice = from;
    c.srcPitch = from_pitch;
    c.dstDevice = to;
    c.dstPitch = to_pitch;
    c.width = width;
    c.height = rows;
    CU (cuCopy2D (&c, on ? on : stream));
  };
  cu_time ("CUDA 1D copy, plain -> plain", [&] { CU (cuCopy1D (plain2, plain, size, stream)); });
  cu_time ("CUDA 1D copy, shared -> plain", [&] { CU (cuCopy1D (plain, shared, size, stream)); });
  cu_time ("CUDA 2D copy, shared -> pitched (GstCudaMemory's)",
      [&] { copy2d (shared, width, pitched, pitch); });
  cu_time ("CUDA 2D copy, pitched -> shared", [&] { copy2d (pitched, pitch, shared, width); });
  cu_time ("CUDA 2D copy, plain -> pitched", [&] { copy2d (plain, width, pitched, pitch); });
  /* one copy, waited for: what a frame's wait costs */
  double t = 0;
  for (int i = 0; i < frames; i++) {
    const double t0 = now_us ();
    copy2d (shared, width, pitched, pitch);
    CU (cuStreamSync (stream));
    t += now_us () - t0;
  }
  report ("CUDA 2D copy shared -> pitched, each waited for", t);

  /* The same copy right after an OpenCL kernel (finished): what cldownload's
   * copy waits for after the camera kernels. In the primary context (this
   * program's), then in a context of its own, as GStreamer 1.22's
   * GstCudaContext makes (cuCtxCreate): the GPU switches contexts. */
  auto after_kernel = [&] (const char *what, CUstream s, CUdeviceptr to, size_t to_pitch) {
    double t = 0;
    for (int i = 0; i < frames; i++) {
      cl_uint v = i;
      CL (clSetKernelArg (fill, 0, sizeof imported, &imported));
      CL (clSetKernelArg (fill, 1, sizeof v, &v));
      size_t n = size / 16;
      if (acquire)
        CL (acquire (q, 1, &imported, 0, nullptr, nullptr));
      CL (clEnqueueNDRangeKernel (q, fill, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
      if (release)
        CL (release (q, 1, &imported, 0, nullptr, nullptr));
      CL (clFinish (q));
      const double t0 = now_us ();
      copy2d (shared, width, to, to_pitch, s);
      CU (cuStreamSync (s));
      t += now_us () - t0;
    }
    report (what, t);
  };
  after_kernel ("after an OpenCL kernel: CUDA 2D copy, primary ctx", stream, pitched, pitch);
  auto cuCtxCreate = fn<CUresult (*) (CUcontext *, unsigned, int)> ("cuCtxCreate_v2");
  CUcontext own;
  CU (cuCtxCreate (&own, 0, dev));   /* (current now) */
  CUstream own_stream;
  CU (cuStreamCreate (&own_stream, 1));
  CUdeviceptr own_pitched;
  size_t own_pitch = 0;
  CU (cuAllocPitch (&own_pitched, &own_pitch, width, rows, 16));
  after_kernel ("after an OpenCL kernel: CUDA 2D copy, own ctx", own_stream, own_pitched,
      own_pitch);
  /* and without the kernel before, in that context */
  t = 0;
  for (int i = 0; i < frames; i++) {
    CL (clFinish (q));
    const double t0 = now_us ();
    copy2d (shared, width, own_pitched, own_pitch, own_stream);
    CU (cuStreamSync (own_stream));
    t += now_us () - t0;
  }
  report ("no kernel before: CUDA 2D copy, own ctx", t);

  /* Does CUDA's copy overlap OpenCL's next upload? (What a queue between
   * the filter and cldownload could win.) The camera filter's OpenCL work a
   * frame: a 4K 12-bit upload from pinned memory, a kernel writing the
   * shared NV12 (acquired and released), a clFinish; cldownload's CUDA work:
   * the 2D copy into a GStreamer-made (own context) allocation, a sync.
   * Each alone, then both on two threads at once, then one thread doing
   * both in turn (no queue). */
  const size_t raw = (size_t) 3840 * 2160 * 2;
  cl_mem pinned = clCreateBuffer (clctx, CL_MEM_ALLOC_HOST_PTR, raw, nullptr, &err);
  CL (err);
  void *host = clEnqueueMapBuffer (q, pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, raw, 0,
      nullptr, nullptr, &err);
  CL (err);
  memset (host, 7, raw);
  cl_mem rawbuf = clCreateBuffer (clctx, CL_MEM_READ_WRITE, raw, nullptr, &err);
  CL (err);
  cl_command_queue q2 = clCreateCommandQueue (clctx, cldev, 0, &err);
  CL (err);
  auto cl_frame = [&] (cl_command_queue on) {
    CL (clEnqueueWriteBuffer (on, rawbuf, CL_FALSE, 0, raw, host, 0, nullptr, nullptr));
    if (acquire)
      CL (acquire (on, 1, &imported, 0, nullptr, nullptr));
    cl_uint v = 1;
    CL (clSetKernelArg (fill, 0, sizeof imported, &imported));
    CL (clSetKernelArg (fill, 1, sizeof v, &v));
    size_t n = size / 16;
    CL (clEnqueueNDRangeKernel (on, fill, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    if (release)
      CL (release (on, 1, &imported, 0, nullptr, nullptr));
    CL (clFinish (on));
  };
  auto cu_frame = [&] {
    copy2d (shared, width, own_pitched, own_pitch, own_stream);
    CU (cuStreamSync (own_stream));
  };
  auto cuSetCurrent = fn<CUresult (*) (CUcontext)> ("cuCtxSetCurrent");
  auto rate = [&] (const char *what, int n, double us) {
    printf ("%-52s %8.1f us a frame  %7.1f frames/s\n", what, us / n, n / us * 1e6);
  };
  const int many = frames * 3;
  for (int pass = 0; pass < 2; pass++) {
    double t0 = now_us ();
    for (int i = 0; i < many; i++)
      cl_frame (q);
    const double cl_alone = now_us () - t0;
    t0 = now_us ();
    for (int i = 0; i < many; i++)
      cu_frame ();
    const double cu_alone = now_us () - t0;
    double cl_both = 0, cu_both = 0;
    std::thread other ([&] {
      CU (cuSetCurrent (own));
      const double s = now_us ();
      for (int i = 0; i < many; i++)
        cu_frame ();
      cu_both = now_us () - s;
    });
    t0 = now_us ();
    for (int i = 0; i < many; i++)
      cl_frame (q2);
    cl_both = now_us () - t0;
    other.join ();
    t0 = now_us ();
    for (int i = 0; i < many; i++) {
      cl_frame (q);
      cu_frame ();
    }
    const double serial = now_us () - t0;
    if (!pass)
      continue;
    rate ("overlap: OpenCL upload+kernel alone", many, cl_alone);
    rate ("overlap: CUDA 2D copy (own ctx) alone", many, cu_alone);
    rate ("overlap: OpenCL upload+kernel beside the copies", many, cl_both);
    rate ("overlap: CUDA 2D copies beside OpenCL", many, cu_both);
    rate ("overlap: both in turn on one thread", many, serial);
  }
  printf ("(4K NV12: %zu bytes; CUDA pitch %zu)\n", size, pitch);
  return 0;
}
