#include "sim/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "sim/transfer_protocol.hpp"

namespace lynx {

double percentile(std::vector<double> values, double pct) {
  if (values.empty()) return NAN;
  std::sort(values.begin(), values.end());
  const double rank = pct / 100.0 * static_cast<double>(values.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(rank));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (values[hi] - values[lo]) * (rank - static_cast<double>(lo));
}

namespace {
double mean(const std::vector<double>& v) {
  if (v.empty()) return NAN;
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

// mean/median/p90/p99 of `values` (seconds) as <stat>_<name>_ms.
void add_distribution(nlohmann::json& j, const std::string& name, const std::vector<double>& seconds) {
  std::vector<double> ms;
  for (double s : seconds) ms.push_back(s * 1e3);
  j["mean_" + name + "_ms"] = mean(ms);
  j["median_" + name + "_ms"] = percentile(ms, 50);
  j["p90_" + name + "_ms"] = percentile(ms, 90);
  j["p99_" + name + "_ms"] = percentile(ms, 99);
}
}  // namespace

nlohmann::json summary_json(const SimulationInputs& in, const SimulationResult& result,
                            const std::string& workload_source) {
  const SimConfig& c = in.config;
  std::vector<double> ttft, ttft_spec, ttft_correct, tpot, e2el, transfer, exposed;
  double drafted_requests = 0, first_drafts_kept = 0;
  int64_t acceptance_extrapolated = 0;  // drafted requests whose prompt is longer than any measured length
  double first_arrival = INFINITY, last_end = 0, output_tokens = 0, input_tokens = 0;
  double itl_time = 0, itl_gaps = 0, spec = 0, accepted = 0, rolled_back = 0, cached = 0, memory_wait = 0;
  int64_t good = 0;
  for (const RequestRecord& r : result.records) {
    ttft.push_back(r.ttft_s());
    ttft_spec.push_back(r.ttft_spec_s());
    ttft_correct.push_back(r.ttft_correct_s());
    if (r.first_draft_kept >= 0) {
      ++drafted_requests;
      first_drafts_kept += r.first_draft_kept;
    }
    e2el.push_back(r.e2el_s());
    transfer.push_back(r.kv_transfer_s());
    exposed.push_back(r.exposed_transfer_s());
    if (r.output_tokens > 1) {
      tpot.push_back(r.tpot_s());
      itl_time += r.end_s - r.first_token_s;
      itl_gaps += static_cast<double>(r.output_tokens - 1);
    }
    first_arrival = std::min(first_arrival, r.arrival_s);
    last_end = std::max(last_end, r.end_s);
    output_tokens += static_cast<double>(r.output_tokens);
    input_tokens += static_cast<double>(r.input_tokens);
    spec += static_cast<double>(r.spec_tokens);
    accepted += static_cast<double>(r.accepted_tokens);
    rolled_back += static_cast<double>(r.rolled_back_tokens);
    cached += static_cast<double>(r.cached_tokens);
    if (r.spec_tokens > 0 && in.acceptance.extrapolates(r.input_tokens)) ++acceptance_extrapolated;
    memory_wait += r.prefill_memory_wait_s;
    if (r.ttft_s() * 1e3 <= c.slo.ttft_ms && r.tpot_s() * 1e3 <= c.slo.tpot_ms) ++good;
  }
  const double duration = result.records.empty() ? 0 : last_end - first_arrival;
  const double n = static_cast<double>(result.records.size());
  nlohmann::json j;
  j["completed"] = result.records.size();
  j["duration_s"] = duration;
  j["total_input_tokens"] = input_tokens;
  j["total_output_tokens"] = output_tokens;
  j["request_throughput"] = duration > 0 ? n / duration : NAN;
  j["output_throughput"] = duration > 0 ? output_tokens / duration : NAN;
  j["request_goodput"] = duration > 0 ? static_cast<double>(good) / duration : NAN;
  j["slo_attainment"] = n > 0 ? static_cast<double>(good) / n : NAN;
  add_distribution(j, "ttft", ttft);
  add_distribution(j, "ttft_spec", ttft_spec);
  add_distribution(j, "ttft_correct", ttft_correct);
  add_distribution(j, "tpot", tpot);
  j["mean_itl_ms"] = itl_gaps > 0 ? itl_time / itl_gaps * 1e3 : NAN;
  add_distribution(j, "e2el", e2el);
  add_distribution(j, "kv_transfer", transfer);
  add_distribution(j, "exposed_transfer", exposed);
  j["mean_spec_tokens"] = n > 0 ? spec / n : NAN;
  j["mean_accepted_tokens"] = n > 0 ? accepted / n : NAN;
  j["rollback_rate"] = spec > 0 ? rolled_back / spec : 0.0;
  // Of the requests that drafted: the share whose first draft the first verification kept (NaN: none drafted).
  j["first_draft_kept_rate"] = drafted_requests > 0 ? first_drafts_kept / drafted_requests : NAN;
  j["acceptance_extrapolated_requests"] = acceptance_extrapolated;
  j["prefix_cache_hit_ratio"] = input_tokens > 0 ? cached / input_tokens : 0.0;  // prompt tokens not prefilled
  j["prefill_tokens_saved"] = cached;
  j["over_context_skipped"] = in.over_context_skipped;
  j["over_context_truncated"] = in.over_context_truncated;
  j["mean_prefill_memory_wait_ms"] = n > 0 ? memory_wait / n * 1e3 : NAN;
  j["bytes_sent"] = result.bytes_sent;
  j["bytes_delivered"] = result.bytes_delivered;
  j["bytes_expected"] = result.bytes_expected;
  j["flows"] = result.flows;

  nlohmann::json config;
  config["model"] = in.model.name;
  config["format"] = in.format.name;
  config["seed"] = c.seed;
  config["prefill"] = {{"instances", c.prefill.instances}, {"gpu", in.prefill_gpu.name},
                       {"tp", c.prefill.tensor_parallel}, {"chunked_prefill_tokens", c.prefill.chunked_prefill_tokens},
                       {"prefix_cache", c.prefill.prefix_cache}};
  config["decode"] = {{"instances", c.decode.instances}, {"gpu", in.decode_gpu.name}, {"tp", c.decode.tensor_parallel},
                      {"max_batch", c.decode.max_batch}};
  config["network"] = {{"topology", c.network.topology}, {"nic_gbps", c.network.nic_gbps},
                       {"latency_us", c.network.latency_us}, {"link_sharing", c.network.link_sharing},
                       {"model", c.network.model}};
  config["transfer"] = {{"chunk_layers", c.transfer.chunk_layers}, {"anchor_weight", c.transfer.anchor_weight},
                        {"mode", c.transfer.mode}};
  config["router"] = c.router;
  config["slo"] = {{"ttft_ms", c.slo.ttft_ms}, {"tpot_ms", c.slo.tpot_ms}};
  nlohmann::json sources;
  sources["workload"] = workload_source;
  sources["prefill_kernel_costs"] = in.prefill_kernels.source;
  sources["decode_kernel_costs"] = in.decode_kernels.source;
  sources["prefill_compute"] = in.prefill_cost ? in.prefill_cost->source() : "";
  sources["decode_compute"] = in.decode_cost ? in.decode_cost->source() : "";
  sources["acceptance"] = transfer_protocol_speculates(in.format) ? in.acceptance.source() : "not used (no speculation)";
  nlohmann::json summary;
  summary["config"] = config;
  summary["sources"] = sources;
  summary["metrics"] = j;
  return summary;
}

namespace {
void append_time(std::string& out, double seconds) {
  char text[40];
  if (std::isnan(seconds))
    out += ",";
  else {
    std::snprintf(text, sizeof text, ",%.9f", seconds);
    out += text;
  }
}
void append_int(std::string& out, int64_t v) {
  out += ',';
  out += std::to_string(v);
}
}  // namespace

std::string requests_csv(const std::vector<RequestRecord>& records) {
  std::string out =
      "id,arrival_s,input_tokens,output_tokens,prefill_instance,decode_instance,prefill_start_s,prefill_end_s,"
      "prefill_memory_wait_s,cached_tokens,transfer_start_s,anchor_arrival_s,residual_arrival_s,decode_start_s,first_spec_token_s,first_token_s,"
      "verify_s,end_s,ttft_spec_s,ttft_correct_s,ttft_s,tpot_s,e2el_s,spec_tokens,accepted_tokens,rolled_back_tokens,"
      "first_draft_kept\n";
  for (const RequestRecord& r : records) {
    out += std::to_string(r.id);
    append_time(out, r.arrival_s);
    append_int(out, r.input_tokens);
    append_int(out, r.output_tokens);
    append_int(out, r.prefill_instance);
    append_int(out, r.decode_instance);
    for (double t : {r.prefill_start_s, r.prefill_end_s, r.prefill_memory_wait_s, static_cast<double>(r.cached_tokens),
                     r.transfer_start_s, r.anchor_arrival_s, r.residual_arrival_s,
                     r.decode_start_s, r.first_spec_token_s, r.first_token_s, r.verify_s, r.end_s, r.ttft_spec_s(),
                     r.ttft_correct_s(), r.ttft_s(), r.tpot_s(), r.e2el_s()})
      append_time(out, t);
    append_int(out, r.spec_tokens);
    append_int(out, r.accepted_tokens);
    append_int(out, r.rolled_back_tokens);
    if (r.first_draft_kept >= 0) append_int(out, r.first_draft_kept);
    else out += ',';
    out += "\n";
  }
  return out;
}

void write_simulation_results(const std::string& dir, const SimulationInputs& inputs, const SimulationResult& result,
                              const std::string& workload_source) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) throw_error("%s: cannot create directory: %s", dir.c_str(), error.message().c_str());
  write_file_atomic(dir + "/requests.csv", requests_csv(result.records));
  write_file_atomic(dir + "/summary.json", summary_json(inputs, result, workload_source).dump(2) + "\n");
}

}  // namespace lynx
