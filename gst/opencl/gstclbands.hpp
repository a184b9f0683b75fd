/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A frame in row bands (docs/architecture.md, "Frames in row bands"). On a
 * discrete device a frame's upload, kernels and download otherwise run one
 * after another on the context's queue; in bands the input goes up band by
 * band on the context's upload queue (gstcl::copy_queue), each band's
 * kernels start once the rows they read are there, and the output goes down
 * on the download queue as the kernels finish its rows, so that the PCIe
 * copies of both directions and the kernels of one frame overlap (a 4K isp
 * frame on an H200: 0.43 against 0.65 ms in cl-bands-gpu; docs/
 * benchmarks.md, "Frames in row bands"; taken for large frames:
 * bands_for).
 *
 * GstClFilter makes the input's bands for a subclass with a band_rows hook
 * (gstclfilter.h) and hands them to its filter hook (gst_cl_filter_bands
 * ()); the hook calls wait_input () before the launches that read input
 * rows and done () after the launches that complete output rows, which
 * queues their reads; the filter marks the last rows and waits. */
#pragma once

#include "gstclhpp.hpp"
#include <gst/opencl/gstclcontext.h>
#include <gst/opencl/gstclfilter.h>

#include <utility>
#include <vector>

#pragma GCC visibility push(default)
namespace gstcl {

/* Whether a frame of `input_bytes` goes in bands (where a side crosses
 * the bus; GST_OPENCL_BANDS) and GST_OPENCL_BAND_COUNT (2..16, for
 * measurements; 0 unset), both asked at set_caps; how many bands at most
 * (band_count: `asked` where set, else by the kernel launches a band
 * takes); and the rows at which a frame's bands end: at most `count`, each
 * a multiple of `rows` (0: one band). */
bool bands_for (gsize input_bytes);
int band_count_asked ();
int band_count (int asked, int launches);
std::vector<int> band_ends (int height, int rows, int count);

/* What device_in_bands leaves to upload: `src` (null: nothing) to
 * `device`, after `after`; `gate` stands for the upload until it is all
 * queued (end_band_upload). */
struct BandUpload {
  cl::Buffer device;
  const guint8 *src = nullptr;
  bool from_staging = false;
  cl::Event after;
  cl::UserEvent gate;
};

class Bands {
public:
  /* The input: the row at which each band ends (the last: the height), the
   * byte at which its data ends, and what is left to upload. The uploads
   * are queued band by band as wait_input needs them: NVIDIA's driver
   * overlaps the copies of both directions only when they are queued in
   * the order they are needed (cl-bands-gpu's `u`: every upload queued
   * first took 0.61 ms a 4K frame, against 0.42). */
  void set_input (GstMemory *mem, std::vector<int> ends, std::vector<size_t> bytes,
      BandUpload upload);
  const std::vector<int> &input_ends () const { return ends_; }
  /* The context's queue waits, from here on, for input rows [0, rows). */
  void wait_input (GstClContext *ctx, int rows);
  /* The output: its reads into `staging` (of `device`), by a plan of the
   * bytes of output rows [top, bottom). */
  using RowBytes = std::vector<std::pair<size_t, size_t>> (*) (const void *info, int top,
      int bottom, size_t limit);
  void set_output (const cl::Buffer &device, void *staging, RowBytes plan, const void *info,
      size_t limit);
  /* Output rows [0, rows) are complete once the context's queue reaches
   * here, or once `after` (if given: gstcl::take_last_launch ()) is over
   * (rows grow from call to call): their reads are queued (nothing without
   * set_output). */
  void done (GstClContext *ctx, int rows, const cl::Event &after = cl::Event ());
  /* Queues what is left of the input's upload and ends it (the memory's
   * bookkeeping); the last upload's event. Idempotent. */
  cl::Event finish_input (GstClContext *ctx);
  /* The last upload queued so far (none: none queued). */
  cl::Event queued_upload () const { return ready_.empty () ? cl::Event () : ready_.back (); }
  /* The output's last read (none if nothing was read), and the number of
   * bands read. */
  const cl::Event &last_read () const { return last_read_; }
  int bands_read () const { return bands_read_; }
  void clear ();

private:
  void upload_to (GstClContext *ctx, size_t band);
  std::vector<int> ends_;
  std::vector<size_t> bytes_;
  GstMemory *in_ = nullptr;
  BandUpload upload_;
  std::vector<cl::Event> ready_;   /* the bands queued so far */
  size_t waited_ = 0;              /* the bands waited for */
  cl::Buffer out_device_;
  void *staging_ = nullptr;
  RowBytes plan_ = nullptr;
  const void *out_info_ = nullptr;
  size_t out_limit_ = 0;
  int rows_done_ = 0, bands_read_ = 0;
  cl::Event last_read_;
};

/* The device buffer of `mem` for the kernels of the context's queue. With
 * `data` (`size` bytes) or, when null, a host copy of its own newer than
 * the device's, *up says what is left to upload (Bands queues it band by
 * band, then end_band_upload); any other use of the memory on the device
 * waits for that upload. Discrete devices only (unified ones: uploaded or
 * mapped here, nothing left). Throws cl::Error. */
cl_mem device_in_bands (GstMemory *mem, const void *data, gsize size, BandUpload *up);
/* The upload of *up is queued (its last command `last`; none: nothing was
 * queued, the device copy is stale again), in `bands` bands. */
void end_band_upload (GstMemory *mem, BandUpload *up, const cl::Event &last, size_t bands);
/* The memory's staging area (made if need be), for reads in bands from
 * *device; null on a unified device. */
void *start_band_download (GstMemory *mem, cl::Buffer *device);
/* The reads are queued, the last `last`: the host copy is current once it
 * is over, which a host map waits for (bounded, as for a download on the
 * kernels' queue: start_sync_to_host). */
void end_band_download (GstMemory *mem, const cl::Event &last, bool bands);

}  // namespace gstcl
#pragma GCC visibility pop

/* The bands of the frame that GstClFilter's filter hook is running, or NULL
 * (a filter without band_rows, a unified device). */
GST_CL_API gstcl::Bands *gst_cl_filter_bands (GstClFilter * filter);
