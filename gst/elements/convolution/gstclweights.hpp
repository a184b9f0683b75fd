/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The weights of clconvolve and clfir: checking them, and their
 * analysis for the engine (gstclconvolution.hpp). */
#pragma once

#include <gst/gst.h>

#include <array>
#include <string>
#include <vector>

namespace clconv {

constexpr int kMaxSide = 31;

/* The side N of a square kernel of `count` values with N odd in 1..31, else
 * 0. */
int square_side (size_t count);
/* "" when `k` is an NxN kernel with odd N in 1..31 and finite values, else
 * the reason it is not. */
std::string check_kernel (const std::vector<double> &k);

/* One channel's weights, ready for the device. */
struct ChannelWeights {
  std::vector<float> taps;    /* N x N, row-major */
  bool separable = false;     /* taps ~ col[i] * row[j], close enough for 8 bits */
  /* The largest change of an output that the rank-1 form makes, as a
   * fraction of full scale (separable: at most a quarter of 1/255). */
  double rank1_error = 1.0;
  std::vector<float> row, col;
  float scale = 1.0f;         /* 1 / divisor */
  /* Integer factors with taps * scale == fixed_col[i] * fixed_row[j] *
   * fixed_scale (to rounding), 255 sum |row| <= 32640 and 255 sum |row|
   * sum |col| < 2^24 (kernels/convolve/fixed.cl, convolve_fixed); empty when there
   * are none. Used by the CPU variant. */
  std::vector<int> fixed_row, fixed_col;
  float fixed_scale = 0.0f;
};

/* The weights of every channel, all of side n. */
struct Weights {
  int n = 1;
  /* Red, green and blue for colour formats; [kGray] for GRAY8. */
  static constexpr int kGray = 3;
  std::array<ChannelWeights, 4> channel;
  float bias = 0.0f;
};

/* Prepares `kernel` (checked with check_kernel) for every channel, with
 * `overrides` (empty or of the same size) in place of it for red, green and
 * blue. With `normalize`, each channel is divided by its own sum unless that
 * is 0 (closer to 0 than 1e-9 of the sum of |weights|). */
Weights prepare_weights (const std::vector<double> &kernel,
    const std::array<std::vector<double>, 3> &overrides, bool normalize, double bias);

}  // namespace clconv
