/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Lens-shading grids: parsing, writing, the Bayer channel of a sample and the
 * bilinear gain (gstcllensshading.hpp). Numbers go through from_chars and
 * to_chars, so an application's locale (a decimal comma) changes nothing. */
#include "gstcllensshading.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <istream>
#include <ostream>

namespace cldebayer {

namespace {

const char *const kChannelNames[4] = { "R", "Gr", "Gb", "B" };

}  // namespace

ShadingGrid
parse_shading (std::istream &in, const std::string &name)
{
  ShadingGrid grid;
  std::string line;
  int line_no = 0;
  int row = 0;                  /* rows read, over the four blocks */
  while (std::getline (in, line)) {
    line_no++;
    const std::vector<std::string> w = gstcl::text_words (line);
    if (w.empty ())
      continue;
    if (grid.empty ()) {
      if (w[0] != "lens-shading")
        throw ShadingError (name, line_no, "expected the header 'lens-shading <columns> <rows>', "
            "found '" + w[0] + "'");
      if (w.size () != 3)
        throw ShadingError (name, line_no, "the header takes two numbers: 'lens-shading "
            "<columns> <rows>'");
      int size[2];
      for (int k = 0; k < 2; k++) {
        const char *what = k ? "rows" : "columns";
        const std::errc ec = gstcl::parse_number (w[1 + k], size[k]);
        if (ec == std::errc::invalid_argument)
          throw ShadingError (name, line_no, std::string (what) + " '" + w[1 + k] +
              "' is not a whole number");
        if (ec != std::errc () || size[k] < kShadingMinSize || size[k] > kShadingMaxSize)
          throw ShadingError (name, line_no, std::string (what) + " " + w[1 + k] +
              " out of range " + std::to_string (kShadingMinSize) + ".." +
              std::to_string (kShadingMaxSize));
      }
      grid.columns = size[0];
      grid.rows = size[1];
      for (auto &g : grid.gains)
        g.reserve ((size_t) grid.columns * grid.rows);
      continue;
    }
    if (row == 4 * grid.rows)
      throw ShadingError (name, line_no, "extra line after the 4 blocks of " +
          std::to_string (grid.rows) + " rows");
    const int channel = row / grid.rows;
    const std::string where = " (row " + std::to_string (row % grid.rows + 1) + " of the " +
        kChannelNames[channel] + " block)";
    if ((int) w.size () != grid.columns)
      throw ShadingError (name, line_no, std::to_string (w.size ()) + " gain" +
          (w.size () == 1 ? "" : "s") + ", expected " + std::to_string (grid.columns) + where);
    for (const std::string &word : w) {
      float gain;
      const std::errc ec = gstcl::parse_number (word, gain);
      if (ec == std::errc::invalid_argument)
        throw ShadingError (name, line_no, "'" + word + "' is not a number" + where);
      if (ec != std::errc () || !std::isfinite (gain) || !(gain > 0))
        throw ShadingError (name, line_no, "gain " + word + " must be positive and finite" +
            where);
      grid.gains[channel].push_back (gain);
    }
    row++;
  }
  if (in.bad ())
    throw ShadingError (name, 0, "read error");
  if (grid.empty ())
    throw ShadingError (name, std::max (line_no, 1), "no header 'lens-shading <columns> "
        "<rows>' before the end of the file");
  if (row < 4 * grid.rows)
    throw ShadingError (name, line_no, "the file ends after " + std::to_string (row) + " of " +
        std::to_string (4 * grid.rows) + " rows (row " + std::to_string (row % grid.rows + 1) +
        " of the " + kChannelNames[row / grid.rows] + " block missing)");
  return grid;
}

ShadingGrid
read_shading_file (const std::string &path)
{
  std::ifstream in (path, std::ios::binary);
  if (!in)
    throw ShadingError (path, 0, std::string ("cannot open: ") + std::strerror (errno));
  return parse_shading (in, path);
}

void
write_shading (std::ostream &out, const ShadingGrid &grid)
{
  out << "# cldebayer lens-shading grid (docs/camera.md): " << grid.columns << " x " <<
      grid.rows << " points, gains for R, Gr, Gb, B\n";
  out << "lens-shading " << grid.columns << " " << grid.rows << "\n";
  for (int c = 0; c < 4; c++) {
    out << "# " << kChannelNames[c] << "\n";
    for (int j = 0; j < grid.rows; j++) {
      for (int i = 0; i < grid.columns; i++) {
        const float gain = grid.gains[c][(size_t) j * grid.columns + i];
        /* 6 significant digits when they read back as this float, else the
         * shortest text that does. */
        char text[64];
        int n = (int) (std::to_chars (text, text + sizeof text, gain,
                std::chars_format::general, 6).ptr - text);
        float back;
        auto [ptr, ec] = std::from_chars (text, text + n, back);
        if (ec != std::errc () || ptr != text + n || back != gain)
          n = (int) (std::to_chars (text, text + sizeof text, gain).ptr - text);
        if (i)
          out << ' ';
        out.write (text, n);
      }
      out << '\n';
    }
  }
}

ShadingChannel
shading_channel (const char *order, int x, int y)
{
  static const char *const orders[] = { "rggb", "grbg", "gbrg", "bggr" };
  if (!order || std::none_of (std::begin (orders), std::end (orders),
          [order] (const char *o) { return std::strncmp (order, o, 4) == 0; }))
    throw std::invalid_argument (std::string ("not a Bayer order: '") + (order ? order : "") +
        "'");
  const int row = (y & 1) * 2;
  const char c = order[row + (x & 1)];
  if (c == 'r')
    return SHADING_R;
  if (c == 'b')
    return SHADING_B;
  return order[row + ((x & 1) ^ 1)] == 'r' ? SHADING_GR : SHADING_GB;
}

double
shading_gain (const ShadingGrid &grid, int channel, double x, double y, int width, int height)
{
  if (grid.empty ())
    return 1;
  /* The grid coordinate, clamped, and the cell whose left/top corner is
   * below it (the last cell for the last row or column). */
  auto locate = [] (double p, int frame, int points, int &cell, double &frac) {
    double g = frame > 1 ? p * (points - 1) / (frame - 1) : 0;
    g = std::clamp (g, 0.0, (double) (points - 1));
    cell = std::min ((int) g, points - 2);
    frac = g - cell;
  };
  int i, j;
  double fx, fy;
  locate (x, width, grid.columns, i, fx);
  locate (y, height, grid.rows, j, fy);
  const std::vector<float> &g = grid.gains[channel];
  auto at = [&] (int di, int dj) { return (double) g[(size_t) (j + dj) * grid.columns + i + di]; };
  return (1 - fy) * ((1 - fx) * at (0, 0) + fx * at (1, 0)) +
      fy * ((1 - fx) * at (0, 1) + fx * at (1, 1));
}

}  // namespace cldebayer
