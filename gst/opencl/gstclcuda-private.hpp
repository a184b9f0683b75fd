/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CUDA bridge's view of libcuda and libgstcuda-1.0 (gstclcuda.hpp):
 * their few types and functions declared as their headers give them (the
 * CUDA 11.2+ driver API, gst-plugins-bad 1.22; their ABI), so that nothing
 * of CUDA is needed to build, and both libraries opened at run time. Not
 * installed. */
#pragma once

#include <gst/opencl/gstcl-prelude.h>
#include <gst/video/video.h>

#include <stdexcept>
#include <string>

G_GNUC_INTERNAL extern GstDebugCategory *gst_cl_cuda_debug;

namespace gstcl::cuda::api {

/* ---- CUDA driver API (cuda.h, CUDA 11.2+), as far as used ---- */
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;
typedef unsigned long long CUmemGenericAllocationHandle;
struct CUuuid { unsigned char bytes[16]; };
struct CUmemLocation { int type; int id; };
struct CUmemAllocationProp {
  int type;
  int requestedHandleTypes;
  CUmemLocation location;
  void *win32HandleMetaData;
  struct {
    unsigned char compressionType;
    unsigned char gpuDirectRDMACapable;
    unsigned short usage;
    unsigned char reserved[4];
  } allocFlags;
};
struct CUmemAccessDesc { CUmemLocation location; int flags; };
struct CUDA_MEMCPY2D {
  size_t srcXInBytes, srcY;
  int srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  void *srcArray;
  size_t srcPitch;
  size_t dstXInBytes, dstY;
  int dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  void *dstArray;
  size_t dstPitch;
  size_t WidthInBytes;
  size_t Height;
};
constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_NOT_READY = 600;
constexpr int CU_MEMORYTYPE_DEVICE = 2;
constexpr int CU_MEM_ALLOCATION_TYPE_PINNED = 1;
constexpr int CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 1;
constexpr int CU_MEM_LOCATION_TYPE_DEVICE = 1;
constexpr int CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3;
constexpr int CU_MEM_ALLOC_GRANULARITY_MINIMUM = 0;
constexpr unsigned CU_STREAM_NON_BLOCKING = 1;
constexpr int CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 102;
constexpr int CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED = 103;

struct CudaApi {
  CUresult (*Init) (unsigned);
  CUresult (*DeviceGetCount) (int *);
  CUresult (*DeviceGet) (CUdevice *, int);
  CUresult (*DeviceGetUuid) (CUuuid *, CUdevice);
  CUresult (*DeviceGetAttribute) (int *, int, CUdevice);
  CUresult (*DevicePrimaryCtxRetain) (CUcontext *, CUdevice);
  CUresult (*DevicePrimaryCtxRelease) (CUdevice);
  CUresult (*CtxPushCurrent) (CUcontext);
  CUresult (*CtxPopCurrent) (CUcontext *);
  CUresult (*CtxSynchronize) ();
  CUresult (*MemGetAllocationGranularity) (size_t *, const CUmemAllocationProp *, int);
  CUresult (*MemCreate) (CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
      unsigned long long);
  CUresult (*MemRelease) (CUmemGenericAllocationHandle);
  CUresult (*MemAddressReserve) (CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
  CUresult (*MemAddressFree) (CUdeviceptr, size_t);
  CUresult (*MemMap) (CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle,
      unsigned long long);
  CUresult (*MemUnmap) (CUdeviceptr, size_t);
  CUresult (*MemSetAccess) (CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
  CUresult (*MemExportToShareableHandle) (void *, CUmemGenericAllocationHandle, int,
      unsigned long long);
  CUresult (*MemsetD8) (CUdeviceptr, unsigned char, size_t);
  CUresult (*Memcpy2DAsync) (const CUDA_MEMCPY2D *, CUstream);
  CUresult (*MemcpyDtoH) (void *, CUdeviceptr, size_t);
  CUresult (*MemcpyHtoD) (CUdeviceptr, const void *, size_t);
  CUresult (*MemcpyDtoD) (CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*MemAlloc) (CUdeviceptr *, size_t);
  CUresult (*MemFree) (CUdeviceptr);
  CUresult (*StreamCreate) (CUstream *, unsigned);
  CUresult (*StreamDestroy) (CUstream);
  CUresult (*StreamQuery) (CUstream);
  CUresult (*GetErrorName) (CUresult, const char **);
};

/* ---- libgstcuda-1.0 (1.22); GstCudaContext is a GstObject ---- */
#define GST_MAP_CUDA_FLAG ((GstMapFlags) (GST_MAP_FLAG_LAST << 1))
struct GstCudaApi {
  gboolean (*load_library) ();
  void (*memory_init_once) ();
  gboolean (*is_cuda_memory) (GstMemory *);
  gboolean (*context_push) (GstObject *);
  gboolean (*context_pop) (CUcontext *);
  gboolean (*ensure_element_context) (GstElement *, gint, GstObject **);
  gboolean (*handle_set_context) (GstElement *, GstContext *, gint, GstObject **);
  gboolean (*handle_context_query) (GstElement *, GstQuery *, GstObject *);
  GstBufferPool *(*buffer_pool_new) (GstObject *);
  /* for wrapped memory (gstclcudawrap.hpp): the allocator's type, and
   * 1.24's call for it (null before 1.24) */
  GType (*allocator_get_type) ();
  GstMemory *(*alloc_wrapped) (GstAllocator *, GstObject *, gpointer, const GstVideoInfo *,
      CUdeviceptr, gpointer, GDestroyNotify);
};

/* ---- cl_khr_external_memory, cl_khr_device_uuid: OpenCL 3.0's, where the
 * host API here is 1.2 ---- */
typedef cl_mem (*CreateBufferWithPropertiesFn) (cl_context, const cl_ulong *, cl_mem_flags,
    size_t, void *, cl_int *);
typedef cl_int (*ExternalMemObjectsFn) (cl_command_queue, cl_uint, const cl_mem *, cl_uint,
    const cl_event *, cl_event *);
constexpr cl_ulong kClExternalMemoryHandleOpaqueFd = 0x2060;
constexpr cl_ulong kClMemDeviceHandleList = 0x2051;
constexpr cl_ulong kClMemDeviceHandleListEnd = 0;
constexpr cl_device_info kClDeviceUuid = 0x106A;
constexpr cl_device_info kClDeviceExternalMemoryImportHandleTypes = 0x204F;

struct Loaded {
  bool ok = false;
  std::string why;  /* why not, for the log */
  CudaApi cu {};
  GstCudaApi gc {};
  CreateBufferWithPropertiesFn create_buffer = nullptr;
};

/* Both libraries, opened once (thread-safe); ok says whether all is there. */
const Loaded &loaded ();
/* cuGetErrorName's name of `r`. */
const char *cu_name (CUresult r);
/* Throws std::runtime_error naming `what` and the error unless `r` is
 * CUDA_SUCCESS; logs each call. */
void check (CUresult r, const char *what);
/* Polls `stream` until its work is done (throws after 10 s). */
void wait_stream (CUstream stream, const char *what);

/* The current CUDA context while alive. */
class Current {
public:
  explicit Current (CUcontext c) { check (loaded ().cu.CtxPushCurrent (c), "cuCtxPushCurrent"); }
  ~Current () { CUcontext c; loaded ().cu.CtxPopCurrent (&c); }
  Current (const Current &) = delete;
  Current &operator= (const Current &) = delete;
};

/* The same, for a GstCudaContext (its own push and pop). */
class GstCurrent {
public:
  explicit GstCurrent (GstObject *ctx)
  {
    if (!loaded ().gc.context_push (ctx))
      throw std::runtime_error ("gst_cuda_context_push failed");
  }
  ~GstCurrent () { loaded ().gc.context_pop (nullptr); }
  GstCurrent (const GstCurrent &) = delete;
  GstCurrent &operator= (const GstCurrent &) = delete;
};

}  // namespace gstcl::cuda::api
