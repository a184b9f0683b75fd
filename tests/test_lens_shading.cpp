/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The lens-shading file module (gst/elements/debayer/gstcllensshading.hpp)
 * and gst-opencl-calibrate: the file's round trip and its errors by line, the
 * bilinear gain, the Bayer channels; the tool recovering a known grid from
 * noisy flat frames (file and pipeline input, 8/10/12/16-bit, the 4 orders)
 * and refusing unusable input with a message. The tool's path comes in
 * GST_OPENCL_CALIBRATE (tests/meson.build). */
/* The C++ streams first: gst-check's `fail` macro breaks their fail (). */
#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gstcllensshading.hpp"

#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <sys/wait.h>

using namespace cldebayer;

static ShadingGrid
make_grid (int columns, int rows, unsigned seed)
{
  std::mt19937 rng (seed);
  std::uniform_real_distribution<float> dist (0.25f, 4.0f);
  ShadingGrid g;
  g.columns = columns;
  g.rows = rows;
  for (auto &ch : g.gains)
    for (int k = 0; k < columns * rows; k++)
      ch.push_back (dist (rng));
  return g;
}

static ShadingGrid
parse_text (const std::string &text, const std::string &name = "t")
{
  std::istringstream in (text);
  return parse_shading (in, name);
}

GST_START_TEST (test_round_trip)
{
  for (auto size : { std::pair<int, int> (2, 2), { 9, 7 }, { 17, 13 }, { 64, 64 } }) {
    ShadingGrid g = make_grid (size.first, size.second, 7);
    /* Values that need more than 6 digits, extremes, and short ones. */
    g.gains[0][0] = 1.0f / 3;
    g.gains[1][0] = 1.5f;
    g.gains[2][0] = 3e-30f;
    g.gains[3][0] = 3e30f;
    std::ostringstream out;
    write_shading (out, g);
    const std::string text = out.str ();
    fail_unless (text.rfind ("# ", 0) == 0, "no comment first: %s", text.substr (0, 80).c_str ());
    fail_unless (text.find ("\nlens-shading " + std::to_string (size.first) + " " +
            std::to_string (size.second) + "\n") != std::string::npos);
    fail_unless (text.find ("\n1.5 ") != std::string::npos, "1.5 not written short");
    const ShadingGrid back = parse_text (text);
    fail_unless_equals_int (back.columns, g.columns);
    fail_unless_equals_int (back.rows, g.rows);
    for (int c = 0; c < 4; c++)
      fail_unless (back.gains[c] == g.gains[c], "channel %d differs after the round trip", c);
  }
}
GST_END_TEST

GST_START_TEST (test_comments_and_blank_lines)
{
  const ShadingGrid g = parse_text (
      "# made by hand\n\n   \t\n"
      "lens-shading 2 2   # columns rows\r\n"
      "# R\n1 2\n\n3 4 # end of R\n"
      "# Gr\n+5\t6\r\n7 8e0\n"
      "\n9 10\n11 12\n"
      "13 14\n15 0.5\n# trailing\n\n");
  fail_unless_equals_int (g.columns, 2);
  fail_unless_equals_int (g.rows, 2);
  const float want[4][4] = { { 1, 2, 3, 4 }, { 5, 6, 7, 8 }, { 9, 10, 11, 12 }, { 13, 14, 15, 0.5f } };
  for (int c = 0; c < 4; c++)
    for (int k = 0; k < 4; k++)
      fail_unless (g.gains[c][k] == want[c][k], "channel %d point %d: %g", c, k, g.gains[c][k]);
  fail_if (g.empty ());
  fail_unless (ShadingGrid ().empty ());
}
GST_END_TEST

GST_START_TEST (test_errors_name_the_line)
{
  const std::string head = "lens-shading 2 2\n";
  const std::string r = "1 1\n1 1\n";      /* one block */
  struct Case {
    std::string text;
    int line;
    const char *says;
  } cases[] = {
    { "", 1, "no header" },
    { "# nothing\n\n", 2, "no header" },
    { "1 1\n", 1, "expected the header" },
    { "lens-shadin 2 2\n", 1, "expected the header" },
    { "\n# c\nlens-shading 2\n", 3, "two numbers" },
    { "lens-shading 2 2 2\n", 1, "two numbers" },
    { "lens-shading 1 2\n", 1, "columns 1 out of range 2..64" },
    { "lens-shading 2 65\n", 1, "rows 65 out of range 2..64" },
    { "lens-shading 99999999999 2\n", 1, "out of range" },
    { "lens-shading x 2\n", 1, "columns 'x' is not a whole number" },
    { "lens-shading 2 2.5\n", 1, "rows '2.5' is not a whole number" },
    { head + "1 1 1\n", 2, "3 gains, expected 2 (row 1 of the R block)" },
    { head + r + "1\n", 4, "1 gain, expected 2 (row 1 of the Gr block)" },
    { head + r + "1 1\n# c\n1 abc\n", 6, "'abc' is not a number (row 2 of the Gr block)" },
    { head + r + r + "1,5 1\n", 6, "'1,5' is not a number (row 1 of the Gb block)" },
    { head + r + r + r + "1 0\n", 8, "gain 0 must be positive and finite (row 1 of the B block)" },
    { head + "1 -1\n", 2, "gain -1 must be positive" },
    { head + "1 inf\n", 2, "gain inf must be positive and finite" },
    { head + "nan 1\n", 2, "gain nan must be positive and finite" },
    { head + "1 1e60\n", 2, "gain 1e60 must be positive and finite" },
    { head + r + r + r, 7, "the file ends after 6 of 8 rows (row 1 of the B block missing)" },
    { head + r + r + r + "1 1\n\n", 9, "row 2 of the B block missing" },
    { head + r + r + r + r + "# fine\n\n1 1\n", 12, "extra line after the 4 blocks of 2 rows" },
  };
  for (const Case &c : cases) {
    try {
      parse_text (c.text, "shading.txt");
      fail ("accepted: %s", c.text.c_str ());
    } catch (const ShadingError &e) {
      const std::string what = e.what ();
      const std::string prefix = "shading.txt:" + std::to_string (c.line) + ": ";
      fail_unless_equals_int (e.line, c.line);
      fail_unless (what.rfind (prefix, 0) == 0, "'%s' does not start with '%s'", e.what (),
          prefix.c_str ());
      fail_unless (what.find (c.says) != std::string::npos, "'%s' does not say '%s'", e.what (),
          c.says);
    }
  }
  try {
    read_shading_file ("/nonexistent/shading.txt");
    fail ("a missing file was read");
  } catch (const ShadingError &e) {
    fail_unless_equals_int (e.line, 0);
    fail_unless (std::string (e.what ()).rfind ("/nonexistent/shading.txt:0: cannot open", 0) == 0,
        "%s", e.what ());
  }
}
GST_END_TEST

GST_START_TEST (test_gain_is_bilinear)
{
  const ShadingGrid g = make_grid (5, 4, 11);
  for (auto size : { std::pair<int, int> (37, 23), { 2, 2 }, { 1920, 1080 } }) {
    const int w = size.first, h = size.second;
    const double sx = (w - 1) / 4.0, sy = (h - 1) / 3.0;
    for (int c = 0; c < 4; c++) {
      auto at = [&] (int i, int j) { return (double) g.gains[c][j * 5 + i]; };
      for (int j = 0; j < 4; j++)
        for (int i = 0; i < 5; i++) {
          fail_unless (std::fabs (shading_gain (g, c, i * sx, j * sy, w, h) - at (i, j)) < 1e-12);
          if (i < 4)
            fail_unless (std::fabs (shading_gain (g, c, (i + 0.5) * sx, j * sy, w, h) -
                    (at (i, j) + at (i + 1, j)) / 2) < 1e-12);
          if (j < 3)
            fail_unless (std::fabs (shading_gain (g, c, i * sx, (j + 0.5) * sy, w, h) -
                    (at (i, j) + at (i, j + 1)) / 2) < 1e-12);
          if (i < 4 && j < 3) {
            const double four = (at (i, j) + at (i + 1, j) + at (i, j + 1) + at (i + 1, j + 1)) / 4;
            fail_unless (std::fabs (shading_gain (g, c, (i + 0.5) * sx, (j + 0.5) * sy, w, h) -
                    four) < 1e-12);
            /* A quarter of the way: weights 9/16, 3/16, 3/16, 1/16. */
            const double quarter = (9 * at (i, j) + 3 * at (i + 1, j) + 3 * at (i, j + 1) +
                at (i + 1, j + 1)) / 16;
            fail_unless (std::fabs (shading_gain (g, c, (i + 0.25) * sx, (j + 0.25) * sy, w, h) -
                    quarter) < 1e-12);
          }
        }
      /* Clamped at the edges. */
      fail_unless (shading_gain (g, c, -10, -3, w, h) == at (0, 0));
      fail_unless (shading_gain (g, c, w + 5, h + 9, w, h) == at (4, 3));
      fail_unless (shading_gain (g, c, -1, 2 * sy, w, h) == at (0, 2));
    }
  }
  fail_unless (shading_gain (ShadingGrid (), 0, 3, 3, 10, 10) == 1);
}
GST_END_TEST

GST_START_TEST (test_bayer_channels)
{
  /* The channel at (0,0), (1,0), (0,1), (1,1): Gr beside R, Gb beside B. */
  const struct {
    const char *order;
    ShadingChannel at[4];
  } cases[] = {
    { "rggb", { SHADING_R, SHADING_GR, SHADING_GB, SHADING_B } },
    { "grbg", { SHADING_GR, SHADING_R, SHADING_B, SHADING_GB } },
    { "gbrg", { SHADING_GB, SHADING_B, SHADING_R, SHADING_GR } },
    { "bggr", { SHADING_B, SHADING_GB, SHADING_GR, SHADING_R } },
    { "rggb12le", { SHADING_R, SHADING_GR, SHADING_GB, SHADING_B } },
    { "bggr16le", { SHADING_B, SHADING_GB, SHADING_GR, SHADING_R } },
  };
  for (const auto &c : cases)
    for (int y = 0; y < 6; y++)
      for (int x = 0; x < 7; x++)
        fail_unless_equals_int (shading_channel (c.order, x, y), c.at[(y & 1) * 2 + (x & 1)]);
  for (const char *bad : { "rgbg", "", "RGGB", "gr" }) {
    try {
      shading_channel (bad, 0, 0);
      fail ("'%s' taken as a Bayer order", bad);
    } catch (const std::invalid_argument &) {
    }
  }
}
GST_END_TEST

/* ---- gst-opencl-calibrate ---- */

/* A temporary folder, emptied and removed at the end. */
struct TempDir {
  std::string path;
  TempDir ()
  {
    gchar *p = g_dir_make_tmp ("lens-shading-XXXXXX", nullptr);
    fail_unless (p != nullptr);
    path = p;
    g_free (p);
  }
  ~TempDir ()
  {
    GDir *dir = g_dir_open (path.c_str (), 0, nullptr);
    while (const gchar *name = dir ? g_dir_read_name (dir) : nullptr)
      g_unlink ((path + "/" + name).c_str ());
    if (dir)
      g_dir_close (dir);
    g_rmdir (path.c_str ());
  }
  std::string file (const std::string &name) const { return path + "/" + name; }
};

struct ToolRun {
  int status = -1;
  std::string out, err;
};

/* Runs the tool with `args`; its GStreamer debug log (the leaks tracer's,
 * under tests/analysis/leaks_check.py) goes to a file of its own, which must
 * show nothing alive at its exit. */
static ToolRun
run_tool (const TempDir &tmp, const std::vector<std::string> &args)
{
  const char *tool = g_getenv ("GST_OPENCL_CALIBRATE");
  fail_unless (tool != nullptr, "GST_OPENCL_CALIBRATE is not set (tests/meson.build sets it)");
  std::vector<gchar *> argv { (gchar *) tool };
  for (const std::string &a : args)
    argv.push_back ((gchar *) a.c_str ());
  argv.push_back (nullptr);
  const std::string log = tmp.file ("tool-debug.log");
  gchar **env = g_environ_setenv (g_get_environ (), "GST_DEBUG_FILE", log.c_str (), TRUE);
  gchar *out = nullptr, *err = nullptr;
  gint wait_status = 0;
  GError *error = nullptr;
  const gboolean spawned = g_spawn_sync (nullptr, argv.data (), env, G_SPAWN_DEFAULT, nullptr,
      nullptr, &out, &err, &wait_status, &error);
  g_strfreev (env);
  fail_unless (spawned, "cannot run %s: %s", tool, error ? error->message : "");
  ToolRun r;
  r.out = out ? out : "";
  r.err = err ? err : "";
  g_free (out);
  g_free (err);
  fail_unless (WIFEXITED (wait_status), "the tool died by a signal: %s", r.err.c_str ());
  r.status = WEXITSTATUS (wait_status);
  const gchar *tracers = g_getenv ("GST_TRACERS");
  if (tracers && strstr (tracers, "leaks")) {
    std::ifstream in (log);
    std::string line;
    int records = 0;
    /* Records, not the tracer's format line ("type-name=(string)%s"). */
    const std::string record = "object-alive, type-name=(string)";
    while (std::getline (in, line)) {
      const size_t at = line.find (record);
      if (at != std::string::npos && g_ascii_isalpha (line[at + record.size ()])) {
        records++;
        g_printerr ("the tool leaked: %s\n", line.c_str () + at);
      }
    }
    fail_unless_equals_int (records, 0);
  }
  g_unlink (log.c_str ());
  return r;
}

struct Synth {
  const char *format;       /* caps format */
  int bits;
  int black;
  unsigned seed;
  bool defects = false;     /* hot and dead pixels in every frame */
  double level = 0.5;       /* of the range above black, at the brightest point */
  int width = 643, height = 481;
};

/* The known grid: 9 x 7, the light falling off quadratically from an
 * off-grid centre, corners about 40 % darker, tinted per channel. */
static ShadingGrid
known_grid ()
{
  const double tint[4] = { 1.0, 0.9, 0.95, 1.2 };
  ShadingGrid g;
  g.columns = 9;
  g.rows = 7;
  for (int c = 0; c < 4; c++)
    for (int j = 0; j < 7; j++)
      for (int i = 0; i < 9; i++) {
        const double dx = (i - 4.3) / 4.3, dy = (j - 2.8) / 3.2;
        g.gains[c].push_back ((float) (1 + 0.333 * tint[c] * (dx * dx + dy * dy)));
      }
  return g;
}

/* `frames` flat frames seen through the known grid's shading (the level
 * divided by its bilinear gain), with noise of 2 % of the signal plus 0.2 %
 * of full scale, in GStreamer's layout (rows padded to 4 bytes), or rows
 * packed. */
static std::string
write_frames (const TempDir &tmp, const Synth &s, int frames, const std::string &name,
    bool packed = false)
{
  const ShadingGrid grid = known_grid ();
  const int maxv = (1 << s.bits) - 1, bytes = s.bits > 8 ? 2 : 1;
  const size_t row = (size_t) s.width * bytes, stride = packed ? row : (row + 3) & ~(size_t) 3;
  const double base[4] = { 0.8, 1.0, 0.98, 0.7 };    /* R, Gr, Gb, B relative levels */
  std::vector<double> clean ((size_t) s.width * s.height);
  std::vector<int> channel (clean.size ());
  for (int y = 0; y < s.height; y++)
    for (int x = 0; x < s.width; x++) {
      const int c = shading_channel (s.format, x, y);
      const double level = s.level * base[c] * (maxv - s.black);
      clean[(size_t) y * s.width + x] = level / shading_gain (grid, c, x, y, s.width, s.height);
      channel[(size_t) y * s.width + x] = c;
    }
  std::mt19937 rng (s.seed);
  std::normal_distribution<double> normal;
  std::vector<size_t> hot, dead;
  if (s.defects) {
    std::uniform_int_distribution<size_t> any (0, clean.size () - 1);
    for (int k = 0; k < 60; k++) {
      hot.push_back (any (rng));
      dead.push_back (any (rng));
    }
  }
  std::vector<guint8> frame (stride * s.height, 0);
  std::ofstream out (tmp.file (name), std::ios::binary);
  for (int n = 0; n < frames; n++) {
    std::vector<int> v (clean.size ());
    for (size_t p = 0; p < clean.size (); p++) {
      const double sigma = 0.02 * clean[p] + 0.002 * maxv;
      v[p] = std::clamp ((int) std::lround (s.black + clean[p] + sigma * normal (rng)), 0, maxv);
    }
    for (size_t p : hot)
      v[p] = maxv;
    for (size_t p : dead)
      v[p] = 0;
    for (int y = 0; y < s.height; y++)
      for (int x = 0; x < s.width; x++) {
        const int value = v[(size_t) y * s.width + x];
        guint8 *d = &frame[y * stride + (size_t) x * bytes];
        d[0] = value & 0xff;
        if (bytes == 2)
          d[1] = value >> 8;
      }
    out.write ((const char *) frame.data (), frame.size ());
  }
  fail_unless (out.good ());
  return tmp.file (name);
}

static std::string
caps_of (const Synth &s)
{
  return "video/x-bayer,format=" + std::string (s.format) + ",width=" +
      std::to_string (s.width) + ",height=" + std::to_string (s.height) + ",framerate=30/1";
}

static size_t
frame_bytes (const Synth &s)
{
  return ((size_t) s.width * (s.bits > 8 ? 2 : 1) + 3) / 4 * 4 * s.height;
}

/* The largest relative error of the recovered grid against the known one,
 * each channel's gains divided by their smallest (the brightest point). */
static double
grid_error (const ShadingGrid &got)
{
  const ShadingGrid want = known_grid ();
  fail_unless_equals_int (got.columns, want.columns);
  fail_unless_equals_int (got.rows, want.rows);
  double worst = 0;
  for (int c = 0; c < 4; c++) {
    const double least = *std::min_element (want.gains[c].begin (), want.gains[c].end ());
    for (size_t k = 0; k < want.gains[c].size (); k++)
      worst = std::max (worst, std::fabs (got.gains[c][k] / (want.gains[c][k] / least) - 1));
    fail_unless (*std::min_element (got.gains[c].begin (), got.gains[c].end ()) == 1.0f,
        "channel %d: the brightest point's gain is not 1", c);
  }
  return worst;
}

GST_START_TEST (test_calibrate_recovers_a_known_grid)
{
  TempDir tmp;
  struct Run {
    Synth s;
    bool pipeline;
  } runs[] = {
    { { "rggb12le", 12, 256, 1, true }, false },
    { { "bggr", 8, 16, 2 }, true },
    { { "grbg10le", 10, 64, 3 }, false },
    { { "gbrg16le", 16, 4096, 4 }, true },
  };
  for (const Run &run : runs) {
    const Synth &s = run.s;
    const std::string frames = write_frames (tmp, s, 8, "flat.raw");
    const std::string out = tmp.file ("shading.txt");
    std::vector<std::string> args;
    if (run.pipeline)
      args = { "--pipeline", "filesrc location=\"" + frames + "\" blocksize=" +
          std::to_string (frame_bytes (s)) + " ! " + caps_of (s) };
    else
      args = { "--input", frames, "--caps", caps_of (s) };
    for (const char *a : { "--grid", "9x7", "--black-level" })
      args.push_back (a);
    args.push_back (std::to_string (s.black));
    args.push_back ("-o");
    args.push_back (out);
    const ToolRun r = run_tool (tmp, args);
    fail_unless_equals_int (r.status, 0);
    const double error = grid_error (read_shading_file (out));
    g_print ("%s, %s: the grid within %.3f %%\n", s.format, run.pipeline ? "pipeline" : "file",
        100 * error);
    fail_unless (error <= 0.01, "%s: recovered within %.3f %%, not 1 %%\n%s", s.format,
        100 * error, r.err.c_str ());
    if (s.defects)
      fail_unless (r.err.find ("samples set aside") != std::string::npos, "%s", r.err.c_str ());
    g_unlink (frames.c_str ());
    g_unlink (out.c_str ());
  }
}
GST_END_TEST

GST_START_TEST (test_calibrate_refuses_unusable_input)
{
  TempDir tmp;
  const Synth s12 { "rggb12le", 12, 256, 5 };
  const std::string good = write_frames (tmp, s12, 3, "good.raw");
  Synth bright = s12;
  bright.level = 1.0;           /* the corners 40 % darker, the middle clipped */
  const std::string clipped = write_frames (tmp, bright, 8, "clipped.raw");
  Synth dim = s12;
  dim.level = 0.01;
  const std::string dark = write_frames (tmp, dim, 8, "dark.raw");
  Synth s8 { "grbg", 8, 0, 6 };
  const std::string packed = write_frames (tmp, s8, 8, "packed.raw", true);
  Synth small = s12;
  small.width = 40;
  small.height = 30;
  const std::string tiny = write_frames (tmp, small, 8, "small.raw");
  const std::string out = tmp.file ("out.txt");
  const std::string c12 = caps_of (s12);
  struct Case {
    std::vector<std::string> args;
    int status;
    const char *says;
  } cases[] = {
    { { "--input", clipped, "--caps", c12, "--black-level", "256", "-o", out }, 1, "clipped" },
    { { "--input", dark, "--caps", c12, "--black-level", "256", "-o", out }, 1, "too dark" },
    { { "--input", good, "--caps", c12, "-o", out }, 1, "holds 3 whole frames" },
    { { "--input", good, "--caps", c12, "--frames", "2", "--skip", "2", "-o", out }, 1,
      "holds 3 whole frames" },
    { { "--input", packed, "--caps", caps_of (s8), "-o", out }, 1, "unpadded" },
    { { "--input", good, "--caps", "video/x-bayer,format=rggb12be,width=643,height=481", "-o",
        out }, 1, "format 'rggb12be' is not one cldebayer takes" },
    { { "--input", good, "--caps", "video/x-raw,format=GRAY8,width=643,height=481", "-o", out },
      1, "not Bayer caps" },
    { { "--input", good, "--caps", c12, "--frames", "1", "--black-level", "4095", "-o", out }, 1,
      "must be below the full scale 4095" },
    { { "--input", tmp.file ("none.raw"), "--caps", c12, "-o", out }, 1, "cannot open" },
    { { "--input", tiny, "--caps", caps_of (small), "-o", out }, 1, "too fine" },
    { { "--pipeline", "videotestsrc num-buffers=3 ! video/x-raw,width=64,height=48", "-o", out },
      1, "not negotiated" },
    { { "--pipeline", "filesrc location=\"" + good + "\" blocksize=" +
        std::to_string (frame_bytes (s12)) + " ! " + c12, "-o", out }, 1,
      "the pipeline ended after 3 frames, 8 wanted" },
    { { "--pipeline", "nosuchelement", "-o", out }, 1, "bad pipeline" },
    { { "--input", good, "--caps", c12, "--grid", "1x5", "-o", out }, 2, "--grid '1x5'" },
    { { "--input", good, "--caps", c12, "--grid", "9x7x", "-o", out }, 2, "--grid" },
    { { "--input", good, "--caps", c12 }, 2, "-o FILE is needed" },
    { { "--input", good, "--pipeline", "videotestsrc", "-o", out }, 2, "either" },
    { { "--input", good, "-o", out }, 2, "--input needs --caps" },
    { { "--pipeline", "videotestsrc", "--frames", "0", "-o", out }, 2, "--frames" },
    { { "--no-such-option" }, 2, "no-such-option" },
  };
  for (const Case &c : cases) {
    const ToolRun r = run_tool (tmp, c.args);
    std::string line;
    for (const std::string &a : c.args)
      line += " " + a;
    fail_unless_equals_int (r.status, c.status);
    fail_unless (r.err.find (c.says) != std::string::npos, "%s: '%s' does not say '%s'",
        line.c_str (), r.err.c_str (), c.says);
    fail_unless (r.err.rfind ("gst-opencl-calibrate: ", 0) == 0, "%s", r.err.c_str ());
    fail_if (g_file_test (out.c_str (), G_FILE_TEST_EXISTS), "%s wrote a file", line.c_str ());
  }
  /* --help documents every option and exits 0. */
  const ToolRun help = run_tool (tmp, { "--help" });
  fail_unless_equals_int (help.status, 0);
  for (const char *option : { "--input", "--caps", "--pipeline", "--frames", "--skip", "--grid",
          "--black-level", "--output", "--timeout", "--quiet", "docs/camera.md" })
    fail_unless (help.out.find (option) != std::string::npos, "--help does not mention %s",
        option);
}
GST_END_TEST

static Suite *
lens_shading_suite (void)
{
  Suite *s = suite_create ("lens-shading");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_round_trip);
  tcase_add_test (tc, test_comments_and_blank_lines);
  tcase_add_test (tc, test_errors_name_the_line);
  tcase_add_test (tc, test_gain_is_bilinear);
  tcase_add_test (tc, test_bayer_channels);
  tcase_add_test (tc, test_calibrate_recovers_a_known_grid);
  tcase_add_test (tc, test_calibrate_refuses_unusable_input);
  return s;
}

GST_CHECK_MAIN (lens_shading);
