// Streaming metrics: exact percentiles in bounded memory (values beyond ValueStream::kInMemory spill to a file and
// are selected by radix passes) equal sorting every value, bit for bit.
#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "sim/metrics.hpp"

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
