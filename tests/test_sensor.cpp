/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cldebayer's sensor pass (kernels/debayer/sensor.cl) against the CPU model
 * of ref_camera.h: defect correction, lens shading and exposure gain, each
 * alone and with every other camera stage, 8- to 16-bit input, every output
 * format, odd and tiny sizes, padded rows, both kernel shapes; defects in a
 * photograph-like mosaic removed with the rest unchanged; a known
 * vignetting undone; the 3A statistics (histogram, zones) equal to the
 * model's; auto exposure converging and steady on a flickering scene;
 * numeric changes rebuilding nothing; a bad lens-shading file refused
 * naming its line; the CPU shape at the edges of its strips, the GPU shape
 * at the edges of its work-groups; the raw-domain denoise against its
 * model (every format, both shapes) and its quality on noise. */
#include "camera_harness.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>

/* The mosaic of an 8-bit picture at `bits`. */
static Mosaic
mosaic_of (const std::vector<Rgb> &image, int w, int h, int pattern, int bits)
{
  Mosaic m = blank_mosaic (w, h, pattern, bits);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const char c = colour_at (m, x, y);
      const int k = c == 'r' ? 0 : c == 'g' ? 1 : 2;
      m.v[(size_t) y * w + x] = (int) std::lround (image[(size_t) y * w + x][k] *
          (double) m.maxv () / 255);
    }
  return m;
}

/* Every sensor stage on. */
static Stages
sensor_stages (int maxv, bool with_camera_stages)
{
  Stages st;
  if (with_camera_stages) {
    st.black = maxv / 16;
    st.gains = { 1.9, 1.0, 1.45 };
    st.matrix = { 1.6, -0.4, -0.2, -0.3, 1.5, -0.2, 0.05, -0.6, 1.55 };
    st.saturation = 1.3;
    st.transfer = SRGB;
  }
  st.defect = true;
  st.defect_threshold = 0.15;
  st.shading = vignetting (5, 4, 1.8, { 1.05, 1.0, 0.98, 1.1 });
  st.shading_strength = 0.8;
  st.exposure = 1.3;
  return st;
}

/* ---- each stage alone, all together ---- */

GST_START_TEST (test_each_sensor_stage)
{
  const int maxv = 4095;
  std::vector<std::pair<std::string, Stages>> cases;
  Stages st;
  st.defect = true;
  cases.push_back ({"defects", st});
  st = Stages ();
  st.shading = vignetting (7, 5, 2.0, { 1.1, 1.0, 1.0, 0.9 });
  cases.push_back ({"lens shading", st});
  st.shading_strength = 0.5;
  cases.push_back ({"lens shading at half strength", st});
  for (double e : { 1.7, 0.6 }) {
    st = Stages ();
    st.exposure = e;
    cases.push_back ({"exposure " + std::to_string (e), st});
  }
  cases.push_back ({"every stage", sensor_stages (maxv, true)});
  Camera cam (format_caps ("RGBA64_LE"));
  uint32_t seed = 11;
  for (auto &c : cases) {
    cam.set (c.second);
    cam.check (random_mosaic (37, 23, 2, 12, seed++), 6, MALVAR, c.second, &RGBA64, c.first);
  }
}
GST_END_TEST

/* Every stage, every output format, each at a depth in turn (the camera
 * kernel reads the sensor pass's 16-bit words whatever the depth: one
 * program a format and method), tiny, odd and strip-sized frames, default
 * and padded rows, patterns in turn, malvar (bilinear for two formats). */
static Mosaic noisy_mosaic (const std::vector<Rgb> &image, int w, int h, int pattern, int bits,
    int black, double sigma, uint32_t seed);

static void
run_every_format (const std::vector<std::string> &only = {}, double denoise = 0)
{
  static const int sizes[][2] = { {2, 2}, {3, 5}, {37, 23}, {301, 13} };
  static const int depths[] = { 8, 10, 12, 16 };
  uint32_t seed = 500;
  int turn = 0;
  std::vector<const OutFormat *> formats;
  for (const OutFormat & f : out_formats)
    formats.push_back (&f);
  formats.push_back (nullptr);    /* NV12 */
  formats.push_back (nullptr);    /* I420 */
  for (size_t i = 0; i < formats.size (); i++) {
    const char *name = formats[i] ? formats[i]->name : i + 2 == formats.size () ? "NV12" :
        "I420";
    if (!only.empty () && std::find (only.begin (), only.end (), name) == only.end ())
      continue;
    const int bits = formats[i] && formats[i]->wide ? depths[1 + turn % 3] : depths[turn % 4];
    Stages st = sensor_stages ((1 << bits) - 1, true);
    st.denoise = denoise;
    Camera cam (format_caps (name), turn % 3 == 2);
    cam.set (st);
    const int pattern = turn++ % 4;
    const Method method = g_str_equal (name, "GRAY8") || g_str_equal (name, "I420") ?
        BILINEAR : MALVAR;
    for (int k = 0; k < 2; k++) {
      const int *s = sizes[(turn + k) % 4];
      const int pad = k ? (bits > 8 ? 6 : 5) : 0;
      /* the denoise on a noisy picture (on random samples it averages
       * nothing) */
      const Mosaic m = denoise > 0 ? noisy_mosaic (natural_image (s[0], s[1]), s[0], s[1],
          pattern, bits, st.black, 0.04 * denoise, seed++) :
          random_mosaic (s[0], s[1], pattern, bits, seed++);
      cam.check (m, pad, method, st, formats[i], std::string (name) +
          (method == MALVAR ? " malvar" : " bilinear") + (denoise > 0 ? " denoised" : ""));
    }
  }
}

GST_START_TEST (test_every_format) { run_every_format (); } GST_END_TEST

/* The other kernel shape than the device's own (on PoCL: the GPU blocks). */
GST_START_TEST (test_other_shape)
{
  const char *own = own_tuning ();
  use_tuning (own && g_str_equal (own, "gpu") ? "cpu" : "gpu");
  run_every_format ({ "RGBA", "BGR", "RGBA64_LE", "NV12", "I420" });
  /* (RGBA and RGBA64_LE: test_denoise_model's both shapes) */
  run_every_format ({ "NV12" }, 0.5);
}
GST_END_TEST

/* Every sensor stage, and the statistics and exposure alone (the raw
 * samples then), RGBA and NV12, at the sizes `sizes` with `tuning`'s
 * shape, against the model. */
static void
run_shape_edges (const char *tuning, std::initializer_list<std::array<int, 2>> sizes,
    uint32_t seed)
{
  use_tuning (tuning);
  Stages alone = sensor_stages (4095, true);
  alone.defect = false;
  alone.shading = Shading ();
  alone.exposure = 1.3;
  for (const char *name : { "RGBA", "NV12" }) {
    const OutFormat *f = nullptr;
    for (const OutFormat & o : out_formats)
      if (g_str_equal (o.name, name))
        f = &o;
    for (int k = 0; k < 2; k++) {
      const Stages st = k ? alone : sensor_stages (4095, true);
      Camera cam (format_caps (name));
      cam.set (st);
      g_object_set (cam.element, "statistics-interval", 1u, nullptr);
      for (auto &s : sizes)
        cam.check (random_mosaic (s[0], s[1], seed % 4, 12, seed), 0, MALVAR, st, f,
            std::string (name) + (k ? " statistics alone" : " every stage")), seed++;
    }
  }
}

/* The CPU shape (debayer_camera_sensor_cpu: the corrections in the camera
 * strips' ring, strips of 256 columns cut in rows from 64 rows on) at the
 * edges of its strips: widths around one and two strips, heights cut in
 * two, odd ones. */
GST_START_TEST (test_cpu_strips)
{
  run_shape_edges ("cpu", { {257, 131}, {528, 130}, {255, 129} }, 900);
}
GST_END_TEST

/* The GPU shape at the edges of its work-groups (debayer_camera's 8 x 2
 * blocks in groups of 16 x 8: 128 x 16 pixels; debayer_sensor's column
 * pairs in groups of 128 down strips of 16 rows: 256 x 16): frames that
 * end 1 and 2 columns or rows into a work-group's pixels, and on its edge. */
GST_START_TEST (test_gpu_groups)
{
  run_shape_edges ("gpu", { {257, 17}, {134, 33}, {258, 18}, {130, 50} }, 950);
}
GST_END_TEST

/* ---- defects and shading on a picture ---- */

/* The RGBA output of `m` through `cam`. */
static std::vector<guint8>
rgba_of (Camera & cam, const Mosaic & m)
{
  GstCaps *caps;
  GstBuffer *out = cam.push (m, 0, &caps);
  GstVideoInfo info;
  fail_unless (gst_video_info_from_caps (&info, caps));
  GstVideoFrame frame;
  fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
  std::vector<guint8> px ((size_t) m.w * m.h * 4);
  for (int y = 0; y < m.h; y++)
    memcpy (&px[(size_t) y * m.w * 4], (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), (size_t) m.w * 4);
  gst_video_frame_unmap (&frame);
  gst_caps_unref (caps);
  gst_buffer_unref (out);
  return px;
}

/* Hot and dead pixels and 2-pixel clusters (side by side, two colours) in
 * a photograph-like mosaic, some on the frame's edges and corners, every
 * colour: with defect-correction=dynamic they are gone (each output pixel
 * near one within the clean picture's own range around it, give or take
 * the threshold; more than 100 levels beyond it without), the pixels
 * whose demosaic reads no defect are the clean frame's exactly, and the
 * clean frame changes only around the few samples the model corrects in
 * it (thin lines of the picture). */
GST_START_TEST (test_defects_removed)
{
  const int w = 160, h = 120, bits = 12, maxv = 4095;
  const std::vector<Rgb> image = natural_image (w, h);
  const Mosaic clean = mosaic_of (image, w, h, 0, bits);
  Mosaic bad = clean;
  std::vector<std::array<int, 2>> spots = { {0, 0}, {w - 1, 0}, {0, h - 1}, {w - 1, h - 1},
    {1, 60}, {80, 0}, {w - 2, 77}, {33, h - 1}, {50, 50}, {51, 51}, {90, 31}, {91, 30} };
  std::mt19937 rng (5);
  while (spots.size () < 52) {   /* apart: no two defects among each other's neighbours */
    const std::array<int, 2> p = { (int) (8 + rng () % (w - 16)), (int) (8 + rng () % (h - 16)) };
    bool apart = true;
    for (auto &q : spots)
      apart = apart && (std::abs (p[0] - q[0]) > 4 || std::abs (p[1] - q[1]) > 3);
    if (apart)
      spots.push_back (p);
  }
  std::vector<bool> defect ((size_t) w * h, false);
  int n = 0;
  for (auto &p : spots) {
    const bool hot = n++ % 2 == 0;
    for (int k = 0; k < (n % 5 == 0 ? 2 : 1); k++) {   /* clusters: two side by side */
      const int x = p[0] + k < w ? p[0] + k : p[0] - 1, y = p[1];
      bad.v[(size_t) y * w + x] = hot ? maxv : 0;
      defect[(size_t) y * w + x] = true;
    }
  }
  Camera cam (format_caps ("RGBA"));
  Stages st;
  st.defect = true;   /* at the default threshold, 0.1 */
  cam.set (st);
  const std::vector<guint8> fixed = rgba_of (cam, bad), kept = rgba_of (cam, clean);
  /* the samples of the clean frame that the correction takes for defects
   * (thin dark stripes in the picture, by the model) */
  const std::vector<double> corrected = sensor_samples (clean, st);
  Stages none = st;
  none.defect = false;
  const std::vector<double> as_is = sensor_samples (clean, none);
  std::vector<bool> own ((size_t) w * h, false);
  int own_count = 0;
  for (size_t i = 0; i < own.size (); i++)
    own_count += own[i] = corrected[i] != as_is[i];
  cam.set (none);
  const std::vector<guint8> plain = rgba_of (cam, clean), broken = rgba_of (cam, bad);
  auto reads = [&] (const std::vector<bool> &which, int x, int y) {
    for (int dy = -2; dy <= 2; dy++)
      for (int dx = -2; dx <= 2; dx++)
        if (which[(size_t) border_index (y + dy, h, REFLECT) * w +
                border_index (x + dx, w, REFLECT)])
          return true;
    return false;
  };
  /* A defect is a sample beyond its neighbours by more than the threshold:
   * one within it (a hot pixel in a bright area, a dead one in a dark
   * area, one beside an edge) stays, and the demosaic spreads it at most as
   * much as it spreads any sample's step of that size. */
  const int allowed = (int) (1.5 * st.defect_threshold * 255) + 3;
  int near = 0, far = 0, worst_near = 0, changed = 0, worst_broken = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const bool near_defect = reads (defect, x, y), near_own = reads (own, x, y);
      for (int c = 0; c < 3; c++) {
        const size_t i = ((size_t) y * w + x) * 4 + c;
        /* (the corrected path carries 15-bit words: 1 level apart at most) */
        if (!near_own)
          changed += std::abs (kept[i] - plain[i]) > 1;
        if (near_defect) {
          /* no spike: within the picture's own range around the pixel */
          int lo = 255, hi = 0;
          for (int dy = -2; dy <= 2; dy++)
            for (int dx = -2; dx <= 2; dx++) {
              const int v = kept[((size_t) border_index (y + dy, h, REFLECT) * w +
                      border_index (x + dx, w, REFLECT)) * 4 + c];
              lo = std::min (lo, v);
              hi = std::max (hi, v);
            }
          const int beyond = std::max ({ 0, lo - fixed[i], fixed[i] - hi });
          worst_near = std::max (worst_near, beyond);
          near += beyond > allowed;
          worst_broken = std::max ({ worst_broken, lo - broken[i], broken[i] - hi });
        } else {
          far += fixed[i] != kept[i];
        }
      }
    }
  fail_unless (own_count < w * h / 100, "the correction takes %d samples of the clean frame "
      "for defects", own_count);
  fail_unless (changed == 0, "the correction changed %d channels of the clean frame that "
      "read no corrected sample", changed);
  fail_unless (far == 0, "%d channels away from the defects differ", far);
  fail_unless (near == 0, "%d channels near defects are beyond the clean picture's range "
      "around them by more than %d (worst %d)", near, allowed, worst_near);
  fail_unless (worst_broken > 100, "the defects stood out by %d only", worst_broken);
  /* the defects were visible before */
  int visible = 0;
  for (size_t i = 0; i < plain.size (); i++)
    visible += std::abs (broken[i] - plain[i]) > 20;
  fail_unless (visible > 50, "only %d channels showed the defects", visible);
}
GST_END_TEST

/* A known vignetting (darker, tinted corners) applied to a raw frame is
 * undone by its grid: the output within 1 of the unshaded frame's, with
 * malvar on both kernel shapes and with menon. */
static void
check_vignetting (int method)
{
  const int w = 203, h = 121, bits = 12;
  const std::vector<Rgb> image = natural_image (w, h);
  const Mosaic flat = mosaic_of (image, w, h, 3, bits);
  Stages st;
  st.shading = vignetting (9, 7, 2.2, { 1.15, 1.0, 1.0, 1.25 });
  Mosaic shaded = flat;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const double gain = st.shading.at (channel_at (flat, x, y), x, y, w, h);
      int &v = shaded.v[(size_t) y * w + x];
      v = (int) std::lround (v / gain);
    }
  Camera cam (format_caps ("RGBA"));
  cam.set (Stages ());
  g_object_set (cam.element, "method", method, nullptr);
  const std::vector<guint8> want = rgba_of (cam, flat), dark = rgba_of (cam, shaded);
  cam.set (st);
  const std::vector<guint8> got = rgba_of (cam, shaded);
  int worst = 0, worst_dark = 0, off = 0;
  for (size_t i = 0; i < want.size (); i++)
    if (i % 4 != 3) {
      worst = std::max (worst, std::abs (got[i] - want[i]));
      off += std::abs (got[i] - want[i]) > 1;
      worst_dark = std::max (worst_dark, std::abs (dark[i] - want[i]));
    }
  if (method == 0) {
    fail_unless (worst <= 1, "malvar: the shading corrected output is off by %d", worst);
  } else {
    /* menon's choice of direction may flip where the shaded frame's
     * rounding (to 12 bits, up to 1.4 steps after the gain) moved a
     * sample: a few pixels on edges */
    fail_unless (off <= (int) want.size () / 400 && worst <= 16, "menon: %d channels off by "
        "more than 1, worst %d", off, worst);
  }
  fail_unless (worst_dark > 40, "the vignetting was not visible (%d)", worst_dark);
}

GST_START_TEST (test_vignetting_undone)
{
  for (const char *tuning : { "cpu", "gpu" }) {
    use_tuning (tuning);
    check_vignetting (0);
    check_vignetting (2);   /* menon */
  }
}
GST_END_TEST

/* ---- statistics and auto exposure ---- */

/* The next cldebayer-statistics message on `bus`. */
static GstStructure *
next_statistics (GstBus * bus)
{
  for (;;) {
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
    if (!msg)
      return nullptr;
    const GstStructure *s = gst_message_get_structure (msg);
    GstStructure *copy = gst_structure_has_name (s, "cldebayer-statistics") ?
        gst_structure_copy (s) : nullptr;
    gst_message_unref (msg);
    if (copy)
      return copy;
  }
}

static double
array_double (const GstStructure * s, const char *field, guint i)
{
  const GValue *a = gst_structure_get_value (s, field);
  fail_unless (a && GST_VALUE_HOLDS_ARRAY (a) && i < gst_value_array_get_size (a));
  const GValue *v = gst_value_array_get_value (a, i);
  return G_VALUE_HOLDS_UINT64 (v) ? (double) g_value_get_uint64 (v) : g_value_get_double (v);
}

/* The histogram and zone means of every 3rd frame, with and without the
 * corrections, odd and tiny sizes, both shapes: counts equal to the
 * model's (cells within 1e-5 of a bin's edge may fall either side: float
 * against double), means within 1e-6; frame numbers and timestamps. */
GST_START_TEST (test_statistics_match_model)
{
  uint32_t seed = 40;
  for (const char *tuning : { "cpu", "gpu" }) {
    use_tuning (tuning);
    for (auto &c : { std::array<int, 3> {64, 48, 12}, std::array<int, 3> {37, 29, 10},
            std::array<int, 3> {5, 3, 8}, std::array<int, 3> {301, 131, 16} }) {
      Camera cam (format_caps ("NV12"));
      Stages st = sensor_stages ((1 << c[2]) - 1, true);
      cam.set (st);
      g_object_set (cam.element, "statistics-interval", 3u, nullptr);
      GstBus *bus = gst_bus_new ();
      gst_element_set_bus (cam.element, bus);
      std::vector<Mosaic> frames;
      const int pattern = seed % 4;
      for (int i = 0; i < 7; i++) {
        frames.push_back (random_mosaic (c[0], c[1], pattern, c[2], seed));
        seed++;
        GstCaps *caps;
        gst_buffer_unref (cam.push (frames.back (), 0, &caps));
        gst_caps_unref (caps);
      }
      /* the last frames' statistics come with EOS */
      gst_harness_push_event (cam.h, gst_event_new_eos ());
      for (int k = 0; k < 3; k++) {
        GstStructure *s = next_statistics (bus);
        fail_unless (s != nullptr, "no statistics message %d of %dx%d", k, c[0], c[1]);
        guint64 frame, pts;
        fail_unless (gst_structure_get_uint64 (s, "frame", &frame));
        fail_unless (gst_structure_get_uint64 (s, "pts", &pts));
        fail_unless_equals_uint64 (frame, 3 * k);
        const Statistics3A want = statistics_3a (frames[3 * k], st);
        long off = 0;
        for (guint b = 0; b < 64; b++)
          off += std::labs ((long) array_double (s, "histogram", b) - want.histogram[b]);
        fail_unless (off <= 2 * want.near_edge, "%dx%d frame %d: histogram off by %ld cells "
            "(%ld at bin edges)", c[0], c[1], 3 * k, off, want.near_edge);
        for (guint z = 0; z < 192; z++)
          fail_unless (std::fabs (array_double (s, "zones", z) - want.zones[z]) < 1e-6,
              "%dx%d zone %u: %.9f, model %.9f", c[0], c[1], z, array_double (s, "zones", z),
              want.zones[z]);
        gst_structure_free (s);
      }
      fail_unless (next_statistics (bus) == nullptr, "more messages than every 3rd frame");
      gst_element_set_bus (cam.element, nullptr);
      gst_object_unref (bus);
    }
  }
}
GST_END_TEST

/* A photograph-like mosaic scaled to `level` of its brightness. */
static Mosaic
scene (const std::vector<Rgb> &image, int w, int h, double level)
{
  Mosaic m = mosaic_of (image, w, h, 0, 12);
  for (int &v : m.v)
    v = (int) std::lround (v * level);
  return m;
}

/* Auto exposure on a dark scene reaches the target within 2 % in 30 frames
 * (the mean of the zone means times the gain in force), and on a scene
 * flickering between two levels, frame by frame and with a period of 3,
 * the gain settles without swinging (within 2 % of its mean over the last
 * 12 frames). */
GST_START_TEST (test_auto_exposure)
{
  const int w = 96, h = 64;
  const std::vector<Rgb> image = natural_image (w, h);
  const Mosaic dark = scene (image, w, h, 0.08);
  Stages st;
  const double mean = statistics_3a (dark, st).zone_mean;
  Camera cam (format_caps ("NV12"));
  g_object_set (cam.element, "exposure", 1, "exposure-target", 0.18, nullptr);
  double gain = 0;
  for (int i = 0; i < 30; i++) {
    GstCaps *caps;
    gst_buffer_unref (cam.push (dark, 0, &caps));
    gst_caps_unref (caps);
  }
  g_object_get (cam.element, "exposure-gain", &gain, nullptr);
  fail_unless (std::fabs (gain * mean / 0.18 - 1) < 0.02, "dark scene: gain %f gives %f, "
      "target 0.18", gain, gain * mean);

  for (int period : { 2, 3 }) {
    const Mosaic a = scene (image, w, h, 0.3), b = scene (image, w, h, 0.15);
    Camera flicker (format_caps ("NV12"));
    g_object_set (flicker.element, "exposure", 1, nullptr);
    std::vector<double> gains;
    for (int i = 0; i < 48; i++) {
      GstCaps *caps;
      gst_buffer_unref (flicker.push (i % period ? b : a, 0, &caps));
      gst_caps_unref (caps);
      g_object_get (flicker.element, "exposure-gain", &gain, nullptr);
      gains.push_back (gain);
    }
    double avg = 0;
    for (int i = 36; i < 48; i++)
      avg += gains[i] / 12;
    for (int i = 36; i < 48; i++)
      fail_unless (std::fabs (gains[i] / avg - 1) < 0.02, "period %d: gain %f at frame %d, "
          "mean %f", period, gains[i], i, avg);
  }
}
GST_END_TEST

/* ---- denoise ---- */

/* A photograph-like mosaic at `bits` above black level `black`, with
 * Poisson-Gaussian noise of sigma `sigma` (of full scale above black, at
 * mid grey: variance sigma^2 (1.8 x + 0.1) at a sample x of full scale 1),
 * kept below black (a sensor's pedestal) and clipped at 0 and full scale. */
static Mosaic
noisy_mosaic (const std::vector<Rgb> &image, int w, int h, int pattern, int bits, int black,
    double sigma, uint32_t seed)
{
  Mosaic m = mosaic_of (image, w, h, pattern, bits);
  std::mt19937 rng (seed);
  std::normal_distribution<double> normal;
  const int maxv = m.maxv ();
  for (int &v : m.v) {
    const double x = (double) v / maxv;
    const double noisy = x + sigma * std::sqrt (1.8 * x + 0.1) * normal (rng);
    v = std::clamp ((int) std::lround (black + noisy * (maxv - black)), 0, maxv);
  }
  return m;
}

/* The denoise against the model (denoised_mosaic): alone and with every
 * camera stage, strengths 0.25 to 1 on noise of their sigma, 8 to 16-bit
 * input, tiny, odd and larger frames (taller than a GPU work-group's
 * tile), padded rows, every pattern, 8- and
 * 16-bit outputs, both kernel shapes; and it does average (the output
 * differs from the frame's without it). */
GST_START_TEST (test_denoise_model)
{
  /* 45 x 150: 75 cell rows, three of the GPU's work-group tiles (32 cells
   * high) and their margins */
  static const int sizes[][2] = { {2, 2}, {3, 5}, {37, 23}, {70, 41}, {45, 150} };
  static const int depths[] = { 8, 10, 12, 16 };
  static const double strengths[] = { 0.25, 0.5, 1 };
  uint32_t seed = 300;
  for (const char *tuning : { "cpu", "gpu" }) {
    use_tuning (tuning);
    for (const OutFormat *f : { &RGBA, &RGBA64 }) {
      for (int all = 0; all < 2; all++) {
        Camera cam (format_caps (f->name));
        for (int i = 0; i < 5; i++) {
          const int bits = f->wide ? depths[1 + (i + all) % 3] : depths[(i + all) % 4];
          const int maxv = (1 << bits) - 1;
          Stages st = all ? all_stages (maxv) : Stages ();
          if (!all)
            st.black = maxv / 20;
          st.denoise = strengths[(i + all) % 3];
          cam.set (st);
          const int *s = sizes[i];
          const Mosaic m = noisy_mosaic (natural_image (s[0], s[1], 8), s[0], s[1], seed % 4, bits,
              st.black, 0.04 * st.denoise, seed);
          seed++;
          const std::string label = std::string (tuning) + (all ? " every stage" : " alone") +
              " strength " + std::to_string (st.denoise);
          cam.check (m, i % 2 ? (bits > 8 ? 6 : 3) : 0, MALVAR, st, f, label);
          if (s[0] >= 37) {
            /* it averages: the model without the denoise is far off */
            Stages plain = st;
            plain.denoise = 0;
            const std::vector<RgbF> a = camera_reference (m, MALVAR, plain);
            const std::vector<RgbF> b = camera_reference (denoised_mosaic (m, st.black,
                    st.denoise, f->wide ? 16 : 15), MALVAR, [&] {
                  Stages words = plain;
                  words.black = 0;
                  return words;
                } ());
            double moved = 0;
            for (size_t p = 0; p < a.size (); p++)
              for (int c = 0; c < 3; c++)
                moved += std::fabs (a[p][c] - b[p][c]);
            /* (0.0004 to 0.02 here: less where the gains clip) */
            fail_unless (moved / (3 * a.size ()) > 0.0002, "%s: the denoise moved the picture "
                "by %f only", label.c_str (), moved / (3 * a.size ()));
          }
        }
      }
    }
  }
}
GST_END_TEST

/* The output formats with every stage and the denoise (its words in place
 * of the input): one of each kind the camera kernel writes (4-channel,
 * 3-channel, grey, 16-bit: 16-bit words, NV12, I420). The camera kernel
 * reads the words alike whoever wrote them: test_every_format has every
 * format after the sensor pass's words (each format's program takes
 * PoCL 10-20 s to build cold in CI). */
GST_START_TEST (test_every_format_denoised)
{
  run_every_format ({ "RGBA", "BGR", "GRAY8", "RGBA64_LE", "NV12", "I420" }, 0.5);
}
GST_END_TEST

/* The colour channels of an RGBA frame, for psnr (ref_debayer.h). */
static std::vector<Rgb>
rgb_of (const std::vector<guint8> &rgba)
{
  std::vector<Rgb> px (rgba.size () / 4);
  for (size_t i = 0; i < px.size (); i++)
    px[i] = { rgba[4 * i], rgba[4 * i + 1], rgba[4 * i + 2] };
  return px;
}

/* The denoise's quality on a photograph-like 12-bit frame (texture down
 * to 8 pixels: the patches find their like) on a black
 * level of 256, sRGB out: on noise of sigma 2 % and 4 % the strength
 * made for it (0.5, 1) is at least 3 dB closer to the noise-free output
 * than no denoise; on the noise-free frame strength 0.25 stays within
 * 40 dB of it. */
GST_START_TEST (test_denoise_quality)
{
  const int w = 160, h = 120, bits = 12, black = 256;
  const std::vector<Rgb> image = natural_image (w, h, 8);
  Stages st;
  st.black = black;
  st.transfer = SRGB;
  Camera cam (format_caps ("RGBA"));
  cam.set (st);
  const Mosaic clean = noisy_mosaic (image, w, h, 3, bits, black, 0, 1);
  const std::vector<guint8> want = rgba_of (cam, clean);
  for (double sigma : { 0.02, 0.04 }) {
    const Mosaic noisy = noisy_mosaic (image, w, h, 3, bits, black, sigma, 2);
    g_object_set (cam.element, "denoise", 0.0, nullptr);
    const double none = psnr (rgb_of (rgba_of (cam, noisy)), rgb_of (want), w, h);
    g_object_set (cam.element, "denoise", sigma / 0.04, nullptr);
    const double denoised = psnr (rgb_of (rgba_of (cam, noisy)), rgb_of (want), w, h);
    GST_INFO ("sigma %g: %.2f dB without, %.2f with", sigma, none, denoised);
    fail_unless (denoised >= none + 3, "sigma %g: %.2f dB with the denoise, %.2f without", sigma,
        denoised, none);
  }
  g_object_set (cam.element, "denoise", 0.25, nullptr);
  const double kept = psnr (rgb_of (rgba_of (cam, clean)), rgb_of (want), w, h);
  fail_unless (kept >= 40, "the noise-free frame at strength 0.25: %.2f dB", kept);
}
GST_END_TEST

/* ---- while playing, and refusals ---- */

/* Every numeric property of the sensor pass and the denoise's strength
 * changed between frames: each frame matches the model, and nothing is
 * rebuilt after the first. */
GST_START_TEST (test_changes_rebuild_nothing)
{
  Camera cam (format_caps ("RGBA"));
  Stages st = sensor_stages (4095, true);
  st.denoise = 0.3;
  cam.set (st);
  g_object_set (cam.element, "statistics-interval", 2u, nullptr);
  uint32_t seed = 70;
  cam.check (random_mosaic (30, 20, 1, 12, seed++), 0, MALVAR, st, &RGBA, "first");
  const unsigned builds = gstcl::program_builds ();
  const std::vector<Rgb> image = natural_image (30, 20);
  for (int i = 0; i < 5; i++) {
    st.defect_threshold = 0.05 + 0.1 * i;
    st.shading_strength = 0.2 * i;
    st.exposure = 0.5 + 0.4 * i;
    st.denoise = 0.2 + 0.2 * i;
    cam.set (st);
    g_object_set (cam.element, "statistics-interval", (guint) (1 + i), nullptr);
    cam.check (noisy_mosaic (image, 30, 20, 1, 12, st.black, 0.01 + 0.01 * i, seed++), 0, MALVAR,
        st, &RGBA, "change " + std::to_string (i));
  }
  fail_unless_equals_int (gstcl::program_builds () - builds, 0);
}
GST_END_TEST

/* A lens-shading file with a bad line: the launch line's element does not
 * start, naming the file and the line. */
GST_START_TEST (test_bad_shading_file)
{
  const std::string path = Camera::shading_path ();
  FILE *f = fopen (path.c_str (), "w");
  fail_unless (f != nullptr);
  fputs ("lens-shading 2 2\n1 1\n1 1\n1 1\n1 1\n1 1\n1 0\n1 1\n1 1\n", f);
  fclose (f);
  check_refused_at_start (("videotestsrc num-buffers=1 ! video/x-bayer,format=rggb,width=8,"
      "height=8 ! cldebayer lens-shading-file=" + path + " ! fakesink").c_str (),
      "lens-shading-file", ":7:", 1);
  unlink (path.c_str ());
}
GST_END_TEST

static Suite *
sensor_suite (void)
{
  Suite *s = suite_create ("cldebayer-sensor");
  TCase *tc = tuning_tcase (s);
  tcase_add_test (tc, test_each_sensor_stage);
  tcase_add_test (tc, test_every_format);
  tcase_add_test (tc, test_other_shape);
  tcase_add_test (tc, test_cpu_strips);
  tcase_add_test (tc, test_gpu_groups);
  tcase_add_test (tc, test_defects_removed);
  tcase_add_test (tc, test_vignetting_undone);
  tcase_add_test (tc, test_statistics_match_model);
  tcase_add_test (tc, test_auto_exposure);
  tcase_add_test (tc, test_denoise_model);
  tcase_add_test (tc, test_every_format_denoised);
  tcase_add_test (tc, test_denoise_quality);
  tcase_add_test (tc, test_changes_rebuild_nothing);
  tcase_add_test (tc, test_bad_shading_file);
  return s;
}

GST_CHECK_MAIN (sensor);
