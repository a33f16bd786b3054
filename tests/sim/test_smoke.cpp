#include <doctest/doctest.h>

#include "sim_test_support.hpp"

using namespace lynx;
using namespace lynx::test;

TEST_CASE("smoke") {
  nlohmann::json c = {{"model", "llama-3.1-8b"}, {"format", "lynx-a4r4-g64"},
                      {"cluster", {{"network", {{"nic_gbps", 25}}}}}};
  SimRun run = run_simulation(c, {make_request(0, 0.0, 8192, 16), make_request(1, 0.5, 4096, 8)});
  for (auto& r : run.records)
    MESSAGE(r.id << " pf " << r.prefill_end_s << " anchor " << r.anchor_arrival_s << " resid " << r.residual_arrival_s
                 << " spec " << r.first_spec_token_s << " final " << r.first_token_s << " end " << r.end_s
                 << " spec_tokens " << r.spec_tokens << " acc " << r.accepted_tokens);
  MESSAGE(run.summary.dump(1));
}
