// The speed benchmark's baseline (sim/engine/bare_replay.hpp) and its input (sim/engine/flow_log.hpp): the event loop's flow log
// read back as written, re-weightings included; the bare replay of it against closed forms (max-min with weights on
// one NIC, a re-weighting mid-flow), with every flow started exactly at its logged time, also where a single
// Engine::run_until returns early; and the SimGrid items `--cfg` accepts or refuses (sim/engine/simgrid_options.hpp). Each simulation in its own process.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "sim/engine/bare_replay.hpp"
#include "common/error.hpp"
#include "sim/engine/event_loop.hpp"
#include "tests/sim/number_text.hpp"
#include "sim/engine/flow_log.hpp"
#include "sim/engine/isolated_run.hpp"
#include "sim/engine/simgrid_options.hpp"

using namespace lynx;

namespace {
std::string temp_path(const char* name) { return "/tmp/test_flow_replay." + std::to_string(getpid()) + "." + name; }

NetworkConfig one_gb_per_s() {
  NetworkConfig n;
  n.nic_gbps = 8;  // 1e9 bytes/s per NIC
  n.latency_us = 0;
  return n;
}

}  // namespace

TEST_CASE("the event loop's flow log holds the platform and each flow as it started") {
  const std::string path = temp_path("log.bin");
  run_isolated([&] {
    EventLoop loop(one_gb_per_s(), std::vector<PlatformNode>{{"a", 2}, {"b", 1}}, {"network/optim:Full"});
    loop.log_flows_to(path);
    loop.at(0.25, [&] { loop.send(0, 2, 1000, 3.0, nullptr, [] {}); });
    loop.at(0.5, [&] { loop.send(1, 2, 2000, 1.0, nullptr, [] {}); });
    loop.run();
    return std::string();
  });
  const FlowLog log = flow_log_read(path);
  std::remove(path.c_str());
  CHECK(log.network.nic_gbps == 8);
  REQUIRE(log.nodes.size() == 2);
  CHECK(log.nodes[0].nics == 2);
  CHECK(log.nodes[1].nics == 1);
  REQUIRE(log.simgrid_cfg.size() >= 1);
  CHECK(log.simgrid_cfg.back() == "network/optim:Full");
  REQUIRE(log.flows.size() == 2);
  CHECK(log.flows[0].start_s == 0.25);
  CHECK(log.flows[0].src == 0);
  CHECK(log.flows[0].dst == 2);
  CHECK(log.flows[0].bytes == 1000);
  CHECK(log.flows[0].weight == 3.0);
  CHECK(log.flows[1].start_s == 0.5);
  CHECK(log.flows[1].src == 1);
  CHECK(log.flows[1].bytes == 2000);
}

// Two 1e9 B flows into one 1e9 B/s NIC from 0 s, equal weights; at 0.5 s the second is re-weighted to 3 (as Lynx
// residual aging does). Each has 0.75e9 B left at 0.5 s; then f1 gets 3/4: it ends at 0.5 + 0.75e9 / 0.75e9 = 1.5 s;
// f0 sent 0.25e9 B meanwhile, its last 0.5e9 B at full rate: it ends at 2 s. The log carries the re-weighting and the
// replay applies it, so both end where the simulator's flows ended.
TEST_CASE("a re-weighting is logged and the bare replay applies it at its time") {
  const std::string path = temp_path("reweight.bin");
  const std::vector<double> simulated = parse_numbers_text(run_isolated([&] {
    EventLoop loop(one_gb_per_s(), std::vector<PlatformNode>{{"a", 1}, {"b", 1}, {"c", 1}});
    loop.log_flows_to(path);
    std::vector<double> ends(4, -1);  // the two flows' ends, then what the two re-weightings returned
    EventLoop::FlowHandle second = nullptr;
    loop.at(0.0, [&] {
      loop.send(0, 2, 1000000000, 1.0, [&] { ends[0] = loop.now(); }, [] {});
      second = loop.send(1, 2, 1000000000, 1.0, [&] { ends[1] = loop.now(); }, [] {});
    });
    loop.at(0.5, [&] { ends[2] = loop.reweight(second, 3.0); });
    loop.at(1.75, [&] { ends[3] = loop.reweight(second, 5.0); });  // f1 has ended: refused, not logged
    loop.run();
    return numbers_text(ends);
  }));
  const FlowLog log = flow_log_read(path);
  std::remove(path.c_str());
  REQUIRE(log.flows.size() == 2);
  REQUIRE(log.reweights.size() == 1);
  CHECK(log.reweights[0].time_s == 0.5);
  CHECK(log.reweights[0].flow == 1);
  CHECK(log.reweights[0].weight == 3.0);
  CHECK(log.reweights[0].after_flows == 2);
  REQUIRE(simulated.size() == 4);
  CHECK(simulated[0] == doctest::Approx(2.0).epsilon(1e-12));
  CHECK(simulated[1] == doctest::Approx(1.5).epsilon(1e-12));
  CHECK(simulated[2] == 1);
  CHECK(simulated[3] == 0);
  const std::vector<double> replayed = parse_numbers_text(run_isolated([&] {
    const ReplayResult result = bare_replay(log, true, true);
    return numbers_text({result.end_s[0], result.end_s[1], static_cast<double>(result.reweighted)});
  }));
  REQUIRE(replayed.size() == 3);
  CHECK(replayed[0] == simulated[0]);
  CHECK(replayed[1] == simulated[1]);
  CHECK(replayed[2] == 1);
}

TEST_CASE("a file that is not a flow log is one error naming it") {
  const std::string path = temp_path("bad.bin");
  std::FILE* f = std::fopen(path.c_str(), "w");
  std::fputs("not a flow log at all, just text", f);
  std::fclose(f);
  const std::string expected = path + ": not a flow log";
  CHECK_THROWS_WITH_AS(flow_log_read(path), doctest::Contains(expected.c_str()), LynxError);
  std::remove(path.c_str());
}

// Two flows into one 1e9 B/s NIC: f0 (1e9 B, weight 1) from 0; f1 (1e9 B, weight 3) from 0.5 s. From 0.5 s f1 gets
// 3/4 of the link: it ends at 0.5 + 1e9 / 0.75e9 = 1.8333 s; f0 has 0.5e9 - 0.25e9 x 4/3 = 1/6 e9 left, at full
// rate: it ends at 2 s (2e9 bytes at 1e9 B/s, work-conserving).
TEST_CASE("the bare replay reproduces weighted max-min closed forms and starts each flow at its time") {
  FlowLog log;
  log.network = one_gb_per_s();
  log.nodes = {{"a", 1}, {"b", 1}, {"c", 1}};
  log.flows = {{0.0, 0, 2, 1000000000, 1.0, 0.0}, {0.5, 1, 2, 1000000000, 3.0, 0.0}};  // rate_bound 0: none
  const std::vector<double> r = parse_numbers_text(run_isolated([&] {
    const ReplayResult result = bare_replay(log, true, true);
    return numbers_text({result.start_s[0], result.start_s[1], result.end_s[0], result.end_s[1],
                    static_cast<double>(result.completed), static_cast<double>(result.early)});
  }));
  REQUIRE(r.size() == 6);
  CHECK(r[0] == 0.0);
  CHECK(r[1] == 0.5);
  CHECK(r[2] == doctest::Approx(2.0).epsilon(1e-12));
  CHECK(r[3] == doctest::Approx(0.5 + 4.0 / 3.0).epsilon(1e-12));
  CHECK(r[4] == 2);
  CHECK(r[5] == 0);
}

// SimGrid 3.32's run_until(t) returns at a flow's end when it falls within the solver's precision (1e-5 s here)
// before t. f0 (1e9 B at 1e9 B/s) ends at 1 s; f1 is due at 1 s + 5 us. Called once, run_until leaves the clock at
// 1 s and f1 would start 5 us early; the replay loops until the clock has reached 1.000005 s.
TEST_CASE("a flow due just after another's end starts at its time, not at the end SimGrid stopped at") {
  FlowLog log;
  log.network = one_gb_per_s();
  log.nodes = {{"a", 1}, {"b", 1}};
  log.flows = {{0.0, 0, 1, 1000000000, 1.0, 0.0}, {1.000005, 0, 1, 1000, 1.0, 0.0}};
  const auto starts = [&](bool loop_until) {
    return parse_numbers_text(run_isolated([&] {
      const ReplayResult result = bare_replay(log, loop_until, true);
      return numbers_text({result.start_s[1], static_cast<double>(result.early)});
    }));
  };
  const std::vector<double> looped = starts(true), naive = starts(false);
  CHECK(looped[0] == 1.000005);
  CHECK(looped[1] == 0);
  CHECK(naive[0] < 1.000005);  // what the loop is there for: SimGrid stopped short
  CHECK(naive[1] == 1);
}

TEST_CASE("--cfg takes the solver's items and refuses the model's") {
  CHECK_NOTHROW(simgrid_options_check({"network/optim:Full", "network/optim:Lazy", "maxmin/precision:1e-6"}, "--cfg"));
  CHECK_THROWS_WITH_AS(simgrid_options_check({"network/model:LV08"}, "--cfg"),
                       doctest::Contains("--cfg network/model:LV08: refused"), LynxError);
  CHECK_THROWS_WITH_AS(simgrid_options_check({"network/TCP-gamma:4194304"}, "--cfg"),
                       doctest::Contains("refused: network/TCP-gamma is part of the network model"), LynxError);
  CHECK_THROWS_WITH_AS(simgrid_options_check({"network/crosstraffic:1"}, "--cfg"), doctest::Contains("refused"),
                       LynxError);
  CHECK_THROWS_WITH_AS(simgrid_options_check({"network/optim:Fast"}, "--cfg"),
                       doctest::Contains("network/optim expects Lazy or Full"), LynxError);
  CHECK_THROWS_WITH_AS(simgrid_options_check({"network/optim"}, "--cfg"), doctest::Contains("expected ITEM:VALUE"),
                       LynxError);
  CHECK_THROWS_WITH_AS(simgrid_options_check({"contexts/factory:thread"}, "--cfg"),
                       doctest::Contains("unknown or not accepted"), LynxError);
}
