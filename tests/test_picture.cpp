/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The picture stages (clpicture, and cldebayer after its camera kernel)
 * against the CPU model of tests/ref_picture.h: sharpen within 1 of the
 * formula (8- and 16-bit RGB, grey, NV12, I420, odd sizes, padded rows,
 * both memories), the 3D LUT within 1 of trilinear and tetrahedral
 * interpolation (an identity LUT, a 33-point LUT of a smooth function, a
 * 2-point LUT, a strength), the .cube parser's errors by line and the
 * element's refusal of a bad file, a new LUT file while playing (used from
 * the next frame, nothing built), denoise on noise and on a clean picture,
 * and defaults unchanged bit for bit (cldebayer and clpicture). */
#include <chrono>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cltest.h"
#include "ref_picture.h"

#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/opencl/gstclmemory.h>

using clpicture::Cube;

/* A LUT of f over an n-point grid. */
template <typename F>
static Cube
make_cube (int n, F f)
{
  Cube c;
  c.size = n;
  for (int b = 0; b < n; b++)
    for (int g = 0; g < n; g++)
      for (int r = 0; r < n; r++) {
        const std::array<double, 3> v = f ((double) r / (n - 1), (double) g / (n - 1),
            (double) b / (n - 1));
        for (double x : v)
          c.rgb.push_back ((float) x);
      }
  return c;
}

/* `cube` written as a .cube file in the temporary folder; the path. */
static std::string
write_cube (const Cube & cube, const std::string & name)
{
  const std::string path = std::string (g_get_tmp_dir ()) + "/" + name + "-" +
      cltest::unique_tag () + ".cube";
  std::ofstream out (path);
  out << "# test LUT\nTITLE \"" << name << "\"\nLUT_3D_SIZE " << cube.size << "\n";
  out.precision (9);
  out << "DOMAIN_MIN " << cube.domain_min[0] << " " << cube.domain_min[1] << " " <<
      cube.domain_min[2] << "\nDOMAIN_MAX " << cube.domain_max[0] << " " <<
      cube.domain_max[1] << " " << cube.domain_max[2] << "\n";
  for (size_t i = 0; i < cube.rgb.size (); i += 3)
    out << cube.rgb[i] << " " << cube.rgb[i + 1] << " " << cube.rgb[i + 2] << "\n";
  return path;
}

static std::array<double, 3>
smooth (double r, double g, double b)
{
  return { std::pow (r, 0.8) * 0.9 + 0.05 * g, 0.5 + 0.45 * std::sin (3 * g + b),
      (r + g + b) / 3 * (1 - 0.3 * r * b) };
}

struct Run {
  std::string format;
  int w, h;
  int pad = 0;
  bool cl_input = false;
};

/* Runs one frame of random samples through clpicture with `props` set and
 * compares every sample with the model. Returns the largest difference. */
static double
check_frame (const Run & run, const refpicture::Params & p, const std::string & lut_path,
    uint32_t seed)
{
  GstElement *e = run.cl_input ?
      gst_parse_bin_from_description ("clupload ! clpicture name=p", TRUE, nullptr) :
      gst_element_factory_make ("clpicture", nullptr);
  cltest::share_context (e);
  GstHarness *h = gst_harness_new_with_element (e, "sink", "src");
  GstElement *pic = run.cl_input ? gst_bin_get_by_name (GST_BIN (e), "p") :
      GST_ELEMENT (gst_object_ref (e));
  gst_object_unref (e);
  g_object_set (pic, "sharpen", p.amount, "sharpen-radius", p.sigma, "sharpen-threshold",
      p.threshold, "lut3d-file", lut_path.c_str (), "lut3d-interpolation",
      (gint) p.interpolation, "lut3d-strength", p.strength, nullptr);
  gst_object_unref (pic);
  const std::string caps = cltest::caps_string (run.format, run.w, run.h);
  gst_harness_set_caps_str (h, caps.c_str (), caps.c_str ());
  GstVideoInfo info = cltest::video_info (run.format.c_str (), run.w, run.h), layout;
  GstBuffer *in = cltest::random_frame (&info, run.pad, seed, &layout);
  GstVideoFrame fin, fout;
  fail_unless (gst_video_frame_map (&fin, &layout, in, GST_MAP_READ));
  const auto want = refpicture::expected (&fin, p);
  gst_video_frame_unmap (&fin);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull (h);
  fail_unless (out != nullptr);
  fail_unless (gst_video_frame_map (&fout, &info, out, GST_MAP_READ));
  double worst = 0;
  for (size_t c = 0; c < want.size (); c++) {
    const int cw = GST_VIDEO_FRAME_COMP_WIDTH (&fout, c);
    for (size_t i = 0; i < want[c].size (); i++) {
      const double got = refpicture::sample (&fout, c, i % cw, i / cw);
      const double d = std::fabs (got - std::clamp (want[c][i], 0.0,
              (double) ((1 << GST_VIDEO_FRAME_COMP_DEPTH (&fout, c)) - 1)));
      worst = std::max (worst, d);
      fail_unless (d <= 1.0, "%s %dx%d: component %d sample %d: %g, model %g", run.format.c_str (),
          run.w, run.h, (int) c, (int) i, got, want[c][i]);
    }
  }
  gst_video_frame_unmap (&fout);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  return worst;
}

/* (the CPU shape takes rows in spans of 128 pixels, 8 at a time: the wide
 * frames have several spans a row and a last vector cut by the edge) */
static const Run kRuns[] = {
  {"BGRx", 37, 23, 0, false}, {"RGB", 33, 17, 3, false}, {"RGBA64_LE", 29, 13, 0, true},
  {"NV12", 37, 23, 0, false}, {"I420", 35, 19, 5, true}, {"GRAY8", 31, 9, 0, false},
  {"RGBA", 1, 1, 0, false}, {"NV12", 1, 1, 0, false}, {"xRGB", 261, 5, 4, false},
  {"NV12", 299, 7, 2, false},
};

/* Both kernel shapes (GPUs: a pixel a work-item; CPUs: float8 spans of a
 * row), whatever the device. */
static const char *const kTunings[] = { "cpu", "gpu" };

GST_START_TEST (test_sharpen)
{
  uint32_t seed = 1;
  for (const char *tuning : kTunings) {
    cltest::use_tuning (tuning);
    for (const Run &run : kRuns)
      for (auto [amount, sigma, threshold] : { std::tuple { 1.0, 1.0, 0.0 }, { 2.5, 0.5, 0.0 },
              { 0.7, 2.2, 0.0 } }) {
        refpicture::Params p;
        p.amount = amount;
        p.sigma = sigma;
        p.threshold = threshold;
        check_frame (run, p, "", seed++);
      }
  }
}
GST_END_TEST;

/* A threshold: random frames give differences on both sides of it; the model
 * and the kernel may disagree only where |d| is within float's error of it,
 * which a threshold of a whole code plus a half avoids for 8-bit luma. */
GST_START_TEST (test_sharpen_threshold)
{
  refpicture::Params p;
  p.amount = 1.5;
  p.threshold = 0.1;
  for (const char *tuning : kTunings) {
    cltest::use_tuning (tuning);
    for (const Run &run : { Run { "BGRx", 37, 23 }, Run { "NV12", 37, 23 } })
      check_frame (run, p, "", 7);
  }
}
GST_END_TEST;

GST_START_TEST (test_lut)
{
  const Cube identity = make_cube (2, [] (double r, double g, double b) {
        return std::array<double, 3> { r, g, b }; });
  const Cube identity17 = make_cube (17, [] (double r, double g, double b) {
        return std::array<double, 3> { r, g, b }; });
  const Cube smooth33 = make_cube (33, smooth);
  const Cube two = make_cube (2, [] (double r, double g, double b) {
        return std::array<double, 3> { 0.1 + 0.8 * g, 0.9 * r * b + 0.05, 1 - 0.7 * r }; });
  struct Case { const Cube *cube; const char *name; double strength; };
  const Case cases[] = { {&identity, "identity", 1}, {&identity17, "identity17", 1},
    {&smooth33, "smooth33", 1}, {&two, "two", 1}, {&smooth33, "smooth33-half", 0.5} };
  uint32_t seed = 100;
  for (const Case &c : cases) {
    const std::string path = write_cube (*c.cube, c.name);
    for (const char *tuning : kTunings) {
      cltest::use_tuning (tuning);
      for (int interp = 0; interp < 2; interp++)
        for (const Run &run : kRuns) {
          refpicture::Params p;
          p.lut = c.cube;
          p.interpolation = (clpicture::Interpolation) interp;
          p.strength = c.strength;
          check_frame (run, p, path, seed++);
        }
    }
    g_unlink (path.c_str ());
  }
}
GST_END_TEST;

/* Sharpen and the LUT together, on a LUT with a domain. */
GST_START_TEST (test_sharpen_and_lut)
{
  Cube c = make_cube (9, smooth);
  c.domain_min = { -0.1f, 0, 0 };
  c.domain_max = { 1.1f, 1, 2 };
  const std::string path = write_cube (c, "domain");
  refpicture::Params p;
  p.amount = 1.2;
  p.lut = &c;
  p.interpolation = clpicture::INTERP_TETRAHEDRAL;
  for (const char *tuning : kTunings) {
    cltest::use_tuning (tuning);
    for (const Run &run : { Run { "BGRA", 37, 23 }, Run { "I420", 37, 23 }, Run { "RGB", 150,
              4 } })
      check_frame (run, p, path, 3);
  }
  g_unlink (path.c_str ());
}
GST_END_TEST;

static int
error_line (const std::string & text)
{
  std::istringstream in (text);
  try {
    clpicture::parse_cube (in, "t.cube");
  } catch (const clpicture::CubeError & e) {
    fail_unless (std::string (e.what ()).rfind ("t.cube:" + std::to_string (e.line) + ": ", 0)
        == 0, "%s", e.what ());
    return e.line;
  }
  return -1;
}

GST_START_TEST (test_cube_parser)
{
  std::istringstream good ("# comment\nTITLE \"x\"\n\nLUT_3D_SIZE 2\nDOMAIN_MIN 0 0 0\n"
      "DOMAIN_MAX 1 1 1\n0 0 0\n1 0 0 # red\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1 1\n1 1 1\n");
  const Cube c = clpicture::parse_cube (good, "good");
  fail_unless_equals_int (c.size, 2);
  fail_unless (c.title == "x");
  fail_unless (c.rgb[3] == 1 && c.rgb[4] == 0);
  const std::string table8 = "0 0 0\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1 1\n1 1 1\n";
  fail_unless_equals_int (error_line ("LUT_3D_SIZE 1\n"), 1);
  fail_unless_equals_int (error_line ("\nLUT_3D_SIZE 66\n"), 2);
  fail_unless_equals_int (error_line ("LUT_3D_SIZE x\n"), 1);
  fail_unless_equals_int (error_line ("0 0 0\n"), 1);   /* before the size */
  fail_unless_equals_int (error_line ("LUT_3D_SIZE 2\n0 0\n"), 2);
  fail_unless_equals_int (error_line ("LUT_3D_SIZE 2\n0 0 z\n"), 2);
  fail_unless_equals_int (error_line ("LUT_3D_SIZE 2\n0 0 0\n1 1 1\n"), 3);   /* short */
  fail_unless_equals_int (error_line ("LUT_3D_SIZE 2\n" + table8 + "1 1 1\n"), 10);
  fail_unless_equals_int (error_line ("LUT_3D_SIZE 2\n0 0 0\nDOMAIN_MIN 0 0 0\n"), 3);
  fail_unless_equals_int (error_line ("LUT_1D_SIZE 4\n"), 1);
  fail_unless_equals_int (error_line ("FOO 1\n"), 1);
  fail_unless_equals_int (error_line ("LUT_3D_SIZE 2\nDOMAIN_MIN 1 0 0\nDOMAIN_MAX 1 1 1\n" +
          table8), 11);
  fail_unless_equals_int (error_line ("# nothing\n"), 1);
}
GST_END_TEST;

/* A bad file before start: a g_warning naming the line, then the start fails
 * naming the property and the file; while playing: a bus warning, the LUT in
 * force kept. */
GST_START_TEST (test_bad_file_refused)
{
  const std::string path = std::string (g_get_tmp_dir ()) + "/bad-" + cltest::unique_tag () +
      ".cube";
  std::ofstream (path) << "LUT_3D_SIZE 2\n0 0 0\n0 0 oops\n";
  const std::string line = path + ":3:";
  for (const char *element : { "clpicture", "cldebayer" }) {
    const std::string desc = std::string ("videotestsrc num-buffers=1 ! ") +
        (g_str_equal (element, "cldebayer") ? "video/x-bayer,format=rggb,width=8,height=8 ! " :
        "video/x-raw,width=8,height=8 ! ") + element + " lut3d-file=" + path + " ! fakesink";
    cltest::check_refused_at_start (desc.c_str (), "lut3d-file", line.c_str (), 1);
  }
  g_unlink (path.c_str ());
}
GST_END_TEST;

/* A new LUT file while playing is read by the thread that sets it and used
 * from the next frame; nothing is built (one program a format). */
GST_START_TEST (test_new_file_while_playing)
{
  const Cube a = make_cube (2, [] (double r, double g, double b) {
        return std::array<double, 3> { 0.25 + 0 * r, 0.25 + 0 * g, 0.25 + 0 * b }; });
  const Cube b = make_cube (5, [] (double r, double g, double b) {
        return std::array<double, 3> { 0.75 + 0 * r, 0.75 + 0 * g, 0.75 + 0 * b }; });
  const std::string pa = write_cube (a, "a"), pb = write_cube (b, "b");
  GstElement *e = gst_element_factory_make ("clpicture", nullptr);
  cltest::share_context (e);
  g_object_set (e, "lut3d-file", pa.c_str (), nullptr);
  GstHarness *h = gst_harness_new_with_element (e, "sink", "src");
  const std::string caps = cltest::caps_string ("RGBA", 64, 48);
  gst_harness_set_caps_str (h, caps.c_str (), caps.c_str ());
  GstVideoInfo info = cltest::video_info ("RGBA", 64, 48);
  auto first_byte = [&] () {
    fail_unless_equals_int (gst_harness_push (h, cltest::random_frame (&info, 0, 1)),
        GST_FLOW_OK);
    GstBuffer *out = gst_harness_pull (h);
    guint8 v;
    gst_buffer_extract (out, 0, &v, 1);
    gst_buffer_unref (out);
    return (int) v;
  };
  fail_unless_equals_int (first_byte (), 64);
  fail_unless_equals_int (first_byte (), 64);
  const unsigned lookups = gstcl::program_lookups ();
  g_object_set (e, "lut3d-file", pb.c_str (), nullptr);
  const auto t0 = std::chrono::steady_clock::now ();
  fail_unless_equals_int (first_byte (), 191);
  const double ms = std::chrono::duration<double, std::milli> (std::chrono::steady_clock::now ()
      - t0).count ();
  fail_unless_equals_int (gstcl::program_lookups (), lookups);
  /* the strength alone, at once: the input's sample halfway to 0.75 */
  g_object_set (e, "lut3d-strength", 0.5, nullptr);
  GstBuffer *in = cltest::random_frame (&info, 0, 1);
  guint8 v;
  gst_buffer_extract (in, 0, &v, 1);
  gst_buffer_unref (in);
  fail_unless (std::fabs (first_byte () - (v + 191.25) / 2) <= 1);
  GST_INFO ("first frame with the new LUT in %.1f ms", ms);
  gst_object_unref (e);
  gst_harness_teardown (h);
  g_unlink (pa.c_str ());
  g_unlink (pb.c_str ());
}
GST_END_TEST;

/* cldebayer playing without the picture stages, then sharpen set: the
 * pass's program is built off the streaming thread while the frames go on
 * as they were, and a later frame is sharpened. */
GST_START_TEST (test_debayer_stage_turned_on_while_playing)
{
  GstElement *e;
  GstHarness *h = cltest::debayer_harness (false, &e);
  gst_harness_set_src_caps_str (h, "video/x-bayer,format=rggb,width=64,height=48,"
      "framerate=30/1");
  /* (NV12: the camera path) */
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=NV12,width=64,height=48");
  GstBuffer *in = gst_buffer_new_allocate (nullptr, 64 * 48, nullptr);
  GstMapInfo map;
  gst_buffer_map (in, &map, GST_MAP_WRITE);
  std::mt19937 rng (34);
  for (gsize i = 0; i < map.size; i++)
    map.data[i] = (guint8) (rng () >> 24);
  gst_buffer_unmap (in, &map);
  auto frame = [&] () {
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_copy (in)), GST_FLOW_OK);
    GstBuffer *out = gst_harness_pull (h);
    fail_unless (out != nullptr);
    gst_buffer_map (out, &map, GST_MAP_READ);
    std::vector<guint8> bytes (map.data, map.data + map.size);
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
    return bytes;
  };
  const std::vector<guint8> plain = frame ();
  fail_unless (frame () == plain);
  g_object_set (e, "sharpen", 2.0, nullptr);
  const unsigned builds = gstcl::background_builds ();
  fail_unless (frame () == plain, "the frame after the change waited for the stages' build");
  fail_unless_equals_int (gstcl::background_builds (), builds + 1);
  gstcl::wait_for_background_builds ();
  fail_unless (frame () != plain, "sharpen changed nothing");
  gst_buffer_unref (in);
  gst_object_unref (e);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* The frame that `desc` (a bin: a source of one frame into the element)
 * makes, as bytes. */
static std::vector<guint8>
frame_of (const std::string & desc)
{
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch ((desc + " ! appsink name=sink sync=false").c_str (),
      &error);
  fail_unless (pipeline && !error, "%s", error ? error->message : "");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  GstSample *sample = nullptr;
  g_signal_emit_by_name (sink, "pull-sample", &sample);
  fail_unless (sample != nullptr, "%s: no frame", desc.c_str ());
  GstMapInfo map;
  GstBuffer *buf = gst_sample_get_buffer (sample);
  gst_buffer_map (buf, &map, GST_MAP_READ);
  std::vector<guint8> bytes (map.data, map.data + map.size);
  gst_buffer_unmap (buf, &map);
  gst_sample_unref (sample);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return bytes;
}

/* Defaults (and every stage set to its off value) change no byte:
 * cldebayer's camera path and its exact path, and clpicture (a copy). */
GST_START_TEST (test_defaults_bit_exact)
{
  const std::string src = "videotestsrc num-buffers=1 pattern=smpte ! "
      "video/x-bayer,format=rggb,width=64,height=36 ! cldebayer transfer=srgb ";
  const std::string off = "denoise=0 sharpen=0 sharpen-radius=2 lut3d-strength=0.5 "
      "lut3d-interpolation=tetrahedral";
  for (const char *fmt : { "NV12", "BGRx" }) {
    const std::string caps = std::string (" ! video/x-raw,format=") + fmt;
    fail_unless (frame_of (src + caps) == frame_of (src + off + caps), "%s", fmt);
  }
  const std::string exact = "videotestsrc num-buffers=1 ! "
      "video/x-bayer,format=rggb,width=64,height=36 ! cldebayer ";
  fail_unless (frame_of (exact + " ! video/x-raw,format=RGBA") ==
      frame_of (exact + off + " ! video/x-raw,format=RGBA"));
  const std::string raw = "videotestsrc num-buffers=1 pattern=ball ! "
      "video/x-raw,format=I420,width=64,height=36";   /* rows without padding */
  fail_unless (frame_of (raw) == frame_of (raw + " ! clpicture " + off));
}
GST_END_TEST;

/* cldebayer with the stages gives the bytes of cldebayer (denoising its raw
 * samples first) ! clpicture with the other stages (the same pass after
 * the camera kernel): NV12, BGRx and I420 at an odd size. */
GST_START_TEST (test_debayer_runs_the_stages)
{
  const Cube c = make_cube (5, smooth);
  const std::string lut = write_cube (c, "debayer");
  const std::string after = " sharpen=1.5 sharpen-threshold=0.01 lut3d-file=" + lut +
      " lut3d-strength=0.8 ";
  for (const char *fmt : { "NV12", "BGRx", "I420" }) {
    /* (slanted edges: the flat bars of smpte would be left as they are) */
    const std::string src = "videotestsrc num-buffers=1 pattern=pinwheel ! "
        "video/x-bayer,format=rggb,width=67,height=35 ! cldebayer transfer=srgb "
        "white-balance=manual red-gain=1.3";
    const std::string caps = std::string (" ! video/x-raw,format=") + fmt;
    const std::vector<guint8> fused = frame_of (src + " denoise=0.5" + after + caps);
    fail_unless (fused == frame_of (src + " denoise=0.5" + caps + " ! clpicture" + after),
        "%s", fmt);
    fail_unless (fused != frame_of (src + caps + " ! clpicture" + after),
        "%s: the denoise changed nothing", fmt);
    fail_unless (fused != frame_of (src + " denoise=0.5" + caps), "%s: the stages changed "
        "nothing", fmt);
  }
  g_unlink (lut.c_str ());
}
GST_END_TEST;

/* On the staging path of a discrete GPU cldebayer's raw denoise, camera
 * kernel, blur and finish take a frame in row bands (gstclbands.hpp), each
 * band's passes over the rows their input allows: the bytes are those of
 * the frame on one queue, and the output comes down in bands (a frame of
 * 300 rows: the denoise's 64-row work-groups and the blur's reach of 9
 * rows leave whole output rows before the last band). */
GST_START_TEST (test_debayer_stages_in_bands)
{
  g_setenv ("GST_OPENCL_MEMORY", "staging", TRUE);
  cltest::use_tuning ("gpu");
  const Cube c = make_cube (5, smooth);
  const std::string lut = write_cube (c, "bands");
  for (const char *fmt : { "NV12", "BGRx", "I420" })
    for (int height : { 149, 300 }) {
      const std::string desc = "videotestsrc num-buffers=1 pattern=pinwheel ! "
          "video/x-bayer,format=rggb,width=67,height=" + std::to_string (height) +
          " ! cldebayer transfer=srgb denoise=0.5 sharpen=1.5 sharpen-radius=3 lut3d-file=" +
          lut + " ! video/x-raw,format=" + fmt;
      g_setenv ("GST_OPENCL_BANDS", "0", TRUE);
      const std::vector<guint8> one = frame_of (desc);
      g_setenv ("GST_OPENCL_BANDS", "1", TRUE);
      GstClMemoryStats before, after;
      gst_cl_memory_get_stats (&before);
      fail_unless (frame_of (desc) == one, "%s, %d rows: not the frame of one queue", fmt,
          height);
      gst_cl_memory_get_stats (&after);
      fail_unless_equals_uint64 (after.band_uploads - before.band_uploads, 1);
      fail_unless_equals_uint64 (after.band_downloads - before.band_downloads, height > 256);
    }
  g_unlink (lut.c_str ());
  cltest::use_tuning (nullptr);
  g_unsetenv ("GST_OPENCL_BANDS");
  g_unsetenv ("GST_OPENCL_MEMORY");
}
GST_END_TEST;

/* PSNR of two 8-bit frames of the same size. */
static double
psnr (const std::vector<guint8> & a, const std::vector<guint8> & b)
{
  double se = 0;
  for (size_t i = 0; i < a.size (); i++)
    se += (a[i] - (double) b[i]) * (a[i] - (double) b[i]);
  return se == 0 ? 99 : 10 * std::log10 (255.0 * 255.0 * a.size () / se);
}

/* Denoise: on a clean picture strength 0.25 stays within 40 dB of it; on a
 * noisy one strength 0.5 brings the picture closer to the clean one. */
GST_START_TEST (test_denoise)
{
  const std::string clean = "videotestsrc num-buffers=1 pattern=pinwheel ! "
      "video/x-raw,format=BGRx,width=96,height=64 ! videoconvert ! videoscale ! "
      "video/x-raw,width=95,height=63,format=BGRx";
  const std::vector<guint8> ref = frame_of (clean);
  fail_unless (psnr (ref, frame_of (clean + " ! clpicture denoise=0.25")) >= 40);
  /* the cldebayer camera path with and without, from a noisy raw frame */
  const std::string noisy = "videotestsrc num-buffers=1 pattern=snow ! "
      "video/x-raw,format=GRAY8,width=96,height=64 ! clpicture denoise=1 ! "
      "video/x-raw,format=GRAY8";
  const std::vector<guint8> before = frame_of ("videotestsrc num-buffers=1 pattern=snow ! "
      "video/x-raw,format=GRAY8,width=96,height=64");
  const std::vector<guint8> after = frame_of (noisy);
  double var_before = 0, var_after = 0, mb = 0, ma = 0;
  for (size_t i = 0; i < before.size (); i++) {
    mb += before[i];
    ma += after[i];
  }
  mb /= before.size ();
  ma /= after.size ();
  for (size_t i = 0; i < before.size (); i++) {
    var_before += (before[i] - mb) * (before[i] - mb);
    var_after += (after[i] - ma) * (after[i] - ma);
  }
  /* snow is noise far above the strength's sigma: the patches differ, so
   * only a little is averaged, but some is */
  fail_unless (var_after < var_before, "%g %g", var_after, var_before);
}
GST_END_TEST;

/* The denoise's two shapes (GPUs: a tile in local memory; CPUs: float8
 * rows from padded planes) give the same picture within 1. */
GST_START_TEST (test_denoise_shapes)
{
  for (const char *fmt : { "BGRx", "NV12", "I420" }) {
    const std::string desc = std::string ("videotestsrc num-buffers=1 pattern=pinwheel ! "
        "video/x-raw,format=BGRx,width=90,height=60 ! videoconvert ! videoscale ! "
        "video/x-raw,width=77,height=41,format=") + fmt + " ! clpicture denoise=1 sharpen=0.5";
    cltest::use_tuning ("gpu");
    const std::vector<guint8> gpu = frame_of (desc);
    cltest::use_tuning ("cpu");
    const std::vector<guint8> cpu = frame_of (desc);
    cltest::use_tuning (nullptr);
    fail_unless_equals_int (gpu.size (), cpu.size ());
    int worst = 0;
    for (size_t i = 0; i < gpu.size (); i++)
      worst = std::max (worst, std::abs ((int) gpu[i] - (int) cpu[i]));
    fail_unless (worst <= 1, "%s: the shapes differ by %d", fmt, worst);
  }
}
GST_END_TEST;

static Suite *
picture_suite (void)
{
  Suite *s = suite_create ("picture");
  TCase *tc = cltest::tuning_tcase (s);
  tcase_add_test (tc, test_sharpen);
  tcase_add_test (tc, test_sharpen_threshold);
  tcase_add_test (tc, test_lut);
  tcase_add_test (tc, test_sharpen_and_lut);
  tcase_add_test (tc, test_cube_parser);
  tcase_add_test (tc, test_bad_file_refused);
  tcase_add_test (tc, test_new_file_while_playing);
  tcase_add_test (tc, test_defaults_bit_exact);
  tcase_add_test (tc, test_debayer_runs_the_stages);
  tcase_add_test (tc, test_debayer_stages_in_bands);
  tcase_add_test (tc, test_debayer_stage_turned_on_while_playing);
  tcase_add_test (tc, test_denoise);
  tcase_add_test (tc, test_denoise_shapes);
  return s;
}

GST_CHECK_MAIN (picture);
