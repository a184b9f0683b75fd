/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstclbands.hpp"
#include "gstcl.hpp"

#include <algorithm>
#include <cstdlib>

namespace gstcl {

/* Bands for input frames of kBandsMinBytes or more; GST_OPENCL_BANDS=1
 * takes them at any size (tests), =0 never (for comparison); asked at each
 * set_caps, as tests change it between elements. A band costs the host about 100 us of
 * NVIDIA's enqueue calls (below), which a frame pays back only where its
 * copies take longer than that: 4K 12-bit isp frames went from 1493 to
 * 1960 frames/s on an H200 in 4 bands, while the 1080p camera farm on an
 * H200 spent 0.47 ms of the element's CPU a frame in bands against 0.069
 * on one queue and moved 11 % fewer frames unpaced (docs/benchmarks.md,
 * "The picture stages in bands"). Bands waited for the opt-in until background builds compiled
 * first in a context of their own (gstcl::warm_driver_cache): NVIDIA's
 * driver held the streaming thread's calls 0.4-0.6 s while it compiled in
 * the element's context, which in bands delayed the last frame of the old
 * variant. */
static const gsize kBandsMinBytes = 8000000;   /* a 4K 8-bit raw frame: 8.3 MB */

bool
bands_for (gsize input_bytes)
{
  const gchar *asked = g_getenv ("GST_OPENCL_BANDS");
  if (!g_strcmp0 (asked, "0"))
    return false;
  return !g_strcmp0 (asked, "1") || input_bytes >= kBandsMinBytes;
}

/* The rows at which the bands of a frame `height` rows high end: at most
 * kMaxBands, each a multiple of `rows` (0: one band). A band costs the
 * host about 100 us of enqueue calls on NVIDIA's driver (10-18 us each:
 * an upload, a barrier, the kernels, a marker, a read a plane), so the
 * element takes 4: a 4K isp frame on an H200 went at 1940 frames/s in 4
 * bands against 1750 in 8 and 1490 in one (cl-bands-gpu, which has no
 * GStreamer and fewer calls a band, found 8 best; 16 were slower there:
 * docs/benchmarks.md, "Where a 4K frame's time goes, and bands of 4"). */
static const int kMaxBands = 4;

int
band_count_asked ()
{
  const gchar *asked = g_getenv ("GST_OPENCL_BAND_COUNT");
  const int n = asked ? atoi (asked) : 0;
  return n >= 2 && n <= 16 ? n : 0;
}

/* Bands of 4 or more launches (cldebayer's raw denoise, camera kernel and
 * picture finish: about 11 enqueue calls a band) cost the host more than
 * a fourth band saves: the 4K picture case on an H200 went at 1510, 1467
 * and 1495 frames/s in 3 bands against 1469, 1411 and 1419 in 4
 * (docs/benchmarks.md, "Fewer launches a band"). */
int
band_count (int asked, int launches)
{
  return asked ? asked : launches >= 4 ? 3 : kMaxBands;
}

std::vector<int>
band_ends (int height, int rows, int count)
{
  if (rows <= 0)
    return { height };
  const int wanted = (height + count - 1) / count;
  const int band = std::max (rows, (wanted + rows - 1) / rows * rows);
  std::vector<int> ends;
  for (int end = band; end < height; end += band)
    ends.push_back (end);
  ends.push_back (height);
  return ends;
}

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
Bands::done (GstClContext *ctx, int rows, const cl::Event &after)
{
  /* nothing to read (output on the device): no marker either */
  if (rows <= rows_done_ || !staging_)
    return;
  std::vector<cl::Event> kernels { after };
  if (!after ())
    queue_of (ctx).enqueueMarkerWithWaitList (nullptr, &kernels[0]);
  queue_of (ctx).flush ();
  const cl::CommandQueue &down = copy_queue (ctx, COPY_DOWN);
  for (const auto &range : plan_ (out_info_, rows_done_, rows, out_limit_))
    down.enqueueReadBuffer (out_device_, CL_FALSE, range.first, range.second,
        static_cast<guint8 *> (staging_) + range.first, &kernels, &last_read_);
  down.flush ();
  bands_read_++;
  rows_done_ = rows;
}

cl::Event
Bands::finish_input (GstClContext *ctx)
{
  if (upload_.src) {
    upload_to (ctx, bytes_.size () - 1);
    end_band_upload (in_, &upload_, ready_.back (), ready_.size ());
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
      end_band_upload (in_, &upload_, cl::Event (), 0);
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
