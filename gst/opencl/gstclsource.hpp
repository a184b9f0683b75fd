/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Device buffers made by someone else: GstClMemory whose cl_mem another API
 * allocated and OpenCL imported (CUDA's shared memory: gstclcuda.hpp), and
 * pools of such memory. The memory works as any GstClMemory (kernels, host
 * maps through the staging buffer of a discrete device); what keeps the
 * foreign allocation alive (its ForeignBuffer) is released only once the
 * GstClMemory is freed and the device has finished every command that uses
 * it. */
#pragma once

#include "gstclhpp.hpp"
#include <gst/opencl/gstclbufferpool.h>

#include <memory>

/* The C++ API is exported as a whole (the library hides everything else). */
#pragma GCC visibility push(default)
namespace gstcl {

/* One foreign device buffer and what it takes to keep it. Destroyed (its
 * allocation freed) after the last GstClMemory on it is freed and a marker
 * enqueued after that on its context's queue has completed; where that
 * queue was abandoned (a runaway kernel), only when the watchdog releases
 * the queue. The destructor may run on any thread. */
class ForeignBuffer {
public:
  virtual ~ForeignBuffer () = default;
  /* The cl_mem (the memory retains it while it lives). */
  virtual cl_mem mem () const = 0;
  /* The pool that handed out a buffer of this memory took it back
   * (GstBufferPool::release_buffer; any thread): e.g. give it back to the
   * other API. */
  virtual void returned () {}
};

/* Where an allocator's device buffers come from. Thread-safe: a pool
 * allocates on the thread that acquires a buffer. */
class BufferSource {
public:
  virtual ~BufferSource () = default;
  /* A buffer of at least `size` bytes on `ctx`; throws (any exception: the
   * allocation then fails, logged) when it cannot. */
  virtual std::shared_ptr<ForeignBuffer> make (GstClContext *ctx, size_t size) = 0;
};

/* (transfer full) A GstClAllocator on `ctx` whose memories take their
 * device buffers from `source`. A copy of such a memory (gst_memory_copy)
 * is an ordinary GstClMemory. */
GstAllocator *allocator_with_source (GstClContext *ctx, std::shared_ptr<BufferSource> source);

/* (transfer full) gst_cl_buffer_pool_new_for_caps (), its buffers from
 * `source`; their ForeignBuffer hears of each return to the pool. NULL if
 * the caps are not video. */
GstBufferPool *buffer_pool_with_source (GstClContext *ctx, std::shared_ptr<BufferSource> source,
    GstCaps *caps, guint min, guint *size);

/* The foreign buffer of `mem` (a GstClMemory from a source), else null. */
std::shared_ptr<ForeignBuffer> foreign_buffer_of (GstMemory *mem);

/* Whether `pool` is a GstClBufferPool whose buffers come from a source. */
bool pool_has_source (GstBufferPool *pool);

/* The source of `pool`'s buffers (pool_has_source), else null: for another
 * pool of the same memory (an element that hands its input on as it is
 * proposes upstream a pool like the one downstream proposed to it). */
std::shared_ptr<BufferSource> source_of (GstBufferPool *pool);

}  // namespace gstcl
#pragma GCC visibility pop
