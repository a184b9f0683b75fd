/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstclmemory-private.hpp"
#include "gstcl.hpp"
#include "gstclbands.hpp"
#include "gstclsource.hpp"
#include "gstclwatchdog-private.hpp"
#include "gstcl-debug.h"

#include <atomic>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#define GST_CAT_DEFAULT gst_cl_memory_debug

G_DEFINE_TYPE (GstClAllocator, gst_cl_allocator, GST_TYPE_ALLOCATOR)

static std::atomic<guint64> stat_allocations{0}, stat_uploads{0}, stat_downloads{0},
    stat_upload_bytes{0}, stat_download_bytes{0}, stat_live_buffers{0}, stat_live_bytes{0},
    stat_wrapped{0}, stat_wrapped_bytes{0}, stat_band_uploads{0}, stat_band_downloads{0},
    stat_band_upload_bands{0};
static std::atomic<guint> fail_countdown{0};

void
gst_cl_memory_get_stats (GstClMemoryStats * stats)
{
  stats->allocations = stat_allocations.load ();
  stats->uploads = stat_uploads.load ();
  stats->downloads = stat_downloads.load ();
  stats->upload_bytes = stat_upload_bytes.load ();
  stats->download_bytes = stat_download_bytes.load ();
  stats->live_buffers = stat_live_buffers.load ();
  stats->live_bytes = stat_live_bytes.load ();
  stats->wrapped = stat_wrapped.load ();
  stats->wrapped_bytes = stat_wrapped_bytes.load ();
  stats->band_uploads = stat_band_uploads.load ();
  stats->band_upload_bands = stat_band_upload_bands.load ();
  stats->band_downloads = stat_band_downloads.load ();
}

void
gst_cl_memory_fail_allocation_after (guint n)
{
  fail_countdown.store (n);
}

static bool
injected_failure ()
{
  guint n = fail_countdown.load ();
  while (n > 0 && !fail_countdown.compare_exchange_weak (n, n - 1)) {
  }
  return n == 1;
}

/* ---- transfers; the caller holds priv->lock ---- */

static void
count_upload (GstMemory * mem)
{
  stat_uploads++;
  stat_upload_bytes += mem->maxsize;
  GST_LOG ("upload %p, %" G_GSIZE_FORMAT " bytes", mem, mem->maxsize);
}

static void
count_download (GstMemory * mem)
{
  stat_downloads++;
  stat_download_bytes += mem->maxsize;
  GST_LOG ("download %p, %" G_GSIZE_FORMAT " bytes", mem, mem->maxsize);
}

/* Waits (bounded: gstclwatchdog.hpp) for a command of the memory's queue. */
static void
wait_for (ClMemPriv * p, const cl::Event & event, const char *what,
    const gstcl::watchdog::Pacing & pacing = gstcl::watchdog::Pacing ())
{
  gstcl::watchdog::wait (gstcl::watch_of (p->context), gstcl::queue_of (p->context), event,
      what, pacing);
}

/* The device's data into the staging area (made beforehand), queued and
 * not waited for: p->reading, which wait_reading waits for. A blocking
 * read (and clWaitForEvents) has NVIDIA's driver spin (sched_yield,
 * clock_gettime) for the transfer and the queue ahead of it: most of an
 * element's CPU time a frame in a camera farm (docs/scale.md), and no bound
 * on a kernel that never ends. So the read is queued, and a wait for it
 * sleeps for 3/4 of the time this buffer's recent reads took, then looks
 * at the event every 64th of that time (5 to 200 us; every 20 us for reads
 * under 100 us) until the read is over, with precise sleeps
 * (GST_OPENCL_WAIT=spin: without sleeping). */
static void
queue_download (GstClMemory * m)
{
  ClMemPriv *p = m->priv;
  const cl::CommandQueue &q = gstcl::queue_of (p->context);
  q.enqueueReadBuffer (p->device, CL_FALSE, 0, m->mem.maxsize, p->staging_ptr, nullptr,
      &p->reading);
  q.flush ();
  count_download (&m->mem);
  p->host_valid = true;
}

/* Waits for a read into the staging area, paced by the buffer's recent
 * reads (queue_download). */
static void
wait_read (ClMemPriv * p, const cl::Event & done)
{
  const gint64 start = g_get_monotonic_time ();
  gstcl::watchdog::Pacing pacing;
  pacing.first_sleep_us = p->read_us >= 100 ? p->read_us * 3 / 4 : 0;
  /* after that sleep, steps of a 64th of the read (5 to 200 us): the
   * next frame's upload waits for this wake-up (4K in bands on an H200:
   * 3 % more frames/s than a 16th, 20 us at least); short reads, 20 us */
  pacing.step_us = pacing.first_sleep_us ? CLAMP (p->read_us / 64, 5, 200) : 20;
  wait_for (p, done, "the download", pacing);
  const gint64 took = g_get_monotonic_time () - start;
  p->read_us = p->read_us ? (p->read_us + took) / 2 : took;
}

/* A download into the staging area queued without a wait (start_sync_to_host)
 * is over: the host may read or write the staging area. */
static void
wait_reading (ClMemPriv * p)
{
  if (!p->reading ())
    return;
  /* (one already over costs nothing, and leaves the reads' pacing alone) */
  if (p->reading.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS> () != CL_COMPLETE)
    wait_read (p, p->reading);
  p->reading = cl::Event ();
}

/* The host mapping (staging or unified) is usable: its map has completed. */
static void
wait_mapped (ClMemPriv * p)
{
  if (p->mapping ()) {
    wait_for (p, p->mapping, "the map of a buffer for the host");
    p->mapping = cl::Event ();
  }
}

/* A unified buffer's host mapping, queued behind the device's work and not
 * waited for (p->mapping), where there is none. */
static void
queue_map (GstClMemory * m)
{
  ClMemPriv *p = m->priv;
  if (p->mapped_ptr)
    return;
  p->mapped_ptr = gstcl::queue_of (p->context).enqueueMapBuffer (p->device, CL_FALSE,
      CL_MAP_READ | CL_MAP_WRITE, 0, m->mem.maxsize, nullptr, &p->mapping);
  if (p->device_dirty)
    count_download (&m->mem);
  p->device_dirty = false;
}

/* A discrete buffer's staging area, mapped (made at the first use). */
static void
ensure_staging (GstClMemory * m)
{
  ClMemPriv *p = m->priv;
  const size_t size = m->mem.maxsize;
  if (!p->staging_ptr) {
    p->staging = cl::Buffer (gstcl::context_of (p->context),
        CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, size);
    p->staging_ptr = gstcl::queue_of (p->context).enqueueMapBuffer (p->staging, CL_FALSE,
        CL_MAP_READ | CL_MAP_WRITE, 0, size, nullptr, &p->mapping);
  }
  wait_mapped (p);
  if (p->zero_staging)
    std::memset (p->staging_ptr, 0, size);
  p->zero_staging = false;
}

/* The context's queue waits for an upload in bands that its user did not
 * wait for (another element's use of the memory). */
static void
sync_band_upload (ClMemPriv * p)
{
  if (!p->band_upload ())
    return;
  const std::vector<cl::Event> wait { p->band_upload };
  gstcl::queue_of (p->context).enqueueBarrierWithWaitList (&wait);
  p->band_upload = cl::Event ();
}

/* Returns the host pointer, current for reading. */
static void *
host_access (GstClMemory * m, bool write)
{
  ClMemPriv *p = m->priv;
  if (p->unified) {
    queue_map (m);
    wait_mapped (p);
    p->host_dirty |= write;
    return p->mapped_ptr;
  }
  ensure_staging (m);
  if (!p->host_valid)
    queue_download (m);
  else if (p->host_busy ())
    wait_for (p, p->host_busy, "an upload");  /* it may still read the staging area */
  wait_reading (p);
  /* Any host mapping may change the data: some producers write through a
   * read mapping (rgb2bayer 1.22 does). The cost is small: a kernel that
   * then overwrites the buffer maps it write-only, which uploads nothing. */
  p->device_valid = false;
  return p->staging_ptr;
}

/* `discard`: the caller overwrites the buffer, its old contents are not
 * needed on the device. */
static cl_mem
device_access (GstClMemory * m, bool write, bool discard = false)
{
  ClMemPriv *p = m->priv;
  const cl::CommandQueue &q = gstcl::queue_of (p->context);
  if (p->unified) {
    if (p->mapped_ptr) {
      q.enqueueUnmapMemObject (p->device, p->mapped_ptr);   /* after the map: in order */
      p->mapped_ptr = nullptr;
      p->mapping = cl::Event ();
      if (p->host_dirty)
        count_upload (&m->mem);
      p->host_dirty = false;
    }
    p->device_dirty |= write;
    return p->device ();
  }
  sync_band_upload (p);
  if (!p->device_valid && !discard) {
    q.enqueueWriteBuffer (p->device, CL_FALSE, 0, m->mem.maxsize, p->staging_ptr,
        nullptr, &p->host_busy);
    count_upload (&m->mem);
  }
  p->device_valid = true;
  if (write)
    p->host_valid = false;
  return p->device ();
}

/* ---- GstMemory vfuncs ---- */

static gpointer
cl_mem_map_full (GstMemory * mem, GstMapInfo * info, gsize)
{
  auto *m = reinterpret_cast<GstClMemory *> (mem);
  const bool write = (info->flags & GST_MAP_WRITE) != 0;
  GST_LOG ("map %p %s%s%s", mem, (info->flags & GST_MAP_READ) ? "r" : "", write ? "w" : "",
      (info->flags & GST_MAP_CL) ? " cl" : " host");
  g_autoptr (GMutexLocker) guard = g_mutex_locker_new (&m->priv->lock);
  gpointer ret = nullptr;
  try {
    if (info->flags & GST_MAP_CL)
      /* gst_memory_map() adds mem->offset to what we return: take it off so
       * that info.data is exactly the cl_mem. Write-only: old data not needed. */
      ret = (guint8 *) device_access (m, write, write && !(info->flags & GST_MAP_READ)) -
          mem->offset;
    else
      ret = host_access (m, write);
  } catch (const cl::Error & e) {
    GST_ERROR ("could not map OpenCL memory %p: %s", mem, gstcl::describe (e).c_str ());
  }
  return ret;
}

static void
cl_mem_unmap_full (GstMemory *, GstMapInfo *)
{
  /* Nothing to do: state changes happen at map time, and a unified mapping is
   * kept until the device needs the buffer, so repeated host maps are free. */
}

static GstMemory *
cl_mem_share (GstMemory *, gssize, gssize)
{
  return nullptr;  /* GST_MEMORY_FLAG_NO_SHARE: sub-buffers are copied */
}

static GstMemory *cl_memory_new (GstClAllocator * alloc, gsize size, bool plain = false);

static GstMemory *
cl_mem_copy (GstMemory * mem, gssize offset, gssize size)
{
  auto *src = reinterpret_cast<GstClMemory *> (mem);
  if (size < 0)
    size = mem->size - offset;
  /* (an ordinary buffer, also where the source's are foreign: a copy
   * never goes back to a pool) */
  auto *dst = reinterpret_cast<GstClMemory *> (cl_memory_new (
          GST_CL_ALLOCATOR (mem->allocator), size, true));
  if (!dst)
    return nullptr;
  try {
    g_autoptr (GMutexLocker) guard = g_mutex_locker_new (&src->priv->lock);
    cl_mem from = device_access (src, false);
    cl_mem to = device_access (dst, true, true);
    if (size > 0)
      gstcl::queue_of (src->priv->context).enqueueCopyBuffer (cl::Buffer (from, true),
          cl::Buffer (to, true), mem->offset + offset, 0, size);
  } catch (const cl::Error & e) {
    GST_ERROR ("could not copy OpenCL memory: %s", gstcl::describe (e).c_str ());
    gst_memory_unref (&dst->mem);
    return nullptr;
  }
  return &dst->mem;
}

static GstMemory *
cl_memory_new (GstClAllocator * alloc, gsize size, bool plain)
{
  if (injected_failure ()) {
    GST_WARNING ("injected allocation failure");
    return nullptr;
  }
  auto *p = new ClMemPriv ();
  g_mutex_init (&p->lock);
  p->context = GST_CL_CONTEXT (gst_object_ref (alloc->context));
  p->unified = gst_cl_context_has_unified_memory (alloc->context);
  try {
    if (alloc->source && !plain) {
      p->foreign = (*alloc->source)->make (alloc->context, MAX (size, (gsize) 1));
      if (!p->foreign || !p->foreign->mem ())
        throw std::runtime_error ("the source gave no buffer");
      p->device = cl::Buffer (p->foreign->mem (), true);   /* retained: ours too */
    } else {
      /* A zero-sized cl buffer is invalid; keep at least one byte. */
      p->device = cl::Buffer (gstcl::context_of (alloc->context),
          CL_MEM_READ_WRITE | (p->unified ? CL_MEM_ALLOC_HOST_PTR : 0),
          MAX (size, (gsize) 1));
    }
  } catch (...) {
    std::string why = "an unknown exception";
    try {
      throw;
    } catch (const cl::Error & e) {
      why = gstcl::describe (e);
    } catch (const std::exception & e) {
      why = e.what ();
    } catch (...) {
    }
    GST_ERROR ("could not allocate %" G_GSIZE_FORMAT " bytes of OpenCL memory%s: %s",
        size, alloc->source && !plain ? " from its source" : "", why.c_str ());
    p->foreign.reset ();
    gst_object_unref (p->context);
    g_mutex_clear (&p->lock);
    delete p;
    return nullptr;
  }
  auto *m = g_new0 (GstClMemory, 1);
  m->priv = p;
  gst_memory_init (&m->mem, GST_MEMORY_FLAG_NO_SHARE, GST_ALLOCATOR (alloc), nullptr,
      size, 0, 0, size);
  stat_allocations++;
  stat_live_buffers++;
  stat_live_bytes += MAX (size, (gsize) 1);
  GST_LOG ("allocated %p, %" G_GSIZE_FORMAT " bytes%s", m, size,
      p->foreign ? " (a foreign buffer)" : "");
  return &m->mem;
}

static GstMemory *
gst_cl_allocator_alloc (GstAllocator * allocator, gsize size, GstAllocationParams *)
{
  return cl_memory_new (GST_CL_ALLOCATOR (allocator), size);
}

/* A foreign buffer's owner goes once the device has finished with it: a
 * marker after every command on the queue (in order: every command that
 * used the buffer) is waited for, bounded, and not ended by a flush of the
 * thread's element. Where that fails, the queue is abandoned or its work
 * is stuck: the owner is kept with the queue, as its buffers are. Pools
 * free their buffers rarely (at stop, or a change of caps), so the wait
 * costs nothing per frame. */
static void
release_foreign (ClMemPriv * p, gstcl::watchdog::QueueWatch * w)
{
  std::shared_ptr<gstcl::ForeignBuffer> owner = std::move (p->foreign);
  if (!gstcl::watchdog::abandoned (*w)) {
    try {
      gstcl::BuildScope none (nullptr);
      const cl::CommandQueue &q = gstcl::queue_of (p->context);
      cl::Event done;
      q.enqueueMarkerWithWaitList (nullptr, &done);
      q.flush ();
      wait_for (p, done, "the last use of a foreign buffer");
      p->device = cl::Buffer ();   /* our reference first, then the owner's */
      owner.reset ();
      return;
    } catch (const cl::Error & e) {
      GST_WARNING ("a foreign buffer is kept with its queue: %s", gstcl::describe (e).c_str ());
    } catch (...) {
      GST_WARNING ("a foreign buffer is kept with its queue (its release failed)");
    }
  }
  gstcl::watchdog::keep_buffer (*w, p->device);
  gstcl::watchdog::keep_owner (*w, std::move (owner));
  p->device = cl::Buffer ();
}

static void
gst_cl_allocator_free (GstAllocator *, GstMemory * mem)
{
  auto *m = reinterpret_cast<GstClMemory *> (mem);
  ClMemPriv *p = m->priv;
  gstcl::watchdog::QueueWatch *w = gstcl::watch_of (p->context);
  if (p->foreign)
    release_foreign (p, w);
  if (gstcl::watchdog::abandoned (*w)) {
    /* A runaway kernel may still use them: kept with its queue, which
     * nothing is enqueued on any more. */
    gstcl::watchdog::keep_buffer (*w, p->device);
    gstcl::watchdog::keep_buffer (*w, p->staging);
  } else {
    try {
      const cl::CommandQueue &q = gstcl::queue_of (p->context);
      /* after the copies into and out of the staging area that nothing
       * waited for, which may be on the copy queues (a frame in bands
       * handed on with its reads queued, an upload in bands from it) */
      std::vector<cl::Event> copies;
      for (const cl::Event *e : { &p->reading, &p->host_busy })
        if ((*e) ())
          copies.push_back (*e);
      if (p->staging_ptr)
        q.enqueueUnmapMemObject (p->staging, p->staging_ptr, copies.empty () ? nullptr :
            &copies);
      if (p->mapped_ptr)
        q.enqueueUnmapMemObject (p->device, p->mapped_ptr);
    } catch (const cl::Error & e) {
      GST_WARNING ("unmap at free failed: %s", gstcl::describe (e).c_str ());
    }
  }
  const bool wrapped = p->wrapped;
  gst_object_unref (p->context);
  g_mutex_clear (&p->lock);
  /* Releases the cl buffers; the driver keeps them while in use (a wrapped
   * buffer's owner too: end_lease). */
  delete p;
  if (!wrapped) {
    stat_live_bytes -= MAX (mem->maxsize, (gsize) 1);
    stat_live_buffers--;
  }
  g_free (m);
}

static void
gst_cl_allocator_finalize (GObject * object)
{
  delete GST_CL_ALLOCATOR (object)->source;
  gst_object_unref (GST_CL_ALLOCATOR (object)->context);
  G_OBJECT_CLASS (gst_cl_allocator_parent_class)->finalize (object);
}

static void
gst_cl_allocator_class_init (GstClAllocatorClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_cl_allocator_finalize;
  GST_ALLOCATOR_CLASS (klass)->alloc = gst_cl_allocator_alloc;
  GST_ALLOCATOR_CLASS (klass)->free = gst_cl_allocator_free;
  gst_cl_debug_init ();
}

static void
gst_cl_allocator_init (GstClAllocator * self)
{
  GstAllocator *a = GST_ALLOCATOR (self);
  a->mem_type = GST_CL_MEMORY_TYPE;
  a->mem_map_full = cl_mem_map_full;
  a->mem_unmap_full = cl_mem_unmap_full;
  a->mem_share = cl_mem_share;
  a->mem_copy = cl_mem_copy;
  GST_OBJECT_FLAG_SET (self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

GstAllocator *
gst_cl_allocator_new (GstClContext * context)
{
  g_return_val_if_fail (GST_IS_CL_CONTEXT (context), nullptr);
  auto *self = GST_CL_ALLOCATOR (g_object_new (GST_TYPE_CL_ALLOCATOR, nullptr));
  gst_object_ref_sink (self);
  self->context = GST_CL_CONTEXT (gst_object_ref (context));
  /* Where a wrapped host buffer must start (gst_cl_allocator_wrap_buffer):
   * CL_DEVICE_MEM_BASE_ADDR_ALIGN (128 bytes on PoCL, 4096 for an Intel GPU
   * to read in place), but on a CPU device, where the memory is the host's
   * and only the kernels' own loads care, 16 bytes: the widest vector that
   * a kernel of kernels/ loads through a pointer (uint4, uchar16, ushort8).
   * PoCL (3.1) assumes no more of a kernel argument than its type says and
   * reads any pointer in place, misaligned ones too (a debug warning). */
  self->wrap_align = 128;
  try {
    const cl::Device &device = gstcl::device_of (context);
    self->wrap_align = MAX (device.getInfo<CL_DEVICE_MEM_BASE_ADDR_ALIGN> () / 8, (cl_uint) 1);
    if (device.getInfo<CL_DEVICE_TYPE> () & CL_DEVICE_TYPE_CPU)
      self->wrap_align = MIN (self->wrap_align, (gsize) 16);
  } catch (const cl::Error & e) {
    GST_WARNING ("device alignment: %s", gstcl::describe (e).c_str ());
  }
  return GST_ALLOCATOR (self);
}

void
gstcl::count_wrapped (gsize size)
{
  stat_wrapped++;
  stat_wrapped_bytes += size;
}

/* ---- device buffers from a source (gstclsource.hpp) ---- */

GstAllocator *
gstcl::allocator_with_source (GstClContext * ctx, std::shared_ptr<BufferSource> source)
{
  GstAllocator *a = gst_cl_allocator_new (ctx);
  if (a && source)
    GST_CL_ALLOCATOR (a)->source = new std::shared_ptr<BufferSource> (std::move (source));
  return a;
}

std::shared_ptr<gstcl::ForeignBuffer>
gstcl::foreign_buffer_of (GstMemory * mem)
{
  if (!gst_is_cl_memory (mem))
    return nullptr;
  return reinterpret_cast<GstClMemory *> (mem)->priv->foreign;
}

gboolean
gst_is_cl_memory (GstMemory * mem)
{
  return mem && mem->allocator && GST_IS_CL_ALLOCATOR (mem->allocator);
}

GstClContext *
gst_cl_memory_get_context (GstMemory * mem)
{
  g_return_val_if_fail (gst_is_cl_memory (mem), nullptr);
  return reinterpret_cast<GstClMemory *> (mem)->priv->context;
}

gboolean
gst_cl_buffer_is_on_context (GstBuffer * buffer, GstClContext * context)
{
  guint n = gst_buffer_n_memory (buffer);
  if (n == 0)
    return FALSE;
  for (guint i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, i);
    if (!gst_is_cl_memory (mem) || gst_cl_memory_get_context (mem) != context)
      return FALSE;
  }
  return TRUE;
}

/* Runs f on the memory under its lock; throws what f throws. */
template <typename F>
static void
locked_throwing (GstMemory * mem, F && f)
{
  auto *m = reinterpret_cast<GstClMemory *> (mem);
  g_autoptr (GMutexLocker) guard = g_mutex_locker_new (&m->priv->lock);
  f (m);
}

template <typename F>
static gboolean
locked (GstMemory * mem, const char *what, F && f)
{
  g_return_val_if_fail (gst_is_cl_memory (mem), FALSE);
  try {
    locked_throwing (mem, f);
  } catch (const gstcl::WaitCancelled &) {
    GST_DEBUG ("%s: the wait for the device was ended by a flush", what);
    return FALSE;
  } catch (const cl::Error & e) {
    GST_ERROR ("%s failed: %s", what, gstcl::describe (e).c_str ());
    return FALSE;
  }
  return TRUE;
}

static void
write_from_host (GstClMemory * m, const void *data, gsize size)
{
  if (m->priv->unified) {
    /* The mapping is the device memory: one copy, visible after unmap. */
    std::memcpy (host_access (m, true), data, size);
    return;
  }
  cl_mem dev = device_access (m, true, size == m->mem.maxsize);
  const cl::CommandQueue &q = gstcl::queue_of (m->priv->context);
  /* A blocking write waits for the queue ahead of it too, without bound:
   * that part is waited for first, bounded, so that the driver then waits
   * for this transfer only. (A write that did not block would read the
   * caller's data after a wait that gave up.) */
  cl::Event ahead;
  q.enqueueMarkerWithWaitList (nullptr, &ahead);
  wait_for (m->priv, ahead, "the work ahead of an upload");
  q.enqueueWriteBuffer (cl::Buffer (dev, true), CL_TRUE, 0, size, data);
  count_upload (&m->mem);
}

gboolean
gst_cl_memory_write_from_host (GstMemory * mem, const void *data, gsize size)
{
  g_return_val_if_fail (size <= mem->maxsize, FALSE);
  return locked (mem, "upload", [&] (GstClMemory * m) { write_from_host (m, data, size); });
}

gboolean
gst_cl_memory_clear (GstMemory * mem)
{
  return locked (mem, "clear", [] (GstClMemory * m) {
    ClMemPriv *p = m->priv;
    const cl::CommandQueue &q = gstcl::queue_of (p->context);
    const size_t size = m->mem.maxsize;
    wait_mapped (p);
    if (p->unified && p->mapped_ptr) {
      std::memset (p->mapped_ptr, 0, size);  /* the mapping is the buffer */
      return;
    }
    /* On the queue: ordered before any kernel or map that comes later, and
     * no transfer is counted. */
    q.enqueueFillBuffer (p->device, (cl_uchar) 0, 0, MAX (size, (size_t) 1));
    if (p->unified)
      return;
    if (p->staging_ptr) {
      if (p->host_busy ())
        wait_for (p, p->host_busy, "an upload");
      wait_reading (p);
      std::memset (p->staging_ptr, 0, size);
    } else {
      p->zero_staging = true;
    }
    p->host_valid = true;
  });
}

gboolean
gst_cl_memory_sync_to_device (GstMemory * mem)
{
  return locked (mem, "upload", [] (GstClMemory * m) { device_access (m, false); });
}

gboolean
gst_cl_memory_sync_to_host (GstMemory * mem)
{
  return locked (mem, "download", [] (GstClMemory * m) { host_access (m, false); });
}

/* ---- the same, throwing (gstclwatchdog.hpp) ---- */

namespace gstcl {

void
sync_to_host (GstMemory * mem)
{
  locked_throwing (mem, [] (GstClMemory * m) { host_access (m, false); });
}

cl::Event
start_sync_to_host (GstMemory * mem)
{
  cl::Event ready;
  locked_throwing (mem, [&] (GstClMemory * m) {
    ClMemPriv *p = m->priv;
    if (p->unified) {
      queue_map (m);
      ready = p->mapping;
      return;
    }
    /* the download queued, not waited for: a host map waits for it */
    if (!p->host_valid) {
      ensure_staging (m);
      queue_download (m);
    }
    ready = p->reading;
  });
  return ready;
}

cl_mem
device_in_bands (GstMemory * mem, const void *data, gsize size, BandUpload * up)
{
  *up = BandUpload ();
  cl_mem ret = nullptr;
  locked_throwing (mem, [&] (GstClMemory * m) {
    ClMemPriv *p = m->priv;
    if (p->unified || (!data && p->device_valid)) {
      if (data)
        ::write_from_host (m, data, size);
      ret = device_access (m, false);
      return;
    }
    sync_band_upload (p);
    wait_reading (p);
    up->device = p->device;
    up->src = static_cast<const guint8 *> (data ? data : p->staging_ptr);
    up->from_staging = !data;
    /* after the work queued on the buffer so far (the frame before may
     * still read it) */
    gstcl::queue_of (p->context).enqueueMarkerWithWaitList (nullptr, &up->after);
    /* until the bands are queued, another user of the memory waits for a
     * gate that opens when the last one completes */
    up->gate = cl::UserEvent (gstcl::context_of (p->context));
    p->band_upload = up->gate;
    p->device_valid = true;
    ret = p->device ();
  });
  return ret;
}

void
end_band_upload (GstMemory * mem, BandUpload * up, const cl::Event & last, size_t bands)
{
  if (!up->gate ())
    return;
  cl::UserEvent gate = up->gate;
  up->gate = cl::UserEvent ();
  if (!last ()) {
    /* nothing queued (an error): the device copy is not the host's */
    gate.setStatus (CL_COMPLETE);
    locked_throwing (mem, [&] (GstClMemory * m) {
      m->priv->device_valid = false;
      m->priv->band_upload = cl::Event ();
    });
    return;
  }
  bool taken = false;
  locked_throwing (mem, [&] (GstClMemory * m) {
    count_upload (&m->mem);
    if (bands > 1) {
      stat_band_uploads++;
      stat_band_upload_bands += bands;
    }
    if (up->from_staging)
      m->priv->host_busy = last;
    taken = m->priv->band_upload () != gate ();
    if (!taken)
      m->priv->band_upload = last;
  });
  if (!taken) {
    gate.setStatus (CL_COMPLETE);
    return;
  }
  /* a user that took the gate meanwhile goes on once the upload is over */
  auto *open = new cl::UserEvent (gate);
  cl::Event (last).setCallback (CL_COMPLETE, [] (cl_event, cl_int, void *data) {
        auto *g = static_cast<cl::UserEvent *> (data);
        g->setStatus (CL_COMPLETE);
        delete g;
      }, open);
}

void *
start_band_download (GstMemory * mem, cl::Buffer * device)
{
  void *staging = nullptr;
  locked_throwing (mem, [&] (GstClMemory * m) {
    if (m->priv->unified)
      return;
    ensure_staging (m);
    wait_reading (m->priv);   /* (a download of another frame's, on the kernels' queue) */
    *device = m->priv->device;
    staging = m->priv->staging_ptr;
  });
  return staging;
}

void
end_band_download (GstMemory * mem, const cl::Event & last, bool bands)
{
  locked_throwing (mem, [&] (GstClMemory * m) {
    ClMemPriv *p = m->priv;
    gstcl::queue_of (p->context).flush ();
    p->reading = last;   /* a host map waits for it (wait_reading) */
    count_download (&m->mem);
    if (bands)
      stat_band_downloads++;
    p->host_valid = true;
  });
}

void
sync_to_device (GstMemory * mem)
{
  locked_throwing (mem, [] (GstClMemory * m) { device_access (m, false); });
}

void
write_from_host (GstMemory * mem, const void *data, gsize size)
{
  g_return_if_fail (size <= mem->maxsize);
  locked_throwing (mem, [&] (GstClMemory * m) { ::write_from_host (m, data, size); });
}

}  // namespace gstcl
