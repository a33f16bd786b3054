// The transfer engine alone (sim/transfer_engine.hpp), on a real SimGrid platform of one prefill and one decode
// instance, with the instances' side played by the test: every closed form of an idle link.
//   one stream: the last byte arrives at bytes / B + latency after the memory grant (chunks leave back to back);
//   tp 2 with a NIC per GPU: two NIC pairs carry half each, bytes / 2B + latency;
//   Lynx, weights 1000 : 1: the anchor at A x 1001 / (1000 B) + latency, the residual at (A + R) / B + latency;
//   Lynx with aging after W: from W on both streams share equally;
// the prefill side is told once, when the last byte of the last stream has left (bytes / B, no latency).
#include <doctest/doctest.h>

#include <cmath>
#include <memory>

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

// One request of `tokens` prompt tokens whose chunks are all ready at 0.1 s.
Times transfer_once(const nlohmann::json& config, int64_t tokens, double grant_delay_s) {
  const SimulationInputs in = make_inputs(config, {});
  const std::string text = run_isolated([&] {
    const std::vector<PlatformNode> nodes = cluster_platform_nodes(in.config);
    EventLoop loop(in.config.network, {nodes.front(), nodes.back()});
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
    loop.at(0.1, [&] {
      r.advance(RequestPhase::prefilling);
      for (int c = 0; c < context.chunks; ++c) engine.chunk_ready(r, c);
    });
    loop.run();
    ends.times.anchor_s = r.record.anchor_arrival_s;
    ends.times.residual_s = r.record.residual_arrival_s;
    const Times& t = ends.times;
    return nlohmann::json{t.grant_s, t.sent_s, t.usable_s, t.changed_s, t.anchor_s, t.residual_s, t.sent_calls}
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
  return t;
}

nlohmann::json config_of(const std::string& format, int tp, double nic_gbps) {
  return {{"model", "llama-3.1-8b"},
          {"compute_model", "roofline"},
          {"format", format},
          {"cluster",
           {{"prefill", {{"tp", tp}}}, {"decode", {{"tp", tp}}}, {"network", {{"nic_gbps", nic_gbps}, {"latency_us", 7}}}}},
          {"transfer", {{"chunk_layers", 4}}},
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
