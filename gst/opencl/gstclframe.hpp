/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* C++ helpers for filters' kernels: the frame arguments every kernel of the
 * project takes, and the alignment test that picks the 128-bit variants. */
#pragma once

#include "gstclhpp.hpp"
#include "gstcl.hpp"
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

/* Sets the kernel's arguments from index `first` on, in order (cl_mem,
 * cl::Buffer, scalars and cl vector types); returns the next index. */
template <typename T>
inline void set_arg (cl::Kernel &k, cl_uint i, const T &value)
{
  k.setArg (i, value);
}

/* A raw handle (cl.hpp takes only its own wrappers of it). */
inline void set_arg (cl::Kernel &k, cl_uint i, cl_mem mem)
{
  k.setArg (i, sizeof (cl_mem), &mem);
}

/* An argument of `size` bytes at `data`: a struct passed by value. */
struct RawArg {
  size_t size;
  const void *data;
};

inline void set_arg (cl::Kernel &k, cl_uint i, const RawArg &raw)
{
  k.setArg (i, raw.size, raw.data);
}

template <typename... Args>
inline cl_uint set_args (cl::Kernel &k, cl_uint first, const Args &... args)
{
  cl_uint i = first;
  (set_arg (k, i++, args), ...);
  return i;
}

/* Sets the arguments (in, in_offset, in_stride, out, out_offset, out_stride,
 * width, height) from argument `first` on, the size being the output's;
 * returns the index of the next argument. */
inline cl_uint set_frame_args (cl::Kernel &k, cl_uint first, const GstClFrame *in,
    const GstClFrame *out)
{
  return set_args (k, first, in->mem, (cl_int) GST_VIDEO_INFO_PLANE_OFFSET (&in->info, 0),
      (cl_int) GST_VIDEO_INFO_PLANE_STRIDE (&in->info, 0), out->mem,
      (cl_int) GST_VIDEO_INFO_PLANE_OFFSET (&out->info, 0),
      (cl_int) GST_VIDEO_INFO_PLANE_STRIDE (&out->info, 0),
      (cl_int) GST_VIDEO_INFO_WIDTH (&out->info), (cl_int) GST_VIDEO_INFO_HEIGHT (&out->info));
}

/* Copies the planes of `in` from `first` on into `out` (same format and
 * size), on the context's queue: the chroma of NV12 and I420, which the
 * filters of the luma pass through unchanged. */
inline void copy_planes (GstClContext *ctx, const GstClFrame *in, const GstClFrame *out,
    guint first)
{
  const GstVideoInfo *a = &in->info, *b = &out->info;
  for (guint p = first; p < GST_VIDEO_INFO_N_PLANES (a); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component (a->finfo, p, comp);
    const size_t origin_in[3] = {GST_VIDEO_INFO_PLANE_OFFSET (a, p), 0, 0};
    const size_t origin_out[3] = {GST_VIDEO_INFO_PLANE_OFFSET (b, p), 0, 0};
    const size_t region[3] = {(size_t) GST_VIDEO_INFO_COMP_WIDTH (a, comp[0]) *
          GST_VIDEO_INFO_COMP_PSTRIDE (a, comp[0]),
      (size_t) GST_VIDEO_INFO_COMP_HEIGHT (a, comp[0]), 1};
    cl_event event;
    const cl_int err = clEnqueueCopyBufferRect (queue_of (ctx) (), in->mem, out->mem,
        origin_in, origin_out, region, GST_VIDEO_INFO_PLANE_STRIDE (a, p), 0,
        GST_VIDEO_INFO_PLANE_STRIDE (b, p), 0, 0, nullptr, profile_event (ctx, &event));
    if (err != CL_SUCCESS)
      throw cl::Error (err, "clEnqueueCopyBufferRect");
    profile_command (ctx, "copy_planes", event);
  }
}

}  // namespace gstcl
