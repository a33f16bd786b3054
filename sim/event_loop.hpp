// The simulation's clock and event loop, on top of SimGrid. Network flows are SimGrid Comms (fluid max-min
// sharing, re-solved at every flow start and end); everything else (arrivals, GPU work finishing, propagation
// delay) is an event of our own queue. The two are kept in one timeline by a single SimGrid timer activity (an
// Exec on a host of speed 1) that always targets the earliest queued event, re-armed when an earlier one is
// queued; all handlers run inside Engine::run(), at the exact simulated time, started from maestro (no actors:
// the fastest and a deterministic way to drive SimGrid). One EventLoop per process: SimGrid's engine is a
// singleton whose clock cannot be reset (see run_isolated in isolated_run.hpp for tests and sweeps).
#pragma once
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>

#include "sim/network_config.hpp"
#include "sim/platform.hpp"

namespace lynx {

class EventLoop {
 public:
  // Creates the SimGrid engine and the platform; flows go between endpoints (NICs, platform.hpp).
  EventLoop(const NetworkConfig& network, const std::vector<PlatformNode>& nodes);
  // One single-NIC node per name.
  EventLoop(const NetworkConfig& network, const std::vector<std::string>& node_names);
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  double now() const;
  // Runs `handler` at time `time_s` (>= now); events at equal times run in the order they were queued.
  void at(double time_s, std::function<void()> handler);
  // Sends `bytes` from endpoint `src` to endpoint `dst` with sharing weight `weight` (1 = normal). `on_sent` (may be empty)
  // runs when the sender has pushed the last byte (the end of the flow's bandwidth phase); `on_delivered` when it
  // has arrived: that plus the route's propagation latency.
  void send(int src, int dst, uint64_t bytes, double weight, std::function<void()> on_sent,
            std::function<void()> on_delivered);
  // Runs until no event and no flow is left. An exception thrown by a handler never crosses SimGrid: the loop
  // records it, stops running handlers and arming the timer (the flows in flight drain without effect, so the
  // engine returns normally), and rethrows it here once Engine::run() has returned.
  void run();

  const Platform& platform() const { return platform_; }
  uint64_t flows_started() const { return flows_started_; }
  uint64_t flows_delivered() const { return flows_delivered_; }
  uint64_t bytes_sent() const { return bytes_sent_; }
  uint64_t bytes_delivered() const { return bytes_delivered_; }

 private:
  struct Event {
    double time_s;
    uint64_t sequence;
    std::function<void()> handler;
  };
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      return a.time_s != b.time_s ? a.time_s > b.time_s : a.sequence > b.sequence;
    }
  };
  struct Flow {
    simgrid::s4u::CommPtr comm;
    uint64_t bytes;
    double latency_s;
    std::function<void()> on_sent;
    std::function<void()> on_delivered;
  };

  void on_activity_done(const simgrid::s4u::Activity& activity);
  void handle_activity_done(const simgrid::s4u::Activity& activity);
  void run_due_events();
  void arm_timer();

  std::unique_ptr<simgrid::s4u::Engine> engine_;
  Platform platform_;
  std::priority_queue<Event, std::vector<Event>, Later> events_;
  uint64_t next_sequence_ = 0;
  simgrid::s4u::ExecPtr timer_;
  double timer_target_s_ = -1;
  // Finished or cancelled activities, kept alive until the clock has moved past the time they ended: SimGrid may
  // still be handling other activities that ended at that same time.
  std::vector<std::pair<double, simgrid::s4u::ActivityPtr>> finished_;
  void retire(simgrid::s4u::ActivityPtr activity);
  std::unordered_map<const simgrid::s4u::Activity*, Flow> flows_;
  std::exception_ptr error_;  // the first exception a handler threw; nothing runs after it
  uint64_t flows_started_ = 0, flows_delivered_ = 0;
  uint64_t bytes_sent_ = 0, bytes_delivered_ = 0;
};

}  // namespace lynx
