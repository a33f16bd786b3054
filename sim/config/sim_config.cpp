#include "sim/config/sim_config.hpp"

#include "sim/acceptance/published_acceptance.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <utility>

#include "common/error.hpp"
#include "common/json_reader.hpp"
#include "kernels/kv_format.hpp"
#include "traces/workload_spec.hpp"

namespace lynx {

namespace {
// Every field, declared once (common/json_schema.hpp) and listed per JSON object in the sections below: the reader
// reads through them and `lynxsim config --schema` prints them. Ranges bound what a simulation can represent
// (counts that fit the simulator's int and its memory, times SimGrid resolves); they are far beyond any real
// deployment.
constexpr IntegerField kInstances{"instances", "instances", 1, 1, 65536, "model replicas in the pool"};
constexpr StringField kGpu{"gpu", "h200-sxm", "a GPU of the GPU catalog (models/catalog/gpus.json)",
                           "the pool's GPU"};
constexpr IntegerField kTensorParallel{"tp", "GPUs", 1, 1, 64, "tensor-parallel degree: GPUs per replica"};
constexpr IntegerField kExpertParallel{"ep", "GPU groups", 1, 1, 64,
                                       "expert-parallel degree, a divisor of tp (and of the model's routed experts): "
                                       "a MoE layer's experts are split over ep groups of tp/ep GPUs and its "
                                       "all-reduce becomes an all-to-all (models/arch/moe.hpp); 1 = experts "
                                       "tensor-parallel like the dense layers"};
constexpr NumberField kMoeLoadImbalance{"moe_load_imbalance", "ratio", 1, 1, 64, false,
                                        "with ep > 1: the busiest GPU's expert work over the mean, scaling the "
                                        "expert FLOPs and bytes (default 1: uniform routing, the assumption of the "
                                        "distinct-experts closed form; enter a measured max/mean, e.g. from a routing "
                                        "trace)"};
constexpr IntegerField kChunkedPrefill{"chunked_prefill_tokens", "tokens", -1, 0, 1 << 24,
                                       "token budget of a step: a named engine's own (vLLM max_num_batched_tokens: "
                                       "8192 on GPUs of 70 GiB or more but A100, else 2048; SGLang "
                                       "chunked_prefill_size 8192; TRT-LLM max_num_tokens 8192), vidur-2024's 0: whole "
                                       "prompts, one at a time (sim/cluster/engine_serving.hpp)"};
constexpr IntegerField kMaxBatch{"max_batch", "requests", -1, 1, 1 << 20,
                                 "requests in a step: a named engine's own (vLLM max_num_seqs: 1024 on GPUs of 70 GiB "
                                 "or more but A100, else 256; SGLang max_running_requests from its KV cache; TRT-LLM "
                                 "max_batch_size 2048), vidur-2024's 256"};
constexpr NumberField kMemoryReserve{"memory_reserve_fraction", "fraction", NAN, 0, 0.99, false,
                                     "engine vidur-2024 only: share of GPU memory kept for activations and "
                                     "fragmentation (default 0.1, vidur's own; a named engine sizes its KV cache by its "
                                     "own rule: memory_fraction)"};
constexpr NumberField kMemoryFraction{"memory_fraction", "fraction", NAN, 0, 1, true,
                                      "a named engine's memory setting: vLLM gpu_memory_utilization (default 0.9 of the "
                                      "GPU), SGLang mem_fraction_static (default from its reserve formula, 0.835 on "
                                      "one H100), TRT-LLM free_gpu_memory_fraction (default 0.9 of what its start-up "
                                      "peak leaves)"};
constexpr ChoiceField kChunkedPrefillSwitch{"chunked_prefill", kEngineSwitchNames.name(EngineSwitch::engine),
                                            kEngineSwitchNames.choices(),
                                            "chunk prompts longer than the step's budget: TRT-LLM's "
                                            "enable_chunked_prefill (off by default: a longer prompt is refused); "
                                            "vLLM and SGLang always chunk"};
constexpr ChoiceField kOverlapScheduling{"overlap_scheduling", kEngineSwitchNames.name(EngineSwitch::engine),
                                         kEngineSwitchNames.choices(),
                                         "the host prepares step n + 1 while the GPU runs step n, so a step exposes "
                                         "only the host time beyond its GPU time: vLLM's async scheduling (on in "
                                         "0.24; off before 0.12), SGLang's and TRT-LLM's overlap schedulers (on)"};
constexpr ChoiceField kKvCacheDtype{"kv_cache_dtype", kKvCacheDtypeNames.name(KvCacheDtype::automatic),
                                    kKvCacheDtypeNames.choices(),
                                    "the KV cache on the GPU: the model's dtype, or fp8 (the engine's fp8-KV attention "
                                    "kernels and 1 byte a value in its memory); apart from `format`, what crosses "
                                    "the network"};
constexpr NumberField kHostStepMs{"host_step_ms", "ms", NAN, 0, 1e4, false,
                                  "host time of a step besides the requests in it (scheduling, input preparation, "
                                  "launches; overlapped with the GPU under overlap_scheduling); default: the engine's, "
                                  "fitted on the GPUStack H100 training runs (docs/engines.md)"};
constexpr NumberField kHostPerRequestUs{"host_per_request_us", "us", NAN, 0, 1e6, false,
                                        "host time of a step per request in it; default: the engine's fitted value"};
constexpr NumberField kFrontendMs{"frontend_ms", "ms", NAN, 0, 1e5, false,
                                  "per request, its way through the front end that requests take in parallel: HTTP, "
                                  "the hops between the server's processes, the first token's way back (and in P/D "
                                  "the proxy); default: the engine's fitted value"};
constexpr NumberField kFrontendSerialMs{"frontend_serial_ms", "ms", NAN, 0, 1e5, false,
                                        "per request, the front end's part that serves one request at a time (chat "
                                        "template, tokenization on one thread): a burst of requests queues there; "
                                        "default: the engine's fitted value"};
constexpr BoolField kPrefixCache{"prefix_cache", false,
                                 "keep prompt blocks' KV in the memory left free, least recently used out first "
                                 "(sim/cluster/prefix_cache.hpp)"};
constexpr BoolField kPlanIterations{"plan_iterations", true,
                                    "compute runs of unchanged decode iterations at once (false: one event per "
                                    "iteration, slower, the same timeline; for checking)"};
constexpr ChoiceField kEngineField{"engine", serving_engine_name(ServingEngine::vllm), kServingEngines.choices(),
                                   "the serving engine whose measured kernels set the pool's step times: "
                                   "vidur-2024 (vidur's sarathi-serve layers, BLIS attention, NCCL and Ray-era CPU "
                                   "overheads, DESIGN.md's profiled model), or vllm-0.24, sglang-0.5.14, trtllm-1.3 "
                                   "(that engine's own GEMM, attention, MoE, MLA and all-reduce kernels measured by "
                                   "NVIDIA AIConfigurator on H100/H200/B200, docs/engines.md; a sliding-window model, or "
                                   "an MLA model of heads the tables did not measure, takes the roofline and says so)"};
constexpr NumberField kKernelTimeFactor{"kernel_time_factor", "ratio", 1, 0.25, 4, false,
                                        "a named engine's step kernels take this many times the tabled time on this "
                                        "deployment (a calibration, `lynxsim validate`'s serving group and "
                                        "docs/engines.md; default 1: the kernels as AIConfigurator measured them)"};
// Per kernel family (models/cost/engine/gpu_derivation.hpp KernelFamily): the engine-composed kernels' time over
// the tables' on this deployment.
constexpr const char* kFamilyMeaning =
    "this kernel family takes this many times the tabled time on this deployment (a calibration: `lynxsim "
    "calibrate --fit-kernel-families`; default 1: the kernels as AIConfigurator measured them)";
constexpr NumberField family_factor_field(KernelFamily family) {
  return {kernel_family_key(family), "ratio", 1, 0.25, 4, false, kFamilyMeaning};
}
constexpr NumberField kGemmFactor = family_factor_field(KernelFamily::gemm);
constexpr NumberField kContextAttentionFactor = family_factor_field(KernelFamily::context_attention);
constexpr NumberField kGenerationAttentionFactor = family_factor_field(KernelFamily::generation_attention);
constexpr NumberField kMoeFactor = family_factor_field(KernelFamily::moe);
constexpr NumberField kAllreduceFactor = family_factor_field(KernelFamily::allreduce);
constexpr std::pair<KernelFamily, const NumberField*> kFamilyFieldOf[] = {
    {KernelFamily::gemm, &kGemmFactor},
    {KernelFamily::context_attention, &kContextAttentionFactor},
    {KernelFamily::generation_attention, &kGenerationAttentionFactor},
    {KernelFamily::moe, &kMoeFactor},
    {KernelFamily::allreduce, &kAllreduceFactor}};
constexpr SchemaField kKernelFamilyFields[] = {{kGemmFactor}, {kContextAttentionFactor}, {kGenerationAttentionFactor},
                                               {kMoeFactor}, {kAllreduceFactor}};
constexpr SchemaSection kKernelFamilySection = schema_section(
    "Kernel family factors",
    "A named engine's composed kernels per family (GEMMs, context attention, generation attention, the fused MoE "
    "kernel, the all-reduce), each timed at this factor over its table; element-wise kernels and host time are "
    "unchanged. A pool whose model falls back to the roofline has no tables to scale.",
    kKernelFamilyFields);
constexpr ObjectField kKernelFamilyFactors{"kernel_family_factors", &kKernelFamilySection,
                                           "per kernel family, the time over the tables' (a calibration)"};
// The factors of a kernel_family_factors object (a pool's, or a serving profile's terms), each in its field's range.
KernelFamilyFactors kernel_family_factors_of(JsonObject f) {
  KernelFamilyFactors factors;
  for (const auto& [family, field] : kFamilyFieldOf) factors[family] = f.get(*field);
  f.finish();
  return factors;
}

constexpr SchemaField kPrefillFields[] = {{kInstances},       {kGpu},           {kTensorParallel},
                                          {kExpertParallel},  {kMoeLoadImbalance},
                                          {kChunkedPrefill, ExampleUse::commented, "8192"},
                                          {kMaxBatch, ExampleUse::commented, "1024"},
                                          {kPrefixCache}, {kEngineField},
                                          {kMemoryReserve, ExampleUse::commented, "0.1"},
                                          {kMemoryFraction, ExampleUse::commented, "0.9"},
                                          {kChunkedPrefillSwitch, ExampleUse::commented},
                                          {kOverlapScheduling, ExampleUse::commented},
                                          {kKvCacheDtype, ExampleUse::commented},
                                          {kHostStepMs, ExampleUse::commented, "1"},
                                          {kHostPerRequestUs, ExampleUse::commented, "20"},
                                          {kFrontendMs, ExampleUse::commented, "10"},
                                          {kFrontendSerialMs, ExampleUse::commented, "2"},
                                          {kKernelTimeFactor, ExampleUse::commented},
                                          {kKernelFamilyFactors, ExampleUse::commented}};
constexpr SchemaField kDecodeFields[] = {{kInstances},      {kGpu},           {kTensorParallel},
                                         {kExpertParallel}, {kMoeLoadImbalance},
                                         {kChunkedPrefill, ExampleUse::commented, "8192"},
                                         {kMaxBatch, ExampleUse::commented, "1024"},
                                         {kPlanIterations}, {kEngineField},
                                         {kMemoryReserve, ExampleUse::commented, "0.1"},
                                         {kMemoryFraction, ExampleUse::commented, "0.9"},
                                         {kChunkedPrefillSwitch, ExampleUse::commented},
                                         {kOverlapScheduling, ExampleUse::commented},
                                         {kKvCacheDtype, ExampleUse::commented},
                                         {kHostStepMs, ExampleUse::commented, "1"},
                                         {kHostPerRequestUs, ExampleUse::commented, "20"},
                                         {kFrontendMs, ExampleUse::commented, "10"},
                                         {kFrontendSerialMs, ExampleUse::commented, "2"},
                                         {kKernelTimeFactor, ExampleUse::commented},
                                         {kKernelFamilyFactors, ExampleUse::commented}};
constexpr SchemaSection kPrefillSection = schema_section(
    "Prefill pool", "The instances that prefill prompts (FCFS) and send their KV.", kPrefillFields);
constexpr SchemaSection kDecodeSection = schema_section(
    "Decode pool", "The instances that receive the KV and decode (continuous batching).", kDecodeFields);

constexpr ObjectField kPrefill{"prefill", &kPrefillSection, "the prefill pool"};
constexpr ObjectField kDecode{"decode", &kDecodeSection, "the decode pool"};
constexpr ObjectField kNetwork{"network", &kNetworkSection, "the network between the pools (sim/network/network_config.hpp)"};
constexpr ChoiceField kRouter{"router", kRouterPolicyNames.name(RouterPolicy::least_loaded),
                              kRouterPolicyNames.choices(),
                              "how a request picks its prefill and decode instances (prefix-aware: the prefill "
                              "instance holding its longest cached prefix, then the least loaded)"};
constexpr ChoiceField kServing{"serving", kServingModeNames.name(ServingMode::disaggregated), kServingModeNames.choices(),
                               "disaggregated: prefill and decode pools, the KV crossing the network; colocated: "
                               "every instance prefills and decodes on its own GPUs, in the decode pool's kind "
                               "(GPU, tp, ep, engine and its settings: the two pools must then match in GPU, tp, ep "
                               "and engine), so one sweep axis compares the two on the same GPUs"};
constexpr IntegerField kColocatedInstances{"colocated_instances", "instances", 0, 1, 65536,
                                           "with serving colocated: the instances (default: prefill instances + "
                                           "decode instances, the same GPUs when the pools' tp match)"};
constexpr SchemaField kClusterFields[] = {{kPrefill}, {kDecode}, {kNetwork}, {kRouter}, {kServing},
                                          {kColocatedInstances, ExampleUse::commented, "8"}};
constexpr SchemaSection kClusterSection =
    schema_section("Cluster", "The serving cluster: two pools of instances and the network.", kClusterFields);

constexpr IntegerField kChunkLayers{"chunk_layers", "layers", 4, 1, 1024, "layers per KV transfer chunk"};
constexpr NumberField kAnchorWeight{"anchor_weight", "", 1000, 0, 1e6, true,
                                    "sharing weight of Lynx anchor flows against others' 1 (1e6: strict priority)"};
constexpr ChoiceField kMode{"mode", kTransferModeNames.name(TransferMode::layer_wise), kTransferModeNames.choices(),
                            "chunks leave as their layers finish, or all after the prefill"};
constexpr ChoiceField kResidualPolicy{"residual_policy", kResidualPolicyNames.name(ResidualPolicy::weighted),
                                      kResidualPolicyNames.choices(),
                                      "Lynx residuals: weight 1 against the anchors' anchor_weight, or aging (see "
                                      "residual_max_wait_ms)"};
constexpr NumberField kResidualMaxWaitMs{"residual_max_wait_ms", "ms", NAN, 0, 1e9, false,
                                         "with residual_policy aging only, and required there: a residual chunk that "
                                         "leaves this long after the request's transfer started gets the anchor "
                                         "weight"};
constexpr ChoiceField kFormatPolicy{"format_policy", kFormatPolicyNames.name(FormatPolicy::fixed),
                                    kFormatPolicyNames.choices(),
                                    "every request's KV in the run's format (fixed), or each request's format chosen "
                                    "at its arrival among format and adaptive_formats by its predicted transfer on "
                                    "its route's current load (adaptive, sim/transfer/format_policy.hpp)"};
constexpr ArrayField kAdaptiveFormats{"adaptive_formats", "[\"lynx-a4r4-g64\", ...]: KV format names, none equal to "
                                      "format, at most one lynx-*",
                                      "with format_policy adaptive only, and required there: the candidates besides "
                                      "the run's format (the reference)"};
constexpr ChoiceField kAdaptiveObjective{"adaptive_objective",
                                         kAdaptiveObjectiveNames.name(AdaptiveObjective::ttft_correct),
                                         kAdaptiveObjectiveNames.choices(),
                                         "with format_policy adaptive: the predicted first token minimised, by the "
                                         "definition of the metric of that name (speculative, correct, verified)"};
// Default 1.1: Lynx's anchor is half of int8's bytes, so its predicted first token is ahead of int8's for every
// request and a minimum of 1 sends Lynx for all (12,031 of the Mooncake trace's 12,031 at 10 and at 25 Gbps); at 1.1
// the regime map (docs/regimes.md) is more than 1% behind int8 by the first correct token in 6 of 1,008 cells.
constexpr NumberField kAdaptiveMinGain{"adaptive_min_gain", "ratio", 1.1, 1, 1e6, false,
                                       "with format_policy adaptive: a candidate other than format is chosen only "
                                       "where format's predicted time is at least this multiple of its own (default "
                                       "1.1: at 1 every request gets Lynx, whose anchor is always predicted ahead; "
                                       "docs/regimes.md)"};
// The connector's and transport's costs (sim/transfer/transfer_cost.hpp): a preset of each, and each parameter
// overridable. A parameter's default is the preset's; the presets' numbers and their sources are in
// sim/transfer/transfer_cost.cpp.
constexpr ChoiceField kConnector{
    "connector", kTransferConnectorNames.name(TransferConnector::vllm_mooncake), kTransferConnectorNames.choices(),
    "the KV connector: what one message is and the fixed costs per transfer. vllm-mooncake (vLLM's "
    "MooncakeConnector: 16-token blocks, contiguous ones merged, per layer and K or V), sglang-mooncake (SGLang's "
    "Mooncake backend: 1-token pages, contiguous ones merged), vllm-nixl (vLLM's NixlConnector: one descriptor per "
    "16-token block, layer and K or V), lmcache (256-token chunks, all layers and K and V in one buffer), ideal (a "
    "fluid flow at line rate, no cost of its own); sim/transfer/transfer_cost.cpp cites each"};
constexpr ChoiceField kTransport{
    "transport", kTransferTransportNames.name(TransferTransport::rdma), kTransferTransportNames.choices(),
    "the network transport under the connector's library (Mooncake Transfer Engine or NIXL): rdma (verbs over "
    "RoCE or InfiniBand; Mooncake and NIXL/UCX), efa (AWS EFA's SRD; Mooncake), tcpxo (GCP GPUDirect-TCPXO; NIXL); "
    "a pair no published micro-benchmark measures is refused"};
constexpr NumberField kSetupUs{"setup_us", "us", NAN, 0, 1e6, false,
                               "fixed cost per transfer (one request's stream) before its first byte: metadata "
                               "and handshake (default: the preset's; Mooncake 66.6 from uccl PR #265's single "
                               "writes, NIXL/UCX 8.89 from LMCache PR #4161's sweep, NIXL/TCPXO 672.3 from NIXL PR "
                               "#2276's preparation times; ideal 0)"};
constexpr NumberField kNotifyUs{"notify_us", "us", NAN, 0, 1e6, false,
                                "fixed cost per transfer after its last byte has arrived: the completion "
                                "notification (default: the preset's; 0 in every preset, whose sources measure it "
                                "inside setup_us or the op latency)"};
constexpr NumberField kPerMessageUs{"per_message_us", "us", NAN, 0, 1e6, false,
                                    "serial cost of each op (post + completion): a GPU pair posts at most one op per "
                                    "this time, overlapping the wire (default: the preset's; Mooncake over rdma "
                                    "0.314 from Mooncake issue #1096's 4 KiB blocks; 0 where the op latency holds "
                                    "it)"};
constexpr IntegerField kInflight{"inflight", "ops", -1, 0, 1 << 30,
                                 "ops a GPU pair keeps outstanding, each taking op_latency_us plus its wire time "
                                 "(0: no limit; default: the preset's; Mooncake over rdma 512, its 2 queue pairs x "
                                 "256 work requests; over efa 4, fitted on Mooncake's EFA block-size sweep; NIXL/UCX "
                                 "2, fitted on LMCache PR #4161; NIXL/TCPXO 4, NIXL PR #2276's bench)"};
constexpr NumberField kOpLatencyUs{"op_latency_us", "us", NAN, 0, 1e6, false,
                                   "one op's round trip beyond its wire time, with inflight (default: the preset's; "
                                   "Mooncake over efa 40.33 and NIXL/UCX 1.344, fitted; NIXL/TCPXO 602.6 from NIXL "
                                   "PR #2276's 4 KiB ops; Mooncake over rdma inside setup_us)"};
constexpr NumberField kEfficiency{"efficiency", "fraction", NAN, 0, 1, true,
                                  "achieved rate ceiling as a fraction of a NIC's line rate: each NIC's capacity "
                                  "in the simulation (default: the preset's; Mooncake over rdma 0.87 from Mooncake's "
                                  "README, 87 GB/s on 4 x 200 Gbps; over efa 0.917 from its EFA sweep; NIXL/UCX 0.98 "
                                  "from LMCache PR #4161; NIXL/TCPXO 0.943 from NIXL PR #2276; ideal 1)"};
constexpr IntegerField kBlockTokens{"block_tokens", "tokens", -1, 1, 1 << 20,
                                    "tokens per paged KV block, the connector's unit (default: the connector's; "
                                    "vllm-* 16, vLLM's --block-size; sglang-mooncake 1, SGLang's --page-size; "
                                    "lmcache 256, its chunk_size)"};
constexpr IntegerField kMaxMessageBytes{"max_message_bytes", "bytes", -1, 0, int64_t{1} << 40,
                                        "a message of merged contiguous blocks holds at most this many bytes (0: no "
                                        "cap; default 0)"};
constexpr IntegerField kSliceBytes{"slice_bytes", "bytes", -1, 0, int64_t{1} << 40,
                                   "the library cuts each message into ops of at most this many bytes (0: one op "
                                   "per message; default: the preset's; Mooncake over rdma 65536, its slice_size; "
                                   "0 elsewhere)"};
// Connector semantics overridable one by one: "connector" keeps the connector's.
enum class CoalesceSetting { connector, merged, each };
constexpr auto kCoalesceSettingNames = enum_names<CoalesceSetting>(
    {{CoalesceSetting::connector, "connector"}, {CoalesceSetting::merged, "merged"}, {CoalesceSetting::each, "each"}});
constexpr ChoiceField kCoalesce{"coalesce_blocks", kCoalesceSettingNames.name(CoalesceSetting::connector),
                                kCoalesceSettingNames.choices(),
                                "contiguous blocks merged into one message (merged) or one message per block "
                                "(each); connector: the connector's (merged in vllm-mooncake and sglang-mooncake, "
                                "each in vllm-nixl and lmcache)"};
enum class LayersSetting { connector, each, all };
constexpr auto kLayersSettingNames = enum_names<LayersSetting>(
    {{LayersSetting::connector, "connector"}, {LayersSetting::each, "each"}, {LayersSetting::all, "all"}});
constexpr ChoiceField kMessageLayers{"message_layers", kLayersSettingNames.name(LayersSetting::connector),
                                     kLayersSettingNames.choices(),
                                     "a message holds one layer (each) or every layer of the chunk (all); "
                                     "connector: the connector's (all in lmcache, each elsewhere)"};
enum class KvSetting { connector, separate, together };
constexpr auto kKvSettingNames = enum_names<KvSetting>(
    {{KvSetting::connector, "connector"}, {KvSetting::separate, "separate"}, {KvSetting::together, "together"}});
constexpr ChoiceField kMessageKv{"message_kv", kKvSettingNames.name(KvSetting::connector), kKvSettingNames.choices(),
                                 "a message holds K or V (separate) or both (together); connector: the connector's "
                                 "(together in lmcache, separate elsewhere)"};
// transfer.replicated_kv: the preset's ("engine") or one of ReplicatedKv's names.
enum class ReplicatedKvSetting { engine, send_all, send_once };
constexpr auto kReplicatedKvSettingNames = enum_names<ReplicatedKvSetting>(
    {{ReplicatedKvSetting::engine, "engine"},
     {ReplicatedKvSetting::send_all, kReplicatedKvNames.name(ReplicatedKv::send_all)},
     {ReplicatedKvSetting::send_once, kReplicatedKvNames.name(ReplicatedKv::send_once)}});
constexpr ChoiceField kReplicatedKv{"replicated_kv", kReplicatedKvSettingNames.name(ReplicatedKvSetting::engine),
                                    kReplicatedKvSettingNames.choices(),
                                    "when a pool's tp exceeds the model's KV heads each head lives on several GPUs: "
                                    "send_all sends every decode GPU all it holds (bytes x the decode copies), "
                                    "send_once each head once; engine: the connector's (ideal send_once; "
                                    "the others send_all: each decode rank gets its heads from a prefill rank)"};
constexpr SchemaField kTransferFields[] = {{kChunkLayers},
                                           {kAnchorWeight},
                                           {kMode},
                                           {kResidualPolicy},
                                           {kResidualMaxWaitMs, ExampleUse::commented, "100"},
                                           {kConnector},
                                           {kTransport},
                                           {kSetupUs, ExampleUse::commented, "1000"},
                                           {kNotifyUs, ExampleUse::commented, "10"},
                                           {kPerMessageUs, ExampleUse::commented, "0.5"},
                                           {kInflight, ExampleUse::commented, "8"},
                                           {kOpLatencyUs, ExampleUse::commented, "5"},
                                           {kEfficiency, ExampleUse::commented, "0.8"},
                                           {kBlockTokens, ExampleUse::commented, "16"},
                                           {kCoalesce},
                                           {kMaxMessageBytes, ExampleUse::commented, "262144"},
                                           {kMessageLayers},
                                           {kMessageKv},
                                           {kSliceBytes, ExampleUse::commented, "65536"},
                                           {kReplicatedKv},
                                           {kFormatPolicy},
                                           {kAdaptiveFormats, ExampleUse::commented, "[\"lynx-a4r4-g64\"]"},
                                           {kAdaptiveObjective, ExampleUse::commented, "\"ttft_correct\""},
                                           {kAdaptiveMinGain, ExampleUse::commented, "1.1"}};
constexpr SchemaSection kTransferSection =
    schema_section("KV transfer", "How each request's KV crosses the network.", kTransferFields);

constexpr PathField kAcceptanceFile{"acceptance", "the model's accuracy file, else stories260k's as a stand-in",
                                    "accuracy file written by `lynxsim accuracy` (one acceptance source at most)"};
constexpr NumberField kAcceptanceRate{"acceptance_rate", "probability", NAN, 0, 1, false,
                                      "per-token acceptance of drafted tokens, used instead of any accuracy file"};
constexpr ArrayField kAcceptanceHistogram{"acceptance_histogram",
                                          "[[m=0, m=1], [m=0, m=1, m=2], ...]: row k-1 holds k+1 counts",
                                          "counts of m drafts accepted out of k, used instead of any accuracy file"};
constexpr ChoiceField kAcceptancePublished{"acceptance_published", nullptr, kPublishedAcceptanceNames.data(),
                                           "published acceptance figures (sim/acceptance/published_acceptance.hpp: citation "
                                           "and conditions), used instead of any accuracy file"};
constexpr IntegerField kMaxSpeculative{"max_speculative_tokens", "tokens", 0, 0, 1 << 20,
                                       "cap on tokens drafted before verification (0: up to the output length)"};
constexpr SchemaField kLynxFields[] = {{kAcceptanceFile, ExampleUse::commented, "\"lynx_accuracy.json\""},
                                       {kAcceptanceRate, ExampleUse::commented, "0.9"},
                                       {kAcceptanceHistogram, ExampleUse::commented, "[[1, 9], [1, 2, 7]]"},
                                       {kAcceptancePublished, ExampleUse::commented, "\"quantspec\""},
                                       {kMaxSpeculative}};
constexpr SchemaSection kLynxSection = schema_section(
    "Lynx speculation", "Where the acceptance of drafted tokens comes from (one source at most), and the drafting cap.",
    kLynxFields);

constexpr NumberField kSloTtft{"ttft_ms", "ms", 5000, 0, 1e9, true, "TTFT target of the goodput metric"};
constexpr NumberField kSloTpot{"tpot_ms", "ms", 100, 0, 1e9, true, "TPOT target of the goodput metric"};
constexpr SchemaField kSloFields[] = {{kSloTtft}, {kSloTpot}};
constexpr SchemaSection kSloSection =
    schema_section("Service-level objectives", "The targets request_goodput counts against.", kSloFields);

constexpr StringField kModel{"model", "llama-3.1-8b", "a model of the models catalog (models/catalog/models.json)",
                             "the served model"};
constexpr StringField kFormat{"format", "bf16",
                              "a KV format name: fp32, bf16, fp8-e4m3, int<B>-g<G>, kivi<B>-g<G>, "
                              "lynx-a<A>r<R>-g<G>[-rq] (kernels/kv_format.hpp)",
                              "the KV cache's wire format"};
constexpr IntegerField kSeed{"seed", "", 1, 0, INT64_MAX, "seed of every random draw (workload, acceptance)"};
constexpr ObjectField kCluster{"cluster", &kClusterSection, "pools, network and router"};
constexpr ObjectField kTransfer{"transfer", &kTransferSection, "KV transfer"};
constexpr ObjectField kLynx{"lynx", &kLynxSection, "Lynx speculation (formats lynx-*)"};
constexpr PathField kKernelCosts{"kernel_costs", "kernels/costs/<gpu>.json if shipped, else roofline defaults",
                                 "kernel cost table written by `lynxsim bench-kernels`"};
constexpr ChoiceField kComputeModel{"compute_model", kComputeModelNames.name(ComputeModelKind::automatic),
                                    kComputeModelNames.choices(),
                                    "prefill and decode times: profiled (published measurements), roofline, or auto "
                                    "(profiled where the measurements cover the GPU and model shape)"};
constexpr ChoiceField kWeightsDtype{"weights_dtype", kWeightsDtypeNames.name(WeightsDtype::bf16),
                                    kWeightsDtypeNames.choices(),
                                   "weight bytes (fp8: the decoder blocks at 1 byte, the embedding table and LM head "
                                   "kept bf16) and the peak the compute model uses"};
constexpr ObjectField kSlo{"slo", &kSloSection, "service-level objectives"};
constexpr PathField kModelsCatalog{"models_catalog", "the shipped models/catalog/models.json", "model catalog"};
constexpr PathField kGpusCatalog{"gpus_catalog", "the shipped models/catalog/gpus.json", "GPU catalog"};
constexpr PathField kServingProfile{"serving_profile", "none: each engine's shipped terms",
                                    "profile.json written by `lynxsim calibrate`: its fitted host and front-end terms "
                                    "fill every named-engine pool's terms the pool does not set, and the summary "
                                    "reports its held-out error beside the metrics"};
constexpr ObjectField kWorkload{"workload", &kWorkloadSection, "the requests (traces/workload_spec.hpp)", true};
constexpr SchemaField kTopFields[] = {{kModel},
                                      {kFormat, ExampleUse::shown, "\"lynx-a4r4-g64\""},
                                      {kSeed},
                                      {kCluster},
                                      {kTransfer},
                                      {kLynx},
                                      {kKernelCosts, ExampleUse::commented, "\"kernels/costs/h200.json\""},
                                      {kComputeModel},
                                      {kWeightsDtype},
                                      {kSlo},
                                      {kModelsCatalog, ExampleUse::commented, "\"models.json\""},
                                      {kGpusCatalog, ExampleUse::commented, "\"gpus.json\""},
                                      {kServingProfile, ExampleUse::commented, "\"calibrated/profile.json\""},
                                      {kWorkload}};

// transfer.format_policy and its adaptive_* fields; the adaptive fields only with the adaptive policy.
void read_format_policy(JsonObject& t, const std::string& format, TransferConfig& transfer) {
  transfer.format_policy = t.get_enum<FormatPolicy>(kFormatPolicy);
  const bool adaptive = transfer.format_policy == FormatPolicy::adaptive;
  for (const char* key : {kAdaptiveFormats.key, kAdaptiveObjective.key, kAdaptiveMinGain.key})
    if (!adaptive && t.has(key)) t.fail(key, std::string("no ") + key + " without \"format_policy\": \"adaptive\"");
  if (!adaptive) return;
  if (!t.has(kAdaptiveFormats.key)) t.fail(kAdaptiveFormats.key, "the candidate formats besides format (required with "
                                                                 "\"format_policy\": \"adaptive\")");
  const nlohmann::json& list = t.get(kAdaptiveFormats);
  if (list.empty()) t.fail(kAdaptiveFormats.key, "at least one KV format name besides format");
  int speculating = kv_format_parse(format).is_lynx() ? 1 : 0;
  for (size_t i = 0; i < list.size(); ++i) {
    auto fail_at = [&](const std::string& expected) {
      throw_error("%s: %s: expected %s, got %s", t.origin().c_str(),
                  json_index_path(t.path_of(kAdaptiveFormats.key), i).c_str(), expected.c_str(),
                  list[i].dump().c_str());
    };
    if (!list[i].is_string()) fail_at("a KV format name (a string)");
    const std::string name = list[i].get<std::string>();
    KvFormat parsed;
    try {
      parsed = kv_format_parse(name);
    } catch (const LynxError&) {
      fail_at(std::string("a KV format name (") + kv_format_grammar() + ")");
    }
    if (name == format) fail_at("a format other than the run's format (already the reference candidate)");
    for (const std::string& earlier : transfer.adaptive_formats)
      if (earlier == name) fail_at("a format not listed before");
    if (parsed.is_lynx() && ++speculating > 1)
      fail_at("at most one lynx-* format among format and adaptive_formats (one acceptance source)");
    transfer.adaptive_formats.push_back(name);
  }
  transfer.adaptive_objective = t.get_enum<AdaptiveObjective>(kAdaptiveObjective);
  transfer.adaptive_min_gain = t.get(kAdaptiveMinGain);
}

PoolConfig pool_from_json(JsonObject o, bool decode) {
  PoolConfig p;
  p.instances = static_cast<int>(o.get(kInstances));
  p.gpu = o.get(kGpu);
  p.tensor_parallel = static_cast<int>(o.get(kTensorParallel));
  p.expert_parallel = static_cast<int>(o.get(kExpertParallel));
  p.moe_load_imbalance = o.get(kMoeLoadImbalance);
  if (p.tensor_parallel % p.expert_parallel != 0) o.fail(kExpertParallel.key, "a divisor of tp");
  p.engine = o.get_enum<ServingEngine>(kEngineField);
  const bool named = p.engine != ServingEngine::vidur_2024;
  if (o.has(kMemoryReserve.key) && named)
    o.fail(kMemoryReserve.key, std::string("no memory_reserve_fraction with engine ") + serving_engine_name(p.engine) +
                                   ": a named engine sizes its KV cache by its own rule (set memory_fraction)");
  if (o.has(kMemoryReserve.key)) p.memory_reserve_fraction = o.get(kMemoryReserve);
  p.chunked_prefill_tokens = o.get(kChunkedPrefill);
  p.max_batch = o.get(kMaxBatch);
  if (!named) {
    if (p.chunked_prefill_tokens < 0) p.chunked_prefill_tokens = 0;
    if (p.max_batch < 0) p.max_batch = 256;
  }
  for (const char* key : {kMemoryFraction.key, kChunkedPrefillSwitch.key, kOverlapScheduling.key, kKvCacheDtype.key,
                          kHostStepMs.key, kHostPerRequestUs.key, kFrontendMs.key, kFrontendSerialMs.key,
                          kKernelTimeFactor.key, kKernelFamilyFactors.key})
    if (!named && o.has(key))
      o.fail(key, std::string("no ") + key + " with engine vidur-2024 (2024 kernel measurements, not a serving "
                  "engine): name an engine (vllm-0.24, sglang-0.5.14, trtllm-1.3)");
  if (o.has(kMemoryFraction.key)) p.memory_fraction = o.get(kMemoryFraction);
  p.chunked_prefill = o.get_enum<EngineSwitch>(kChunkedPrefillSwitch);
  p.overlap_scheduling = o.get_enum<EngineSwitch>(kOverlapScheduling);
  p.kv_cache_dtype = o.get_enum<KvCacheDtype>(kKvCacheDtype);
  if (o.has(kHostStepMs.key)) p.host_step_ms = o.get(kHostStepMs);
  if (o.has(kHostPerRequestUs.key)) p.host_per_request_us = o.get(kHostPerRequestUs);
  if (o.has(kFrontendMs.key)) p.frontend_ms = o.get(kFrontendMs);
  if (o.has(kFrontendSerialMs.key)) p.frontend_serial_ms = o.get(kFrontendSerialMs);
  p.kernel_time_factor = o.get(kKernelTimeFactor);
  if (o.has(kKernelFamilyFactors.key)) p.kernel_family_factors = kernel_family_factors_of(o.get(kKernelFamilyFactors));
  if (decode) {
    p.plan_iterations = o.get(kPlanIterations);
  } else {
    p.prefix_cache = o.get(kPrefixCache);
  }
  o.finish();
  return p;
}
// The simulated cluster's size, bounded before anything is built: every NIC is a SimGrid host and link with its
// routes, and every GPU its share of the instances' state, so instances x tp, each in range alone (65,536 x 64),
// can ask for more memory than a machine has (issue 59: 65,536 instances of tp 64 per pool ran out after 39 s).
// Measured here: 4,096 instances x tp 8 per pool (65,536 NICs) peaks at 235 MB against 37 MB for one instance each,
// about 3.1 KB per NIC, and builds in 1.2 s. A cluster over kMaxNics NICs (about 0.8 GB) is refused naming the
// fields that drive it and the estimate (tests/cli/limits_check.sh).
constexpr int64_t kMaxNics = 1 << 18;
constexpr double kBytesPerNic = 3100;
void check_cluster_size(const SimConfig& c, const JsonObject& cluster) {
  auto nics_of = [&](const PoolConfig& p) {
    return static_cast<int64_t>(c.network.nics_per_instance > 0 ? c.network.nics_per_instance : p.tensor_parallel);
  };
  char sizes[256];
  int64_t nics = 0;
  if (c.serving == ServingMode::colocated) {
    nics = c.colocated_instances * nics_of(c.decode);
    std::snprintf(sizes, sizeof sizes, "colocated_instances %d x %lld NICs each", c.colocated_instances,
                  static_cast<long long>(nics_of(c.decode)));
  } else {
    nics = c.prefill.instances * nics_of(c.prefill) + c.decode.instances * nics_of(c.decode);
    std::snprintf(sizes, sizeof sizes, "prefill.instances %d x %lld NICs each + decode.instances %d x %lld NICs each",
                  c.prefill.instances, static_cast<long long>(nics_of(c.prefill)), c.decode.instances,
                  static_cast<long long>(nics_of(c.decode)));
  }
  if (nics <= kMaxNics) return;
  throw_error("%s: %s: %s (a NIC per GPU: the pools' tp, unless network.nics_per_instance) = %lld NICs, each a "
              "simulated host and link: about %.1f GB before the first request; lynxsim simulates at most %lld NICs "
              "(a resource limit: lower instances or tp)",
              c.origin.c_str(), cluster.path().c_str(),
              sizes, static_cast<long long>(nics), static_cast<double>(nics) * kBytesPerNic / 1e9,
              static_cast<long long>(kMaxNics));
}
}  // namespace

extern constexpr SchemaSection kSimConfigSection = schema_section(
    "Simulation", "One simulated cluster, model, KV format and workload. Relative paths resolve against the "
    "configuration file's directory.", kTopFields);

const char* router_policy_name(RouterPolicy router) { return kRouterPolicyNames.name(router); }
const char* transfer_mode_name(TransferMode mode) { return kTransferModeNames.name(mode); }
const char* residual_policy_name(ResidualPolicy policy) { return kResidualPolicyNames.name(policy); }
const char* format_policy_name(FormatPolicy policy) { return kFormatPolicyNames.name(policy); }
const char* adaptive_objective_name(AdaptiveObjective objective) { return kAdaptiveObjectiveNames.name(objective); }
const char* replicated_kv_name(ReplicatedKv mode) { return kReplicatedKvNames.name(mode); }
const char* compute_model_name(ComputeModelKind model) { return kComputeModelNames.name(model); }

namespace {
// The profile's terms on every named-engine pool that does not set them (a NaN term is unset; the kernel-time factor
// is taken where the pool leaves it at 1).
void apply_serving_profile(SimConfig& c) {
  const std::string& path = c.serving_profile;
  const nlohmann::json profile = json_parse_file(path);
  if (!profile.is_object() || !profile.contains("lynxsim_serving_profile") || profile["lynxsim_serving_profile"] != 1)
    throw_error("%s: not a serving profile (lynxsim calibrate writes one: \"lynxsim_serving_profile\": 1)", path.c_str());
  const nlohmann::json& terms = profile.contains("terms") ? profile["terms"] : nlohmann::json();
  auto term = [&](const char* key) {
    if (!terms.is_object() || !terms.contains(key) || !terms[key].is_number() || !(terms[key].get<double>() >= 0))
      throw_error("%s: $.terms.%s: expected a number >= 0", path.c_str(), key);
    return terms[key].get<double>();
  };
  const double host_step = term("host_step_ms"), per_request = term("host_per_request_us"),
               frontend = term("frontend_ms"), serial = term("frontend_serial_ms"), factor = term("kernel_time_factor");
  bool applied = false;
  for (PoolConfig* p : {&c.prefill, &c.decode}) {
    if (p->engine == ServingEngine::vidur_2024) continue;
    applied = true;
    if (std::isnan(p->host_step_ms)) p->host_step_ms = host_step;
    if (std::isnan(p->host_per_request_us)) p->host_per_request_us = per_request;
    if (std::isnan(p->frontend_ms)) p->frontend_ms = frontend;
    if (std::isnan(p->frontend_serial_ms)) p->frontend_serial_ms = serial;
    if (p->kernel_time_factor == 1) p->kernel_time_factor = factor;
  }
  if (!applied)
    throw_error("%s: $.serving_profile: no pool names a serving engine (vllm-0.24, sglang-0.5.14, trtllm-1.3) whose "
                "terms the profile could set", c.origin.c_str());
  // Kernel family factors (fitted with --fit-kernel-families) on every named-engine pool that leaves its own at 1.
  if (terms.contains("kernel_family_factors")) {
    const KernelFamilyFactors factors = kernel_family_factors_of(
        JsonObject(terms["kernel_family_factors"], path, "$.terms.kernel_family_factors", &kKernelFamilySection));
    for (PoolConfig* p : {&c.prefill, &c.decode})
      if (p->engine != ServingEngine::vidur_2024 && p->kernel_family_factors.all_one()) p->kernel_family_factors = factors;
  }
  // The P/D handoff (fitted only on disaggregated runs): on each KV stream's notification, unless the configuration
  // sets transfer.notify_us itself; a co-located configuration has no handoff.
  if (terms.contains("pd_handoff_ms") && c.serving == ServingMode::disaggregated && !c.transfer.notify_us_given)
    c.transfer.cost.notify_us += 1e3 * term("pd_handoff_ms");
  c.serving_profile_error = profile.contains("held_out") ? profile["held_out"] : nlohmann::json();
}
}  // namespace

SimConfig sim_config_from_json(const nlohmann::json& root, const std::string& origin, const std::string& base_dir) {
  SimConfig c;
  c.origin = origin;
  c.base_dir = base_dir;
  JsonObject top(root, origin, "$", &kSimConfigSection);
  c.model = top.get(kModel);
  if (c.model.empty()) top.fail(kModel.key, "a model name of the models catalog, not \"\"");
  c.format = top.get(kFormat);
  try {
    kv_format_parse(c.format);
  } catch (const LynxError&) {
    top.fail(kFormat.key, std::string("a KV format name (") + kv_format_grammar() + ")");
  }
  c.seed = static_cast<uint64_t>(top.get(kSeed));
  {
    JsonObject cluster = top.get(kCluster);
    c.prefill = pool_from_json(cluster.get(kPrefill), false);
    c.decode = pool_from_json(cluster.get(kDecode), true);
    JsonObject network = cluster.get(kNetwork);
    c.network = network_config_from_json(network);
    c.router = cluster.get_enum<RouterPolicy>(kRouter);
    c.serving = cluster.get_enum<ServingMode>(kServing);
    if (c.serving == ServingMode::colocated) {
      c.colocated_instances = static_cast<int>(cluster.get(kColocatedInstances));
      if (c.colocated_instances <= 0) c.colocated_instances = c.prefill.instances + c.decode.instances;
      const PoolConfig &p = c.prefill, &d = c.decode;
      const char* differs = p.gpu != d.gpu                           ? "gpu"
                            : p.tensor_parallel != d.tensor_parallel ? "tp"
                            : p.expert_parallel != d.expert_parallel ? "ep"
                            : p.engine != d.engine                   ? "engine"
                                                                     : nullptr;
      if (differs != nullptr)
        cluster.fail(kServing.key, std::string("co-located serving on the pools' GPUs: prefill and decode of the same ") +
                                       differs + " (they differ)");
      if (d.engine == ServingEngine::vidur_2024)
        cluster.fail(kServing.key, "co-located serving with a named engine (vllm-0.24, sglang-0.5.14, trtllm-1.3) "
                                   "in the pools: its scheduler and memory rule serve the instances (vidur-2024 is "
                                   "2024 kernel measurements, not an engine)");
    } else if (cluster.has(kColocatedInstances.key)) {
      cluster.fail(kColocatedInstances.key, "no colocated_instances without \"serving\": \"colocated\"");
    }
    cluster.finish();
    check_cluster_size(c, cluster);
  }
  {
    JsonObject t = top.get(kTransfer);
    c.transfer.chunk_layers = static_cast<int>(t.get(kChunkLayers));
    c.transfer.anchor_weight = t.get(kAnchorWeight);
    c.transfer.mode = t.get_enum<TransferMode>(kMode);
    c.transfer.residual_policy = t.get_enum<ResidualPolicy>(kResidualPolicy);
    if (c.transfer.residual_policy == ResidualPolicy::aging) c.transfer.residual_max_wait_ms = t.get(kResidualMaxWaitMs);
    else if (t.has(kResidualMaxWaitMs.key))
      t.fail(kResidualMaxWaitMs.key, "no residual_max_wait_ms without \"residual_policy\": \"aging\"");
    c.transfer.connector = t.get_enum<TransferConnector>(kConnector);
    c.transfer.transport = t.get_enum<TransferTransport>(kTransport);
    if (transfer_preset_missing(c.transfer.connector, c.transfer.transport))
      t.fail(kTransport.key, std::string("a transport that a published micro-benchmark of ") +
                                 transfer_library_name(connector_library(c.transfer.connector)) + " (" +
                                 kTransferConnectorNames.name(c.transfer.connector) + "'s library) measures: " +
                                 transfer_transports_measured(c.transfer.connector));
    TransferCost& cost = c.transfer.cost;
    cost = transfer_preset(c.transfer.connector, c.transfer.transport);
    if (t.has(kSetupUs.key)) cost.setup_us = t.get(kSetupUs);
    if (t.has(kNotifyUs.key)) cost.notify_us = t.get(kNotifyUs), c.transfer.notify_us_given = true;
    if (t.has(kPerMessageUs.key)) cost.per_message_us = t.get(kPerMessageUs);
    if (t.has(kInflight.key)) cost.inflight = t.get(kInflight);
    if (t.has(kOpLatencyUs.key)) cost.op_latency_us = t.get(kOpLatencyUs);
    if (t.has(kEfficiency.key)) cost.efficiency = t.get(kEfficiency);
    if (t.has(kBlockTokens.key)) cost.block_tokens = t.get(kBlockTokens);
    if (t.has(kMaxMessageBytes.key)) cost.max_message_bytes = t.get(kMaxMessageBytes);
    if (t.has(kSliceBytes.key)) cost.slice_bytes = t.get(kSliceBytes);
    if (const auto v = t.get_enum<CoalesceSetting>(kCoalesce); v != CoalesceSetting::connector)
      cost.coalesce = v == CoalesceSetting::merged;
    if (const auto v = t.get_enum<LayersSetting>(kMessageLayers); v != LayersSetting::connector)
      cost.layers_together = v == LayersSetting::all;
    if (const auto v = t.get_enum<KvSetting>(kMessageKv); v != KvSetting::connector)
      cost.kv_together = v == KvSetting::together;
    const auto replicated = t.get_enum<ReplicatedKvSetting>(kReplicatedKv);
    if (const auto mode = kReplicatedKvNames.parse(kReplicatedKvSettingNames.name(replicated)))
      cost.replicated_kv = *mode;  // none for "engine": the preset's
    read_format_policy(t, c.format, c.transfer);
    t.finish();
  }
  {
    JsonObject l = top.get(kLynx);
    const bool file = l.has(kAcceptanceFile.key), rate = l.has(kAcceptanceRate.key),
               histogram = l.has(kAcceptanceHistogram.key), published = l.has(kAcceptancePublished.key);
    if (file) c.lynx.acceptance_file = l.get(kAcceptanceFile, base_dir);
    if (rate) c.lynx.acceptance_rate = l.get(kAcceptanceRate);
    if (histogram) c.lynx.acceptance_histogram = l.get(kAcceptanceHistogram);
    if (published) c.lynx.acceptance_published = l.get(kAcceptancePublished);
    if (file + rate + histogram + published > 1)
      l.fail(published ? kAcceptancePublished.key : rate ? kAcceptanceRate.key : kAcceptanceHistogram.key,
             "one acceptance source: acceptance (a file), acceptance_rate, acceptance_histogram or "
             "acceptance_published, not several");
    c.lynx.max_speculative_tokens = l.get(kMaxSpeculative);
    l.finish();
  }
  c.kernel_costs = top.get(kKernelCosts, base_dir);
  c.compute_model = top.get_enum<ComputeModelKind>(kComputeModel);
  c.weights_dtype = top.get_enum<WeightsDtype>(kWeightsDtype);
  {
    JsonObject s = top.get(kSlo);
    c.slo.ttft_ms = s.get(kSloTtft);
    c.slo.tpot_ms = s.get(kSloTpot);
    s.finish();
  }
  c.models_catalog = top.get(kModelsCatalog, base_dir);
  c.gpus_catalog = top.get(kGpusCatalog, base_dir);
  if (top.has(kServingProfile.key)) {
    c.serving_profile = top.get(kServingProfile, base_dir);
    apply_serving_profile(c);
  }
  if (!top.has(kWorkload.key)) top.fail(kWorkload.key, "a JSON object (a trace or a synthetic workload)");
  c.workload = top.get(kWorkload).value();  // parsed by the traces library (run_config.cpp)
  top.finish();
  return c;
}

void sim_config_check_kind(const nlohmann::json& root, const std::string& path) {
  if (root.is_object() && root.contains("base") && root.contains("sweep"))
    throw_error("%s: an experiment (it has \"base\" and \"sweep\"), not a simulation configuration: run its sweep "
                "with `lynxsim run %s`", path.c_str(), path.c_str());
}

SimConfig sim_config_load(const std::string& path) {
  nlohmann::json root = json_parse_file(path, true);
  sim_config_check_kind(root, path);
  std::string dir = std::filesystem::path(path).parent_path().string();
  return sim_config_from_json(root, path, dir);
}

}  // namespace lynx
