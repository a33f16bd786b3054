// Synthetic workloads: arrivals from a renewal process at a given rate, lengths fixed, uniform, or drawn from a
// trace's empirical distribution. Poisson arrivals have exponential gaps (coefficient of variation 1); Gamma gaps
// with CV c > 1 make the bursts that production traces show (Azure's code trace has CV about 13), c < 1 smoother
// traffic. Every draw is from Rng (traces/random.hpp), so a seed gives the same workload on every platform.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/enum_names.hpp"

#include "traces/random.hpp"
#include "traces/request.hpp"
#include "traces/trace_reader.hpp"

namespace lynx {

// at-once: every request at time 0, as `vllm bench serve` sends them without --request-rate (its default inf).
enum class ArrivalProcess { poisson, gamma, at_once };
inline constexpr auto kArrivalProcessNames = enum_names<ArrivalProcess>(
    {{ArrivalProcess::poisson, "poisson"}, {ArrivalProcess::gamma, "gamma"}, {ArrivalProcess::at_once, "at-once"}});

struct LengthSpec {
  enum class Kind { fixed, uniform, empirical };
  Kind kind = Kind::fixed;
  int64_t fixed_tokens = 1;               // fixed
  // fixed with a range ratio r > 0: uniform integers in [floor(L (1 - r)), ceil(L (1 + r))], as `vllm bench serve
  // --dataset-name random --random-range-ratio r` draws them (vllm/benchmarks/datasets.py RandomDataset)
  double range_ratio = 0;
  int64_t low_tokens = 1, high_tokens = 1;  // uniform integers in [low, high], both included
  std::string trace_path;                 // empirical: a trace whose rows are sampled uniformly
  TraceReadOptions trace_options;         // how to read it
};

struct SyntheticSpec {
  ArrivalProcess arrival = ArrivalProcess::poisson;
  double rate_per_s = 1;  // mean arrival rate: gaps have mean 1 / rate_per_s
  double cv = 1;          // gamma: coefficient of variation of the gaps (shape 1/cv^2)
  int64_t count = 1;      // requests
  LengthSpec input_tokens, output_tokens;
};

// `count` requests, ids 0..count-1. Arrival i is the sum of i + 1 gaps (the process starts at 0). When input and
// output lengths are both empirical from the same trace (and read options), each request takes both from one
// sampled row, which keeps their correlation; otherwise they are drawn independently. Arrival gaps and lengths
// use separate random streams derived from `seed`.
std::vector<Request> synthetic_generate(const SyntheticSpec& spec, uint64_t seed);

// The same requests one at a time, in bounded memory (a workload of millions of requests need not be held).
class SyntheticStream {
 public:
  SyntheticStream(const SyntheticSpec& spec, uint64_t seed);
  // Fills the next request; false after the last.
  bool next(Request& r);

 private:
  SyntheticSpec spec_;
  Rng arrivals_, lengths_;
  bool joint_ = false;
  std::vector<int64_t> input_input_, output_output_;  // empirical lengths (input's, output's)
  double mean_gap_s_ = 1, shape_ = 1, t_ = 0;
  int64_t next_id_ = 0;
};

const char* arrival_process_name(ArrivalProcess process);

}  // namespace lynx
