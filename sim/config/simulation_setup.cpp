#include "sim/config/simulation_setup.hpp"


#include <filesystem>
#include <map>
#include <optional>
#include <utility>

#include "common/atomic_file.hpp"
#include "common/data_folder.hpp"
#include "common/error.hpp"
#include "models/arch/kv_replication.hpp"
#include "models/arch/kv_size.hpp"
#include "common/sha256.hpp"
#include "common/json_member_scan.hpp"
#include "common/json_reader.hpp"
#include "models/cost/compute_model.hpp"
#include "sim/acceptance/published_acceptance.hpp"
#include "sim/config/input_checks.hpp"
#include "sim/transfer/transfer_protocol.hpp"

namespace lynx {

namespace {
constexpr double kPriorAcceptanceRate = 0.9;  // QuantSpec reports > 90% acceptance (arXiv 2502.10424)

// The acceptance statistics of `format` in the accuracy file at `path`, if the file exists and holds speculation
// statistics of that format; else none. The shipped and `lynxsim accuracy`-written files hold every format (0.7 MB
// for stories260k): only the format's entry is found (json_member_scan.hpp, whose header gives what that saves)
// and parsed as a JSON document. Where the scan finds no entry or the entry does not parse, the whole file is
// parsed, so that a malformed file is reported by line and JSON path.
std::optional<AcceptanceModel> accuracy_model(const std::string& path, const std::string& format) {
  if (!std::filesystem::exists(path)) return std::nullopt;
  const std::string text = read_file(path);
  nlohmann::json root;
  bool scanned = false;
  if (const std::string_view entry = json_member_text(text, {"formats", format}); !entry.empty()) {
    try {
      root["formats"][format] = json_parse_text(std::string(entry), path);
      scanned = true;
    } catch (const LynxError&) {
    }
  }
  if (!scanned) root = json_parse_text(text, path);
  const bool has = root.is_object() && root.contains("formats") && root["formats"].is_object() &&
                   root["formats"].contains(format) && root["formats"][format].contains("speculation");
  if (!has) return std::nullopt;
  return AcceptanceModel::from_accuracy_json(root, path, format);
}

// The acceptance source, explicit in the summary: a configured rate, histogram or file; else the model's own
// accuracy file (models/accuracy/<model>.json); else the shipped stories260K file as a stand-in, said so; else a
// sourced prior rate.
AcceptanceModel resolve_acceptance(const SimConfig& c, const KvFormat& format, const ModelSpec& spec) {
  const std::string& model = spec.name;
  if (!c.lynx.acceptance_published.empty()) {
    const PublishedAcceptance& p = *published_acceptance(c.lynx.acceptance_published);  // the reader checked it
    return AcceptanceModel::from_rate(p.per_token_rate, published_acceptance_source(p, spec.params, model));
  }
  if (c.lynx.acceptance_rate)
    return AcceptanceModel::from_rate(*c.lynx.acceptance_rate,
                                      "configured rate " + std::to_string(*c.lynx.acceptance_rate) + " per token");
  if (!c.lynx.acceptance_histogram.is_null())
    return AcceptanceModel::from_histogram(c.lynx.acceptance_histogram, c.origin, "$.lynx.acceptance_histogram");
  if (!c.lynx.acceptance_file.empty()) return AcceptanceModel::from_accuracy_file(c.lynx.acceptance_file, format.name);
  if (!transfer_protocol_speculates(format)) return AcceptanceModel::from_rate(0, "not used (no speculation)");
  const std::string own = default_accuracy_path(model);
  if (std::optional<AcceptanceModel> m = accuracy_model(own, format.name)) return *m;
  const std::string stand_in = default_accuracy_path("stories260k");
  if (std::optional<AcceptanceModel> m = accuracy_model(stand_in, format.name)) {
    m->set_source(m->source() + "; measured on stories260k, a stand-in: no accuracy file for " + model);
    return *m;
  }
  return AcceptanceModel::from_rate(kPriorAcceptanceRate, "default prior 0.9 per token (no accuracy file for " +
                                                              format.name + ")");
}
// The engines shard attention heads evenly: vLLM, SGLang and TensorRT-LLM refuse a TP that does not divide the query
// heads, and shard the KV heads when TP divides them or replicate each over TP / kv_heads GPUs when kv_heads divides
// TP (vLLM QKVParallelLinear; "Total number of attention heads must be divisible by tensor parallel size").
void check_tensor_parallel(const ModelSpec& model, int64_t tp, const std::string& where) {
  if (model.n_heads % tp != 0)
    throw_error("%s.tp: %lld does not divide %s's %lld attention heads (the engines shard them evenly)", where.c_str(),
                static_cast<long long>(tp), model.name.c_str(), static_cast<long long>(model.n_heads));
  const int64_t kv = kv_shard_heads(model);
  if (tp <= kv ? kv % tp != 0 : tp % kv != 0)
    throw_error("%s.tp: %lld neither divides %s's %lld KV heads nor is a multiple of them (the engines shard KV heads "
                "evenly or replicate each on tp / kv_heads GPUs)", where.c_str(), static_cast<long long>(tp),
                model.name.c_str(), static_cast<long long>(kv));
}

MoeParallel pool_moe_parallel(const SimConfig& config, const ModelSpec& model, const PoolConfig& pool,
                              const char* path) {
  check_tensor_parallel(model, pool.tensor_parallel, config.origin + ": " + path);
  const MoeParallel parallel{pool.expert_parallel, pool.moe_load_imbalance};
  check_moe_parallel(model, parallel, pool.tensor_parallel, config.origin + ": " + path);
  return parallel;
}

std::shared_ptr<const StepCostModel> pool_step_cost(const SimConfig& config, const ModelSpec& model,
                                                    const GpuSpec& gpu, const std::vector<GpuSpec>& gpus,
                                                    const PoolConfig& pool, const MoeParallel& moe) {
  ComputeChoice c;
  c.model = config.compute_model;
  c.weights = config.weights_dtype;
  c.engine = pool.engine;
  c.fp8_kv_cache = pool.kv_cache_dtype == KvCacheDtype::fp8;
  c.kernel_family_factors = pool.kernel_family_factors;
  return make_step_cost(model, gpu, gpus, pool.tensor_parallel, c, moe);
}

// A named engine's pool as it serves (sim/cluster/engine_serving.hpp): its KV cache holds the model's KV in the
// pool's kv_cache_dtype, each GPU its heads' share (a head on several GPUs when tp exceeds the KV heads).
EngineServing pool_serving(const SimConfig& config, const ModelSpec& model, const GpuSpec& gpu, const PoolConfig& pool) {
  static const KvFormat kBf16 = kv_format_parse("bf16"), kFp8 = kv_format_parse("fp8-e4m3");
  constexpr int64_t kSample = 1 << 16;
  const KvFormat& cache = pool.kv_cache_dtype == KvCacheDtype::fp8 ? kFp8 : kBf16;
  const double per_token = static_cast<double>(model_kv_bytes(model, cache, kSample).total()) / kSample;
  const double per_gpu = per_token / pool.tensor_parallel * kv_head_copies(kv_shard_heads(model), pool.tensor_parallel);
  EngineOptions o;
  o.max_num_batched_tokens = pool.chunked_prefill_tokens > 0 ? pool.chunked_prefill_tokens : -1;
  o.max_num_seqs = pool.max_batch > 0 ? pool.max_batch : -1;
  o.memory_fraction = std::isnan(pool.memory_fraction) ? -1 : pool.memory_fraction;
  o.chunked_prefill = pool.chunked_prefill == EngineSwitch::engine ? -1 : pool.chunked_prefill == EngineSwitch::on;
  o.overlap_scheduling =
      pool.overlap_scheduling == EngineSwitch::engine ? -1 : pool.overlap_scheduling == EngineSwitch::on;
  o.host_step_ms = std::isnan(pool.host_step_ms) ? -1 : pool.host_step_ms;
  o.host_per_seq_us = std::isnan(pool.host_per_request_us) ? -1 : pool.host_per_request_us;
  o.frontend_ms = std::isnan(pool.frontend_ms) ? -1 : pool.frontend_ms;
  o.frontend_serial_ms = std::isnan(pool.frontend_serial_ms) ? -1 : pool.frontend_serial_ms;
  o.kernel_time_factor = pool.kernel_time_factor;
  return engine_serving(pool.engine, model, gpu, pool.tensor_parallel, model_weight_bytes(model, config.weights_dtype),
                        per_gpu, o);
}
}  // namespace

void preload_compute_tables(const SimConfig& config) {
  try {
    const std::vector<ModelSpec> models = load_model_catalog_with(config.models_catalog, config.model);
    const std::vector<GpuSpec> gpus = load_gpu_catalog_with(config.gpus_catalog);
    const ModelSpec model = find_model(models, config.model);
    for (const PoolConfig* pool : {&config.prefill, &config.decode}) {
      const GpuSpec gpu = find_gpu(gpus, pool->gpu);
      pool_step_cost(config, model, gpu, gpus, *pool, pool_moe_parallel(config, model, *pool, ""))->preload_tables();
    }
  } catch (const std::exception&) {
    // The run itself reports whatever stopped this, with its JSON path.
  }
}

std::string default_accuracy_path(const std::string& model) {
  return project_dir() + "/models/accuracy/" + model + ".json";
}

SimulationInputs simulation_inputs(const SimConfig& config, std::vector<Request> requests) {
  SimulationInputs in;
  in.config = config;
  std::vector<ModelSpec> models = load_model_catalog_with(config.models_catalog, config.model);
  std::vector<GpuSpec> gpus = load_gpu_catalog_with(config.gpus_catalog);
  auto located = [&](const char* path, auto&& lookup) {
    try {
      return lookup();
    } catch (const LynxError& e) {
      throw_error("%s: %s: %s", config.origin.c_str(), path, e.what());
    }
  };
  in.model = located("$.model", [&] { return find_model(models, config.model); });
  in.prefill_gpu = located("$.cluster.prefill.gpu", [&] { return find_gpu(gpus, config.prefill.gpu); });
  in.decode_gpu = located("$.cluster.decode.gpu", [&] { return find_gpu(gpus, config.decode.gpu); });
  // The weights fit both pools' GPUs, checked before any table is read or an engine sizes its KV cache.
  check_weights_fit(in, config.prefill, in.prefill_gpu, "$.cluster.prefill");
  check_weights_fit(in, config.decode, in.decode_gpu, "$.cluster.decode");
  FormatInputs& run = in.run_format;
  run.format = kv_format_parse(config.format);
  if (config.transfer.chunk_layers > in.model.n_layers)
    throw_error("%s: $.transfer.chunk_layers: %d is more than the %lld layers of %s", config.origin.c_str(),
                config.transfer.chunk_layers, static_cast<long long>(in.model.n_layers), in.model.name.c_str());
  // Each cost table read once, whatever the pools and candidate formats that use it; parsed and hashed from the same bytes.
  std::map<std::string, std::pair<CostTable, std::string>> tables;  // path -> (table, sha256)
  auto kernels = [&](const GpuSpec& gpu, int tp, const KvFormat& format) {
    const std::string table = config.kernel_costs.empty() ? default_cost_table_path(gpu) : config.kernel_costs;
    if (table.empty()) return kernel_costs_roofline(gpu, format, tp);
    try {
      auto it = tables.find(table);
      if (it == tables.end()) {
        const std::string text = json_file_text(table);
        it = tables.emplace(table, std::make_pair(cost_table_parse(text, table), sha256_hex(text))).first;
      }
      KernelCosts k = kernel_costs_from_table(it->second.first, format, tp);
      k.file_sha256 = it->second.second;
      return k;
    } catch (const LynxError& e) {
      throw_error("%s: $.kernel_costs: %s", config.origin.c_str(), e.what());
    }
  };
  run.prefill_kernels = kernels(in.prefill_gpu, config.prefill.tensor_parallel, run.format);
  run.decode_kernels = kernels(in.decode_gpu, config.decode.tensor_parallel, run.format);
  const MoeParallel prefill_moe = pool_moe_parallel(config, in.model, config.prefill, "$.cluster.prefill");
  const MoeParallel decode_moe = pool_moe_parallel(config, in.model, config.decode, "$.cluster.decode");
  // Each pool's tables read now (load_tables): one that cannot be read is an error here, not inside the simulation.
  in.prefill_cost = located("$.compute_model", [&] {
    auto cost = pool_step_cost(config, in.model, in.prefill_gpu, gpus, config.prefill, prefill_moe);
    cost->load_tables();
    return cost;
  });
  in.decode_cost = located("$.compute_model", [&] {
    auto cost = pool_step_cost(config, in.model, in.decode_gpu, gpus, config.decode, decode_moe);
    cost->load_tables();
    return cost;
  });
  if (config.prefill.engine != ServingEngine::vidur_2024) {
    in.prefill_serving = located("$.cluster.prefill.engine",
                                 [&] { return pool_serving(config, in.model, in.prefill_gpu, config.prefill); });
    in.prefill_cost = std::make_shared<ServingStepCost>(in.prefill_cost, *in.prefill_serving);
  }
  if (config.decode.engine != ServingEngine::vidur_2024) {
    in.decode_serving = located("$.cluster.decode.engine",
                                [&] { return pool_serving(config, in.model, in.decode_gpu, config.decode); });
    in.decode_cost = std::make_shared<ServingStepCost>(in.decode_cost, *in.decode_serving);
  }
  run.acceptance = resolve_acceptance(config, run.format, in.model);
  if (config.transfer.format_policy == FormatPolicy::adaptive) {
    for (const std::string& name : config.transfer.adaptive_formats) {
      FormatInputs f;
      f.format = kv_format_parse(name);
      f.prefill_kernels = kernels(in.prefill_gpu, config.prefill.tensor_parallel, f.format);
      f.decode_kernels = kernels(in.decode_gpu, config.decode.tensor_parallel, f.format);
      f.acceptance = resolve_acceptance(config, f.format, in.model);
      in.adaptive_candidates.push_back(std::move(f));
    }
  }
  in.requests = std::move(requests);
  return in;
}

}  // namespace lynx
