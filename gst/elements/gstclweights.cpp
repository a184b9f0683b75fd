/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The weights of clconvolve and clfir: reading and checking them, and their
 * analysis for the engine (rank 1, integer factors), on the host. */
#include "gstclweights.hpp"

#include <cmath>

namespace clconv {

bool
values_from_array (const GValue * array, std::vector<double> *out, std::string *why)
{
  if (!GST_VALUE_HOLDS_ARRAY (array)) {
    *why = "not an array";
    return false;
  }
  const guint size = gst_value_array_get_size (array);
  std::vector<double> values;
  values.reserve (size);
  for (guint i = 0; i < size; i++) {
    const GValue *v = gst_value_array_get_value (array, i);
    GValue d = G_VALUE_INIT;
    g_value_init (&d, G_TYPE_DOUBLE);
    const bool ok = g_value_type_transformable (G_VALUE_TYPE (v), G_TYPE_DOUBLE) &&
        g_value_transform (v, &d);
    const double value = g_value_get_double (&d);
    g_value_unset (&d);
    if (!ok) {
      *why = std::string ("element ") + std::to_string (i) + " is a " +
          G_VALUE_TYPE_NAME (v) + ", not a number";
      return false;
    }
    values.push_back (value);
  }
  *out = std::move (values);
  return true;
}

void
array_from_values (const std::vector<double> &values, GValue * array)
{
  GValue v = G_VALUE_INIT;
  g_value_init (&v, G_TYPE_DOUBLE);
  for (double d : values) {
    g_value_set_double (&v, d);
    gst_value_array_append_value (array, &v);
  }
  g_value_unset (&v);
}

/* A double param spec that accepts every double: GParamSpecDouble calls NaN
 * out of range (NaN != NaN), and GObject would refuse it with a critical
 * warning before set_property could say why. */
static gboolean
weight_validate (GParamSpec *, GValue *)
{
  return FALSE;
}

static gint
weight_compare (GParamSpec *, const GValue * a, const GValue * b)
{
  const double x = g_value_get_double (a), y = g_value_get_double (b);
  return x < y ? -1 : x > y ? 1 : 0;
}

static GType
weight_param_get_type ()
{
  static GType type = 0;
  if (g_once_init_enter (&type)) {
    GParamSpecTypeInfo info = {};
    info.instance_size = sizeof (GParamSpec);
    info.value_type = G_TYPE_DOUBLE;
    info.value_validate = weight_validate;
    info.values_cmp = weight_compare;
    g_once_init_leave (&type, g_param_type_register_static ("GstClParamWeight", &info));
  }
  return type;
}

GParamSpec *
param_spec_weights (const char *name, const char *nick, const char *blurb,
    GParamFlags flags)
{
  GParamSpec *weight = (GParamSpec *) g_param_spec_internal (weight_param_get_type (),
      "weight", "Weight", "One weight", G_PARAM_READWRITE);
  return gst_param_spec_array (name, nick, blurb, weight, flags);
}

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
