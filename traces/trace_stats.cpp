#include "traces/trace_stats.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "common/error.hpp"

namespace lynx {

int64_t percentile_nearest_rank(const std::vector<int64_t>& sorted, double p) {
  if (sorted.empty()) throw_error("internal error: percentile of an empty list");
  double rank = std::ceil(p * static_cast<double>(sorted.size()) / 100.0);  // p * n is exact for integer p
  size_t index = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return sorted[std::min(index, sorted.size() - 1)];
}

TokenStats token_stats_compute(std::vector<int64_t> values) {
  TokenStats s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  // The sum in long double: exact for every sum below 2^64 (the int64 sum overflowed on rows near INT64_MAX,
  // trace-stats printed a mean of -4.6e18), and the same value as before for every real trace.
  long double total = 0;
  int64_t over_8k = 0, over_32k = 0;
  for (int64_t v : values) {
    total += static_cast<long double>(v);
    over_8k += v > 8192;
    over_32k += v > 32768;
  }
  double n = static_cast<double>(values.size());
  s.mean = static_cast<double>(total) / n;
  s.p50 = percentile_nearest_rank(values, 50);
  s.p90 = percentile_nearest_rank(values, 90);
  s.p99 = percentile_nearest_rank(values, 99);
  s.max = values.back();
  s.share_over_8k = static_cast<double>(over_8k) / n;
  s.share_over_32k = static_cast<double>(over_32k) / n;
  return s;
}

int64_t prefix_hit_tokens_infinite_cache(const std::vector<Request>& requests, int64_t block_tokens) {
  std::unordered_set<uint64_t> cached;
  int64_t hit_tokens = 0;
  for (const Request& r : requests) {
    int64_t blocks = 0;
    for (uint64_t id : r.prefix_block_hashes) {
      if (!cached.count(id)) break;
      ++blocks;
    }
    hit_tokens += std::min(blocks * block_tokens, r.input_tokens);
    cached.insert(r.prefix_block_hashes.begin(), r.prefix_block_hashes.end());
  }
  return hit_tokens;
}

TraceStats trace_stats_compute(const std::vector<Request>& requests, int64_t block_tokens) {
  TraceStats s;
  s.requests = static_cast<int64_t>(requests.size());
  if (requests.empty()) return s;
  std::vector<int64_t> input, output;
  input.reserve(requests.size());
  output.reserve(requests.size());
  s.first_arrival_s = requests.front().arrival_s;
  s.last_arrival_s = requests.front().arrival_s;
  for (const Request& r : requests) {
    input.push_back(r.input_tokens);
    output.push_back(r.output_tokens);
    s.input_tokens_total += r.input_tokens;
    s.first_arrival_s = std::min(s.first_arrival_s, r.arrival_s);
    s.last_arrival_s = std::max(s.last_arrival_s, r.arrival_s);
    s.has_prefix_blocks = s.has_prefix_blocks || !r.prefix_block_hashes.empty();
  }
  s.span_s = s.last_arrival_s - s.first_arrival_s;
  // Undefined (NaN), not 0, when every request arrives at one time: n - 1 gaps of 0 s is no rate at all.
  s.rate_per_s = s.span_s > 0 ? static_cast<double>(s.requests - 1) / s.span_s : NAN;
  s.input = token_stats_compute(std::move(input));
  s.output = token_stats_compute(std::move(output));
  if (s.has_prefix_blocks) {
    s.prefix_hit_tokens = prefix_hit_tokens_infinite_cache(requests, block_tokens);
    s.prefix_hit_ratio = static_cast<double>(s.prefix_hit_tokens) / static_cast<double>(s.input_tokens_total);
  }
  return s;
}

}  // namespace lynx
