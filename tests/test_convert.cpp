/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clconvert against the CPU reference in ref_convert.h: every input and
 * output format pair (odd sizes from 1x1, padded strides, system and
 * OpenCL memory), the colorimetries, scaling up, down and by odd factors
 * with each method, each direction, caps changes mid-stream, passthrough,
 * a device chain's transfers, and the caps negotiated against videoscale's
 * (size, pixel aspect ratio) and videoconvert's (colorimetry). */
#include "cltest.h"
#include "ref_convert.h"

#include <gst/base/gstbasetransform.h>

using namespace cltest;
using namespace convert_ref;

static GstHarness *
convert_harness (bool cl_input, GstElement ** conv, const std::string & props = "")
{
  const std::string desc = (cl_input ? "clupload ! clconvert name=c " : "clconvert name=c ") +
      props;
  GstHarness *h = gst_harness_new_parse (desc.c_str ());
  share_context (h->element);
  *conv = gst_bin_get_by_name (GST_BIN (h->element), "c");
  if (!*conv)  /* a single element is the harness element itself */
    *conv = GST_ELEMENT (gst_object_ref (h->element));
  return h;
}

/* What the harness's sink takes from now on (renegotiates at the next frame). */
static void
set_output (GstHarness * h, const std::string & caps)
{
  gst_harness_set_sink_caps_str (h, caps.c_str ());
  gst_pad_push_event (h->sinkpad, gst_event_new_reconfigure ());
}

static std::string
out_caps (const char *format, int w, int hgt, bool cl, const std::string & extra = "")
{
  return std::string ("video/x-raw") + (cl ? "(memory:OpenCLMemory)" : "") + ",format=" +
      format + ",width=" + std::to_string (w) + ",height=" + std::to_string (hgt) + extra;
}

/* Pushes one random frame of `in_caps` (with `pad` bytes of row padding)
 * and checks the output against the reference: the input resized to the
 * output size (turned back for 90-degree directions) by `method`, then
 * turned by `direction`. Returns the output buffer (the caller unrefs). */
static GstBuffer *
check_frame (GstHarness * h, const std::string & in_caps, int pad, uint32_t seed,
    int method, int direction, const std::string & what)
{
  GstCaps *caps = gst_caps_from_string (in_caps.c_str ());
  GstVideoInfo info, layout;
  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_harness_set_src_caps (h, caps);
  const Format &fi = format_named (gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&info)));
  GstBuffer *in = random_frame (&info, pad, seed, &layout);
  GstMapInfo map;
  fail_unless (gst_buffer_map (in, &map, GST_MAP_READ));
  const Image image = read_image (map.data, &layout, fi, colour_of (&info, fi));
  gst_buffer_unmap (in, &map);

  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull (h);
  fail_unless (out != nullptr, "%s: no output", what.c_str ());
  GstCaps *ocaps = gst_pad_get_current_caps (h->sinkpad);
  GstVideoInfo oinfo;
  fail_unless (gst_video_info_from_caps (&oinfo, ocaps));
  gst_caps_unref (ocaps);
  /* passthrough exactly when clconvert's caps are the same on both sides
   * and nothing turns: no kernel, the same buffer */
  GstElement *conv = GST_IS_BIN (h->element) ?
      gst_bin_get_by_name (GST_BIN (h->element), "c") : GST_ELEMENT (gst_object_ref (h->element));
  GstPad *sink = gst_element_get_static_pad (conv, "sink");
  GstPad *src = gst_element_get_static_pad (conv, "src");
  GstCaps *a = gst_pad_get_current_caps (sink), *b = gst_pad_get_current_caps (src);
  const bool same = gst_caps_is_equal (a, b) && direction == 0;
  fail_unless_equals_int (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM (conv)), same);
  if (conv == h->element)
    fail_unless_equals_int (out == in, same);
  gst_caps_unref (a);
  gst_caps_unref (b);
  gst_object_unref (sink);
  gst_object_unref (src);
  gst_object_unref (conv);
  gst_buffer_unref (in);
  if (same)
    return out;
  const Format &fo = format_named (gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&oinfo)));
  const bool swap = direction == 1 || direction == 3 || direction == 6 || direction == 7;
  const int ow = GST_VIDEO_INFO_WIDTH (&oinfo), oh = GST_VIDEO_INFO_HEIGHT (&oinfo);
  const Image ref = turn (resize (image, swap ? oh : ow, swap ? ow : oh, method), direction);

  GstVideoFrame frame;
  fail_unless (gst_video_frame_map (&frame, &oinfo, out, GST_MAP_READ));
  const Mismatch m = compare ((const guint8 *) frame.map[0].data, &frame.info, fo,
      colour_of (&oinfo, fo), ref);
  gst_video_frame_unmap (&frame);
  fail_unless (m.count == 0, "%s -> %s: %d samples off, worst by %.0f; first %s",
      what.c_str (), fo.name, m.count, m.worst, m.first.c_str ());
  return out;
}

/* Every output format from one input format: 19x5 with padded rows in
 * system memory, 1x1 in OpenCL memory, 10x4 from system to OpenCL memory.
 * The output caps change for each frame (renegotiation mid-stream). */
static void
run_pairs (int i)
{
  const Format &fi = formats[i];
  struct Variant { int w, h, pad; bool cl_in, cl_out; };
  /* (widths from 8 on take CPUs' vector kernel for the runs of 8 and the
   * scalar one for the rest) */
  static const Variant variants[] = { {19, 5, 3, false, false}, {1, 1, 0, true, true},
    {10, 4, 0, false, true} };
  uint32_t seed = 1000 * i;
  for (const Variant &v : variants) {
    GstElement *conv;
    GstHarness *h = convert_harness (v.cl_in, &conv);
    for (int j = 0; j < n_formats; j++) {
      set_output (h, out_caps (formats[j].name, v.w, v.h, v.cl_out));
      const std::string what = std::string (fi.name) + " " + std::to_string (v.w) + "x" +
          std::to_string (v.h) + (v.cl_in ? " cl" : " sys") + (v.cl_out ? "->cl" : "->sys");
      gst_buffer_unref (check_frame (h, caps_string (fi.name, v.w, v.h), v.pad, seed++,
              BILINEAR, 0, what));
    }
    gst_object_unref (conv);
    gst_harness_teardown (h);
  }
}

#define PAIRS_TEST(i) \
  GST_START_TEST (test_pairs_##i) { run_pairs (i); } GST_END_TEST
PAIRS_TEST (0) PAIRS_TEST (1) PAIRS_TEST (2) PAIRS_TEST (3) PAIRS_TEST (4)
PAIRS_TEST (5) PAIRS_TEST (6) PAIRS_TEST (7) PAIRS_TEST (8) PAIRS_TEST (9)
PAIRS_TEST (10) PAIRS_TEST (11) PAIRS_TEST (12) PAIRS_TEST (13) PAIRS_TEST (14)
PAIRS_TEST (15) PAIRS_TEST (16)

/* GPUs' block kernel (8-bit 4:2:0 and 4:2:2 to 4-byte RGB, 4x2 pixels a
 * work-item, `convert` for the last columns), forced on any device: rows
 * aligned to 16 bytes (20 wide) and not (padded input, 19 and 37 wide), a
 * single block (4x1), none (3x3), odd heights, both memories, the output
 * orders with the padding byte first and last, and other matrices and
 * ranges (its coefficients are folded on the host). */
GST_START_TEST (test_yuv_rgb4_blocks)
{
  use_tuning ("gpu");
  struct Case { int w, h, pad; bool cl_out; const char *out, *colorimetry; };
  static const Case cases[] = { {20, 6, 0, true, "BGRx", "bt709"}, {19, 5, 3, false, "RGBA",
      "bt601"}, {37, 9, 1, false, "xBGR", "1:4:0:0"}, {4, 1, 0, true, "ARGB", "bt2020"},
    {3, 3, 0, false, "BGRA", "2:3:5:1"} };
  uint32_t seed = 90000;
  for (const char *yuv : { "NV12", "I420", "YUY2", "UYVY" }) {
    GstElement *conv;
    GstHarness *h = convert_harness (false, &conv);
    for (const Case &c : cases) {
      set_output (h, out_caps (c.out, c.w, c.h, c.cl_out));
      gst_buffer_unref (check_frame (h, caps_string (yuv, c.w, c.h) + ",colorimetry=" +
              c.colorimetry, c.pad, seed++, BILINEAR, 0, std::string (yuv) + " " +
              std::to_string (c.w) + "x" + std::to_string (c.h) + " " + c.colorimetry));
    }
    gst_object_unref (conv);
    gst_harness_teardown (h);
  }
}
GST_END_TEST

/* The reverse block kernel (8-bit 4-byte RGB to NV12 and I420, 4x2 pixels
 * a work-item, `convert` for the last columns), forced on any device: every
 * 4-byte input order, rows aligned to 16 bytes (20 wide), to 4 (8 wide with
 * 4 bytes of padding) and not (19, 37 wide with odd padding), odd widths and
 * heights, a single block row (4x1), no block (3x2, 1x1), input in system
 * and OpenCL memory, output to both, BT.709 and BT.601 in limited and full
 * range. */
GST_START_TEST (test_rgb4_420_blocks)
{
  use_tuning ("gpu");
  struct Case { int w, h, pad; bool cl_out; const char *colorimetry; };
  static const Case cases[] = { {20, 6, 0, true, "bt709"}, {19, 5, 3, false, "bt601"},
    {37, 9, 1, false, "1:4:0:0"}, {8, 3, 4, true, "2:3:5:1"}, {4, 1, 0, false, "bt709"},
    {3, 2, 0, true, "bt601"}, {1, 1, 0, false, "2:3:5:1"} };
  uint32_t seed = 95000;
  bool cl_in = false;
  for (const char *rgb : { "RGBA", "BGRA", "RGBx", "BGRx", "ARGB", "ABGR", "xRGB", "xBGR" }) {
    GstElement *conv;
    GstHarness *h = convert_harness (cl_in, &conv);
    for (const char *yuv : { "NV12", "I420" })
      for (const Case &c : cases) {
        set_output (h, out_caps (yuv, c.w, c.h, c.cl_out, std::string (",colorimetry=") +
                c.colorimetry));
        gst_buffer_unref (check_frame (h, caps_string (rgb, c.w, c.h), c.pad, seed++,
                BILINEAR, 0, std::string (rgb) + (cl_in ? " cl " : " sys ") +
                std::to_string (c.w) + "x" + std::to_string (c.h) + " pad " +
                std::to_string (c.pad) + " " + c.colorimetry));
      }
    gst_object_unref (conv);
    gst_harness_teardown (h);
    cl_in = !cl_in;
  }
}
GST_END_TEST

/* BT.709, BT.601, BT.2020, limited and full range, both ways between RGB
 * and each Y'CbCr format, and between two Y'CbCr colorimetries. */
GST_START_TEST (test_colorimetry)
{
  static const char *colorimetries[] = { "bt709", "bt601", "bt2020", "1:4:0:0",
    "2:3:5:1", "1:1:5:1",   /* full-range BT.601 / BT.709 / BT.709 */
    "2:0:0:0" };   /* no matrix named: GStreamer's default for the size (BT.601) */
  uint32_t seed = 50000;
  GstElement *conv;
  GstHarness *h = convert_harness (false, &conv);
  for (const char *c : colorimetries)
    for (const char *yuv : { "NV12", "I420", "YUY2", "UYVY" }) {
      const std::string col = std::string (",colorimetry=") + c;
      set_output (h, out_caps (yuv, 9, 7, false, col));
      gst_buffer_unref (check_frame (h, caps_string ("RGBA", 9, 7), 0, seed++, BILINEAR, 0,
              std::string ("RGBA -> ") + c));
      set_output (h, out_caps ("BGRx", 9, 7, false));
      gst_buffer_unref (check_frame (h, caps_string (yuv, 9, 7) + col, 0, seed++, BILINEAR,
              0, std::string (yuv) + " " + c));
      set_output (h, out_caps ("GRAY8", 9, 7, false));
      gst_buffer_unref (check_frame (h, caps_string (yuv, 9, 7) + col, 0, seed++, BILINEAR,
              0, std::string (yuv) + " " + c + " -> grey"));
      set_output (h, out_caps ("I420", 9, 7, false, ",colorimetry=bt709"));
      gst_buffer_unref (check_frame (h, caps_string (yuv, 9, 7) + col, 0, seed++, BILINEAR,
              0, std::string (yuv) + " " + c + " -> bt709"));
    }
  gst_object_unref (conv);
  gst_harness_teardown (h);
}
GST_END_TEST

/* Scaling up, down and by odd factors, each method, RGB and Y'CbCr on
 * either side, and the 4:2:0 to 4:2:0 shrink of a video pipeline. */
GST_START_TEST (test_scaling)
{
  struct Case { const char *in, *out; int w, h, ow, oh; };
  static const Case cases[] = {
    {"RGBA", "RGBA", 16, 12, 8, 6},      /* 2x down */
    {"RGBA", "RGBA", 7, 5, 21, 15},      /* 3x up */
    {"RGB", "BGRx", 31, 17, 10, 7},      /* odd factors down */
    {"BGRA", "RGBA", 5, 9, 13, 11},      /* odd factors up */
    {"RGBA", "NV12", 40, 30, 20, 15},    /* scale + convert */
    {"NV12", "BGRx", 21, 13, 34, 9},     /* up in x, down in y */
    {"I420", "NV12", 33, 21, 16, 10},
    {"YUY2", "RGBA", 18, 6, 7, 5},
    {"GRAY16_LE", "GRAY8", 11, 7, 1, 1}, /* down to a pixel */
    {"GRAY8", "RGBA64_LE", 1, 1, 5, 3},  /* up from a pixel */
  };
  uint32_t seed = 60000;
  for (int method = 0; method < 3; method++) {
    GstElement *conv;
    GstHarness *h = convert_harness (false, &conv, "add-borders=false");
    g_object_set (conv, "method", method, nullptr);
    for (const Case &c : cases) {
      set_output (h, out_caps (c.out, c.ow, c.oh, method == 1));
      gst_buffer_unref (check_frame (h, caps_string (c.in, c.w, c.h), method == 2 ? 5 : 0,
              seed++, method, 0, std::string (c.in) + " " + std::to_string (c.w) + "x" +
              std::to_string (c.h) + " -> " + std::to_string (c.ow) + "x" +
              std::to_string (c.oh) + " method " + std::to_string (method)));
    }
    gst_object_unref (conv);
    gst_harness_teardown (h);
  }
}
GST_END_TEST

/* Every direction: the caps turn for 90-degree ones; exact for RGB. */
GST_START_TEST (test_directions)
{
  uint32_t seed = 70000;
  for (int d = 0; d < 8; d++) {
    const bool swap = d == 1 || d == 3 || d == 6 || d == 7;
    for (const char *fmt : { "RGBA", "NV12", "YUY2" }) {
      GstElement *conv;
      GstHarness *h = convert_harness (false, &conv);
      g_object_set (conv, "video-direction", d, nullptr);
      gst_harness_set_sink_caps_str (h, "video/x-raw");
      const std::string what = std::string (fmt) + " direction " + std::to_string (d);
      GstBuffer *out = check_frame (h, caps_string (fmt, 7, 4), 3, seed++, BILINEAR, d, what);
      GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
      GstVideoInfo info;
      fail_unless (gst_video_info_from_caps (&info, caps));
      gst_caps_unref (caps);
      fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&info), swap ? 4 : 7);
      fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&info), swap ? 7 : 4);
      gst_buffer_unref (out);
      /* with a format change and a scale */
      set_output (h, out_caps ("BGRx", swap ? 3 : 9, swap ? 9 : 3, false));
      g_object_set (conv, "add-borders", FALSE, nullptr);
      gst_buffer_unref (check_frame (h, caps_string (fmt, 7, 4), 0, seed++, BILINEAR, d,
              what + " scaled"));
      gst_object_unref (conv);
      gst_harness_teardown (h);
    }
  }
}
GST_END_TEST

/* RGB in RGB out with no scale is exact, whatever the direction. */
GST_START_TEST (test_direction_exact)
{
  GstElement *conv;
  GstHarness *h = convert_harness (false, &conv, "video-direction=ur-ll");
  gst_harness_set_src_caps_str (h, caps_string ("RGBA", 5, 3).c_str ());
  GstVideoInfo info = video_info ("RGBA", 5, 3);
  GstBuffer *in = random_frame (&info, 0, 7);
  GstMapInfo a, b;
  gst_buffer_map (in, &a, GST_MAP_READ);
  std::vector<guint8> src (a.data, a.data + a.size);
  gst_buffer_unmap (in, &a);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull (h);
  gst_buffer_map (out, &b, GST_MAP_READ);
  /* ur-ll: out (x, y) = in (W - 1 - y, H - 1 - x), out is 3x5 */
  for (int y = 0; y < 5; y++)
    for (int x = 0; x < 3; x++)
      for (int k = 0; k < 4; k++)
        fail_unless_equals_int (b.data[y * 12 + x * 4 + k],
            src[(2 - x) * 20 + (4 - y) * 4 + k]);
  gst_buffer_unmap (out, &b);
  gst_buffer_unref (out);
  gst_object_unref (conv);
  gst_harness_teardown (h);
}
GST_END_TEST

/* direction=auto follows the image-orientation tag. */
GST_START_TEST (test_direction_auto)
{
  GstElement *conv;
  GstHarness *h = convert_harness (false, &conv, "video-direction=auto");
  gst_harness_set_sink_caps_str (h, "video/x-raw");
  gst_harness_set_src_caps_str (h, caps_string ("RGBA", 6, 2).c_str ());
  gst_harness_push_event (h, gst_event_new_tag (gst_tag_list_new (GST_TAG_IMAGE_ORIENTATION,
              "rotate-90", nullptr)));
  gst_buffer_unref (check_frame (h, caps_string ("RGBA", 6, 2), 0, 9, BILINEAR, 1,
          "auto rotate-90"));
  gst_object_unref (conv);
  gst_harness_teardown (h);
}
GST_END_TEST

/* Add-borders keeps the display aspect ratio when downstream fixes the
 * pixel aspect ratio: black bars, the picture scaled into the middle. When
 * downstream leaves it open, the pixel aspect ratio keeps the display
 * aspect ratio (as videoscale): no bars. */
GST_START_TEST (test_add_borders)
{
  for (bool par_fixed : { true, false }) {
    GstElement *conv;
    GstHarness *h = convert_harness (false, &conv);
    set_output (h, out_caps ("RGBx", 8, 8, false, par_fixed ? ",pixel-aspect-ratio=1/1" : ""));
    gst_harness_set_src_caps_str (h, caps_string ("RGBA", 8, 4).c_str ());
    GstVideoInfo info = video_info ("RGBA", 8, 4);
    GstBuffer *in = random_frame (&info, 0, 3);
    GstMapInfo map;
    gst_buffer_map (in, &map, GST_MAP_WRITE);
    for (gsize i = 0; i < map.size; i += 4)
      map.data[i] |= 0x80;   /* no black pixel in the picture */
    gst_buffer_unmap (in, &map);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    GstBuffer *out = gst_harness_pull (h);
    GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
    gint par_n = 0, par_d = 0;
    fail_unless (gst_structure_get_fraction (gst_caps_get_structure (caps, 0),
            "pixel-aspect-ratio", &par_n, &par_d));
    gst_caps_unref (caps);
    fail_unless (par_fixed ? par_n == 1 && par_d == 1 : par_n == 2 && par_d == 1,
        "pixel aspect ratio %d/%d", par_n, par_d);
    gst_buffer_map (out, &map, GST_MAP_READ);
    /* with bars: rows 0, 1 and 6, 7 black (padding 255), rows 2..5 the picture */
    for (int y = 0; y < 8; y++) {
      const bool bar = par_fixed && (y < 2 || y >= 6);
      int nonblack = 0;
      for (int x = 0; x < 8; x++) {
        const guint8 *p = map.data + y * 32 + x * 4;
        nonblack += p[0] || p[1] || p[2];
        fail_unless_equals_int (p[3], 255);
      }
      fail_unless_equals_int (nonblack, bar ? 0 : 8);
    }
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
    gst_object_unref (conv);
    gst_harness_teardown (h);
  }
}
GST_END_TEST

/* The caps `element` negotiates on its source pad in
 * `videotestsrc num-buffers=1 ! in ! element ! out ! fakesink`, prerolled. */
static GstCaps *
negotiated (const std::string & in, const std::string & element, const std::string & out)
{
  const std::string desc = "videotestsrc num-buffers=1 ! " + in + " ! " + element +
      " name=e ! " + out + " ! fakesink";
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch (desc.c_str (), &error);
  fail_unless (pipeline != nullptr, "%s: %s", desc.c_str (), error ? error->message : "");
  share_context (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PAUSED);
  if (gst_element_get_state (pipeline, nullptr, nullptr, 60 * GST_SECOND) !=
      GST_STATE_CHANGE_SUCCESS) {
    GstBus *bus = gst_element_get_bus (pipeline);
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    GError *e = nullptr;
    gchar *debug = nullptr;
    if (msg)
      gst_message_parse_error (msg, &e, &debug);
    fail ("%s does not preroll: %s (%s)", desc.c_str (), e ? e->message : "no error",
        debug ? debug : "");
  }
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), "e");
  GstPad *pad = gst_element_get_static_pad (e, "src");
  GstCaps *caps = gst_pad_get_current_caps (pad);
  fail_unless (caps != nullptr, "%s: not negotiated", desc.c_str ());
  gst_object_unref (pad);
  gst_object_unref (e);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  return caps;
}

struct Size {
  int w = 0, h = 0, par_n = 1, par_d = 1;
  bool operator== (const Size & o) const
  {
    return w == o.w && h == o.h && (gint64) par_n * o.par_d == (gint64) o.par_n * par_d;
  }
  std::string text () const
  {
    return std::to_string (w) + "x" + std::to_string (h) + " par " + std::to_string (par_n) +
        "/" + std::to_string (par_d);
  }
};

static Size
size_of (GstCaps * caps)
{
  Size s;
  const GstStructure *st = gst_caps_get_structure (caps, 0);
  gst_structure_get_int (st, "width", &s.w);
  gst_structure_get_int (st, "height", &s.h);
  gst_structure_get_fraction (st, "pixel-aspect-ratio", &s.par_n, &s.par_d);
  gst_caps_unref (caps);
  return s;
}

/* Size and pixel aspect ratio negotiate as videoscale's (gst-plugins-base):
 * the display aspect ratio kept by choosing the pixel aspect ratio when
 * downstream leaves it open, the free dimension when it fixes it; both
 * pipelines built and their caps compared. Where videoscale 1.22 does not
 * keep the display aspect ratio (a fixed pixel aspect ratio other than 1/1
 * and no size: it multiplies by the ratio instead of dividing), and for a
 * turned picture, the expected size is the table's. */
GST_START_TEST (test_fixation_as_videoscale)
{
  struct Case { const char *in, *out, *props; Size expected; };
  const std::string hd = "video/x-raw,format=RGBA,width=640,height=360,pixel-aspect-ratio=1/1";
  const std::string pal = "video/x-raw,format=RGBA,width=720,height=576,pixel-aspect-ratio=16/15";
  const std::string ntsc = "video/x-raw,format=RGBA,width=720,height=480,pixel-aspect-ratio=8/9";
  const Size videoscale;   /* (w = 0: compare with videoscale) */
  const Case cases[] = {
    {hd.c_str (), "video/x-raw,width=320,height=240", "", videoscale},
    {hd.c_str (), "video/x-raw,width=320", "", videoscale},
    {hd.c_str (), "video/x-raw,height=180", "", videoscale},
    {hd.c_str (), "video/x-raw,width=320,height=240,pixel-aspect-ratio=1/1", "", videoscale},
    {hd.c_str (), "video/x-raw,width=320,pixel-aspect-ratio=1/1", "", videoscale},
    {hd.c_str (), "video/x-raw,height=240,pixel-aspect-ratio=1/1", "", videoscale},
    {hd.c_str (), "video/x-raw,width=[100,200]", "", videoscale},
    {hd.c_str (), "video/x-raw,format=RGBA", "", videoscale},
    {pal.c_str (), "video/x-raw,width=1024", "", videoscale},
    {pal.c_str (), "video/x-raw,width=640,height=480", "", videoscale},
    {pal.c_str (), "video/x-raw,pixel-aspect-ratio=1/1", "", videoscale},
    {ntsc.c_str (), "video/x-raw,height=240", "", videoscale},
    {ntsc.c_str (), "video/x-raw,width=640,height=480,pixel-aspect-ratio=1/1", "", videoscale},
    {hd.c_str (), "video/x-raw,pixel-aspect-ratio=4/3", "", {480, 360, 4, 3}},
    {pal.c_str (), "video/x-raw,pixel-aspect-ratio=2/1", "", {384, 576, 2, 1}},
    {hd.c_str (), "video/x-raw,width=180", "video-direction=90r", {180, 640, 2, 1}},
    {hd.c_str (), "video/x-raw,width=180,pixel-aspect-ratio=1/1", "video-direction=90l",
     {180, 320, 1, 1}},
  };
  for (const Case &c : cases) {
    const Size got = size_of (negotiated (c.in, std::string ("clconvert ") + c.props, c.out));
    const Size want = c.expected.w ? c.expected : size_of (negotiated (c.in, "videoscale",
            c.out));
    fail_unless (got == want, "%s ! clconvert %s ! %s: %s, %s %s", c.in, c.props, c.out,
        got.text ().c_str (), c.expected.w ? "expected" : "videoscale", want.text ().c_str ());
  }
}
GST_END_TEST

/* The output caps say what the bytes are, as videoconvert's do: the
 * colorimetry of the input within a family (Y'CbCr, RGB, grey), across
 * families GStreamer's default for the output with the input's transfer
 * function and primaries (grey: BT.601, never an RGB input's matrix);
 * compared with videoconvert's where the input names one (videoconvertscale's
 * where the size changes). Y'CbCr output:
 * chroma-site "jpeg" (the kernel writes the mean of each block, centred),
 * whatever the input's siting. Input caps without a colorimetry: the
 * output names the one the element used. */
GST_START_TEST (test_output_colorimetry)
{
  struct Case { const char *in, *out, *expected; };
  static const Case cases[] = {
    {"format=RGBA,width=320,height=240,colorimetry=sRGB", "format=GRAY8", nullptr},
    {"format=RGBA,width=320,height=240,colorimetry=sRGB", "format=NV12", nullptr},
    {"format=RGBA,width=1280,height=720,colorimetry=sRGB", "format=NV12", nullptr},
    {"format=NV12,width=320,height=240,colorimetry=bt709", "format=RGBA", nullptr},
    {"format=NV12,width=320,height=240,colorimetry=bt709,chroma-site=mpeg2", "format=I420",
     nullptr},
    {"format=NV12,width=320,height=240,colorimetry=bt709", "format=GRAY8", nullptr},
    {"format=GRAY8,width=320,height=240,colorimetry=1:4:0:0", "format=I420", nullptr},
    {"format=YUY2,width=320,height=240,colorimetry=bt601", "format=UYVY,width=160,height=120",
     nullptr},
    /* no colorimetry in: videoconvert names none; clconvert the one it used */
    {"format=NV12,width=1280,height=720", "format=RGBA", "1:1:5:1"},
    {"format=NV12,width=1280,height=720", "format=NV12,width=640,height=360", "bt709"},
    {"format=RGBA,width=320,height=240", "format=GRAY8", "1:4:7:1"},
  };
  for (const Case &c : cases) {
    const std::string in = std::string ("video/x-raw,") + c.in;
    const std::string out = std::string ("video/x-raw,") + c.out;
    GstCaps *caps = negotiated (in, "clconvert", out);
    const GstStructure *s = gst_caps_get_structure (caps, 0);
    const std::string what = in + " ! clconvert ! " + out;
    GstVideoInfo info;
    fail_unless (gst_video_info_from_caps (&info, caps));
    const char *col = gst_structure_get_string (s, "colorimetry");
    fail_unless (col != nullptr, "%s: no colorimetry", what.c_str ());
    GstVideoColorimetry got, want;
    fail_unless (gst_video_colorimetry_from_string (&got, col));
    std::string want_text;
    if (c.expected) {
      want_text = c.expected;
    } else {
      /* (videoconvert does not scale: videoconvertscale, the same rule) */
      GstCaps *vc = negotiated (in, strstr (c.out, "width") ? "videoconvertscale" :
          "videoconvert", out);
      const char *v = gst_structure_get_string (gst_caps_get_structure (vc, 0), "colorimetry");
      fail_unless (v != nullptr, "%s: videoconvert names no colorimetry", what.c_str ());
      want_text = v;
      gst_caps_unref (vc);
    }
    fail_unless (gst_video_colorimetry_from_string (&want, want_text.c_str ()));
    fail_unless (gst_video_colorimetry_is_equal (&got, &want), "%s: colorimetry %s, not %s",
        what.c_str (), col, want_text.c_str ());
    if (GST_VIDEO_INFO_IS_GRAY (&info))
      fail_unless_equals_int (got.matrix, GST_VIDEO_COLOR_MATRIX_BT601);
    if (GST_VIDEO_INFO_IS_YUV (&info)) {
      fail_unless_equals_string (gst_structure_get_string (s, "chroma-site"), "jpeg");
    } else {
      fail_if (gst_structure_has_field (s, "chroma-site"), "%s: chroma-site", what.c_str ());
    }
    gst_caps_unref (caps);
  }
}
GST_END_TEST

/* The same caps on both sides: passthrough, the input buffer itself; a
 * flip set while playing ends it, identity brings it back. */
GST_START_TEST (test_passthrough)
{
  GstElement *conv;
  GstHarness *h = convert_harness (false, &conv);
  gst_harness_set_src_caps_str (h, caps_string ("NV12", 6, 4).c_str ());
  GstVideoInfo info = video_info ("NV12", 6, 4);
  GstBuffer *in = random_frame (&info, 0, 5);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull (h);
  fail_unless (out == in, "not passed through");
  gst_buffer_unref (out);
  g_object_set (conv, "video-direction", GST_VIDEO_ORIENTATION_VERT, nullptr);
  gst_buffer_unref (check_frame (h, caps_string ("NV12", 6, 4), 0, 6, BILINEAR, 5, "vert"));
  g_object_set (conv, "video-direction", GST_VIDEO_ORIENTATION_IDENTITY, nullptr);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out == in, "not passed through after the flip");
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_object_unref (conv);
  gst_harness_teardown (h);
}
GST_END_TEST

/* Input caps change mid-stream: format and size. */
GST_START_TEST (test_midstream_input_change)
{
  GstElement *conv;
  GstHarness *h = convert_harness (false, &conv, "add-borders=false");
  set_output (h, out_caps ("I420", 10, 6, false));
  uint32_t seed = 80000;
  for (const char *fmt : { "RGBA", "UYVY", "GRAY8", "NV12" })
    for (auto s : { std::pair<int, int> {10, 6}, {13, 3} })
      gst_buffer_unref (check_frame (h, caps_string (fmt, s.first, s.second), 2, seed++,
              BILINEAR, 0, std::string ("midstream ") + fmt));
  gst_object_unref (conv);
  gst_harness_teardown (h);
}
GST_END_TEST

/* clupload ! clconvert ! clconvert ! cldownload: each frame up and down
 * once. */
GST_START_TEST (test_chain_transfers)
{
  const guint frames = 6;
  const char *desc = "videotestsrc num-buffers=6 ! video/x-raw,format=YUY2,width=64,height=48 ! "
      "clupload ! clconvert ! video/x-raw(memory:OpenCLMemory),format=RGBA,width=40,height=30 ! "
      "clconvert video-direction=90l ! video/x-raw(memory:OpenCLMemory),format=NV12 ! "
      "cldownload ! fakesink name=sink";
  GstClMemoryStats before, after;
  gst_cl_memory_get_stats (&before);
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  fail_unless (pipeline != nullptr, "%s", error ? error->message : "");
  play_to_eos (pipeline, "chain");
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  gst_cl_memory_get_stats (&after);
  fail_unless_equals_uint64 (after.uploads - before.uploads, frames);
  fail_unless_equals_uint64 (after.downloads - before.downloads, frames);
}
GST_END_TEST

/* video-direction=custom (no matrix to take) stops the launch line, named. */
GST_START_TEST (test_custom_direction_refused)
{
  check_refused_at_start ("videotestsrc num-buffers=1 ! clconvert video-direction=custom ! "
      "fakesink", "video-direction", "custom", 1);
}
GST_END_TEST

static Suite *
convert_suite (void)
{
  Suite *s = suite_create ("clconvert");
  /* (restore_tuning drops the shared context after each test too) */
  TCase *tc = tuning_tcase (s);
  tcase_add_test (tc, test_pairs_0);
  tcase_add_test (tc, test_pairs_1);
  tcase_add_test (tc, test_pairs_2);
  tcase_add_test (tc, test_pairs_3);
  tcase_add_test (tc, test_pairs_4);
  tcase_add_test (tc, test_pairs_5);
  tcase_add_test (tc, test_pairs_6);
  tcase_add_test (tc, test_pairs_7);
  tcase_add_test (tc, test_pairs_8);
  tcase_add_test (tc, test_pairs_9);
  tcase_add_test (tc, test_pairs_10);
  tcase_add_test (tc, test_pairs_11);
  tcase_add_test (tc, test_pairs_12);
  tcase_add_test (tc, test_pairs_13);
  tcase_add_test (tc, test_pairs_14);
  tcase_add_test (tc, test_pairs_15);
  tcase_add_test (tc, test_pairs_16);
  tcase_add_test (tc, test_yuv_rgb4_blocks);
  tcase_add_test (tc, test_rgb4_420_blocks);
  tcase_add_test (tc, test_colorimetry);
  tcase_add_test (tc, test_scaling);
  tcase_add_test (tc, test_directions);
  tcase_add_test (tc, test_direction_exact);
  tcase_add_test (tc, test_direction_auto);
  tcase_add_test (tc, test_add_borders);
  tcase_add_test (tc, test_fixation_as_videoscale);
  tcase_add_test (tc, test_output_colorimetry);
  tcase_add_test (tc, test_passthrough);
  tcase_add_test (tc, test_midstream_input_change);
  tcase_add_test (tc, test_chain_transfers);
  tcase_add_test (tc, test_custom_direction_refused);
  return s;
}

GST_CHECK_MAIN (convert);
