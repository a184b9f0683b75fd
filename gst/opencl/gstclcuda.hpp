/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Frames to and from CUDA memory (gst-plugins-bad's nvcodec elements) on the
 * device (docs/interop.md). Nothing here links CUDA: libcuda.so.1 and
 * libgstcuda-1.0.so.0 are opened at run time, so the plugin loads, and
 * offers nothing of this, where they are absent.
 *
 * The memory both APIs see is CUDA's own: a VMM allocation (cuMemCreate)
 * exported as an opaque file descriptor and imported into OpenCL
 * (cl_khr_external_memory_opaque_fd). OpenCL frames live in it where the
 * elements' pools are of it (gstclsource.hpp): clupload's output, and the
 * pool cldownload proposes upstream; a frame then crosses with one copy on
 * the device (cuMemcpy2DAsync), CUDA memory to the OpenCL frame or back.
 * Other OpenCL frames take two: through a shared buffer of the bridge's
 * and clEnqueueCopyBuffer. The debug category `clcuda` logs each step
 * (library load, device match by UUID, allocation, export, import,
 * copies: which path each frame took). */
#pragma once

#include <gst/opencl/gstclbasetransform.h>
#include <gst/opencl/gstclcontext.h>
#include <gst/video/video.h>

#include <memory>

#define GST_CL_CAPS_FEATURE_MEMORY_CUDA "memory:CUDAMemory"

/* The C++ API is exported as a whole (the library hides everything else). */
#pragma GCC visibility push(default)
namespace gstcl::cuda {

/* Whether this build has the bridge (meson option `cuda`), libcuda and
 * libgstcuda-1.0 load, cuInit succeeds and a CUDA device exists. Checked
 * once; cheap afterwards. The elements put CUDA memory in their pad
 * templates only then. $GST_OPENCL_CUDA=off says no whatever is installed. */
bool available ();

/* The CUDA device (ordinal) that is the OpenCL device of `ctx` (the same
 * UUID: cl_khr_device_uuid, cuDeviceGetUuid), where a frame went through
 * memory shared by both once, on trial, with the right bytes; else -1. Found
 * once per OpenCL device. Once started, the elements offer CUDA caps only
 * when this is not -1 (offered ()). */
int device_for (GstClContext *ctx);

/* Whether an element on `ctx` offers CUDA memory in its caps queries and
 * accept-caps. Before its device is known (`ctx` null: NULL and READY,
 * when gst-launch and gst_parse_launch link) whenever available (), as
 * its pad template says and as nvcodec's elements answer from theirs;
 * once known, only where device_for (ctx) matched, so that a decoder that
 * asks at negotiation (nvh264dec) falls back to system memory. */
bool offered (GstClContext *ctx);
/* offered () for an element's context (none yet: before start). */
bool element_offers (GstClBaseTransform *trans);
/* clupload's and cldownload's accept-caps on their CUDA side (`cuda_side`):
 * whether `caps` in CUDA memory are refused there because the element does
 * not offer it (the base class would accept them from the template); the
 * first refusal of a start (*warned unset) is a warning on the bus. */
bool refuses (GstBaseTransform *trans, GstPadDirection direction, GstPadDirection cuda_side,
    GstCaps *caps, gboolean *warned);

/* Process-wide counters (tests, benchmarks): frames copied CUDA -> OpenCL
 * and OpenCL -> CUDA, and their bytes. None of these is a host transfer
 * (GstClMemoryStats's uploads and downloads stay put). */
struct Stats {
  guint64 to_cl = 0;
  guint64 from_cl = 0;
  guint64 bytes = 0;
  /* Of to_cl and from_cl: the frames that took one copy, CUDA memory to
   * or from the OpenCL frame itself in shared memory (the rest took two,
   * through a shared buffer of the bridge's). */
  guint64 direct_to_cl = 0;
  guint64 direct_from_cl = 0;
  /* Of from_cl: the frames that took no copy, their shared memory handed
   * on as CUDA memory (gstclcudawrap.hpp). */
  guint64 wrapped_from_cl = 0;
};
/* Whether frames in shared memory go to CUDA elements with no copy here
 * (GStreamer 1.22's CUDA library; GST_OPENCL_CUDA_WRAP=0 says no), else
 * with one. */
bool wraps ();
Stats stats ();

/* Whether the first structure of `caps` is in CUDA memory. */
bool caps_in_cuda (const GstCaps *caps);
/* (transfer full) every video/x-raw structure of `caps` in CUDA memory (the
 * others dropped). */
GstCaps *to_cuda_caps (const GstCaps *caps);

/* (transfer full) `caps` (taken) without its structures in CUDA memory. */
GstCaps *drop_cuda_caps (GstCaps *caps);

/* For class_init: when available (), the video/x-raw caps of the pad
 * template `name` again in CUDA memory, after the others. */
void add_to_pad_template (GstElementClass *klass, const char *name);

/* An element's side of the bridge: the CUDA context it shares with the
 * nvcodec elements (GstContext "gst.cuda.context"), a stream, the shared
 * buffers and, for output, a GstCudaBufferPool. The streaming thread uses
 * it; set_context and query may come from any thread. Methods that work on
 * frames throw std::runtime_error (CUDA) or cl::Error (OpenCL; the
 * watchdog's DeviceTimeout and WaitCancelled among them). */
class Bridge {
public:
  Bridge ();
  ~Bridge ();
  Bridge (const Bridge &) = delete;
  Bridge &operator= (const Bridge &) = delete;

  /* For GstElement::set_context: keeps a CUDA context of the device. */
  void set_context (GstElement *element, GstContext *context);
  /* For queries: answers a GST_QUERY_CONTEXT for a CUDA context we hold. */
  bool handle_query (GstElement *element, GstQuery *query);

  /* When a CUDA leg is negotiated: takes the CUDA context of ctx's device
   * from the element, a neighbour or the bin (gst_cuda_ensure_element_context),
   * else makes one. */
  void start (GstElement *element, GstClContext *ctx);
  /* Drops the buffers, the pool, the stream and the context (at stop). */
  void stop ();

  /* (transfer full) A GstClBufferPool configured for `caps` whose buffers
   * are shared memory: what to_cl fills (`input`: given back to CUDA as
   * soon as the pool takes a buffer back) or from_cl reads with one copy.
   * NULL before start, or with GST_OPENCL_CUDA_DIRECT=0 (two copies a
   * frame, as where upstream did not take the pool). */
  GstBufferPool *shared_pool (GstCaps *caps, guint min, guint *size, bool input);

  /* A CUDA frame (`in`, laid out as its GstVideoMeta or `info` says) into
   * `out`, one GstClMemory laid out as `out_frame`: one copy where `out`
   * is shared memory (shared_pool ()), else two. */
  void to_cl (GstBuffer *in, const GstVideoInfo &info, GstBuffer *out,
      const GstVideoInfo &out_frame);
  /* An OpenCL frame (`in`, one GstClMemory laid out as `in_frame`) into a
   * new buffer of CUDA memory for `caps` (transfer full): one copy where
   * `in` is shared memory (shared_pool ()), else two. */
  GstBuffer *from_cl (GstBuffer *in, const GstVideoInfo &in_frame, GstCaps *caps);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gstcl::cuda
#pragma GCC visibility pop
