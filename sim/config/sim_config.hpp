// One simulation's configuration (the JSON that `lynxsim simulate --config` takes), validated field by field:
// an unknown field, a wrong type or an out-of-range value is a LynxError naming the file and JSON path.
//
// Every field is declared once in sim_config.cpp (kSimConfigSection and the sections under it: cluster, prefill,
// decode, network, transfer, lynx, slo, workload) with its unit, default, range and meaning; the reader reads
// through those declarations and docs/config.md (`lynxsim config --schema`) is printed from them. Relative paths
// resolve against the configuration file's directory; the file may hold // comments.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/enum_names.hpp"
#include "models/cost/compute_model.hpp"
#include "models/cost/roofline/cost_model.hpp"
#include "models/cost/serving_engine.hpp"
#include "sim/network/network_config.hpp"
#include "sim/transfer/transfer_cost.hpp"

namespace lynx {

// A named engine's switch that defaults to the engine's own setting.
enum class EngineSwitch { engine, on, off };
inline constexpr auto kEngineSwitchNames =
    enum_names<EngineSwitch>({{EngineSwitch::engine, "engine"}, {EngineSwitch::on, "on"}, {EngineSwitch::off, "off"}});
// The KV cache's dtype on the GPU (its compute and memory): the model's (bf16), or fp8 (the engines' fp8-KV attention
// kernels). Apart from the wire format (`format`), which is what crosses the network.
enum class KvCacheDtype { automatic, fp8 };
inline constexpr auto kKvCacheDtypeNames =
    enum_names<KvCacheDtype>({{KvCacheDtype::automatic, "auto"}, {KvCacheDtype::fp8, "fp8"}});

struct PoolConfig {
  int instances = 1;
  std::string gpu = "h200-sxm";
  int tensor_parallel = 1;
  int expert_parallel = 1;              // ep: GPU groups a MoE layer's experts are split over (models/arch/moe.hpp)
  double moe_load_imbalance = 1;        // with ep > 1: busiest GPU's expert work over the mean (1: uniform routing)
  bool prefix_cache = false;            // prefill: keep prompt blocks' KV in free memory, LRU (sim/cluster/prefix_cache.hpp)
  // Token budget per step (vLLM max_num_batched_tokens, SGLang chunked_prefill_size, TRT-LLM max_num_tokens; -1: the
  // engine's default, for vidur-2024 0: whole prompts, one at a time) and requests per step (vLLM max_num_seqs, SGLang
  // max_running_requests, TRT-LLM max_batch_size; -1: the engine's, for vidur-2024 256).
  int64_t chunked_prefill_tokens = -1;
  int64_t max_batch = -1;
  double memory_reserve_fraction = 0.1; // vidur-2024 only: HBM kept for activations and fragmentation
  ServingEngine engine = ServingEngine::vllm;  // whose kernels set step times (models/cost/serving_engine.hpp)
  // A named engine's own settings (sim/cluster/engine_serving.hpp); NaN or "engine": the engine's default.
  double memory_fraction = NAN;         // vLLM gpu_memory_utilization, SGLang mem_fraction_static, TRT-LLM
                                        // free_gpu_memory_fraction
  EngineSwitch chunked_prefill = EngineSwitch::engine;     // TRT-LLM enable_chunked_prefill (the others always chunk)
  EngineSwitch overlap_scheduling = EngineSwitch::engine;  // vLLM async scheduling, SGLang/TRT-LLM overlap scheduler
  KvCacheDtype kv_cache_dtype = KvCacheDtype::automatic;
  double host_step_ms = NAN, host_per_request_us = NAN, frontend_ms = NAN, frontend_serial_ms = NAN;
  double kernel_time_factor = 1;        // the kernels' time as this deployment runs them, over the tables' (a
                                        // calibration: 1 = the measured kernels as tabled)
  KernelFamilyFactors kernel_family_factors;  // per kernel family, likewise (models/cost/engine/gpu_derivation.hpp)
  bool plan_iterations = true;          // decode: compute runs of unchanged iterations at once (false: one event
                                        // per iteration, slower, the same timeline; for checking)
};

// The configuration's choices as enums, each with its names (common/enum_names.hpp): the schema's choices in
// sim_config.cpp and the *_name functions below (messages and result files) read the same table.
// Disaggregated: prefill and decode pools, the KV crossing the network; co-located: every instance serves prefill
// and decode on its own GPUs (sim/cluster/colocated_instance.hpp).
enum class ServingMode { disaggregated, colocated };
inline constexpr auto kServingModeNames =
    enum_names<ServingMode>({{ServingMode::disaggregated, "disaggregated"}, {ServingMode::colocated, "colocated"}});
enum class RouterPolicy { least_loaded, round_robin, prefix_aware };
inline constexpr auto kRouterPolicyNames = enum_names<RouterPolicy>({{RouterPolicy::least_loaded, "least-loaded"},
                                                                    {RouterPolicy::round_robin, "round-robin"},
                                                                    {RouterPolicy::prefix_aware, "prefix-aware"}});
enum class TransferMode { layer_wise, after_prefill };
inline constexpr auto kTransferModeNames = enum_names<TransferMode>(
    {{TransferMode::layer_wise, "layer-wise"}, {TransferMode::after_prefill, "after-prefill"}});
enum class ResidualPolicy { weighted, aging };
inline constexpr auto kResidualPolicyNames =
    enum_names<ResidualPolicy>({{ResidualPolicy::weighted, "weighted"}, {ResidualPolicy::aging, "aging"}});
enum class FormatPolicy { fixed, adaptive };
inline constexpr auto kFormatPolicyNames =
    enum_names<FormatPolicy>({{FormatPolicy::fixed, "fixed"}, {FormatPolicy::adaptive, "adaptive"}});
// What the adaptive format policy minimises per request (sim/transfer/format_policy.hpp): the predicted first token by one of
// the three definitions (sim/output/request_record.hpp).
enum class AdaptiveObjective { ttft_correct, ttft_spec, ttft };
inline constexpr auto kAdaptiveObjectiveNames = enum_names<AdaptiveObjective>(
    {{AdaptiveObjective::ttft_correct, "ttft_correct"}, {AdaptiveObjective::ttft_spec, "ttft_spec"},
     {AdaptiveObjective::ttft, "ttft"}});

struct TransferConfig {
  int chunk_layers = 4;          // layers per KV transfer chunk
  double anchor_weight = 1000;   // lynx anchor flows' sharing weight against residual (and other) flows' 1;
                                 // 1e6 behaves as strict priority (tested against 100 residual flows)
  TransferMode mode = TransferMode::layer_wise;  // chunks leave as their layers finish, or all after the prefill
  // Lynx residuals: "weighted" (every residual chunk weight 1 against anchors' anchor_weight) or "aging" (a residual
  // chunk that leaves residual_max_wait_ms or more after the request's transfer started gets the anchor weight:
  // newer anchors no longer pre-empt it).
  ResidualPolicy residual_policy = ResidualPolicy::weighted;
  double residual_max_wait_ms = 0;
  // The connector and transport (sim/transfer/transfer_cost.hpp): the preset's parameters with the configured
  // overrides.
  TransferConnector connector = TransferConnector::vllm_mooncake;
  TransferTransport transport = TransferTransport::rdma;
  TransferCost cost = transfer_preset(TransferConnector::vllm_mooncake, TransferTransport::rdma);
  bool notify_us_given = false;  // transfer.notify_us set in the configuration (a serving profile leaves it alone)
  // The KV format of each request: the run's `format` ("fixed"), or chosen per request at its arrival among `format`
  // and adaptive_formats by the predicted transfer on its route's load ("adaptive", sim/transfer/format_policy.hpp). The
  // run's `format` is the reference: another candidate is chosen only where it is predicted adaptive_min_gain times
  // better by adaptive_objective.
  FormatPolicy format_policy = FormatPolicy::fixed;
  std::vector<std::string> adaptive_formats;
  AdaptiveObjective adaptive_objective = AdaptiveObjective::ttft_correct;
  double adaptive_min_gain = 1;
};

struct LynxConfig {
  std::string acceptance_file;   // accuracy JSON written by `lynxsim accuracy`; "" = the shipped default if present
  std::optional<double> acceptance_rate;  // set: per-token acceptance rate used instead of any file (0 is a rate)
  nlohmann::json acceptance_histogram;    // set (an array): [k-1][m] counts, used instead of any file
  std::string acceptance_published;      // set: a published source's name (sim/acceptance/published_acceptance.hpp)
  int64_t max_speculative_tokens = 0;  // cap on tokens drafted before verification; 0 = up to the output length
};

struct SloConfig {
  double ttft_ms = 5000;
  double tpot_ms = 100;
};

struct SimConfig {
  std::string origin;        // file the configuration came from (for messages)
  std::string base_dir;      // its directory: relative paths resolve against it
  std::string model = "llama-3.1-8b";
  std::string format = "bf16";
  uint64_t seed = 1;
  PoolConfig prefill, decode;
  ServingMode serving = ServingMode::disaggregated;
  int colocated_instances = 0;  // co-located: instances of the decode pool's kind (0: prefill + decode instances)
  NetworkConfig network;
  RouterPolicy router = RouterPolicy::least_loaded;
  TransferConfig transfer;
  LynxConfig lynx;
  std::string kernel_costs;  // "" = kernels/costs/<gpu>.json if shipped, else roofline defaults
  ComputeModelKind compute_model = ComputeModelKind::automatic;
  WeightsDtype weights_dtype = WeightsDtype::bf16;
  SloConfig slo;
  std::string models_catalog, gpus_catalog;  // "" = the shipped catalogs; else entries added to or overriding them
  // A serving profile written by `lynxsim calibrate` (app/cmd_calibrate.cpp): its terms fill every named-engine
  // pool's host and front-end terms the pools do not set; `serving_profile_error` is its held-out error (null when
  // it has none), which the summary reports beside the metrics.
  std::string serving_profile;
  nlohmann::json serving_profile_error;
  nlohmann::json workload;   // parsed by the traces library
};

// The root section of a configuration file, for the reference and the annotated example.
extern const SchemaSection kSimConfigSection;

const char* router_policy_name(RouterPolicy router);
const char* transfer_mode_name(TransferMode mode);
const char* residual_policy_name(ResidualPolicy policy);
const char* format_policy_name(FormatPolicy policy);
const char* adaptive_objective_name(AdaptiveObjective objective);
const char* compute_model_name(ComputeModelKind model);
const char* replicated_kv_name(ReplicatedKv mode);

SimConfig sim_config_from_json(const nlohmann::json& root, const std::string& origin, const std::string& base_dir);
SimConfig sim_config_load(const std::string& path);
// An experiment file given where a configuration is expected: one error saying what the file is and what runs it.
void sim_config_check_kind(const nlohmann::json& root, const std::string& path);

}  // namespace lynx
