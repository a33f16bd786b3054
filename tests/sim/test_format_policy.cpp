// The adaptive format policy (sim/transfer/format_policy.hpp):
//   its per-resource prediction against the closed forms it states (anchors first, then processor sharing);
//   a run whose policy always picks one candidate gives that fixed format's records exactly (the plumbing of a
//   per-request format changes nothing else), whichever candidate is the reference;
//   the choice follows the route's load: with adaptive_min_gain between Lynx's predicted gain on an idle route and
//   its gain behind another request's int8 KV, the first of two simultaneous requests gets int8, the second Lynx;
//   layer-wise, a prefill that outlasts the transfer leaves only the last chunk's gain, and the choice follows it;
//   layer-wise with chunked prefill, the chunks leave during the prompt's last piece only, and the choice follows it;
//   every configuration error names its JSON path.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "common/error.hpp"
#include "kernels/kv_format.hpp"
#include "models/arch/kv_size.hpp"
#include "sim/transfer/format_policy.hpp"
#include "sim_test_support.hpp"

using namespace lynx;
using namespace lynx::test;

namespace {

nlohmann::json config_of(const std::string& format, double nic_gbps) {
  return {{"model", "llama-3.1-8b"},
          {"compute_model", "roofline"},
          {"format", format},
          {"cluster", {{"network", {{"nic_gbps", nic_gbps}, {"latency_us", 5}}}}},
          {"transfer", {{"chunk_layers", 4}, {"mode", "after-prefill"}, {"connector", "ideal"}}},
          {"lynx", {{"acceptance_rate", 0.9}}}};
}

nlohmann::json adaptive(nlohmann::json config, const std::vector<std::string>& others, const std::string& objective,
                        double min_gain = 1) {
  config["transfer"]["format_policy"] = "adaptive";
  config["transfer"]["adaptive_formats"] = others;
  config["transfer"]["adaptive_objective"] = objective;
  config["transfer"]["adaptive_min_gain"] = min_gain;
  return config;
}

std::vector<Request> three_requests() {
  return {make_request(0, 0, 8192, 16), make_request(1, 0, 4096, 8), make_request(2, 0.3, 16384, 4)};
}

std::string error_of(const nlohmann::json& config) {
  try {
    make_inputs(config, {});
  } catch (const LynxError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("prediction on one resource: anchors done at (H + h) / C, the rest after them sharing with n flows") {
  const ResourceLoad load{1e9, 2e9, 3e9, 2};
  const StreamTimes a = predicted_stream_times(load, 1e9, 1e9);
  CHECK(a.high_done_s == doctest::Approx(3.0));        // (2 + 1) / 1
  CHECK(a.low_done_s == doctest::Approx(6.0));         // (2 + 1 + min(3, 2 x 1) + 1) / 1
  const StreamTimes b = predicted_stream_times(load, 0, 2e9);
  CHECK(b.high_done_s == doctest::Approx(2.0));
  CHECK(b.low_done_s == doctest::Approx(7.0));         // (2 + 0 + min(3, 2 x 2) + 2) / 1: the backlog is drained
  const StreamTimes idle = predicted_stream_times({4e9, 0, 0, 0}, 1e9, 3e9);
  CHECK(idle.high_done_s == doctest::Approx(0.25));
  CHECK(idle.low_done_s == doctest::Approx(1.0));      // the whole transfer at line rate
}

TEST_CASE("a policy that always picks one candidate gives that fixed format's records exactly") {
  const std::vector<Request> requests = three_requests();
  const SimRun int8 = run_simulation(config_of("int8-g64", 25), requests);
  const SimRun lynx = run_simulation(config_of("lynx-a4r4-g64", 25), requests);
  auto same = [](const SimRun& a, const SimRun& b) {
    REQUIRE(a.records.size() == b.records.size());
    for (size_t i = 0; i < a.records.size(); ++i) {
      const RequestRecord &x = a.records[i], &y = b.records[i];
      CHECK(x.first_token_s == y.first_token_s);
      CHECK(x.end_s == y.end_s);
      CHECK(((std::isnan(x.residual_arrival_s) && std::isnan(y.residual_arrival_s)) ||
             x.residual_arrival_s == y.residual_arrival_s));
      CHECK(x.first_correct_token_s == y.first_correct_token_s);
      CHECK(x.accepted_tokens == y.accepted_tokens);
    }
    CHECK(a.bytes_sent == b.bytes_sent);
    CHECK(a.bytes_expected == b.bytes_expected);
  };
  SUBCASE("the reference kept: a gain of 1e6 is never predicted") {
    const SimRun run = run_simulation(adaptive(config_of("int8-g64", 25), {"lynx-a4r4-g64"}, "ttft_correct", 1e6),
                                      requests);
    same(run, int8);
    CHECK(run.summary["metrics"]["format_requests"] == nlohmann::json{{"int8-g64", 3}, {"lynx-a4r4-g64", 0}});
  }
  SUBCASE("the other candidate taken: Lynx's anchor is always sooner by ttft_spec") {
    const SimRun run = run_simulation(adaptive(config_of("int8-g64", 25), {"lynx-a4r4-g64"}, "ttft_spec"), requests);
    same(run, lynx);
    CHECK(run.summary["metrics"]["format_requests"] == nlohmann::json{{"int8-g64", 0}, {"lynx-a4r4-g64", 3}});
    CHECK(run.summary["config"]["transfer"]["format_policy"] == "adaptive");
  }
  SUBCASE("bf16 against int8 by the verified token: int8's fewer bytes always win") {
    const SimRun run = run_simulation(adaptive(config_of("bf16", 25), {"int8-g64"}, "ttft"), requests);
    same(run, int8);
  }
  SUBCASE("the fixed policy's summary has no policy fields") {
    CHECK_FALSE(int8.summary["config"]["transfer"].contains("format_policy"));
    CHECK_FALSE(int8.summary["metrics"].contains("format_requests"));
  }
}

namespace {
// The policy's predicted TTFT (from the prefill's start, after-prefill mode, one NIC at C bytes/s) of a request of
// `tokens` on a route where `ahead_low` low-class bytes of one other request wait (and `ahead_high` anchor bytes),
// written out from the closed forms of sim/transfer/format_policy.hpp.
// With `budget` > 0 the prompt is prefilled in pieces of that many tokens (chunked_prefill_tokens), and layer-wise
// its chunks leave only while the last piece runs (each layer's KV is whole only then).
double predicted_s(const std::string& format, double gbps, int64_t tokens, double ahead_high, double ahead_low,
                   bool layer_wise = false, int64_t budget = 0) {
  nlohmann::json config = config_of(format, gbps);
  if (layer_wise) config["transfer"]["mode"] = "layer-wise";
  if (budget > 0) config["cluster"]["prefill"]["chunked_prefill_tokens"] = budget;
  const SimulationInputs in = make_inputs(config, {});
  const double C = gbps * 1e9 / 8;
  const KvStreamBytes bytes = model_kv_bytes(in.model, in.run_format.format, tokens);
  const double elements = layers_kv_elements(in.model, tokens, 0, in.model.n_layers);
  double before_last = 0, last = in.prefill_cost->prefill_seconds({{tokens, 0}});
  if (budget > 0) {
    before_last = 0;
    for (int64_t done = 0; done + budget < tokens; done += budget)
      before_last += in.prefill_cost->prefill_seconds({{budget, done}});
    const int64_t last_tokens = tokens - (tokens - 1) / budget * budget;
    last = in.prefill_cost->prefill_seconds({{last_tokens, tokens - last_tokens}});
  }
  const double prefill = before_last + last + in.run_format.prefill_kernels.encode_seconds(elements);
  const bool lynx = in.run_format.format.is_lynx();
  const double high = lynx ? static_cast<double>(bytes.anchor) : 0;
  const double low = static_cast<double>(bytes.total()) - high;
  const double n = ahead_low > 0 ? 1 : 0;
  double full_kv = (ahead_high + high + std::min(ahead_low, n * low) + low) / C, first_kv = (ahead_high + high) / C;
  if (layer_wise) {  // the chunks leave as the last piece computes them: no sooner than the prefill plus the last chunk
    const double tail = 4.0 / static_cast<double>(in.model.n_layers);  // chunk_layers 4
    full_kv = std::max(before_last + full_kv, prefill + tail * (high + low) / C);
    first_kv = std::max(before_last + first_kv, prefill + tail * high / C);
  } else {
    full_kv += prefill;
    first_kv += prefill;
  }
  const double full = full_kv + in.run_format.decode_kernels.decode_seconds(elements, false);
  if (!lynx) return full;
  const double first = first_kv + in.run_format.decode_kernels.decode_seconds(elements, true);
  return 0.9 * first + 0.1 * full;  // acceptance_rate 0.9: P(one draft kept) = 0.9
}
}  // namespace

TEST_CASE("the choice follows the route's load: int8 on an idle route, Lynx behind another request's int8 KV") {
  // 10 Gbps, one prefill and one decode instance, two 32K-token prompts arriving together. Lynx's predicted gain
  // by ttft_correct over int8 is g1 on the idle route and g2 > g1 behind the first request's int8 KV: a minimum
  // gain between them gives the first request int8 and the second Lynx; one under g1 gives both Lynx; one over g2
  // and over the gain behind a first Lynx request gives both int8.
  const int64_t T = 32768;
  const SimulationInputs in = make_inputs(config_of("int8-g64", 10), {});
  const KvStreamBytes int8 = model_kv_bytes(in.model, in.run_format.format, T);
  const KvStreamBytes lynx = model_kv_bytes(in.model, kv_format_parse("lynx-a4r4-g64"), T);
  const double g1 = predicted_s("int8-g64", 10, T, 0, 0) / predicted_s("lynx-a4r4-g64", 10, T, 0, 0);
  const double total = static_cast<double>(int8.total());
  const double g2 = predicted_s("int8-g64", 10, T, 0, total) / predicted_s("lynx-a4r4-g64", 10, T, 0, total);
  const double anchor = static_cast<double>(lynx.anchor), residual = static_cast<double>(lynx.total()) - anchor;
  const double g2_lynx =
      predicted_s("int8-g64", 10, T, anchor, residual) / predicted_s("lynx-a4r4-g64", 10, T, anchor, residual);
  REQUIRE(g1 > 1.05);
  REQUIRE(g2 > g1 * 1.05);
  const std::vector<Request> requests{make_request(0, 0, T, 8), make_request(1, 0, T, 8)};
  auto run = [&](double min_gain) {
    return run_simulation(adaptive(config_of("int8-g64", 10), {"lynx-a4r4-g64"}, "ttft_correct", min_gain), requests);
  };
  const SimRun between = run((g1 + g2) / 2);
  REQUIRE(between.records.size() == 2);
  CHECK(std::isnan(between.records[0].residual_arrival_s));        // int8: one stream
  CHECK_FALSE(std::isnan(between.records[1].residual_arrival_s));  // Lynx: anchor and residual
  CHECK(between.summary["metrics"]["format_requests"] == nlohmann::json{{"int8-g64", 1}, {"lynx-a4r4-g64", 1}});
  CHECK(run(1 + (std::min(g1, g2_lynx) - 1) / 2).summary["metrics"]["format_requests"]["lynx-a4r4-g64"] == 2);
  CHECK(run(std::max(g2, g2_lynx) * 1.1).summary["metrics"]["format_requests"]["int8-g64"] == 2);
}

TEST_CASE("layer-wise: a prefill that outlasts the transfer leaves the last chunk exposed, and the gain with it") {
  // 100 Gbps, one 32K-token prompt: its KV crosses in a fraction of its prefill. Sent after the prefill, Lynx's
  // anchor saves half of the whole transfer; streamed layer by layer, half of the last chunk's. A minimum gain
  // between the two predicted gains chooses Lynx in the first mode and int8 in the second.
  const int64_t T = 32768;
  const double after = predicted_s("int8-g64", 100, T, 0, 0) / predicted_s("lynx-a4r4-g64", 100, T, 0, 0);
  const double streamed =
      predicted_s("int8-g64", 100, T, 0, 0, true) / predicted_s("lynx-a4r4-g64", 100, T, 0, 0, true);
  REQUIRE(after > streamed * 1.01);
  const double min_gain = (after + streamed) / 2;
  const std::vector<Request> one{make_request(0, 0, T, 8)};
  nlohmann::json config = adaptive(config_of("int8-g64", 100), {"lynx-a4r4-g64"}, "ttft_correct", min_gain);
  CHECK(run_simulation(config, one).summary["metrics"]["format_requests"]["lynx-a4r4-g64"] == 1);
  config["transfer"]["mode"] = "layer-wise";
  CHECK(run_simulation(config, one).summary["metrics"]["format_requests"]["int8-g64"] == 1);
}

TEST_CASE("layer-wise and chunked: the chunks leave during the last piece only, so more of the transfer is exposed") {
  // 25 Gbps, one 32K-token prompt: whole, its prefill hides all but the last chunk of the streamed KV; in pieces of
  // 2,048 tokens only the last piece overlaps the transfer, so Lynx's anchor saves more. A minimum gain between
  // the two predicted gains keeps int8 for the whole prompt and chooses Lynx for the chunked one.
  const int64_t T = 32768, budget = 2048;
  const double whole = predicted_s("int8-g64", 25, T, 0, 0, true) / predicted_s("lynx-a4r4-g64", 25, T, 0, 0, true);
  const double chunked = predicted_s("int8-g64", 25, T, 0, 0, true, budget) /
                         predicted_s("lynx-a4r4-g64", 25, T, 0, 0, true, budget);
  REQUIRE(chunked > whole * 1.01);
  const std::vector<Request> one{make_request(0, 0, T, 8)};
  nlohmann::json config = adaptive(config_of("int8-g64", 25), {"lynx-a4r4-g64"}, "ttft_correct", (whole + chunked) / 2);
  config["transfer"]["mode"] = "layer-wise";
  CHECK(run_simulation(config, one).summary["metrics"]["format_requests"]["int8-g64"] == 1);
  config["cluster"]["prefill"]["chunked_prefill_tokens"] = budget;
  const SimRun chunked_run = run_simulation(config, one);
  CHECK(chunked_run.summary["metrics"]["format_requests"]["lynx-a4r4-g64"] == 1);
  // The simulated transfer starts when the last piece does: after the pieces before it.
  const RequestRecord& r = chunked_run.records.at(0);
  CHECK(r.transfer_start_s > r.prefill_start_s + 0.5 * (r.prefill_end_s - r.prefill_start_s));
}

TEST_CASE("format policy errors name the JSON path") {
  nlohmann::json c = config_of("int8-g64", 25);
  c["transfer"]["adaptive_formats"] = {"int4-g64"};
  CHECK(contains(error_of(c), "$.transfer.adaptive_formats"));
  CHECK(contains(error_of(c), "without \"format_policy\": \"adaptive\""));
  c = config_of("int8-g64", 25);
  c["transfer"]["format_policy"] = "adaptive";
  CHECK(contains(error_of(c), "$.transfer.adaptive_formats: missing field"));
  CHECK(contains(error_of(adaptive(config_of("int8-g64", 25), {"int4-g64", "int9-g0"}, "ttft")),
                 "$.transfer.adaptive_formats[1]: expected a KV format name"));
  CHECK(contains(error_of(adaptive(config_of("int8-g64", 25), {"int8-g64"}, "ttft")),
                 "$.transfer.adaptive_formats[0]: expected a format other than the run's format"));
  CHECK(contains(error_of(adaptive(config_of("int8-g64", 25), {"int4-g64", "int4-g64"}, "ttft")),
                 "$.transfer.adaptive_formats[1]: expected a format not listed before"));
  CHECK(contains(error_of(adaptive(config_of("lynx-a4r4-g64", 25), {"lynx-a2r6-g64"}, "ttft")),
                 "$.transfer.adaptive_formats[0]: expected at most one lynx-* format"));
  CHECK(contains(error_of(adaptive(config_of("int8-g64", 25), {}, "ttft")), "$.transfer.adaptive_formats"));
  nlohmann::json bad = adaptive(config_of("int8-g64", 25), {"int4-g64"}, "ttft");
  bad["transfer"]["adaptive_formats"] = {3};
  CHECK(contains(error_of(bad), "$.transfer.adaptive_formats[0]: expected a KV format name (a string), got 3"));
  bad = adaptive(config_of("int8-g64", 25), {"int4-g64"}, "fastest");
  CHECK(contains(error_of(bad), "$.transfer.adaptive_objective"));
}
