// The transfer engine alone (sim/transfer/transfer_engine.hpp), on a real SimGrid platform of one prefill and one decode
// instance, with the instances' side played by the test: every closed form of an idle link.
//   one stream: the last byte arrives at bytes / B + latency after the memory grant (chunks leave back to back);
//   tp 2 with a NIC per GPU: two NIC pairs carry half each, bytes / 2B + latency;
//   Lynx, weights 1000 : 1: the anchor at A x 1001 / (1000 B) + latency, the residual at (A + R) / B + latency;
//   Lynx with aging after W: from W on both streams share equally;
// and with a connector's costs (transfer_cost.hpp), on every preset and on a custom one with every term set:
//   setup + bytes / min(efficiency x B, the flow's bound) + latency + notify, also per NIC pair at tp 2, layer-wise
//   (the last chunk's own messages and bytes after it is ready) and for Lynx (half-width streams, shared 1000:1);
//   the same bytes in 64 KiB and 2 MiB messages over EFA differ as Mooncake's sweep says;
//   replicated heads (a 4-KV-head model at tp 8) put twice the model's bytes on the wire with send_all;
// the prefill side is told once, when the last byte of the last stream has left (bytes / B, no latency).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "common/error.hpp"
#include "models/arch/kv_replication.hpp"
#include "models/arch/kv_size.hpp"
#include "sim/network/cross_traffic.hpp"
#include "sim/engine/isolated_run.hpp"
#include "sim/cluster/simulation.hpp"
#include "sim/transfer/transfer_engine.hpp"
#include "sim_test_support.hpp"

// Its own namespace: in a unity build (CMAKE_UNITY_BUILD, the Makefile's sanitized and fuzz builds) another test
// file's helpers of the same names would share its scope.
namespace test_transfer_engine {

using namespace lynx;
using namespace lynx::test;

namespace {
constexpr double kRel = 1e-9;
bool near(double a, double b) { return std::fabs(a - b) <= kRel * std::fabs(b); }

struct Times {
  double grant_s = NAN, sent_s = NAN, usable_s = NAN, changed_s = NAN, anchor_s = NAN, residual_s = NAN;
  int sent_calls = 0;
  double bytes_sent = 0;
};

// The instances' side: memory is granted `grant_delay_s` after it is asked for.
struct TestEnds : TransferEnds {
  EventLoop* loop = nullptr;
  TransferEngine* engine = nullptr;
  double grant_delay_s = 0;
  Times times;
  int prefill_node(const RequestState&) const override { return 0; }
  int decode_node(const RequestState&) const override { return 1; }
  void request_decode_memory(RequestState& r) override {
    r.advance(RequestPhase::awaiting_memory);
    loop->at(loop->now() + grant_delay_s, [this, &r] {
      times.grant_s = loop->now();
      r.advance(RequestPhase::transferring);
      engine->memory_granted(r);
    });
  }
  void kv_sent(RequestState&) override {
    times.sent_s = loop->now();
    ++times.sent_calls;
  }
  void kv_usable(RequestState&) override { times.usable_s = loop->now(); }
  void kv_changed(RequestState&) override { times.changed_s = loop->now(); }
};

// The run's format's protocol and a context on `loop` for the engine under test (its chunks from the configuration).
// Not movable: the context refers to the protocol.
struct EngineContext {
  EngineContext(const SimulationInputs& in, EventLoop& loop)
      : protocol(transfer_protocol_for(in, in.run_format)) {
    context.loop = &loop;
    context.inputs = &in;
    context.protocol = protocol.get();
    context.chunks = static_cast<int>((in.model.n_layers + in.config.transfer.chunk_layers - 1) /
                                      in.config.transfer.chunk_layers);
  }
  EngineContext(const EngineContext&) = delete;
  EngineContext& operator=(const EngineContext&) = delete;
  std::unique_ptr<TransferProtocol> protocol;
  SimContext context;
};

// One request of `tokens` prompt tokens whose chunks are ready from 0.1 s on, chunk c at 0.1 + c x chunk_gap_s.
Times transfer_once(const nlohmann::json& config, int64_t tokens, double grant_delay_s, double chunk_gap_s = 0) {
  const SimulationInputs in = make_inputs(config, {});
  const std::string text = run_isolated([&] {
    const std::vector<PlatformNode> nodes = cluster_platform_nodes(in.config);
    const int max_nics = std::max(nodes.front().nics, nodes.back().nics);
    EventLoop loop(engine_network(in.config.network, in.config.transfer.cost, max_nics), {nodes.front(), nodes.back()});
    EngineContext engine_context(in, loop);
    const SimContext& context = engine_context.context;
    TestEnds ends;
    ends.loop = &loop;
    ends.grant_delay_s = grant_delay_s;
    TransferEngine engine(context, ends, nodes.front().nics, nodes.back().nics);
    ends.engine = &engine;
    RequestState r;
    r.request = make_request(0, 0, tokens, 4);
    r.record.prefill_instance = r.record.decode_instance = 0;
    loop.at(0.1, [&] { r.advance(RequestPhase::prefilling); });
    for (int c = 0; c < context.chunks; ++c) loop.at(0.1 + c * chunk_gap_s, [&, c] { engine.chunk_ready(r, c); });
    const CrossTraffic cross_traffic(loop, in.config.network, in.config.seed);  // none unless configured
    loop.run();
    ends.times.anchor_s = r.record.anchor_arrival_s;
    ends.times.residual_s = r.record.residual_arrival_s;
    const Times& t = ends.times;
    return nlohmann::json{t.grant_s,    t.sent_s,     t.usable_s,   t.changed_s,
                          t.anchor_s,   t.residual_s, t.sent_calls, static_cast<double>(loop.bytes_sent())}
        .dump();
  });
  const nlohmann::json j = nlohmann::json::parse(text);
  auto number = [](const nlohmann::json& v) { return v.is_null() ? NAN : v.get<double>(); };
  Times t;
  t.grant_s = number(j[0]);
  t.sent_s = number(j[1]);
  t.usable_s = number(j[2]);
  t.changed_s = number(j[3]);
  t.anchor_s = number(j[4]);
  t.residual_s = number(j[5]);
  t.sent_calls = j[6];
  t.bytes_sent = j[7];
  return t;
}

nlohmann::json config_of(const std::string& format, int tp, double nic_gbps) {
  return {{"model", "llama-3.1-8b"},
          {"compute_model", "roofline"},
          {"format", format},
          {"cluster",
           {{"prefill", {{"tp", tp}}}, {"decode", {{"tp", tp}}}, {"network", {{"nic_gbps", nic_gbps}, {"latency_us", 7}}}}},
          {"transfer", {{"chunk_layers", 4}, {"connector", "ideal"}}},
          {"lynx", {{"acceptance_rate", 0.9}}}};
}

KvStreamBytes total_bytes(const nlohmann::json& config, int64_t tokens) {
  const SimulationInputs in = make_inputs(config, {});
  return model_kv_bytes(in.model, in.run_format.format, tokens);
}
}  // namespace

TEST_CASE("one stream on an idle link: bytes / B + latency after the grant, the prefill side told at bytes / B") {
  for (const char* format : {"bf16", "int8-g64", "kivi2-g32"}) {
    CAPTURE(format);
    const nlohmann::json config = config_of(format, 1, 25);
    const int64_t tokens = 6000;
    const double B = 25e9 / 8, latency = 7e-6, grant = 0.1 + 0.02;
    const Times t = transfer_once(config, tokens, 0.02);
    const double bytes = static_cast<double>(total_bytes(config, tokens).total());
    CHECK(near(t.grant_s, grant));
    CHECK(near(t.sent_s, grant + bytes / B));
    CHECK(t.sent_calls == 1);
    CHECK(near(t.anchor_s, grant + bytes / B + latency));
    CHECK(near(t.usable_s, t.anchor_s));
    CHECK(std::isnan(t.residual_s));
  }
}

TEST_CASE("tp 2 with a NIC per GPU: each GPU sends its heads' half on its own NIC pair") {
  const nlohmann::json config = config_of("bf16", 2, 10);
  const Times t = transfer_once(config, 4096, 0);
  const double bytes = static_cast<double>(total_bytes(config, 4096).total());
  CHECK(near(t.anchor_s, 0.1 + bytes / (2 * 10e9 / 8) + 7e-6));
}

TEST_CASE("Lynx: the anchor takes 1000/1001 of the link until it is in, the residual the rest") {
  const nlohmann::json config = config_of("lynx-a4r4-g64", 1, 40);
  const int64_t tokens = 5000;
  const KvStreamBytes b = total_bytes(config, tokens);
  const double B = 40e9 / 8, latency = 7e-6;
  const Times t = transfer_once(config, tokens, 0);
  const double anchor = static_cast<double>(b.anchor), all = static_cast<double>(b.total());
  CHECK(near(t.anchor_s, 0.1 + anchor * 1001 / (1000 * B) + latency));
  CHECK(near(t.residual_s, 0.1 + all / B + latency));
  CHECK(near(t.usable_s, t.anchor_s));    // drafting may start
  CHECK(near(t.changed_s, t.residual_s)); // the decode plan changes: verification
  CHECK(near(t.sent_s, 0.1 + all / B));
}

TEST_CASE("Lynx with aging: the residual takes the anchor's weight W after the transfer started") {
  nlohmann::json config = config_of("lynx-a4r4-g64", 1, 40);
  const double wait_s = 0.01;
  config["transfer"]["residual_policy"] = "aging";
  config["transfer"]["residual_max_wait_ms"] = wait_s * 1e3;
  const int64_t tokens = 5000;
  const KvStreamBytes b = total_bytes(config, tokens);
  const double B = 40e9 / 8, latency = 7e-6;
  const Times t = transfer_once(config, tokens, 0);
  const double anchor = static_cast<double>(b.anchor), all = static_cast<double>(b.total());
  const double anchor_by_wait = wait_s * B * 1000 / 1001;
  REQUIRE(anchor_by_wait < anchor);  // the anchor is still sending when the weights become equal
  CAPTURE(t.anchor_s);
  CAPTURE(t.residual_s);
  CHECK(near(t.anchor_s, 0.1 + wait_s + 2 * (anchor - anchor_by_wait) / B + latency));
  CHECK(near(t.residual_s, 0.1 + all / B + latency));
}

namespace {
// Every connector preset on every transport it has, plus a custom cost with every term set (notify, serial posts, a
// window, coalescing under a cap, slicing).
std::vector<nlohmann::json> engine_variants() {
  std::vector<nlohmann::json> v = {{{"connector", "ideal"}}};
  for (const char* connector : {"vllm-mooncake", "sglang-mooncake", "vllm-nixl", "lmcache"})
    for (const char* transport : {"rdma", "efa", "tcpxo"})
      if (!transfer_preset_missing(*kTransferConnectorNames.parse(connector), *kTransferTransportNames.parse(transport)))
        v.push_back({{"connector", connector}, {"transport", transport}});
  v.push_back({{"connector", "vllm-nixl"}, {"notify_us", 40}, {"setup_us", 900}, {"efficiency", 0.8},
               {"per_message_us", 2}, {"inflight", 3}, {"op_latency_us", 20}, {"coalesce_blocks", "merged"},
               {"max_message_bytes", 100000}, {"slice_bytes", 30000}, {"block_tokens", 32}});
  return v;
}

nlohmann::json with_engine(nlohmann::json config, const nlohmann::json& engine) {
  for (const auto& [key, value] : engine.items()) config["transfer"][key] = value;
  return config;
}

// The seconds a stream of `tokens` tokens takes on one of `flows` equal NIC pairs of `gpu_pairs` GPU pairs each, on
// an idle NIC of line rate B (bytes/s), chunk after chunk: each chunk's flow at min(efficiency x B, its bound).
double stream_wire_seconds(const SimulationInputs& in, int64_t tokens, int gpu_pairs, int flows, bool anchor_stream,
                           bool lynx, double B) {
  const TransferCost& cost = in.config.transfer.cost;
  double s = 0;
  const int64_t per = in.config.transfer.chunk_layers;
  for (int64_t first = 0; first < in.model.n_layers; first += per) {
    const int64_t layers = std::min(per, in.model.n_layers - first);
    const KvStreamBytes b = layers_kv_bytes(in.model, in.run_format.format, tokens, first, layers);
    const uint64_t stream = (lynx ? (anchor_stream ? b.anchor : b.residual) : b.total()) / static_cast<uint64_t>(flows);
    const int64_t n = flow_messages(cost, tokens, layers, 2, gpu_pairs, stream);
    const double rate =
        std::min(cost.efficiency * B, flow_rate_bound(cost, n, gpu_pairs, static_cast<double>(stream), B));
    s += static_cast<double>(stream) / rate;
  }
  return s;
}
}  // namespace

TEST_CASE("message counts by hand: blocks per layer, K and V and GPU pair, merged up to a cap, cut into slices") {
  TransferCost c;
  c.block_tokens = 16;
  CHECK(flow_messages(c, 6000, 32, 2, 1, 1) == 375 * 32 * 2);  // ceil(6000 / 16) = 375 blocks
  CHECK(flow_messages(c, 16, 4, 2, 3, 1) == 4 * 2 * 3);
  CHECK(flow_messages(c, 6000, 32, 2, 1, 0) == 0);
  const uint64_t one_layer = uint64_t{375} * 4096 * 2;  // 375 blocks of 4096 bytes, K and V
  c.coalesce = true;  // one run per layer and tensor
  CHECK(flow_messages(c, 6000, 32, 2, 1, one_layer * 32) == 32 * 2);
  c.max_message_bytes = 4 * 4096;  // 4 blocks per message: 375 blocks in 94 messages per run
  CHECK(flow_messages(c, 6000, 1, 2, 1, one_layer) == 94 * 2);
  c.max_message_bytes = 1000;  // smaller than a block: still one block per message
  CHECK(flow_messages(c, 6000, 1, 2, 1, one_layer) == 375 * 2);
  c.max_message_bytes = 0;
  c.slice_bytes = 65536;  // a run of 375 x 4096 bytes in ceil(1,536,000 / 65,536) = 24 ops
  CHECK(flow_messages(c, 6000, 1, 2, 1, one_layer) == 24 * 2);
  c.max_message_bytes = 10 * 4096;  // 37 messages of 40,960 bytes (one op each) and one of 5 blocks
  CHECK(flow_messages(c, 6000, 1, 2, 1, one_layer) == (37 + 1) * 2);
  c.slice_bytes = 0;
  c.max_message_bytes = 0;
  c.coalesce = false;
  c.kv_together = true;  // K and V of a block in one message
  CHECK(flow_messages(c, 6000, 32, 2, 1, one_layer * 32) == 375 * 32);
  c.layers_together = true;  // and every layer of the chunk: one message per block
  CHECK(flow_messages(c, 6000, 32, 2, 3, one_layer * 32 * 3) == 375 * 3);
}

TEST_CASE("the rate bound by hand: serial posts, a window of ops in flight, both, none") {
  TransferCost c;
  c.efficiency = 0.5;
  const double B = 10e9;  // bytes/s: 5e9 with the efficiency
  CHECK(std::isinf(flow_rate_bound(c, 100, 1, 1e6, B)));
  c.per_message_us = 2;  // 100 ops of 10,000 bytes: 10,000 B / 2 us = 5e9
  CHECK(flow_rate_bound(c, 100, 1, 1e6, B) == doctest::Approx(5e9));
  CHECK(flow_rate_bound(c, 100, 2, 1e6, B) == doctest::Approx(10e9));  // two GPU pairs post in parallel
  c.per_message_us = 0;
  c.inflight = 4;
  c.op_latency_us = 8;  // 4 x 10,000 / (8 us + 10,000 / 5e9 = 2 us) = 4e9
  CHECK(flow_rate_bound(c, 100, 1, 1e6, B) == doctest::Approx(4e9));
  CHECK(flow_rate_bound(c, 2, 1, 2e4, B) == doctest::Approx(2e9));  // 2 ops: the window is 2
  CHECK(flow_rate_bound(c, 1, 1, 1e4, B) == doctest::Approx(1e9));  // one op: op latency + wire, 10 us
  c.per_message_us = 4;  // the tighter of 2.5e9 (posts) and 4e9 (window)
  CHECK(flow_rate_bound(c, 100, 1, 1e6, B) == doctest::Approx(2.5e9));
  // One op on an idle NIC, the closed form: setup + op latency + its wire time (the serial post overlaps them).
  c.per_message_us = 0;
  c.setup_us = 3;
  CHECK(idle_transfer_seconds(c, 1, 1, 1e4, B, 1e-6) == doctest::Approx(3e-6 + 10e-6 + 1e-6));
}

TEST_CASE("every preset on an idle link: setup + bytes / min(efficiency x B, bound) + latency + notify") {
  for (const nlohmann::json& engine : engine_variants()) {
    CAPTURE(engine.dump());
    const nlohmann::json config = with_engine(config_of("bf16", 1, 25), engine);
    const SimulationInputs in = make_inputs(config, {});
    const TransferCost& cost = in.config.transfer.cost;
    const int64_t tokens = 6000;
    const double B = 25e9 / 8, latency = 7e-6;
    const double wire_s = stream_wire_seconds(in, tokens, 1, 1, false, false, B);
    const Times t = transfer_once(config, tokens, 0.02);
    CHECK(near(t.anchor_s, 0.12 + cost.setup_us * 1e-6 + wire_s + latency + cost.notify_us * 1e-6));
    CHECK(near(t.sent_s, 0.12 + cost.setup_us * 1e-6 + wire_s));
  }
}

TEST_CASE("every preset at tp 2 with a NIC per GPU: each NIC pair carries half the bytes and its own messages") {
  for (const nlohmann::json& engine : engine_variants()) {
    CAPTURE(engine.dump());
    const nlohmann::json config = with_engine(config_of("bf16", 2, 10), engine);
    const SimulationInputs in = make_inputs(config, {});
    const TransferCost& cost = in.config.transfer.cost;
    const double B = 10e9 / 8;
    const double wire_s = stream_wire_seconds(in, 4096, 1, 2, false, false, B);  // per NIC pair: one GPU pair
    const Times t = transfer_once(config, 4096, 0);
    CHECK(near(t.anchor_s, 0.1 + cost.setup_us * 1e-6 + wire_s + 7e-6 + cost.notify_us * 1e-6));
  }
}

TEST_CASE("every preset, layer-wise: the last chunk lands its own messages and bytes after it is ready") {
  for (const nlohmann::json& engine : engine_variants()) {
    CAPTURE(engine.dump());
    const nlohmann::json config = with_engine(config_of("bf16", 1, 25), engine);
    const SimulationInputs in = make_inputs(config, {});
    const TransferCost& cost = in.config.transfer.cost;
    const int64_t tokens = 3000, chunks = 8;
    const double gap = 0.5;  // each chunk has left long before the next is ready
    const KvStreamBytes last = layers_kv_bytes(in.model, in.run_format.format, tokens, (chunks - 1) * 4, 4);
    const int64_t n_last = flow_messages(cost, tokens, 4, 2, 1, last.total());
    const Times t = transfer_once(config, tokens, 0, gap);
    TransferCost no_setup = cost;
    no_setup.setup_us = 0;  // paid once, by the first chunk
    CHECK(near(t.anchor_s, 0.1 + (chunks - 1) * gap +
                               idle_transfer_seconds(no_setup, n_last, 1, static_cast<double>(last.total()), 25e9 / 8,
                                                     7e-6)));
  }
}

TEST_CASE("every preset, Lynx in one chunk: both streams pay the setup, then share 1000:1 where no bound binds") {
  int checked = 0;
  for (const nlohmann::json& engine : engine_variants()) {
    CAPTURE(engine.dump());
    nlohmann::json config = with_engine(config_of("lynx-a4r4-g64", 1, 40), engine);
    config["transfer"]["chunk_layers"] = 32;
    const SimulationInputs in = make_inputs(config, {});
    const TransferCost& cost = in.config.transfer.cost;
    const int64_t tokens = 5000;
    const KvStreamBytes b = total_bytes(config, tokens);
    const double C = cost.efficiency * 40e9 / 8, latency = 7e-6;
    // Half-width streams: the same messages as one stream, each about half the bytes (so as many ops, or fewer
    // where the library slices them).
    const int64_t n_anchor = flow_messages(cost, tokens, 32, 2, 1, b.anchor);
    const int64_t n_residual = flow_messages(cost, tokens, 32, 2, 1, b.residual);
    const double anchor = static_cast<double>(b.anchor), all = static_cast<double>(b.total());
    const double anchor_bound = flow_rate_bound(cost, n_anchor, 1, anchor, 40e9 / 8);
    const double residual_bound = flow_rate_bound(cost, n_residual, 1, static_cast<double>(b.residual), 40e9 / 8);
    const Times t = transfer_once(config, tokens, 0);
    const double start = 0.1 + cost.setup_us * 1e-6;
    if (anchor_bound >= C && residual_bound >= C) {
      CHECK(near(t.anchor_s, start + anchor * 1001 / (1000 * C) + latency + cost.notify_us * 1e-6));
      CHECK(near(t.residual_s, start + all / C + latency + cost.notify_us * 1e-6));
      ++checked;
    } else if (anchor_bound + residual_bound <= C) {
      // Both capped below their shares: each runs at its own bound.
      CHECK(near(t.anchor_s, start + anchor / anchor_bound + latency + cost.notify_us * 1e-6));
      CHECK(near(t.residual_s, start + static_cast<double>(b.residual) / residual_bound + latency + cost.notify_us * 1e-6));
      ++checked;
    }
  }
  CHECK(checked >= 6);
}

TEST_CASE("Mooncake over EFA: the same bytes in 64 KiB and in 2 MiB messages differ as the EFA sweep says") {
  // Llama-3.1-8B bf16 at tp 1: a 16-token block of one layer's K is 32 KiB, so merged messages capped at 64 KiB and at
  // 2 MiB hold 2 and 64 blocks exactly. Mooncake's EFA sweep (p5en, 16 x 200 Gbps, writes): 97.11 GB/s at 64 KiB,
  // 366.87 GB/s at 2 MiB, 3.78x; one NIC pair of 200 Gbps here.
  nlohmann::json config = with_engine(config_of("bf16", 1, 200), {{"connector", "vllm-mooncake"}, {"transport", "efa"}});
  config["transfer"]["mode"] = "after-prefill";
  config["transfer"]["setup_us"] = 0;  // the ratio of the wire phases
  const int64_t tokens = 8192;
  config["transfer"]["max_message_bytes"] = 65536;
  const Times small = transfer_once(config, tokens, 0);
  config["transfer"]["max_message_bytes"] = 2 << 20;
  const Times large = transfer_once(config, tokens, 0);
  const double ratio = (small.anchor_s - 0.1 - 7e-6) / (large.anchor_s - 0.1 - 7e-6);
  CHECK(ratio == doctest::Approx(366.87 / 97.11).epsilon(0.15));
  // 1 GiB at 64 KiB messages: 4 x 65,536 B / (40.33 us + 65,536 B / (0.917 x 25 GB/s)) per op window.
  CHECK(small.anchor_s - large.anchor_s > 0.1);
}

TEST_CASE("replicated heads: a 4-KV-head model at tp 8 sends twice its KV with send_all, once with send_once") {
  for (const char* mode : {"send_all", "send_once"}) {
    CAPTURE(mode);
    nlohmann::json config = with_engine(config_of("bf16", 8, 100), {{"connector", "vllm-nixl"}, {"replicated_kv", mode}});
    config["model"] = "qwen3-235b-a22b";  // 64 query heads, 4 KV heads: at tp 8 each KV head on two GPUs
    const SimulationInputs in = make_inputs(config, {});
    REQUIRE(in.model.n_kv_heads == 4);
    const int64_t tokens = 2048;
    const double bytes = static_cast<double>(total_bytes(config, tokens).total());
    const Times t = transfer_once(config, tokens, 0);
    const double copies = std::string(mode) == "send_all" ? 2 : 1;
    CHECK(t.bytes_sent == bytes * copies);
    CHECK(wire_copies(4, 8, std::string(mode) == "send_all" ? ReplicatedKv::send_all : ReplicatedKv::send_once) ==
          copies);
    // Each flow is one GPU pair carrying one head (1/4 of the KV) on its own NIC pair.
    const TransferCost& cost = in.config.transfer.cost;
    const double wire_s = stream_wire_seconds(in, tokens, 1, 4, false, false, 100e9 / 8);
    CHECK(near(t.anchor_s, 0.1 + cost.setup_us * 1e-6 + wire_s + 7e-6 + cost.notify_us * 1e-6));
  }
}

TEST_CASE("sliding-window layers: chunks of as many layers but other windowed layers carry their own bytes") {
  // gpt-oss-120b alternates windowed (128 tokens) and full layers: 3-layer chunks hold 2 or 1 windowed layers, so
  // consecutive chunks of the same size carry different bytes and messages (the engine reuses a chunk's flows only
  // for the same layers).
  nlohmann::json config = with_engine(config_of("bf16", 8, 100), {{"connector", "vllm-nixl"}, {"chunk_layers", 3}});
  config["model"] = "gpt-oss-120b";
  const SimulationInputs in = make_inputs(config, {});
  REQUIRE(in.model.sliding_window > 0);
  const int64_t tokens = 4096;
  const KvStreamBytes first = layers_kv_bytes(in.model, in.run_format.format, tokens, 0, 3);
  const KvStreamBytes second = layers_kv_bytes(in.model, in.run_format.format, tokens, 3, 3);
  REQUIRE(first.total() != second.total());
  const double bytes = static_cast<double>(total_bytes(config, tokens).total());
  const Times t = transfer_once(config, tokens, 0);
  CHECK(t.bytes_sent == bytes);
  // Chunk by chunk (each leaves when the previous one's flows are sent): every NIC pair's flow sends its bytes at
  // min(efficiency x B, its bound), its messages counted layer by layer (a windowed layer's blocks cover its window
  // only); the chunk ends with its slowest flow.
  const TransferCost& cost = in.config.transfer.cost;
  const std::vector<NicFlowShare> shares = kv_flow_shares(kv_shard_heads(in.model), 8, 8, 8, 8, cost.replicated_kv);
  const double line = 100e9 / 8, rate = cost.efficiency * line;
  double end_s = 0.1;
  for (int64_t chunk_first = 0; chunk_first < in.model.n_layers; chunk_first += 3) {
    const int64_t layers = std::min<int64_t>(3, in.model.n_layers - chunk_first);
    const std::vector<uint64_t> flow_bytes =
        split_bytes(layers_kv_bytes(in.model, in.run_format.format, tokens, chunk_first, layers).total(), shares);
    double held_total = 0;
    for (int64_t l = chunk_first; l < chunk_first + layers; ++l)
      held_total += static_cast<double>(layer_kv_tokens(in.model, l, tokens));
    double slowest_s = 0;
    for (size_t k = 0; k < shares.size(); ++k) {
      int64_t messages = 0;
      for (int64_t l = chunk_first; l < chunk_first + layers; ++l) {
        const int64_t held = layer_kv_tokens(in.model, l, tokens);
        messages += flow_messages(cost, held, 1, kv_tensors_per_layer(in.model), shares[k].gpu_pairs,
                                  static_cast<uint64_t>(std::llround(static_cast<double>(flow_bytes[k]) *
                                                                     static_cast<double>(held) / held_total)));
      }
      const double setup_s = chunk_first == 0 ? cost.setup_us * 1e-6 : 0.0;
      const double bytes_k = static_cast<double>(flow_bytes[k]);
      slowest_s = std::max(slowest_s, setup_s + bytes_k / std::min(rate, flow_rate_bound(cost, messages,
                                                                                           shares[k].gpu_pairs,
                                                                                           bytes_k, line)));
    }
    end_s += slowest_s;
  }
  CHECK(near(t.anchor_s, end_s + 7e-6 + cost.notify_us * 1e-6));
}

TEST_CASE("mixed tp (prefill 2, decode 4): pieces cut by head slices, each prefill NIC sends two quarter flows") {
  for (const nlohmann::json& engine : engine_variants()) {
    CAPTURE(engine.dump());
    nlohmann::json config = with_engine(config_of("bf16", 2, 50), engine);
    config["cluster"]["decode"]["tp"] = 4;
    const SimulationInputs in = make_inputs(config, {});
    const double bytes = static_cast<double>(total_bytes(config, 4096).total());
    // Four GPU pairs (prefill GPU i to decode GPUs 2i and 2i + 1), each a quarter of the bytes and its own pieces;
    // the two flows leaving one prefill NIC start together and share it, so it carries half the bytes.
    const TransferCost& cost = in.config.transfer.cost;
    const Times t = transfer_once(config, 4096, 0);
    // Two quarter flows share each prefill NIC: each runs at min(half the NIC, its bound) (equal flows).
    double wire_s = 0, chunked_bytes = 0;
    const int64_t per = in.config.transfer.chunk_layers;
    for (int64_t first = 0; first < in.model.n_layers; first += per) {
      const KvStreamBytes b = layers_kv_bytes(in.model, in.run_format.format, 4096, first, std::min(per, in.model.n_layers - first));
      chunked_bytes += static_cast<double>(b.total());
      const double q = static_cast<double>(b.total() / 4);
      const int64_t n = flow_messages(cost, 4096, std::min(per, in.model.n_layers - first), 2, 1, b.total() / 4);
      wire_s += q / std::min(cost.efficiency * 50e9 / 8 / 2, flow_rate_bound(cost, n, 1, q, 50e9 / 8));
    }
    CHECK(chunked_bytes == bytes);  // the chunks hold the whole KV
    CHECK(near(t.anchor_s, 0.1 + cost.setup_us * 1e-6 + wire_s + 7e-6 + cost.notify_us * 1e-6));
  }
}

// Topology sites (sim/network/site_config.hpp): the pools in two sites joined by a site link; a lone transfer on an idle
// link still ends at the closed form, with the site link's capacity as the bottleneck where it is the narrowest
// and its latency (plus each leaf-spine site's spine latency) added once to the route's.
namespace {
nlohmann::json sites_config(int tp, double nic_gbps, const nlohmann::json& site_a, const nlohmann::json& link) {
  nlohmann::json c = config_of("int8-g64", tp, nic_gbps);
  nlohmann::json a = site_a;
  a["name"] = "east";
  a["pools"] = {"prefill"};
  nlohmann::json l = link;
  l["sites"] = {"east", "west"};
  c["cluster"]["network"]["topology"] = "sites";
  c["cluster"]["network"]["sites"] = {a, {{"name", "west"}, {"pools", {"decode"}}}};
  c["cluster"]["network"]["site_links"] = nlohmann::json::array({l});  // not {l}: clang copies l
  return c;
}
}  // namespace

TEST_CASE("sites: two pools joined by a 100 Gbps, 5 ms link: bytes / 100 Gbps + latency_us + 5 ms on an idle link") {
  const nlohmann::json config =
      sites_config(1, 400, nlohmann::json::object(), {{"bandwidth_gbps", 100}, {"latency_ms", 5}});
  const int64_t tokens = 6000;
  const double B = 100e9 / 8, latency = 7e-6 + 5e-3, grant = 0.1;
  const Times t = transfer_once(config, tokens, 0);
  const double bytes = static_cast<double>(total_bytes(config, tokens).total());
  CHECK(near(t.sent_s, grant + bytes / B));
  CHECK(near(t.anchor_s, grant + bytes / B + latency));
}

TEST_CASE("sites: count parallel links carry count x bandwidth, the NIC is the bottleneck when narrower") {
  const int64_t tokens = 6000;
  // 2 x 40 Gbps = 80 Gbps under a 100 Gbps NIC: the site link limits the flow.
  const nlohmann::json narrow =
      sites_config(1, 100, nlohmann::json::object(), {{"bandwidth_gbps", 40}, {"count", 2}, {"latency_us", 1000}});
  const double bytes = static_cast<double>(total_bytes(narrow, tokens).total());
  CHECK(near(transfer_once(narrow, tokens, 0).anchor_s, 0.1 + bytes / (80e9 / 8) + 7e-6 + 1e-3));
  // 4 x 40 Gbps = 160 Gbps above the 100 Gbps NIC: the NIC limits it.
  const nlohmann::json wide =
      sites_config(1, 100, nlohmann::json::object(), {{"bandwidth_gbps", 40}, {"count", 4}, {"latency_us", 1000}});
  CHECK(near(transfer_once(wide, tokens, 0).anchor_s, 0.1 + bytes / (100e9 / 8) + 7e-6 + 1e-3));
}

TEST_CASE("sites: an oversubscribed leaf-spine site: its uplink carries a quarter of the rack's NICs, plus its spine latency") {
  // tp 4, a NIC per GPU, one node per rack: the uplink is 4 x 100 Gbps / 4 = 100 Gbps, shared by the 4 NIC-pair
  // flows of a quarter of the bytes each: bytes / 100 Gbps, against bytes / 400 Gbps without oversubscription.
  const nlohmann::json leaf = {{"topology", "leaf-spine"}, {"hosts_per_rack", 1}, {"oversubscription", 4},
                               {"spine_latency_us", 3}};
  const nlohmann::json config = sites_config(4, 100, leaf, {{"bandwidth_gbps", 1000}, {"latency_ms", 1}});
  const int64_t tokens = 6000;
  const double bytes = static_cast<double>(total_bytes(config, tokens).total());
  CHECK(near(transfer_once(config, tokens, 0).anchor_s, 0.1 + bytes / (100e9 / 8) + 7e-6 + 3e-6 + 1e-3));
  nlohmann::json full = config;
  full["cluster"]["network"]["sites"][0]["oversubscription"] = 1;
  CHECK(near(transfer_once(full, tokens, 0).anchor_s, 0.1 + bytes / (400e9 / 8) + 7e-6 + 3e-6 + 1e-3));
}

TEST_CASE("leaf-spine: oversubscription 4 gives uplinks a quarter of the hosts' total (closed form)") {
  nlohmann::json config = config_of("int8-g64", 4, 100);
  config["cluster"]["network"].update(
      {{"topology", "leaf-spine"}, {"hosts_per_rack", 1}, {"oversubscription", 4}, {"spine_latency_us", 2}});
  const int64_t tokens = 6000;
  const double bytes = static_cast<double>(total_bytes(config, tokens).total());
  CHECK(near(transfer_once(config, tokens, 0).anchor_s, 0.1 + bytes / (100e9 / 8) + 7e-6 + 2e-6));
}

TEST_CASE("a field the chosen topology ignores is an error naming its JSON path") {
  auto message_of = [](const nlohmann::json& config) {
    try {
      make_inputs(config, {});
    } catch (const LynxError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  nlohmann::json star = config_of("int8-g64", 1, 100);
  star["cluster"]["network"]["hosts_per_rack"] = 4;
  CHECK(message_of(star).find("$.cluster.network.hosts_per_rack: not used by topology \"star\"") != std::string::npos);
  nlohmann::json leaf = config_of("int8-g64", 1, 100);
  leaf["cluster"]["network"].update({{"topology", "leaf-spine"}, {"sites", nlohmann::json::array()}});
  CHECK(message_of(leaf).find("$.cluster.network.sites: not used by topology \"leaf-spine\"") != std::string::npos);
  nlohmann::json sites = sites_config(1, 100, nlohmann::json::object(), {{"bandwidth_gbps", 100}});
  sites["cluster"]["network"]["spine_latency_us"] = 1;
  CHECK(message_of(sites).find("$.cluster.network.spine_latency_us: not used by topology \"sites\"") !=
        std::string::npos);
  nlohmann::json star_site = sites_config(1, 100, {{"oversubscription", 2}}, {{"bandwidth_gbps", 100}});
  CHECK(message_of(star_site).find("$.cluster.network.sites[0].oversubscription: not used by a star site") !=
        std::string::npos);
  nlohmann::json unlinked = sites_config(1, 100, nlohmann::json::object(), {{"bandwidth_gbps", 100}});
  unlinked["cluster"]["network"]["site_links"] = nlohmann::json::array();
  CHECK(message_of(unlinked).find("no link joins site \"east\" (prefill) and site \"west\" (decode)") !=
        std::string::npos);
}

// Cross traffic on a site link (sim/network/cross_traffic.hpp).
TEST_CASE("cross traffic: 50% of a site link, constant or in a long on period, halves a lone KV flow's rate exactly") {
  const int64_t tokens = 6000;
  const nlohmann::json link = {{"bandwidth_gbps", 100}, {"latency_ms", 5}};
  const nlohmann::json idle = sites_config(1, 400, nlohmann::json::object(), link);
  const double bytes = static_cast<double>(total_bytes(idle, tokens).total());
  const double latency = 7e-6 + 5e-3;
  nlohmann::json constant = idle;
  constant["cluster"]["network"]["site_links"][0]["cross_traffic"] = {{"kind", "constant"}, {"fraction", 0.5}};
  CHECK(near(transfer_once(constant, tokens, 0).anchor_s, 0.1 + bytes / (50e9 / 8) + latency));
  // on-off whose periods outlast the run by far: on throughout (stationary start on with probability 1 - 1e-12)
  // halves the rate; off throughout leaves it whole.
  nlohmann::json on = idle;
  on["cluster"]["network"]["site_links"][0]["cross_traffic"] = {
      {"kind", "on-off"}, {"fraction", 0.5}, {"on_ms", 1e9}, {"off_ms", 1e-3}};
  CHECK(near(transfer_once(on, tokens, 0).anchor_s, 0.1 + bytes / (50e9 / 8) + latency));
  nlohmann::json off = idle;
  off["cluster"]["network"]["site_links"][0]["cross_traffic"] = {
      {"kind", "on-off"}, {"fraction", 0.5}, {"on_ms", 1e-3}, {"off_ms", 1e9}};
  CHECK(near(transfer_once(off, tokens, 0).anchor_s, 0.1 + bytes / (100e9 / 8) + latency));
}

TEST_CASE("cross traffic: Poisson flows share the site link max-min, seeded, and never keep the run alive") {
  const int64_t tokens = 6000;
  const nlohmann::json idle =
      sites_config(1, 400, nlohmann::json::object(), {{"bandwidth_gbps", 100}, {"latency_ms", 1}});
  const double bytes = static_cast<double>(total_bytes(idle, tokens).total());
  nlohmann::json poisson = idle;
  poisson["cluster"]["network"]["site_links"][0]["cross_traffic"] = {
      {"kind", "poisson"}, {"fraction", 0.5}, {"mean_flow_mb", 1}, {"sizes", "fixed"}};
  const Times a = transfer_once(poisson, tokens, 0), b = transfer_once(poisson, tokens, 0);
  CHECK(a.anchor_s == b.anchor_s);  // same seed, same run
  CHECK(a.bytes_sent == doctest::Approx(bytes));  // other tenants' bytes are not the run's
  const double idle_s = bytes / (100e9 / 8);
  CHECK(a.anchor_s - 0.1 - 7e-6 - 1e-3 > idle_s);  // slower than on an idle link
  // The offered load is half the link: 1 MB flows at 6,250/s, each 80 us alone, so on average under one is in
  // flight beside the KV flow (each takes one max-min share): the KV flow keeps far more than a quarter.
  CHECK(a.anchor_s - 0.1 - 7e-6 - 1e-3 < 4 * idle_s);
}

TEST_CASE("cross traffic: flow sizes by inverse transform (fixed, exponential, Pareto)") {
  CHECK(cross_flow_bytes(FlowSizeDistribution::fixed, 1e6, 1.5, 0.3) == 1e6);
  CHECK(cross_flow_bytes(FlowSizeDistribution::exponential, 1e6, 1.5, 0.5) == doctest::Approx(1e6 * std::log(2.0)));
  // Pareto: scale x_m = mean (a - 1) / a, the sample x_m / u^(1/a); u = 1 gives the scale, u = 2^-a twice it.
  CHECK(cross_flow_bytes(FlowSizeDistribution::pareto, 3e6, 1.5, 1.0) == doctest::Approx(1e6));
  CHECK(cross_flow_bytes(FlowSizeDistribution::pareto, 3e6, 1.5, std::pow(2.0, -1.5)) == doctest::Approx(2e6));
}

TEST_CASE("sites: a site link that never binds, with no latency, simulates as the star (up to rounding)") {
  // The extra link is one more constraint in SimGrid's max-min solve, so shares may differ in the last bits.
  // 2 + 2 instances of one 25 Gbps NIC each, a 0 ms site link of 1 Tbps; the same requests on both networks.
  nlohmann::json star = config_of("lynx-a4r4-g64", 1, 25);
  star["cluster"]["prefill"]["instances"] = 2;
  star["cluster"]["decode"]["instances"] = 2;
  nlohmann::json sites = sites_config(1, 25, nlohmann::json::object(), {{"bandwidth_gbps", 1000}, {"latency_ms", 0}});
  sites["cluster"]["prefill"]["instances"] = 2;
  sites["cluster"]["decode"]["instances"] = 2;
  sites["format"] = "lynx-a4r4-g64";
  std::vector<Request> requests;
  for (int i = 0; i < 12; ++i) requests.push_back(make_request(i, 0.01 * i, 2000 + 700 * i, 16));
  const SimRun a = run_simulation(star, requests), b = run_simulation(sites, requests);
  REQUIRE(a.records.size() == b.records.size());
  for (size_t i = 0; i < a.records.size(); ++i) {
    CAPTURE(i);
    CHECK(near(a.records[i].anchor_arrival_s, b.records[i].anchor_arrival_s));
    CHECK(near(a.records[i].residual_arrival_s, b.records[i].residual_arrival_s));
    CHECK(near(a.records[i].first_token_s, b.records[i].first_token_s));
    CHECK(near(a.records[i].end_s, b.records[i].end_s));
  }
  CHECK(a.bytes_delivered == b.bytes_delivered);
}

// A request's chunks are handed over in order, once each (the engine keeps counts, not a queue): one out of order, or
// twice, is a bug in the caller, an internal error.
TEST_CASE("a chunk ready out of order or twice is an internal error") {
  const SimulationInputs in = make_inputs(config_of("bf16", 1, 100), {});
  for (const std::vector<int>& order : {std::vector<int>{1}, std::vector<int>{0, 0}, std::vector<int>{0, 2}}) {
    const std::string message = run_isolated([&]() -> std::string {
      const std::vector<PlatformNode> nodes = cluster_platform_nodes(in.config);
      EventLoop loop(engine_network(in.config.network, in.config.transfer.cost, 1), {nodes.front(), nodes.back()});
      EngineContext engine_context(in, loop);  // 8 chunks: 32 layers, 4 a chunk
      TestEnds ends;
      ends.loop = &loop;
      TransferEngine engine(engine_context.context, ends, 1, 1);
      ends.engine = &engine;
      RequestState r;
      r.request = make_request(0, 0, 4096, 4);
      r.advance(RequestPhase::prefilling);
      try {
        for (int chunk : order) engine.chunk_ready(r, chunk);
      } catch (const InternalError& e) {
        return e.what();
      }
      return "no error";
    });
    CAPTURE(message);
    CHECK(message.find("ready after") != std::string::npos);
    CHECK(message.find("they come in order, once each") != std::string::npos);
  }
}

}  // namespace test_transfer_engine
