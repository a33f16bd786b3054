// Streaming metrics: exact percentiles in bounded memory (values beyond ValueStream::kInMemory spill to a file and
// are selected by radix passes) equal sorting every value, bit for bit.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "common/error.hpp"
#include "sim/output/metrics.hpp"

using namespace lynx;

TEST_CASE("ValueStream: spilled percentiles and sums equal those of all values in memory") {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> lengths(0.0, 2.0);
  for (size_t n : {size_t{1}, size_t{5}, ValueStream::kInMemory - 1, ValueStream::kInMemory * 3 + 17}) {
    ValueStream stream;
    std::vector<double> all;
    double sum = 0;
    for (size_t i = 0; i < n; ++i) {
      // Some ties, some zeros, a few negative values.
      double v = i % 97 == 0 ? 0.0 : (i % 13 == 0 ? 42.0 : lengths(rng) - (i % 31 == 0 ? 5.0 : 0.0));
      stream.push_back(v);
      all.push_back(v);
      sum += v;
    }
    CHECK(stream.size() == n);
    CHECK(stream.sum() == sum);
    for (double pct : {0.0, 1.0, 50.0, 90.0, 99.0, 99.9, 100.0}) CHECK(stream.percentile(pct) == percentile(all, pct));
  }
}

TEST_CASE("percentiles: one copy, each selection above the last, equal to the sorted values' interpolation") {
  // The reference: numpy's linear interpolation on a sorted copy.
  auto sorted_percentile = [](std::vector<double> v, double pct) {
    std::sort(v.begin(), v.end());
    const double rank = pct / 100.0 * static_cast<double>(v.size() - 1);
    const size_t lo = static_cast<size_t>(std::floor(rank)), hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (rank - static_cast<double>(lo));
  };
  std::mt19937_64 rng(3);
  const std::vector<double> pcts = {0, 1, 50, 50, 50.5, 90, 99, 99.9, 100};
  for (size_t n : {size_t{1}, size_t{2}, size_t{3}, size_t{10}, size_t{101}, size_t{12031}}) {
    std::vector<double> v;
    for (size_t i = 0; i < n; ++i) v.push_back(static_cast<double>(rng() % 50) * 0.25);  // many ties
    const std::vector<double> got = percentiles(v, pcts);
    REQUIRE(got.size() == pcts.size());
    for (size_t k = 0; k < pcts.size(); ++k) {
      CAPTURE(n);
      CAPTURE(pcts[k]);
      CHECK(got[k] == sorted_percentile(v, pcts[k]));
      CHECK(percentile(v, pcts[k]) == got[k]);
    }
    ValueStream stream;
    for (double x : v) stream.push_back(x);
    CHECK(stream.percentiles(pcts) == got);
  }
  CHECK(std::isnan(percentiles({}, {50, 90})[1]));
  CHECK_THROWS_WITH_AS(percentiles({1, 2}, {90, 50}), doctest::Contains("increasing order"), InternalError);
}
