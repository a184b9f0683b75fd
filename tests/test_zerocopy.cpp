/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Foreign host memory into the filters (docs/architecture.md, "Memory"): on
 * a unified-memory device (PoCL) a system-memory buffer that is not the
 * element's own is wrapped, not copied (gst_cl_allocator_wrap_buffer), and
 * the filters give the same bytes as through the copy that discrete devices
 * take. Buffers: aligned, misaligned by 1..63 bytes (copied, but by 16 on
 * a CPU device), padded rows (a GstVideoMeta), a memfd dmabuf
 * (GstDmaBufAllocator); the reference is the same frame in a buffer of two
 * memories, which is always copied. Then a
 * source that reuses its two buffers as soon as they come back never sees
 * the device read one after it came back, also with system-memory output,
 * whose frames the element hands on before their kernels complete. Last,
 * on the staging path, another user of a memory whose upload goes in row
 * bands waits for the whole upload, also for one never queued. */
#include "cltest.h"

#include <gst/allocators/allocators.h>
#include <gst/opencl/gstclbands.hpp>
#include <gst/opencl/gstclmemory.h>
#include <sys/mman.h>

#include <cstring>

using namespace cltest;

namespace {

/* One element under test: its launch description, the input caps (width
 * and height appended) and the output caps (OpenCL memory: the kernels run
 * after the push returns, as in a device chain). */
struct Subject {
  const char *desc;
  const char *format;         /* of the input */
  bool bayer;
  int bytes_per_sample;
  const char *out_caps;
};

const Subject kSobel = { "clsobel", "GRAY8", false, 1,
  "video/x-raw(memory:OpenCLMemory),format=GRAY8" };
/* The camera path, 12-bit: black level, manual gains, matrix, sRGB, NV12. */
const Subject kCamera = { "cldebayer black-level=256 white-balance=manual red-gain=1.9 "
      "blue-gain=1.45 color-matrix=\"<1.6,-0.4,-0.2,-0.3,1.5,-0.2,0.05,-0.6,1.55>\" "
      "transfer=srgb", "rggb12le", true, 2,
  "video/x-raw(memory:OpenCLMemory),format=NV12" };

/* The same elements into system memory: the element hands a frame on as
 * soon as its kernels (and on a discrete device its download: the
 * zerocopy-staging run) are queued and the frame before it is done
 * (docs/architecture.md, "Frames in flight"), so a host map of the output
 * waits for it. */
const Subject kSobelSystem = { "clsobel", "GRAY8", false, 1, "video/x-raw,format=GRAY8" };
const Subject kCameraSystem = { kCamera.desc, "rggb12le", true, 2, "video/x-raw,format=NV12" };

int frame_w () { return small_only () ? 64 : 320; }
int frame_h () { return small_only () ? 48 : 240; }

std::string in_caps (const Subject & s)
{
  return caps_string (s.format, frame_w (), frame_h ());
}

/* Rows of `pad` extra bytes (and `pad` bytes before the first row). */
struct Layout {
  int stride;
  gsize offset, size;
};

Layout layout (const Subject & s, int pad)
{
  const int row = frame_w () * s.bytes_per_sample;
  const int stride = GST_ROUND_UP_4 (row) + pad;
  return Layout { stride, (gsize) pad, (gsize) pad + (gsize) stride * frame_h () };
}

/* A frame's bytes: random samples (12 bits for the camera), padding random too. */
std::vector<guint8> content (const Subject & s, const Layout & l, uint32_t seed)
{
  std::mt19937 rng (seed);
  std::vector<guint8> bytes (l.size);
  for (auto &b : bytes)
    b = (guint8) (rng () >> 24);
  if (s.bytes_per_sample == 2)
    for (gsize i = 1; i < bytes.size (); i += 2)
      bytes[i] &= 0x0f;
  return bytes;
}

enum class Kind { ALIGNED, MISALIGNED, DMABUF, TWO_MEMORIES };

GstMemory *misaligned_memory (gsize size, int by)
{
  guint8 *block = (guint8 *) g_malloc (size + 256);
  guint8 *start = block + (128 - (guintptr) block % 128) % 128 + by;
  return gst_memory_new_wrapped ((GstMemoryFlags) 0, start, size, 0, size, block, g_free);
}

GstMemory *dmabuf_memory (gsize size)
{
  const int fd = memfd_create ("cltest-zerocopy", MFD_CLOEXEC);
  fail_unless (fd >= 0, "memfd_create: %s", g_strerror (errno));
  fail_unless (ftruncate (fd, (off_t) size) == 0);
  GstAllocator *alloc = gst_dmabuf_allocator_new ();
  GstMemory *mem = gst_dmabuf_allocator_alloc (alloc, fd, size);   /* owns fd */
  gst_object_unref (alloc);
  fail_unless (mem != nullptr && gst_is_dmabuf_memory (mem));
  return mem;
}

/* The frame `bytes` in a buffer of `kind` (misaligned by `by` bytes), with
 * a GstVideoMeta that gives the layout. */
GstBuffer *make_buffer (const Subject & s, const Layout & l, const std::vector<guint8> &bytes,
    Kind kind, int by = 0)
{
  GstBuffer *buf = gst_buffer_new ();
  switch (kind) {
    case Kind::ALIGNED: {
      GstAllocationParams params;
      gst_allocation_params_init (&params);
      params.align = 127;
      gst_buffer_append_memory (buf, gst_allocator_alloc (nullptr, l.size, &params));
      break;
    }
    case Kind::MISALIGNED:
      gst_buffer_append_memory (buf, misaligned_memory (l.size, by));
      break;
    case Kind::DMABUF:
      gst_buffer_append_memory (buf, dmabuf_memory (l.size));
      break;
    case Kind::TWO_MEMORIES:
      gst_buffer_append_memory (buf, gst_allocator_alloc (nullptr, l.size / 2, nullptr));
      gst_buffer_append_memory (buf, gst_allocator_alloc (nullptr, l.size - l.size / 2,
              nullptr));
      break;
  }
  fail_unless_equals_uint64 (gst_buffer_fill (buf, 0, bytes.data (), bytes.size ()),
      bytes.size ());
  gsize offset[GST_VIDEO_MAX_PLANES] = { l.offset };
  gint stride[GST_VIDEO_MAX_PLANES] = { l.stride };
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      s.bytes_per_sample == 2 ? GST_VIDEO_FORMAT_GRAY16_LE : GST_VIDEO_FORMAT_GRAY8,
      frame_w (), frame_h (), 1, offset, stride);
  return buf;
}

GstHarness *harness (const Subject & s)
{
  GstElement *e = gst_parse_bin_from_description (s.desc, TRUE, nullptr);
  fail_unless (e != nullptr, "%s", s.desc);
  share_context (e);
  GstHarness *h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_set_src_caps_str (h, in_caps (s).c_str ());
  gst_harness_set_sink_caps_str (h, s.out_caps);
  return h;
}

std::vector<guint8> bytes_of (GstBuffer * out)
{
  GstMapInfo map;
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  std::vector<guint8> v (map.data, map.data + map.size);
  gst_buffer_unmap (out, &map);
  return v;
}

GstClMemoryStats stats_now ()
{
  GstClMemoryStats s;
  gst_cl_memory_get_stats (&s);
  return s;
}

bool unified ()
{
  return gst_cl_context_has_unified_memory (shared_context ());
}

bool cpu_device ()
{
  cl_device_type type = 0;
  clGetDeviceInfo (gst_cl_context_get_cl_device (shared_context ()), CL_DEVICE_TYPE,
      sizeof (type), &type, nullptr);
  return (type & CL_DEVICE_TYPE_CPU) != 0;
}

/* Pushes `in` (taken); the output's bytes, and the frame's uploads and wraps. */
std::vector<guint8> run (GstHarness * h, GstBuffer * in, guint64 * uploads, guint64 * wraps)
{
  const GstClMemoryStats before = stats_now ();
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  const GstClMemoryStats after = stats_now ();
  *uploads = after.uploads - before.uploads;
  *wraps = after.wrapped - before.wrapped;
  GstBuffer *out = gst_harness_pull (h);
  fail_unless (out != nullptr);
  std::vector<guint8> bytes = bytes_of (out);
  gst_buffer_unref (out);
  return bytes;
}

/* Every kind of buffer against the copy of the same frame: the same bytes;
 * on a unified device no upload for a wrapped buffer, one for a copy. */
void check_kinds (const Subject & s)
{
  GstHarness *h = harness (s);
  /* pad 0; pad 64 (rows padded, still sample-aligned); an odd pad (16-bit
   * rows on odd addresses: repacked, so copied) */
  for (int pad : { 0, 64, 3 }) {
    const Layout l = layout (s, pad);
    const std::vector<guint8> frame = content (s, l, 1000 + pad);
    guint64 uploads, wraps;
    const std::vector<guint8> want = run (h, make_buffer (s, l, frame, Kind::TWO_MEMORIES),
        &uploads, &wraps);
    fail_unless_equals_uint64 (uploads, 1);
    fail_unless_equals_uint64 (wraps, 0);
    const bool repacked = s.bytes_per_sample == 2 && pad % 2;
    struct Case { Kind kind; int by; const char *name; };
    for (const Case c : { Case { Kind::ALIGNED, 0, "aligned" },
            Case { Kind::DMABUF, 0, "memfd dmabuf" },
            Case { Kind::MISALIGNED, 1, "misaligned" }, Case { Kind::MISALIGNED, 2, "misaligned" },
            Case { Kind::MISALIGNED, 7, "misaligned" }, Case { Kind::MISALIGNED, 16, "misaligned" },
            Case { Kind::MISALIGNED, 33, "misaligned" },
            Case { Kind::MISALIGNED, 63, "misaligned" } }) {
      const std::vector<guint8> got = run (h, make_buffer (s, l, frame, c.kind, c.by),
          &uploads, &wraps);
      fail_unless (got == want, "%s, pad %d, %s by %d: other bytes than the copy's",
          s.desc, pad, c.name, c.by);
      /* wrapped where the data starts on the device's alignment: 128 bytes
       * (PoCL), and 16 on a CPU device */
      const bool wrap = unified () && !repacked &&
          (c.kind != Kind::MISALIGNED || (c.by % 16 == 0 && cpu_device ()));
      fail_unless (wraps == (wrap ? 1u : 0u) && uploads == (wrap ? 0u : 1u),
          "%s, pad %d, %s by %d: %" G_GUINT64_FORMAT " wraps, %" G_GUINT64_FORMAT
          " uploads", s.desc, pad, c.name, c.by, wraps, uploads);
      if (c.kind != Kind::MISALIGNED && pad % 2 == 0)
        fail_unless (wrap == unified (), "%s, pad %d, %s: copied on a unified device",
            s.desc, pad, c.name);
    }
  }
  gst_harness_teardown (h);
}

}  // namespace

GST_START_TEST (test_sobel_buffers)
{
  check_kinds (kSobel);
}
GST_END_TEST

GST_START_TEST (test_camera_buffers)
{
  check_kinds (kCamera);
}
GST_END_TEST

/* A source with a pool of two buffers that writes the next frame into a
 * buffer as soon as the pool gives it back (GstBufferPool blocks the
 * acquire until then). The element hands its output on in OpenCL memory
 * while its kernels still run, so a buffer given back before the kernels
 * reading it completed would be overwritten under them: every output must
 * equal its own input's result (taken through the copy first). */
static void
check_reuse (const Subject & s)
{
  const Layout l = layout (s, 0);
  const int distinct = 3, frames = small_only () ? 12 : 40;
  std::vector<std::vector<guint8>> inputs, want;
  GstHarness *h = harness (s);
  for (int i = 0; i < distinct; i++) {
    inputs.push_back (content (s, l, 77 + i));
    guint64 uploads, wraps;
    want.push_back (run (h, make_buffer (s, l, inputs[i], Kind::TWO_MEMORIES), &uploads, &wraps));
  }

  GstBufferPool *pool = gst_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstCaps *caps = gst_caps_from_string (in_caps (s).c_str ());
  gst_buffer_pool_config_set_params (config, caps, (guint) l.size, 2, 2);
  GstAllocationParams params;
  gst_allocation_params_init (&params);
  params.align = 127;
  gst_buffer_pool_config_set_allocator (config, nullptr, &params);
  gst_caps_unref (caps);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));

  const GstClMemoryStats before = stats_now ();
  std::vector<GstBuffer *> outs;
  for (int i = 0; i < frames; i++) {
    GstBuffer *buf = nullptr;
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, nullptr), GST_FLOW_OK);
    gst_buffer_fill (buf, 0, inputs[i % distinct].data (), l.size);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
    outs.push_back (gst_harness_pull (h));
  }
  const GstClMemoryStats after = stats_now ();
  if (unified ()) {
    fail_unless_equals_uint64 (after.wrapped - before.wrapped, frames);
    fail_unless_equals_uint64 (after.uploads - before.uploads, 0);
  }
  for (int i = 0; i < frames; i++) {
    fail_unless (bytes_of (outs[i]) == want[i % distinct],
        "%s: frame %d is not its input's result (its buffer reused too early?)", s.desc, i);
    gst_buffer_unref (outs[i]);
  }
  gst_harness_teardown (h);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);
}

GST_START_TEST (test_sobel_source_reuses_buffers)
{
  check_reuse (kSobel);
}
GST_END_TEST

GST_START_TEST (test_sobel_system_out_source_reuses_buffers)
{
  check_reuse (kSobelSystem);
}
GST_END_TEST

GST_START_TEST (test_camera_system_out_source_reuses_buffers)
{
  check_reuse (kCameraSystem);
}
GST_END_TEST

/* System-memory output with frames in flight: frames of every input kind
 * (wrapped, copied through the element's upload buffer, repacked) pushed
 * one after the other and their outputs held unmapped, then read last
 * first: each equals its input's result through OpenCL memory (read at
 * once). A copied input written over its upload buffer before the kernel
 * before had read it, or an output read before its kernel completed, would
 * give other bytes. */
static void
check_in_flight (const Subject & device_out, const Subject & system_out)
{
  GstHarness *ref = harness (device_out), *h = harness (system_out);
  const int frames = small_only () ? 9 : 18;
  struct Case { Kind kind; int by; int pad; };
  const Case cases[] = { { Kind::ALIGNED, 0, 0 }, { Kind::TWO_MEMORIES, 0, 0 },
    { Kind::MISALIGNED, 3, 64 } };
  std::vector<std::vector<guint8>> want;
  std::vector<GstBuffer *> outs;
  for (int i = 0; i < frames; i++) {
    const Case c = cases[i % 3];
    const Layout l = layout (system_out, c.pad);
    const std::vector<guint8> frame = content (system_out, l, 500 + i);
    guint64 uploads, wraps;
    want.push_back (run (ref, make_buffer (system_out, l, frame, Kind::TWO_MEMORIES), &uploads,
            &wraps));
    fail_unless_equals_int (gst_harness_push (h, make_buffer (system_out, l, frame, c.kind,
                c.by)), GST_FLOW_OK);
    outs.push_back (gst_harness_pull (h));
    fail_unless (outs.back () != nullptr);
  }
  for (int i = frames - 1; i >= 0; i--) {
    fail_unless (bytes_of (outs[i]) == want[i], "%s: frame %d read late is not its input's "
        "result", system_out.desc, i);
    gst_buffer_unref (outs[i]);
  }
  gst_harness_teardown (h);
  gst_harness_teardown (ref);
}

GST_START_TEST (test_sobel_system_out_in_flight)
{
  check_in_flight (kSobel, kSobelSystem);
}
GST_END_TEST

GST_START_TEST (test_camera_system_out_in_flight)
{
  check_in_flight (kCamera, kCameraSystem);
}
GST_END_TEST

GST_START_TEST (test_camera_source_reuses_buffers)
{
  check_reuse (kCamera);
}
GST_END_TEST

namespace {

/* ---- another user of a memory whose upload goes in bands ---- */

/* An upload in bands (gstclbands.hpp) is queued band by band on the
 * context's upload queue while the device buffer is already handed out
 * (device_in_bands); a user of the memory that comes meanwhile (a
 * GST_MAP_CL map, sync_to_device) has the context's queue wait for the
 * upload's gate, a user event that opens once the last band's write has
 * completed (end_band_upload), or at once where nothing was queued (the
 * device copy then stale). Only the staging path of discrete devices
 * uploads in bands: on a unified one device_in_bands leaves nothing. */

constexpr int kBandRows = 16, kBands = 4, kRowBytes = 1024;
constexpr gsize kBandBytes = (gsize) kBandRows * kRowBytes, kSize = kBandBytes * kBands;

std::vector<guint8> pattern (uint32_t seed)
{
  std::mt19937 rng (seed);
  std::vector<guint8> v (kSize);
  for (auto &b : v)
    b = (guint8) (rng () >> 24);
  return v;
}

/* A memory of the shared context whose device copy holds `old` and whose
 * host copy (written through a host map) holds `now`, newer. */
GstMemory *stale_on_device (GstAllocator * alloc, const std::vector<guint8> &old,
    const std::vector<guint8> &now)
{
  GstMemory *mem = gst_allocator_alloc (alloc, kSize, nullptr);
  fail_unless (mem != nullptr && gst_is_cl_memory (mem));
  fail_unless (gst_cl_memory_write_from_host (mem, old.data (), kSize));
  GstMapInfo map;
  fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE));
  std::memcpy (map.data, now.data (), kSize);
  gst_memory_unmap (mem, &map);
  return mem;
}

/* The device buffer read into `into` on the context's queue, after what is
 * queued there (as a kernel of another user would read it); not waited for. */
cl::Event read_device (cl_mem device, std::vector<guint8> &into)
{
  into.assign (kSize, 0);
  const cl::CommandQueue &q = gstcl::queue_of (shared_context ());
  cl::Event done;
  q.enqueueReadBuffer (cl::Buffer (device, true), CL_FALSE, 0, kSize, into.data (), nullptr,
      &done);
  q.flush ();
  return done;
}

bool complete (const cl::Event & e)
{
  const cl_int status = e.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS> ();
  fail_if (status < 0, "a read of the device buffer failed (%d)", status);
  return status == CL_COMPLETE;
}

/* Bounded (10 s): a gate never opened fails here, not at the suite's timeout. */
void wait_complete (const cl::Event & e, const char *what)
{
  const gint64 until = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (!complete (e) && g_get_monotonic_time () < until)
    g_usleep (1000);
  fail_unless (complete (e), "%s: the read never completed (the upload's gate left closed?)",
      what);
}

/* The shared context's device buffer for `mem` in bands, where the context
 * uploads in bands; false on a unified device (checked: nothing left to
 * upload, the data on the device), which the staging run must not be. */
bool in_bands (GstMemory * mem, const std::vector<guint8> &now, gstcl::BandUpload * up,
    cl_mem * device)
{
  if (!g_strcmp0 (g_getenv ("GST_OPENCL_MEMORY"), "staging"))
    fail_if (unified (), "GST_OPENCL_MEMORY=staging, yet the context's memory is unified");
  *device = gstcl::device_in_bands (mem, nullptr, 0, up);
  fail_unless (*device != nullptr);
  if (unified ()) {
    fail_unless (up->src == nullptr && up->gate () == nullptr, "an upload left on a unified "
        "device");
    std::vector<guint8> seen;
    wait_complete (read_device (*device, seen), "unified");
    fail_unless (seen == now, "unified: the device buffer is not the host's data");
    return false;
  }
  /* the host copy is the newer one: left to upload from the staging area */
  fail_unless (up->src != nullptr && up->from_staging && up->gate () != nullptr);
  return true;
}

gstcl::Bands bands_of (GstMemory * mem, gstcl::BandUpload up)
{
  std::vector<int> ends;
  std::vector<size_t> bytes;
  for (int i = 1; i <= kBands; i++) {
    ends.push_back (i * kBandRows);
    bytes.push_back (i * kBandBytes);
  }
  gstcl::Bands bands;
  bands.set_input (mem, std::move (ends), std::move (bytes), std::move (up));
  return bands;
}

/* What both tests start from: a memory of patterns `seed` (on the device)
 * and `seed + 1` (newer, on the host) handed out for an upload in bands. */
struct BandCase {
  GstAllocator *alloc = gst_cl_allocator_new (shared_context ());
  const std::vector<guint8> old, now;
  GstMemory *mem;
  const GstClMemoryStats before;
  gstcl::BandUpload up;
  cl_mem device = nullptr;
  const bool banded;
  gstcl::Bands bands;   /* of 4 bands, where banded */
  explicit BandCase (uint32_t seed)
      : old (pattern (seed)), now (pattern (seed + 1)), mem (stale_on_device (alloc, old, now)),
        before (stats_now ()), banded (in_bands (mem, now, &up, &device))
  {
    if (banded)
      bands = bands_of (mem, std::move (up));
  }
  ~BandCase ()
  {
    gst_memory_unref (mem);
    gst_object_unref (alloc);
  }
};

}  // namespace

/* A GST_MAP_CL map while only the first band is queued: a read of the
 * buffer on the context's queue waits for the whole upload (neither the
 * device's old data nor a part of the new), then sees the host's bytes. */
GST_START_TEST (test_band_upload_gates_other_users)
{
  BandCase c (1);
  if (c.banded) {
    /* the other user, before any band is queued */
    GstMapInfo map;
    fail_unless (gst_memory_map (c.mem, &map, (GstMapFlags) (GST_MAP_READ | GST_MAP_CL)));
    fail_unless ((cl_mem) map.data == c.device);
    gst_memory_unmap (c.mem, &map);
    std::vector<guint8> seen;
    const cl::Event read = read_device (c.device, seen);
    /* time for a read that did not wait to complete (it would see `old`) */
    g_usleep (20 * 1000);
    fail_if (complete (read), "a device read went ahead of an upload in bands not yet queued "
        "(it saw the %s data)", seen == c.old ? "old" : seen == c.now ? "new" : "mixed");
    /* the first band queued and waited for: the gate is still closed */
    c.bands.wait_input (shared_context (), kBandRows);
    fail_unless (c.bands.queued_upload () () != nullptr);
    wait_complete (c.bands.queued_upload (), "the first band");
    g_usleep (20 * 1000);
    fail_if (complete (read), "a device read went ahead of an upload in bands with one band "
        "queued");
    /* the rest queued, the upload ended: the gate opens as the last band completes */
    fail_unless (c.bands.finish_input (shared_context ()) () != nullptr);
    wait_complete (read, "after the upload was queued");
    fail_unless (seen == c.now, "the other user saw %s data, not the upload's",
        seen == c.old ? "the old" : "other");
    const GstClMemoryStats after = stats_now ();
    fail_unless_equals_uint64 (after.uploads - c.before.uploads, 1);
    fail_unless_equals_uint64 (after.band_uploads - c.before.band_uploads, 1);
    /* the host copy still current: a host map neither downloads nor differs */
    fail_unless (gst_memory_map (c.mem, &map, GST_MAP_READ));
    fail_unless (std::memcmp (map.data, c.now.data (), kSize) == 0);
    gst_memory_unmap (c.mem, &map);
    fail_unless_equals_uint64 (stats_now ().downloads, after.downloads);
  }
}
GST_END_TEST

/* A frame's bands: at most 4 by default, 3 for bands of 4 launches or
 * more, each a multiple of the rows asked for and the last ending at the
 * height; GST_OPENCL_BAND_COUNT (2..16) sets another count whatever the
 * launches, other values leave the default. */
GST_START_TEST (test_band_count)
{
  auto check = [] (const char *count, int height, int rows, std::vector<int> want,
      int launches = 2) {
    if (count)
      g_setenv ("GST_OPENCL_BAND_COUNT", count, TRUE);
    else
      g_unsetenv ("GST_OPENCL_BAND_COUNT");
    const std::vector<int> ends = gstcl::band_ends (height, rows,
        gstcl::band_count (gstcl::band_count_asked (), launches));
    fail_unless (ends == want, "GST_OPENCL_BAND_COUNT=%s, %d rows of %d, %d launches: %zu "
        "bands, the first ending at %d", count ? count : "(unset)", height, rows, launches,
        ends.size (), ends[0]);
  };
  check (nullptr, 2160, 16, { 544, 1088, 1632, 2160 });
  check (nullptr, 2160, 64, { 576, 1152, 1728, 2160 });
  check (nullptr, 2160, 0, { 2160 });
  check (nullptr, 2160, 64, { 576, 1152, 1728, 2160 }, 3);
  check (nullptr, 2160, 64, { 768, 1536, 2160 }, 4);
  check ("2", 2160, 64, { 1088, 2160 });
  check ("4", 2160, 64, { 576, 1152, 1728, 2160 }, 5);
  check ("8", 2160, 16, { 272, 544, 816, 1088, 1360, 1632, 1904, 2160 });
  check ("1", 2160, 16, { 544, 1088, 1632, 2160 });
  check ("17", 2160, 16, { 544, 1088, 1632, 2160 });
  g_unsetenv ("GST_OPENCL_BAND_COUNT");
}
GST_END_TEST

/* A frame that fails before any band of its upload is queued (Bands::clear
 * () ends it with no event): another user that waits for the gate goes on,
 * and the device copy is stale, so the next sync uploads the host's data. */
GST_START_TEST (test_band_upload_never_queued)
{
  BandCase c (3);
  if (c.banded) {
    gstcl::sync_to_device (c.mem);  /* the other user: nothing to upload, the gate waited for */
    std::vector<guint8> seen;
    const cl::Event read = read_device (c.device, seen);
    g_usleep (20 * 1000);
    fail_if (complete (read), "a device read went ahead of an upload in bands not yet queued");
    c.bands.clear ();
    wait_complete (read, "after an upload that was never queued");
    fail_unless_equals_uint64 (stats_now ().uploads, c.before.uploads);
    gstcl::sync_to_device (c.mem);
    fail_unless_equals_uint64 (stats_now ().uploads - c.before.uploads, 1);
    wait_complete (read_device (c.device, seen), "after a sync");
    fail_unless (seen == c.now, "the device has %s data after a sync, not the host's",
        seen == c.old ? "the old" : "other");
  }
}
GST_END_TEST

static Suite *
zerocopy_suite (void)
{
  Suite *s = suite_create ("zerocopy");
  TCase *tc = tcase_create ("general");
  tcase_add_checked_fixture (tc, nullptr, drop_shared_context);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_sobel_buffers);
  tcase_add_test (tc, test_camera_buffers);
  tcase_add_test (tc, test_sobel_source_reuses_buffers);
  tcase_add_test (tc, test_camera_source_reuses_buffers);
  tcase_add_test (tc, test_sobel_system_out_source_reuses_buffers);
  tcase_add_test (tc, test_camera_system_out_source_reuses_buffers);
  tcase_add_test (tc, test_sobel_system_out_in_flight);
  tcase_add_test (tc, test_camera_system_out_in_flight);
  tcase_add_test (tc, test_band_upload_gates_other_users);
  tcase_add_test (tc, test_band_upload_never_queued);
  tcase_add_test (tc, test_band_count);
  return s;
}

GST_CHECK_MAIN (zerocopy);
