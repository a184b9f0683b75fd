/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Size sweep of every element against the CPU references: every width 1..65
 * with heights 1, 2, 3 and 17 (Bayer from 2x2) for every format of every
 * element's sink template. One harness per element and format, whose caps
 * change at every frame; input alternately in GStreamer's default layout and
 * in padded rows described by a GstVideoMeta, in system memory and, for a
 * subset, in OpenCL memory. Downstream proposes GstVideoMeta for half of the
 * sweep only: without it, output buffers must have the default layout.
 * Also: a 1-pixel Bayer frame is refused with a message, and a buffer shorter
 * than its caps say is an error with no output, for every element. */
#include "cltest.h"
#include "ref_clkernel.h"
#include "ref_convolve.h"
#include "ref_debayer.h"
#include "ref_sobel.h"

#include <gst/opencl/gstclcontext.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>

using namespace cltest;

static const int kMaxWidth = 65;
static const int kHeights[] = {1, 2, 3, 17};

/* element/format/size combinations checked, printed at the end of each test */
static long combinations = 0;

static void
report (const char *what)
{
  std::printf ("%s: %ld element/format/size combinations checked\n", what, combinations);
  GST_INFO ("%s: %ld element/format/size combinations checked", what, combinations);
  combinations = 0;
}


/* A harness around `launch`, whose element under test is named "e", with
 * its messages on `bus`. */
struct Harness {
  GstHarness *h;
  GstElement *e;
  GstBus *bus;

  explicit Harness (const std::string & launch)
  {
    GError *error = nullptr;
    GstElement *bin = gst_parse_bin_from_description (launch.c_str (), TRUE, &error);
    fail_unless (bin != nullptr, "%s: %s", launch.c_str (), error ? error->message : "");
    gst_object_ref_sink (bin);
    share_context (bin);
    e = gst_bin_get_by_name (GST_BIN (bin), "e");
    fail_unless (e != nullptr);
    bus = gst_bus_new ();
    gst_element_set_bus (bin, bus);
    h = gst_harness_new_with_element (bin, "sink", "src");
    gst_object_unref (bin);
  }
  ~Harness ()
  {
    gst_element_set_bus (h->element, nullptr);
    gst_object_unref (bus);
    gst_object_unref (e);
    gst_harness_teardown (h);
  }
  /* The text of the first error on the bus, "" if none; drops the others. */
  std::string error ()
  {
    std::string text;
    while (GstMessage * msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR)) {
      GError *err = nullptr;
      gst_message_parse_error (msg, &err, nullptr);
      if (text.empty ())
        text = err->message;
      g_error_free (err);
      gst_message_unref (msg);
    }
    return text;
  }
};

/* ------------------------------------------------------------- layouts */

/* GStreamer's default layout of `format` (Bayer: GRAY8 or GRAY16_LE rows
 * rounded up to 4 bytes, as producers and bayer2rgb use). */
static GstVideoInfo
default_layout (const std::string & format, int w, int h)
{
  if (!is_bayer (format))
    return video_info (format.c_str (), w, h);
  return video_info (format.size () > 4 ? "GRAY16_LE" : "GRAY8", w, h);
}

/* The layout of `out`: the default one, with the strides and offsets of its
 * GstVideoMeta if it has one. */
static GstVideoInfo
layout_of (GstBuffer * out, const GstVideoInfo & defaults)
{
  GstVideoInfo layout = defaults;
  if (GstVideoMeta * meta = gst_buffer_get_video_meta (out))
    for (guint p = 0; p < meta->n_planes; p++) {
      GST_VIDEO_INFO_PLANE_OFFSET (&layout, p) = meta->offset[p];
      GST_VIDEO_INFO_PLANE_STRIDE (&layout, p) = meta->stride[p];
    }
  return layout;
}

/* Downstream that does not take GstVideoMeta must get the default layout:
 * the default size, and a meta (if any) with the default strides. */
static void
check_default_layout (GstBuffer * out, const GstVideoInfo & defaults, const char *what)
{
  fail_unless_equals_uint64 (gst_buffer_get_size (out), GST_VIDEO_INFO_SIZE (&defaults));
  if (GstVideoMeta * meta = gst_buffer_get_video_meta (out))
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&defaults); p++) {
      fail_unless (meta->stride[p] == GST_VIDEO_INFO_PLANE_STRIDE (&defaults, p) &&
          meta->offset[p] == GST_VIDEO_INFO_PLANE_OFFSET (&defaults, p),
          "%s: plane %u stride %d offset %" G_GSIZE_FORMAT " for a downstream without "
          "GstVideoMeta", what, p, meta->stride[p], meta->offset[p]);
    }
}

/* ------------------------------------------------------------- the sweep */

/* One element and format: what to build, how to make a frame and how to
 * check the output against the reference. */
struct Case {
  std::string label;          /* for messages */
  std::string launch;         /* element under test named "e" */
  std::string format;         /* input format */
  std::string sink_caps;      /* "" leaves the output caps to the element */
  int min_size = 1;           /* smallest width and height */
  /* Once, after the harness is made. */
  std::function<void (GstElement *)> init;
  /* Before each frame: properties (may change per frame). */
  std::function<void (GstElement *, int w, int h)> configure;
  /* The input frame; `layout` receives its real layout. */
  std::function<GstBuffer *(int w, int h, int pad, uint32_t seed, GstVideoInfo *layout)> input;
  /* Checks `out` (negotiated as `out_caps`) against the reference of `in`. */
  std::function<void (GstBuffer *in, const GstVideoInfo &layout, GstBuffer *out,
      GstCaps *out_caps, const std::string &what)> check;
};

/* Random bytes in `format`, padded rows with a GstVideoMeta when pad > 0. */
static GstBuffer *
random_input (const std::string & format, int w, int h, int pad, uint32_t seed,
    GstVideoInfo * layout)
{
  GstVideoInfo info = default_layout (format, w, h);
  return random_frame (&info, pad, seed, layout);
}

/* Runs every width 1..65 (from min_size) with heights 1, 2, 3, 17 through
 * one harness. Downstream proposes GstVideoMeta from the third height on;
 * `reverse` sweeps the heights in reverse order, so that every height is
 * covered with and without meta support over the formats. */
static void
sweep (const Case & c, bool reverse)
{
  Harness h (c.launch);
  if (!c.sink_caps.empty ())
    gst_harness_set_sink_caps_str (h.h, c.sink_caps.c_str ());
  if (c.init)
    c.init (h.e);
  std::vector<int> heights (std::begin (kHeights), std::end (kHeights));
  if (reverse)
    std::reverse (heights.begin (), heights.end ());
  uint32_t seed = std::hash<std::string> {} (c.label) & 0xffff;
  for (size_t hi = 0; hi < heights.size (); hi++) {
    const int hgt = heights[hi];
    const bool meta_downstream = hi >= 2;
    if (hi == 2)
      gst_harness_add_propose_allocation_meta (h.h, GST_VIDEO_META_API_TYPE, nullptr);
    if (hgt < c.min_size)
      continue;
    for (int w = c.min_size; w <= kMaxWidth; w++) {
      /* Under the analysis tools: the widths around every 16 (the kernels'
       * vector widths and alignments) and the smallest ones. */
      if (small_only () && w > 5 && w % 16 != 0 && w % 16 != 1 && w % 16 != 15)
        continue;
      seed++;
      const int pad = (w + hgt) % 2 ? 1 + (int) (seed % 13) : 0;
      char what[160];
      g_snprintf (what, sizeof what, "%s %dx%d pad %d, downstream %s GstVideoMeta",
          c.label.c_str (), w, hgt, pad, meta_downstream ? "with" : "without");
      gst_harness_set_src_caps_str (h.h, caps_string (c.format, w, hgt).c_str ());
      if (c.configure)
        c.configure (h.e, w, hgt);
      GstVideoInfo layout;
      GstBuffer *in = c.input (w, hgt, pad, seed, &layout);
      GST_BUFFER_PTS (in) = seed * GST_MSECOND;
      gst_buffer_ref (in);
      const GstFlowReturn ret = gst_harness_push (h.h, in);
      fail_unless (ret == GST_FLOW_OK, "%s: %s (%s)", what, gst_flow_get_name (ret),
          h.error ().c_str ());
      GstBuffer *out = gst_harness_pull (h.h);
      fail_unless (out != nullptr, "%s: no output", what);
      fail_unless_equals_uint64 (GST_BUFFER_PTS (out), seed * GST_MSECOND);

      GstCaps *out_caps = gst_pad_get_current_caps (h.h->sinkpad);
      const GstStructure *s = gst_caps_get_structure (out_caps, 0);
      int ow = 0, oh = 0;
      gst_structure_get_int (s, "width", &ow);
      gst_structure_get_int (s, "height", &oh);
      fail_unless (ow == w && oh == hgt, "%s: output %dx%d", what, ow, oh);
      const GstVideoInfo defaults = default_layout (gst_structure_get_string (s, "format"),
          w, hgt);
      if (!meta_downstream)
        check_default_layout (out, defaults, what);
      c.check (in, layout, out, out_caps, what);
      gst_caps_unref (out_caps);
      gst_buffer_unref (in);
      gst_buffer_unref (out);
      fail_unless (h.error ().empty ());
      combinations++;
    }
  }
}

/* ------------------------------------------------------------- clupload, cldownload */

/* Every visible byte of every plane of `out` equals that of `in`. */
static void
check_identity (GstBuffer * in, const GstVideoInfo & layout, GstBuffer * out,
    GstCaps * out_caps, const std::string & what)
{
  const GstStructure *s = gst_caps_get_structure (out_caps, 0);
  const GstVideoInfo defaults = default_layout (gst_structure_get_string (s, "format"),
      GST_VIDEO_INFO_WIDTH (&layout), GST_VIDEO_INFO_HEIGHT (&layout));
  const GstVideoInfo out_layout = layout_of (out, defaults);
  GstMapInfo im, om;
  fail_unless (gst_buffer_map (in, &im, GST_MAP_READ));
  fail_unless (gst_buffer_map (out, &om, GST_MAP_READ));
  int bad = 0;
  const GstVideoFormatInfo *finfo = layout.finfo;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&layout); p++) {
    int comp = 0;
    while (GST_VIDEO_FORMAT_INFO_PLANE (finfo, comp) != p)
      comp++;
    const int rows = GST_VIDEO_INFO_COMP_HEIGHT (&layout, comp);
    const int row_bytes = GST_VIDEO_INFO_COMP_WIDTH (&layout, comp) *
        GST_VIDEO_INFO_COMP_PSTRIDE (&layout, comp);
    for (int y = 0; y < rows; y++) {
      const gsize io = GST_VIDEO_INFO_PLANE_OFFSET (&layout, p) +
          (gsize) y * GST_VIDEO_INFO_PLANE_STRIDE (&layout, p);
      const gsize oo = GST_VIDEO_INFO_PLANE_OFFSET (&out_layout, p) +
          (gsize) y * GST_VIDEO_INFO_PLANE_STRIDE (&out_layout, p);
      fail_unless (oo + row_bytes <= om.size, "%s: output too small", what.c_str ());
      if (memcmp (im.data + io, om.data + oo, row_bytes) != 0 && bad++ < 3)
        GST_ERROR ("%s: plane %u row %d differs", what.c_str (), p, y);
    }
  }
  gst_buffer_unmap (out, &om);
  gst_buffer_unmap (in, &im);
  fail_unless (bad == 0, "%s: %d rows differ", what.c_str (), bad);
}

/* Formats of the filters' templates, GRAY16_LE and RGBA64_LE, and Bayer. */
static const char *const transfer_formats[] = {
  "GRAY8", "GRAY16_LE", "RGB", "BGR", "RGBA", "BGRA", "RGBx", "BGRx", "ARGB", "ABGR",
  "xRGB", "xBGR", "I420", "NV12", "RGBA64_LE", "rggb", "gbrg16le",
};

static void
run_transfer (const char *launch)
{
  int i = 0;
  for (const char *format : transfer_formats) {
    Case c;
    c.label = std::string (launch) + " " + format;
    c.launch = launch;
    c.format = format;
    const std::string fmt = format;
    c.input = [fmt] (int w, int h, int pad, uint32_t seed, GstVideoInfo * layout) {
      return random_input (fmt, w, h, pad, seed, layout);
    };
    c.check = check_identity;
    sweep (c, i++ % 2);
  }
}

GST_START_TEST (test_clupload)
{
  run_transfer ("clupload name=e");
  report ("clupload");
}
GST_END_TEST

GST_START_TEST (test_cldownload)
{
  run_transfer ("cldownload name=e");
  run_transfer ("clupload ! cldownload name=e");
  report ("cldownload");
}
GST_END_TEST

/* ------------------------------------------------------------- clsobel */

GST_START_TEST (test_clsobel)
{
  int i = 0;
  for (const sobel_ref::Format & f : sobel_ref::formats) {
    const bool cl_input = i % 3 == 2, out16 = i % 4 == 3;
    Case c;
    c.label = std::string ("clsobel ") + f.name + (cl_input ? " (OpenCL input)" : "");
    c.launch = cl_input ? "clupload ! clsobel name=e" : "clsobel name=e";
    c.format = f.name;
    if (out16)
      c.sink_caps = "video/x-raw,format=GRAY16_LE";
    else if (i % 2)
      c.sink_caps = "video/x-raw,format=GRAY8";   /* system memory */
    /* Every border; L1 (exact) and L2 (within 1) in turn. */
    auto params = [out16] (int w, int h) {
      sobel_ref::Params p;
      p.border = (w + h) % 3;
      p.norm = (w / 3) % 2;
      p.out16 = out16;
      return p;
    };
    c.configure = [params] (GstElement * e, int w, int h) {
      const sobel_ref::Params p = params (w, h);
      g_object_set (e, "border", p.border, "norm", p.norm, nullptr);
    };
    const std::string fmt = f.name;
    c.input = [fmt] (int w, int h, int pad, uint32_t seed, GstVideoInfo * layout) {
      return random_input (fmt, w, h, pad, seed, layout);
    };
    c.check = [&f, params] (GstBuffer * in, const GstVideoInfo & layout, GstBuffer * out,
        GstCaps * out_caps, const std::string & what) {
      const int w = GST_VIDEO_INFO_WIDTH (&layout), h = GST_VIDEO_INFO_HEIGHT (&layout);
      const sobel_ref::Params p = params (w, h);
      std::vector<float> scaled;
      const std::vector<int> ref = sobel_ref::sobel_reference (sobel_ref::luma_of (in,
              &layout, f), w, h, p, &scaled);
      GstVideoInfo info;
      fail_unless (gst_video_info_from_caps (&info, out_caps));
      fail_unless_equals_int (GST_VIDEO_INFO_FORMAT (&info),
          p.out16 ? GST_VIDEO_FORMAT_GRAY16_LE : GST_VIDEO_FORMAT_GRAY8);
      GstVideoFrame frame;
      fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
      int bad = 0;
      const int tolerance = p.norm == 1 ? 0 : 1;
      for (int y = 0; y < h; y++) {
        const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
            (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
        for (int x = 0; x < w; x++) {
          const int got = p.out16 ? ((const guint16 *) row)[x] : row[x];
          if (std::abs (got - ref[y * w + x]) > tolerance && bad++ < 3)
            GST_ERROR ("%s: (%d,%d) got %d want %d", what.c_str (), x, y, got,
                ref[y * w + x]);
        }
      }
      gst_video_frame_unmap (&frame);
      fail_unless (bad == 0, "%s border %s norm %d: %d pixels differ", what.c_str (),
          border_name (p.border), p.norm, bad);
    };
    sweep (c, i++ % 2);
  }
  report ("clsobel");
}
GST_END_TEST

/* ------------------------------------------------------------- clconvolve, clfir */

/* Not symmetric, so that a flipped or transposed kernel shows. */
static const std::vector<double> kernel3 = {1, 2, 3, 4, 9, -2, 0, 5, 1};
static const std::vector<double> kernel5 = {
  1, 0, -1, 2, 1,  3, 2, 1, 0, -2,  0, 4, 12, 3, 1,  -1, 2, 5, 2, 0,  1, 1, 0, -3, 2};
/* Rank 1 with integer factors, not symmetric: the separable paths (on
 * 4-byte formats the integer ones). */
static std::vector<double>
rank1_kernel7 ()
{
  const int row[7] = {1, 3, 0, 2, 5, 1, 4}, col[7] = {2, 1, 3, 1, 0, 4, 1};
  std::vector<double> k;
  for (int c : col)
    for (int r : row)
      k.push_back (c * r);
  return k;
}
static const std::vector<double> fir_default = {30 / 256.0, 5 / 256.0, 6 / 256.0,
  19 / 256.0, 30 / 256.0, 9 / 256.0, 15 / 256.0, 5 / 256.0, 40 / 256.0};

static void
run_convolution (const char *element, const std::vector<double> &weights, bool normalize)
{
  int i = 0;
  for (const convolve_ref::Format & f : convolve_ref::formats) {
    const bool cl_input = i % 3 == 1;
    Case c;
    const std::string n = std::to_string ((int) std::sqrt (weights.size ()));
    c.label = std::string (element) + " " + n + "x" + n + " " + f.name + (cl_input ? " (OpenCL input)" : "");
    c.launch = std::string (cl_input ? "clupload ! " : "") + element + " name=e";
    c.format = f.name;
    if (i % 2)
      c.sink_caps = "video/x-raw";   /* system memory */
    auto conv_of = [weights, normalize] (int w, int h) {
      convolve_ref::Conv conv;
      conv.main.n = (int) std::sqrt (weights.size ());
      conv.main.k = weights;
      conv.normalize = normalize;
      conv.border = (w + 2 * h) % 3;
      return conv;
    };
    if (std::string (element) == "clconvolve")
      c.init = [weights] (GstElement * e) {
        std::string arg = "<";
        for (size_t k = 0; k < weights.size (); k++)
          arg += (k ? "," : "") + std::to_string (weights[k]);
        gst_util_set_object_arg (G_OBJECT (e), "kernel", (arg + ">").c_str ());
      };
    c.configure = [conv_of] (GstElement * e, int w, int h) {
      g_object_set (e, "border", conv_of (w, h).border, nullptr);
    };
    const std::string fmt = f.name;
    c.input = [fmt] (int w, int h, int pad, uint32_t seed, GstVideoInfo * layout) {
      return random_input (fmt, w, h, pad, seed, layout);
    };
    c.check = [&f, conv_of] (GstBuffer * in, const GstVideoInfo & layout, GstBuffer * out,
        GstCaps * out_caps, const std::string & what) {
      GstVideoInfo info;
      fail_unless (gst_video_info_from_caps (&info, out_caps));
      fail_unless_equals_int (GST_VIDEO_INFO_FORMAT (&info),
          gst_video_format_from_string (f.name));
      convolve_ref::check_output (in, &layout, out, &info, f,
          conv_of (GST_VIDEO_INFO_WIDTH (&layout), GST_VIDEO_INFO_HEIGHT (&layout)),
          what.c_str ());
    };
    sweep (c, i++ % 2);
  }
}

GST_START_TEST (test_clconvolve_3x3)
{
  run_convolution ("clconvolve", kernel3, true);
  report ("clconvolve 3x3");
}
GST_END_TEST

GST_START_TEST (test_clconvolve_5x5)
{
  run_convolution ("clconvolve", kernel5, true);
  report ("clconvolve 5x5");
}
GST_END_TEST

GST_START_TEST (test_clconvolve_7x7_rank1)
{
  run_convolution ("clconvolve", rank1_kernel7 (), true);
  report ("clconvolve 7x7 rank 1");
}
GST_END_TEST

GST_START_TEST (test_clconvolve_3x3_rank1)
{
  /* binomial: on 4-byte formats with aligned rows, the GPU variant's 3x3
   * integer kernel */
  run_convolution ("clconvolve", {1, 2, 1, 2, 4, 2, 1, 2, 1}, true);
  report ("clconvolve 3x3 rank 1");
}
GST_END_TEST

GST_START_TEST (test_clfir)
{
  run_convolution ("clfir", fir_default, false);
  report ("clfir");
}
GST_END_TEST

/* ------------------------------------------------------------- clkernel */

GST_START_TEST (test_clkernel)
{
  int i = 0;
  for (const clkernel_ref::Format & f : clkernel_ref::formats) {
    const bool cl_input = i % 3 == 0;
    Case c;
    c.label = std::string ("clkernel blur ") + f.name + (cl_input ? " (OpenCL input)" : "");
    c.launch = cl_input ? "clupload ! clkernel name=e" : "clkernel name=e";
    c.format = f.name;
    if (i % 2)
      c.sink_caps = "video/x-raw";
    c.init = [] (GstElement * e) {
      g_object_set (e, "source", clkernel_ref::BLUR, nullptr);
    };
    const std::string fmt = f.name;
    c.input = [fmt] (int w, int h, int pad, uint32_t seed, GstVideoInfo * layout) {
      return random_input (fmt, w, h, pad, seed, layout);
    };
    c.check = [&f] (GstBuffer * in, const GstVideoInfo & layout, GstBuffer * out,
        GstCaps * out_caps, const std::string & what) {
      const int w = GST_VIDEO_INFO_WIDTH (&layout), h = GST_VIDEO_INFO_HEIGHT (&layout);
      std::vector<bool> ambiguous;
      const std::vector<clkernel_ref::Rgba> ref = clkernel_ref::reference (
          clkernel_ref::BLURRED, clkernel_ref::rgba_of (in, &layout, f), w, h, &ambiguous);
      clkernel_ref::check_output (out_caps, out, f, w, h, ref, ambiguous, 1, what.c_str ());
    };
    sweep (c, i++ % 2);
  }
  report ("clkernel");
}
GST_END_TEST

/* ------------------------------------------------------------- cldebayer */

/* Every pattern, 8-bit and 12-bit input, both methods, each into one of the
 * output formats in turn (RGBA64_LE for 12-bit only); widths 2..65. The
 * output formats are covered by test_debayer at small sizes already. */
GST_START_TEST (test_cldebayer)
{
  using namespace debayer_ref;
  int i = 0;
  for (int bits : {8, 12})
    for (int pattern = 0; pattern < 4; pattern++)
      for (Method method : {MALVAR, BILINEAR}) {
        const OutFormat &pick = out_formats[(i * 5 + (bits > 8 ? 1 : 0)) %
            G_N_ELEMENTS (out_formats)];
        const OutFormat &f = pick.wide && bits == 8 ? RGBA : pick;
        const bool cl_input = i % 3 == 2;
        Mosaic proto;
        proto.pattern = pattern;
        proto.bits = bits;
        Case c;
        c.label = "cldebayer " + proto.format () + (method == MALVAR ? " malvar -> " :
            " bilinear -> ") + f.name + (cl_input ? " (OpenCL input)" : "");
        c.launch = cl_input ? "clupload ! cldebayer name=e" : "cldebayer name=e";
        c.format = proto.format ();
        c.sink_caps = std::string ("video/x-raw,format=") + f.name;
        c.min_size = 2;
        c.configure = [method] (GstElement * e, int, int) {
          g_object_set (e, "method", (int) method, nullptr);
        };
        /* The mosaic of the frame being checked, kept for the check. */
        auto mosaic = std::make_shared<Mosaic> ();
        c.input = [mosaic, pattern, bits] (int w, int h, int pad, uint32_t seed,
            GstVideoInfo * layout) {
          *mosaic = random_mosaic (w, h, pattern, bits, seed);
          /* 16-bit rows at odd addresses are refused (test_debayer checks it) */
          GstBuffer *buf = mosaic_buffer (*mosaic, bits > 8 ? pad + (pad & 1) : pad);
          *layout = video_info (bits > 8 ? "GRAY16_LE" : "GRAY8", w, h);
          return buf;
        };
        c.check = [mosaic, method, &f] (GstBuffer *, const GstVideoInfo &, GstBuffer * out,
            GstCaps * out_caps, const std::string & what) {
          compare (out, out_caps, *mosaic, demosaic_reference (*mosaic, method), f, what);
        };
        sweep (c, i++ % 2);
      }
  report ("cldebayer");
}
GST_END_TEST

/* Below 2x2 there is no full pattern: the pad templates say so
 * (width and height from 2), so negotiation refuses such caps up front:
 * accept-caps says no, the push fails as not negotiated, no output, and
 * no element error (nothing was wrong with the element's work). */
GST_START_TEST (test_cldebayer_one_pixel_refused)
{
  const std::pair<int, int> sizes[] = {{1, 1}, {1, 2}, {1, 17}, {2, 1}, {65, 1}};
  for (auto s : sizes)
    for (const char *format : {"rggb", "bggr12le"}) {
      Harness h ("cldebayer name=e");
      gst_harness_set_sink_caps_str (h.h, "video/x-raw,format=RGBA");
      GstCaps *caps = gst_caps_from_string (caps_string (format, s.first, s.second).c_str ());
      GstPad *sink = gst_element_get_static_pad (h.e, "sink");
      fail_if (gst_pad_query_accept_caps (sink, caps), "%s %dx%d accepted", format, s.first,
          s.second);
      gst_object_unref (sink);
      gst_caps_unref (caps);
      gst_harness_set_src_caps_str (h.h, caps_string (format, s.first, s.second).c_str ());
      GstVideoInfo layout;
      GstFlowReturn ret = gst_harness_push (h.h, random_input (format, s.first, s.second, 0,
              1, &layout));
      fail_unless_equals_int (ret, GST_FLOW_NOT_NEGOTIATED);
      fail_unless (gst_harness_try_pull (h.h) == nullptr);
      const std::string error = h.error ();
      fail_unless (error.empty (), "%s %dx%d: error '%s'", format, s.first, s.second,
          error.c_str ());
      combinations++;
    }
  report ("cldebayer below 2x2");
}
GST_END_TEST

/* ------------------------------------------------------------- short buffers */

/* A buffer shorter than its caps say: GST_FLOW_ERROR, an error message and
 * no output, for every element; the bytes missing from the last row only,
 * or whole rows missing, and a GstVideoMeta whose rows run past the end. */
GST_START_TEST (test_short_buffers)
{
  struct Element { std::string launch, format; };
  std::vector<Element> elements;
  for (const std::string & name : plugin_elements ())
    for (const std::string & format : template_formats (name))
      elements.push_back ({name + " name=e", format});
  for (const Element &el : elements)
    for (int how = 0; how < 3; how++) {
      const int w = 19, hgt = 7;
      const GstVideoInfo info = default_layout (el.format, w, hgt);
      const int last_row = GST_VIDEO_INFO_COMP_WIDTH (&info, 0) *
          GST_VIDEO_INFO_COMP_PSTRIDE (&info, 0);
      GstBuffer *buf;
      if (how < 2) {
        /* how 0: one byte short of the last pixel; 1: half the frame */
        const gsize size = how == 0 ? GST_VIDEO_INFO_SIZE (&info) -
            (GST_VIDEO_INFO_N_PLANES (&info) == 1 ? GST_VIDEO_INFO_PLANE_STRIDE (&info, 0) -
            last_row + 1 : GST_VIDEO_INFO_SIZE (&info) / 8) : GST_VIDEO_INFO_SIZE (&info) / 2;
        buf = gst_buffer_new_allocate (nullptr, size, nullptr);
        gst_buffer_memset (buf, 0, 0x55, size);
      } else {
        /* the full size, but a meta whose padded rows do not fit */
        GstVideoInfo layout;
        buf = random_input (el.format, w, hgt, 0, 3, &layout);
        gsize offset[GST_VIDEO_MAX_PLANES] = {0};
        gint stride[GST_VIDEO_MAX_PLANES] = {0};
        for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
          offset[p] = GST_VIDEO_INFO_PLANE_OFFSET (&info, p) + 8;
          stride[p] = GST_VIDEO_INFO_PLANE_STRIDE (&info, p) + 8;
        }
        gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
            GST_VIDEO_INFO_FORMAT (&info), w, hgt, GST_VIDEO_INFO_N_PLANES (&info), offset,
            stride);
      }
      Harness h (el.launch.c_str ());
      gst_harness_set_src_caps_str (h.h, caps_string (el.format, w, hgt).c_str ());
      const char *what = el.launch.c_str (), *format = el.format.c_str ();
      const GstFlowReturn ret = gst_harness_push (h.h, buf);
      fail_unless (ret == GST_FLOW_ERROR, "%s %s case %d: %s", what, format, how,
          gst_flow_get_name (ret));
      fail_unless (gst_harness_try_pull (h.h) == nullptr, "%s %s case %d: output", what,
          format, how);
      fail_if (h.error ().empty (), "%s %s case %d: no error message", what, format, how);
      combinations++;
    }
  report ("short buffers");
}
GST_END_TEST

static Suite *
sizes_suite (void)
{
  Suite *s = suite_create ("sizes");
  TCase *tc = tcase_create ("general");
  tcase_add_checked_fixture (tc, nullptr, drop_shared_context);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_short_buffers);
  tcase_add_test (tc, test_cldebayer_one_pixel_refused);
  tcase_add_test (tc, test_clupload);
  tcase_add_test (tc, test_cldownload);
  tcase_add_test (tc, test_clsobel);
  tcase_add_test (tc, test_clconvolve_3x3);
  tcase_add_test (tc, test_clconvolve_5x5);
  tcase_add_test (tc, test_clconvolve_7x7_rank1);
  tcase_add_test (tc, test_clconvolve_3x3_rank1);
  tcase_add_test (tc, test_clfir);
  tcase_add_test (tc, test_clkernel);
  tcase_add_test (tc, test_cldebayer);
  return s;
}

GST_CHECK_MAIN (sizes);
