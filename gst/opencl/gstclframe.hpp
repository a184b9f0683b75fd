/* C++ helpers for filters' kernels: the frame arguments every kernel of the
 * project takes, and the alignment test that picks the 128-bit variants. */
#pragma once

#include "gstclhpp.hpp"
#include <gst/opencl/gstclfilter.h>

namespace gstcl {

/* Whether the frame's first plane starts, and each of its rows starts, on a
 * 16-byte boundary (cl buffers themselves are aligned far more than that), so
 * that whole-vector accesses compile to 128-bit loads and stores. */
inline bool rows_aligned_16 (const GstClFrame *frame)
{
  return GST_VIDEO_INFO_PLANE_OFFSET (&frame->info, 0) % 16 == 0 &&
      GST_VIDEO_INFO_PLANE_STRIDE (&frame->info, 0) % 16 == 0;
}

/* Sets the arguments (in, in_offset, in_stride, out, out_offset, out_stride,
 * width, height) from argument `first` on, the size being the output's;
 * returns the index of the next argument. */
inline cl_uint set_frame_args (cl::Kernel &k, cl_uint first, const GstClFrame *in,
    const GstClFrame *out)
{
  k.setArg (first, sizeof (cl_mem), &in->mem);
  k.setArg (first + 1, (cl_int) GST_VIDEO_INFO_PLANE_OFFSET (&in->info, 0));
  k.setArg (first + 2, (cl_int) GST_VIDEO_INFO_PLANE_STRIDE (&in->info, 0));
  k.setArg (first + 3, sizeof (cl_mem), &out->mem);
  k.setArg (first + 4, (cl_int) GST_VIDEO_INFO_PLANE_OFFSET (&out->info, 0));
  k.setArg (first + 5, (cl_int) GST_VIDEO_INFO_PLANE_STRIDE (&out->info, 0));
  k.setArg (first + 6, (cl_int) GST_VIDEO_INFO_WIDTH (&out->info));
  k.setArg (first + 7, (cl_int) GST_VIDEO_INFO_HEIGHT (&out->info));
  return first + 8;
}

}  // namespace gstcl
