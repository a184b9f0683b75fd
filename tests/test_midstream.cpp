/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Caps and properties changed while PLAYING, for every element: size, format,
 * Bayer pattern and depth, kernel size, clsobel settings, clkernel source;
 * shrink then grow. Every output buffer must match its caps (size,
 * GstVideoMeta) and equal, byte for byte, the output of a fresh element started
 * directly with those caps and properties on the same input: no stale device
 * buffer, no old kernel variant, no lost frame, and the first buffer after a
 * change already uses it. Run with system-memory input, OpenCL input
 * (clupload ! X) and in device chains (clupload ! X ! Y ! cldownload). */
#include "cltest.h"

#include <gst/opencl/opencl.h>
#include <gst/opencl/gstcl.hpp>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

using namespace cltest;

/* One stretch of the stream: the caps pushed and the properties set at its
 * start ("name=value", as gst-launch takes them, on the element named "x");
 * earlier steps' properties stay in force. */
struct Step {
  std::string caps;
  std::vector<std::string> props;
};

struct Case {
  const char *desc;    /* bin description; the element changed is name=x */
  std::vector<Step> steps;
  bool identity;       /* the output is the input (clupload, cldownload) */
};

static const int kFramesPerStep = 3;

/* A harness around the bin `desc`, on the shared context (programs built
 * once), with `props` set on "x" before it starts. */
static GstHarness *
harness_for (const char *desc, const std::vector<std::string> &props)
{
  GError *err = nullptr;
  GstElement *bin = gst_parse_bin_from_description (desc, TRUE, &err);
  fail_unless (bin && !err, "%s: %s", desc, err ? err->message : "");
  cltest::share_context (bin);
  GstElement *x = gst_bin_get_by_name (GST_BIN (bin), "x");
  if (x) {
    for (const std::string &p : props) {
      size_t eq = p.find ('=');
      gst_util_set_object_arg (G_OBJECT (x), p.substr (0, eq).c_str (),
          p.substr (eq + 1).c_str ());
    }
    gst_object_unref (x);
  }
  GstHarness *h = gst_harness_new_with_element (bin, "sink", "src");
  gst_object_unref (bin);
  return h;
}

static void
set_props (GstHarness * h, const std::vector<std::string> &props)
{
  GstElement *x = gst_bin_get_by_name (GST_BIN (h->element), "x");
  fail_unless (x != nullptr);
  for (const std::string &p : props) {
    size_t eq = p.find ('=');
    gst_util_set_object_arg (G_OBJECT (x), p.substr (0, eq).c_str (),
        p.substr (eq + 1).c_str ());
  }
  gst_object_unref (x);
}

/* Bytes per sample of a Bayer format: 1 for 8-bit, 2 for 10..16-bit. */
static int
bayer_bytes (const GstStructure * s)
{
  const char *f = gst_structure_get_string (s, "format");
  return strlen (f) > 4 ? 2 : 1;
}

/* The layout of `caps` as GStreamer producers use it: GstVideoInfo for raw
 * video; rows of width rounded up to 4 bytes for Bayer. */
struct Layout {
  bool bayer = false;
  GstVideoInfo info;
  int width = 0, height = 0, row_bytes = 0, stride = 0;
};

static Layout
layout_of (GstCaps * caps)
{
  Layout l;
  const GstStructure *s = gst_caps_get_structure (caps, 0);
  gst_structure_get_int (s, "width", &l.width);
  gst_structure_get_int (s, "height", &l.height);
  if (gst_structure_has_name (s, "video/x-bayer")) {
    l.bayer = true;
    l.row_bytes = l.width * bayer_bytes (s);
    l.stride = (l.row_bytes + 3) & ~3;
  } else {
    fail_unless (gst_video_info_from_caps (&l.info, caps));
  }
  return l;
}

/* A random input frame for `caps`; raw video in a padded layout with
 * GstVideoMeta (odd strides). */
static GstBuffer *
input_frame (GstCaps * caps, uint32_t seed)
{
  Layout l = layout_of (caps);
  if (!l.bayer)
    return random_frame (&l.info, 3, seed);
  GstVideoInfo gray = video_info ("GRAY8", l.stride, l.height);
  return random_frame (&gray, 0, seed);
}

/* The visible bytes of `buf` (padding dropped), checking that the buffer
 * holds a frame of `caps`. */
static std::vector<guint8>
visible_bytes (GstBuffer * buf, GstCaps * caps, const char *what)
{
  Layout l = layout_of (caps);
  std::vector<guint8> out;
  if (l.bayer) {
    fail_unless (gst_buffer_get_size (buf) >= (gsize) l.stride * l.height,
        "%s: %" G_GSIZE_FORMAT " bytes for %dx%d Bayer", what, gst_buffer_get_size (buf),
        l.width, l.height);
    GstMapInfo map;
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    for (int y = 0; y < l.height; y++)
      out.insert (out.end (), map.data + (gsize) y * l.stride,
          map.data + (gsize) y * l.stride + l.row_bytes);
    gst_buffer_unmap (buf, &map);
    return out;
  }
  GstVideoMeta *meta = gst_buffer_get_video_meta (buf);
  if (gst_is_cl_memory (gst_buffer_peek_memory (buf, 0)))
    fail_unless (meta != nullptr, "%s: OpenCL output without GstVideoMeta", what);
  if (meta) {
    fail_unless_equals_int (meta->width, l.width);
    fail_unless_equals_int (meta->height, l.height);
    fail_unless_equals_int (meta->format, GST_VIDEO_INFO_FORMAT (&l.info));
  } else {
    fail_unless (gst_buffer_get_size (buf) >= GST_VIDEO_INFO_SIZE (&l.info),
        "%s: %" G_GSIZE_FORMAT " bytes, %" G_GSIZE_FORMAT " needed", what,
        gst_buffer_get_size (buf), GST_VIDEO_INFO_SIZE (&l.info));
  }
  GstVideoFrame frame;
  fail_unless (gst_video_frame_map (&frame, &l.info, buf, GST_MAP_READ), "%s: map", what);
  const GstVideoFormatInfo *finfo = l.info.finfo;
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++) {
    int row_bytes = 0, rows = 0;
    for (guint c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); c++)
      if (GST_VIDEO_FORMAT_INFO_PLANE (finfo, c) == p) {
        row_bytes = MAX (row_bytes, GST_VIDEO_FRAME_COMP_WIDTH (&frame, c) *
            GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, c));
        rows = GST_VIDEO_FRAME_COMP_HEIGHT (&frame, c);
      }
    const guint8 *base = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, p);
    for (int y = 0; y < rows; y++) {
      const guint8 *row = base + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p);
      out.insert (out.end (), row, row + row_bytes);
    }
  }
  gst_video_frame_unmap (&frame);
  return out;
}

struct Output {
  GstCaps *caps;
  std::vector<guint8> bytes;
};

/* Pushes `in` (ref taken) and pulls its output, with the caps it came with.
 * A program that a property change needs builds in the background and
 * serves from the first frame after it is ready: when `in` started such a
 * build, it is pushed again once the build is over. */
static Output
push_pull (GstHarness * h, GstBuffer * in, const char *what)
{
  GstClockTime pts = GST_BUFFER_PTS (in);
  GstBuffer *out = push_built (h, gst_buffer_ref (in));
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), pts);
  Output o;
  o.caps = gst_pad_get_current_caps (h->sinkpad);
  o.bytes = visible_bytes (out, o.caps, what);
  gst_buffer_unref (out);
  return o;
}

static void
run_case (const Case & c)
{
  GstHarness *live = harness_for (c.desc, c.steps[0].props);
  std::vector<guint8> previous_ref;
  std::string previous_caps;
  guint32 seed = 1;
  for (size_t i = 0; i < c.steps.size (); i++) {
    const Step &st = c.steps[i];
    gchar *what = g_strdup_printf ("%s, step %zu (%s)", c.desc, i, st.caps.c_str ());
    GST_INFO ("%s", what);
    gst_harness_set_src_caps_str (live, st.caps.c_str ());
    set_props (live, st.props);
    std::vector<std::string> all_props;  /* what the live element has now */
    for (size_t j = 0; j <= i; j++)
      all_props.insert (all_props.end (), c.steps[j].props.begin (), c.steps[j].props.end ());
    GstHarness *fresh = harness_for (c.desc, all_props);
    gst_harness_set_src_caps_str (fresh, st.caps.c_str ());
    GstCaps *incaps = gst_caps_from_string (st.caps.c_str ());
    for (int f = 0; f < kFramesPerStep; f++, seed++) {
      GstBuffer *in = input_frame (incaps, seed);
      GST_BUFFER_PTS (in) = seed * GST_MSECOND;
      Output got = push_pull (live, in, what);
      Output want = push_pull (fresh, in, what);
      fail_unless (gst_caps_is_equal (got.caps, want.caps), "%s: caps %" GST_PTR_FORMAT
          ", a fresh element gives %" GST_PTR_FORMAT, what, got.caps, want.caps);
      fail_unless (got.bytes == want.bytes, "%s, frame %d: output differs from a fresh "
          "element's (stale buffer or settings)", what, f);
      if (c.identity)
        fail_unless (got.bytes == visible_bytes (in, incaps, what),
            "%s: output is not the input", what);
      /* A property-only change must show, or the step tests nothing. */
      if (f == 0 && i > 0 && st.caps == previous_caps)
        fail_if (want.bytes == previous_ref, "%s: the change has no visible effect", what);
      if (f == 0)
        previous_ref = want.bytes;
      gst_caps_unref (got.caps);
      gst_caps_unref (want.caps);
      gst_buffer_unref (in);
    }
    previous_caps = st.caps;
    gst_caps_unref (incaps);
    gst_harness_teardown (fresh);
    g_free (what);
  }
  gst_harness_teardown (live);
}

static std::string
raw (const char *format, int w, int h)
{
  return caps_string (format, w, h);
}

static std::string
bayer (const char *format, int w, int h)
{
  return std::string ("video/x-bayer,format=") + format + ",width=" + std::to_string (w) +
      ",height=" + std::to_string (h) + ",framerate=30/1";
}

/* Sizes and formats for the identity elements, shrink then grow included. */
static std::vector<Step>
transfer_steps ()
{
  return {{raw ("RGBA", 67, 33), {}}, {raw ("GRAY8", 15, 9), {}},
    {bayer ("rggb", 66, 34), {}}, {raw ("RGB", 1, 1), {}}, {raw ("NV12", 160, 120), {}},
    {bayer ("gbrg12le", 30, 10), {}}};
}

/* Runs every case with system-memory input ("X") and OpenCL input
 * ("clupload ! X"). */
static void
run_both_memories (const char *element, std::vector<Step> steps, bool identity = false)
{
  std::string sys = std::string (element) + " name=x";
  std::string cl = "clupload ! " + sys;
  run_case ({sys.c_str (), steps, identity});
  run_case ({cl.c_str (), steps, identity});
}

GST_START_TEST (test_upload_download)
{
  run_both_memories ("clupload", transfer_steps (), true);
  run_both_memories ("cldownload", transfer_steps (), true);
  run_case ({"clupload name=x ! cldownload", transfer_steps (), true});
}
GST_END_TEST

GST_START_TEST (test_sobel)
{
  const std::vector<std::string> base = {"output=magnitude", "norm=l2", "scale=1",
    "threshold=0", "border=replicate"};
  auto with = [&] (std::vector<std::string> extra) {
    std::vector<std::string> p = base;
    p.insert (p.end (), extra.begin (), extra.end ());
    return p;
  };
  run_both_memories ("clsobel", {
    {raw ("GRAY8", 33, 17), base},
    {raw ("GRAY8", 33, 17), with ({"output=dx"})},
    {raw ("GRAY8", 33, 17), with ({"norm=l1"})},
    {raw ("RGBA", 67, 33), with ({"norm=l1", "scale=0.25"})},
    {raw ("RGBA", 67, 33), with ({"threshold=100"})},
    {raw ("I420", 16, 16), with ({"border=constant"})},
    {raw ("BGR", 3, 2), with ({"border=reflect", "output=dy"})},
    {raw ("GRAY8", 200, 100), base},
  });
}
GST_END_TEST

static const char *k3 = "kernel=<1,2,1,2,4,2,1,2,1>";
static const char *k7 = "kernel=<1,0,0,0,0,0,2, 0,1,0,0,0,2,0, 0,0,1,0,2,0,0, "
    "0,0,0,9,0,0,0, 0,0,2,0,1,0,0, 0,2,0,0,0,1,0, 2,0,0,0,0,0,1>";
static const char *k1 = "kernel=<1>";
static const char *k5 = "kernel=<0,0,-1,0,0, 0,-1,-2,-1,0, -1,-2,17,-2,-1, "
    "0,-1,-2,-1,0, 0,0,-1,0,0>";

GST_START_TEST (test_convolve)
{
  /* 3x3 -> 7x7 -> 1x1 -> 5x5 at one size, then with format and size
   * changes. A 1x1 of 1 is the identity: bias makes it visible. */
  run_both_memories ("clconvolve", {
    {raw ("RGBA", 67, 33), {k3}},
    {raw ("RGBA", 67, 33), {k7}},
    {raw ("RGBA", 67, 33), {k1, "bias=5"}},
    {raw ("RGBA", 67, 33), {k5, "bias=0"}},
    {raw ("GRAY8", 64, 48), {k5, "border=reflect"}},
    {raw ("GRAY8", 16, 4), {k3, "border=constant"}},
    {raw ("BGR", 129, 65), {k7, "normalize=false", "bias=-100"}},
    {raw ("RGBx", 1, 1), {k3}},
  });
}
GST_END_TEST

GST_START_TEST (test_fir)
{
  run_both_memories ("clfir", {
    {raw ("GRAY8", 67, 33), {}},
    {raw ("GRAY8", 67, 33), {"border=constant"}},
    {raw ("GRAY8", 67, 33), {"coefficients=<0,0,0,0,2,0,0,0,0>"}},
    {raw ("ARGB", 20, 10), {"coefficients=<0,0,0,0,2,0,0,0,0>"}},
    {raw ("RGB", 5, 3), {"border=reflect"}},
    {raw ("BGRA", 160, 120), {}},
  });
}
GST_END_TEST

static const char *invert = "source=float4 filter (image_t img, int x, int y) "
    "{ float4 p = read_pixel (img, x, y); return (float4) (1.0f - p.xyz, p.w); }";
static const char *ramp = "source=float4 filter (image_t img, int x, int y) "
    "{ return (float4) (x / 255.0f, y / 255.0f, LEVEL, 1.0f); }";

GST_START_TEST (test_clkernel)
{
  run_both_memories ("clkernel", {
    {raw ("RGBA", 67, 33), {}},
    {raw ("RGBA", 67, 33), {invert}},
    {raw ("RGBA", 67, 33), {ramp, "build-options=-D LEVEL=0.5f"}},
    {raw ("RGBA", 67, 33), {ramp, "build-options=-D LEVEL=0.25f"}},
    {raw ("GRAY8", 31, 7), {invert, "build-options="}},
    {raw ("xBGR", 200, 3), {invert}},
  });
}
GST_END_TEST

GST_START_TEST (test_debayer)
{
  run_both_memories ("cldebayer", {
    {bayer ("bggr", 66, 34), {}},
    {bayer ("rggb", 66, 34), {}},
    {bayer ("gbrg", 66, 34), {"method=bilinear"}},
    {bayer ("grbg", 20, 8), {"method=bilinear"}},
    {bayer ("rggb10le", 20, 8), {"method=malvar"}},
    {bayer ("bggr16le", 2, 2), {}},
    {bayer ("grbg", 160, 120), {}},
  });
}
GST_END_TEST

/* The elements the tests above change; each other element of the plugin
 * runs test_other_elements. */
static const char *const kOwnCases[] = {"clupload", "cldownload", "clsobel", "clconvolve",
  "clfir", "clkernel", "cldebayer"};

/* Every other element, from the registry (a new one, and clconvert, whose
 * property changes test_convert checks): format and size changes with its
 * default properties, the first and last formats of its sink template. */
GST_START_TEST (test_other_elements)
{
  for (const std::string & name : plugin_elements ()) {
    if (std::find (std::begin (kOwnCases), std::end (kOwnCases), name) != std::end (kOwnCases))
      continue;
    const std::vector<std::string> formats = template_formats (name);
    run_both_memories (name.c_str (), {
      {caps_string (formats.front (), 67, 33), {}},
      {caps_string (formats.back (), 16, 8), {}},
      {caps_string (formats.front (), 200, 100), {}},
    });
  }
}
GST_END_TEST

/* The caps change upstream of clupload and travels down a device chain. */
GST_START_TEST (test_device_chains)
{
  run_case ({"clupload ! clsobel name=x ! clconvolve kernel=<1,2,1,2,4,2,1,2,1> ! cldownload", {
    {raw ("RGBA", 67, 33), {}},
    {raw ("GRAY8", 16, 8), {"output=dx"}},
    {raw ("I420", 128, 96), {"border=reflect"}},
  }, false});
  run_case ({"clupload ! cldebayer ! clkernel name=x ! clfir ! cldownload", {
    {bayer ("rggb", 66, 34), {}},
    {bayer ("bggr", 10, 6), {invert}},
    {bayer ("grbg", 40, 20), {"source="}},
    {bayer ("gbrg", 160, 120), {}},
  }, false});
  run_case ({"clupload ! clconvolve name=x ! clsobel ! cldownload", {
    {raw ("RGBA", 32, 32), {k3}},
    {raw ("RGBA", 32, 32), {k7}},
    {raw ("RGBA", 32, 32), {k1}},
    {raw ("RGBA", 32, 32), {k5}},
    {raw ("BGRx", 8, 4), {k7}},
    {raw ("BGRx", 100, 60), {k3}},
  }, false});
}
GST_END_TEST

static Suite *
midstream_suite (void)
{
  Suite *s = suite_create ("midstream");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, nullptr, cltest::drop_shared_context);
  tcase_add_test (tc, test_upload_download);
  tcase_add_test (tc, test_sobel);
  tcase_add_test (tc, test_convolve);
  tcase_add_test (tc, test_fir);
  tcase_add_test (tc, test_clkernel);
  tcase_add_test (tc, test_debayer);
  tcase_add_test (tc, test_other_elements);
  tcase_add_test (tc, test_device_chains);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (midstream_suite (), "midstream", __FILE__) ? 1 : 0;
}
