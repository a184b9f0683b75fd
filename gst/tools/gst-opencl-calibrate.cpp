/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-opencl-calibrate: a lens-shading grid for cldebayer's
 * `lens-shading-file` from raw Bayer frames of a flat, evenly lit surface
 * (docs/camera.md, "Lens shading: file format and calibration").
 *
 * The frames are averaged; per channel, the grid is the least-squares fit of
 * the element's own model: the bilinear interpolation of the grid times the
 * flat frame should be constant. Every grid value is thus a weighted average
 * over the 2 x 2 cells around its point (the smoothing against noise), the
 * same interpolation as the element's (a window mean around each point is
 * off by about 1 % where the shading bends at a grid point, and at the
 * frame's edges), and samples far off the fit (hot or dead pixels, dust) are
 * set aside before a second fit. */
#include "gstcllensshading.hpp"

#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using cldebayer::ShadingGrid;

namespace {

/* A mistake of the user's or the input's: its message is all they see. */
struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string
strf (const char *fmt, ...) G_GNUC_PRINTF (1, 2);

std::string
strf (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  gchar *s = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  std::string out (s);
  g_free (s);
  return out;
}

/* A Bayer frame layout, from caps. */
struct BayerFormat {
  std::string name;     /* the caps' format, e.g. rggb12le */
  int bits = 8, bytes = 1, width = 0, height = 0;
  int maxv () const { return (1 << bits) - 1; }
  size_t row_bytes () const { return (size_t) width * bytes; }
  /* GStreamer's default: rows padded to 4 bytes (what cldebayer assumes
   * without a GstVideoMeta). */
  size_t stride () const { return (row_bytes () + 3) & ~(size_t) 3; }
  size_t frame_size () const { return stride () * height; }
  bool operator== (const BayerFormat &o) const
  {
    return name == o.name && width == o.width && height == o.height;
  }
  std::string describe () const { return strf ("%dx%d %s", width, height, name.c_str ()); }
};

BayerFormat
format_from_caps (const GstCaps *caps)
{
  gchar *text = gst_caps_to_string (caps);
  const std::string caps_text = text;
  g_free (text);
  if (gst_caps_get_size (caps) != 1 || !gst_caps_is_fixed (caps))
    throw Failure ("the caps must be one fixed structure: " + caps_text);
  const GstStructure *s = gst_caps_get_structure (caps, 0);
  if (!gst_structure_has_name (s, "video/x-bayer"))
    throw Failure ("not Bayer caps (video/x-bayer): " + caps_text);
  BayerFormat f;
  const char *name = gst_structure_get_string (s, "format");
  if (!name || !gst_structure_get_int (s, "width", &f.width) ||
      !gst_structure_get_int (s, "height", &f.height))
    throw Failure ("the caps need a format, a width and a height: " + caps_text);
  f.name = name;
  static const char *const orders[] = { "rggb", "grbg", "gbrg", "bggr" };
  static const std::pair<const char *, int> depths[] = {
    { "", 8 }, { "10le", 10 }, { "12le", 12 }, { "14le", 14 }, { "16le", 16 } };
  bool known = false;
  for (const char *o : orders)
    for (const auto &d : depths)
      if (f.name == std::string (o) + d.first) {
        known = true;
        f.bits = d.second;
        f.bytes = d.second > 8 ? 2 : 1;
      }
  if (!known)
    throw Failure ("format '" + f.name + "' is not one cldebayer takes: rggb, grbg, gbrg, "
        "bggr (8-bit) or those with 10le, 12le, 14le, 16le");
  if (f.width < 2 || f.height < 2)
    throw Failure ("frames of " + f.describe () + " are too small");
  return f;
}

/* The frames' sum per sample after black level, and what the checks need. */
class Accumulator {
public:
  Accumulator (const BayerFormat &f, int black)
      : format_ (f), black_ (black), sum_ ((size_t) f.width * f.height, 0.0)
  {
    if (black >= f.maxv ())
      throw Failure (strf ("--black-level %d must be below the full scale %d of %s", black,
              f.maxv (), f.name.c_str ()));
    for (int k = 0; k < 4; k++)
      channel_[k] = cldebayer::shading_channel (f.name.c_str (), k & 1, k >> 1);
    /* 2 % of the range below full scale counts as clipped (as the auto
     * white balance's cells). */
    clip_at_ = f.maxv () - (f.maxv () - black) / 50;
  }

  void add (const guint8 *data, size_t stride)
  {
    for (int y = 0; y < format_.height; y++) {
      const guint8 *row = data + y * stride;
      double *out = &sum_[(size_t) y * format_.width];
      for (int x = 0; x < format_.width; x++) {
        int v = format_.bytes == 1 ? row[x] : row[2 * x] | row[2 * x + 1] << 8;
        v = std::min (v, format_.maxv ());
        const int c = channel (x, y);
        samples_[c]++;
        clipped_[c] += v >= clip_at_;
        out[x] += std::max (v - black_, 0);
      }
    }
    frames_++;
  }

  int channel (int x, int y) const { return channel_[(y & 1) * 2 + (x & 1)]; }
  const BayerFormat &format () const { return format_; }
  int black () const { return black_; }
  int frames () const { return frames_; }
  /* The mean frame, after black level. */
  double mean (size_t p) const { return sum_[p] / frames_; }
  double clipped_fraction (int c) const { return (double) clipped_[c] / samples_[c]; }

private:
  BayerFormat format_;
  int black_;
  std::vector<double> sum_;
  int channel_[4];
  int clip_at_;
  int frames_ = 0;
  guint64 samples_[4] = {}, clipped_[4] = {};
};

/* A symmetric positive definite band matrix (lower band stored), solved by
 * Cholesky: the grid's normal equations couple each point with its 8
 * neighbours only, so the band is columns + 1 wide. */
class BandMatrix {
public:
  BandMatrix (int n, int band) : n_ (n), band_ (band), a_ ((size_t) n * (band + 1), 0.0) {}
  /* Element (row, row - d), d in 0..band. */
  double &at (int row, int d) { return a_[(size_t) row * (band_ + 1) + d]; }

  /* Solves A x = b in place (A becomes its Cholesky factor). */
  void solve (std::vector<double> &b)
  {
    double trace = 0;
    for (int k = 0; k < n_; k++)
      trace += at (k, 0);
    const double ridge = 1e-12 * trace / n_;
    for (int k = 0; k < n_; k++) {
      at (k, 0) += ridge;
      for (int j = std::max (0, k - band_); j <= k; j++) {
        double s = at (k, k - j);
        for (int l = std::max (0, k - band_); l < j; l++)
          s -= at (k, k - l) * at (j, j - l);
        if (j == k) {
          if (!(s > 0))
            throw Failure ("the fit has no solution: too few usable samples around a grid "
                "point (is the whole frame lit?)");
          at (k, 0) = std::sqrt (s);
        } else {
          at (k, k - j) = s / at (j, 0);
        }
      }
    }
    for (int k = 0; k < n_; k++) {
      for (int l = std::max (0, k - band_); l < k; l++)
        b[k] -= at (k, k - l) * b[l];
      b[k] /= at (k, 0);
    }
    for (int k = n_ - 1; k >= 0; k--) {
      b[k] /= at (k, 0);
      for (int l = std::max (0, k - band_); l < k; l++)
        b[l] -= at (k, k - l) * b[k];
    }
  }

private:
  int n_, band_;
  std::vector<double> a_;
};

/* Where a pixel falls between grid points along one axis: the cell (its
 * first point) and the fraction, as cldebayer::shading_gain locates it. */
struct Axis {
  std::vector<int> cell;
  std::vector<double> frac;
  Axis (int frame, int points) : cell (frame), frac (frame)
  {
    for (int p = 0; p < frame; p++) {
      const double g = std::clamp ((double) p * (points - 1) / (frame - 1), 0.0,
          (double) (points - 1));
      cell[p] = std::min ((int) g, points - 2);
      frac[p] = g - cell[p];
    }
  }
};

struct FitResult {
  /* Per channel, the grid G that makes G(p) times the frame (in units of
   * the channel's mean) closest to 1: the inverse of the relative level. */
  std::array<std::vector<double>, 4> grid;
  std::array<double, 4> channel_mean {};
  size_t set_aside = 0;
};

class Fitter {
public:
  Fitter (const Accumulator &acc, int columns, int rows)
      : acc_ (acc), columns_ (columns), rows_ (rows),
        xs_ (acc.format ().width, columns), ys_ (acc.format ().height, rows),
        out_ ((size_t) acc.format ().width * acc.format ().height, 0)
  {
  }

  FitResult run ()
  {
    const BayerFormat &f = acc_.format ();
    FitResult r;
    std::array<size_t, 4> n {};
    for (int y = 0; y < f.height; y++)
      for (int x = 0; x < f.width; x++) {
        const int c = acc_.channel (x, y);
        r.channel_mean[c] += acc_.mean ((size_t) y * f.width + x);
        n[c]++;
      }
    for (int c = 0; c < 4; c++) {
      r.channel_mean[c] /= n[c];
      if (!(r.channel_mean[c] > 0))
        throw Failure (strf ("the %s samples are all at the black level: no light?",
                channel_name (c)));
    }
    r.grid = solve (r.channel_mean);
    r.set_aside = set_aside_outliers (r);
    if (r.set_aside)
      r.grid = solve (r.channel_mean);
    return r;
  }

  static const char *channel_name (int c)
  {
    static const char *const names[4] = { "R", "Gr", "Gb", "B" };
    return names[c];
  }

private:
  /* The 4 grid points around (x, y) and their bilinear weights. */
  void corners (int x, int y, int (&k)[4], double (&w)[4]) const
  {
    const int i = xs_.cell[x], j = ys_.cell[y];
    const double fx = xs_.frac[x], fy = ys_.frac[y];
    k[0] = j * columns_ + i;
    k[1] = k[0] + 1;
    k[2] = k[0] + columns_;
    k[3] = k[2] + 1;
    w[0] = (1 - fx) * (1 - fy);
    w[1] = fx * (1 - fy);
    w[2] = (1 - fx) * fy;
    w[3] = fx * fy;
  }

  /* Least squares: minimise, per channel, the sum over its samples (those
   * not set aside) of (sum_a w_a G_a m - 1)^2. */
  std::array<std::vector<double>, 4> solve (const std::array<double, 4> &mean)
  {
    const BayerFormat &f = acc_.format ();
    const int points = columns_ * rows_;
    std::vector<BandMatrix> a (4, BandMatrix (points, columns_ + 1));
    std::array<std::vector<double>, 4> b;
    for (auto &v : b)
      v.assign (points, 0.0);
    for (int y = 0; y < f.height; y++)
      for (int x = 0; x < f.width; x++) {
        const size_t p = (size_t) y * f.width + x;
        if (out_[p])
          continue;
        const int c = acc_.channel (x, y);
        const double m = acc_.mean (p) / mean[c];
        int k[4];
        double w[4];
        corners (x, y, k, w);
        for (int s = 0; s < 4; s++) {
          b[c][k[s]] += w[s] * m;
          for (int t = 0; t <= s; t++)    /* k[t] <= k[s] */
            a[c].at (k[s], k[s] - k[t]) += w[s] * w[t] * m * m;
        }
      }
    for (int c = 0; c < 4; c++)
      a[c].solve (b[c]);
    return b;
  }

  /* Marks the samples whose residual is beyond 6 robust standard
   * deviations (1.4826 times the median absolute residual) of their
   * channel, and at least 0.2 %: those a flat grid cannot explain. */
  size_t set_aside_outliers (const FitResult &r)
  {
    const BayerFormat &f = acc_.format ();
    std::vector<float> residual (out_.size ());
    std::array<std::vector<float>, 4> magnitude;
    for (int y = 0; y < f.height; y++)
      for (int x = 0; x < f.width; x++) {
        const size_t p = (size_t) y * f.width + x;
        const int c = acc_.channel (x, y);
        int k[4];
        double w[4], g = 0;
        corners (x, y, k, w);
        for (int s = 0; s < 4; s++)
          g += w[s] * r.grid[c][k[s]];
        residual[p] = (float) (g * acc_.mean (p) / r.channel_mean[c] - 1);
        magnitude[c].push_back (std::fabs (residual[p]));
      }
    std::array<double, 4> limit;
    for (int c = 0; c < 4; c++) {
      auto &v = magnitude[c];
      std::nth_element (v.begin (), v.begin () + v.size () / 2, v.end ());
      limit[c] = std::max (6 * 1.4826 * v[v.size () / 2], 0.002);
    }
    size_t count = 0;
    for (int y = 0; y < f.height; y++)
      for (int x = 0; x < f.width; x++) {
        const size_t p = (size_t) y * f.width + x;
        out_[p] = std::fabs (residual[p]) > limit[acc_.channel (x, y)];
        count += out_[p];
      }
    return count;
  }

  const Accumulator &acc_;
  int columns_, rows_;
  Axis xs_, ys_;
  std::vector<guint8> out_;     /* samples set aside */
};

/* --input: frames back to back in a file. */
void
read_file (const std::string &path, const BayerFormat &f, int skip, int frames,
    Accumulator &acc)
{
  std::ifstream in (path, std::ios::binary);
  if (!in)
    throw Failure ("cannot open '" + path + "': " + std::strerror (errno));
  in.seekg (0, std::ios::end);
  const auto size = (unsigned long long) in.tellg ();
  in.seekg (0);
  const unsigned long long whole = size / f.frame_size (), wanted = (unsigned long long) skip +
      frames;
  if (whole < wanted) {
    std::string hint;
    const unsigned long long packed = f.row_bytes () * f.height;
    if (f.stride () != f.row_bytes () && size % f.frame_size () && size % packed == 0)
      hint = strf (" (its size is a multiple of unpadded %llu-byte frames: GStreamer's rows "
          "take %zu bytes, padded to 4)", packed, f.stride ());
    throw Failure (strf ("'%s' holds %llu whole frames of %s (%zu bytes each), %llu wanted%s",
            path.c_str (), whole, f.describe ().c_str (), f.frame_size (), wanted,
            hint.c_str ()));
  }
  std::vector<guint8> frame (f.frame_size ());
  for (int n = 0; n < skip + frames; n++) {
    if (!in.read ((char *) frame.data (), frame.size ()))
      throw Failure ("read error in '" + path + "'");
    if (n >= skip)
      acc.add (frame.data (), f.stride ());
  }
}

struct UnrefPipeline {
  void operator() (GstElement * e) const
  {
    gst_element_set_state (e, GST_STATE_NULL);
    gst_object_unref (e);
  }
};

/* An error posted on the bus, as a Failure's text. */
std::string
bus_error (GstBus * bus)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (!msg)
    return "";
  GError *err = nullptr;
  gchar *debug = nullptr;
  gst_message_parse_error (msg, &err, &debug);
  std::string text = std::string ("the pipeline failed: ") + err->message;
  if (debug && std::strstr (debug, "not-negotiated"))
    text += " (not negotiated: does the pipeline end in video/x-bayer caps of a format "
        "cldebayer takes?)";
  else if (debug)
    text += std::string (" (") + debug + ")";
  g_error_free (err);
  g_free (debug);
  gst_message_unref (msg);
  return text;
}

/* --pipeline: the description with an appsink after it. */
void
read_pipeline (const std::string &description, int skip, int frames, int black, int timeout_s,
    std::unique_ptr<Accumulator> &acc)
{
  const std::string launch = description + " ! appsink name=gst_opencl_calibrate_sink";
  GError *err = nullptr;
  std::unique_ptr<GstElement, UnrefPipeline> pipeline (gst_parse_launch_full (launch.c_str (),
          nullptr, GST_PARSE_FLAG_FATAL_ERRORS, &err));
  if (!pipeline || err) {
    const std::string text = "bad pipeline '" + description + "': " +
        (err ? err->message : "no pipeline");
    g_clear_error (&err);
    throw Failure (text);
  }
  if (!GST_IS_BIN (pipeline.get ()))
    throw Failure ("bad pipeline '" + description + "': a source element is needed");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline.get ()),
      "gst_opencl_calibrate_sink");
  GstCaps *bayer = gst_caps_new_empty_simple ("video/x-bayer");
  g_object_set (sink, "caps", bayer, "sync", FALSE, "max-buffers", 2, NULL);
  gst_caps_unref (bayer);
  std::unique_ptr<GstBus, decltype (&gst_object_unref)> bus (
      gst_element_get_bus (pipeline.get ()), gst_object_unref);

  std::string failure;
  if (gst_element_set_state (pipeline.get (), GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
    failure = bus_error (bus.get ());
  if (failure.empty () && gst_element_get_state (pipeline.get (), nullptr, nullptr, 0) ==
      GST_STATE_CHANGE_FAILURE)
    failure = "the pipeline did not start";
  int got = 0;
  gint64 last = g_get_monotonic_time ();
  while (failure.empty () && got < skip + frames) {
    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 100 * GST_MSECOND);
    if (!sample) {
      if (!(failure = bus_error (bus.get ())).empty ())
        break;
      if (gst_app_sink_is_eos (GST_APP_SINK (sink)))
        failure = strf ("the pipeline ended after %d frames, %d wanted", got, skip + frames);
      else if (g_get_monotonic_time () - last > (gint64) timeout_s * G_USEC_PER_SEC)
        failure = strf ("no frame from the pipeline in %d s (--timeout)", timeout_s);
      continue;
    }
    last = g_get_monotonic_time ();
    try {
      const BayerFormat f = format_from_caps (gst_sample_get_caps (sample));
      if (!acc)
        acc = std::make_unique<Accumulator> (f, black);
      else if (!(f == acc->format ()))
        throw Failure ("the frames changed from " + acc->format ().describe () + " to " +
            f.describe () + " mid-stream");
      if (got++ >= skip) {
        GstBuffer *buf = gst_sample_get_buffer (sample);
        const GstVideoMeta *meta = gst_buffer_get_video_meta (buf);
        const size_t offset = meta ? meta->offset[0] : 0;
        const size_t stride = meta ? (size_t) meta->stride[0] : f.stride ();
        GstMapInfo map;
        if (!gst_buffer_map (buf, &map, GST_MAP_READ))
          throw Failure ("cannot map a buffer");
        const bool whole = map.size >= offset + stride * (f.height - 1) + f.row_bytes ();
        if (whole)
          acc->add (map.data + offset, stride);
        gst_buffer_unmap (buf, &map);
        if (!whole)
          throw Failure (strf ("a buffer of %zu bytes is shorter than a %s frame",
                  map.size, f.describe ().c_str ()));
      }
    } catch (const Failure &e) {
      failure = e.what ();
    }
    gst_sample_unref (sample);
  }
  gst_object_unref (sink);
  if (!failure.empty ())
    throw Failure (failure);
}

void
parse_grid (const char *text, int &columns, int &rows)
{
  char x, rest;
  if (std::sscanf (text, "%d%c%d%c", &columns, &x, &rows, &rest) != 3 || (x != 'x' && x != 'X')
      || columns < cldebayer::kShadingMinSize || columns > cldebayer::kShadingMaxSize ||
      rows < cldebayer::kShadingMinSize || rows > cldebayer::kShadingMaxSize)
    throw Failure (strf ("--grid '%s': COLUMNSxROWS, each %d..%d (e.g. 17x13)", text,
            cldebayer::kShadingMinSize, cldebayer::kShadingMaxSize));
}

/* The fit as a grid of gains, after the checks that refuse unusable input. */
ShadingGrid
make_grid (const Accumulator &acc, int columns, int rows, bool verbose)
{
  const BayerFormat &f = acc.format ();
  /* A cell must hold samples of every channel in both directions. */
  if ((f.width - 1) / (columns - 1) < 4 || (f.height - 1) / (rows - 1) < 4)
    throw Failure (strf ("a %dx%d grid is too fine for %dx%d frames: cells of at least 4 "
            "pixels (at most %d columns and %d rows)", columns, rows, f.width, f.height,
            std::min ((f.width - 1) / 4 + 1, 64), std::min ((f.height - 1) / 4 + 1, 64)));
  const double range = f.maxv () - acc.black ();
  for (int c = 0; c < 4; c++)
    if (acc.clipped_fraction (c) > 0.001)
      throw Failure (strf ("clipped: %.2f %% of the %s samples are at or near full scale "
              "(%d); lower the exposure or the light to about 50 %% of full scale",
              100 * acc.clipped_fraction (c), Fitter::channel_name (c), f.maxv ()));
  Fitter fitter (acc, columns, rows);
  const FitResult r = fitter.run ();

  ShadingGrid grid;
  grid.columns = columns;
  grid.rows = rows;
  double brightest_all = 0;
  std::array<double, 4> brightest {}, largest {};
  for (int c = 0; c < 4; c++) {
    const std::vector<double> &g = r.grid[c];
    for (int k = 0; k < columns * rows; k++)
      if (!(g[k] > 0))
        throw Failure (strf ("no usable light in the %s samples near grid point (%d, %d): "
                "is the target evenly lit, and does it fill the frame?",
                Fitter::channel_name (c), k % columns, k / columns));
    const double least = *std::min_element (g.begin (), g.end ());
    brightest[c] = r.channel_mean[c] / least / range;
    brightest_all = std::max (brightest_all, brightest[c]);
    if (brightest[c] < 0.02)
      throw Failure (strf ("too dark: the brightest %s level is %.2f %% of full scale "
              "above the black level (%d); expose for about 50 %%",
              Fitter::channel_name (c), 100 * brightest[c], acc.black ()));
    for (int k = 0; k < columns * rows; k++) {
      /* 6 significant digits: what the file shows, read back the same. */
      char text[G_ASCII_DTOSTR_BUF_SIZE];
      const float gain = (float) g_ascii_strtod (g_ascii_formatd (text, sizeof text, "%.6g",
              g[k] / least), nullptr);
      grid.gains[c].push_back (gain);
      largest[c] = std::max (largest[c], (double) gain);
    }
    if (largest[c] > 16)
      throw Failure (strf ("the %s level falls to 1/%.0f of its brightest: not a flat, "
              "evenly lit target filling the frame?", Fitter::channel_name (c), largest[c]));
  }
  if (verbose) {
    std::fprintf (stderr, "gst-opencl-calibrate: %d frames of %s, black level %d, grid %dx%d\n",
        acc.frames (), f.describe ().c_str (), acc.black (), columns, rows);
    std::fprintf (stderr, "  brightest level (%% of full scale): ");
    for (int c = 0; c < 4; c++)
      std::fprintf (stderr, "%s %.1f%s", Fitter::channel_name (c), 100 * brightest[c],
          c < 3 ? ", " : "\n");
    std::fprintf (stderr, "  largest gain: ");
    for (int c = 0; c < 4; c++)
      std::fprintf (stderr, "%s %.3f%s", Fitter::channel_name (c), largest[c],
          c < 3 ? ", " : "\n");
    std::fprintf (stderr, "  %zu samples set aside (hot or dead pixels, dust)\n", r.set_aside);
  }
  if (brightest_all < 0.15)
    std::fprintf (stderr, "gst-opencl-calibrate: warning: dark input (the brightest level is "
        "%.1f %% of full scale): the grid is noisier; about 50 %% is best\n",
        100 * brightest_all);
  return grid;
}

const char *const kDescription =
    "Give the frames either as a file (--input with --caps) or as a source pipeline\n"
    "(--pipeline; the tool links an appsink after it). Formats: rggb, grbg, gbrg,\n"
    "bggr (8-bit) and the same with 10le, 12le, 14le, 16le, as cldebayer takes them.\n"
    "\n"
    "Shoot a flat, evenly lit target that fills the frame (an opal diffuser on the\n"
    "lens, or a white wall out of focus), exposed to about 50 % of full scale, with\n"
    "the lens, aperture and focus that the camera will use. The frames are\n"
    "averaged; per channel (R, Gr, Gb, B) the grid is the least-squares fit of\n"
    "cldebayer's bilinear gain to a flat result, samples far off the fit (hot or\n"
    "dead pixels, dust) set aside, and the gains are divided by the smallest, so\n"
    "the brightest grid point of each channel has gain 1 (white balance stays\n"
    "cldebayer's job). Refused: clipped input (over 0.1 % of a channel's samples\n"
    "within 2 % of full scale), too dark input (brightest level under 2 % of full\n"
    "scale), light that falls below 1/16 of its brightest, grids with cells under\n"
    "4 pixels. Exit status 0 when the file is written, 1 on errors, 2 on bad\n"
    "arguments.\n"
    "\n"
    "Examples:\n"
    "  gst-opencl-calibrate --input flat.raw \\\n"
    "    --caps video/x-bayer,format=rggb12le,width=1920,height=1080,framerate=30/1 \\\n"
    "    --black-level 256 -o shading.txt\n"
    "  gst-opencl-calibrate --pipeline 'v4l2src ! video/x-bayer,format=grbg' \\\n"
    "    --skip 30 --black-level 16 --grid 33x25 -o shading.txt\n"
    "  gst-launch-1.0 ... ! cldebayer black-level=256 lens-shading-file=shading.txt ! ...\n"
    "\n"
    "The file format and the whole recipe: docs/camera.md.\n";

}  // namespace

int
main (int argc, char **argv)
{
  gchar *input = nullptr, *caps = nullptr, *pipeline = nullptr, *output = nullptr,
      *grid_text = nullptr;
  gint frames = 8, skip = 0, black = 0, timeout_s = 30;
  gboolean quiet = FALSE;
  const GOptionEntry entries[] = {
    { "input", 'i', 0, G_OPTION_ARG_FILENAME, &input,
      "Raw Bayer frames back to back, rows padded to 4 bytes (GStreamer's default stride)",
      "FILE" },
    { "caps", 'c', 0, G_OPTION_ARG_STRING, &caps,
      "The caps of --input's frames: video/x-bayer,format=...,width=...,height=...", "CAPS" },
    { "pipeline", 'p', 0, G_OPTION_ARG_STRING, &pipeline,
      "A source pipeline whose output is Bayer frames (an appsink is linked after it)",
      "DESCRIPTION" },
    { "frames", 'n', 0, G_OPTION_ARG_INT, &frames, "Frames to average (default 8)", "N" },
    { "skip", 0, 0, G_OPTION_ARG_INT, &skip,
      "Frames to drop first, while a camera settles (default 0)", "N" },
    { "grid", 'g', 0, G_OPTION_ARG_STRING, &grid_text,
      "Grid points, columns x rows, 2..64 each (default 17x13)", "CxR" },
    { "black-level", 'b', 0, G_OPTION_ARG_INT, &black,
      "Sensor black level in the input's sample units, as cldebayer's black-level "
      "(default 0)", "L" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "The lens-shading file to write ('-': standard output)", "FILE" },
    { "timeout", 0, 0, G_OPTION_ARG_INT, &timeout_s,
      "Seconds to wait for a frame of --pipeline (default 30)", "S" },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "Print only errors and warnings", nullptr },
    { nullptr, 0, 0, G_OPTION_ARG_NONE, nullptr, nullptr, nullptr }
  };
  GOptionContext *ctx = g_option_context_new ("- a lens-shading file for cldebayer");
  g_option_context_set_summary (ctx, "Writes a lens-shading grid for cldebayer's "
      "lens-shading-file from raw frames\nof a flat, evenly lit surface.");
  g_option_context_set_description (ctx, kDescription);
  g_option_context_add_main_entries (ctx, entries, nullptr);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  GError *err = nullptr;
  const bool parsed = g_option_context_parse (ctx, &argc, &argv, &err);
  g_option_context_free (ctx);
  int status = 0;
  try {
    if (!parsed) {
      const std::string text = err->message;
      g_clear_error (&err);
      throw std::invalid_argument (text);
    }
    if (argc > 1)
      throw std::invalid_argument (std::string ("unexpected argument '") + argv[1] + "'");
    if (!output)
      throw std::invalid_argument ("-o FILE is needed");
    if (!!input == !!pipeline)
      throw std::invalid_argument ("give either --input FILE --caps CAPS or --pipeline "
          "DESCRIPTION");
    if (input && !caps)
      throw std::invalid_argument ("--input needs --caps");
    if (caps && !input)
      throw std::invalid_argument ("--caps goes with --input (a pipeline states its caps)");
    if (frames < 1 || skip < 0 || black < 0 || timeout_s < 1)
      throw std::invalid_argument ("--frames and --timeout take 1 or more, --skip and "
          "--black-level 0 or more");
    int columns = 17, rows = 13;
    try {
      if (grid_text)
        parse_grid (grid_text, columns, rows);
    } catch (const Failure &e) {
      throw std::invalid_argument (e.what ());
    }

    std::unique_ptr<Accumulator> acc;
    if (input) {
      GstCaps *parsed_caps = gst_caps_from_string (caps);
      if (!parsed_caps)
        throw Failure (std::string ("cannot parse the caps '") + caps + "'");
      std::unique_ptr<GstCaps, decltype (&gst_caps_unref)> hold (parsed_caps, gst_caps_unref);
      const BayerFormat f = format_from_caps (parsed_caps);
      acc = std::make_unique<Accumulator> (f, black);
      read_file (input, f, skip, frames, *acc);
    } else {
      read_pipeline (pipeline, skip, frames, black, timeout_s, acc);
    }
    const ShadingGrid grid = make_grid (*acc, columns, rows, !quiet);

    std::ostringstream text;
    text << "# gst-opencl-calibrate: " << acc->frames () << " frames of " <<
        acc->format ().describe () << ", black level " << black << "\n";
    cldebayer::write_shading (text, grid);
    if (std::strcmp (output, "-") == 0) {
      std::cout << text.str () << std::flush;
      if (!std::cout)
        throw Failure ("cannot write to the standard output");
    } else {
      std::ofstream out (output, std::ios::binary | std::ios::trunc);
      out << text.str ();
      out.close ();
      if (!out)
        throw Failure (std::string ("cannot write '") + output + "': " + std::strerror (errno));
      if (!quiet)
        std::fprintf (stderr, "wrote %s\n", output);
    }
  } catch (const std::invalid_argument &e) {
    std::fprintf (stderr, "gst-opencl-calibrate: %s (--help for usage)\n", e.what ());
    status = 2;
  } catch (const std::exception &e) {
    std::fprintf (stderr, "gst-opencl-calibrate: %s\n", e.what ());
    status = 1;
  }
  g_free (input);
  g_free (caps);
  g_free (pipeline);
  g_free (output);
  g_free (grid_text);
  /* Everything of GStreamer's is released: the leaks tracer reports here. */
  if (gst_is_initialized ())
    gst_deinit ();
  return status;
}
