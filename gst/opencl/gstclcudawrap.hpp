/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CUDA memory over a device pointer the CUDA bridge owns (gstclcuda.hpp):
 * a frame OpenCL wrote into shared memory handed to CUDA elements as it
 * is, with no copy. GStreamer 1.24 has a call for this,
 * gst_cuda_allocator_alloc_wrapped, used where it is there (checked once:
 * a CUDA map of its first memory must give the pointer wrapped). 1.22 has
 * none, but its GstCudaMemory is a public struct whose every behaviour
 * (map, unmap, copy, free) is its allocator's, and gst_is_cuda_memory asks
 * only for a GstCudaAllocator: a subclass of that allocator makes memories
 * every 1.22 CUDA element reads as its own (not used with 1.24, whose
 * functions reach into GstCudaMemory's private part). Not installed. */
#pragma once

#include "gstclcuda-private.hpp"

#include <gst/video/video.h>

namespace gstcl::cuda::api {

/* Whether wrap () works here: libgstcuda-1.0 has the 1.24 call (and its
 * check did not fail), or is 1.22's and its allocator type could be
 * subclassed; $GST_OPENCL_CUDA_WRAP=0 says no (read at each call: the
 * bridge asks at each start, and wrap () does not look again). */
bool wrap_available ();

/* (transfer full) A GstCudaMemory of context `cuda` (a GstCudaContext)
 * over `size` bytes at `ptr`, laid out as `layout` (its planes from ptr);
 * notify (user_data) runs when it is freed, on whichever thread drops it.
 * CUDA maps give ptr; host maps copy the bytes down (and back up after a
 * write), with `cuda` current. Null where nothing can wrap here, or where
 * 1.24's call failed its check (notify has then run: the caller copies). */
GstMemory *wrap (GstObject *cuda, const GstVideoInfo &layout, CUdeviceptr ptr, size_t size,
    gpointer user_data, GDestroyNotify notify);

}  // namespace gstcl::cuda::api
