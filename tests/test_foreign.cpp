/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Device buffers of another API (gstclsource.hpp), without that API: a fake
 * source hands out ordinary cl buffers with an owner whose release is
 * observed. Its GstClMemory is the cl buffer itself (kernels and host maps
 * as any other); the owner goes only after the memory is freed and the
 * device has finished every command that used the buffer; a pool of them
 * tells each return; a copy is ordinary memory. And an OpenCL element takes
 * the OpenCL pool that downstream proposes for its caps (as cldownload's
 * pool of memory shared with CUDA is taken, docs/interop.md), not one for
 * other caps. */
#include "cltest.h"

#include <gst/opencl/gstcl.hpp>
#include <gst/opencl/gstclsource.hpp>

#include <atomic>
#include <cstring>
#include <thread>

namespace {

struct Counters {
  std::atomic<int> made {0};
  std::atomic<int> released {0};
  std::atomic<int> returned {0};
  std::atomic<gint64> released_at {0};
  cl_event watched = nullptr;            /* a command on the buffer, if set */
  std::atomic<int> watched_status {1};   /* its status when the owner went */
};

Counters counters;

/* (each test from zero, forked or not) */
void
reset_counters ()
{
  counters.made = 0;
  counters.released = 0;
  counters.returned = 0;
  counters.released_at = 0;
  counters.watched = nullptr;
  counters.watched_status = 1;
}

class FakeBuffer : public gstcl::ForeignBuffer {
public:
  explicit FakeBuffer (cl_mem mem) : mem_ (mem) { counters.made++; }
  ~FakeBuffer () override
  {
    if (counters.watched) {
      cl_int status = 1;
      clGetEventInfo (counters.watched, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof (status),
          &status, nullptr);
      counters.watched_status = status;
    }
    counters.released_at = g_get_monotonic_time ();
    counters.released++;
    clReleaseMemObject (mem_);
  }
  cl_mem mem () const override { return mem_; }
  void returned () override { counters.returned++; }

private:
  cl_mem mem_;
};

class FakeSource : public gstcl::BufferSource {
public:
  std::shared_ptr<gstcl::ForeignBuffer> make (GstClContext *ctx, size_t size) override
  {
    cl_int err = CL_SUCCESS;
    cl_mem mem = clCreateBuffer (gst_cl_context_get_cl_context (ctx), CL_MEM_READ_WRITE, size,
        nullptr, &err);
    if (!mem)
      throw std::runtime_error ("clCreateBuffer failed");
    return std::make_shared<FakeBuffer> (mem);
  }
};

bool
from_fake (GstMemory *mem)
{
  return dynamic_cast<FakeBuffer *> (gstcl::foreign_buffer_of (mem).get ()) != nullptr;
}

}  // namespace

/* The memory is the source's cl buffer: what the host writes, the buffer
 * holds; a copy is an ordinary buffer; the owner goes at the free. */
GST_START_TEST (test_memory_is_the_foreign_buffer)
{
  GstClContext *ctx = cltest::shared_context ();
  GstAllocator *alloc = gstcl::allocator_with_source (ctx, std::make_shared<FakeSource> ());
  const gsize size = 4096;
  GstMemory *mem = gst_allocator_alloc (alloc, size, nullptr);
  fail_unless (mem && gst_is_cl_memory (mem));
  fail_unless_equals_int (counters.made, 1);
  cl_mem foreign = gstcl::foreign_buffer_of (mem)->mem ();
  GstMapInfo map;
  fail_unless (gst_memory_map (mem, &map, (GstMapFlags) (GST_MAP_READ | GST_MAP_CL)));
  fail_unless ((cl_mem) map.data == foreign, "the device buffer is not the source's");
  gst_memory_unmap (mem, &map);

  fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE));
  for (gsize i = 0; i < size; i++)
    map.data[i] = (guint8) (i * 7 + 3);
  gst_memory_unmap (mem, &map);
  fail_unless (gst_cl_memory_sync_to_device (mem));
  std::vector<guint8> back (size);
  fail_unless_equals_int (clEnqueueReadBuffer (gst_cl_context_get_cl_queue (ctx), foreign,
          CL_TRUE, 0, size, back.data (), 0, nullptr, nullptr), CL_SUCCESS);
  for (gsize i = 0; i < size; i++)
    fail_unless_equals_int (back[i], (guint8) (i * 7 + 3));

  GstMemory *copy = gst_memory_copy (mem, 0, -1);
  fail_unless (copy && gst_is_cl_memory (copy));
  fail_if (gstcl::foreign_buffer_of (copy), "a copy is ordinary memory");
  fail_unless_equals_int (counters.made, 1);
  fail_unless (gst_memory_map (copy, &map, GST_MAP_READ));
  fail_unless (map.data[100] == (guint8) (100 * 7 + 3));
  gst_memory_unmap (copy, &map);
  gst_memory_unref (copy);

  fail_unless_equals_int (counters.released, 0);
  gst_memory_unref (mem);
  fail_unless_equals_int (counters.released, 1);
  gst_object_unref (alloc);
}
GST_END_TEST

/* A command that uses the buffer waits on the device (behind a user event
 * opened 300 ms later): the owner outlives the free until it completed. */
GST_START_TEST (test_released_after_the_device)
{
  GstClContext *ctx = cltest::shared_context ();
  GstAllocator *alloc = gstcl::allocator_with_source (ctx, std::make_shared<FakeSource> ());
  GstMemory *mem = gst_allocator_alloc (alloc, 1 << 16, nullptr);
  fail_unless (mem != nullptr);
  cl_int err = CL_SUCCESS;
  cl_event gate = clCreateUserEvent (gst_cl_context_get_cl_context (ctx), &err);
  fail_unless_equals_int (err, CL_SUCCESS);
  cl_command_queue q = gst_cl_context_get_cl_queue (ctx);
  GstMapInfo map;
  fail_unless (gst_memory_map (mem, &map, (GstMapFlags) (GST_MAP_WRITE | GST_MAP_CL)));
  const cl_uchar zero = 0;
  fail_unless_equals_int (clEnqueueFillBuffer (q, (cl_mem) map.data, &zero, 1, 0, 1 << 16, 1,
          &gate, &counters.watched), CL_SUCCESS);
  gst_memory_unmap (mem, &map);
  clFlush (q);
  std::atomic<gint64> opened {0};
  std::thread opener ([&] {
    g_usleep (300 * 1000);
    opened = g_get_monotonic_time ();
    clSetUserEventStatus (gate, CL_COMPLETE);
  });
  const gint64 start = g_get_monotonic_time ();
  gst_memory_unref (mem);
  const gint64 freed = g_get_monotonic_time ();
  opener.join ();
  GST_INFO ("free returned after %" G_GINT64_FORMAT " us; the gate opened after %"
      G_GINT64_FORMAT " us, the owner went after %" G_GINT64_FORMAT " us", freed - start,
      opened - start, counters.released_at - start);
  fail_unless_equals_int (counters.released, 1);
  fail_unless (counters.released_at >= opened, "the owner went before the device finished");
  fail_unless_equals_int (counters.watched_status, CL_COMPLETE);
  clReleaseEvent (counters.watched);
  counters.watched = nullptr;
  clReleaseEvent (gate);
  gst_object_unref (alloc);
}
GST_END_TEST

/* A pool of them: each buffer's return is told, and every owner goes when
 * the pool is freed. */
GST_START_TEST (test_pool_of_foreign_buffers)
{
  GstClContext *ctx = cltest::shared_context ();
  GstCaps *caps = gst_caps_from_string ("video/x-raw(memory:OpenCLMemory),format=NV12,"
      "width=64,height=48,framerate=30/1");
  guint size = 0;
  GstBufferPool *pool = gstcl::buffer_pool_with_source (ctx, std::make_shared<FakeSource> (),
      caps, 2, &size);
  fail_unless (pool != nullptr);
  fail_unless (gstcl::pool_has_source (pool));
  GstBufferPool *plain = gst_cl_buffer_pool_new (ctx);
  fail_if (gstcl::pool_has_source (plain));
  gst_object_unref (plain);
  fail_unless_equals_int (size, 64 * 48 * 3 / 2);
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int (counters.made, 2);
  GstBuffer *a = nullptr, *b = nullptr, *c = nullptr;
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &a, nullptr), GST_FLOW_OK);
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &b, nullptr), GST_FLOW_OK);
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &c, nullptr), GST_FLOW_OK);
  fail_unless_equals_int (counters.made, 3);
  fail_unless (from_fake (gst_buffer_peek_memory (c, 0)));
  fail_unless (gst_buffer_get_video_meta (c) != nullptr);
  /* (the two made at activation went into the pool once) */
  const int before = counters.returned;
  gst_buffer_unref (a);
  gst_buffer_unref (b);
  fail_unless_equals_int (counters.returned - before, 2);
  fail_unless_equals_int (counters.released, 0);
  gst_buffer_unref (c);
  fail_unless_equals_int (counters.returned - before, 3);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);
  fail_unless_equals_int (counters.released, 3);
  gst_caps_unref (caps);
}
GST_END_TEST

/* ---- decide_allocation takes a proposed OpenCL pool that fits ---- */

struct Proposal {
  GstElement *producer;   /* whose context the pool is on */
  const char *caps;       /* the pool's caps, or NULL: the query's */
  GstBufferPool *pool = nullptr;
  int frames = 0;
  int from_pool = 0;
  int foreign = 0;   /* frames in a fake buffer, from whichever pool */
  int white = 0;     /* frames whose every byte reads 0xff */
};

static GstPadProbeReturn
propose (GstPad *, GstPadProbeInfo * info, gpointer data)
{
  auto *p = static_cast<Proposal *> (data);
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY (info);
  if (GST_QUERY_TYPE (query) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;
  GstCaps *caps = nullptr;
  gst_query_parse_allocation (query, &caps, nullptr);
  GstClContext *ctx = gst_cl_base_transform_get_context (GST_CL_BASE_TRANSFORM (p->producer));
  fail_unless (ctx != nullptr && caps != nullptr);
  GstCaps *pool_caps = p->caps ? gst_caps_from_string (p->caps) : gst_caps_ref (caps);
  guint size = 0;
  GstBufferPool *pool = gstcl::buffer_pool_with_source (ctx, std::make_shared<FakeSource> (),
      pool_caps, 0, &size);
  fail_unless (pool != nullptr);
  gst_query_add_allocation_pool (query, pool, size, 0, 0);
  if (p->pool)
    gst_object_unref (p->pool);
  p->pool = pool;
  gst_caps_unref (pool_caps);
  gst_object_unref (ctx);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
count_frames (GstPad *, GstPadProbeInfo * info, gpointer data)
{
  auto *p = static_cast<Proposal *> (data);
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  p->frames++;
  const bool fake = from_fake (gst_buffer_peek_memory (buf, 0));
  if (buf->pool && buf->pool == p->pool && fake)
    p->from_pool++;
  p->foreign += fake;
  GstMapInfo map;
  if (gst_buffer_map (buf, &map, GST_MAP_READ)) {
    gsize i = 0;
    while (i < map.size && map.data[i] == 0xff)
      i++;
    p->white += i == map.size;
    gst_buffer_unmap (buf, &map);
  }
  return GST_PAD_PROBE_OK;
}

/* The output of the element named f (clsobel), with the sink proposing a
 * pool of fake buffers for `pool_caps` (NULL: the query's caps): frames, and
 * how many from it. */
static Proposal
run_with_proposal (const char *pool_caps, const char *chain = "clupload ! clsobel name=f")
{
  const std::string desc = std::string ("videotestsrc num-buffers=6 pattern=white ! "
      "video/x-raw,format=RGBA,width=64,height=48 ! ") + chain +
      " ! video/x-raw(memory:OpenCLMemory) ! fakesink name=sink";
  GstElement *pipeline = gst_parse_launch (desc.c_str (), nullptr);
  fail_unless (pipeline != nullptr);
  Proposal p;
  p.producer = gst_bin_get_by_name (GST_BIN (pipeline), "f");
  p.caps = pool_caps;
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM, propose, &p, nullptr);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_frames, &p, nullptr);
  gst_object_unref (pad);
  cltest::play_to_eos (pipeline, "clsobel with a proposed pool");
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (p.producer);
  gst_object_unref (pipeline);
  fail_unless (p.pool != nullptr, "no allocation query reached the sink");
  gst_object_unref (p.pool);
  p.pool = nullptr;
  return p;
}

GST_START_TEST (test_adopts_the_proposed_pool)
{
  Proposal p = run_with_proposal (nullptr);
  GST_INFO ("%d frames, %d from the proposed pool", p.frames, p.from_pool);
  fail_unless_equals_int (p.frames, 6);
  fail_unless_equals_int (p.from_pool, 6);
  fail_unless (counters.made > 0);
  fail_unless_equals_int (counters.released, counters.made);
}
GST_END_TEST

GST_START_TEST (test_ignores_a_pool_for_other_caps)
{
  Proposal p = run_with_proposal ("video/x-raw(memory:OpenCLMemory),format=RGBA,width=32,"
      "height=24,framerate=30/1");
  fail_unless_equals_int (p.frames, 6);
  fail_unless_equals_int (p.from_pool, 0);
  fail_unless_equals_int (counters.released, counters.made);
}
GST_END_TEST

/* clupload hands on the producer's buffer, uploaded: with the sink
 * proposing a pool of fake buffers, the producer gets a pool of the same
 * source (another pool), and the frames are uploaded into fake buffers. */
GST_START_TEST (test_upload_into_a_proposed_source)
{
  Proposal p = run_with_proposal (nullptr, "clupload name=f");
  fail_unless_equals_int (p.frames, 6);
  fail_unless_equals_int (p.foreign, 6);
  fail_unless_equals_int (p.from_pool, 0);
  fail_unless_equals_int (p.white, 6);
  fail_unless_equals_int (counters.released, counters.made);
}
GST_END_TEST

static Suite *
foreign_suite (void)
{
  Suite *s = suite_create ("foreign");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 60);
  tcase_add_checked_fixture (tc, reset_counters, cltest::drop_shared_context);
  tcase_add_test (tc, test_memory_is_the_foreign_buffer);
  tcase_add_test (tc, test_released_after_the_device);
  tcase_add_test (tc, test_pool_of_foreign_buffers);
  tcase_add_test (tc, test_adopts_the_proposed_pool);
  tcase_add_test (tc, test_ignores_a_pool_for_other_caps);
  tcase_add_test (tc, test_upload_into_a_proposed_source);
  return s;
}

GST_CHECK_MAIN (foreign);
