// The memory arithmetic (sim/cluster/capacity.hpp) against closed forms written from the datasheet and catalog numbers:
// H200 141 GB, A100 80 GB; Llama-3.1-8B 8,030,261,248 parameters, 32 layers x 8 KV heads x 128 (bf16 KV 131,072
// B/token); Llama-3.1-70B 70,553,706,496 parameters, 80 layers x 8 KV heads x 128.
#include <doctest/doctest.h>

#include "sim/cluster/capacity.hpp"
#include "sim_test_support.hpp"

using namespace lynx;
using namespace lynx::test;

namespace {
constexpr double kRel = 1e-12;
bool near(double a, double b) { return std::fabs(a - b) <= kRel * std::fabs(b); }

nlohmann::json pools(const std::string& model, const std::string& format, int prefill_tp, int decode_tp,
                     double reserve, const std::string& weights) {
  return {{"model", model},
          {"format", format},
          {"compute_model", "roofline"},
          {"weights_dtype", weights},
          {"cluster",
           {{"prefill", {{"gpu", "h200-sxm"}, {"tp", prefill_tp}, {"memory_reserve_fraction", reserve}}},
            {"decode", {{"gpu", "a100-80gb-sxm"}, {"tp", decode_tp}, {"memory_reserve_fraction", reserve}}}}}};
}
}  // namespace

TEST_CASE("KV capacity: tp GPUs' HBM less the reserve less one replica's weights, per pool") {
  const SimulationInputs in = make_inputs(pools("llama-3.1-8b", "bf16", 1, 2, 0.1, "bf16"), {});
  CHECK(near(weight_bytes(in), 2.0 * 8030261248.0));
  CHECK(near(pool_usable_bytes(in.prefill_gpu, in.config.prefill), 141e9 * 0.9));
  CHECK(near(pool_usable_bytes(in.decode_gpu, in.config.decode), 2 * 80e9 * 0.9));
  CHECK(near(prefill_kv_capacity_bytes(in), 141e9 * 0.9 - 2.0 * 8030261248.0));
  CHECK(near(decode_kv_capacity_bytes(in), 2 * 80e9 * 0.9 - 2.0 * 8030261248.0));
}

TEST_CASE("fp8 weights take one byte per parameter of the decoder blocks, two of the embedding table and LM head") {
  const SimulationInputs in = make_inputs(pools("llama-3.1-70b", "bf16", 4, 4, 0.2, "fp8"), {});
  const double table = 128256.0 * 8192;  // vocab x hidden, twice: embedding and untied LM head
  const double bytes = (70553706496.0 - 2 * table) + 2.0 * (2 * table);
  CHECK(near(weight_bytes(in), bytes));
  CHECK(near(decode_kv_capacity_bytes(in), 4 * 80e9 * 0.8 - bytes));
}

TEST_CASE("a request holds its prompt's bf16 KV on the prefill side and its whole KV in the format on decode") {
  const SimulationInputs in = make_inputs(pools("llama-3.1-8b", "int8-g64", 1, 1, 0.1, "bf16"), {});
  CHECK(prefill_kv_bytes(in, 1000) == 1000.0 * 2 * 32 * 8 * 128 * 2);
  // int8 with an fp16 scale and an fp16 zero point per group of 64 values: 1 + 4/64 bytes per value, 2 x 32 x 8 x
  // 128 values per token (kernels/kv_format.hpp).
  const double values_per_token = 2.0 * 32 * 8 * 128;
  const KvBytesPerToken per = kv_bytes_per_token(in);
  CHECK(near(per.full, values_per_token * (1 + 4.0 / 64)));
  CHECK(per.anchor == per.full);  // one stream: the anchor is the whole KV
  CHECK(near(decode_reservation_bytes(per.full, 3000, 500), per.full * 3500));
}

TEST_CASE("Lynx: the anchor alone is the high 4 bits and every group's scale and zero point") {
  const SimulationInputs in = make_inputs(pools("llama-3.1-8b", "lynx-a4r4-g64", 1, 1, 0.1, "bf16"), {});
  const KvBytesPerToken per = kv_bytes_per_token(in);
  const double values_per_token = 2.0 * 32 * 8 * 128;
  CHECK(near(per.full, values_per_token * (1 + 4.0 / 64)));
  CHECK(near(per.anchor, values_per_token * (0.5 + 4.0 / 64)));
}
