// The simulation's clock and event loop. Network flows are SimGrid Comms (fluid max-min sharing, re-solved at every
// flow start and end); everything else (arrivals, GPU work finishing, propagation delay) is an event of our own
// queue. All handlers run inside SimGrid's engine at the exact simulated time, from maestro (no actors: the fastest
// and a deterministic way to drive SimGrid). One EventLoop per process: SimGrid's engine is a singleton whose clock
// cannot be reset (run_isolated in isolated_run.hpp runs each simulation of a test or sweep in a child process).
//
// This header includes no SimGrid header: SimGrid lives in this folder's .cpp files. Two drivers move SimGrid's clock
// to our events (event_driver.hpp), with the same order of work at every time and so the same outputs, byte for byte:
//   plain: SimGrid's public S4U API, as its own examples drive time from maestro: Engine::run_until(next event),
//          flow completions through Activity::on_completion_cb, and a vetoed activity (Engine::track_vetoed_activities,
//          the DAG examples' way back to the caller) to stop a run early when a completion queues an earlier event;
//   fast:  a model of our own in SimGrid's kernel (driver_fast.cpp) that gives SimGrid the date of our next event at
//          each step and runs the events due where SimGrid's own timers would, and runs events ahead of SimGrid's
//          clock where no flow can change meanwhile. It relies on SimGrid 3.32's kernel layer (no API promise), checks
//          that at start, and falls back to the plain driver with a message where the check fails.
// At one time the order is: the events due, then the completions of flows that end then, then what those queue for
// that same time. Cost: a SimGrid step (a solve, the models' state update, the completion dispatch) per distinct event
// time, except for events the fast driver runs ahead.
#pragma once
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/engine/event_queue.hpp"
#include "sim/engine/event_task.hpp"
#include "sim/engine/platform.hpp"
#include "sim/network/network_config.hpp"

namespace lynx {

class FlowLogWriter;

// The driver of SimGrid's clock (see above). The default is `fast`, or LYNX_EVENT_DRIVER's value (plain or fast).
enum class EventDriver { fast, plain };
const char* event_driver_name(EventDriver driver);
EventDriver event_driver_default();  // a LynxError if LYNX_EVENT_DRIVER is set to another value

class EventLoop {
 public:
  // Creates the SimGrid engine, applies the SimGrid configuration items (sim/engine/simgrid_options.hpp: the
  // defaults, then `simgrid_cfg`, already checked) and builds the platform; flows go between endpoints (NICs,
  // platform.hpp). `driver` moves the clock; `fast` may fall back to `plain` (driver() says which runs).
  EventLoop(const NetworkConfig& network, const std::vector<PlatformNode>& nodes,
            const std::vector<std::string>& simgrid_cfg = {}, EventDriver driver = event_driver_default());
  // One single-NIC node per name.
  EventLoop(const NetworkConfig& network, const std::vector<std::string>& node_names,
            EventDriver driver = event_driver_default());
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  double now() const { return ahead_s_ >= 0 ? ahead_s_ : clock_s_; }  // inline: handlers call it at every event
  // Runs `handler` at time `time_s` (>= now); events at equal times run in the order they were queued.
  void at(double time_s, EventTask handler);
  // The same for an event that runs before every at() event of the same time, ordered by `order` among its kind
  // (< 2^62; the workload's arrivals: as if all of them had been queued first, without holding them all).
  void at_first(double time_s, uint64_t order, EventTask handler);
  // Sends `bytes` from endpoint `src` to endpoint `dst` with sharing weight `weight` (1 = normal). `on_sent` (may be
  // empty) runs when the sender has pushed the last byte (the end of the flow's bandwidth phase); `on_delivered`
  // when it has arrived: that plus the route's propagation latency.
  // Returns the flow's handle, valid until its bandwidth phase ends (on_sent).
  using FlowHandle = const void*;
  FlowHandle send(int src, int dst, uint64_t bytes, double weight, EventTask on_sent, EventTask on_delivered);
  // The same with a listener told both (the transfer engine's flows): the flow holds a pointer and a tag rather
  // than two handlers, which each flow would make and move about five times.
  class FlowListener {
   public:
    virtual void flow_sent(uint64_t tag) = 0;
    virtual void flow_delivered(uint64_t tag, uint64_t bytes) = 0;

   protected:
    ~FlowListener() = default;
  };
  // `rate_bound` (bytes/s; +infinity or 0: none) caps the flow's rate whatever its share: SimGrid's bounded max-min
  // (a connector's message pipeline, sim/transfer/transfer_cost.hpp).
  FlowHandle send(int src, int dst, uint64_t bytes, double weight, FlowListener& listener, uint64_t tag,
                  double rate_bound = 0);
  // Background work (other tenants' traffic, sim/network/cross_traffic.hpp) that must not keep the run alive: an
  // event and a flow with no handler and no counter (flows_started, bytes_sent, the flow log see none of them). Once
  // only background events and flows are left, the background events are dropped and the flows drain without effect.
  void at_background(double time_s, EventTask handler);
  void send_background(int src, int dst, uint64_t bytes);
  // Sets the capacity of site link `link`'s a -> b direction (NetworkConfig.sites.links; on-off cross traffic).
  void set_site_link_bandwidth(size_t link, double bytes_per_s);
  // Changes the sharing weight of a flow still sending (max-min re-solved at once); false if it is no longer: its
  // last byte went out at or before now (at now, its on_sent may run after this call).
  bool reweight(FlowHandle flow, double weight);
  // Runs until no event and no flow is left. An exception thrown by a handler never crosses SimGrid: the loop
  // records it, runs no handler after it (the flows in flight drain without effect, so the engine returns
  // normally), and rethrows it here once SimGrid has returned.
  void run();

  const Platform& platform() const { return platform_; }
  EventDriver driver() const { return driver_kind_; }
  // Optional: writes every flow as it starts to a flow log (sim/engine/flow_log.hpp; the benchmark replays it on bare
  // SimGrid), closed and checked when run() returns.
  void log_flows_to(const std::string& path);
  uint64_t flows_started() const { return flows_started_; }
  uint64_t flows_delivered() const { return flows_delivered_; }
  uint64_t bytes_sent() const { return bytes_sent_; }
  uint64_t bytes_delivered() const { return bytes_delivered_; }
  // The fast driver's work saved and done (0 under the plain driver): event times run ahead of SimGrid's clock
  // without a SimGrid step of their own, and SimGrid timers set where a step's completions coincide with events.
  uint64_t steps_ahead() const { return steps_ahead_; }
  uint64_t dispatch_timers() const { return dispatch_timers_; }

  class Driver;  // event_driver.hpp
  struct SimGrid;  // simgrid_parts.hpp: the engine, the comms, the platform's SimGrid objects

 private:
  friend class FastDriver;
  friend class PlainDriver;
  friend SimGrid& simgrid_parts(EventLoop& loop);
  struct Task {
    EventTask handler;             // or, for a listener's flow delivery, the listener and tag (handler empty)
    FlowListener* listener = nullptr;
    uint64_t tag = 0;
    uint64_t delivered_bytes = 0;  // a flow's delivery (counted in flows_delivered, bytes_delivered as it runs)
    bool delivery = false;
    bool background = false;
  };
  struct Flow {
    bool sending = false;  // its comm exists (SimGrid::comms[slot]); false while its start waits for the clock
    bool pending = false;
    uint64_t bytes = 0;
    int src = 0, dst = 0;
    double rate_bound = 0;  // bytes/s; 0: none
    double latency_s = 0;
    FlowListener* listener = nullptr;  // null: the flow's handlers are in flow_handlers_[slot]
    uint64_t tag = 0;
    uint64_t generation = 0;  // flows that have used this slot before (FlowHandle)
    uint64_t index = 0;       // flows started before it (the flow log names a re-weighted flow by it)
    bool background = false;
  };
  struct FlowHandlers {
    EventTask on_sent;
    EventTask on_delivered;
  };
  // Starts a flow of send() (counted, logged, its latency looked up) in a new slot; the caller sets its listener.
  size_t start_flow(int src, int dst, uint64_t bytes, double weight, double rate_bound = 0);
  FlowHandle handle_of(size_t slot) const;

  // A free task slot for an event at `time_s` (an internal error if that is not a number), then the event queued
  // once its slot holds its handler (or listener).
  uint32_t take_task(double time_s);
  void queue_task(double time_s, uint64_t sequence, uint32_t task, bool background = false, bool delivery = false,
                  uint64_t delivered_bytes = 0);
  void push_event(double time_s, uint64_t sequence, EventTask&& handler, bool background = false,
                  bool delivery = false, uint64_t delivered_bytes = 0);
  // A flow's comm has ended (SimGrid's completion callback): its handlers, unless the loop has stopped.
  void on_flow_done(size_t slot);
  void handle_flow_done(size_t slot);
  // Runs `work` (handlers) as one batch: the driver is told once, after it; an exception stops the loop.
  template <class Work>
  void run_batch(Work&& work);  // event_driver.hpp
  void run_due_events();
  // The network work left by handlers run ahead (fast driver), then the events due.
  void run_stop();
  void stop(std::exception_ptr error);
  void drop_background_if_idle();
  void clear_events();  // every queued event dropped (stopped, or only background work left)
  size_t start_comm(int src, int dst, uint64_t bytes, double rate_bound = 0);
  void begin_comm(size_t slot);
  // At once, or after the pending starts when ahead; false if the flow's last byte went at this step (not yet handled).
  bool set_weight(size_t slot, double weight);
  void apply_pending();
  bool idle() const { return events_.empty() && flows_in_flight_ == 0; }

  // Running ahead of SimGrid's clock (fast driver): the time of the events running, else -1.
  double ahead_s_ = -1;
  double clock_s_ = 0;  // SimGrid's clock, as the driver last read it (a call into SimGrid saved per read)
  // Network work of handlers run ahead, in their order, for the clock at ahead_s_: a comm to start (weight 0) or
  // a weight to set.
  struct PendingOp {
    size_t slot;
    double weight;
  };
  std::vector<PendingOp> pending_;

  std::unique_ptr<SimGrid> simgrid_;
  std::unique_ptr<Driver> driver_;
  EventDriver driver_kind_ = EventDriver::fast;
  Platform platform_;
  NetworkConfig network_;                  // as the platform was built, for the flow log's header
  std::vector<PlatformNode> nodes_;
  std::vector<std::string> simgrid_cfg_;   // as applied
  std::unique_ptr<FlowLogWriter> flow_log_;
  EventQueue events_;  // a queued event's time and order; its handler in a slot of tasks_ (the queue moves 24 bytes)
  std::vector<Task> tasks_;          // by QueuedEvent::task; free slots are reused
  std::vector<uint32_t> free_tasks_;
  static constexpr uint64_t kFirstSequence = uint64_t{1} << 62;  // at() events come after at_first() ones
  uint64_t next_sequence_ = kFirstSequence;
  bool dispatching_ = false;  // inside a handler batch: the driver is told once, after it
  // The flow whose completion is being handled and whose comm SimGrid no longer holds as running (plain driver:
  // the events due run first, and may ask to re-weight it), else SIZE_MAX.
  size_t completing_ = SIZE_MAX;
  // Flows in flight: a slot per flow, its index the comm's data; free slots are reused.
  std::vector<Flow> flows_;
  std::vector<FlowHandlers> flow_handlers_;  // by slot, for flows sent with handlers rather than a listener
  std::vector<size_t> free_flows_;
  size_t flows_in_flight_ = 0;
  size_t background_events_ = 0, background_flows_ = 0;  // of events_ and flows_in_flight_
  std::exception_ptr error_;  // the first exception a handler threw; nothing runs after it
  uint64_t flows_started_ = 0, flows_delivered_ = 0;
  uint64_t bytes_sent_ = 0, bytes_delivered_ = 0;
  uint64_t steps_ahead_ = 0;
  uint64_t dispatch_timers_ = 0;
};

}  // namespace lynx
