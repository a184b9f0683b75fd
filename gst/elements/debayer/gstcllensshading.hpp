/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Lens-shading grids: the text file that cldebayer's `lens-shading-file`
 * reads and gst-opencl-calibrate writes, and the bilinear gain the element
 * applies (docs/camera.md, "Lens shading: file format and calibration").
 * Plain C++ (no GStreamer, no OpenCL): the plugin, the tool and the tests'
 * CPU model build the same file. */
#pragma once

#include "../gstcltextfile.hpp"

#include <array>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

namespace cldebayer {

/* Channels of a lens-shading grid, in the file's block order. Gr is the green
 * on the red rows, Gb the green on the blue rows. */
enum ShadingChannel { SHADING_R = 0, SHADING_GR = 1, SHADING_GB = 2, SHADING_B = 3 };

constexpr int kShadingMinSize = 2, kShadingMaxSize = 64;

struct ShadingGrid {
  int columns = 0, rows = 0;                 /* 2..64 each */
  std::array<std::vector<float>, 4> gains;   /* per channel, row-major: rows x columns, each > 0 */
  bool empty () const { return columns == 0; }
};

/* A bad file: what() is "<name>:<line>: <message>" (line 0 for I/O errors). */
struct ShadingError : gstcl::TextFileError {
  using TextFileError::TextFileError;
};

/* The file's text: a header `lens-shading <columns> <rows>`, then the R, Gr,
 * Gb and B blocks of `rows` lines of `columns` gains each; `#` starts a
 * comment, blank lines go anywhere. Throws ShadingError naming the line. */
ShadingGrid parse_shading (std::istream & in, const std::string & name);   /* throws ShadingError */
ShadingGrid read_shading_file (const std::string & path);                  /* throws ShadingError */
/* A comment saying what the file is, the header and the blocks; each gain
 * with the fewest digits (6 where they do) that read back as the same float. */
void write_shading (std::ostream & out, const ShadingGrid & grid);

/* The channel of the sample at (x, y) for a Bayer order given as the colour at
 * (0,0),(1,0),(0,1),(1,1): "rggb", "grbg", "gbrg", "bggr" (a caps format
 * such as "rggb12le" is taken by its first four letters). Throws
 * std::invalid_argument for anything else. */
ShadingChannel shading_channel (const char * order, int x, int y);

/* The grid's bilinear gain for `channel` at pixel (x, y) of a width x height
 * frame (grid point (i, j) sits at pixel (i (width-1)/(columns-1), j (height-1)/(rows-1)));
 * double precision, clamped at the grid's edges. The CPU model of the tests uses it.
 * An empty grid gives 1. */
double shading_gain (const ShadingGrid & grid, int channel, double x, double y, int width, int height);

}  // namespace cldebayer
