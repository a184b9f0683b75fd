/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstclbands.hpp"
#include "gstcl.hpp"

#include <algorithm>

namespace gstcl {

void
Bands::set_input (GstMemory *mem, std::vector<int> ends, std::vector<size_t> bytes,
    BandUpload upload)
{
  clear ();
  in_ = mem;
  ends_ = std::move (ends);
  bytes_ = std::move (bytes);
  upload_ = std::move (upload);
}

/* Queues the uploads of the bands up to `band`. */
void
Bands::upload_to (GstClContext *ctx, size_t band)
{
  if (!upload_.src)
    return;
  const cl::CommandQueue &up = copy_queue (ctx, COPY_UP);
  for (size_t i = ready_.size (); i <= band && i < bytes_.size (); i++) {
    const size_t start = i ? bytes_[i - 1] : 0;
    std::vector<cl::Event> after;
    if (i == 0)
      after.push_back (upload_.after);
    cl::Event e;
    up.enqueueWriteBuffer (upload_.device, CL_FALSE, start, bytes_[i] - start,
        upload_.src + start, after.empty () ? nullptr : &after, &e);
    ready_.push_back (e);
  }
  up.flush ();
}

void
Bands::wait_input (GstClContext *ctx, int rows)
{
  if (!upload_.src)
    return;
  /* the first band that reaches row `rows` */
  const size_t band = std::min<size_t> (std::lower_bound (ends_.begin (), ends_.end (), rows) -
      ends_.begin (), ends_.size () - 1);
  if (band < waited_)
    return;
  upload_to (ctx, band);
  /* the upload queue is in order: the band's event covers those before */
  const std::vector<cl::Event> wait { ready_[band] };
  queue_of (ctx).enqueueBarrierWithWaitList (&wait);
  waited_ = band + 1;
}

void
Bands::set_output (const cl::Buffer &device, void *staging, RowBytes plan, const void *info,
    size_t limit)
{
  out_device_ = device;
  staging_ = staging;
  plan_ = plan;
  out_info_ = info;
  out_limit_ = limit;
}

void
Bands::done (GstClContext *ctx, int rows)
{
  /* nothing to read (output on the device): no marker either */
  if (rows <= rows_done_ || !staging_)
    return;
  std::vector<cl::Event> marker (1);
  queue_of (ctx).enqueueMarkerWithWaitList (nullptr, &marker[0]);
  queue_of (ctx).flush ();
  const cl::CommandQueue &down = copy_queue (ctx, COPY_DOWN);
  for (const auto &range : plan_ (out_info_, rows_done_, rows, out_limit_))
    down.enqueueReadBuffer (out_device_, CL_FALSE, range.first, range.second,
        static_cast<guint8 *> (staging_) + range.first, &marker, &last_read_);
  down.flush ();
  bands_read_++;
  rows_done_ = rows;
}

cl::Event
Bands::finish_input (GstClContext *ctx)
{
  if (upload_.src) {
    upload_to (ctx, bytes_.size () - 1);
    end_band_upload (in_, &upload_, ready_.back (), ready_.size () > 1);
    upload_.src = nullptr;
  }
  return ready_.empty () ? cl::Event () : ready_.back ();
}

void
Bands::clear ()
{
  if (upload_.gate ()) {
    /* a frame that failed before its upload was all queued: the device
     * copy is stale (uploads queue in order: the next one comes after
     * what was queued) */
    try {
      end_band_upload (in_, &upload_, cl::Event (), false);
    } catch (...) {
    }
  }
  ends_.clear ();
  bytes_.clear ();
  in_ = nullptr;
  upload_ = BandUpload ();
  ready_.clear ();
  waited_ = 0;
  out_device_ = cl::Buffer ();
  staging_ = nullptr;
  plan_ = nullptr;
  rows_done_ = bands_read_ = 0;
  last_read_ = cl::Event ();
}

}  // namespace gstcl
