/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Summary of repeated measurements: median and spread. */
#pragma once

#include "json.h"

#include <vector>

namespace bench {

struct Spread {
  int n = 0;
  double median = 0, min = 0, max = 0, q1 = 0, q3 = 0;  /* q1/q3: interpolated quartiles */
};

Spread spread_of (std::vector<double> values);
double median_of (std::vector<double> values);
/* {"median", "min", "max", "q1", "q3", "n", "runs": [...]} */
Json spread_json (const std::vector<double> &values);

}  // namespace bench
