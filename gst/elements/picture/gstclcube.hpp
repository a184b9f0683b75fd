/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* 3D LUTs in the Adobe/Resolve `.cube` text format, as the picture stages'
 * `lut3d-file` reads them (docs/clpicture.md, "3D LUT"), and the CPU
 * interpolations the tests compare the kernels with. Plain C++ (no
 * GStreamer, no OpenCL). */
#pragma once

#include "../gstcltextfile.hpp"

#include <array>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

namespace clpicture {

constexpr int kCubeMinSize = 2, kCubeMaxSize = 65;

struct Cube {
  int size = 0;                              /* points along each axis, 2..65 */
  std::array<float, 3> domain_min {0, 0, 0}; /* the input range mapped onto the grid */
  std::array<float, 3> domain_max {1, 1, 1};
  std::string title;
  /* size^3 RGB triplets, red varying fastest: index r + size (g + size b) */
  std::vector<float> rgb;
};

/* A bad file: what() is "<name>:<line>: <message>" (line 0 for I/O errors). */
struct CubeError : gstcl::TextFileError {
  using TextFileError::TextFileError;
};

/* Keywords TITLE, LUT_3D_SIZE, DOMAIN_MIN, DOMAIN_MAX (before the table),
 * `#` comments and blank lines anywhere, then size^3 lines of three numbers.
 * LUT_1D_SIZE and LUT_3D_INPUT_RANGE are refused (1D LUTs are not applied).
 * Throws CubeError naming the line. */
Cube parse_cube (std::istream & in, const std::string & name);
Cube read_cube_file (const std::string & path);

enum Interpolation { INTERP_TRILINEAR = 0, INTERP_TETRAHEDRAL = 1 };

/* The LUT's value at the R'G'B' triplet `in` (its domain mapped onto the
 * grid, clamped), interpolated in double precision. */
std::array<double, 3> cube_apply (const Cube & cube, const std::array<double, 3> & in,
    Interpolation interpolation);

}  // namespace clpicture
