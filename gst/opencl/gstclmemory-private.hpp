/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstClMemory's insides, for the library's files that make memories
 * (gstclmemory.cpp; gstclwrap.cpp: foreign host memory wrapped). */
#pragma once

#include "gstclmemory.h"
#include "gstclhpp.hpp"
#include "gstclsource.hpp"

#include <memory>

/* Two ways to give the host a view of a device buffer:
 *  - discrete devices (PCIe GPUs): a pinned staging buffer (CL_MEM_ALLOC_HOST_PTR,
 *    mapped once) and explicit copies, which run at full PCIe speed;
 *  - unified devices (CPUs, iGPUs): the buffer itself is mapped while the host
 *    uses it, so nothing is copied at all. */
struct ClMemPriv {
  /* A GMutex (released by GMutexLocker on every path), not std::mutex:
   * helgrind tracks pthread mutexes, which made its run 3x slower and had it
   * report lock orders inside PoCL taken under this lock. */
  GMutex lock;
  GstClContext *context = nullptr;
  bool unified = false;
  cl::Buffer device;
  /* discrete */
  cl::Buffer staging;
  void *staging_ptr = nullptr;
  bool host_valid = true;    /* a new buffer's content is undefined on both sides */
  bool device_valid = true;
  bool zero_staging = false; /* cleared before the staging buffer existed: zero it */
  cl::Event host_busy;       /* last async copy that reads the staging area */
  cl::Event reading;         /* a download into the staging area not yet waited for
                              * (start_sync_to_host) */
  cl::Event mapping;         /* a host mapping not yet waited for (a wait that gave up) */
  cl::Event band_upload;     /* an upload in bands (gstclbands.hpp) not yet waited for on
                              * the context's queue */
  gint64 read_us = 0;        /* how long recent reads into staging took */
  /* unified */
  void *mapped_ptr = nullptr;
  bool host_dirty = false;   /* the host wrote through the current mapping */
  bool device_dirty = false; /* the device wrote since the host last looked */
  bool wrapped = false;      /* a foreign host buffer (gst_cl_allocator_wrap_buffer) */
  /* a device buffer of another API (gstclsource.hpp): released after the
   * device's last use of `device` */
  std::shared_ptr<gstcl::ForeignBuffer> foreign;
};

struct GstClMemory {
  GstMemory mem;
  ClMemPriv *priv;
};

struct _GstClAllocator {
  GstAllocator parent;
  GstClContext *context;
  gsize wrap_align;          /* a wrapped host buffer's start, in bytes */
  std::shared_ptr<gstcl::BufferSource> *source;  /* where device buffers come from, or NULL */
};

namespace gstcl {
/* Counts a host buffer wrapped (gst_cl_memory_get_stats ()). */
void count_wrapped (gsize size);
}  // namespace gstcl
