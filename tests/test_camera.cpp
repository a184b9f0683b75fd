/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cldebayer's camera stages (black level, white balance, colour matrix,
 * saturation, transfer curve) and its NV12 / I420 output against the CPU
 * model of ref_camera.h: each stage alone and all together, 8- to 16-bit
 * input, every output format at odd sizes and padded strides, changes while
 * playing (no rebuild), auto white balance converging on a colour cast with
 * no frame read back to the host, default output unchanged, and fixation
 * keeping colour. */
#include "cltest.h"
#include "camera_harness.h"

#include <gst/app/gstappsink.h>
#include <gst/opencl/gstcl.hpp>
#include <gst/opencl/gstclmemory.h>

using namespace cltest;
using namespace camera_ref;

/* ---- frames in row bands ---- */

/* On the staging path of discrete GPUs the GPU shape uploads, computes and
 * downloads each frame in row bands (gstclbands.hpp, at most 4 of whole
 * 16-row work-groups) for input frames of 8 MB or more by default, at any
 * size with GST_OPENCL_BANDS=1 (here), never with =0: the output is
 * still the model's, at one band's height and at several (odd heights, the
 * last band short), with and without the sensor pass (whose bands run ahead
 * of the camera kernel's), for system-memory input (uploaded in bands from the buffer's map),
 * OpenCL memory written by the host (from its staging area) and input on
 * the device (clupload: only the download in bands); the counters say how
 * many frames went in bands. */
GST_START_TEST (test_frames_in_bands)
{
  g_setenv ("GST_OPENCL_MEMORY", "staging", TRUE);
  g_setenv ("GST_OPENCL_BANDS", "1", TRUE);
  use_tuning ("gpu");
  static const int sizes[][2] = { {37, 15}, {37, 23}, {61, 149} };
  uint32_t seed = 900;
  guint64 up = 0, down = 0;
  for (bool sensor : { false, true })
    for (int input : { 0, 1, 2 })
      for (const char *name : { "NV12", "RGBA" }) {
        /* system memory, clupload's, OpenCL memory written by the host */
        const bool cl_input = input == 1;
        if (name[0] == 'R' && (sensor || input))
          continue;   /* one case of another format's planes (builds take time on PoCL) */
        const OutFormat *f = nullptr;
        for (const OutFormat & o : out_formats)
          if (g_str_equal (o.name, name))
            f = &o;
        Stages st = all_stages (4095);
        if (sensor) {
          st.defect = true;
          st.shading = vignetting (5, 4, 1.8, { 1.05, 1.0, 0.98, 1.1 });
        }
        Camera cam (format_caps (name), cl_input);
        cam.cl_memory = input == 2;
        cam.set (st);
        for (auto &size : sizes) {
          GstClMemoryStats before, after;
          gst_cl_memory_get_stats (&before);
          cam.check (random_mosaic (size[0], size[1], seed % 4, 12, seed), 6, MALVAR, st, f,
              std::string ("bands ") + name + (sensor ? " sensor" : "") +
              (cl_input ? " clupload" : input == 2 ? " OpenCL memory" : ""));
          seed++;
          gst_cl_memory_get_stats (&after);
          /* 16 rows a band at least: a frame of 23 rows goes up in two;
           * the output's bands trail the input's (2 rows of margin a
           * pass), so it comes down whole, and one of 149 rows in several */
          fail_unless_equals_uint64 (after.band_uploads - before.band_uploads,
              !cl_input && size[1] > 16);
          fail_unless_equals_uint64 (after.band_downloads - before.band_downloads,
              size[1] > 32);
          /* one or two launches a band: up to 4 bands (149 rows: 48 each) */
          if (!cl_input && !sensor)
            fail_unless_equals_uint64 (after.band_upload_bands - before.band_upload_bands,
                size[1] > 128 ? 4 : size[1] > 16 ? 2 : 0);
          up += after.band_uploads - before.band_uploads;
          down += after.band_downloads - before.band_downloads;
        }
      }
  fail_unless (up == 10 && down == 7, "%" G_GUINT64_FORMAT " frames up and %" G_GUINT64_FORMAT
      " down in bands", up, down);
  /* by default only from 8 MB of input (2048 x 3907 8-bit: 8.0 MB, one
   * byte short of a row less), never with GST_OPENCL_BANDS=0 */
  for (const char *env : { (const char *) nullptr, "0" })
    for (int height : { 3907, 3906 }) {
      if (env)
        g_setenv ("GST_OPENCL_BANDS", env, TRUE);
      else
        g_unsetenv ("GST_OPENCL_BANDS");
      Camera cam (format_caps ("NV12"));
      cam.set (Stages ());
      GstClMemoryStats before, after;
      gst_cl_memory_get_stats (&before);
      GstCaps *caps;
      gst_buffer_unref (cam.push (random_mosaic (2048, height, 0, 8, seed++), 0, &caps));
      gst_caps_unref (caps);
      gst_cl_memory_get_stats (&after);
      const bool banded = !env && height == 3907;
      fail_unless_equals_uint64 (after.band_uploads - before.band_uploads, banded);
      fail_unless_equals_uint64 (after.band_downloads - before.band_downloads, banded);
    }
  g_unsetenv ("GST_OPENCL_MEMORY");
  g_unsetenv ("GST_OPENCL_BANDS");
}
GST_END_TEST

/* Frames in bands back to back: each is handed on with its last band's
 * reads queued (the harness takes the next while it is read), yet every
 * output, mapped later, is that of the same frames on one queue, with the
 * sensor pass, the denoise and the picture stages, from system memory and
 * from OpenCL memory written by the host. */
GST_START_TEST (test_bands_back_to_back)
{
  g_setenv ("GST_OPENCL_MEMORY", "staging", TRUE);
  use_tuning ("gpu");
  const int n = 6;
  std::vector<Mosaic> frames;
  for (int i = 0; i < n; i++)
    frames.push_back (random_mosaic (321, 600, 0, 12, 700 + i));
  for (int input : { 0, 2 }) {
    std::vector<std::vector<guint8>> out[2];
    for (int banded : { 0, 1 }) {
      g_setenv ("GST_OPENCL_BANDS", banded ? "1" : "0", TRUE);
      Camera cam (format_caps ("NV12"));
      cam.cl_memory = input == 2;
      Stages st = all_stages (4095);
      st.defect = true;
      cam.set (st);
      g_object_set (cam.element, "denoise", 0.5, "sharpen", 1.0, nullptr);
      GstClMemoryStats before, after;
      gst_cl_memory_get_stats (&before);
      /* the first frame alone (the build), then the rest without a wait */
      GstCaps *caps;
      std::vector<GstBuffer *> pulled { cam.push (frames[0], 6, &caps) };
      gst_caps_unref (caps);
      for (int i = 1; i < n; i++) {
        GstBuffer *in = mosaic_buffer (frames[i], 6);
        if (cam.cl_memory)
          in = Camera::on_device_memory (in);
        fail_unless_equals_int (gst_harness_push (cam.h, in), GST_FLOW_OK);
      }
      for (int i = 1; i < n; i++)
        pulled.push_back (gst_harness_pull (cam.h));
      for (GstBuffer *b : pulled) {
        fail_unless (b != nullptr);
        GstMapInfo map;
        gst_buffer_map (b, &map, GST_MAP_READ);
        out[banded].emplace_back (map.data, map.data + map.size);
        gst_buffer_unmap (b, &map);
        gst_buffer_unref (b);
      }
      gst_cl_memory_get_stats (&after);
      fail_unless_equals_uint64 (after.band_uploads - before.band_uploads,
          banded ? n : 0);
      fail_unless_equals_uint64 (after.band_downloads - before.band_downloads,
          banded ? n : 0);
      /* 5 launches a band (the denoise's two, the sensor pass, the camera
       * kernel, the finish): 3 bands of 256 rows, not 4 of 192 */
      fail_unless_equals_uint64 (after.band_upload_bands - before.band_upload_bands,
          banded ? 3 * n : 0);
    }
    for (int i = 0; i < n; i++)
      fail_unless (out[0][i] == out[1][i], "input %d, frame %d: not the one queue's bytes",
          input, i);
    fail_unless (out[0][0] != out[0][1]);
  }
  use_tuning (nullptr);
  g_unsetenv ("GST_OPENCL_BANDS");
  g_unsetenv ("GST_OPENCL_MEMORY");
}
GST_END_TEST

/* ---- each stage alone, all together ---- */

GST_START_TEST (test_each_stage_alone)
{
  const int bits = 12, maxv = (1 << bits) - 1;
  std::vector<std::pair<std::string, Stages>> cases;
  Stages st;
  st.black = 256;
  cases.push_back ({"black-level", st});
  st = Stages ();
  st.gains = { 2.0, 0.8, 1.5 };
  cases.push_back ({"white-balance", st});
  st = Stages ();
  st.matrix = { 1.7, -0.5, -0.2, -0.2, 1.4, -0.2, 0.0, -0.5, 1.5 };
  cases.push_back ({"color-matrix", st});
  st = Stages ();
  st.saturation = 0.4;
  cases.push_back ({"saturation", st});
  for (Transfer t : { SRGB, BT709, GAMMA }) {
    st = Stages ();
    st.transfer = t;
    st.gamma = 2.6;
    cases.push_back ({"transfer " + std::to_string (t), st});
  }
  cases.push_back ({"all", all_stages (maxv)});
  Camera cam (format_caps ("RGBA64_LE"));
  uint32_t seed = 1;
  for (auto &c : cases) {
    cam.set (c.second);
    cam.check (random_mosaic (37, 23, 3, bits, seed++), 6, MALVAR, c.second, &RGBA64, c.first);
  }
}
GST_END_TEST

/* All stages, every output format of every depth (patterns in turn), odd
 * and tiny sizes, default and padded rows, both methods. */
static void
run_every_format (std::initializer_list<int> depths)
{
  /* tiny, odd, and large enough for the CPU shape's interior (cells) */
  static const int sizes[][2] = { {2, 2}, {3, 3}, {37, 23}, {301, 13} };
  uint32_t seed = 100;
  int turn = 0;
  for (int bits : depths) {
    const Stages st = all_stages ((1 << bits) - 1);
    std::vector<const OutFormat *> formats;
    for (const OutFormat & f : out_formats)
      if (!f.wide || bits > 8)
        formats.push_back (&f);
    formats.push_back (nullptr);    /* NV12 */
    formats.push_back (nullptr);    /* I420 */
    for (size_t i = 0; i < formats.size (); i++) {
      const char *name = formats[i] ? formats[i]->name : i + 2 == formats.size () ? "NV12" :
          "I420";
      Camera cam (format_caps (name), turn % 3 == 2);
      cam.set (st);
      const int pattern = turn++ % 4;
      for (auto &s : sizes)
        for (int pad : { 0, bits > 8 ? 6 : 5 }) {
          const Method method = (seed & 1) ? BILINEAR : MALVAR;
          cam.check (random_mosaic (s[0], s[1], pattern, bits, seed++), pad, method, st,
              formats[i], std::string (name) + (method == MALVAR ? " malvar" : " bilinear"));
        }
    }
  }
}

GST_START_TEST (test_every_format_8_12bit) { run_every_format ({8, 12}); } GST_END_TEST
GST_START_TEST (test_every_format_10_16bit) { run_every_format ({10, 16}); } GST_END_TEST

/* The other kernel shape than the device's own (on PoCL: the GPU blocks). */
GST_START_TEST (test_every_format_other_shape)
{
  const char *own = own_tuning ();
  use_tuning (own && g_str_equal (own, "gpu") ? "cpu" : "gpu");
  run_every_format ({12});
}
GST_END_TEST

/* Rows aligned to 16 bytes (the GPU shape's 128-bit store variant) at
 * widths that are and are not multiples of 8, for 4-channel and YUV
 * outputs. */
GST_START_TEST (test_aligned_rows)
{
  use_tuning ("gpu");
  uint32_t seed = 7;
  for (const char *name : { "RGBA", "RGBA64_LE", "NV12", "I420" }) {
    const OutFormat *f = nullptr;
    for (const OutFormat & o : out_formats)
      if (g_str_equal (o.name, name))
        f = &o;
    Camera cam (format_caps (name));
    const Stages st = all_stages (4095);
    cam.set (st);
    for (auto &s : { std::array<int, 2> {64, 18}, std::array<int, 2> {48, 7},
            std::array<int, 2> {32, 2} })
      cam.check (random_mosaic (s[0], s[1], seed % 4, 12, seed), 0, MALVAR, st, f, name), seed++;
  }
}
GST_END_TEST

/* BT.601 and BT.709, limited and full range, as the caps say. */
GST_START_TEST (test_yuv_colorimetry)
{
  uint32_t seed = 50;
  for (const char *colorimetry : { "bt601", "bt709", "1:4:0:0", "1:3:5:1" })
    for (const char *format : { "NV12", "I420" }) {
      Camera cam (format_caps (format) + ",colorimetry=" + colorimetry);
      const Stages st = all_stages (255);
      cam.set (st);
      cam.check (random_mosaic (21, 13, 0, 8, seed++), 0, MALVAR, st, nullptr,
          std::string (format) + " " + colorimetry);
    }
}
GST_END_TEST

/* ---- while playing ---- */

/* Every parameter changed between frames: each frame matches the model of
 * the settings in force, and nothing is rebuilt after the first frame. */
GST_START_TEST (test_changes_while_playing)
{
  Camera cam (format_caps ("NV12"));
  Stages st = all_stages (1023);
  cam.set (st);
  uint32_t seed = 900;
  cam.check (random_mosaic (30, 20, 1, 10, seed++), 0, MALVAR, st, nullptr, "first");
  const unsigned builds = gstcl::program_builds ();
  for (int i = 0; i < 6; i++) {
    st.black = 16 * i;
    st.gains = { 1.0 + 0.2 * i, 1.0, 2.0 - 0.1 * i };
    st.matrix[0] = 1.0 + 0.1 * i;
    st.saturation = 0.5 * i;
    st.transfer = (Transfer) (i % 4);
    st.gamma = 1.5 + i;
    cam.set (st);
    cam.check (random_mosaic (30, 20, 1, 10, seed++), 0, MALVAR, st, nullptr,
        "change " + std::to_string (i));
  }
  fail_unless_equals_int (gstcl::program_builds () - builds, 0);
}
GST_END_TEST

/* The grey-world sums of `m` (R, both G, B, after black level) over the
 * 2x2 cells inside the frame whose largest sample after black level is in
 * [2 %, 98 %) of full scale; returns their count. */
static guint64
grey_world (const Mosaic & m, int black, double sum[3])
{
  guint64 kept = 0;
  const double range = m.maxv () - black;
  sum[0] = sum[1] = sum[2] = 0;
  for (int y = 0; y + 1 < m.h; y += 2)
    for (int x = 0; x + 1 < m.w; x += 2) {
      double cell[3] = { 0, 0, 0 }, top = 0;
      for (int dy = 0; dy < 2; dy++)
        for (int dx = 0; dx < 2; dx++) {
          const double v = std::max (std::min (m.at (x + dx, y + dy), m.maxv ()) - black, 0);
          const char c = colour_at (m, x + dx, y + dy);
          cell[c == 'r' ? 0 : c == 'g' ? 1 : 2] += v;
          top = std::max (top, v);
        }
      if (top >= std::ceil (0.02 * range) && top < std::ceil (0.98 * range)) {
        kept++;
        for (int c = 0; c < 3; c++)
          sum[c] += cell[c];
      }
    }
  return kept;
}

/* A grey scene (random grey levels) seen through a colour cast: auto white
 * balance reaches the grey-world gains (computed here from the raw frame)
 * within 0.5 % in 30 frames, the output comes out grey, and no frame goes
 * back to the host for the statistics. */
GST_START_TEST (test_auto_white_balance)
{
  const int w = 200, h = 48, bits = 12, maxv = 4095, black = 64;   /* interior and rim */
  const double cast[3] = { 0.55, 1.0, 0.8 };
  Mosaic m = blank_mosaic (w, h, 2, bits);
  std::mt19937 rng (3);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      /* grey blocks of 4x4 pixels, some clipped and some black */
      std::mt19937 block ((uint32_t) ((y / 4) * 1000 + x / 4));
      const double grey = (block () % 1000) / 900.0;
      const char c = colour_at (m, x, y);
      const double v = grey * cast[c == 'r' ? 0 : c == 'g' ? 1 : 2] * (maxv - black);
      m.v[(size_t) y * w + x] = std::min (black + (int) v + (int) (rng () % 3), maxv);
    }
  /* The target: means over the 2x2 cells kept. */
  double sum[3];
  const guint64 kept = grey_world (m, black, sum);
  const double range = maxv - black;
  const double target[3] = { sum[1] / 2 / sum[0], 1.0, sum[1] / 2 / sum[2] };

  Camera cam (format_caps ("RGBA"));
  g_object_set (cam.element, "black-level", (guint) black, "white-balance", 2, nullptr);
  GstClMemoryStats before, after;
  gst_cl_memory_get_stats (&before);
  const int frames = 30;
  for (int i = 0; i < frames; i++) {
    GstCaps *caps;
    GstBuffer *out = cam.push (m, 0, &caps);
    gst_caps_unref (caps);
    gst_buffer_unref (out);
  }
  gst_cl_memory_get_stats (&after);
  /* one upload (or, on a unified device, a wrap of the input: no copy) and
   * one download per frame, nothing more */
  fail_unless_equals_uint64 (after.uploads + after.wrapped - before.uploads - before.wrapped,
      frames);
  fail_unless_equals_uint64 (after.downloads - before.downloads, frames);
  double gains[3];
  g_object_get (cam.element, "red-gain", &gains[0], "green-gain", &gains[1], "blue-gain",
      &gains[2], nullptr);
  for (int c = 0; c < 3; c++)
    fail_unless (std::fabs (gains[c] / target[c] - 1) < 0.005,
        "gain %d: %f, target %f (cast %f)", c, gains[c], target[c], cast[c]);
  GstStructure *stats = nullptr;
  g_object_get (cam.element, "statistics", &stats, nullptr);
  fail_unless (stats != nullptr);
  guint64 read_back = 0, cells = 0;
  double red_mean = 0;
  fail_unless (gst_structure_get_uint64 (stats, "frames", &read_back));
  fail_unless (gst_structure_get_uint64 (stats, "cells", &cells));
  fail_unless (gst_structure_get_double (stats, "red-mean", &red_mean));
  /* several launches gathered (each frame is downloaded before the next
   * comes, so the last read is back by then) */
  fail_unless (read_back >= 2 && read_back <= (guint64) frames, "%" G_GUINT64_FORMAT
      " frames' statistics read back", read_back);
  /* the frame's cells, once each (every frame is the same; the counters
   * zeroed between two launches that gather) */
  fail_unless_equals_uint64 (cells, kept);
  fail_unless (std::fabs (red_mean - sum[0] / kept / range) < 1e-9, "red mean %f, model %f",
      red_mean, sum[0] / kept / range);
  gst_structure_free (stats);

  /* The frame now comes out grey: the gains in force are the model's. */
  Stages st;
  st.black = black;
  for (int c = 0; c < 3; c++)
    st.gains[c] = gains[c];
  cam.check (m, 0, MALVAR, st, &RGBA, "after auto white balance");
}
GST_END_TEST

/* Auto white balance where grey world has nothing to go on: frames whose
 * green sites are 0, the same among saturated cells (Aravis's fake camera:
 * its saturated colour map leaves only cells with no green below the 98 %
 * cut), and a trace of green under strong red and blue. The gains stay
 * finite within [1/16, 16] (docs/cldebayer.md) and the output is not
 * black. */
GST_START_TEST (test_auto_white_balance_bounds)
{
  const int w = 64, h = 32, bits = 12, maxv = 4095;
  struct Case { const char *what; int r, g, b; bool saturated_cells; double gain_lo, gain_hi; };
  static const Case cases[] = {
    {"no green", 1500, 0, 900, false, 1.0, 1.0},           /* no estimate: gains stay */
    {"no green, saturated cells", 2000, 0, 2000, true, 1.0, 1.0},
    {"a trace of green", 4000, 1, 3000, false, 1.0 / 16, 1.0 / 16},   /* the lower bound */
  };
  for (const Case &c : cases) {
    Mosaic m = blank_mosaic (w, h, 2, bits);
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        const char col = colour_at (m, x, y);
        /* every other 2x2 cell saturated: all four samples at full scale */
        const bool full = c.saturated_cells && ((x / 2 + y / 2) % 2 == 0);
        m.v[(size_t) y * w + x] = full ? maxv : col == 'r' ? c.r : col == 'g' ? c.g : c.b;
      }
    Camera cam (format_caps ("RGBA"));
    g_object_set (cam.element, "white-balance", 2, nullptr);
    GstBuffer *out = nullptr;
    for (int i = 0; i < 30; i++) {
      GstCaps *caps;
      if (out)
        gst_buffer_unref (out);
      out = cam.push (m, 0, &caps);
      gst_caps_unref (caps);
    }
    double gains[3];
    g_object_get (cam.element, "red-gain", &gains[0], "green-gain", &gains[1], "blue-gain",
        &gains[2], nullptr);
    for (int k : { 0, 2 })
      fail_unless (std::isfinite (gains[k]) && gains[k] >= c.gain_lo * 0.995 &&
          gains[k] <= c.gain_hi * 1.005, "%s: gain %d is %g, not in [%g, %g]", c.what, k,
          gains[k], c.gain_lo, c.gain_hi);
    fail_unless (std::fabs (gains[1] - 1) < 1e-9, "%s: green gain %g", c.what, gains[1]);
    GstMapInfo map;
    fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
    guint64 sum = 0;
    for (gsize i = 0; i < map.size; i += 4)
      sum += map.data[i] + map.data[i + 1] + map.data[i + 2];
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
    fail_unless (sum > (guint64) w * h * 8, "%s: the output is black (sum %" G_GUINT64_FORMAT
        ")", c.what, sum);
  }
}
GST_END_TEST

/* The CPU shape (debayer_camera_cpu: strips of 256 columns, cut in rows
 * at 64 rows and more) at the edges of its strips: widths around one and
 * two strips, heights cut in two strips of rows, odd ones included,
 * against the model; and the auto white balance's cells counted once over
 * several strips. */
GST_START_TEST (test_cpu_strips)
{
  use_tuning ("cpu");
  uint32_t seed = 300;
  const Stages st = all_stages (4095);
  for (const char *name : { "RGBA", "NV12" }) {   /* (I420 at 301 columns: above) */
    const OutFormat *f = nullptr;
    for (const OutFormat & o : out_formats)
      if (g_str_equal (o.name, name))
        f = &o;
    Camera cam (format_caps (name));
    cam.set (st);
    for (auto &s : { std::array<int, 2> {257, 131}, std::array<int, 2> {528, 130},
            std::array<int, 2> {255, 129} })
      cam.check (random_mosaic (s[0], s[1], seed % 4, 12, seed), 0, MALVAR, st, f, name), seed++;
  }
  /* 3 x 2 strips at least (at most 64 rows would make one) */
  const Mosaic m = random_mosaic (529, 131, 1, 12, seed);
  double sum[3];
  const guint64 kept = grey_world (m, 100, sum);
  Camera cam (format_caps ("NV12"));
  g_object_set (cam.element, "black-level", 100u, "white-balance", 2, nullptr);
  GstStructure *stats = nullptr;
  guint64 read_back = 0;
  for (int i = 0; i < 30 && read_back == 0; i++) {
    GstCaps *caps;
    gst_buffer_unref (cam.push (m, 0, &caps));
    gst_caps_unref (caps);
    if (stats)
      gst_structure_free (stats);
    g_object_get (cam.element, "statistics", &stats, nullptr);
    fail_unless (gst_structure_get_uint64 (stats, "frames", &read_back));
  }
  guint64 cells = 0;
  double red = 0;
  fail_unless (gst_structure_get_uint64 (stats, "cells", &cells));
  fail_unless (gst_structure_get_double (stats, "red-mean", &red));
  fail_unless_equals_uint64 (cells, kept);
  fail_unless (std::fabs (red - sum[0] / kept / (4095 - 100)) < 1e-9);
  gst_structure_free (stats);
}
GST_END_TEST

/* A colour matrix that is not 9 finite numbers within float's range: a warning when set on a
 * launch line, then the element does not start, naming the property and the
 * value; while playing, a bus warning and the matrix in force stays. */
GST_START_TEST (test_bad_matrix_refused)
{
  check_refused_at_start ("videotestsrc num-buffers=1 ! video/x-bayer,format=rggb,width=8,"
      "height=8 ! cldebayer color-matrix=\"<1,2>\" ! fakesink", "color-matrix", "<1, 2>", 1);
  check_refused_at_start ("videotestsrc num-buffers=1 ! video/x-bayer,format=rggb,width=8,"
      "height=8 ! cldebayer color-matrix=\"<1,0,0,0,nan,0,0,0,1>\" ! fakesink",
      "color-matrix", "nan", 1);
  /* finite doubles beyond float's range (the kernel's): R would come out 0 */
  check_refused_at_start ("videotestsrc num-buffers=1 ! video/x-bayer,format=rggb,width=8,"
      "height=8 ! cldebayer color-matrix=\"<1e39,1e39,0,0,1,0,0,0,1>\" ! fakesink",
      "color-matrix", "1e+39", 1);
  check_refused_at_start ("videotestsrc num-buffers=1 ! video/x-bayer,format=rggb,width=8,"
      "height=8 ! cldebayer color-matrix=\"<1,0,0,0,1,0,0,0,-4e38>\" ! fakesink",
      "color-matrix", "4e+38", 1);

  Camera cam (format_caps ("RGBA"));
  Stages st = all_stages (255);
  cam.set (st);
  cam.check (random_mosaic (16, 8, 0, 8, 5), 0, MALVAR, st, &RGBA, "before");
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (cam.element, bus);
  gst_util_set_object_arg (G_OBJECT (cam.element), "color-matrix", "<1,2,3>");
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != nullptr, "no warning for a bad matrix while playing");
  gst_message_unref (msg);
  cam.check (random_mosaic (16, 8, 0, 8, 6), 0, MALVAR, st, &RGBA, "after a refused matrix");
  gst_element_set_bus (cam.element, nullptr);
  gst_object_unref (bus);
}
GST_END_TEST

/* Camera stages switched on while a live camera streams: the new variant
 * builds in the background and the previous one serves the frames meanwhile
 * (no gap between frames above 2 periods), then only the new output; a
 * method change with the pipeline stopped at once. */
GST_START_TEST (test_live_change_does_not_stall)
{
  check_live_rebuild ("videotestsrc is-live=true pattern=white ! "
      "video/x-bayer,format=rggb,width=64,height=48,framerate=30/1 ! cldebayer name=d ! "
      "video/x-raw,format=GRAY8 ! fakesink name=sink sync=false",
      [] (GstElement * p) {
        GstElement *d = gst_bin_get_by_name (GST_BIN (p), "d");
        gst_util_set_object_arg (G_OBJECT (d), "color-matrix", "<0.5,0,0,0,0.5,0,0,0,0.5>");
        gst_object_unref (d);
      }, 255, 128,
      [] (GstElement * p) {
        GstElement *d = gst_bin_get_by_name (GST_BIN (p), "d");
        gst_util_set_object_arg (G_OBJECT (d), "method", "bilinear");
        gst_object_unref (d);
      }, 0, true);
}
GST_END_TEST

/* ---- defaults and negotiation ---- */

/* Every stage property set to its default: the exact integer output. */
GST_START_TEST (test_defaults_unchanged)
{
  Camera cam (format_caps ("RGBA"));
  cam.set (Stages (), false);
  g_object_set (cam.element, "white-balance", 0, "red-gain", 2.0, nullptr);
  for (int bits : { 8, 12 }) {
    const Mosaic m = random_mosaic (37, 23, 1, bits, 77 + bits);
    GstCaps *caps;
    GstBuffer *out = cam.push (m, 0, &caps);
    compare (out, caps, m, demosaic_reference (m, MALVAR), RGBA, "defaults");
    gst_caps_unref (caps);
    gst_buffer_unref (out);
  }
}
GST_END_TEST

/* Downstream that lists GRAY8 first (a tee with a clsobel branch) still gets
 * colour; GRAY8 only when it is the only choice. */
GST_START_TEST (test_fixation_keeps_colour)
{
  for (auto &c : { std::pair<const char *, const char *> {
              "t. ! queue ! video/x-raw,format={GRAY8,RGBA,NV12} ! fakesink", "RGBA"},
          {"t. ! queue ! clsobel ! fakesink t. ! queue ! fakesink", "RGBA"},
          {"t. ! queue ! video/x-raw,format={GRAY8,NV12} ! fakesink", "NV12"},
          {"t. ! queue ! video/x-raw,format=GRAY8 ! fakesink", "GRAY8"} }) {
    const std::string desc = std::string ("videotestsrc num-buffers=2 ! "
        "video/x-bayer,format=rggb,width=32,height=16 ! cldebayer name=d ! tee name=t ") +
        c.first;
    GstElement *pipeline = gst_parse_launch (desc.c_str (), nullptr);
    fail_unless (pipeline != nullptr);
    play_to_eos (pipeline, desc.c_str ());
    GstElement *d = gst_bin_get_by_name (GST_BIN (pipeline), "d");
    GstPad *pad = gst_element_get_static_pad (d, "src");
    GstCaps *caps = gst_pad_get_current_caps (pad);
    fail_unless_equals_string (gst_structure_get_string (gst_caps_get_structure (caps, 0),
            "format"), c.second);
    gst_caps_unref (caps);
    gst_object_unref (pad);
    gst_object_unref (d);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
  }
}
GST_END_TEST

static Suite *
camera_suite (void)
{
  Suite *s = suite_create ("cldebayer-camera");
  TCase *tc = tuning_tcase (s);
  tcase_add_test (tc, test_each_stage_alone);
  tcase_add_test (tc, test_frames_in_bands);
  tcase_add_test (tc, test_bands_back_to_back);
  tcase_add_test (tc, test_every_format_8_12bit);
  tcase_add_test (tc, test_every_format_10_16bit);
  tcase_add_test (tc, test_every_format_other_shape);
  tcase_add_test (tc, test_aligned_rows);
  tcase_add_test (tc, test_yuv_colorimetry);
  tcase_add_test (tc, test_changes_while_playing);
  tcase_add_test (tc, test_auto_white_balance);
  tcase_add_test (tc, test_auto_white_balance_bounds);
  tcase_add_test (tc, test_cpu_strips);
  tcase_add_test (tc, test_bad_matrix_refused);
  tcase_add_test (tc, test_live_change_does_not_stall);
  tcase_add_test (tc, test_defaults_unchanged);
  tcase_add_test (tc, test_fixation_keeps_colour);
  return s;
}

GST_CHECK_MAIN (camera);
