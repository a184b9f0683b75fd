/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A frame in row bands (docs/architecture.md, "Bands"). On a discrete
 * device a frame's upload, kernels and download otherwise run one after
 * another on the context's queue; in bands the input goes up band by band
 * on the context's upload queue (gstcl::copy_queue), each band's kernels
 * start once the rows they read are there, and the output goes down on the
 * download queue as the kernels finish its rows, so that the PCIe copies of
 * both directions and the kernels of one frame overlap (a 4K camera frame
 * on an H200: 0.65 against 0.43 ms, docs/benchmarks.md, "Bands").
 *
 * GstClFilter makes the input's bands for a subclass with a band_rows hook
 * (gstclfilter.h) and hands them to its filter hook (gst_cl_filter_bands
 * ()); the hook calls wait_input () before the launches that read input
 * rows and done () after the launches that complete output rows, and the
 * filter then downloads the output's bands. */
#pragma once

#include "gstclhpp.hpp"
#include <gst/opencl/gstclcontext.h>
#include <gst/opencl/gstclfilter.h>

#include <vector>

#pragma GCC visibility push(default)
namespace gstcl {

class Bands {
public:
  /* The input: the row at which each band ends (the last: the height) and
   * each band's upload, to wait for; no events where the input was on the
   * device already. */
  void set_input (std::vector<int> ends, std::vector<cl::Event> ready);
  const std::vector<int> &input_ends () const { return ends_; }
  /* The context's queue waits, from here on, for input rows [0, rows). */
  void wait_input (GstClContext *ctx, int rows);
  /* Output rows [0, rows) are complete once the context's queue reaches
   * here (rows grow from call to call). */
  void done (GstClContext *ctx, int rows);
  /* The output's bands: the rows done and their markers. */
  struct Done {
    int rows;
    cl::Event event;
  };
  const std::vector<Done> &output () const { return done_; }
  void clear ();

private:
  std::vector<int> ends_;
  std::vector<cl::Event> ready_;
  size_t waited_ = 0;   /* the bands waited for */
  std::vector<Done> done_;
};

/* A copy between device and host that waits for an event (or none). */
struct BandCopy {
  size_t offset, size;
  cl::Event after;
};

/* The device buffer of `mem` for the kernels of the context's queue, its
 * host data uploaded first if the device's copy is not current: from `data`
 * (the caller keeps it unchanged until the last event of *ready completes)
 * or, when null, the memory's own host copy; in the bands of bytes that end
 * at `ends` (the last: the whole), on the upload queue, each band's event
 * in *ready (none where nothing is uploaded). The bands' kernels wait for
 * them (Bands::wait_input); any other use of the memory on the device waits
 * for the whole upload. Discrete devices only. Throws cl::Error. */
cl_mem device_in_bands (GstMemory *mem, const void *data, const std::vector<size_t> &ends,
    std::vector<cl::Event> *ready);

/* The device's data into the memory's host copy in pieces on the download
 * queue, each after its event, then waited for (bounded, as a host map's
 * download); the host copy is then current. Discrete devices only. Throws
 * cl::Error, gstcl::DeviceTimeout. */
void download_in_bands (GstMemory *mem, const std::vector<BandCopy> &copies);

}  // namespace gstcl
#pragma GCC visibility pop

/* The bands of the frame that GstClFilter's filter hook is running, or NULL
 * (a filter without band_rows, a unified device). */
GST_CL_API gstcl::Bands *gst_cl_filter_bands (GstClFilter * filter);
