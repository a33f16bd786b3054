// Whole-simulation tests against closed forms: one request on an idle network, the layer-wise pipeline, N transfers
// into one NIC, anchor priority across requests, Lynx against int4, conservation and ordering on a busy cluster.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "models/cost/roofline/cost_model.hpp"
#include "common/data_folder.hpp"
#include "models/arch/kv_size.hpp"
#include "sim_test_support.hpp"

using namespace lynx;
using namespace lynx::test;

namespace {
constexpr double kRel = 1e-9;

nlohmann::json base_config(const std::string& format, double nic_gbps, const std::string& mode) {
  // The closed forms are the roofline's (models/cost/roofline/cost_model.hpp), so the roofline is chosen explicitly.
  return {{"model", "llama-3.1-8b"},
          {"compute_model", "roofline"},
          {"format", format},
          {"cluster", {{"network", {{"nic_gbps", nic_gbps}, {"latency_us", 5}}}}},
          {"transfer", {{"chunk_layers", 4}, {"mode", mode}, {"connector", "ideal"}}},
          {"lynx", {{"acceptance_rate", 0.9}}}};
}

double bytes_per_s(double gbps) { return gbps * 1e9 / 8; }

// Prefill time of one whole prompt on an idle instance, quantization of every layer group included.
double prefill_with_quantize_s(const SimulationInputs& in, int64_t tokens) {
  ComputeCostModel cost(in.model, in.prefill_gpu, 1);
  const double elements = layers_kv_elements(in.model, tokens, 0, in.model.n_layers);
  return cost.prefill_seconds(tokens, 0) + in.run_format.prefill_kernels.encode_seconds(elements);
}

// First decode iteration of a request joining an idle decode instance.
double first_step_s(const SimulationInputs& in, int64_t tokens, bool anchor_only) {
  ComputeCostModel cost(in.model, in.decode_gpu, 1);
  KvStreamBytes per = model_kv_bytes(in.model, in.run_format.format, 1 << 16);
  const double per_token = static_cast<double>(anchor_only ? per.anchor : per.total()) / (1 << 16);
  const double elements = layers_kv_elements(in.model, tokens, 0, in.model.n_layers);
  return in.run_format.decode_kernels.decode_seconds(elements, anchor_only) +
         cost.decode_seconds(1, static_cast<double>(tokens), per_token * static_cast<double>(tokens));
}
}  // namespace

TEST_CASE("one request on an idle network: TTFT = prefill + quantize + bytes/bandwidth + latency + dequantize + step") {
  const int64_t T = 8192;
  for (const char* format : {"bf16", "fp8-e4m3", "int8-g64", "int4-g64", "kivi2-g32", "lynx-a4r4-g64",
                             "lynx-a4r4-g64-rq"}) {
    CAPTURE(format);
    nlohmann::json config = base_config(format, 25, "after-prefill");
    std::vector<Request> requests{make_request(0, 0.5, T, 8)};
    SimulationInputs in = make_inputs(config, requests);
    SimRun run = run_simulation(config, requests);
    const RequestRecord& r = run.records.at(0);
    const KvStreamBytes bytes = model_kv_bytes(in.model, in.run_format.format, T);
    const double C = bytes_per_s(25), latency = 5e-6, w = 1000;
    const double prefill = prefill_with_quantize_s(in, T);
    CHECK(r.prefill_end_s - r.arrival_s == doctest::Approx(prefill).epsilon(kRel));
    const bool lynx = in.run_format.format.is_lynx();
    // Lynx: 8 anchor flows of weight w and 8 residual flows of weight 1 start together (weighted max-min).
    const double anchor_transfer = lynx ? static_cast<double>(bytes.anchor) * (w + 1) / (w * C)
                                        : static_cast<double>(bytes.anchor) / C;
    CHECK(r.anchor_arrival_s - r.prefill_end_s == doctest::Approx(anchor_transfer + latency).epsilon(kRel));
    const double ttft_spec = prefill + anchor_transfer + latency + first_step_s(in, T, lynx);
    CHECK(r.ttft_spec_s() == doctest::Approx(ttft_spec).epsilon(kRel));
    if (lynx) {
      // Work-conserving link: the residual is in when all bytes could have crossed.
      CHECK(r.residual_arrival_s - r.prefill_end_s ==
            doctest::Approx(static_cast<double>(bytes.total()) / C + latency).epsilon(kRel));
      CHECK(r.ttft_s() > r.residual_arrival_s - r.arrival_s);
      CHECK(r.verify_s == r.first_token_s);
    } else {
      CHECK(r.ttft_s() == r.ttft_spec_s());
      CHECK(std::isnan(r.residual_arrival_s));
    }
    CHECK(run.bytes_sent == bytes.total());
    CHECK(run.bytes_delivered == bytes.total());
  }
}

TEST_CASE("one MoE and one MLA request on an idle cluster: TTFT from the roofline, the latent's bytes on the wire") {
  // tests/models/hf_configs: tiny-moe (Mixtral-shaped: 4 layers, 8 experts, top-2, K and V of 2 x 32) and tiny-mla
  // (DeepSeek-V3-shaped: 4 layers, the first dense, 16 experts top-4 + 1 shared, a 64 + 16 latent).
  const int64_t T = 2048;
  for (const char* model : {"tiny-moe", "tiny-mla"}) {
    CAPTURE(model);
    nlohmann::json config = base_config("bf16", 25, "after-prefill");
    config["model"] = model;
    config["models_catalog"] = project_dir() + "/tests/models/hf_configs/catalog.json";
    config["transfer"]["chunk_layers"] = 2;
    std::vector<Request> requests{make_request(0, 0.5, T, 8)};
    SimulationInputs in = make_inputs(config, requests);
    SimRun run = run_simulation(config, requests);
    const RequestRecord& r = run.records.at(0);
    const bool mla = std::string(model) == "tiny-mla";
    // bf16 bytes per token: K and V of 2 heads x 32 in 4 layers, or the 64 + 16 latent in 4 layers.
    const uint64_t per_token = mla ? 4 * (64 + 16) * 2 : 4 * 2 * 2 * 32 * 2;
    CHECK(model_kv_bytes(in.model, in.run_format.format, T).total() == per_token * T);
    const double prefill = prefill_with_quantize_s(in, T);
    CHECK(r.prefill_end_s - r.arrival_s == doctest::Approx(prefill).epsilon(kRel));
    const double transfer = static_cast<double>(per_token * T) / bytes_per_s(25);
    CHECK(r.anchor_arrival_s - r.prefill_end_s == doctest::Approx(transfer + 5e-6).epsilon(kRel));
    CHECK(r.ttft_s() == doctest::Approx(prefill + transfer + 5e-6 + first_step_s(in, T, false)).epsilon(kRel));
    CHECK(run.bytes_delivered == per_token * T);
  }
}

TEST_CASE("layer-wise chunks: the last chunk lands at max(n*g + x, g + n*x) + latency") {
  // n chunks, each computed (and quantized) in g seconds and crossing the link alone in x seconds.
  const int64_t T = 16384;
  for (double gbps : {400.0, 10.0}) {  // link faster than the prefill per chunk, then slower
    CAPTURE(gbps);
    nlohmann::json config = base_config("int8-g64", gbps, "layer-wise");
    std::vector<Request> requests{make_request(0, 0.0, T, 2)};
    SimulationInputs in = make_inputs(config, requests);
    SimRun run = run_simulation(config, requests);
    const RequestRecord& r = run.records.at(0);
    const double n = 8;
    const double g = prefill_with_quantize_s(in, T) / n;
    const double x = static_cast<double>(layers_kv_bytes(in.model, in.run_format.format, T, 0, 4).total()) / bytes_per_s(gbps);
    CHECK(r.anchor_arrival_s == doctest::Approx(std::max(n * g + x, g + n * x) + 5e-6).epsilon(kRel));
    if (gbps > 100) CHECK(n * g + x > g + n * x);
    else CHECK(g + n * x > n * g + x);
  }
}

TEST_CASE("N simultaneous transfers into one decode NIC each take N times as long") {
  const int64_t T = 4096;
  for (int n : {2, 4}) {
    nlohmann::json config = base_config("bf16", 50, "after-prefill");
    config["cluster"]["prefill"] = {{"instances", n}};
    std::vector<Request> requests;
    for (int i = 0; i < n; ++i) requests.push_back(make_request(i, 0.0, T, 2));
    SimulationInputs in = make_inputs(config, requests);
    SimRun run = run_simulation(config, requests);
    const double bytes = static_cast<double>(model_kv_bytes(in.model, in.run_format.format, T).total());
    for (const RequestRecord& r : run.records) {
      CHECK(r.prefill_instance == r.id);  // least-loaded spreads them
      CHECK(r.anchor_arrival_s - r.prefill_end_s == doctest::Approx(n * bytes / bytes_per_s(50) + 5e-6).epsilon(kRel));
    }
  }
}

TEST_CASE("a later request's anchors overtake an earlier request's residual") {
  // Request 0's residual is still streaming when request 1's chunks leave; with weight 1000 request 1's anchors
  // take (w + 2) / w of their time alone (its own and request 0's residual flows share the rest).
  nlohmann::json config = base_config("lynx-a4r4-g64", 10, "after-prefill");
  config["cluster"]["prefill"] = {{"instances", 2}};
  std::vector<Request> requests{make_request(0, 0.0, 32768, 4), make_request(1, 2.6, 2048, 4)};
  SimulationInputs in = make_inputs(config, requests);
  SimRun run = run_simulation(config, requests);
  const RequestRecord& r0 = run.records.at(0);
  const RequestRecord& r1 = run.records.at(1);
  REQUIRE(r1.prefill_end_s > r0.anchor_arrival_s);  // request 0's anchors are in ...
  REQUIRE(r1.prefill_end_s < r0.residual_arrival_s);  // ... its residual is not
  const double anchor_alone = static_cast<double>(model_kv_bytes(in.model, in.run_format.format, 2048).anchor) / bytes_per_s(10);
  const double anchor_time = r1.anchor_arrival_s - r1.prefill_end_s - 5e-6;
  CHECK(anchor_time >= anchor_alone);
  CHECK(anchor_time <= anchor_alone * 1002.0 / 1000.0 * (1 + kRel));
  CHECK(r1.ttft_spec_s() < r0.ttft_spec_s());
}

TEST_CASE("lynx ttft_spec equals int4's TTFT when the anchor carries the same bytes, ttft is never below it") {
  const int64_t T = 32768;
  std::vector<Request> requests{make_request(0, 0.0, T, 16)};
  nlohmann::json int4 = base_config("int4-g64", 25, "after-prefill");
  nlohmann::json lynx = base_config("lynx-a4r4-g64-rq", 25, "after-prefill");
  SimulationInputs int4_in = make_inputs(int4, requests), lynx_in = make_inputs(lynx, requests);
  REQUIRE(model_kv_bytes(lynx_in.model, lynx_in.run_format.format, T).anchor ==
          model_kv_bytes(int4_in.model, int4_in.run_format.format, T).total());
  SimRun a = run_simulation(int4, requests), b = run_simulation(lynx, requests);
  // The only differences: Lynx's encoder also writes the residual, and its anchor shares 1/1001 of the link.
  const double encode_difference = prefill_with_quantize_s(lynx_in, T) - prefill_with_quantize_s(int4_in, T);
  const double share_difference =
      static_cast<double>(model_kv_bytes(int4_in.model, int4_in.run_format.format, T).total()) / bytes_per_s(25) / 1000;
  CHECK(b.records[0].ttft_spec_s() ==
        doctest::Approx(a.records[0].ttft_s() + encode_difference + share_difference).epsilon(kRel));
  CHECK(b.records[0].ttft_s() >= b.records[0].ttft_spec_s());
  CHECK(b.records[0].ttft_s() >= b.records[0].residual_arrival_s - b.records[0].arrival_s);
}

TEST_CASE("acceptance extremes: rate 1 keeps every draft, rate 0 keeps none, output length is always met") {
  std::vector<Request> requests{make_request(0, 0.0, 32768, 200), make_request(1, 0.1, 16384, 3)};
  for (double rate : {1.0, 0.0}) {
    nlohmann::json config = base_config("lynx-a4r4-g64", 10, "layer-wise");
    config["lynx"]["acceptance_rate"] = rate;
    SimRun run = run_simulation(config, requests);
    for (const RequestRecord& r : run.records) {
      CAPTURE(rate);
      CHECK(r.spec_tokens > 0);
      CHECK(r.spec_tokens <= std::max<int64_t>(1, r.output_tokens - 1));
      if (rate == 1.0) {
        CHECK(r.accepted_tokens == r.spec_tokens);
        CHECK(r.rolled_back_tokens == 0);
      } else {
        CHECK(r.accepted_tokens == 0);
        CHECK(r.rolled_back_tokens == r.spec_tokens);
      }
      CHECK(r.verify_s >= r.residual_arrival_s);
    }
  }
}

TEST_CASE("chunked prefill: a prompt in budget-sized pieces, each attending to the pieces before it") {
  const int64_t T = 16384, budget = 4096;
  nlohmann::json config = base_config("int8-g64", 100, "after-prefill");
  config["cluster"]["prefill"] = {{"chunked_prefill_tokens", budget}};
  std::vector<Request> requests{make_request(0, 0.0, T, 2)};
  SimulationInputs in = make_inputs(config, requests);
  SimRun run = run_simulation(config, requests);
  ComputeCostModel cost(in.model, in.prefill_gpu, 1);
  double expected = 0;
  for (int64_t done = 0; done < T; done += budget) expected += cost.prefill_seconds(budget, done);
  const double elements = 2.0 * static_cast<double>(T * in.model.n_layers * in.model.n_kv_heads * in.model.head_dim);
  expected += in.run_format.prefill_kernels.encode_seconds(elements);
  CHECK(run.records[0].prefill_end_s == doctest::Approx(expected).epsilon(kRel));
  CHECK(expected > cost.prefill_seconds(T, 0));  // four passes over the weights instead of one
}

TEST_CASE("NICs per GPU: the KV crosses every NIC pair of the two instances, each GPU's share on its own NIC") {
  // Transfer after prefill, bf16 (one stream): anchor arrival - prefill end = the slowest NIC pair's bytes over one
  // NIC's bandwidth + latency. The pairs, by nic_flow_shares: tp 2 -> 2: two pairs of 1/2; tp 1 -> 4: four flows of
  // 1/4 that share the source's one NIC; tp 2 with one NIC per instance (the older model): all bytes on one NIC.
  const int64_t T = 4096;
  struct Case {
    int prefill_tp, decode_tp, nics_per_instance;
    double busiest_nic_fraction;
  };
  for (const Case& c : {Case{2, 2, 0, 0.5}, Case{4, 4, 0, 0.25}, Case{1, 4, 0, 1.0}, Case{2, 2, 1, 1.0},
                        Case{2, 4, 0, 0.5}}) {
    CAPTURE(c.prefill_tp);
    CAPTURE(c.decode_tp);
    CAPTURE(c.nics_per_instance);
    nlohmann::json config = base_config("bf16", 25, "after-prefill");
    config["cluster"]["prefill"] = {{"tp", c.prefill_tp}};
    config["cluster"]["decode"] = {{"tp", c.decode_tp}};
    config["cluster"]["network"]["nics_per_instance"] = c.nics_per_instance;
    std::vector<Request> requests{make_request(0, 0.0, T, 2)};
    SimulationInputs in = make_inputs(config, requests);
    SimRun run = run_simulation(config, requests);
    const RequestRecord& r = run.records.at(0);
    const double bytes = static_cast<double>(model_kv_bytes(in.model, in.run_format.format, T).total());
    CHECK(r.anchor_arrival_s - r.prefill_end_s ==
          doctest::Approx(bytes * c.busiest_nic_fraction / bytes_per_s(25) + 5e-6).epsilon(1e-7));
    CHECK(run.bytes_delivered == static_cast<uint64_t>(bytes));
  }
}

TEST_CASE("prefill memory back-pressure: a prompt whose KV does not fit waits until the earlier KV has left") {
  // Llama-3.1-8B on one H200 (141 GB, 16.06 GB of bf16 weights); 64K-token prompts hold 8.59 GB of bf16 KV each.
  // With 79.5% reserved the prefill GPU has room for one prompt's KV, not two: the second prompt starts when the
  // first one's last chunk has been sent (its arrival minus the latency), and records that wait.
  const int64_t T = 65536;
  for (double reserve : {0.1, 0.795}) {
    CAPTURE(reserve);
    nlohmann::json config = base_config("bf16", 10, "after-prefill");
    config["cluster"]["prefill"] = {{"memory_reserve_fraction", reserve}};
    std::vector<Request> requests{make_request(0, 0.0, T, 2), make_request(1, 0.0, T, 2)};
    SimulationInputs in = make_inputs(config, requests);
    SimRun run = run_simulation(config, requests);
    const RequestRecord &r0 = run.records.at(0), &r1 = run.records.at(1);
    if (reserve < 0.5) {
      CHECK(r1.prefill_start_s == doctest::Approx(r0.prefill_end_s).epsilon(kRel));
      CHECK(r1.prefill_memory_wait_s == 0);
    } else {
      const double sent = r0.prefill_end_s + static_cast<double>(model_kv_bytes(in.model, in.run_format.format, T).total()) /
                                                 bytes_per_s(10);
      CHECK(r1.prefill_start_s == doctest::Approx(sent).epsilon(kRel));
      CHECK(r1.prefill_start_s == doctest::Approx(r0.anchor_arrival_s - 5e-6).epsilon(kRel));
      CHECK(r1.prefill_memory_wait_s == doctest::Approx(sent - r0.prefill_end_s).epsilon(kRel));
    }
  }
}

TEST_CASE("prefix caching: a prompt whose leading blocks are cached prefills only the rest, the KV sent is whole") {
  // Two 2048-token prompts on one prefill instance; the second shares the first two 512-token blocks. With the
  // cache, its prefill computes 1024 new tokens attending over 1024 cached ones, and its quantization still covers
  // all 2048 tokens (the decode side receives the whole KV).
  const int64_t T = 2048;
  for (bool cache : {false, true}) {
    CAPTURE(cache);
    nlohmann::json config = base_config("int8-g64", 100, "after-prefill");
    config["cluster"]["prefill"] = {{"prefix_cache", cache}};
    Request a = make_request(0, 0.0, T, 2), b = make_request(1, 10.0, T, 2);
    a.prefix_block_hashes = {11, 12, 13, 14};
    b.prefix_block_hashes = {11, 12, 23, 24};
    std::vector<Request> requests{a, b};
    SimulationInputs in = make_inputs(config, requests);
    SimRun run = run_simulation(config, requests);
    const RequestRecord& r = run.records.at(1);
    ComputeCostModel cost(in.model, in.prefill_gpu, 1);
    const double elements = 2.0 * static_cast<double>(T * in.model.n_layers * in.model.n_kv_heads * in.model.head_dim);
    const double expected = (cache ? cost.prefill_seconds(T - 1024, 1024) : cost.prefill_seconds(T, 0)) +
                            in.run_format.prefill_kernels.encode_seconds(elements);
    CHECK(r.cached_tokens == (cache ? 1024 : 0));
    CHECK(r.prefill_end_s - r.prefill_start_s == doctest::Approx(expected).epsilon(kRel));
    CHECK(run.summary["metrics"]["prefix_cache_hit_ratio"].get<double>() == doctest::Approx(cache ? 0.25 : 0.0));
    CHECK(run.bytes_delivered == 2 * model_kv_bytes(in.model, in.run_format.format, T).total());
  }
}

TEST_CASE("prefix blocks are shared, not counted twice: a prompt sharing a pinned prefix fits where a copy would not") {
  // As in the back-pressure case: one H200 with room for one 64K-token prompt's bf16 KV (8.59 GB of 12.8 GB), not
  // two. When A's prefill ends its 128 full blocks become cache blocks pinned by A (moved out of its reservation,
  // not copied). B shares A's first 120 blocks: it needs room only for its 4,096 other tokens, so it starts as soon
  // as A's prefill ends instead of waiting for A's KV to leave, and prefills 4,096 tokens over 61,440 cached ones.
  // A B with its own blocks still waits for A's KV to be sent.
  const int64_t T = 65536;
  for (bool shared : {true, false}) {
    CAPTURE(shared);
    nlohmann::json config = base_config("bf16", 10, "after-prefill");
    config["cluster"]["prefill"] = {{"memory_reserve_fraction", 0.795}, {"prefix_cache", true}};
    Request a = make_request(0, 0.0, T, 2), b = make_request(1, 0.0, T, 2);
    for (uint64_t i = 0; i < 128; ++i) {
      a.prefix_block_hashes.push_back(i);
      b.prefix_block_hashes.push_back(shared && i < 120 ? i : 1000 + i);
    }
    std::vector<Request> requests{a, b};
    SimulationInputs in = make_inputs(config, requests);
    SimRun run = run_simulation(config, requests);
    const RequestRecord &r0 = run.records.at(0), &r1 = run.records.at(1);
    const double kv_bytes = static_cast<double>(model_kv_bytes(in.model, in.run_format.format, T).total());
    if (shared) {
      ComputeCostModel cost(in.model, in.prefill_gpu, 1);
      const double elements = 2.0 * static_cast<double>(T * in.model.n_layers * in.model.n_kv_heads * in.model.head_dim);
      CHECK(r1.prefill_start_s == doctest::Approx(r0.prefill_end_s).epsilon(kRel));
      CHECK(r1.cached_tokens == 61440);
      CHECK(r1.prefill_memory_wait_s == 0);
      CHECK(r1.prefill_end_s - r1.prefill_start_s ==
            doctest::Approx(cost.prefill_seconds(4096, 61440) + in.run_format.prefill_kernels.encode_seconds(elements))
                .epsilon(kRel));
    } else {
      CHECK(r1.cached_tokens == 0);
      CHECK(r1.prefill_start_s == doctest::Approx(r0.prefill_end_s + kv_bytes / bytes_per_s(10)).epsilon(kRel));
      CHECK(r1.prefill_memory_wait_s > 0);
    }
    CHECK(run.bytes_delivered == static_cast<uint64_t>(2 * kv_bytes));  // the decode side gets both KV caches whole
  }
}

TEST_CASE("the prefix-aware router sends a request to the instance that holds its prefix") {
  nlohmann::json config = base_config("int8-g64", 100, "after-prefill");
  config["cluster"]["prefill"] = {{"prefix_cache", true}, {"instances", 2}};
  config["cluster"]["router"] = "prefix-aware";
  // Request 0 goes to instance 0 (a tie); request 1 (no shared prefix) to the less loaded instance 1; request 2
  // shares request 1's prefix and follows it although instance 0 is as idle.
  Request r0 = make_request(0, 0.0, 2048, 2), r1 = make_request(1, 0.0, 1024, 2), r2 = make_request(2, 10.0, 2048, 2);
  r0.prefix_block_hashes = {1, 2, 3, 4};
  r1.prefix_block_hashes = {7, 8};
  r2.prefix_block_hashes = {7, 8, 9, 10};
  SimRun run = run_simulation(config, {r0, r1, r2});
  CHECK(run.records.at(0).prefill_instance == 0);
  CHECK(run.records.at(1).prefill_instance == 1);
  CHECK(run.records.at(2).prefill_instance == 1);
  CHECK(run.records.at(2).cached_tokens == 1024);
}

TEST_CASE("three first-token times: the first draft kept gives ttft_correct = ttft_spec, rolled back gives ttft") {
  // One Lynx request alone, drafting while its residual crosses a 10 Gbps link. Acceptance rate 1: every draft is
  // kept, so the first correct token is the first draft; rate 0: the first verification rolls every draft back, so
  // the first correct token is the verifier's. Formats without speculation have the three times equal.
  const int64_t T = 8192;
  for (double rate : {1.0, 0.0}) {
    CAPTURE(rate);
    nlohmann::json config = base_config("lynx-a4r4-g64", 10, "after-prefill");
    config["lynx"]["acceptance_rate"] = rate;
    SimRun run = run_simulation(config, {make_request(0, 0.0, T, 64)});
    const RequestRecord& r = run.records.at(0);
    REQUIRE(r.spec_tokens > 0);
    CHECK(r.ttft_spec_s() < r.ttft_s());
    CHECK(r.first_token_s == r.verify_s);
    if (rate == 1.0) {
      CHECK(r.first_draft_kept == 1);
      CHECK(r.ttft_correct_s() == r.ttft_spec_s());
      CHECK(run.summary["metrics"]["first_draft_kept_rate"].get<double>() == 1.0);
    } else {
      CHECK(r.first_draft_kept == 0);
      CHECK(r.ttft_correct_s() == r.ttft_s());
      CHECK(run.summary["metrics"]["first_draft_kept_rate"].get<double>() == 0.0);
      CHECK(run.summary["metrics"]["rollback_rate"].get<double>() == 1.0);
    }
  }
  nlohmann::json config = base_config("int8-g64", 10, "after-prefill");
  SimRun run = run_simulation(config, {make_request(0, 0.0, T, 64)});
  const RequestRecord& r = run.records.at(0);
  CHECK(r.first_draft_kept == -1);
  CHECK(r.ttft_spec_s() == r.ttft_s());
  CHECK(r.ttft_correct_s() == r.ttft_s());
  CHECK(run.summary["metrics"]["first_draft_kept_rate"].is_null());
}
