/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClMemory: a GstMemory backed by an OpenCL buffer.
 *
 * Mapping with GST_MAP_CL gives the cl_mem (info.data is the cl_mem itself);
 * a plain map gives a host pointer. The memory tracks which side holds the
 * newest data and transfers only when the other side asks for it. */
#pragma once

#include <gst/opencl/gstclcontext.h>

G_BEGIN_DECLS

#define GST_CAPS_FEATURE_MEMORY_CL "memory:OpenCLMemory"
#define GST_CL_MEMORY_TYPE "OpenCLMemory"
/* Map flag: info.data is the cl_mem of the memory (device access), whatever
 * the memory's offset; the data starts mem->offset bytes into it. Mapped
 * GST_MAP_WRITE without GST_MAP_READ, the old contents are discarded: the
 * caller overwrites the buffer, so nothing is uploaded first. */
#define GST_MAP_CL ((GstMapFlags) (GST_MAP_FLAG_LAST << 1))

#define GST_TYPE_CL_ALLOCATOR (gst_cl_allocator_get_type ())
GST_CL_API
G_DECLARE_FINAL_TYPE (GstClAllocator, gst_cl_allocator, GST, CL_ALLOCATOR, GstAllocator)

/* An allocator of GstClMemory on `context`. */
GST_CL_API GstAllocator *gst_cl_allocator_new (GstClContext * context);

GST_CL_API gboolean gst_is_cl_memory (GstMemory * mem);
/* (transfer none) */
GST_CL_API GstClContext *gst_cl_memory_get_context (GstMemory * mem);
/* TRUE when every memory of `buffer` is a GstClMemory of `context`. */
GST_CL_API gboolean gst_cl_buffer_is_on_context (GstBuffer * buffer, GstClContext * context);

/* On a unified-memory device (gst_cl_context_has_unified_memory), a
 * GstClMemory that *is* `buffer`'s own host memory, wrapped with
 * CL_MEM_USE_HOST_PTR: no copy, no transfer counted (the `wrapped` counter
 * instead). The buffer (one memory) is mapped with `flags` and referenced
 * until the device has finished with the cl buffer (its destructor
 * callback: after the last kernel that reads or writes it completed),
 * however early the GstMemory is dropped, so its owner (a pool) cannot
 * reuse it before. NULL (copy instead) on a discrete device, with
 * GST_OPENCL_WRAP=0, for several memories, and for data that does not
 * start on CL_DEVICE_MEM_BASE_ADDR_ALIGN (on a CPU device: on 16 bytes,
 * the widest vector the kernels load). */
GST_CL_API GstMemory *gst_cl_allocator_wrap_buffer (GstAllocator * allocator,
    GstBuffer * buffer, GstMapFlags flags);

/* Copies `size` bytes of host memory into the device buffer (an upload). */
GST_CL_API gboolean gst_cl_memory_write_from_host (GstMemory * mem, const void *data, gsize size);
/* Sets every byte of the memory to zero, on the device and in its host view,
 * without counting a transfer. Pools clear each buffer once when they
 * allocate it, so that bytes no kernel writes (row padding) are zero. */
GST_CL_API gboolean gst_cl_memory_clear (GstMemory * mem);
/* Makes the device (resp. host) copy current now instead of at the next map. */
GST_CL_API gboolean gst_cl_memory_sync_to_device (GstMemory * mem);
GST_CL_API gboolean gst_cl_memory_sync_to_host (GstMemory * mem);

/* Process-wide counters, for tests and benchmarks. */
typedef struct {
  guint64 allocations;      /* device buffers created */
  guint64 uploads;          /* host -> device transfers */
  guint64 downloads;        /* device -> host transfers */
  guint64 upload_bytes;
  guint64 download_bytes;
  /* Added after the others (the struct only grows at the end): */
  guint64 live_buffers;     /* device buffers allocated and not yet freed */
  guint64 live_bytes;       /* their sizes in bytes (device memory; a discrete
                             * device's pinned host views come on top) */
  guint64 wrapped;          /* host buffers wrapped without a copy
                             * (gst_cl_allocator_wrap_buffer), not in the
                             * counts above */
  guint64 wrapped_bytes;
  guint64 band_uploads;     /* frames uploaded in more than one band, and */
  guint64 band_downloads;   /* downloaded (gstclbands.hpp; counted above too) */
  guint64 band_upload_bands;   /* the bands of those uploads, in all */
} GstClMemoryStats;
GST_CL_API void gst_cl_memory_get_stats (GstClMemoryStats * stats);

/* Test hook: the n-th device allocation from now fails (0 = off). */
GST_CL_API void gst_cl_memory_fail_allocation_after (guint n);

G_END_DECLS
