// Seeded random numbers whose results do not depend on the standard library: std::mt19937_64 is fully specified
// by the C++ standard, but std::*_distribution are not (libstdc++ and libc++ give different samples), so every
// distribution the workloads need is written here from uniform doubles. Same seed, same numbers, everywhere
// (up to the last bit of the C library's log(), which IEEE 754 does not pin down).
#pragma once
#include <cstdint>
#include <random>

namespace lynx {

// A seed for an independent stream `stream` derived from `seed` (SplitMix64 finaliser), so that e.g. the arrival
// times and the lengths of a synthetic workload do not shift when one of them draws more numbers.
uint64_t seed_derive(uint64_t seed, uint64_t stream);

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}

  uint64_t next_u64() { return engine_(); }
  // Uniform in [0, 1): the top 53 bits of one engine output.
  double uniform01();
  // Uniform in (0, 1]: 1 - uniform01(), safe to take the logarithm of.
  double uniform01_open_low();
  // Uniform integer in [0, n), n > 0, without modulo bias (rejection of the top partial range).
  uint64_t below(uint64_t n);
  // Exponential with the given mean: -mean * log(U), U in (0, 1].
  double exponential(double mean);
  // Standard normal by Marsaglia's polar method (pairs; the second value is kept for the next call).
  double normal();
  // Gamma(shape, scale), mean shape * scale, by Marsaglia and Tsang (2000); shape < 1 uses the boost
  // Gamma(shape + 1) * U^(1/shape).
  double gamma(double shape, double scale);

 private:
  std::mt19937_64 engine_;
  bool has_spare_normal_ = false;
  double spare_normal_ = 0;
};

}  // namespace lynx
