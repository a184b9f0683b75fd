/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cldebayer against the CPU reference in ref_debayer.h (5x5 coefficient tables,
 * independent of the kernel's formulation): every pattern, depth, output
 * format and method, sizes from 2x2 to 1920x1080, padded strides, system and
 * OpenCL memory, caps changes mid-stream; both methods must be bit-exact. Also
 * the quality of a round trip through rgb2bayer (PSNR), frames staying on the
 * device in a chain with clsobel, and refusals of bad input. */
#include "cltest.h"
#include "ref_debayer.h"

#include <gst/app/gstappsink.h>
#include <gst/base/gstbasetransform.h>
#include <gst/opencl/gstcl.hpp>
#include <gst/opencl/gstclcontext.h>
#include <gst/opencl/gstclmemory.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <functional>

using namespace cltest;
using namespace debayer_ref;

/* One OpenCL context for the harnesses of a test, so that they build each
 * program once; dropped after each test. */


/* A harness around cldebayer (after clupload for OpenCL-memory input) with
 * output format `f`, remembering the caps last set. */
struct Debayer {
  GstHarness *h;
  GstElement *element;
  std::string caps;
  const OutFormat *format;

  Debayer (const OutFormat & f, bool cl_input)
  {
    h = debayer_harness (cl_input, &element);
    format = &f;
    gst_harness_set_sink_caps_str (h, ("video/x-raw,format=" + std::string (f.name)).c_str ());
  }
  ~Debayer ()
  {
    gst_object_unref (element);
    gst_harness_teardown (h);
  }

  /* Pushes `m` (padded by `pad` bytes) with `method` and checks the output. */
  void check (const Mosaic & m, int pad, Method method, const char *label = "",
      int row_align = 4)
  {
    if (m.caps () != caps) {
      caps = m.caps ();
      gst_harness_set_src_caps_str (h, caps.c_str ());
    }
    g_object_set (element, "method", (int) method, nullptr);
    GstBuffer *in = mosaic_buffer (m, pad, row_align);
    static guint64 pts = 0;
    GST_BUFFER_PTS (in) = ++pts * GST_MSECOND;
    GstBuffer *out = push_built (h, in);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), pts * GST_MSECOND);
    GstCaps *out_caps = gst_pad_get_current_caps (h->sinkpad);
    const std::string what = std::string (label) + m.format () + " " + std::to_string (m.w) +
        "x" + std::to_string (m.h) + " pad " + std::to_string (pad) + " " +
        (method == MALVAR ? "malvar" : "bilinear") + " -> " + format->name;
    compare (out, out_caps, m, demosaic_reference (m, method), *format, what);
    gst_caps_unref (out_caps);
    gst_buffer_unref (out);
  }
};

/* Every pattern, both methods, 2x2 / 3x3 / 5x7, into every output format of
 * `bits`-deep input, from system memory (default and padded rows, so also
 * caps changes of pattern and size) and from OpenCL memory. */
static void
run_small_matrix (int bits)
{
  static const int sizes[][2] = { {2, 2}, {3, 3}, {5, 7} };
  const int pad = bits > 8 ? 6 : 5;
  uint32_t seed = bits * 1000;
  const unsigned builds_before = gstcl::program_builds ();
  for (const OutFormat & f : out_formats) {
    if (f.wide && bits == 8)
      continue;
    for (bool cl_input : { false, true }) {
      Debayer d (f, cl_input);
      for (int p = 0; p < 4; p++)
        for (auto &s : sizes)
          for (Method method : { MALVAR, BILINEAR }) {
            const Mosaic m = random_mosaic (s[0], s[1], p, bits, seed++);
            d.check (m, cl_input ? (seed & 1) * pad : 0, method, cl_input ? "cl " : "");
            if (!cl_input)
              d.check (m, pad, method);
          }
    }
  }
  /* Pattern, depth and channel order are kernel arguments: one program per
   * method and output pixel size (1, 3 or 4 channels, 8 or 16 bits). */
  const unsigned builds = gstcl::program_builds () - builds_before;
  fail_unless (builds <= 8, "%u programs built", builds);
}

GST_START_TEST (test_small_8bit) { run_small_matrix (8); } GST_END_TEST
GST_START_TEST (test_small_10bit) { run_small_matrix (10); } GST_END_TEST
GST_START_TEST (test_small_12bit) { run_small_matrix (12); } GST_END_TEST
GST_START_TEST (test_small_14bit) { run_small_matrix (14); } GST_END_TEST
GST_START_TEST (test_small_16bit) { run_small_matrix (16); } GST_END_TEST

/* 451x300 (odd width): every depth and pattern, both methods, into RGBA
 * (padded rows), BGR (OpenCL memory), GRAY8 and RGBA64_LE (OpenCL memory). */
GST_START_TEST (test_451x300)
{
  uint32_t seed = 7;
  for (int bits : depths) {
    struct { const OutFormat *f; bool cl; int pad; } runs[] = {
      { &RGBA, false, 10 }, { &BGR, true, 0 }, { &GRAY8, false, 0 }, { &RGBA64, true, 0 } };
    for (auto &r : runs) {
      if (r.f->wide && bits == 8)
        continue;
      Debayer d (*r.f, r.cl);
      for (int p = 0; p < 4; p++)
        for (Method method : { MALVAR, BILINEAR })
          d.check (random_mosaic (451, 300, p, bits, seed++), r.pad, method);
    }
  }
}
GST_END_TEST

/* 1920x1080: a subset covering each pattern, several depths, both methods,
 * both memories, padded and default rows. */
GST_START_TEST (test_1920x1080)
{
  struct { int pattern, bits; Method method; const OutFormat *f; bool cl; int pad; } runs[] = {
    { 3, 8, MALVAR, &RGBA, true, 0 },
    { 0, 12, BILINEAR, &RGBA64, false, 64 },
    { 1, 16, MALVAR, &BGRx, false, 0 },
    { 2, 8, BILINEAR, &GRAY8, false, 3 },
    { 2, 10, MALVAR, &RGB, true, 0 },
  };
  uint32_t seed = 99;
  for (auto &r : runs) {
    Debayer d (*r.f, r.cl);
    d.check (random_mosaic (1920, 1080, r.pattern, r.bits, seed++), r.pad, r.method);
  }
}
GST_END_TEST

/* 4-channel output (8-bit from 8- and 10-bit input, 16-bit from 12- and
 * 16-bit input), where the element takes the aligned variant when both
 * images' rows start on 16-byte boundaries: every pattern, both methods,
 * with aligned rows (64 wide; 68 wide in 96-byte rows at offset 16, so a
 * partial last block) and without (65 wide; 64 wide at offset 4), from
 * system and OpenCL memory. */
GST_START_TEST (test_aligned_variant)
{
  /* the block kernels run on every device only when forced (on CPUs the
   * cells variant is the default) */
  use_tuning ("gpu");
  struct { int w, h, pad, row_align; } frames[] = {
    { 64, 10, 0, 4 }, { 65, 9, 0, 4 }, { 68, 11, 16, 16 }, { 64, 10, 4, 4 } };
  uint32_t seed = 4242;
  const unsigned builds_before = gstcl::program_builds ();
  struct { const OutFormat *f; int bits; } runs[] = { { &RGBA, 8 }, { &BGRx, 8 },
    { &out_formats[6] /* xRGB */, 8 }, { &RGBA, 10 }, { &RGBA64, 12 }, { &RGBA64, 16 } };
  for (auto &run : runs)
    for (bool cl_input : { false, true }) {
      Debayer d (*run.f, cl_input);
      for (int p = 0; p < 4; p++)
        for (auto &fr : frames)
          for (Method method : { MALVAR, BILINEAR })
            d.check (random_mosaic (fr.w, fr.h, p, run.bits, seed++), fr.pad, method,
                cl_input ? "cl " : "", fr.row_align);
    }
  /* Per sample size and output channel size (8 -> 8, 16 -> 8, 16 -> 16 bit)
   * and method: the general variant and the aligned one for each column
   * phase of the pattern; fewer would mean a variant went unused. */
  const unsigned builds = gstcl::program_builds () - builds_before;
  fail_unless_equals_int (builds, 3 * 6);
}
GST_END_TEST

/* Both kernel variants, forced through GST_OPENCL_TUNING: the block
 * kernels (the default on GPUs) and the cells variants (the default on
 * CPUs). debayer_cells: interior columns in work-groups of 128, the last
 * one moved back to end at the interior's edge, interior row pairs in
 * groups of 2; debayer_cells16 (8-bit samples into 8-bit 4-channel
 * pixels): 16 columns a work-item, the last one moved back, every row pair
 * (mirrored rows at the top and bottom); debayer_edge around either.
 * Widths and heights around the smallest interiors (debayer_cells: 132 x 8
 * for rggb is one work-group, 131 or 7 rows none; debayer_cells16: 20
 * columns for rggb is one work-item, 19 none), odd sizes whose last
 * work-group or work-item overlaps its neighbour, 2 and 3 rows, every
 * pattern, both methods, each output pixel size and every 8-bit
 * 4-channel order, 8- to 16-bit, padded rows and OpenCL memory. */
static void
run_variant (const char *variant)
{
  use_tuning (variant);
  static const int sizes[][2] = { {131, 7}, {133, 8}, {140, 9}, {203, 13}, {331, 12},
    {19, 5}, {20, 2}, {21, 3}, {38, 6} };
  struct { const OutFormat *f; int bits; bool cl; int pad; } runs[] = {
    { &RGBA, 8, false, 5 }, { &out_formats[6] /* xRGB */, 8, true, 0 },
    { &out_formats[1] /* BGRA */, 8, false, 0 }, { &out_formats[5] /* ABGR */, 8, true, 3 },
    { &BGR, 8, false, 0 }, { &GRAY8, 10, true, 0 }, { &RGBA64, 12, false, 6 },
    { &BGRx, 16, true, 0 } };
  uint32_t seed = 31337;
  for (auto &r : runs) {
    Debayer d (*r.f, r.cl);
    for (int p = 0; p < 4; p++)
      for (auto &sz : sizes)
        for (Method method : { MALVAR, BILINEAR })
          d.check (random_mosaic (sz[0], sz[1], p, r.bits, seed++), r.pad, method,
              (std::string (variant) + (r.cl ? " cl " : " ")).c_str ());
  }
}

GST_START_TEST (test_cells_variant) { run_variant ("cpu"); } GST_END_TEST
GST_START_TEST (test_blocks_variant) { run_variant ("gpu"); } GST_END_TEST

/* Every sample value of every depth, as 6x6 patches of one value each, into
 * 8-bit and 16-bit output: each value's scaling, round (v * 255 / maxv) and
 * round (v * 65535 / maxv), is checked at least once exactly (a flat patch
 * demosaics to its own value at its centre). */
GST_START_TEST (test_every_value)
{
  for (int bits : depths)
    for (const OutFormat *f : { &RGBA, &RGBA64 }) {
      if (f->wide && bits == 8)
        continue;
      const int values = 1 << bits, per_row = 256;
      Mosaic m;
      m.w = per_row * 6;
      m.h = (values / per_row) * 6;
      m.bits = bits;
      m.pattern = bits % 4;
      m.v.resize ((size_t) m.w * m.h);
      for (int y = 0; y < m.h; y++)
        for (int x = 0; x < m.w; x++)
          m.v[(size_t) y * m.w + x] = (y / 6) * per_row + x / 6;
      Debayer d (*f, false);
      d.check (m, 0, MALVAR);
      d.check (m, 0, BILINEAR);
    }
}
GST_END_TEST

/* Caps change mid-stream: pattern, size and depth, and the method, on one
 * running element; each output matches the reference for its own caps. */
GST_START_TEST (test_caps_change_mid_stream)
{
  for (bool cl_input : { false, true }) {
    Debayer d (RGBA, cl_input);
    d.check (random_mosaic (64, 48, 3, 8, 1), 0, MALVAR);
    d.check (random_mosaic (64, 48, 0, 8, 2), 0, MALVAR);        /* pattern */
    d.check (random_mosaic (37, 21, 0, 8, 3), 0, MALVAR);        /* size */
    d.check (random_mosaic (37, 21, 0, 12, 4), 0, MALVAR);       /* depth */
    d.check (random_mosaic (2, 2, 1, 16, 5), 0, BILINEAR);       /* all, and method */
    d.check (random_mosaic (451, 300, 2, 10, 6), 0, MALVAR);
    d.check (random_mosaic (64, 48, 3, 8, 7), 0, MALVAR);        /* back to the first */
  }
}
GST_END_TEST

/* Pushes `m` into a fresh cldebayer and returns the flow and the text of the
 * element error it posted ("" if none). */
static GstFlowReturn
push_expecting_error (const Mosaic & m, GstBuffer * buf, std::string *error,
    bool shared = false)
{
  GstHarness *h = gst_harness_new ("cldebayer");
  if (shared)   /* buf's OpenCL memory is then the element's own */
    share_context (h->element);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=RGBA");
  gst_harness_set_src_caps_str (h, m.caps ().c_str ());
  GstFlowReturn ret = gst_harness_push (h, buf ? buf : mosaic_buffer (m, 0));
  error->clear ();
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (msg) {
    GError *e = nullptr;
    gst_message_parse_error (msg, &e, nullptr);
    *error = e->message;
    g_error_free (e);
    gst_message_unref (msg);
  }
  gst_element_set_bus (h->element, nullptr);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  return ret;
}

/* Frames below 2x2 are refused by negotiation (the pad templates start at
 * 2x2), with no error of cldebayer's own; never a crash. */
GST_START_TEST (test_too_small_is_refused)
{
  for (auto s : { std::pair<int, int> {1, 1}, {1, 6}, {7, 1} }) {
    std::string error;
    GstFlowReturn ret = push_expecting_error (random_mosaic (s.first, s.second, 3, 8, 1),
        nullptr, &error);
    fail_unless_equals_int (ret, GST_FLOW_NOT_NEGOTIATED);
    fail_unless (error.empty (), "%dx%d: error '%s'", s.first, s.second, error.c_str ());
  }
}
GST_END_TEST

/* Buffers shorter than the caps say are element errors; 16-bit rows at odd
 * addresses in system memory are repacked on upload (GPUs fault on
 * misaligned 16-bit loads) and give the right picture; in OpenCL memory,
 * which kernels read where it lies, they are element errors. */
GST_START_TEST (test_bad_buffers_are_errors)
{
  std::string error;
  const Mosaic m = random_mosaic (16, 8, 3, 12, 1);
  GstBuffer *short_buf = gst_buffer_new_allocate (nullptr, 16 * 2 * 7, nullptr);
  gst_buffer_memset (short_buf, 0, 0, gst_buffer_get_size (short_buf));
  fail_unless_equals_int (push_expecting_error (m, short_buf, &error), GST_FLOW_ERROR);
  fail_unless (!error.empty ());

  GstAllocator *allocator = gst_cl_allocator_new (shared_context ());
  gsize offset[GST_VIDEO_MAX_PLANES] = { 1 };
  gint stride[GST_VIDEO_MAX_PLANES] = { 2 * m.w + 1 };
  GstBuffer *odd = gst_buffer_new ();
  gst_buffer_append_memory (odd, gst_allocator_alloc (allocator,
          offset[0] + (gsize) stride[0] * m.h, nullptr));
  gst_buffer_add_video_meta_full (odd, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_GRAY16_LE,
      m.w, m.h, 1, offset, stride);
  gst_object_unref (allocator);
  fail_unless_equals_int (push_expecting_error (m, odd, &error, true), GST_FLOW_ERROR);
  fail_unless (error.find ("aligned") != std::string::npos, "error '%s'", error.c_str ());

  Debayer d (out_formats[0], false);
  d.check (m, 3, MALVAR, "odd rows ");
  d.check (random_mosaic (17, 9, 0, 16, 2), 5, BILINEAR, "odd rows ");
}
GST_END_TEST

/* RGBA64_LE is offered for 10..16-bit input only; 8-bit input negotiates
 * only 8-bit formats. */
GST_START_TEST (test_caps)
{
  GstHarness *h = gst_harness_new ("cldebayer");
  auto transform = [&] (GstPadDirection direction, const std::string &caps) {
    GstCaps *in = gst_caps_from_string (caps.c_str ());
    GstCaps *out = GST_BASE_TRANSFORM_GET_CLASS (h->element)->transform_caps (
        GST_BASE_TRANSFORM (h->element), direction, in, nullptr);
    gchar *str = gst_caps_to_string (out);
    std::string s = str;
    g_free (str);
    gst_caps_unref (out);
    gst_caps_unref (in);
    return s;
  };
  auto src_formats = [&] (const char *bayer) {
    return transform (GST_PAD_SINK, std::string ("video/x-bayer,format=") + bayer +
        ",width=8,height=8");
  };
  fail_unless (src_formats ("rggb").find ("RGBA64_LE") == std::string::npos);
  fail_unless (src_formats ("rggb").find ("GRAY8") != std::string::npos);
  fail_unless (src_formats ("rggb12le").find ("RGBA64_LE") != std::string::npos);
  fail_unless (src_formats ("bggr16le").find ("xRGB") != std::string::npos);

  const std::string bayer = transform (GST_PAD_SRC,
      "video/x-raw,format=RGBA64_LE,width=8,height=8");
  fail_unless (bayer.find ("rggb10le") != std::string::npos &&
      bayer.find ("rggb,") == std::string::npos && bayer.find ("rggb }") == std::string::npos,
      "%s", bayer.c_str ());
  fail_unless (transform (GST_PAD_SRC, "video/x-raw,format=BGRx").find ("bggr,") !=
      std::string::npos);
  fail_unless (transform (GST_PAD_SRC, "video/x-raw,format=I420").find ("rggb,") !=
      std::string::npos);
  const std::string yuy2 = transform (GST_PAD_SRC, "video/x-raw,format=YUY2");
  fail_unless_equals_string (yuy2.c_str (), "EMPTY");
  gst_harness_teardown (h);
}
GST_END_TEST

/* Against bayer2rgb (bilinear too, 8-bit, even sizes only: it crashes on odd
 * widths): bayer2rgb averages pairs of averages, so it may differ by 1, and
 * it treats the two outermost rows and columns its own way, so they are left
 * out. */
GST_START_TEST (test_matches_bayer2rgb)
{
  const int w = 640, h = 480;
  for (int p = 0; p < 4; p++) {
    const Mosaic m = random_mosaic (w, h, p, 8, 500 + p);
    std::vector<Rgb> outputs[2];
    for (int i = 0; i < 2; i++) {
      GstHarness *hn = gst_harness_new_parse (i ? "bayer2rgb" : "cldebayer method=bilinear");
      gst_harness_set_src_caps_str (hn, m.caps ().c_str ());
      gst_harness_set_sink_caps_str (hn, "video/x-raw,format=RGBA");
      fail_unless_equals_int (gst_harness_push (hn, mosaic_buffer (m, 0)), GST_FLOW_OK);
      GstBuffer *out = gst_harness_pull (hn);
      GstMapInfo map;
      gst_buffer_map (out, &map, GST_MAP_READ);
      for (size_t k = 0; k < (size_t) w * h; k++)
        outputs[i].push_back ({ map.data[k * 4], map.data[k * 4 + 1], map.data[k * 4 + 2] });
      gst_buffer_unmap (out, &map);
      gst_buffer_unref (out);
      gst_harness_teardown (hn);
    }
    int worst = 0;
    long differ = 0;
    for (int y = 2; y < h - 2; y++)
      for (int x = 2; x < w - 2; x++)
        for (int k = 0; k < 3; k++) {
          const int d = std::abs (outputs[0][(size_t) y * w + x][k] -
              outputs[1][(size_t) y * w + x][k]);
          worst = std::max (worst, d);
          differ += d != 0;
        }
    std::printf ("bayer2rgb vs cldebayer bilinear, %s: %ld of %d channels differ, by at most %d\n",
        patterns[p], differ, (w - 4) * (h - 4) * 3, worst);
    fail_unless (worst <= 1, "%s: differs by %d", patterns[p], worst);
  }
}
GST_END_TEST

/* ---- Round trip through rgb2bayer ---- */

/* Runs the ARGB image through `pipeline` (whose input is ARGB and output
 * RGBA) and returns the RGB of the output. */
static std::vector<Rgb>
run_image (const std::vector<Rgb> &img, int w, int h, const std::string &pipeline)
{
  GstHarness *hn = gst_harness_new_parse (pipeline.c_str ());
  gst_harness_set_src_caps_str (hn, caps_string ("ARGB", w, h).c_str ());
  gst_harness_set_sink_caps_str (hn, "video/x-raw,format=RGBA");
  GstBuffer *in = gst_buffer_new_allocate (nullptr, (gsize) w * h * 4, nullptr);
  GstMapInfo map;
  gst_buffer_map (in, &map, GST_MAP_WRITE);
  for (size_t i = 0; i < img.size (); i++) {
    map.data[i * 4] = 255;
    for (int k = 0; k < 3; k++)
      map.data[i * 4 + 1 + k] = (guint8) img[i][k];
  }
  gst_buffer_unmap (in, &map);
  fail_unless_equals_int (gst_harness_push (hn, in), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull (hn);
  fail_unless (out != nullptr);
  GstCaps *caps = gst_pad_get_current_caps (hn->sinkpad);
  GstVideoInfo info;
  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  GstVideoFrame frame;
  fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
  std::vector<Rgb> rgb ((size_t) w * h);
  for (int y = 0; y < h; y++) {
    const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    for (int x = 0; x < w; x++)
      rgb[(size_t) y * w + x] = { row[x * 4], row[x * 4 + 1], row[x * 4 + 2] };
  }
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (out);
  gst_harness_teardown (hn);
  return rgb;
}

/* rgb2bayer ! cldebayer reaches the PSNR of the CPU Malvar reference, above
 * bilinear; bayer2rgb (bilinear) is measured for comparison. */
GST_START_TEST (test_round_trip_psnr)
{
  const int w = 512, h = 384;
  const std::vector<Rgb> img = natural_image (w, h);
  for (int p = 0; p < 4; p++) {
    Mosaic m;
    m.w = w;
    m.h = h;
    m.pattern = p;
    m.v.resize ((size_t) w * h);
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        const char c = colour_at (m, x, y);
        m.v[(size_t) y * w + x] = img[(size_t) y * w + x][c == 'r' ? 0 : c == 'g' ? 1 : 2];
      }
    const double ref_malvar = psnr (img, demosaic_reference (m, MALVAR), w, h);
    const double ref_bilinear = psnr (img, demosaic_reference (m, BILINEAR), w, h);
    const std::string mosaic = std::string ("rgb2bayer ! video/x-bayer,format=") +
        patterns[p] + " ! ";
    const double cl_malvar = psnr (img, run_image (img, w, h, mosaic + "cldebayer"), w, h);
    const double cl_bilinear = psnr (img, run_image (img, w, h,
            mosaic + "cldebayer method=bilinear"), w, h);
    const double b2r = psnr (img, run_image (img, w, h, mosaic + "bayer2rgb"), w, h);
    std::printf ("PSNR %s %dx%d: cldebayer malvar %.2f dB (CPU reference %.2f), "
        "bilinear %.2f dB (CPU reference %.2f), bayer2rgb %.2f dB\n", patterns[p], w, h,
        cl_malvar, ref_malvar, cl_bilinear, ref_bilinear, b2r);
    fail_unless (std::fabs (cl_malvar - ref_malvar) < 0.1, "%s: %.3f vs %.3f dB", patterns[p],
        cl_malvar, ref_malvar);
    fail_unless (std::fabs (cl_bilinear - ref_bilinear) < 0.1);
    fail_unless (cl_malvar > cl_bilinear + 0.5, "%s: malvar %.2f, bilinear %.2f dB",
        patterns[p], cl_malvar, cl_bilinear);
  }
}
GST_END_TEST

/* ---- Chains ---- */

/* Runs `desc` to EOS and returns the buffers that reached appsink "sink". */
static std::vector<GstBuffer *>
run_pipeline (const std::string &desc, std::string *negotiated = nullptr)
{
  GError *err = nullptr;
  GstElement *pipeline = gst_parse_launch (desc.c_str (), &err);
  fail_unless (pipeline != nullptr, "%s: %s", desc.c_str (), err ? err->message : "");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  std::vector<GstBuffer *> buffers;
  while (GstSample *s = gst_app_sink_pull_sample (GST_APP_SINK (sink))) {
    buffers.push_back (gst_buffer_ref (gst_sample_get_buffer (s)));
    gst_sample_unref (s);
  }
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (msg) {
    GError *e = nullptr;
    gst_message_parse_error (msg, &e, nullptr);
    fail ("%s: %s", desc.c_str (), e->message);
  }
  gst_object_unref (bus);
  if (negotiated) {
    GstElement *d = gst_bin_get_by_name (GST_BIN (pipeline), "d");
    GstPad *pad = gst_element_get_static_pad (d, "src");
    GstCaps *caps = gst_pad_get_current_caps (pad);
    gchar *str = gst_caps_to_string (caps);
    *negotiated = str;
    g_free (str);
    gst_caps_unref (caps);
    gst_object_unref (pad);
    gst_object_unref (d);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return buffers;
}

static bool
same_bytes (GstBuffer * a, GstBuffer * b)
{
  GstMapInfo ma, mb;
  gst_buffer_map (a, &ma, GST_MAP_READ);
  gst_buffer_map (b, &mb, GST_MAP_READ);
  const bool same = ma.size == mb.size && memcmp (ma.data, mb.data, ma.size) == 0;
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
  return same;
}

/* videotestsrc's Bayer frames through cldebayer ! clsobel: one upload and one
 * download per frame (nothing between the two elements goes through the
 * host), and the same result as with system memory between them. */
GST_START_TEST (test_chain_stays_on_device)
{
  const guint frames = 8;
  const std::string src = "videotestsrc num-buffers=" + std::to_string (frames) +
      " pattern=colors ! video/x-bayer,format=rggb,width=320,height=240 ! ";
  for (const char *chain : {
          "clupload ! cldebayer name=d ! clsobel ! cldownload",
          "cldebayer name=d ! clsobel" }) {
    GstClMemoryStats before, after;
    gst_cl_memory_get_stats (&before);
    std::string negotiated;
    std::vector<GstBuffer *> out = run_pipeline (src + chain +
        " ! video/x-raw ! appsink name=sink sync=false", &negotiated);
    gst_cl_memory_get_stats (&after);
    fail_unless_equals_int (out.size (), frames);
    fail_unless (negotiated.find ("memory:OpenCLMemory") != std::string::npos, "%s",
        negotiated.c_str ());
    fail_unless_equals_uint64 (after.uploads - before.uploads, frames);
    fail_unless_equals_uint64 (after.downloads - before.downloads, frames);

    /* The same formats with system memory between the two elements. */
    GstCaps *caps = gst_caps_from_string (negotiated.c_str ());
    const char *format = gst_structure_get_string (gst_caps_get_structure (caps, 0), "format");
    std::vector<GstBuffer *> host = run_pipeline (src + "cldebayer ! video/x-raw,format=" +
        format + " ! clsobel ! video/x-raw ! appsink name=sink sync=false");
    gst_caps_unref (caps);
    fail_unless_equals_int (host.size (), frames);
    for (guint i = 0; i < frames; i++) {
      fail_unless (same_bytes (out[i], host[i]), "%s: frame %u differs", chain, i);
      gst_buffer_unref (out[i]);
      gst_buffer_unref (host[i]);
    }
  }
}
GST_END_TEST

static Suite *
debayer_suite (void)
{
  Suite *s = suite_create ("cldebayer");
  TCase *tc = tuning_tcase (s);
  tcase_add_test (tc, test_small_8bit);
  tcase_add_test (tc, test_small_10bit);
  tcase_add_test (tc, test_small_12bit);
  tcase_add_test (tc, test_small_14bit);
  tcase_add_test (tc, test_small_16bit);
  tcase_add_test (tc, test_451x300);
  tcase_add_test (tc, test_1920x1080);
  tcase_add_test (tc, test_aligned_variant);
  tcase_add_test (tc, test_cells_variant);
  tcase_add_test (tc, test_blocks_variant);
  tcase_add_test (tc, test_every_value);
  tcase_add_test (tc, test_caps_change_mid_stream);
  tcase_add_test (tc, test_too_small_is_refused);
  tcase_add_test (tc, test_bad_buffers_are_errors);
  tcase_add_test (tc, test_caps);
  tcase_add_test (tc, test_matches_bayer2rgb);
  tcase_add_test (tc, test_round_trip_psnr);
  tcase_add_test (tc, test_chain_stays_on_device);
  return s;
}

GST_CHECK_MAIN (debayer);
