// How many of a Lynx request's k speculative tokens survive verification. Drawn, seeded, from one of three
// explicit sources (the summary's sources.acceptance says which):
// - an accuracy file written by `lynxsim accuracy` (models/accuracy/<model>.json): for k = 1..k_max a histogram of
//   accepted tokens m, pooled ("speculation") or per prompt length ("speculation_by_prompt_length": a request uses
//   the longest measured length not above its prompt, the shortest below it; a prompt beyond the longest is
//   extrapolated and counted);
// - a histogram given in the configuration (lynx.acceptance_histogram, the same layout);
// - a per-token acceptance rate a: P(m) = a^m (1 - a) for m < k, P(k) = a^k (greedy verification accepts the
//   longest matching prefix).
// Beyond the measured k_max the histogram continues without a jump: under greedy verification m = min(L, k) for a
// match length L, so P(m = j) for j < k_max is the k_max row's, and only the tail P(L >= k_max) is extended,
// geometrically with the tail's own conditional rate P(L >= k_max) / P(L >= k_max - 1).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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
  // The statistics of `format_name` in an accuracy file; throws LynxError naming the file and JSON path.
  static AcceptanceModel from_accuracy_file(const std::string& path, const std::string& format_name);
  // The same from the file's content already parsed (`root`), errors naming `path`.
  static AcceptanceModel from_accuracy_json(const nlohmann::json& root, const std::string& path,
                                            const std::string& format_name);
  // A histogram ([k-1][m] counts) given at `json_path` of `origin`.
  static AcceptanceModel from_histogram(const nlohmann::json& rows, const std::string& origin,
                                        const std::string& json_path);

  // Accepted tokens m in [0, k] for k drafted tokens of a request with `prompt_tokens` prompt tokens.
  int64_t draw(int64_t k, int64_t prompt_tokens, SplitMix64& rng) const;
  // P(m = accepted | k drafts, prompt_tokens): the distribution draw() samples.
  double probability(int64_t accepted, int64_t k, int64_t prompt_tokens) const;
  // Whether a prompt of this length lies beyond the measured prompt lengths (its statistics are extrapolated).
  bool extrapolates(int64_t prompt_tokens) const;

  const std::string& source() const { return source_; }
  void set_source(std::string source) { source_ = std::move(source); }

 private:
  struct Statistics {
    int64_t prompt_tokens = 0;                   // 0: pooled over every prompt length
    double rate = 0;                             // per-token acceptance (the geometric model, no histogram)
    std::vector<std::vector<double>> histogram;  // [k-1][m] counts; empty: the rate alone
  };
  const Statistics& statistics_for(int64_t prompt_tokens) const;
  static Statistics read_statistics(const nlohmann::json& value, const std::string& origin, const std::string& path);
  // The model of an accuracy file's entry read whole (by prompt length, or pooled): its source text.
  static AcceptanceModel from_statistics(std::vector<Statistics> statistics, bool by_length, const std::string& path,
                                         const std::string& format_name);
  std::vector<Statistics> by_length_;  // ascending prompt_tokens (one entry with 0 when pooled)
  std::string source_;
};

}  // namespace lynx
