// The network layer against closed forms: SimGrid flows under the exact model, our propagation delay, weighted
// sharing (the regression tests of flow_priority.cpp) and the topologies. Each case runs in its own process.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>
#include <functional>

#include <simgrid/s4u/Exec.hpp>

#include "common/error.hpp"
#include "sim/engine/event_loop.hpp"
#include "sim/engine/event_driver.hpp"
#include "sim/engine/isolated_run.hpp"
#include "sim/engine/simgrid_parts.hpp"
#include "tests/sim/number_text.hpp"

using namespace lynx;

namespace {
std::vector<std::string> names(int n) {
  std::vector<std::string> v;
  for (int i = 0; i < n; ++i) v.push_back("n" + std::to_string(i));
  return v;
}
// Runs `setup` on a fresh loop, then the loop; returns the delivery times it recorded, as text.
std::vector<double> deliveries(const NetworkConfig& network, int nodes,
                               const std::function<void(EventLoop&, std::vector<double>&)>& setup) {
  std::string text = run_isolated([&] {
    EventLoop loop(network, names(nodes));
    std::vector<double> times;
    setup(loop, times);
    loop.run();
    return numbers_text(times);
  });
  return parse_numbers_text(text);
}
void record_at(std::vector<double>& times, size_t i, EventLoop& loop) {
  if (times.size() <= i) times.resize(i + 1, NAN);
  times[i] = loop.now();
}
}  // namespace

TEST_CASE("a transfer on an idle link takes bytes/bandwidth + latency, exactly") {
  NetworkConfig net;
  net.nic_gbps = 100;
  net.latency_us = 5;
  auto t = deliveries(net, 2, [](EventLoop& loop, std::vector<double>& times) {
    loop.send(0, 1, 1000000000, 1.0, nullptr, [&] { record_at(times, 0, loop); });
  });
  CHECK(t[0] == doctest::Approx(1e9 / 12.5e9 + 5e-6).epsilon(1e-12));
}

// A flow sent with a listener (the transfer engine's) is told the same moments as one sent with handlers: its last
// byte out, then its arrival a route latency later, with its tag and bytes, and counted alike; with no latency both
// come at once. Two flows of each kind, on their own links, side by side.
TEST_CASE("a flow's listener is told its sending and its delivery as a flow's handlers are") {
  for (const double latency_us : {5.0, 0.0}) {
    CAPTURE(latency_us);
    NetworkConfig net;
    net.nic_gbps = 100;
    net.latency_us = latency_us;
    const std::string text = run_isolated([&] {
      struct Listener : EventLoop::FlowListener {
        EventLoop* loop = nullptr;
        std::vector<double> times;  // sent, delivered, per tag 0 and 1
        std::vector<double> bytes;
        void flow_sent(uint64_t tag) override { put(2 * tag, loop->now()); }
        void flow_delivered(uint64_t tag, uint64_t b) override {
          put(2 * tag + 1, loop->now());
          bytes.push_back(static_cast<double>(tag * 10) + static_cast<double>(b));
        }
        void put(uint64_t i, double t) {
          if (times.size() <= i) times.resize(i + 1, NAN);
          times[i] = t;
        }
      };
      EventLoop loop(net, names(8));
      Listener listener;
      listener.loop = &loop;
      std::vector<double> handler_times(4, NAN);
      loop.send(0, 1, 1000000000, 1.0, [&] { handler_times[0] = loop.now(); }, [&] { handler_times[1] = loop.now(); });
      loop.send(2, 3, 1000000000, 1.0, listener, 0);
      loop.at(0.01, [&] {
        loop.send(4, 5, 500000000, 1.0, [&] { handler_times[2] = loop.now(); }, [&] { handler_times[3] = loop.now(); });
        loop.send(6, 7, 500000000, 1.0, listener, 1);
      });
      loop.run();
      std::vector<double> all = handler_times;
      all.insert(all.end(), listener.times.begin(), listener.times.end());
      all.insert(all.end(), listener.bytes.begin(), listener.bytes.end());
      all.push_back(static_cast<double>(loop.flows_delivered()));
      all.push_back(static_cast<double>(loop.bytes_delivered()));
      return numbers_text(all);
    });
    const std::vector<double> v = parse_numbers_text(text);
    REQUIRE(v.size() == 12);
    const double first_sent = 1e9 / 12.5e9, second_sent = 0.01 + 5e8 / 12.5e9, latency_s = latency_us * 1e-6;
    CHECK(v[0] == doctest::Approx(first_sent).epsilon(1e-12));
    CHECK(v[1] == doctest::Approx(first_sent + latency_s).epsilon(1e-12));
    CHECK(v[2] == doctest::Approx(second_sent).epsilon(1e-12));
    CHECK(v[3] == doctest::Approx(second_sent + latency_s).epsilon(1e-12));
    for (int i = 0; i < 4; ++i) CHECK(v[4 + i] == v[i]);  // the listener's, bit for bit
    CHECK(v[8] == 10.0 + 500000000.0);                     // tag 1's bytes (its flow arrives first)
    CHECK(v[9] == 1000000000.0);                           // tag 0's
    CHECK(v[10] == 4.0);
    CHECK(v[11] == 3e9);
  }
}

TEST_CASE("a transfer that starts later, and a timer event, keep exact time") {
  NetworkConfig net;
  net.nic_gbps = 200;
  net.latency_us = 2;
  auto t = deliveries(net, 2, [](EventLoop& loop, std::vector<double>& times) {
    loop.at(0.25, [&] {
      loop.send(1, 0, 50000000, 1.0, nullptr, [&] { record_at(times, 0, loop); });
      loop.at(0.25 + 1e-3, [&] { record_at(times, 1, loop); });
    });
  });
  CHECK(t[0] == doctest::Approx(0.25 + 5e7 / 25e9 + 2e-6).epsilon(1e-12));
  CHECK(t[1] == doctest::Approx(0.251).epsilon(1e-12));
}

TEST_CASE("an event queued earlier than the pending timer's target fires on time") {
  NetworkConfig net;
  net.nic_gbps = 8;  // 1 GB/s
  net.latency_us = 5;
  auto t = deliveries(net, 2, [](EventLoop& loop, std::vector<double>& times) {
    loop.at(10.0, [&] { record_at(times, 0, loop); });                            // a far timer is pending ...
    loop.send(0, 1, 1000000000, 1.0, nullptr, [&] { record_at(times, 1, loop); });        // ... when this lands at 1 s + 5 us
    loop.at(0.5, [&] { loop.at(0.75, [&] { record_at(times, 2, loop); }); });    // and events keep re-arming it
  });
  CHECK(t[0] == doctest::Approx(10.0).epsilon(1e-12));
  CHECK(t[1] == doctest::Approx(1.0 + 5e-6).epsilon(1e-12));
  CHECK(t[2] == doctest::Approx(0.75).epsilon(1e-12));
}

TEST_CASE("N equal transfers into one NIC each get 1/N of it") {
  for (int n : {2, 3, 7}) {
    NetworkConfig net;
    net.nic_gbps = 100;
    net.latency_us = 0;
    auto t = deliveries(net, n + 1, [n](EventLoop& loop, std::vector<double>& times) {
      for (int i = 0; i < n; ++i) loop.send(i, n, 100000000, 1.0, nullptr, [&times, &loop, i] { record_at(times, i, loop); });
    });
    for (int i = 0; i < n; ++i) CHECK(t[static_cast<size_t>(i)] == doctest::Approx(n * 1e8 / 12.5e9).epsilon(1e-12));
  }
}

TEST_CASE("max-min: a short and a long flow share, then the long one takes the whole link") {
  NetworkConfig net;
  net.latency_us = 0;
  net.nic_gbps = 100;
  auto t = deliveries(net, 2, [](EventLoop& loop, std::vector<double>& times) {
    loop.send(0, 1, 500000000, 1.0, nullptr, [&] { record_at(times, 0, loop); });
    loop.send(0, 1, 1000000000, 1.0, nullptr, [&] { record_at(times, 1, loop); });
  });
  CHECK(t[0] == doctest::Approx(0.08).epsilon(1e-12));   // 0.5 GB at half of 12.5 GB/s
  CHECK(t[1] == doctest::Approx(0.12).epsilon(1e-12));   // then 0.5 GB more at full rate
}

TEST_CASE("weight 1000: an anchor starting behind a running residual finishes within 0.2% of its time alone") {
  NetworkConfig net;
  net.latency_us = 0;
  net.nic_gbps = 100;
  const double anchor_alone = 2.5e8 / 12.5e9;
  auto t = deliveries(net, 2, [](EventLoop& loop, std::vector<double>& times) {
    loop.send(0, 1, 750000000, 1.0, nullptr, [&] { record_at(times, 0, loop); });  // residual, running first
    loop.at(0.01, [&] { loop.send(0, 1, 250000000, 1000.0, nullptr, [&] { record_at(times, 1, loop); }); });
  });
  const double anchor_time = t[1] - 0.01;
  CHECK(anchor_time <= anchor_alone * 1.002);
  CHECK(anchor_time == doctest::Approx(anchor_alone * 1001.0 / 1000.0).epsilon(1e-9));  // weighted max-min
  CHECK(t[0] == doctest::Approx(1e9 / 12.5e9).epsilon(1e-9));  // work-conserving: all bytes by 1 GB / C
}

TEST_CASE("weight 1e6 behaves as strict priority, even against 100 residual flows") {
  NetworkConfig net;
  net.latency_us = 0;
  net.nic_gbps = 100;
  auto t = deliveries(net, 2, [](EventLoop& loop, std::vector<double>& times) {
    for (int i = 0; i < 100; ++i) loop.send(0, 1, 10000000, 1.0, nullptr, [] {});
    loop.at(0.001, [&] { loop.send(0, 1, 250000000, 1e6, nullptr, [&] { record_at(times, 0, loop); }); });
  });
  CHECK(t[0] - 0.001 == doctest::Approx(2.5e8 / 12.5e9 * (1 + 100 / 1e6)).epsilon(1e-9));
}

TEST_CASE("weighted sharing 9:1 gives the heavier flow 90% of the link") {
  NetworkConfig net;
  net.latency_us = 0;
  auto t = deliveries(net, 2, [](EventLoop& loop, std::vector<double>& times) {
    loop.send(0, 1, 900000000, 9.0, nullptr, [&] { record_at(times, 0, loop); });
    loop.send(0, 1, 1000000000, 1.0, nullptr, [&] { record_at(times, 1, loop); });
  });
  CHECK(t[0] == doctest::Approx(0.9e9 / (0.9 * 12.5e9)).epsilon(1e-9));
  CHECK(t[1] == doctest::Approx(1.9e9 / 12.5e9).epsilon(1e-9));
}

TEST_CASE("split-duplex links carry both directions at full rate, shared links split them") {
  for (LinkSharing sharing : {LinkSharing::split_duplex, LinkSharing::shared}) {
    NetworkConfig net;
    net.latency_us = 0;
    net.link_sharing = sharing;
    auto t = deliveries(net, 2, [](EventLoop& loop, std::vector<double>& times) {
      loop.send(0, 1, 1000000000, 1.0, nullptr, [&] { record_at(times, 0, loop); });
      loop.send(1, 0, 1000000000, 1.0, nullptr, [&] { record_at(times, 1, loop); });
    });
    const double expected = sharing == LinkSharing::shared ? 0.16 : 0.08;
    CHECK(t[0] == doctest::Approx(expected).epsilon(1e-12));
    CHECK(t[1] == doctest::Approx(expected).epsilon(1e-12));
  }
}

TEST_CASE("leaf-spine: cross-rack flows share the oversubscribed uplink and pay the spine latency") {
  NetworkConfig net;
  net.topology = Topology::leaf_spine;
  net.hosts_per_rack = 2;
  net.oversubscription = 2;  // uplink = 2 x 100 Gbps / 2 = 100 Gbps
  net.latency_us = 3;
  net.spine_latency_us = 4;
  auto t = deliveries(net, 4, [](EventLoop& loop, std::vector<double>& times) {
    loop.send(0, 2, 100000000, 1.0, nullptr, [&] { record_at(times, 0, loop); });  // rack 0 -> rack 1
    loop.send(1, 3, 100000000, 1.0, nullptr, [&] { record_at(times, 1, loop); });  // rack 0 -> rack 1, same uplink
  });
  CHECK(t[0] == doctest::Approx(2e8 / 12.5e9 + 7e-6).epsilon(1e-12));
  CHECK(t[1] == doctest::Approx(2e8 / 12.5e9 + 7e-6).epsilon(1e-12));
  auto same_rack = deliveries(net, 4, [](EventLoop& loop, std::vector<double>& times) {
    loop.send(0, 1, 100000000, 1.0, nullptr, [&] { record_at(times, 0, loop); });
  });
  CHECK(same_rack[0] == doctest::Approx(1e8 / 12.5e9 + 3e-6).epsilon(1e-12));
}

TEST_CASE("lv08 applies SimGrid's default correction factors") {
  NetworkConfig net;
  net.model = NetworkModel::lv08;
  net.latency_us = 5;
  net.link_sharing = LinkSharing::shared;
  auto t = deliveries(net, 2, [](EventLoop& loop, std::vector<double>& times) {
    loop.send(0, 1, 1000000000, 1.0, nullptr, [&] { record_at(times, 0, loop); });
  });
  // 0.97 bandwidth factor, 5% cross traffic on a shared link, latency x 13.01.
  CHECK(t[0] == doctest::Approx(1.05 * 1e9 / (0.97 * 12.5e9) + 13.01 * 5e-6).epsilon(1e-6));
}

TEST_CASE("an exception in a handler stops the loop cleanly and comes out of run(), never through SimGrid") {
  NetworkConfig net;
  net.nic_gbps = 100;
  std::string message;
  try {
    run_isolated([&]() -> std::string {
      EventLoop loop(net, names(2));
      int delivered_after_error = 0;
      bool thrown = false;
      loop.send(0, 1, 1000000000, 1.0, nullptr, [&] { delivered_after_error += thrown ? 1 : 0; });  // ends at 0.08 s
      loop.at(0.01, [&] {
        thrown = true;
        throw LynxError("request 7: boom");
      });
      loop.at(0.02, [&] { throw LynxError("a later event must not run"); });
      loop.run();  // rethrows; the loop and SimGrid's engine are then destroyed while unwinding, in this process
      return "run() returned normally";
    });
  } catch (const LynxError& e) {
    message = e.what();
  }
  CHECK(message == "request 7: boom");
}

// The per-step scans read the network's model alone: the loop starts nothing but comms. With the check on, work
// in another of SimGrid's models (a computation, in its CPU model) is an internal error, not a silent look-ahead.
TEST_CASE("fast driver: with LYNX_CHECK_LOOK_AHEAD, an action in a SimGrid model other than the network's is an internal error") {
  setenv("LYNX_CHECK_LOOK_AHEAD", "1", 1);
  std::string message;
  try {
    run_isolated([&]() -> std::string {
      NetworkConfig net;
      net.nic_gbps = 100;
      EventLoop loop(net, names(2), EventDriver::fast);
      simgrid::s4u::ExecPtr exec;  // kept to the end: SimGrid must not lose the last handle of an activity it runs
      loop.at(0.01, [&] {
        exec = simgrid::s4u::Exec::init()->set_flops_amount(1.0)->set_host(simgrid_parts(loop).platform.hosts[0]);
        exec->start();
      });
      loop.send(0, 1, 1000000000, 1.0, nullptr, [] {});  // running until 0.08 s: the loop looks ahead meanwhile
      for (int i = 2; i <= 4; ++i) loop.at(0.01 * i, [] {});
      loop.run();
      return "run() returned normally";
    });
  } catch (const std::exception& e) {
    message = e.what();
  }
  unsetenv("LYNX_CHECK_LOOK_AHEAD");
  INFO(message);
  CHECK(message.find("a SimGrid model other than the network's holds an action") != std::string::npos);
}

TEST_CASE("an event at a time that is not a number is an internal error, from a handler or before the run") {
  NetworkConfig net;
  net.nic_gbps = 100;
  for (const bool from_handler : {true, false}) {
    CAPTURE(from_handler);
    std::string message;
    try {
      run_isolated([&]() -> std::string {
        EventLoop loop(net, names(2));
        if (from_handler)
          loop.at(0.01, [&] { loop.at(std::nan(""), [] {}); });
        else
          loop.at(std::nan(""), [] {});
        loop.run();
        return "run() returned normally";
      });
    } catch (const std::exception& e) {
      message = e.what();
    }
    CHECK(message.find("an event queued at a time that is not a number") != std::string::npos);
  }
}

TEST_CASE("a flow re-weighted while it sends shares by its new weight from then on") {
  // 1 GB/s link, two 1 GB flows into one node: weight 1 against 1000 (the light one gets 1/1001 of the link), and
  // at t = 0.5 s the light one is raised to 1000 (equal shares from then). Heavy: 0.5 * 1000/1001 GB by 0.5 s, the
  // rest at 1/2 GB/s; it ends at 0.5 + 2 * (1 - 0.5 * 1000/1001). The light one has 0.5/1001 GB by then, so
  // finishes after the heavy one alone at full rate.
  NetworkConfig net;
  net.nic_gbps = 8;
  net.latency_us = 0;
  auto t = deliveries(net, 3, [](EventLoop& loop, std::vector<double>& times) {
    EventLoop::FlowHandle light = loop.send(0, 2, 1000000000, 1.0, nullptr, [&] { record_at(times, 0, loop); });
    loop.send(1, 2, 1000000000, 1000.0, nullptr, [&] { record_at(times, 1, loop); });
    loop.at(0.5, [&loop, light, &times] {
      const bool still_sending = loop.reweight(light, 1000.0);
      record_at(times, 2, loop);
      times[2] = still_sending ? 1.0 : 0.0;
    });
  });
  const double heavy_end = 0.5 + 2 * (1 - 0.5 * 1000.0 / 1001.0);
  CHECK(t[2] == 1.0);
  CHECK(t[1] == doctest::Approx(heavy_end).epsilon(1e-9));
  const double light_sent_at_heavy_end = 0.5 / 1001.0 + (heavy_end - 0.5) * 0.5;
  CHECK(t[0] == doctest::Approx(heavy_end + (1 - light_sent_at_heavy_end)).epsilon(1e-9));
}

namespace {
struct AheadRun {
  std::string times;  // every recorded time, as text
  int ahead = 0;      // event times run ahead of SimGrid's clock
};
// Runs `scenario` (it returns its recorded times as text) in its own process, with the look-ahead on or off
// (LYNX_NO_LOOK_AHEAD, read when the loop is created), each look-ahead checked against a solve.
AheadRun run_with_look_ahead(bool look_ahead,
                             const std::function<std::pair<std::string, uint64_t>(EventDriver)>& scenario,
                             EventDriver driver = EventDriver::fast) {
  if (look_ahead) unsetenv("LYNX_NO_LOOK_AHEAD");
  else setenv("LYNX_NO_LOOK_AHEAD", "1", 1);
  setenv("LYNX_CHECK_LOOK_AHEAD", "1", 1);
  const std::string out = run_isolated([&scenario, driver] {
    const auto [times, ahead] = scenario(driver);
    return times + "ahead " + std::to_string(ahead);
  });
  unsetenv("LYNX_NO_LOOK_AHEAD");
  unsetenv("LYNX_CHECK_LOOK_AHEAD");
  const size_t cut = out.rfind("ahead ");
  return AheadRun{out.substr(0, cut), std::stoi(out.substr(cut + 6))};
}

NetworkConfig nic_100g_5us() {
  NetworkConfig net;
  net.nic_gbps = 100;
  net.latency_us = 5;
  return net;
}

std::pair<std::string, uint64_t> look_ahead_scenario(EventDriver driver) {
  EventLoop loop(nic_100g_5us(), names(3), driver);
  std::vector<double> times;
  EventLoop::FlowHandle a = nullptr;
  loop.at(1.0, [&] { a = loop.send(0, 2, 1000000000, 1.0, nullptr, [&] { record_at(times, 0, loop); }); });
  for (int i = 1; i <= 3; ++i) loop.at(1.0 + 0.01 * i, [&times, &loop, i] { record_at(times, 3 + i, loop); });
  // Ahead of the clock: a flow start and a re-weighting wait for it, and then share as if started at their time.
  loop.at(1.04, [&] { loop.send(1, 2, 100000000, 1.0, nullptr, [&] { record_at(times, 1, loop); }); });
  loop.at(1.045, [&] { CHECK(loop.reweight(a, 3.0)); record_at(times, 2, loop); });
  loop.run();
  return {numbers_text(times), loop.steps_ahead()};
}

// Two flows on disjoint links; the short one's delivery (5 us after its end) queues an event 1 ms later.
std::pair<std::string, uint64_t> completion_scenario(EventDriver driver) {
  EventLoop loop(nic_100g_5us(), names(4), driver);
  std::vector<double> times;
  loop.at(1.0, [&] {
    loop.send(0, 1, 125000000, 1.0, nullptr, [&] {
      record_at(times, 0, loop);
      loop.at(loop.now() + 1e-3, [&] { record_at(times, 2, loop); });
    });
    loop.send(2, 3, 1250000000, 1.0, nullptr, [&] { record_at(times, 1, loop); });
  });
  loop.run();
  return {numbers_text(times), loop.steps_ahead()};
}
}  // namespace

TEST_CASE("fast driver: events that touch no flow run ahead of SimGrid's clock, the times are those of a step per "
          "event, and the plain driver's") {
  const AheadRun ahead = run_with_look_ahead(true, look_ahead_scenario);
  const AheadRun stepped = run_with_look_ahead(false, look_ahead_scenario);
  const AheadRun plain = run_with_look_ahead(true, look_ahead_scenario, EventDriver::plain);
  CHECK(ahead.times == stepped.times);  // the same doubles, to the last digit
  CHECK(ahead.times == plain.times);
  CHECK(ahead.ahead >= 3);              // the events at 1.01-1.03 at least
  CHECK(stepped.ahead == 0);
  CHECK(plain.ahead == 0);
  // Closed form of the second flow: A alone to 1.04 (5e8 bytes sent), then half each of 12.5 GB/s until 1.045,
  // then A at weight 3 takes 3/4: B's 1e8 bytes are 6.25e6 x 5 ms = 3.125e7 by 1.045, the rest at 3.125 GB/s.
  const std::vector<double> t = parse_numbers_text(ahead.times);
  REQUIRE(t.size() == 7);
  CHECK(t[1] == doctest::Approx(1.045 + (1e8 - 6.25e9 * 0.005) / 3.125e9 + 5e-6).epsilon(1e-9));
  CHECK(t[2] == 1.045);
  CHECK(t[4] == 1.01);
  CHECK(t[6] == 1.03);
}

TEST_CASE("fast driver: after a flow's completion, the events before SimGrid's next change run ahead of its clock") {
  const AheadRun ahead = run_with_look_ahead(true, completion_scenario);
  const AheadRun stepped = run_with_look_ahead(false, completion_scenario);
  const AheadRun plain = run_with_look_ahead(true, completion_scenario, EventDriver::plain);
  CHECK(ahead.times == stepped.times);
  CHECK(ahead.times == plain.times);
  // The short flow's delivery and the event it queues run ahead of the long flow's end (1.1 s), and so does the
  // long flow's delivery (nothing is left to change): none of the three is a SimGrid step.
  CHECK(ahead.ahead == 3);
  CHECK(stepped.ahead == 0);
  const std::vector<double> t = parse_numbers_text(ahead.times);
  REQUIRE(t.size() == 3);
  CHECK(t[0] == doctest::Approx(1.0 + 1.25e8 / 12.5e9 + 5e-6).epsilon(1e-12));
  CHECK(t[1] == doctest::Approx(1.0 + 1.25e9 / 12.5e9 + 5e-6).epsilon(1e-12));
  CHECK(t[2] == doctest::Approx(1.0 + 1.25e8 / 12.5e9 + 5e-6 + 1e-3).epsilon(1e-12));
}

namespace {
// A flow (A) ends exactly at a queued event's time (1.1 s): that step holds both an event due and a completion.
// The event re-weights A (refused: its last byte has gone, though its on_sent has not run yet); A's completion queues
// an event for now, which sends B; B's completion queues one too.
// Returns what ran, in order, then the times, then the SimGrid timers the loop set.
std::string coinciding_step_scenario(EventDriver driver) {
  EventLoop loop(nic_100g_5us(), names(4), driver);
  std::string labels;
  std::vector<double> times;
  const auto note = [&](const std::string& what) {
    labels += what + ";";
    times.push_back(loop.now());
  };
  EventLoop::FlowHandle a = nullptr;
  loop.at(1.0, [&] {
    a = loop.send(0, 1, 1250000000, 1.0, [&] {
      note("A sent");
      loop.at(loop.now(), [&] {
        note("after A");
        loop.send(2, 3, 125000000, 1.0, [&] {
          note("B sent");
          loop.at(loop.now(), [&] { note("after B"); });
        }, [&] { note("B delivered"); });
      });
    }, [&] { note("A delivered"); });
  });
  loop.at(1.1, [&] { note(loop.reweight(a, 2.0) ? "event, A still sending" : "event, A done"); });
  loop.run();
  return labels + "\n" + numbers_text(times) + "\n" + std::to_string(loop.dispatch_timers());
}
}  // namespace

TEST_CASE("a step with an event due and a completion: the event, then the completion, then what it queues for now") {
  const std::string out = run_isolated([] { return coinciding_step_scenario(EventDriver::fast); });
  const std::string plain = run_isolated([] { return coinciding_step_scenario(EventDriver::plain); });
  // The plain driver: the same order and times, with no SimGrid timer.
  CHECK(plain.substr(0, plain.rfind('\n')) == out.substr(0, out.rfind('\n')));
  CHECK(plain.substr(plain.rfind('\n') + 1) == "0");
  const size_t first = out.find('\n'), second = out.rfind('\n');
  CHECK(out.substr(0, first) ==
        "event, A done;A sent;after A;A delivered;B sent;after B;B delivered;");
  // A's 1.25e9 bytes at 12.5 GB/s end at 1.0 + 0.1 = 1.1, the event's time; B's 1.25e8 bytes take 10 ms more.
  const std::vector<double> t = parse_numbers_text(out.substr(first + 1, second - first - 1));
  REQUIRE(t.size() == 7);
  CHECK(t[0] == 1.1);
  CHECK(t[1] == 1.1);
  CHECK(t[2] == 1.1);
  CHECK(t[3] == doctest::Approx(1.1 + 5e-6).epsilon(1e-12));
  CHECK(t[4] == doctest::Approx(1.11).epsilon(1e-12));
  CHECK(t[5] == t[4]);
  CHECK(t[6] == doctest::Approx(1.11 + 5e-6).epsilon(1e-12));
  // SimGrid runs its timers before a step's completions and looks for timers again after them if one ran. Here the
  // event ran at the step itself (our model's update); two timers keep that order for the completion's event, one
  // finding nothing due, the other running the event queued for now. B's end coincides with no event: the event
  // its completion queues runs at a zero-length step, with no timer.
  CHECK(out.substr(second + 1) == "2");
}

TEST_CASE("the fast driver runs on SimGrid 3.32 alone, elsewhere the loop falls back to the plain driver and says so") {
  CHECK(fast_driver_version_refusal(3, 32).empty());
  CHECK(fast_driver_version_refusal(3, 36).find("SimGrid 3.32's kernel; this is SimGrid 3.36") != std::string::npos);
  CHECK(fast_driver_version_refusal(4, 1).find("this is SimGrid 4.1") != std::string::npos);
  std::string outs[2];
  for (int declined = 0; declined < 2; ++declined) {
    setenv("LYNX_FAST_DRIVER_SIMGRID_VERSION", declined ? "3.36" : "", 1);
    outs[declined] = run_isolated([] {
      EventLoop loop(nic_100g_5us(), names(2), EventDriver::fast);
      std::vector<double> times;
      loop.send(0, 1, 1250000000, 1.0, nullptr, [&] { record_at(times, 0, loop); });
      loop.run();
      return std::string(event_driver_name(loop.driver())) + " " + numbers_text(times);
    });
    unsetenv("LYNX_FAST_DRIVER_SIMGRID_VERSION");
  }
  REQUIRE(outs[0].rfind("fast ", 0) == 0);
  REQUIRE(outs[1].rfind("plain ", 0) == 0);
  // The same flow at the same time, whichever driver ran it.
  CHECK(outs[0].substr(5) == outs[1].substr(6));
  CHECK(parse_numbers_text(outs[1].substr(6)).at(0) == doctest::Approx(0.1 + 5e-6).epsilon(1e-12));
}

TEST_CASE("LYNX_EVENT_DRIVER chooses the driver: plain or fast, anything else an error") {
  const char* outer = std::getenv("LYNX_EVENT_DRIVER");
  const std::string saved = outer != nullptr ? outer : "";
  setenv("LYNX_EVENT_DRIVER", "plain", 1);
  CHECK(event_driver_default() == EventDriver::plain);
  setenv("LYNX_EVENT_DRIVER", "fast", 1);
  CHECK(event_driver_default() == EventDriver::fast);
  setenv("LYNX_EVENT_DRIVER", "quick", 1);
  CHECK_THROWS_WITH_AS(event_driver_default(), "LYNX_EVENT_DRIVER=quick: expected plain or fast", LynxError);
  unsetenv("LYNX_EVENT_DRIVER");
  CHECK(event_driver_default() == EventDriver::fast);
  if (outer != nullptr) setenv("LYNX_EVENT_DRIVER", saved.c_str(), 1);
}
