/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CUDA memory over a device pointer the CUDA bridge owns (gstclcuda.hpp):
 * a frame OpenCL wrote into shared memory handed to CUDA elements as it
 * is, with no copy. GStreamer 1.24 has this as
 * gst_cuda_allocator_alloc_wrapped; 1.22 has no such call, but its
 * GstCudaMemory is a public struct whose every behaviour (map, unmap,
 * copy, free) is its allocator's, and gst_is_cuda_memory asks only for a
 * GstCudaAllocator: a subclass of that allocator makes memories every
 * 1.22 CUDA element reads as its own. Later versions add functions that
 * reach into GstCudaMemory's private part (its stream), so there the
 * bridge keeps its one copy a frame (available () says which). Not
 * installed. */
#pragma once

#include "gstclcuda-private.hpp"

#include <gst/video/video.h>

namespace gstcl::cuda::api {

/* Whether wrap () works here: libgstcuda-1.0 is 1.22's (no
 * gst_cuda_allocator_alloc_wrapped) and its allocator type could be
 * subclassed; $GST_OPENCL_CUDA_WRAP=0 says no (read at each call: the
 * bridge asks at each start). */
bool wrap_available ();

/* (transfer full) A GstCudaMemory of context `cuda` (a GstCudaContext)
 * over `size` bytes at `ptr`, laid out as `layout` (its planes from ptr);
 * notify (user_data) runs when it is freed, on whichever thread drops it.
 * CUDA maps give ptr; host maps copy the bytes down (and back up after a
 * write), with `cuda` current. Null where !wrap_available (). */
GstMemory *wrap (GstObject *cuda, const GstVideoInfo &layout, CUdeviceptr ptr, size_t size,
    gpointer user_data, GDestroyNotify notify);

}  // namespace gstcl::cuda::api
