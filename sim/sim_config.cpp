#include "sim/sim_config.hpp"

#include <filesystem>

#include "common/error.hpp"
#include "common/json_reader.hpp"
#include "kernels/kv_format.hpp"

namespace lynx {

namespace {
PoolConfig pool_from_json(JsonObject o, bool decode) {
  PoolConfig p;
  p.instances = static_cast<int>(o.positive_integer_or("instances", p.instances));
  p.gpu = o.string_or("gpu", p.gpu);
  p.tensor_parallel = static_cast<int>(o.positive_integer_or("tp", p.tensor_parallel));
  if (decode) {
    p.max_batch = static_cast<int>(o.positive_integer_or("max_batch", p.max_batch));
    p.memory_reserve_fraction = o.non_negative_number_or("memory_reserve_fraction", p.memory_reserve_fraction);
    if (p.memory_reserve_fraction >= 1) o.fail("memory_reserve_fraction", "a fraction in [0, 1)");
    p.plan_iterations = o.boolean_or("plan_iterations", p.plan_iterations);
  } else {
    p.chunked_prefill_tokens = o.non_negative_integer_or("chunked_prefill_tokens", 0);
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
  if (top.has("seed")) c.seed = static_cast<uint64_t>(top.non_negative_integer_or("seed", 1));
  if (top.has("cluster")) {
    JsonObject cluster = top.object("cluster");
    if (cluster.has("prefill")) c.prefill = pool_from_json(cluster.object("prefill"), false);
    if (cluster.has("decode")) c.decode = pool_from_json(cluster.object("decode"), true);
    if (cluster.has("network")) {
      JsonObject network = cluster.object("network");
      c.network = network_config_from_json(network);
    }
    c.router = cluster.choice_or("router", {"least-loaded", "round-robin"}, c.router);
    cluster.finish();
  }
  if (top.has("transfer")) {
    JsonObject t = top.object("transfer");
    c.transfer.chunk_layers = static_cast<int>(t.positive_integer_or("chunk_layers", c.transfer.chunk_layers));
    c.transfer.anchor_weight = t.positive_number_or("anchor_weight", c.transfer.anchor_weight);
    c.transfer.mode = t.choice_or("mode", {"layer-wise", "after-prefill"}, c.transfer.mode);
    t.finish();
  }
  if (top.has("lynx")) {
    JsonObject l = top.object("lynx");
    if (l.has("acceptance")) c.lynx.acceptance_file = l.input_path("acceptance", base_dir);
    c.lynx.acceptance_rate = l.non_negative_number_or("acceptance_rate", 0);
    if (c.lynx.acceptance_rate > 1) l.fail("acceptance_rate", "a probability in [0, 1]");
    c.lynx.max_speculative_tokens = l.non_negative_integer_or("max_speculative_tokens", 0);
    l.finish();
  }
  if (top.has("kernel_costs")) c.kernel_costs = top.input_path("kernel_costs", base_dir);
  c.compute_model = top.choice_or("compute_model", {"auto", "profiled", "roofline"}, c.compute_model);
  c.weights_dtype = top.choice_or("weights_dtype", {"bf16", "fp8"}, c.weights_dtype);
  if (top.has("slo")) {
    JsonObject s = top.object("slo");
    c.slo.ttft_ms = s.positive_number_or("ttft_ms", c.slo.ttft_ms);
    c.slo.tpot_ms = s.positive_number_or("tpot_ms", c.slo.tpot_ms);
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
