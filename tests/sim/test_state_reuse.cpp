// The reuse of finished requests' states (sim/cluster/simulation.cpp, SpareStates): every run resets a finished
// request's state and gives it to a later arrival. With reuse_request_states = false each state is freed instead;
// both must give the same requests.csv and summary to the byte. The suite's AddressSanitizer build runs these cases
// too: the reused path with the waiting states poisoned, the other with freed states, so that a handler touching a
// finished request's state is reported on either path.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sim/output/requests_csv.hpp"
#include "sim_test_support.hpp"

using namespace lynx;
using lynx::test::make_request;
using lynx::test::run_simulation;

namespace {

// 400 requests arriving faster than one instance serves them, so that many are in flight at once and states are
// reused many times over; prompts of 1-12 blocks of 512 tokens, the first blocks of each shared with one of a few
// earlier prompts (prefix-cache hits), outputs of 1-64 tokens. A fixed linear congruential sequence.
std::vector<Request> workload() {
  std::vector<Request> requests;
  uint64_t x = 12345;
  auto next = [&x](uint64_t n) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return (x >> 33) % n;
  };
  double t = 0;
  for (int64_t i = 0; i < 400; ++i) {
    t += 0.002 * static_cast<double>(next(40));
    const int64_t blocks = 1 + static_cast<int64_t>(next(12));
    Request r = make_request(i, t, blocks * 512 - static_cast<int64_t>(next(300)), 1 + static_cast<int64_t>(next(64)));
    const uint64_t family = next(5), shared = next(static_cast<uint64_t>(blocks) + 1);
    for (int64_t b = 0; b < blocks; ++b)
      r.prefix_block_hashes.push_back(static_cast<uint64_t>(b) < shared ? family * 1000 + static_cast<uint64_t>(b)
                                                                         : 1'000'000 + static_cast<uint64_t>(i * 100 + b));
    requests.push_back(std::move(r));
  }
  return requests;
}

void check_same_both_ways(const nlohmann::json& config) {
  const std::vector<Request> requests = workload();
  const test::SimRun reused = run_simulation(config, requests, true);
  const test::SimRun fresh = run_simulation(config, requests, false);
  REQUIRE(reused.records.size() == requests.size());
  CHECK(requests_csv(reused.records) == requests_csv(fresh.records));
  CHECK(reused.summary.dump() == fresh.summary.dump());
  CHECK(reused.flows == fresh.flows);
}

}  // namespace

TEST_CASE("state reuse: Lynx with aging residuals, a prefix cache, prefix-aware routing and chunked prefill") {
  check_same_both_ways({{"model", "llama-3.1-8b"},
                        {"format", "lynx-a4r4-g64"},
                        {"compute_model", "roofline"},
                        {"cluster",
                         {{"prefill", {{"instances", 2}, {"prefix_cache", true}, {"chunked_prefill_tokens", 2048}}},
                          {"decode", {{"instances", 2}, {"max_batch", 16}}},
                          {"network", {{"nic_gbps", 10}}},
                          {"router", "prefix-aware"}}},
                        {"transfer", {{"residual_policy", "aging"}, {"residual_max_wait_ms", 20}}},
                        {"lynx", {{"acceptance_rate", 0.8}}}});
}

TEST_CASE("state reuse: the adaptive format policy, after the prefill, one iteration per event") {
  check_same_both_ways({{"model", "llama-3.1-8b"},
                        {"format", "int8-g64"},
                        {"compute_model", "roofline"},
                        {"cluster",
                         {{"prefill", {{"instances", 2}}},
                          {"decode", {{"instances", 1}, {"max_batch", 8}, {"plan_iterations", false}}},
                          {"network", {{"nic_gbps", 25}, {"topology", "leaf-spine"}, {"hosts_per_rack", 2}}}}},
                        {"transfer",
                         {{"mode", "after-prefill"},
                          {"format_policy", "adaptive"},
                          {"adaptive_formats", {"lynx-a4r4-g64", "int4-g64"}}}},
                        {"lynx", {{"acceptance_rate", 0.9}}}});
}
