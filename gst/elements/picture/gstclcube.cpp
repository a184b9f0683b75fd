/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `.cube` 3D LUTs: parsing and the CPU interpolations (gstclcube.hpp).
 * Numbers go through from_chars, so an application's locale (a decimal
 * comma) changes nothing. */
#include "gstclcube.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <istream>

namespace clpicture {

namespace {

/* The whole word as a finite number. */
template <typename T>
bool
number (const std::string &word, T &value)
{
  if (gstcl::parse_number (word, value) != std::errc ())
    return false;
  if constexpr (std::is_floating_point_v<T>)
    return std::isfinite (value);
  return true;
}

/* The three numbers after a keyword (DOMAIN_MIN/MAX) or of a table line. */
std::array<float, 3>
triplet (const std::vector<std::string> &w, size_t first, const std::string &name, int line,
    const std::string &what)
{
  if (w.size () != first + 3)
    throw CubeError (name, line, what + " takes three numbers, found " +
        std::to_string (w.size () - first));
  std::array<float, 3> v;
  for (int c = 0; c < 3; c++)
    if (!number (w[first + c], v[c]))
      throw CubeError (name, line, "'" + w[first + c] + "' is not a finite number (" + what +
          ")");
  return v;
}

}  // namespace

Cube
parse_cube (std::istream &in, const std::string &name)
{
  Cube cube;
  std::string line;
  int line_no = 0;
  size_t entries = 0;
  while (std::getline (in, line)) {
    line_no++;
    const std::vector<std::string> w = gstcl::text_words (line);
    if (w.empty ())
      continue;
    const std::string &key = w[0];
    const bool table = key[0] == '-' || key[0] == '+' || key[0] == '.' ||
        (key[0] >= '0' && key[0] <= '9');
    if (!table) {
      if (entries)
        throw CubeError (name, line_no, "keyword '" + key + "' inside the table");
      if (key == "TITLE") {
        const size_t a = line.find ('"'), b = line.rfind ('"');
        cube.title = a != std::string::npos && b > a ? line.substr (a + 1, b - a - 1) : "";
      } else if (key == "LUT_3D_SIZE") {
        if (cube.size)
          throw CubeError (name, line_no, "a second LUT_3D_SIZE");
        int size = 0;
        if (w.size () != 2 || !number (w[1], size))
          throw CubeError (name, line_no, "LUT_3D_SIZE takes one whole number");
        if (size < kCubeMinSize || size > kCubeMaxSize)
          throw CubeError (name, line_no, "LUT_3D_SIZE " + w[1] + " out of range " +
              std::to_string (kCubeMinSize) + ".." + std::to_string (kCubeMaxSize));
        cube.size = size;
        cube.rgb.reserve ((size_t) 3 * size * size * size);
      } else if (key == "DOMAIN_MIN") {
        cube.domain_min = triplet (w, 1, name, line_no, "DOMAIN_MIN");
      } else if (key == "DOMAIN_MAX") {
        cube.domain_max = triplet (w, 1, name, line_no, "DOMAIN_MAX");
      } else if (key == "LUT_1D_SIZE" || key == "LUT_1D_INPUT_RANGE" ||
          key == "LUT_3D_INPUT_RANGE") {
        throw CubeError (name, line_no, key + " is not supported (3D LUTs only, with "
            "DOMAIN_MIN/DOMAIN_MAX)");
      } else {
        throw CubeError (name, line_no, "unknown keyword '" + key + "'");
      }
      continue;
    }
    if (!cube.size)
      throw CubeError (name, line_no, "table line before LUT_3D_SIZE");
    const size_t total = (size_t) cube.size * cube.size * cube.size;
    if (entries == total)
      throw CubeError (name, line_no, "extra line after the " + std::to_string (total) +
          " entries of a " + std::to_string (cube.size) + "-point LUT");
    const std::array<float, 3> v = triplet (w, 0, name, line_no, "a table line");
    cube.rgb.insert (cube.rgb.end (), v.begin (), v.end ());
    entries++;
  }
  if (in.bad ())
    throw CubeError (name, 0, "read error");
  if (!cube.size)
    throw CubeError (name, std::max (line_no, 1), "no LUT_3D_SIZE before the end of the file");
  const size_t total = (size_t) cube.size * cube.size * cube.size;
  if (entries < total)
    throw CubeError (name, line_no, "the file ends after " + std::to_string (entries) + " of " +
        std::to_string (total) + " entries");
  for (int c = 0; c < 3; c++)
    if (!(cube.domain_max[c] > cube.domain_min[c]))
      throw CubeError (name, line_no, "DOMAIN_MAX must be above DOMAIN_MIN in every channel");
  return cube;
}

Cube
read_cube_file (const std::string &path)
{
  std::ifstream in (path, std::ios::binary);
  if (!in)
    throw CubeError (path, 0, std::string ("cannot open: ") + std::strerror (errno));
  return parse_cube (in, path);
}

std::array<double, 3>
cube_apply (const Cube &cube, const std::array<double, 3> &in, Interpolation interpolation)
{
  const int n = cube.size;
  double f[3];
  int i0[3];
  for (int c = 0; c < 3; c++) {
    double g = (in[c] - cube.domain_min[c]) / (cube.domain_max[c] - cube.domain_min[c]) *
        (n - 1);
    g = std::clamp (g, 0.0, (double) (n - 1));
    i0[c] = std::min ((int) g, n - 2);
    f[c] = g - i0[c];
  }
  auto at = [&] (int dr, int dg, int db, int c) {
    return (double) cube.rgb[3 * ((size_t) (i0[0] + dr) + n * ((size_t) (i0[1] + dg) +
                (size_t) n * (i0[2] + db))) + c];
  };
  std::array<double, 3> out;
  for (int c = 0; c < 3; c++) {
    if (interpolation == INTERP_TRILINEAR) {
      double v = 0;
      for (int k = 0; k < 8; k++) {
        const int dr = k & 1, dg = (k >> 1) & 1, db = k >> 2;
        v += (dr ? f[0] : 1 - f[0]) * (dg ? f[1] : 1 - f[1]) * (db ? f[2] : 1 - f[2]) *
            at (dr, dg, db, c);
      }
      out[c] = v;
      continue;
    }
    /* tetrahedral: the tetrahedron of the cell's diagonal that holds the
     * point, by the order of its fractions */
    const double r = f[0], g = f[1], b = f[2];
    const double c000 = at (0, 0, 0, c), c111 = at (1, 1, 1, c);
    if (r >= g && g >= b)
      out[c] = (1 - r) * c000 + (r - g) * at (1, 0, 0, c) + (g - b) * at (1, 1, 0, c) + b * c111;
    else if (r >= b && b >= g)
      out[c] = (1 - r) * c000 + (r - b) * at (1, 0, 0, c) + (b - g) * at (1, 0, 1, c) + g * c111;
    else if (b >= r && r >= g)
      out[c] = (1 - b) * c000 + (b - r) * at (0, 0, 1, c) + (r - g) * at (1, 0, 1, c) + g * c111;
    else if (g >= r && r >= b)
      out[c] = (1 - g) * c000 + (g - r) * at (0, 1, 0, c) + (r - b) * at (1, 1, 0, c) + b * c111;
    else if (g >= b && b >= r)
      out[c] = (1 - g) * c000 + (g - b) * at (0, 1, 0, c) + (b - r) * at (0, 1, 1, c) + r * c111;
    else
      out[c] = (1 - b) * c000 + (b - g) * at (0, 0, 1, c) + (g - r) * at (0, 1, 1, c) + r * c111;
  }
  return out;
}

}  // namespace clpicture
