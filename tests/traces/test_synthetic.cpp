// Synthetic workloads against closed forms: exponential and gamma gaps (mean, CV, tail), uniform and empirical
// lengths, and determinism (the same seed gives the same numbers; the engine is the standard's mt19937_64).
#include <doctest/doctest.h>

#include <cmath>
#include <map>

#include "trace_test_util.hpp"
#include "traces/random.hpp"
#include "traces/synthetic.hpp"

using namespace lynx;

namespace {
struct GapStats {
  double mean = 0, cv = 0, share_over_mean = 0;
};
GapStats gap_stats(const std::vector<Request>& requests) {
  std::vector<double> gaps;
  double previous = 0;
  for (const Request& r : requests) {
    gaps.push_back(r.arrival_s - previous);
    previous = r.arrival_s;
  }
  GapStats s;
  double n = static_cast<double>(gaps.size()), sum = 0, sum2 = 0;
  for (double g : gaps) sum += g;
  s.mean = sum / n;
  for (double g : gaps) {
    sum2 += (g - s.mean) * (g - s.mean);
    s.share_over_mean += g > s.mean;
  }
  s.cv = std::sqrt(sum2 / (n - 1)) / s.mean;
  s.share_over_mean /= n;
  return s;
}
SyntheticSpec fixed_lengths(ArrivalProcess arrival, double rate, double cv, int64_t count) {
  SyntheticSpec s;
  s.arrival = arrival;
  s.rate_per_s = rate;
  s.cv = cv;
  s.count = count;
  s.input_tokens.fixed_tokens = 1000;
  s.output_tokens.fixed_tokens = 100;
  return s;
}
}  // namespace

TEST_CASE("the random engine is the standard's mt19937_64, and uniform01 uses its top 53 bits") {
  std::mt19937_64 reference;  // default seed 5489
  reference.discard(9999);
  CHECK(reference() == 9981545732273789042ull);  // [rand.predef]: the 10000th output
  Rng rng(5489);
  uint64_t first = std::mt19937_64(5489)();
  CHECK(rng.uniform01() == static_cast<double>(first >> 11) / 9007199254740992.0);
  CHECK(seed_derive(1, 0) != seed_derive(1, 1));
  CHECK(seed_derive(1, 0) != seed_derive(2, 0));
}

TEST_CASE("Rng::below is uniform below n") {
  Rng rng(7);
  std::vector<int> counts(6);
  for (int i = 0; i < 60000; ++i) ++counts[rng.below(6)];
  for (int c : counts) CHECK(std::abs(c - 10000) < 400);  // sd ~ 91
}

TEST_CASE("Poisson arrivals: exponential gaps of mean 1/rate (200,000 samples)") {
  std::vector<Request> r = synthetic_generate(fixed_lengths(ArrivalProcess::poisson, 4.0, 1, 200000), 42);
  REQUIRE(r.size() == 200000);
  GapStats s = gap_stats(r);
  double sigma = 0.25 / std::sqrt(200000.0);  // standard error of the mean gap
  CHECK(std::abs(s.mean - 0.25) < 4 * sigma);
  CHECK(std::abs(s.cv - 1.0) < 0.01);
  CHECK(std::abs(s.share_over_mean - std::exp(-1.0)) < 0.005);  // P(X > mean) = 1/e; sd 0.0011
  for (size_t i = 0; i < r.size(); ++i) {
    CHECK(r[i].id == static_cast<int64_t>(i));
    if (i && !(r[i].arrival_s > r[i - 1].arrival_s)) FAIL("arrivals not increasing at " << i);
  }
  CHECK(r[0].arrival_s > 0);
  CHECK(r[0].input_tokens == 1000);
  CHECK(r[0].output_tokens == 100);
}

TEST_CASE("Gamma arrivals: mean 1/rate and the requested CV, bursty (cv 3) and smooth (cv 0.5)") {
  for (double cv : {3.0, 0.5}) {
    CAPTURE(cv);
    std::vector<Request> r = synthetic_generate(fixed_lengths(ArrivalProcess::gamma, 2.0, cv, 200000), 9);
    GapStats s = gap_stats(r);
    CHECK(std::abs(s.mean - 0.5) < 4 * cv * 0.5 / std::sqrt(200000.0));
    CHECK(std::abs(s.cv - cv) < 0.05 * cv);
  }
}

TEST_CASE("synthetic workloads are deterministic for a seed") {
  SyntheticSpec spec = fixed_lengths(ArrivalProcess::gamma, 3.0, 2.0, 1000);
  spec.input_tokens.kind = LengthSpec::Kind::uniform;
  spec.input_tokens.low_tokens = 10;
  spec.input_tokens.high_tokens = 20;
  std::vector<Request> a = synthetic_generate(spec, 1), b = synthetic_generate(spec, 1), c = synthetic_generate(spec, 2);
  bool same = true, differ = false;
  for (size_t i = 0; i < a.size(); ++i) {
    same = same && a[i].arrival_s == b[i].arrival_s && a[i].input_tokens == b[i].input_tokens;
    differ = differ || a[i].arrival_s != c[i].arrival_s;
  }
  CHECK(same);
  CHECK(differ);
  // Pinned values: a change of the sampling code shows here (the last bits may differ with another libm).
  std::vector<Request> p = synthetic_generate(fixed_lengths(ArrivalProcess::poisson, 1.0, 1, 3), 2024);
  std::vector<Request> q = synthetic_generate(fixed_lengths(ArrivalProcess::poisson, 1.0, 1, 3), 2024);
  CHECK(p[2].arrival_s == q[2].arrival_s);
  Rng arrivals(seed_derive(2024, 1));
  double t = 0;
  for (int i = 0; i < 3; ++i) t += -std::log(1.0 - static_cast<double>(arrivals.next_u64() >> 11) * 0x1.0p-53);
  CHECK(p[2].arrival_s == t);
}

TEST_CASE("uniform lengths cover low to high evenly") {
  SyntheticSpec spec = fixed_lengths(ArrivalProcess::poisson, 1.0, 1, 30000);
  spec.output_tokens.kind = LengthSpec::Kind::uniform;
  spec.output_tokens.low_tokens = 5;
  spec.output_tokens.high_tokens = 7;
  std::map<int64_t, int> counts;
  for (const Request& r : synthetic_generate(spec, 3)) ++counts[r.output_tokens];
  REQUIRE(counts.size() == 3);
  for (auto [tokens, n] : counts) CHECK(std::abs(n - 10000) < 400);
}

TEST_CASE("empirical lengths: rows of a trace, input and output drawn together from the same trace") {
  std::string path = lynx_test::write_temp("empirical.csv", "arrived_at,num_prefill_tokens,num_decode_tokens\n"
                                                            "0,100,1\n1,200,2\n2,300,3\n3,400,4\n");
  SyntheticSpec spec = fixed_lengths(ArrivalProcess::poisson, 1.0, 1, 40000);
  spec.input_tokens.kind = spec.output_tokens.kind = LengthSpec::Kind::empirical;
  spec.input_tokens.trace_path = spec.output_tokens.trace_path = path;
  std::map<std::pair<int64_t, int64_t>, int> pairs;
  for (const Request& r : synthetic_generate(spec, 5)) ++pairs[{r.input_tokens, r.output_tokens}];
  REQUIRE(pairs.size() == 4);  // only the trace's own (input, output) pairs
  for (auto [pair, n] : pairs) {
    CHECK(pair.first == 100 * pair.second);
    CHECK(std::abs(n - 10000) < 500);
  }
  // From different traces: independent draws, all 16 combinations.
  spec.output_tokens.trace_path = lynx_test::write_temp("empirical2.csv", "arrived_at,num_prefill_tokens,num_decode_tokens\n"
                                                                          "0,100,1\n1,200,2\n2,300,3\n3,400,4\n");
  pairs.clear();
  for (const Request& r : synthetic_generate(spec, 5)) ++pairs[{r.input_tokens, r.output_tokens}];
  CHECK(pairs.size() == 16);
}

TEST_CASE("synthetic specs are validated") {
  SyntheticSpec spec = fixed_lengths(ArrivalProcess::poisson, 1.0, 1, 10);
  spec.input_tokens.kind = LengthSpec::Kind::uniform;
  spec.input_tokens.low_tokens = 9;
  spec.input_tokens.high_tokens = 3;
  CHECK(lynx_test::error_of([&] { synthetic_generate(spec, 1); }) ==
        "synthetic input_tokens: uniform [9, 3], expected 1 <= low <= high");
  spec = fixed_lengths(ArrivalProcess::poisson, 0, 1, 10);
  CHECK(lynx_test::error_of([&] { synthetic_generate(spec, 1); }) ==
        "synthetic workload: expected rate_per_s > 0, count >= 1 and cv > 0 (got 0, 10, 1)");
}
