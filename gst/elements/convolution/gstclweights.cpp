/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The weights of clconvolve and clfir: checking them, and their
 * analysis for the engine (rank 1, integer factors), on the host. */
#include "gstclweights.hpp"

#include <cmath>

namespace clconv {

int
square_side (size_t count)
{
  for (int n = 1; n <= kMaxSide; n += 2)
    if ((size_t) n * n == count)
      return n;
  return 0;
}

std::string
check_kernel (const std::vector<double> &k)
{
  for (size_t i = 0; i < k.size (); i++)
    if (!std::isfinite (k[i]))
      return "value " + std::to_string (i) + " is not a finite number";
  if (square_side (k.size ()) == 0)
    return std::to_string (k.size ()) + " values: an N x N kernel needs N * N values "
        "with N odd from 1 to " + std::to_string (kMaxSide) + " (1, 9, 25, 49, ..., 961)";
  return "";
}

/* The index of the tap of largest magnitude: the row and column through it
 * are the factors' estimates (the most accurate ones). */
static size_t
largest_tap (const std::vector<double> &k)
{
  size_t pivot = 0;
  for (size_t i = 1; i < k.size (); i++)
    if (std::fabs (k[i]) > std::fabs (k[pivot]))
      pivot = i;
  return pivot;
}

/* Finds row and col with k[i][j] ~ col[i] * row[j], and whether the
 * difference is small enough that no output moves by more than a quarter of
 * a level: sum |k - col row| * 255 * |scale| <= 0.25. */
static void
factorize (const std::vector<double> &k, int n, double scale, ChannelWeights * out)
{
  const size_t pivot = largest_tap (k);
  const int pr = (int) (pivot / n), pc = (int) (pivot % n);
  std::vector<double> row (n, 0.0), col (n, 0.0);
  if (k[pivot] != 0.0) {
    for (int j = 0; j < n; j++)
      row[j] = k[pr * n + j];
    for (int i = 0; i < n; i++)
      col[i] = k[i * n + pc] / k[pivot];
  }
  double residual = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      residual += std::fabs (k[i * n + j] - col[i] * row[j]);
  out->rank1_error = residual * std::fabs (scale);
  out->separable = out->rank1_error * 255.0 <= 0.25;
  out->row.assign (row.begin (), row.end ());
  out->col.assign (col.begin (), col.end ());
}

/* v / unit as an integer when it is one times a multiplier m in 1..256
 * (the same m for all of v): 1 6 15 20 15 6 1, 0.25 0.5 0.25, 2 3 2, ... */
static bool
integer_multiples (const std::vector<double> &v, double unit, std::vector<int> *out)
{
  for (int m = 1; m <= 256; m++) {
    std::vector<int> ints;
    for (double x : v) {
      const double r = x / unit * m;
      if (std::fabs (r) > 65536.0 || std::fabs (r - std::round (r)) > 1e-9 * (1.0 + std::fabs (r)))
        break;
      ints.push_back ((int) std::lround (r));
    }
    if (ints.size () == v.size ()) {
      *out = std::move (ints);
      return true;
    }
  }
  return false;
}

/* Fills the fixed_* fields of `c` when `k` (pivot k[pr][pc], non-zero) is
 * col[i] * row[j] * constant with small integers row and col: the integer
 * sums are then exact and only the final scaling rounds, in float, so the
 * output stays within 1 of the exact result. */
static void
integer_factors (const std::vector<double> &k, int n, double scale, ChannelWeights * c)
{
  const size_t pivot = largest_tap (k);
  if (k[pivot] == 0.0)
    return;
  const int pr = (int) (pivot / n), pc = (int) (pivot % n);
  std::vector<double> row (n), col (n);
  for (int j = 0; j < n; j++)
    row[j] = k[pr * n + j];
  for (int i = 0; i < n; i++)
    col[i] = k[i * n + pc];
  /* Units: the smallest non-zero magnitude of each factor. */
  auto unit_of = [] (const std::vector<double> &v) {
    double u = 0.0;
    for (double x : v)
      if (x != 0.0 && (u == 0.0 || std::fabs (x) < u))
        u = std::fabs (x);
    return u;
  };
  std::vector<int> irow, icol;
  if (!integer_multiples (row, unit_of (row), &irow) ||
      !integer_multiples (col, unit_of (col), &icol))
    return;
  /* k ~ constant * icol[i] * irow[j], checked everywhere. */
  const double constant = k[pivot] / ((double) icol[pr] * irow[pc]);
  double residual = 0.0, magnitude = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      residual += std::fabs (k[i * n + j] - constant * icol[i] * irow[j]);
      magnitude += std::fabs (k[i * n + j]);
    }
  long long row_sum = 0, col_sum = 0;
  for (int i = 0; i < n; i++) {
    row_sum += std::abs (irow[i]);
    col_sum += std::abs (icol[i]);
  }
  /* Horizontal sums fit in a short, vertical ones stay exact in float. */
  if (residual > 1e-12 * magnitude || row_sum > 128 || row_sum * col_sum > (1 << 16))
    return;
  c->fixed_row = std::move (irow);
  c->fixed_col = std::move (icol);
  c->fixed_scale = (float) (constant * scale);
}

static ChannelWeights
prepare_channel (const std::vector<double> &k, int n, bool normalize)
{
  ChannelWeights c;
  double sum = 0.0, magnitude = 0.0;
  for (double v : k) {
    sum += v;
    magnitude += std::fabs (v);
  }
  const bool zero_sum = std::fabs (sum) <= 1e-9 * magnitude;
  const double scale = normalize && !zero_sum ? 1.0 / sum : 1.0;
  c.scale = (float) scale;
  c.taps.assign (k.begin (), k.end ());
  factorize (k, n, scale, &c);
  if (c.separable)
    integer_factors (k, n, scale, &c);
  return c;
}

Weights
prepare_weights (const std::vector<double> &kernel,
    const std::array<std::vector<double>, 3> &overrides, bool normalize, double bias)
{
  Weights w;
  w.n = square_side (kernel.size ());
  w.bias = (float) bias;
  w.channel[Weights::kGray] = prepare_channel (kernel, w.n, normalize);
  for (int c = 0; c < 3; c++)
    w.channel[c] = overrides[c].empty () ? w.channel[Weights::kGray] :
        prepare_channel (overrides[c], w.n, normalize);
  return w;
}

}  // namespace clconv
