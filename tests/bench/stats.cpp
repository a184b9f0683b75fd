/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "stats.h"

#include <algorithm>
#include <cmath>

namespace bench {

static double
quantile (const std::vector<double> &sorted, double q)
{
  const double pos = q * (double) (sorted.size () - 1);
  const size_t lo = (size_t) std::floor (pos);
  const size_t hi = std::min (lo + 1, sorted.size () - 1);
  return sorted[lo] + (pos - (double) lo) * (sorted[hi] - sorted[lo]);
}

Spread
spread_of (std::vector<double> v)
{
  Spread s;
  if (v.empty ())
    return s;
  std::sort (v.begin (), v.end ());
  s.n = (int) v.size ();
  s.min = v.front ();
  s.max = v.back ();
  s.median = quantile (v, 0.5);
  s.q1 = quantile (v, 0.25);
  s.q3 = quantile (v, 0.75);
  return s;
}

double
median_of (std::vector<double> values)
{
  return spread_of (std::move (values)).median;
}

Json
spread_json (const std::vector<double> &values)
{
  const Spread s = spread_of (values);
  Json j = Json::object ();
  j["median"] = s.median;
  j["min"] = s.min;
  j["max"] = s.max;
  j["q1"] = s.q1;
  j["q3"] = s.q3;
  j["n"] = s.n;
  Json runs = Json::array ();
  for (double v : values)
    runs.push (v);
  j["runs"] = runs;
  return j;
}

}  // namespace bench
