// The metrics of one simulation, as its summary JSON gives them, with vLLM's benchmark metric names (units in
// names: mean_ttft_ms, p99_tpot_ms, request_throughput in requests/s, ...) plus the transfer-specific ones of
// DESIGN.md. Each per-request distribution (sim/output/request_distributions.hpp: ttft, ttft_spec, ttft_correct, tpot,
// e2el, kv_transfer, exposed_transfer) has its mean, median, p90 and p99. Three TTFTs: ttft (first final token),
// ttft_correct (first token verification keeps) and ttft_spec (first token produced, possibly speculative); they
// are equal for formats without speculation. Percentiles interpolate linearly between order statistics (numpy's
// default, as vLLM's benchmark). Output is deterministic: no wall-clock figures. The per-request CSV is
// sim/output/requests_csv.hpp; running a simulation into its files is sim/output/run_files.hpp.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/output/request_distributions.hpp"
#include "sim/cluster/simulation.hpp"

namespace lynx {

// Linear-interpolation percentile (0..100) of unsorted values; NaN for an empty set.
double percentile(std::vector<double> values, double pct);
// The same for several percentiles, given in increasing order (else an internal error), from one copy.
std::vector<double> percentiles(std::vector<double> values, const std::vector<double>& pcts);

// A stream of values whose mean and exact percentiles are wanted, in bounded memory: up to kInMemory values are
// kept; beyond that they go to an anonymous temporary file and each percentile is found exactly by a radix
// selection over the file (4 passes of 16 bits of the values' order-preserving keys). Either way the results
// equal sorting every value (`percentile` below), bit for bit.
class ValueStream {
 public:
  static constexpr size_t kInMemory = size_t{1} << 16;
  ValueStream() = default;
  ~ValueStream();
  ValueStream(const ValueStream&) = delete;
  ValueStream& operator=(const ValueStream&) = delete;
  void push_back(double value);
  size_t size() const { return count_; }
  double sum() const { return sum_; }  // added in order, as a loop over the values would
  double percentile(double pct) const;
  std::vector<double> percentiles(const std::vector<double>& pcts) const;  // increasing, as lynx::percentiles

 private:
  double select(uint64_t rank) const;  // the rank-th smallest (0-based)
  void spill();
  std::vector<double> values_;
  std::FILE* file_ = nullptr;
  size_t count_ = 0;
  double sum_ = 0;
};

// The summary's metrics, accumulated one finished request at a time (in request order), so a run need not keep
// its records.
class MetricsStream {
 public:
  explicit MetricsStream(const SimulationInputs& inputs);
  void add(const RequestRecord& r);
  // The "metrics" object of the summary.
  nlohmann::json metrics(const SimulationInputs& inputs, const SimulationResult& result) const;

 private:
  const SimulationInputs& inputs_;
  const AcceptanceModel& acceptance_;  // the speculating format's (speculating_acceptance)
  size_t count_ = 0;
  double drafted_requests_ = 0, first_drafts_kept_ = 0;
  int64_t acceptance_extrapolated_ = 0;  // drafted requests whose prompt is longer than any measured length
  ValueStream distributions_[kRequestDistributionCount];  // ms, as kRequestDistributions lists them
  double first_arrival_ = INFINITY, last_end_ = 0, output_tokens_ = 0, input_tokens_ = 0;
  double itl_time_ = 0, itl_gaps_ = 0, spec_ = 0, accepted_ = 0, rolled_back_ = 0, cached_ = 0, memory_wait_ = 0;
  double waiting_ = 0, served_ = 0;  // seconds summed over requests
  int64_t good_ = 0;
};

nlohmann::json summary_json(const SimulationInputs& inputs, const SimulationResult& result,
                            const std::string& workload_source);
// The same from metrics accumulated while the run streamed its records.
nlohmann::json summary_json(const SimulationInputs& inputs, const SimulationResult& result,
                            const MetricsStream& metrics, const std::string& workload_source);

}  // namespace lynx
