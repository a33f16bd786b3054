// Summary statistics of a workload, the figures `lynxsim trace-stats` prints: size, time span and rate, token-length
// distributions, and the prefix hit ratio an infinite prefix cache would reach.
//
// Conventions (so that the figures are closed forms one can check by hand):
// - percentiles are nearest-rank: pP is the value of rank ceil(P/100 * n) in ascending order (no interpolation);
// - rate_per_s = (n - 1) / span_s, span_s = last arrival - first arrival (n arrivals make n - 1 gaps); undefined
//   when span_s is 0 (one request, or every request at one time): NaN, printed "undefined" (null in JSON);
// - "over 8K" and "over 32K" mean more than 8,192 and 32,768 tokens;
// - prefix hit (infinite cache): requests are served in arrival order; a request hits the longest run of leading
//   prefix blocks whose ids all appeared in earlier requests, and its hit tokens are min(blocks * block_tokens,
//   input_tokens) (the last block of a prompt may be partial). The ratio is hit tokens / all input tokens.
#pragma once
#include <cstdint>
#include <vector>

#include "traces/request.hpp"

namespace lynx {

// Mooncake's hash_ids cover 512-token blocks.
constexpr int64_t kMooncakeBlockTokens = 512;

struct TokenStats {
  double mean = 0;
  int64_t p50 = 0, p90 = 0, p99 = 0, max = 0;
  double share_over_8k = 0;   // fraction of requests with more than 8,192 tokens
  double share_over_32k = 0;  // more than 32,768
};

struct TraceStats {
  int64_t requests = 0;
  double first_arrival_s = 0, last_arrival_s = 0, span_s = 0;
  double rate_per_s = 0;  // NaN (undefined) when span_s is 0: one request, or all at one time
  TokenStats input, output;
  int64_t input_tokens_total = 0;
  bool has_prefix_blocks = false;  // some request carries prefix block ids
  int64_t prefix_hit_tokens = 0;
  double prefix_hit_ratio = 0;
};

// Nearest-rank percentile of ascending `sorted` (non-empty), 0 < p <= 100.
int64_t percentile_nearest_rank(const std::vector<int64_t>& sorted, double p);

TokenStats token_stats_compute(std::vector<int64_t> values);

// Input tokens an infinite prefix cache would serve from cache, in arrival order (see above).
int64_t prefix_hit_tokens_infinite_cache(const std::vector<Request>& requests, int64_t block_tokens);

TraceStats trace_stats_compute(const std::vector<Request>& requests, int64_t block_tokens = kMooncakeBlockTokens);

}  // namespace lynx
