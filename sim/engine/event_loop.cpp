#include "sim/engine/event_loop.hpp"

#include <simgrid/kernel/resource/Model.hpp>
#include <simgrid/kernel/Timer.hpp>
#include <xbt/config.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>

#include "common/error.hpp"
#include "sim/engine/flow_priority.hpp"
#include "sim/engine/simgrid_options.hpp"

namespace lynx {

namespace sg4 = simgrid::s4u;

namespace {
EventLoop* g_loop = nullptr;  // the process's one loop, for SimGrid's static completion signal

// LYNX_NO_LOOK_AHEAD=1 steps SimGrid at every event time, as before the look-ahead; LYNX_CHECK_LOOK_AHEAD=1 checks
// at each look-ahead that the date it read is SimGrid's own (tests run both).
bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

// An action of `model` has ended (finished or failed) and SimGrid has not yet handled its completion.
bool holds_ended_actions(simgrid::kernel::resource::Model* model) {
  return !model->get_finished_action_set()->empty() || !model->get_failed_action_set()->empty();
}

std::vector<PlatformNode> single_nic_nodes(const std::vector<std::string>& names) {
  std::vector<PlatformNode> nodes;
  for (const auto& name : names) nodes.push_back(PlatformNode{name, 1});
  return nodes;
}
}  // namespace

// Our model in SimGrid's engine: it holds no action and no resource; SimGrid asks it, after every model added before
// it (the network's among them), for the time to its next date at the start of each step, and tells it when the
// clock has moved. That is where the event loop runs ahead (look_ahead) and has the clock stop at its events.
class EventLoop::StepHook : public simgrid::kernel::resource::Model {
 public:
  StepHook() : Model("lynx-event-loop") {}
  double next_occurring_event(double now) override { return g_loop != nullptr ? g_loop->next_stop_in(now) : -1.0; }
  void update_actions_state(double now, double /*delta*/) override {
    if (g_loop != nullptr) g_loop->on_clock_moved(now);
  }
};

EventLoop::EventLoop(const NetworkConfig& network, const std::vector<std::string>& node_names)
    : EventLoop(network, single_nic_nodes(node_names)) {}

EventLoop::EventLoop(const NetworkConfig& network, const std::vector<PlatformNode>& nodes,
                     const std::vector<std::string>& simgrid_cfg)
    : network_(network), nodes_(nodes), simgrid_cfg_(simgrid_options_effective(simgrid_cfg)) {
  if (g_loop != nullptr) throw_internal_error("one simulation per process: SimGrid's engine cannot be created twice");
  g_loop = this;
  int argc = 1;
  char name[] = "lynxsim";
  char* argv[] = {name, nullptr};
  engine_ = std::make_unique<sg4::Engine>(&argc, argv);
  xbt_log_control_set("root.thresh:critical");
  simgrid_options_apply(simgrid_cfg_);
  platform_ = platform_build(network, nodes);
  network_model_ = flow_network_model();
  timing_precision_s_ = simgrid::config::get_value<double>("surf/precision");
  // Running ahead needs lazy updates (a full update touches every action's remaining work at every step).
  look_ahead_ = simgrid::config::get_value<std::string>("network/optim") == "Lazy" && !env_flag("LYNX_NO_LOOK_AHEAD");
  check_look_ahead_ = env_flag("LYNX_CHECK_LOOK_AHEAD");
  // Added last, so that SimGrid asks it after the network model has solved the network at this time.
  auto hook = std::make_shared<StepHook>();
  engine_->add_model(hook);
  if (engine_->get_all_models().empty() || engine_->get_all_models().back() != hook.get())
    throw_internal_error("the event loop's model is not the last of SimGrid's models");
  // SimGrid's other models, read at every step (look_ahead, completions_pending): whether each may be run ahead of
  // (it updates lazily and its next date is idempotent) is fixed once the engine is built. Only the network's ever
  // holds an action (the loop starts comms alone: no computation, I/O or VM work), so the scans read it alone;
  // LYNX_CHECK_LOOK_AHEAD=1 reads every model, and look_ahead checks that no other one holds an action.
  for (simgrid::kernel::resource::Model* model : engine_->get_all_models())
    if (model != hook.get() && (model == network_model_ || check_look_ahead_))
      models_.push_back(WatchedModel{model, model->is_update_lazy() && model->next_occurring_event_is_idempotent()});
  if (std::none_of(models_.begin(), models_.end(), [this](const WatchedModel& m) { return m.model == network_model_; }))
    throw_internal_error("SimGrid's network model is not one of its engine's models");
  if (models_.size() > kMaxWatchedModels) throw_internal_error("SimGrid has %zu models", models_.size());
  sg4::Activity::on_completion_cb([](const sg4::Activity& activity) {
    if (g_loop != nullptr) g_loop->on_activity_done(activity);
  });
}

EventLoop::~EventLoop() {
  remove_timers();
  g_loop = nullptr;
}

void EventLoop::log_flows_to(const std::string& path) {
  flow_log_ = std::make_unique<FlowLogWriter>(path, network_, nodes_, simgrid_cfg_);
}

uint32_t EventLoop::take_task(double time_s) {
  if (std::isnan(time_s)) throw_internal_error("an event queued at a time that is not a number");  // no order
  if (!free_tasks_.empty()) {
    const uint32_t task = free_tasks_.back();
    free_tasks_.pop_back();
    return task;
  }
  if (tasks_.size() >= UINT32_MAX) throw_internal_error("more than 2^32 - 1 events queued");
  tasks_.emplace_back();
  return static_cast<uint32_t>(tasks_.size() - 1);
}

void EventLoop::queue_task(double time_s, uint64_t sequence, uint32_t task, bool background, bool delivery,
                           uint64_t delivered_bytes) {
  Task& t = tasks_[task];
  t.delivered_bytes = delivered_bytes;
  t.delivery = delivery;
  t.background = background;
  events_.push(QueuedEvent{time_s, sequence, task});
  if (background) ++background_events_;
  if (!dispatching_) arm_stop();
}

void EventLoop::push_event(double time_s, uint64_t sequence, EventTask&& handler, bool background, bool delivery,
                           uint64_t delivered_bytes) {
  const uint32_t task = take_task(time_s);
  tasks_[task].handler = std::move(handler);
  queue_task(time_s, sequence, task, background, delivery, delivered_bytes);
}

void EventLoop::at(double time_s, EventTask handler) {
  if (time_s < now()) time_s = now();
  push_event(time_s, next_sequence_++, std::move(handler));
}

void EventLoop::at_first(double time_s, uint64_t order, EventTask handler) {
  if (order >= kFirstSequence) throw_internal_error("at_first: order %llu out of range", static_cast<unsigned long long>(order));
  if (time_s < now()) time_s = now();
  push_event(time_s, order, std::move(handler));
}

void EventLoop::at_background(double time_s, EventTask handler) {
  if (time_s < now()) time_s = now();
  push_event(time_s, next_sequence_++, std::move(handler), true);
}

void EventLoop::send_background(int src, int dst, uint64_t bytes) {
  if (bytes == 0) throw_internal_error("send_background: a flow needs a positive byte count");
  const size_t slot = start_comm(src, dst, bytes);
  flows_[slot].background = true;
  ++background_flows_;
}

// Takes a free slot for a flow (its index + 1 is the comm's data) and starts its comm, or, ahead of SimGrid's clock,
// queues the start for when the clock gets there (look_ahead); the caller fills the rest of the slot.
size_t EventLoop::start_comm(int src, int dst, uint64_t bytes) {
  size_t slot;
  if (!free_flows_.empty()) {
    slot = free_flows_.back();
    free_flows_.pop_back();
  } else {
    slot = flows_.size();
    flows_.emplace_back();
  }
  ++flows_in_flight_;
  Flow& flow = flows_[slot];
  flow.bytes = bytes;
  flow.src = src;
  flow.dst = dst;
  if (ahead_s_ >= 0) {
    flow.pending = true;
    pending_.push_back(PendingOp{slot, 0});
  } else {
    begin_comm(slot);
  }
  return slot;
}

void EventLoop::begin_comm(size_t slot) {
  Flow& flow = flows_[slot];
  sg4::CommPtr comm = sg4::Comm::sendto_init();
  comm->set_payload_size(flow.bytes);
  comm->set_data(reinterpret_cast<void*>(static_cast<uintptr_t>(slot + 1)));  // 0: not one of our flows
  comm->set_source(platform_.hosts[static_cast<size_t>(flow.src)]);
  comm->set_destination(platform_.hosts[static_cast<size_t>(flow.dst)]);  // starts the comm
  flow.comm = std::move(comm);
  flow.pending = false;
}

bool EventLoop::set_weight(size_t slot, double weight) {
  if (ahead_s_ >= 0) {
    pending_.push_back(PendingOp{slot, weight});
    return true;
  }
  return set_flow_weight(network_model_, flows_[slot].comm, weight);
}

void EventLoop::apply_pending() {
  for (const PendingOp& op : pending_) {
    if (op.weight == 0) begin_comm(op.slot);
    else set_flow_weight(network_model_, flows_[op.slot].comm, op.weight);  // false: it ended at this step, as the weight came
  }
  pending_.clear();
}

size_t EventLoop::start_flow(int src, int dst, uint64_t bytes, double weight) {
  if (bytes == 0) throw_internal_error("send: a flow needs a positive byte count");
  if (flow_log_) flow_log_->append(FlowLogEntry{now(), src, dst, bytes, weight});
  const size_t slot = start_comm(src, dst, bytes);
  Flow& flow = flows_[slot];
  if (weight != 1.0) set_weight(slot, weight);
  ++flows_started_;
  flow.index = flows_started_ - 1;  // flows logged before it (background flows are not logged)
  bytes_sent_ += bytes;
  flow.latency_s = platform_.route_latency_s(src, dst);
  return slot;
}

// The handle names the slot and its generation, so that a reused slot does not answer for an older flow.
EventLoop::FlowHandle EventLoop::handle_of(size_t slot) const {
  return reinterpret_cast<FlowHandle>(static_cast<uintptr_t>((flows_[slot].generation << 32) | (slot + 1)));
}

EventLoop::FlowHandle EventLoop::send(int src, int dst, uint64_t bytes, double weight, EventTask on_sent,
                                      EventTask on_delivered) {
  const size_t slot = start_flow(src, dst, bytes, weight);
  flows_[slot].listener = nullptr;
  if (flow_handlers_.size() <= slot) flow_handlers_.resize(slot + 1);
  flow_handlers_[slot] = FlowHandlers{std::move(on_sent), std::move(on_delivered)};
  return handle_of(slot);
}

EventLoop::FlowHandle EventLoop::send(int src, int dst, uint64_t bytes, double weight, FlowListener& listener,
                                      uint64_t tag) {
  const size_t slot = start_flow(src, dst, bytes, weight);
  flows_[slot].listener = &listener;
  flows_[slot].tag = tag;
  return handle_of(slot);
}

bool EventLoop::reweight(FlowHandle handle, double weight) {
  const auto bits = reinterpret_cast<uintptr_t>(handle);
  const size_t slot = static_cast<size_t>(bits & 0xffffffffu);
  if (slot == 0 || slot > flows_.size()) return false;
  Flow& flow = flows_[slot - 1];
  if ((!flow.comm && !flow.pending) || flow.generation != (static_cast<uint64_t>(bits) >> 32)) return false;
  if (!set_weight(slot - 1, weight)) return false;  // its last byte went at this step (completion not yet run)
  if (flow_log_) flow_log_->append_reweight(now(), flow.index, weight);
  return true;
}

void EventLoop::retire(sg4::CommPtr comm) {
  const double t = now();
  if (!finished_.empty() && finished_.front().first < t) {
    // Everything that ended before now has been fully handled by SimGrid.
    auto keep = std::remove_if(finished_.begin(), finished_.end(), [t](const auto& f) { return f.first < t; });
    finished_.erase(keep, finished_.end());
  }
  finished_.emplace_back(t, std::move(comm));
}

void EventLoop::stop(std::exception_ptr error) {
  error_ = std::move(error);
  clear_events();
  remove_timers();
  pending_.clear();
  ahead_s_ = sync_s_ = -1;
}

void EventLoop::on_activity_done(const sg4::Activity& activity) {
  const auto slot = reinterpret_cast<uintptr_t>(activity.get_data<void>());
  if (slot == 0 || activity.get_state() != sg4::Activity::State::FINISHED) return;
  if (error_) {  // stopped: what is still in flight drains without effect
    Flow& flow = flows_[slot - 1];
    retire(std::move(flow.comm));
    const uint64_t generation = flow.generation + 1;
    if (flow.background) --background_flows_;
    if (flow.listener == nullptr && slot - 1 < flow_handlers_.size()) flow_handlers_[slot - 1] = FlowHandlers{};
    flow = Flow{};
    flow.generation = generation;
    --flows_in_flight_;
    return;
  }
  dispatching_ = true;
  try {
    handle_flow_done(slot - 1);
  } catch (...) {
    stop(std::current_exception());
  }
  dispatching_ = false;
  drop_background_if_idle();
  arm_stop();
}

void EventLoop::handle_flow_done(size_t slot) {
  // Its handlers and comm taken out, the slot is free for a new flow at once (its comm is retired below); start_comm
  // and send set every other field of the next flow.
  Flow& flow = flows_[slot];
  sg4::CommPtr comm = std::move(flow.comm);
  FlowListener* const listener = flow.listener;
  const uint64_t tag = flow.tag, bytes = flow.bytes;
  const double latency_s = flow.latency_s;
  const bool background = flow.background;
  flow.background = false;
  ++flow.generation;
  free_flows_.push_back(slot);
  --flows_in_flight_;
  retire(std::move(comm));
  if (background) {
    --background_flows_;
    return;
  }
  // Told its last byte is out: the listener, or the flow's own handler (a listener's flow has none).
  FlowHandlers handlers;
  if (listener != nullptr) {
    listener->flow_sent(tag);
  } else {
    handlers = std::move(flow_handlers_[slot]);
    if (handlers.on_sent) handlers.on_sent();
  }
  if (latency_s > 0) {  // its delivery, an event holding the listener and tag or the handler
    const double delivered_s = now() + latency_s;
    const uint32_t task = take_task(delivered_s);
    if (listener == nullptr) tasks_[task].handler = std::move(handlers.on_delivered);
    tasks_[task].listener = listener;
    tasks_[task].tag = tag;
    queue_task(delivered_s, next_sequence_++, task, false, true, bytes);
    return;
  }
  ++flows_delivered_;
  bytes_delivered_ += bytes;
  if (listener != nullptr) listener->flow_delivered(tag, bytes);
  else handlers.on_delivered();
}

void EventLoop::run_earliest_stop() {
  // The stops due run in date order, each once: the one running is the earliest.
  stops_.pop_back();
  sync_s_ = -1;
  if (error_) return;
  run_batch(&EventLoop::run_stop);
}

void EventLoop::run_stop() {
  if (ahead_s_ >= 0) {  // this stop is at the time the handlers run ahead left their network work for
    ahead_s_ = -1;
    apply_pending();
  }
  run_due_events();
}

void EventLoop::run_batch(void (EventLoop::*work)()) {
  dispatching_ = true;
  try {
    (this->*work)();
  } catch (...) {
    stop(std::current_exception());
  }
  dispatching_ = false;
  drop_background_if_idle();
  arm_stop();
}

double EventLoop::next_stop_in(double clock_s) {
  in_step_ = true;      // this step's on_clock_moved may run the stops it reaches itself
  timer_ran_ = false;   // the last step's timers have all run
  // A stop due at this clock: a zero-length step runs it first (as SimGrid's timer at this date did), no look-ahead.
  const bool due_now = !stops_.empty() && earliest_stop() <= clock_s;
  if (!due_now && dispatch_timer_ == nullptr && !error_) run_batch(&EventLoop::look_ahead);
  if (stops_.empty()) return -1.0;
  return earliest_stop() <= clock_s ? 0.0 : earliest_stop() - clock_s;  // SimGrid's own jump, clock + (stop - clock)
}

// The stops the clock has reached run here, where SimGrid's own timer at this date would run them: our model is the
// last one SimGrid updates in a step, and between that and its timers it only emits on_time_advance (no listener in
// this process). Its timers run before the step's completions are handled; a timer that ran makes SimGrid look for
// timers again after them, so that events a completion queues for now run within this step. When completions are
// pending, a timer (finding no stop due) keeps that. Outside a step (SimGrid's presolve), the timer as before.
void EventLoop::on_clock_moved(double clock_s) {
  clock_s_ = clock_s;
  const bool in_step = in_step_;
  in_step_ = false;
  if (stops_.empty() || earliest_stop() > clock_s) return;
  if (!in_step || dispatch_timer_ != nullptr) {
    set_dispatch_timer();
    return;
  }
  dispatch_due_stops();
  if (!error_ && completions_pending()) set_dispatch_timer();
}

bool EventLoop::completions_pending() const {
  return std::any_of(models_.begin(), models_.end(), [](const WatchedModel& m) { return holds_ended_actions(m.model); });
}

void EventLoop::set_dispatch_timer() {
  if (dispatch_timer_ != nullptr || in_dispatch_) return;  // in_dispatch_: the running dispatch takes it
  dispatch_timer_ = kernel_timer_set(clock_s_, [](void* loop) { static_cast<EventLoop*>(loop)->on_dispatch_timer(); },
                                     this);
  ++dispatch_timers_;
}

void EventLoop::on_dispatch_timer() {
  dispatch_timer_ = nullptr;  // SimGrid deletes it once it has run
  timer_ran_ = true;
  dispatch_due_stops();
}

void EventLoop::dispatch_due_stops() {
  in_dispatch_ = true;
  const double clock = clock_s_;
  while (!stops_.empty() && earliest_stop() <= clock) run_earliest_stop();
  in_dispatch_ = false;
}

// Runs the events that come before SimGrid's next change without stepping SimGrid to each: a step at a time where
// nothing of SimGrid's changes only moves its clock (lazy updates: no action's remaining work is touched, none ends).
// It runs where SimGrid asks our model for its next date (StepHook), after every model before it has solved at this
// time: the completions of this time have been handled, and the network's next change is its action heap's top. An
// event runs ahead if it is before that date by more than SimGrid's timing precision (an action within it of a
// step ends at that step), and at most twice the clock (so the clock's jump, now + (t - now), lands exactly on t,
// as the steps it replaces did). Flow starts and re-weightings of a handler run ahead wait for the clock at their
// time: that batch is the last, and a stop there applies them in their order (apply_pending).
void EventLoop::look_ahead() {
  const double clock = clock_s_;
  if (!look_ahead_ || error_ || !(clock > 0) || !pending_.empty()) return;
  if (check_look_ahead_)  // the scans below read the network's model alone where not checking
    for (const WatchedModel& m : models_)
      if (m.model != network_model_ && (holds_ended_actions(m.model) || !m.model->get_started_action_set()->empty()))
        throw_internal_error("look-ahead at %.17g: a SimGrid model other than the network's holds an action", clock);
  // The models with actions running (the network's, in practice): each must update lazily and have its next date
  // in its action heap; none may hold an action ended and not yet dispatched.
  simgrid::kernel::resource::Model* active[kMaxWatchedModels];
  size_t n_active = 0;
  for (const WatchedModel& m : models_) {
    if (holds_ended_actions(m.model)) return;
    if (m.model->get_started_action_set()->empty()) continue;
    if (!m.may_run_ahead) return;
    active[n_active++] = m.model;
  }
  const auto earliest_top = [&active, n_active] {
    double date = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < n_active; ++i)
      if (!active[i]->get_action_heap().empty()) date = std::min(date, active[i]->get_action_heap().top_date());
    return date;
  };
  const double next_change = earliest_top();
  if (check_look_ahead_) {  // the heaps read were up to date: solving again changes nothing
    for (size_t i = 0; i < n_active; ++i) active[i]->next_occurring_event(clock);
    if (earliest_top() != next_change)
      throw_internal_error("look-ahead at %.17g: SimGrid's next change moved from %.17g to %.17g on solving", clock,
                           next_change, earliest_top());
  }
  double last_s = -1;
  while (!events_.empty() && pending_.empty() && !error_) {
    const double t = events_.top().time_s;
    if (!(t + 2 * timing_precision_s_ < next_change) || t > 2 * clock) break;
    ahead_s_ = last_s = t;
    run_due_events();
    ++steps_ahead_;
    if (pending_.empty()) drop_background_if_idle();
  }
  if (!pending_.empty()) return;  // ahead_s_ stays: the stop there applies them
  ahead_s_ = -1;
  // SimGrid's next stop, from this clock: exactly where the skipped steps' last clock would have gone only if it is
  // at most twice this clock; else a step at the last time run ahead restores the skipped steps' last jump.
  const double next_stop = std::min(next_change, events_.empty() ? next_change : events_.top().time_s);
  if (last_s >= 0 && next_stop > 2 * clock) sync_s_ = last_s;
}

void EventLoop::drop_background_if_idle() {
  if (!pending_.empty() || background_events_ == 0 || events_.size() > background_events_ || flows_in_flight_ > background_flows_) return;
  clear_events();  // only background events were left
  remove_timers();
  sync_s_ = -1;
}

void EventLoop::remove_timers() {
  stops_.clear();
  if (dispatch_timer_ != nullptr) kernel_timer_remove(dispatch_timer_);
  dispatch_timer_ = nullptr;
}

void EventLoop::clear_events() {
  events_.clear();
  tasks_.clear();
  free_tasks_.clear();
  background_events_ = 0;
}

void EventLoop::run_due_events() {
  // Events within a rounding step of now are due (the clock may stop one step short of a target).
  const double due = now() + 1e-12 * std::max(1.0, now());
  while (!events_.empty() && events_.top().time_s <= due) {
    const uint32_t slot = events_.top().task;
    events_.pop();
    Task& task = tasks_[slot];
    if (task.background) --background_events_;
    if (task.delivery) {
      ++flows_delivered_;
      bytes_delivered_ += task.delivered_bytes;
    }
    if (task.listener != nullptr) {  // a listener's flow delivery
      FlowListener* const listener = task.listener;
      const uint64_t tag = task.tag, bytes = task.delivered_bytes;
      task.listener = nullptr;
      free_tasks_.push_back(slot);  // before it runs: it may queue events (and grow tasks_)
      listener->flow_delivered(tag, bytes);
      continue;
    }
    EventTask handler = std::move(task.handler);
    free_tasks_.push_back(slot);
    handler();
  }
}

void EventLoop::arm_stop() {
  if (error_ || (events_.empty() && pending_.empty() && sync_s_ < 0)) return;
  // The earliest thing due: network work left by handlers run ahead, else a clock stop after running ahead (look_ahead),
  // else the earliest event.
  double target = !pending_.empty() ? ahead_s_ : events_.empty() ? sync_s_ : events_.top().time_s;
  if (pending_.empty() && sync_s_ >= 0) target = std::min(target, sync_s_);
  // A stop before it would stop the clock for nothing (an event ran early, within a rounding step, or ahead).
  while (!stops_.empty() && earliest_stop() < target) stops_.pop_back();
  // A later stop stays: it is at a queued event's time (events are never withdrawn), where the clock stops anyway.
  // The target is then below every stop left: the new earliest.
  if (stops_.empty() || earliest_stop() > target) stops_.push_back(target);
  // Due at this clock (an event queued for now by a completion, or before the first step): within this step if a
  // timer already ran in it (from a timer, which SimGrid then runs after the completions), else at a zero-length step
  // (our model's date is now: on_clock_moved runs it), as SimGrid's own timer at this date did.
  if (target <= clock_s_ && timer_ran_) set_dispatch_timer();
}

void EventLoop::run() {
  arm_stop();
  engine_->run();
  if (error_) std::rethrow_exception(error_);
  if (flow_log_) flow_log_->finish();
  if (!events_.empty() || flows_in_flight_ > 0)
    throw_internal_error("simulation stopped with %zu events and %zu flows left", events_.size(), flows_in_flight_);
}

}  // namespace lynx
