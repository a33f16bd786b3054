// The transfer engine alone (sim/transfer_engine.hpp), on a real SimGrid platform of one prefill and one decode
// instance, with the instances' side played by the test: every closed form of an idle link.
//   one stream: the last byte arrives at bytes / B + latency after the memory grant (chunks leave back to back);
//   tp 2 with a NIC per GPU: two NIC pairs carry half each, bytes / 2B + latency;
//   Lynx, weights 1000 : 1: the anchor at A x 1001 / (1000 B) + latency, the residual at (A + R) / B + latency;
//   Lynx with aging after W: from W on both streams share equally;
// and with a transfer engine's costs (transfer_cost.hpp), on every preset and on a custom one with every term set:
//   setup + n_messages x per_message + bytes / (efficiency x B) + latency + notify, also per NIC pair at tp 2,
//   layer-wise (the last chunk's own messages and bytes after it is ready) and for Lynx (both streams' pieces);
//   replicated heads (a 4-KV-head model at tp 8) put twice the model's bytes on the wire with send_all;
// the prefill side is told once, when the last byte of the last stream has left (bytes / B, no latency).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "models/kv_replication.hpp"
#include "models/kv_size.hpp"
#include "sim/isolated_run.hpp"
#include "sim/simulation.hpp"
#include "sim/transfer_engine.hpp"
#include "sim_test_support.hpp"

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

// One request of `tokens` prompt tokens whose chunks are ready from 0.1 s on, chunk c at 0.1 + c x chunk_gap_s.
Times transfer_once(const nlohmann::json& config, int64_t tokens, double grant_delay_s, double chunk_gap_s = 0) {
  const SimulationInputs in = make_inputs(config, {});
  const std::string text = run_isolated([&] {
    const std::vector<PlatformNode> nodes = cluster_platform_nodes(in.config);
    const int max_nics = std::max(nodes.front().nics, nodes.back().nics);
    EventLoop loop(engine_network(in.config.network, in.config.transfer.cost, max_nics), {nodes.front(), nodes.back()});
    std::unique_ptr<TransferProtocol> protocol = transfer_protocol_for(in);
    SimContext context;
    context.loop = &loop;
    context.inputs = &in;
    context.protocol = protocol.get();
    context.chunks = static_cast<int>((in.model.n_layers + in.config.transfer.chunk_layers - 1) /
                                      in.config.transfer.chunk_layers);
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
          {"transfer", {{"chunk_layers", 4}, {"engine", "ideal"}}},
          {"lynx", {{"acceptance_rate", 0.9}}}};
}

KvStreamBytes total_bytes(const nlohmann::json& config, int64_t tokens) {
  const SimulationInputs in = make_inputs(config, {});
  return model_kv_bytes(in.model, in.format, tokens);
}
}  // namespace

TEST_CASE("one stream on an idle link: bytes / B + latency after the grant; the prefill side told at bytes / B") {
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
// The engine cost presets plus a custom cost with every term non-zero (notify and coalescing included).
std::vector<nlohmann::json> engine_variants() {
  return {{{"engine", "ideal"}},
          {{"engine", "mooncake-rdma"}},
          {{"engine", "nixl-ucx"}},
          {{"engine", "nixl-ucx"}, {"notify_us", 40}, {"setup_us", 900}, {"efficiency", 0.8},
           {"max_message_bytes", 100000}, {"block_tokens", 32}}};
}

nlohmann::json with_engine(nlohmann::json config, const nlohmann::json& engine) {
  for (const auto& [key, value] : engine.items()) config["transfer"][key] = value;
  return config;
}

// Messages of the whole stream of `tokens` tokens at one NIC pair of `gpu_pairs` GPU pairs, chunk by chunk, with
// the stream's bytes `bytes` split as the engine splits them.
int64_t stream_messages(const SimulationInputs& in, int64_t tokens, int gpu_pairs, int flows,
                        bool anchor_stream, bool lynx) {
  int64_t n = 0;
  const int64_t per = in.config.transfer.chunk_layers;
  for (int64_t first = 0; first < in.model.n_layers; first += per) {
    const int64_t layers = std::min(per, in.model.n_layers - first);
    const KvStreamBytes b = layers_kv_bytes(in.model, in.format, tokens, first, layers);
    const uint64_t stream = lynx ? (anchor_stream ? b.anchor : b.residual) : b.total();
    n += flow_messages(in.config.transfer.cost, tokens, layers, 2, gpu_pairs, stream / static_cast<uint64_t>(flows));
  }
  return n;
}
}  // namespace

TEST_CASE("message counts by hand: blocks x layers x (K, V) x GPU pairs; coalescing up to max_message_bytes") {
  TransferCost c;
  c.block_tokens = 16;
  CHECK(flow_messages(c, 6000, 32, 2, 1, 1) == 375 * 32 * 2);  // ceil(6000 / 16) = 375 blocks
  CHECK(flow_messages(c, 16, 4, 2, 3, 1) == 4 * 2 * 3);
  CHECK(flow_messages(c, 6000, 32, 2, 1, 0) == 0);
  c.max_message_bytes = 4 * 4096;  // 4 blocks of 4096 bytes per message: 375 blocks in 94 messages per slice
  CHECK(flow_messages(c, 6000, 1, 2, 1, uint64_t{375} * 4096 * 2) == 94 * 2);
  c.max_message_bytes = 1000;  // smaller than a block: still one block per message
  CHECK(flow_messages(c, 6000, 1, 2, 1, uint64_t{375} * 4096 * 2) == 375 * 2);
}

TEST_CASE("every engine preset on an idle link: setup + n x per_message + bytes / (efficiency x B) + latency + notify") {
  for (const nlohmann::json& engine : engine_variants()) {
    CAPTURE(engine.dump());
    const nlohmann::json config = with_engine(config_of("bf16", 1, 25), engine);
    const SimulationInputs in = make_inputs(config, {});
    const TransferCost& cost = in.config.transfer.cost;
    const int64_t tokens = 6000;
    const double B = 25e9 / 8, latency = 7e-6;
    const double bytes = static_cast<double>(total_bytes(config, tokens).total());
    const int64_t n = stream_messages(in, tokens, 1, 1, false, false);
    if (cost.max_message_bytes == 0) CHECK(n == 375 * 32 * 2 * 16 / cost.block_tokens);
    const Times t = transfer_once(config, tokens, 0.02);
    CHECK(near(t.anchor_s, 0.12 + idle_transfer_seconds(cost, n, bytes, B, latency)));
    CHECK(near(t.sent_s, 0.12 + cost.setup_us * 1e-6 + static_cast<double>(n) * cost.per_message_us * 1e-6 + bytes / (cost.efficiency * B)));
  }
}

TEST_CASE("every engine preset at tp 2 with a NIC per GPU: each NIC pair carries half the bytes and its own pieces") {
  for (const nlohmann::json& engine : engine_variants()) {
    CAPTURE(engine.dump());
    const nlohmann::json config = with_engine(config_of("bf16", 2, 10), engine);
    const SimulationInputs in = make_inputs(config, {});
    const double bytes = static_cast<double>(total_bytes(config, 4096).total());
    const int64_t n = stream_messages(in, 4096, 1, 2, false, false);  // per NIC pair: one GPU pair
    const Times t = transfer_once(config, 4096, 0);
    CHECK(near(t.anchor_s, 0.1 + idle_transfer_seconds(in.config.transfer.cost, n, bytes / 2, 10e9 / 8, 7e-6)));
  }
}

TEST_CASE("every engine preset, layer-wise: the last chunk lands its own messages and bytes after it is ready") {
  for (const nlohmann::json& engine : engine_variants()) {
    CAPTURE(engine.dump());
    const nlohmann::json config = with_engine(config_of("bf16", 1, 25), engine);
    const SimulationInputs in = make_inputs(config, {});
    const TransferCost& cost = in.config.transfer.cost;
    const int64_t tokens = 3000, chunks = 8;
    const double gap = 0.5;  // each chunk has left long before the next is ready
    const KvStreamBytes last = layers_kv_bytes(in.model, in.format, tokens, (chunks - 1) * 4, 4);
    const int64_t n_last = flow_messages(cost, tokens, 4, 2, 1, last.total());
    const Times t = transfer_once(config, tokens, 0, gap);
    TransferCost no_setup = cost;
    no_setup.setup_us = 0;  // paid once, by the first chunk
    CHECK(near(t.anchor_s, 0.1 + (chunks - 1) * gap +
                               idle_transfer_seconds(no_setup, n_last, static_cast<double>(last.total()), 25e9 / 8, 7e-6)));
  }
}

TEST_CASE("every engine preset, Lynx in one chunk: both streams pay the setup and their pieces, then share 1000:1") {
  for (const nlohmann::json& engine : engine_variants()) {
    CAPTURE(engine.dump());
    nlohmann::json config = with_engine(config_of("lynx-a4r4-g64", 1, 40), engine);
    config["transfer"]["chunk_layers"] = 32;
    const SimulationInputs in = make_inputs(config, {});
    const TransferCost& cost = in.config.transfer.cost;
    const int64_t tokens = 5000;
    const KvStreamBytes b = total_bytes(config, tokens);
    const int64_t n_anchor = stream_messages(in, tokens, 1, 1, true, true);
    const int64_t n_residual = stream_messages(in, tokens, 1, 1, false, true);
    if (cost.max_message_bytes > 0) continue;  // coalesced, the streams' pieces differ and they start apart
    REQUIRE(n_anchor == n_residual);            // Lynx sends twice the pieces of a single stream, each half
    CHECK(n_anchor == 313 * 32 * 2 * 16 / cost.block_tokens);
    const double C = cost.efficiency * 40e9 / 8, latency = 7e-6;
    const double start = 0.1 + cost.setup_us * 1e-6 + static_cast<double>(n_anchor) * cost.per_message_us * 1e-6;
    const double anchor = static_cast<double>(b.anchor), all = static_cast<double>(b.total());
    const Times t = transfer_once(config, tokens, 0);
    CHECK(near(t.anchor_s, start + anchor * 1001 / (1000 * C) + latency + cost.notify_us * 1e-6));
    CHECK(near(t.residual_s, start + all / C + latency + cost.notify_us * 1e-6));
  }
}

TEST_CASE("the same bytes as many small pieces are slower than as few large ones, by the per-message term") {
  nlohmann::json config = with_engine(config_of("bf16", 1, 100), {{"engine", "nixl-ucx"}});
  const int64_t tokens = 8192;
  const Times small = transfer_once(config, tokens, 0);
  config["transfer"]["max_message_bytes"] = 1 << 24;  // whole 16 MiB slices: one message per layer and tensor
  const Times large = transfer_once(config, tokens, 0);
  const int64_t pieces = 512 * 32 * 2, slices = 32 * 2;
  CHECK(near(small.anchor_s - large.anchor_s, static_cast<double>(pieces - slices) * 0.501e-6));
  CHECK(small.anchor_s - large.anchor_s > 0.015);  // 16 ms more for 1 GiB of 32 KiB pieces
}

TEST_CASE("replicated heads: a 4-KV-head model at tp 8 sends twice its KV with send_all, once with send_once") {
  for (const char* mode : {"send_all", "send_once"}) {
    CAPTURE(mode);
    nlohmann::json config = with_engine(config_of("bf16", 8, 100), {{"engine", "nixl-ucx"}, {"replicated_kv", mode}});
    config["model"] = "qwen2.5-7b";
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
    const int64_t n = stream_messages(in, tokens, 1, 4, false, false);
    CHECK(near(t.anchor_s, 0.1 + idle_transfer_seconds(in.config.transfer.cost, n, bytes / 4, 100e9 / 8, 7e-6)));
  }
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
    const int64_t n = stream_messages(in, 4096, 1, 4, false, false);
    const TransferCost& cost = in.config.transfer.cost;
    const Times t = transfer_once(config, 4096, 0);
    CHECK(near(t.anchor_s, 0.1 + idle_transfer_seconds(cost, n, bytes / 2, 50e9 / 8, 7e-6)));
  }
}
