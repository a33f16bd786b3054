#include "sim/sim_config.hpp"

#include <filesystem>

#include "common/error.hpp"
#include "common/json_reader.hpp"
#include "kernels/kv_format.hpp"

namespace lynx {

namespace {
// The numeric fields, each declared once with its unit, default and range (common/json_reader.hpp). Ranges bound
// what a simulation can represent (counts that fit the simulator's int and its memory, times SimGrid resolves);
// they are far beyond any real deployment.
constexpr IntegerField kInstances{"instances", "instances", 1, 1, 65536, "model replicas in the pool"};
constexpr IntegerField kTensorParallel{"tp", "GPUs", 1, 1, 64, "tensor-parallel degree: GPUs per replica"};
constexpr IntegerField kChunkedPrefill{"chunked_prefill_tokens", "tokens", 0, 0, 1 << 24,
                                       "prefill token budget per iteration (0: whole prompts, one at a time)"};
constexpr IntegerField kMaxBatch{"max_batch", "sequences", 256, 1, 1 << 20, "decode: sequences per iteration"};
constexpr NumberField kMemoryReserve{"memory_reserve_fraction", "fraction", 0.1, 0, 0.99, false,
                                     "share of GPU memory kept for activations and fragmentation"};
constexpr IntegerField kSeed{"seed", "", 1, 0, INT64_MAX, "seed of every random draw (workload, acceptance)"};
constexpr IntegerField kChunkLayers{"chunk_layers", "layers", 4, 1, 1024, "layers per KV transfer chunk"};
constexpr NumberField kAnchorWeight{"anchor_weight", "", 1000, 0, 1e6, true,
                                    "sharing weight of Lynx anchor flows against others' 1 (1e6: strict priority)"};
constexpr NumberField kResidualMaxWaitMs{"residual_max_wait_ms", "ms", NAN, 0, 1e9, false,
                                         "aging: a residual older than this leaves with the anchor weight"};
constexpr NumberField kAcceptanceRate{"acceptance_rate", "probability", 0, 0, 1, false,
                                      "per-token acceptance of drafted tokens, used instead of any accuracy file"};
constexpr IntegerField kMaxSpeculative{"max_speculative_tokens", "tokens", 0, 0, 1 << 20,
                                       "cap on tokens drafted before verification (0: up to the output length)"};
constexpr NumberField kSloTtft{"ttft_ms", "ms", 5000, 0, 1e9, true, "TTFT target of the goodput metric"};
constexpr NumberField kSloTpot{"tpot_ms", "ms", 100, 0, 1e9, true, "TPOT target of the goodput metric"};

PoolConfig pool_from_json(JsonObject o, bool decode) {
  PoolConfig p;
  p.instances = static_cast<int>(o.get(kInstances));
  p.gpu = o.string_or("gpu", p.gpu);
  p.tensor_parallel = static_cast<int>(o.get(kTensorParallel));
  p.memory_reserve_fraction = o.get(kMemoryReserve);
  if (decode) {
    p.max_batch = static_cast<int>(o.get(kMaxBatch));
    p.plan_iterations = o.boolean_or("plan_iterations", p.plan_iterations);
  } else {
    p.chunked_prefill_tokens = o.get(kChunkedPrefill);
    p.prefix_cache = o.boolean_or("prefix_cache", false);
  }
  o.finish();
  return p;
}
}  // namespace

SimConfig sim_config_from_json(const nlohmann::json& root, const std::string& origin, const std::string& base_dir) {
  SimConfig c;
  c.origin = origin;
  c.base_dir = base_dir;
  JsonObject top(root, origin, "$");
  c.model = top.string_or("model", c.model);
  c.format = top.string_or("format", c.format);
  try {
    kv_format_parse(c.format);
  } catch (const LynxError&) {
    top.fail("format", std::string("a KV format name (") + kv_format_grammar() + ")");
  }
  c.seed = static_cast<uint64_t>(top.get(kSeed));
  {
    JsonObject cluster = top.object_or_empty("cluster");
    c.prefill = pool_from_json(cluster.object_or_empty("prefill"), false);
    c.decode = pool_from_json(cluster.object_or_empty("decode"), true);
    JsonObject network = cluster.object_or_empty("network");
    c.network = network_config_from_json(network);
    c.router = cluster.choice_or("router", {"least-loaded", "round-robin", "prefix-aware"}, c.router);
    cluster.finish();
  }
  {
    JsonObject t = top.object_or_empty("transfer");
    c.transfer.chunk_layers = static_cast<int>(t.get(kChunkLayers));
    c.transfer.anchor_weight = t.get(kAnchorWeight);
    c.transfer.mode = t.choice_or("mode", {"layer-wise", "after-prefill"}, c.transfer.mode);
    c.transfer.residual_policy = t.choice_or("residual_policy", {"weighted", "aging"}, c.transfer.residual_policy);
    if (c.transfer.residual_policy == "aging") c.transfer.residual_max_wait_ms = t.get(kResidualMaxWaitMs);
    else if (t.has("residual_max_wait_ms"))
      t.fail("residual_max_wait_ms", "no residual_max_wait_ms without \"residual_policy\": \"aging\"");
    t.finish();
  }
  {
    JsonObject l = top.object_or_empty("lynx");
    if (l.has("acceptance")) c.lynx.acceptance_file = l.input_path("acceptance", base_dir);
    if (l.has("acceptance_rate")) c.lynx.acceptance_rate = l.get(kAcceptanceRate);
    if (l.has("acceptance_histogram")) c.lynx.acceptance_histogram = l.array("acceptance_histogram");
    const int sources = l.has("acceptance") + l.has("acceptance_rate") + l.has("acceptance_histogram");
    if (sources > 1)
      l.fail(l.has("acceptance_rate") ? "acceptance_rate" : "acceptance_histogram",
             "one acceptance source: acceptance (a file), acceptance_rate or acceptance_histogram, not several");
    c.lynx.max_speculative_tokens = l.get(kMaxSpeculative);
    l.finish();
  }
  if (top.has("kernel_costs")) c.kernel_costs = top.input_path("kernel_costs", base_dir);
  c.compute_model = top.choice_or("compute_model", {"auto", "profiled", "roofline"}, c.compute_model);
  c.weights_dtype = top.choice_or("weights_dtype", {"bf16", "fp8"}, c.weights_dtype);
  {
    JsonObject s = top.object_or_empty("slo");
    c.slo.ttft_ms = s.get(kSloTtft);
    c.slo.tpot_ms = s.get(kSloTpot);
    s.finish();
  }
  if (top.has("models_catalog")) c.models_catalog = top.input_path("models_catalog", base_dir);
  if (top.has("gpus_catalog")) c.gpus_catalog = top.input_path("gpus_catalog", base_dir);
  if (top.has("workload")) {
    c.workload = top.raw("workload");
    if (!c.workload.is_object()) top.fail("workload", "a JSON object");
  } else {
    top.fail("workload", "a JSON object (a trace or a synthetic workload)");
  }
  top.finish();
  return c;
}

SimConfig sim_config_load(const std::string& path) {
  nlohmann::json root = json_parse_file(path);
  std::string dir = std::filesystem::path(path).parent_path().string();
  return sim_config_from_json(root, path, dir);
}

}  // namespace lynx
