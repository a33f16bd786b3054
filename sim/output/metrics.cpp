#include "sim/output/metrics.hpp"

#include "common/sha256.hpp"
#include <filesystem>
#include "common/json_reader.hpp"
#include "common/data_folder.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "common/error.hpp"
#include "sim/transfer/transfer_protocol.hpp"

namespace lynx {

std::vector<double> percentiles(std::vector<double> values, const std::vector<double>& pcts) {
  std::vector<double> out;
  out.reserve(pcts.size());
  const size_t n = values.size();
  // The order statistics by selection (linear), not a sort: the same values. values[from, n) hold the order
  // statistics from rank `from` on (each selection leaves those above its rank after it), so each percentile selects
  // among what is above the previous one: a summary's p50, p90 and p99 take one copy and about 1.6 passes, not 3.
  size_t from = 0, selected = SIZE_MAX;  // selected: the rank in place at values[selected]
  double previous = -INFINITY;
  for (const double pct : pcts) {
    if (pct < previous)
      throw_internal_error("percentiles: %g after %g (they are asked in increasing order)", pct, previous);
    previous = pct;
    if (n == 0) {
      out.push_back(NAN);
      continue;
    }
    const double rank = pct / 100.0 * static_cast<double>(n - 1);
    const size_t lo = static_cast<size_t>(std::floor(rank));
    const size_t hi = std::min(lo + 1, n - 1);
    if (lo != selected) {
      std::nth_element(values.begin() + static_cast<std::ptrdiff_t>(from),
                       values.begin() + static_cast<std::ptrdiff_t>(lo), values.end());
      selected = lo;
      from = lo + 1;
    }
    const double low = values[lo];
    const double high =
        hi == lo ? low : *std::min_element(values.begin() + static_cast<std::ptrdiff_t>(hi), values.end());
    out.push_back(low + (high - low) * (rank - static_cast<double>(lo)));
  }
  return out;
}

double percentile(std::vector<double> values, double pct) { return percentiles(std::move(values), {pct})[0]; }

ValueStream::~ValueStream() {
  if (file_ != nullptr) std::fclose(file_);
}

void ValueStream::push_back(double value) {
  if (value == 0) value = 0.0;  // one zero: -0 and +0 sort as equal
  ++count_;
  sum_ += value;
  if (file_ == nullptr) {
    values_.push_back(value);
    if (values_.size() >= kInMemory) spill();
    return;
  }
  values_.push_back(value);
  if (values_.size() >= kInMemory) spill();
}

void ValueStream::spill() {
  if (file_ == nullptr) {
    file_ = std::tmpfile();
    if (file_ == nullptr) throw_error("metrics: cannot create a temporary file for %zu values", count_);
  }
  if (std::fwrite(values_.data(), sizeof(double), values_.size(), file_) != values_.size())
    throw_error("metrics: cannot write a temporary file of values");
  values_.clear();
}

namespace {
// Order-preserving key: unsigned order of keys = numeric order of (non-NaN) doubles.
uint64_t order_key(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return (bits >> 63) != 0 ? ~bits : bits | (uint64_t{1} << 63);
}
double from_order_key(uint64_t key) {
  const uint64_t bits = (key >> 63) != 0 ? key & ~(uint64_t{1} << 63) : ~key;
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}
}  // namespace

double ValueStream::select(uint64_t rank) const {
  // Radix selection, 16 bits per pass, over the file and the values still in memory.
  uint64_t prefix = 0;
  std::vector<uint64_t> histogram(65536);
  std::vector<double> block(65536);
  for (int pass = 0; pass < 4; ++pass) {
    const int shift = 48 - 16 * pass;
    std::fill(histogram.begin(), histogram.end(), 0);
    auto count = [&](const double* v, size_t n) {
      for (size_t i = 0; i < n; ++i) {
        const uint64_t key = order_key(v[i]);
        if (pass > 0 && (key >> (shift + 16)) != prefix) continue;
        ++histogram[(key >> shift) & 0xffff];
      }
    };
    if (file_ != nullptr) {
      std::rewind(file_);
      size_t n;
      while ((n = std::fread(block.data(), sizeof(double), block.size(), file_)) > 0) count(block.data(), n);
    }
    count(values_.data(), values_.size());
    uint64_t bucket = 0;
    while (rank >= histogram[bucket]) rank -= histogram[bucket++];
    prefix = (prefix << 16) | bucket;
  }
  return from_order_key(prefix);
}

std::vector<double> ValueStream::percentiles(const std::vector<double>& pcts) const {
  if (file_ == nullptr) return lynx::percentiles(values_, pcts);
  std::vector<double> out;
  for (const double pct : pcts) out.push_back(percentile(pct));
  return out;
}

double ValueStream::percentile(double pct) const {
  if (count_ == 0) return NAN;
  if (file_ == nullptr) return lynx::percentile(values_, pct);
  const double rank = pct / 100.0 * static_cast<double>(count_ - 1);
  const size_t lo = static_cast<size_t>(std::floor(rank));
  const size_t hi = std::min(lo + 1, count_ - 1);
  const double low = select(lo), high = hi == lo ? low : select(hi);
  return low + (high - low) * (rank - static_cast<double>(lo));
}

namespace {
double mean(const ValueStream& v) { return v.size() == 0 ? NAN : v.sum() / static_cast<double>(v.size()); }

// Every statistic of `ms` (milliseconds) as <stat prefix>_<name>_ms: mean, median, p90, p99.
void add_distribution(nlohmann::json& j, const RequestDistribution& d, const ValueStream& ms) {
  std::vector<double> pcts;  // kSummaryStatistics lists its percentiles in increasing order
  for (const SummaryStatistic& stat : kSummaryStatistics)
    if (!stat.mean) pcts.push_back(stat.percentile);
  const std::vector<double> values = ms.percentiles(pcts);
  size_t next = 0;
  for (const SummaryStatistic& stat : kSummaryStatistics)
    j[summary_metric_name(d, stat)] = stat.mean ? mean(ms) : values[next++];
}
}  // namespace

MetricsStream::MetricsStream(const SimulationInputs& inputs)
    : inputs_(inputs), acceptance_(speculating_acceptance(inputs)) {}

void MetricsStream::add(const RequestRecord& r) {
  const SimConfig& c = inputs_.config;
  ++count_;
  for (size_t i = 0; i < kRequestDistributionCount; ++i) {
    const RequestDistribution& d = kRequestDistributions[i];
    if (r.output_tokens >= d.min_output_tokens) distributions_[i].push_back((r.*d.seconds)() * 1e3);
  }
  if (r.first_draft_kept >= 0) {
    ++drafted_requests_;
    first_drafts_kept_ += r.first_draft_kept;
  }
  if (r.output_tokens > 1) {  // the gaps between tokens: none for a single output token
    itl_time_ += r.end_s - r.first_token_s;
    itl_gaps_ += static_cast<double>(r.output_tokens - 1);
  }
  first_arrival_ = std::min(first_arrival_, r.arrival_s);
  last_end_ = std::max(last_end_, r.end_s);
  output_tokens_ += static_cast<double>(r.output_tokens);
  input_tokens_ += static_cast<double>(r.input_tokens);
  spec_ += static_cast<double>(r.spec_tokens);
  accepted_ += static_cast<double>(r.accepted_tokens);
  rolled_back_ += static_cast<double>(r.rolled_back_tokens);
  cached_ += static_cast<double>(r.cached_tokens);
  if (r.spec_tokens > 0 && acceptance_.extrapolates(r.input_tokens)) ++acceptance_extrapolated_;
  memory_wait_ += r.prefill_memory_wait_s;
  waiting_ += r.wait_s();
  served_ += r.e2el_s() - r.wait_s();
  if (r.ttft_s() * 1e3 <= c.slo.ttft_ms && r.tpot_s() * 1e3 <= c.slo.tpot_ms) ++good_;
}

nlohmann::json MetricsStream::metrics(const SimulationInputs& in, const SimulationResult& result) const {
  const double duration = count_ == 0 ? 0 : last_end_ - first_arrival_;
  const double n = static_cast<double>(count_);
  const double input_tokens = input_tokens_, output_tokens = output_tokens_, spec = spec_, cached = cached_;
  nlohmann::json j;
  j["completed"] = count_;
  j["duration_s"] = duration;
  j["total_input_tokens"] = input_tokens;
  j["total_output_tokens"] = output_tokens;
  j["request_throughput"] = duration > 0 ? n / duration : NAN;
  j["output_throughput"] = duration > 0 ? output_tokens / duration : NAN;
  j["request_goodput"] = duration > 0 ? static_cast<double>(good_) / duration : NAN;
  j["slo_attainment"] = n > 0 ? static_cast<double>(good_) / n : NAN;
  for (size_t i = 0; i < kRequestDistributionCount; ++i)
    add_distribution(j, kRequestDistributions[i], distributions_[i]);
  j["mean_itl_ms"] = itl_gaps_ > 0 ? itl_time_ / itl_gaps_ * 1e3 : NAN;
  j["mean_spec_tokens"] = n > 0 ? spec / n : NAN;
  j["mean_accepted_tokens"] = n > 0 ? accepted_ / n : NAN;
  j["rollback_rate"] = spec > 0 ? rolled_back_ / spec : 0.0;
  // Of the requests that drafted: the share whose first draft the first verification kept (NaN: none drafted).
  j["first_draft_kept_rate"] = drafted_requests_ > 0 ? first_drafts_kept_ / drafted_requests_ : NAN;
  j["acceptance_extrapolated_requests"] = acceptance_extrapolated_;
  j["prefix_cache_hit_ratio"] = input_tokens > 0 ? cached / input_tokens : 0.0;  // prompt tokens not prefilled
  j["prefill_tokens_saved"] = cached;
  j["over_context_skipped"] = in.over_context_skipped;
  j["over_context_truncated"] = in.over_context_truncated;
  j["mean_prefill_memory_wait_ms"] = n > 0 ? memory_wait_ / n * 1e3 : NAN;
  // Overloaded: requests wait (prefill queue, prefill or decode memory) longer than they are served, on average.
  j["mean_wait_ms"] = n > 0 ? waiting_ / n * 1e3 : NAN;
  j["mean_served_ms"] = n > 0 ? served_ / n * 1e3 : NAN;
  j["overloaded"] = n > 0 && waiting_ > served_;
  j["bytes_sent"] = result.bytes_sent;
  j["bytes_delivered"] = result.bytes_delivered;
  j["bytes_expected"] = result.bytes_expected;
  j["flows"] = result.flows;
  // Co-located serving only: how often the engines' schedulers preempted (vLLM: KV freed, recomputed but for what
  // its prefix cache kept) or retracted (SGLang) a request for KV memory, as vLLM's num_preemptions counts them.
  if (result.colocated) j["preemptions"] = result.preemptions;
  if (!result.format_requests.empty()) {  // the adaptive format policy: requests given each candidate format
    nlohmann::json chosen = nlohmann::json::object();
    for (size_t k = 0; k < result.format_requests.size(); ++k)  // the run's format first, as the policy orders them
      chosen[(k == 0 ? in.run_format : in.adaptive_candidates[k - 1]).format.name] = result.format_requests[k];
    j["format_requests"] = chosen;
  }
  return j;
}

nlohmann::json summary_json(const SimulationInputs& in, const SimulationResult& result,
                            const std::string& workload_source) {
  MetricsStream metrics(in);
  for (const RequestRecord& r : result.records) metrics.add(r);
  return summary_json(in, result, metrics, workload_source);
}

nlohmann::json summary_json(const SimulationInputs& in, const SimulationResult& result, const MetricsStream& metrics,
                            const std::string& workload_source) {
  const SimConfig& c = in.config;
  nlohmann::json j = metrics.metrics(in, result);

  nlohmann::json config;
  config["model"] = in.model.name;
  config["format"] = in.run_format.format.name;
  config["seed"] = c.seed;
  config["prefill"] = {{"instances", c.prefill.instances}, {"gpu", in.prefill_gpu.name},
                       {"tp", c.prefill.tensor_parallel}, {"chunked_prefill_tokens", c.prefill.chunked_prefill_tokens},
                       {"prefix_cache", c.prefill.prefix_cache}};
  config["decode"] = {{"instances", c.decode.instances}, {"gpu", in.decode_gpu.name}, {"tp", c.decode.tensor_parallel},
                      {"max_batch", c.decode.max_batch}};
  if (c.serving == ServingMode::colocated) {  // absent when disaggregated: those summaries unchanged
    config["serving"] = kServingModeNames.name(c.serving);
    config["colocated_instances"] = c.colocated_instances;
  }
  config["network"] = {{"topology", topology_name(c.network.topology)}, {"nic_gbps", c.network.nic_gbps},
                       {"nics_per_instance", c.network.nics_per_instance}, {"latency_us", c.network.latency_us},
                       {"link_sharing", link_sharing_name(c.network.link_sharing)},
                       {"model", network_model_name(c.network.model)}};
  config["transfer"] = {{"chunk_layers", c.transfer.chunk_layers}, {"anchor_weight", c.transfer.anchor_weight},
                        {"mode", transfer_mode_name(c.transfer.mode)}, {"residual_policy", residual_policy_name(c.transfer.residual_policy)}};
  if (c.transfer.residual_policy == ResidualPolicy::aging) config["transfer"]["residual_max_wait_ms"] = c.transfer.residual_max_wait_ms;
  if (c.transfer.format_policy == FormatPolicy::adaptive) {  // absent with the fixed policy: summaries unchanged
    config["transfer"]["format_policy"] = format_policy_name(c.transfer.format_policy);
    config["transfer"]["adaptive_formats"] = c.transfer.adaptive_formats;
    config["transfer"]["adaptive_objective"] = adaptive_objective_name(c.transfer.adaptive_objective);
    config["transfer"]["adaptive_min_gain"] = c.transfer.adaptive_min_gain;
  }
  const TransferCost& cost = c.transfer.cost;  // the connector and transport presets with the configured overrides
  config["transfer"]["connector"] = kTransferConnectorNames.name(c.transfer.connector);
  config["transfer"]["transport"] = kTransferTransportNames.name(c.transfer.transport);
  config["transfer"]["connector_cost"] = {{"setup_us", cost.setup_us},
                                          {"notify_us", cost.notify_us},
                                          {"block_tokens", cost.block_tokens},
                                          {"coalesce_blocks", cost.coalesce},
                                          {"max_message_bytes", cost.max_message_bytes},
                                          {"message_layers", cost.layers_together ? "all" : "each"},
                                          {"message_kv", cost.kv_together ? "together" : "separate"},
                                          {"replicated_kv", replicated_kv_name(cost.replicated_kv)},
                                          {"slice_bytes", cost.slice_bytes},
                                          {"per_message_us", cost.per_message_us},
                                          {"inflight", cost.inflight},
                                          {"op_latency_us", cost.op_latency_us},
                                          {"efficiency", cost.efficiency}};
  config["router"] = router_policy_name(c.router);
  config["slo"] = {{"ttft_ms", c.slo.ttft_ms}, {"tpot_ms", c.slo.tpot_ms}};
  nlohmann::json sources;
  sources["workload"] = workload_source;
  sources["prefill_kernel_costs"] = in.run_format.prefill_kernels.source;
  sources["decode_kernel_costs"] = in.run_format.decode_kernels.source;
  sources["prefill_compute"] = in.prefill_cost ? in.prefill_cost->source() : "";
  sources["decode_compute"] = in.decode_cost ? in.decode_cost->source() : "";
  sources["acceptance"] = run_speculates(in) ? speculating_acceptance(in).source() : "not used (no speculation)";
  // The calibrated serving profile and the error it measured on runs it was not fitted on (app/cmd_calibrate.cpp);
  // without one, a named engine runs on its built-in terms, whose check is the shipped profile of that engine
  // (models/serving_profiles/<engine>_h100_gpustack/profile.json: the same terms, fitted on GPUStack's H100 training
  // runs, and their held-out error on the check runs).
  if (!c.serving_profile.empty()) {
    sources["serving_profile"] = {{"file", c.serving_profile},
                                  {"sha256", sha256_file(c.serving_profile)},
                                  {"held_out_error", c.serving_profile_error}};
    // Each checked metric with the band that held 90% of the profile's held-out runs (the 90th percentile of their
    // absolute relative errors): value x (1 -/+ that share).
    nlohmann::json bands = nlohmann::json::object();
    const std::pair<const char*, const char*> checked[] = {{"mean_ttft_ms", "ttft_p90_error_percent"},
                                                           {"mean_tpot_ms", "tpot_p90_error_percent"},
                                                           {"duration_s", "duration_p90_error_percent"}};
    const nlohmann::json& e = c.serving_profile_error;
    for (const auto& [metric, key] : checked) {
      if (!e.is_object() || !e.contains(key) || !e[key].is_number() || !j.contains(metric) || !j[metric].is_number())
        continue;
      const double v = j[metric].get<double>(), p = e[key].get<double>();
      bands[metric] = {{"value", v}, {"within_percent", p}, {"low", v * (1 - p / 100)}, {"high", v * (1 + p / 100)}};
    }
    if (!bands.empty()) sources["serving_profile"]["bands_90_percent_of_held_out_runs"] = bands;
  } else {
    for (const PoolConfig* pool : {&c.prefill, &c.decode}) {
      if (pool->engine == ServingEngine::vidur_2024) continue;
      const bool built_in = std::isnan(pool->host_step_ms) || std::isnan(pool->host_per_request_us) ||
                            std::isnan(pool->frontend_ms) || std::isnan(pool->frontend_serial_ms);
      if (!built_in) continue;  // every term set in the configuration
      const std::string name = serving_engine_name(pool->engine);
      const std::string shipped = project_dir() + "/models/serving_profiles/" + name + "_h100_gpustack/profile.json";
      if (sources.contains("serving_terms") || !std::filesystem::is_regular_file(shipped)) continue;
      const nlohmann::json profile = json_parse_file(shipped);
      sources["serving_terms"] = {{"engine", name},
                                  {"backed_by", "models/serving_profiles/" + name + "_h100_gpustack/profile.json"},
                                  {"held_out_error", profile.value("held_out", nlohmann::json())}};
    }
  }
  auto table = [](const KernelCosts& k) {
    if (k.file.empty()) return nlohmann::json{{"file", nullptr}, {"device", "roofline default"}};
    return nlohmann::json{{"file", k.file}, {"sha256", k.file_sha256}, {"device", k.device}, {"measured", k.measured}};
  };
  sources["kernel_cost_tables"] = {{"prefill", table(in.run_format.prefill_kernels)},
                                   {"decode", table(in.run_format.decode_kernels)}};
  // The model each pool used: the first word of its source ("profiled (...)" or "roofline (...)").
  auto chosen = [](const std::shared_ptr<const StepCostModel>& step_cost) {
    return step_cost ? step_cost->source().substr(0, step_cost->source().find(' ')) : std::string();
  };
  sources["compute_model"] = {{"configured", compute_model_name(c.compute_model)}, {"weights_dtype", weights_dtype_name(c.weights_dtype)},
                              {"prefill", chosen(in.prefill_cost)}, {"decode", chosen(in.decode_cost)}};
  sources["model_catalog"] = in.model.file + (in.model.overrides ? " (overrides the shipped entry)" : "");
  if (!in.simgrid_cfg.empty()) sources["simgrid_cfg"] = in.simgrid_cfg;  // --cfg items on top of the defaults
  nlohmann::json summary;
  summary["config"] = config;
  if (!in.workload_record.is_null()) summary["workload"] = in.workload_record;
  summary["sources"] = sources;
  summary["metrics"] = j;
  return summary;
}

}  // namespace lynx
