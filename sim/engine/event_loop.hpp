// The simulation's clock and event loop, on top of SimGrid. Network flows are SimGrid Comms (fluid max-min
// sharing, re-solved at every flow start and end); everything else (arrivals, GPU work finishing, propagation
// delay) is an event of our own queue. The two are kept in one timeline by a model of our own added to SimGrid's
// engine (StepHook in event_loop.cpp): SimGrid asks every model for its next date at the start of each step and
// stops its clock at the earliest, so the clock stops exactly at the earliest queued event with no activity, host
// or solver variable involved; the events due then run when SimGrid updates our model at that time, which is where
// SimGrid's own timers would run them, before the step's completions (a SimGrid timer per stop, as until stop 46,
// cost two allocations and a second pass of SimGrid's dispatch; one is now set only where a step's completions
// coincide with its events, to keep the order timers give). Flow completions arrive through SimGrid's completion
// callback. All handlers run inside Engine::run(), at the exact simulated time,
// started from maestro (no actors: the fastest and a deterministic way to drive SimGrid). One EventLoop per
// process: SimGrid's engine is a singleton whose clock cannot be reset (see run_isolated in isolated_run.hpp for
// tests and sweeps).
// Cost: a SimGrid step (a solve, the models' state update, the completion dispatch) per distinct event
// time, except for events that run ahead of SimGrid's clock (look_ahead in event_loop.cpp: no flow touched, before
// SimGrid's next change). The look-ahead runs where SimGrid asks our model for its date, after the network has
// been solved at this time, so that it also runs after a flow's completion (docs/benchmarks.md).
#pragma once
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/forward.h>

#include "sim/engine/event_queue.hpp"
#include "sim/engine/event_task.hpp"
#include "sim/engine/flow_log.hpp"
#include "sim/network/network_config.hpp"
#include "sim/engine/platform.hpp"

namespace lynx {

class EventLoop {
 public:
  // Creates the SimGrid engine, applies the SimGrid configuration items (sim/engine/simgrid_options.hpp: the defaults,
  // then `simgrid_cfg`, already checked) and builds the platform; flows go between endpoints (NICs, platform.hpp).
  EventLoop(const NetworkConfig& network, const std::vector<PlatformNode>& nodes,
            const std::vector<std::string>& simgrid_cfg = {});
  // One single-NIC node per name.
  EventLoop(const NetworkConfig& network, const std::vector<std::string>& node_names);
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  double now() const { return ahead_s_ >= 0 ? ahead_s_ : clock_s_; }  // inline: handlers call it at every event
  // Runs `handler` at time `time_s` (>= now); events at equal times run in the order they were queued.
  void at(double time_s, EventTask handler);
  // The same for an event that runs before every at() event of the same time, ordered by `order` among its kind
  // (< 2^62; the workload's arrivals: as if all of them had been queued first, without holding them all).
  void at_first(double time_s, uint64_t order, EventTask handler);
  // Sends `bytes` from endpoint `src` to endpoint `dst` with sharing weight `weight` (1 = normal). `on_sent` (may be empty)
  // runs when the sender has pushed the last byte (the end of the flow's bandwidth phase); `on_delivered` when it
  // has arrived: that plus the route's propagation latency.
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
  FlowHandle send(int src, int dst, uint64_t bytes, double weight, FlowListener& listener, uint64_t tag);
  // Background work (other tenants' traffic, sim/network/cross_traffic.hpp) that must not keep the run alive: an event and
  // a flow with no handler and no counter (flows_started, bytes_sent, the flow log see none of them). Once only
  // background events and flows are left, the background events are dropped and the flows drain without effect.
  void at_background(double time_s, EventTask handler);
  void send_background(int src, int dst, uint64_t bytes);
  // Changes the sharing weight of a flow still sending (max-min re-solved at once); false if it is no longer: its
  // last byte went out at or before now (at now, its on_sent may run after this call).
  bool reweight(FlowHandle flow, double weight);
  // Runs until no event and no flow is left. An exception thrown by a handler never crosses SimGrid: the loop
  // records it, stops running handlers and arming the timer (the flows in flight drain without effect, so the
  // engine returns normally), and rethrows it here once Engine::run() has returned.
  void run();

  const Platform& platform() const { return platform_; }
  // Optional: writes every flow as it starts to a flow log (sim/engine/flow_log.hpp; the benchmark replays it on bare
  // SimGrid), closed and checked when run() returns.
  void log_flows_to(const std::string& path);
  uint64_t flows_started() const { return flows_started_; }
  uint64_t flows_delivered() const { return flows_delivered_; }
  uint64_t bytes_sent() const { return bytes_sent_; }
  uint64_t bytes_delivered() const { return bytes_delivered_; }
  // Event times run ahead of SimGrid's clock, without a SimGrid step of their own (look_ahead).
  uint64_t steps_ahead() const { return steps_ahead_; }
  // SimGrid timers the loop has set: only where a step's completions coincide with its events (on_clock_moved).
  uint64_t dispatch_timers() const { return dispatch_timers_; }

 private:
  struct Task {
    EventTask handler;             // or, for a listener's flow delivery, the listener and tag (handler empty)
    FlowListener* listener = nullptr;
    uint64_t tag = 0;
    uint64_t delivered_bytes = 0;  // a flow's delivery (counted in flows_delivered, bytes_delivered as it runs)
    bool delivery = false;
    bool background = false;
  };
  struct Flow {
    simgrid::s4u::CommPtr comm;  // null while its start waits for the clock (pending)
    uint64_t bytes = 0;
    int src = 0, dst = 0;
    bool pending = false;
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
  size_t start_flow(int src, int dst, uint64_t bytes, double weight);
  FlowHandle handle_of(size_t slot) const;

  // A free task slot for an event at `time_s` (an internal error if that is not a number), then the event queued
  // once its slot holds its handler (or listener).
  uint32_t take_task(double time_s);
  void queue_task(double time_s, uint64_t sequence, uint32_t task, bool background = false, bool delivery = false,
                  uint64_t delivered_bytes = 0);
  void push_event(double time_s, uint64_t sequence, EventTask&& handler, bool background = false,
                  bool delivery = false, uint64_t delivered_bytes = 0);
  void on_activity_done(const simgrid::s4u::Activity& activity);
  void handle_flow_done(size_t slot);
  void run_earliest_stop();  // the earliest clock stop taken off stops_ and its work run as a batch (run_stop)
  void run_stop();  // a clock stop's work: the network work left by handlers run ahead, then the events due
  // Runs `work` (handlers) as one batch: the stops are armed once, after it; an exception stops the loop.
  void run_batch(void (EventLoop::*work)());
  void run_due_events();
  void arm_stop();  // a clock stop at the earliest thing due (a timer if that is now and one ran at this step)
  void stop(std::exception_ptr error);
  void drop_background_if_idle();
  void clear_events();  // every queued event dropped (stopped, or only background work left)
  size_t start_comm(int src, int dst, uint64_t bytes);
  void begin_comm(size_t slot);
  // At once, or after the pending starts when ahead; false if the flow's last byte went at this step (not yet handled).
  bool set_weight(size_t slot, double weight);
  void apply_pending();
  void look_ahead();
  // Running ahead of SimGrid's clock (look_ahead): the time of the events running, else -1.
  double ahead_s_ = -1;
  double sync_s_ = -1;  // a clock stop due after running ahead (look_ahead), else -1
  // Network work of handlers run ahead, in their order, for the clock at ahead_s_: a comm to start (weight 0) or
  // a weight to set.
  struct PendingOp {
    size_t slot;
    double weight;
  };
  std::vector<PendingOp> pending_;
  bool look_ahead_ = true, check_look_ahead_ = false;
  double timing_precision_s_ = 1e-9;  // SimGrid's surf/precision

  std::unique_ptr<simgrid::s4u::Engine> engine_;
  simgrid::kernel::resource::Model* network_model_ = nullptr;  // flow_network_model(), for set_flow_weight
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
  // Clock stops still due, sorted latest first (back: the earliest), each at a queued event's time; the earliest is
  // at the earliest event, and is the date our model gives SimGrid. An earlier event adds a stop rather than moving
  // the earliest, so that the clock stops where it did when each stop was a SimGrid timer of its own. A stop is
  // only ever added below every other one (arm_stop drops those before it first), so it goes at the back, and the
  // earliest comes off the back: no search, no heap.
  std::vector<double> stops_;
  double earliest_stop() const { return stops_.back(); }
  // A SimGrid timer that runs the stops due at this clock (run_earliest_stop for each), where SimGrid's order at a
  // step must be kept around its completions: timers, then completions, then timers set meanwhile (on_clock_moved,
  // arm_stop); null when none is set. Elsewhere the stops run in on_clock_moved itself.
  simgrid::kernel::timer::Timer* dispatch_timer_ = nullptr;
  bool in_dispatch_ = false;  // inside dispatch_due_stops (a stop due meanwhile runs in it)
  double clock_s_ = 0;  // SimGrid's clock, as each step gives it to our model (a call into SimGrid saved per read)
  class StepHook;  // the model SimGrid asks for our next date (event_loop.cpp)
  struct WatchedModel {
    simgrid::kernel::resource::Model* model;
    bool may_run_ahead;  // updates lazily, its next date idempotent (look_ahead)
  };
  static constexpr size_t kMaxWatchedModels = 16;
  std::vector<WatchedModel> models_;  // SimGrid's models but ours, in its order
  double next_stop_in(double clock_s);  // at the start of a SimGrid step: the look-ahead, then our next date
  void on_clock_moved(double clock_s);  // after SimGrid's clock has moved: the stops due
  void dispatch_due_stops();            // run_earliest_stop for each stop due
  void on_dispatch_timer();             // the dispatch timer: the stops due
  void set_dispatch_timer();
  bool completions_pending() const;     // a model holds an ended action SimGrid has not yet handled
  bool in_step_ = false;    // SimGrid has asked our model its date in this step (a solve, not its presolve)
  bool timer_ran_ = false;  // our dispatch timer has run since this step's solve
  void remove_timers();
  bool dispatching_ = false;  // inside a handler batch: the stop is armed once, after it
  // Finished comms, kept alive until the clock has moved past the time they ended: SimGrid may still be handling
  // other activities that ended at that same time (dropping the last handle of a comm it handles crashes).
  std::vector<std::pair<double, simgrid::s4u::CommPtr>> finished_;
  void retire(simgrid::s4u::CommPtr comm);
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
