// How many of a Lynx request's k speculative tokens survive verification. Drawn, seeded, from the statistics the
// functional decoder measured (models/accuracy/<model>.json: for k = 1..k_max, a histogram of accepted tokens m),
// or from a per-token acceptance rate a: P(m) = a^m (1 - a) for m < k, P(k) = a^k (greedy verification accepts
// the longest matching prefix). k beyond the measured k_max uses the rate.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace lynx {

// Deterministic 64-bit generator (splitmix64): the same stream on every platform and standard library.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next_u64();
  double uniform();  // [0, 1)
 private:
  uint64_t state_;
};

class AcceptanceModel {
 public:
  // A fixed per-token rate.
  static AcceptanceModel from_rate(double per_token_rate, std::string source);
  // The "speculation" block of `format_name` in an accuracy file; throws LynxError naming the file and JSON path.
  static AcceptanceModel from_accuracy_file(const std::string& path, const std::string& format_name);

  // Accepted tokens m in [0, k] for k drafted tokens.
  int64_t draw(int64_t k, SplitMix64& rng) const;
  // Expected m for k drafts.
  double expected_accepted(int64_t k) const;

  double per_token_rate() const { return rate_; }
  const std::string& source() const { return source_; }
  int64_t k_max() const { return static_cast<int64_t>(histogram_.size()); }

 private:
  double rate_ = 0.9;
  std::string source_;
  std::vector<std::vector<double>> histogram_;  // [k-1][m] counts
};

}  // namespace lynx
