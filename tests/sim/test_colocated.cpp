// Co-located serving (sim/cluster/colocated_instance.hpp) and the clients that drive it: one request on an idle
// instance equals the closed form of its steps; a closed loop of C clients keeps exactly C requests in flight, each
// new one sent when one is done; the engines' KV caches bound what is in flight.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "models/arch/kv_size.hpp"
#include "sim/cluster/capacity.hpp"
#include "sim/cluster/simulation.hpp"
#include "sim/config/simulation_setup.hpp"
#include "sim/engine/isolated_run.hpp"
#include "sim/output/metrics.hpp"
#include "sim_test_support.hpp"
#include "tests/sim/number_text.hpp"

using namespace lynx;
using namespace lynx::test;

namespace {
nlohmann::json colocated_config(const std::string& engine, nlohmann::json decode_extra = nlohmann::json::object()) {
  nlohmann::json pool = {{"instances", 1}, {"gpu", "h100-sxm"}, {"engine", engine}};
  nlohmann::json decode = pool;
  decode.update(decode_extra);
  return {{"model", "qwen3-8b"},
          {"format", "bf16"},
          {"cluster", {{"serving", "colocated"}, {"colocated_instances", 1}, {"prefill", pool}, {"decode", decode}}}};
}
}  // namespace

TEST_CASE("one request on an idle co-located instance: its times are the closed form of its steps") {
  // A 20,000-token prompt in the engine's 8,192-token chunks (8192, 8192, 3616), the front end (its one-at-a-time
  // part and its latency) before it, then one
  // decode step per further token, each the engine's step cost at its context (host time exposed, no overlap).
  const int64_t prompt = 20000, output = 5;
  for (const char* engine : {"vllm-0.24", "sglang-0.5.14", "trtllm-1.3"}) {
    CAPTURE(engine);
    nlohmann::json extra = {{"frontend_ms", 12.5}, {"frontend_serial_ms", 3.0}, {"host_step_ms", 0.75},
                            {"host_per_request_us", 40},
                            {"overlap_scheduling", "off"}};
    if (std::string(engine) == "trtllm-1.3") extra["chunked_prefill"] = "on";
    const nlohmann::json config = colocated_config(engine, extra);
    const std::string text = run_isolated([&]() -> std::string {
      const std::vector<Request> requests{make_request(0, 1.0, prompt, output)};
      SimulationInputs in = make_inputs(config, requests);
      const SimulationResult result = simulate(in);
      const RequestRecord& r = result.records.at(0);
      // The closed form, from the same step cost the instance reads (the pool's ServingStepCost).
      const StepCostModel& cost = *in.decode_cost;
      const int64_t budget = in.decode_serving->limits.max_batched_tokens;
      const int64_t chunk_unit = std::string(engine) == "trtllm-1.3" ? 32 : 1;
      double t = 1.0 + 3e-3 + 12.5e-3;
      const double prefill_start = t;
      for (int64_t done = 0; done < prompt;) {
        int64_t n = std::min(prompt - done, budget);
        if (n < prompt - done) n = n / chunk_unit * chunk_unit;
        t += cost.mixed_seconds({PrefillPiece{n, done}}, DecodeWork{}, n);
        done += n;
      }
      const double first = t;
      const double per_token = static_cast<double>(model_kv_bytes(in.model, kv_format_parse("bf16"), 1 << 16).total()) /
                               (1 << 16);
      for (int64_t k = 1; k < output; ++k) {
        const double context = static_cast<double>(prompt + k);
        DecodeWork w;
        w.query_tokens = 1;
        w.sequences = 1;
        w.attended_tokens = context;
        w.kv_bytes_read = context * per_token;
        w.attention_kv_tokens = context;
        t += cost.mixed_seconds({}, w, 1);
      }
      return numbers_text({r.prefill_start_s, prefill_start, r.first_token_s, first, r.end_s, t,
                           static_cast<double>(r.prefill_instance), static_cast<double>(r.decode_instance),
                           r.transfer_start_s});
    });
    const std::vector<double> v = parse_numbers_text(text);
    REQUIRE(v.size() == 9);
    CHECK(v[0] == doctest::Approx(v[1]).epsilon(1e-12));
    CHECK(v[2] == doctest::Approx(v[3]).epsilon(1e-12));
    CHECK(v[4] == doctest::Approx(v[5]).epsilon(1e-12));
    CHECK(v[2] > v[0]);
    CHECK(v[6] == 0);
    CHECK(v[7] == 0);
    CHECK(std::isnan(v[8]));  // no KV crossed
  }
}

TEST_CASE("an instance's front end serves one request at a time: requests sent at once reach the engine in turn") {
  // Three requests at t = 1 s; the front end's one-at-a-time part takes 2 s each, far longer than a request's whole
  // run, then 0.5 s of latency: request i reaches the idle engine at 1 + 2 (i + 1) + 0.5 s, so its prefill starts
  // there and its times are request 0's shifted by 2i s.
  const nlohmann::json config = colocated_config("vllm-0.24", {{"frontend_serial_ms", 2000.0}, {"frontend_ms", 500.0}});
  const std::string text = run_isolated([&]() -> std::string {
    std::vector<Request> requests;
    for (int i = 0; i < 3; ++i) requests.push_back(make_request(i, 1.0, 1000, 10));
    SimulationInputs in = make_inputs(config, requests);
    const SimulationResult result = simulate(in);
    std::vector<double> out;
    for (const RequestRecord& r : result.records) out.insert(out.end(), {r.prefill_start_s, r.first_token_s, r.end_s});
    return numbers_text(out);
  });
  const std::vector<double> v = parse_numbers_text(text);
  REQUIRE(v.size() == 9);
  CHECK(v[2] < 5.5);  // request 0 is done before request 1 reaches the engine
  for (int i = 0; i < 3; ++i) {
    CAPTURE(i);
    CHECK(v[3 * i] == doctest::Approx(1.0 + 2.0 * (i + 1) + 0.5).epsilon(1e-12));
    CHECK(v[3 * i + 1] - v[3 * i] == doctest::Approx(v[1] - v[0]).epsilon(1e-9));
    CHECK(v[3 * i + 2] - v[3 * i] == doctest::Approx(v[2] - v[0]).epsilon(1e-9));
  }
}

TEST_CASE("a closed loop of C clients keeps exactly C requests in flight, each sent when one is done") {
  const int clients = 3, count = 20;
  const nlohmann::json config = colocated_config("vllm-0.24");
  const std::string text = run_isolated([&]() -> std::string {
    std::vector<Request> requests;
    for (int i = 0; i < count; ++i) requests.push_back(make_request(i, 0.0, 500 + 100 * (i % 4), 20 + 7 * (i % 3)));
    SimulationInputs in = make_inputs(config, requests);
    in.max_concurrency = clients;
    const SimulationResult result = simulate(in);
    std::vector<double> out;
    for (const RequestRecord& r : result.records) {
      out.push_back(r.arrival_s);
      out.push_back(r.end_s);
    }
    return numbers_text(out);
  });
  const std::vector<double> v = parse_numbers_text(text);
  REQUIRE(v.size() == 2 * count);
  std::vector<std::pair<double, int>> events;
  std::vector<double> ends;
  for (int i = 0; i < count; ++i) {
    events.emplace_back(v[2 * i], +1);
    events.emplace_back(v[2 * i + 1], -1);
    ends.push_back(v[2 * i + 1]);
  }
  std::sort(events.begin(), events.end());  // at one time, an end (-1) before the send it frees (+1)
  int in_flight = 0, most = 0;
  for (const auto& [time, delta] : events) {
    in_flight += delta;
    most = std::max(most, in_flight);
    CHECK(in_flight >= 0);
  }
  CHECK(most == clients);
  // The first C at once; every later one exactly at an earlier request's end (its client's).
  for (int i = 0; i < clients; ++i) CHECK(v[2 * i] == 0.0);
  std::sort(ends.begin(), ends.end());
  for (int i = clients; i < count; ++i) {
    CAPTURE(i);
    CHECK(v[2 * i] == ends[static_cast<size_t>(i - clients)]);
  }
}

TEST_CASE("co-located serving needs the two pools on the same GPUs and a named engine") {
  nlohmann::json c = colocated_config("vllm-0.24");
  c["cluster"]["prefill"]["tp"] = 2;
  c["workload"] = {{"synthetic", {{"arrival", "at-once"}, {"count", 1}, {"input_tokens", {{"fixed", 10}}},
                                  {"output_tokens", {{"fixed", 2}}}}}};
  CHECK_THROWS_WITH_AS(sim_config_from_json(c, "cfg.json", ""),
                       doctest::Contains("$.cluster.serving: expected co-located serving on the pools' GPUs: prefill "
                                         "and decode of the same tp"),
                       LynxError);
  c = colocated_config("vidur-2024");
  c["workload"] = nlohmann::json::object();
  CHECK_THROWS_WITH_AS(sim_config_from_json(c, "cfg.json", ""), doctest::Contains("with a named engine"), LynxError);
  c = colocated_config("vllm-0.24");
  c["cluster"].erase("serving");
  c["workload"] = nlohmann::json::object();
  CHECK_THROWS_WITH_AS(sim_config_from_json(c, "cfg.json", ""),
                       doctest::Contains("no colocated_instances without \"serving\": \"colocated\""), LynxError);
}

TEST_CASE("the engines size their KV caches by their own rules (one H100, Qwen3-8B in bf16)") {
  // vLLM: 0.9 x 79.19 GiB - 15.27 GiB of weights - the start-up peak (AIConfigurator's activations of 8,192 tokens x
  // 4096 x 11 bytes x 2 + 551 MiB): 55.2 GiB, 375,000-odd tokens of 144 KiB; SGLang: mem_fraction_static 0.835 (its
  // reserve of 13,440 MiB of 81,559) x 79.19 - 15.27; TRT-LLM: 0.9 x (79.19 - 15.27 - the same peak).
  const std::string text = run_isolated([]() -> std::string {
    std::vector<double> out;
    for (const char* engine : {"vllm-0.24", "sglang-0.5.14", "trtllm-1.3"}) {
      nlohmann::json c = colocated_config(engine);
      SimulationInputs in = make_inputs(c, {make_request(0, 0, 10, 2)});
      out.push_back(in.decode_serving->kv_bytes_per_gpu);
      out.push_back(static_cast<double>(in.decode_serving->kv_tokens));
      out.push_back(in.decode_serving->memory_fraction);
      out.push_back(weight_bytes(in));
    }
    return numbers_text(out);
  });
  const std::vector<double> v = parse_numbers_text(text);
  REQUIRE(v.size() == 12);
  const double GiB = 1024.0 * 1024 * 1024, total = 79.19 * GiB, weights = v[3];
  CHECK(weights == doctest::Approx(16.38e9).epsilon(0.005));  // 8.19 B parameters in bf16
  const double peak = 2.0 * 8192 * 4096 * 11 + 551.0 * 1024 * 1024;
  CHECK(v[0] == doctest::Approx(0.9 * total - weights - peak).epsilon(1e-12));
  CHECK(v[2] == 0.9);
  CHECK(v[6] == doctest::Approx(0.835).epsilon(1e-12));
  CHECK(v[4] == doctest::Approx(0.835 * total - weights).epsilon(1e-12));
  CHECK(v[8] == doctest::Approx(0.9 * (total - weights - peak)).epsilon(1e-12));
  // tokens: whole blocks of 16 (vLLM), 1 (SGLang), 32 (TRT-LLM) of 147,456 bytes a token
  CHECK(v[1] == std::floor(v[0] / 147456 / 16) * 16);
  CHECK(v[5] == std::floor(v[4] / 147456));
  CHECK(v[9] == std::floor(v[8] / 147456 / 32) * 32);
}

TEST_CASE("a decode front end slower than the layers' KV chunks: the request asks for decode memory once") {
  // Layer-wise transfer (the default mode): every layer's KV chunk is ready during the prefill. The decode engine's
  // front end holds the memory request for 300 ms, far longer than the prefill, so every later chunk is ready while
  // the request waits there; they join the one request. The transfer starts when the front end lets it through: the
  // memory wait is the front end's time (an idle decode instance grants at once).
  nlohmann::json pool = {{"instances", 1}, {"gpu", "h100-sxm"}, {"engine", "vllm-0.24"}};
  nlohmann::json decode = pool;
  decode.update({{"frontend_serial_ms", 100.0}, {"frontend_ms", 200.0}});
  const nlohmann::json config = {{"model", "qwen3-8b"}, {"format", "bf16"}, {"cluster", {{"prefill", pool}, {"decode", decode}}}};
  const std::string text = run_isolated([&]() -> std::string {
    SimulationInputs in = make_inputs(config, {make_request(0, 1.0, 4000, 10)});
    const SimulationResult result = simulate(in);
    const RequestRecord& r = result.records.at(0);
    return numbers_text({r.prefill_start_s, r.prefill_end_s, r.transfer_start_s, r.decode_memory_wait_s});
  });
  const std::vector<double> v = parse_numbers_text(text);
  REQUIRE(v.size() == 4);
  CHECK(v[1] - v[0] < 0.3);                                // the prefill is shorter than the front end
  CHECK(v[2] > v[1]);                                      // so the transfer starts after it
  CHECK(v[3] == doctest::Approx(0.3).epsilon(1e-9));       // the memory wait is the front end's 300 ms
  CHECK(v[2] - v[3] < v[1]);                               // asked for during the prefill (the first layer's chunk)
}

TEST_CASE("requests that arrive together are spread over the instances while the front ends hold them") {
  // Eight equal requests at t = 1 s, four instances, a front end of 10 ms latency: the least-loaded router counts a
  // request in its instance's load from the moment it chooses, so the eight go two to each instance, co-located or
  // to a disaggregated prefill pool (before, the loads changed only when the requests reached the engines and all
  // eight went to instance 0).
  for (const char* serving : {"colocated", "disaggregated"}) {
    CAPTURE(serving);
    nlohmann::json pool = {{"instances", 4}, {"gpu", "h100-sxm"}, {"engine", "vllm-0.24"}, {"frontend_ms", 10.0},
                           {"frontend_serial_ms", 0.0}};
    nlohmann::json cluster = {{"serving", serving}, {"router", "least-loaded"}, {"prefill", pool}, {"decode", pool}};
    if (std::string(serving) == "colocated") cluster["colocated_instances"] = 4;
    const nlohmann::json config = {{"model", "qwen3-8b"}, {"format", "bf16"}, {"cluster", cluster}};
    const std::string text = run_isolated([&]() -> std::string {
      std::vector<Request> requests;
      for (int i = 0; i < 8; ++i) requests.push_back(make_request(i, 1.0, 1000, 10));
      SimulationInputs in = make_inputs(config, requests);
      const SimulationResult result = simulate(in);
      std::vector<double> per_instance(4, 0.0);
      for (const RequestRecord& r : result.records) per_instance.at(static_cast<size_t>(r.prefill_instance)) += 1;
      return numbers_text(per_instance);
    });
    CHECK(parse_numbers_text(text) == std::vector<double>{2, 2, 2, 2});
  }
}

TEST_CASE("summary.json counts the engine's preemptions of a co-located run, and only of one") {
  // One request alone is never preempted; 40 prompts of 30,000 tokens with 1,000 output tokens each, at once,
  // overflow one H100's KV cache (399K tokens beside Qwen3-8B's weights: 13 such prompts) as their outputs grow, so
  // vLLM preempts, and each preemption is counted; a disaggregated run has no such count. Each run in its own
  // process (one SimGrid engine per process).
  auto metric = [](const nlohmann::json& config, int count, int64_t prompt) {
    const std::string text = run_isolated([&config, count, prompt]() -> std::string {
      std::vector<Request> requests;
      for (int i = 0; i < count; ++i) requests.push_back(make_request(i, 0.0, prompt, 1000));
      SimulationInputs in = make_inputs(config, requests);
      const SimulationResult result = simulate(in);
      const nlohmann::json metrics = summary_json(in, result, "test")["metrics"];
      return numbers_text({metrics.contains("preemptions") ? metrics["preemptions"].get<double>() : -1.0,
                           static_cast<double>(result.preemptions)});
    });
    return parse_numbers_text(text);
  };
  const std::vector<double> alone = metric(colocated_config("vllm-0.24"), 1, 30000);
  const std::vector<double> crowd = metric(colocated_config("vllm-0.24"), 40, 30000);
  nlohmann::json disaggregated = colocated_config("vllm-0.24");
  disaggregated["cluster"].erase("serving");
  disaggregated["cluster"].erase("colocated_instances");
  const std::vector<double> apart = metric(disaggregated, 1, 1000);
  REQUIRE(alone.size() == 2);
  REQUIRE(crowd.size() == 2);
  REQUIRE(apart.size() == 2);
  CHECK(alone[0] == 0);
  CHECK(crowd[0] > 0);
  CHECK(crowd[0] == crowd[1]);
  CHECK(apart[0] == -1);  // no key
}
