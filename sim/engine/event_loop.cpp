// The event loop's bookkeeping, shared by both drivers (event_driver.hpp): the event queue and its handlers, the
// flows and their comms, handler batches and errors. What moves SimGrid's clock is the driver's.
#include "sim/engine/event_loop.hpp"

#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/error.hpp"
#include "sim/engine/event_driver.hpp"
#include "sim/engine/flow_log.hpp"
#include "sim/engine/flow_priority.hpp"
#include "sim/engine/simgrid_options.hpp"
#include "sim/engine/simgrid_parts.hpp"

namespace lynx {

namespace sg4 = simgrid::s4u;

namespace {
std::vector<PlatformNode> single_nic_nodes(const std::vector<std::string>& names) {
  std::vector<PlatformNode> nodes;
  for (const auto& name : names) nodes.push_back(PlatformNode{name, 1});
  return nodes;
}

// SimGrid's engine is a process-wide singleton whose clock and configuration outlive it: one loop per process.
bool& engine_created() {
  static bool created = false;
  return created;
}
}  // namespace

const char* event_driver_name(EventDriver driver) { return driver == EventDriver::plain ? "plain" : "fast"; }

EventDriver event_driver_default() {
  const char* v = std::getenv("LYNX_EVENT_DRIVER");
  if (v == nullptr || *v == '\0' || std::string(v) == "fast") return EventDriver::fast;
  if (std::string(v) == "plain") return EventDriver::plain;
  throw_error("LYNX_EVENT_DRIVER=%s: expected plain or fast", v);
}

void EventLoop::SimGrid::retire(double now_s, sg4::CommPtr comm) {
  if (!finished.empty() && finished.front().first < now_s) {
    // Everything that ended before now has been fully handled by SimGrid.
    auto keep = std::remove_if(finished.begin(), finished.end(), [now_s](const auto& f) { return f.first < now_s; });
    finished.erase(keep, finished.end());
  }
  finished.emplace_back(now_s, std::move(comm));
}

EventLoop::SimGrid& simgrid_parts(EventLoop& loop) { return *loop.simgrid_; }

EventLoop::EventLoop(const NetworkConfig& network, const std::vector<std::string>& node_names, EventDriver driver)
    : EventLoop(network, single_nic_nodes(node_names), {}, driver) {}

EventLoop::EventLoop(const NetworkConfig& network, const std::vector<PlatformNode>& nodes,
                     const std::vector<std::string>& simgrid_cfg, EventDriver driver)
    : simgrid_(std::make_unique<SimGrid>()),
      network_(network),
      nodes_(nodes),
      simgrid_cfg_(simgrid_options_effective(simgrid_cfg)) {
  if (engine_created()) throw_internal_error("one simulation per process: SimGrid's engine cannot be created twice");
  engine_created() = true;
  int argc = 1;
  char name[] = "lynxsim";
  char* argv[] = {name, nullptr};
  simgrid_->engine = std::make_unique<sg4::Engine>(&argc, argv);
  xbt_log_control_set("root.thresh:critical");
  simgrid_options_apply(simgrid_cfg_);
  platform_ = platform_build(network, nodes, simgrid_->platform);
  simgrid_->network_model = flow_network_model();
  if (driver == EventDriver::fast) {
    std::string why_not;
    driver_ = make_fast_driver(*this, why_not);
    if (!driver_) {
      std::fprintf(stderr, "lynxsim: the fast event driver cannot run here (%s); using the plain one\n",
                   why_not.c_str());
      driver = EventDriver::plain;
    }
  }
  if (driver == EventDriver::plain) driver_ = make_plain_driver(*this);
  driver_kind_ = driver;
  // The loop is the only user of SimGrid in the process and lives as long as the engine (its only activities are
  // its own comms): the completion callback may hold it.
  sg4::Activity::on_completion_cb([this](const sg4::Activity& activity) {
    const auto slot = reinterpret_cast<uintptr_t>(activity.get_data<void>());
    if (slot == 0 || activity.get_state() != sg4::Activity::State::FINISHED) return;  // not one of our flows
    on_flow_done(slot - 1);
  });
}

EventLoop::~EventLoop() {
  if (driver_) driver_->clear();
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
  if (!dispatching_) driver_->arm();
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

void EventLoop::set_site_link_bandwidth(size_t link, double bytes_per_s) {
  if (link >= simgrid_->platform.site_link_up.size()) throw_internal_error("site link %zu out of range", link);
  simgrid_->platform.site_link_up[link]->set_bandwidth(bytes_per_s);
}

// Takes a free slot for a flow (its index + 1 is the comm's data) and starts its comm, or, ahead of SimGrid's clock,
// queues the start for when the clock gets there (the fast driver's look-ahead); the caller fills the rest of the slot.
size_t EventLoop::start_comm(int src, int dst, uint64_t bytes, double rate_bound) {
  size_t slot;
  if (!free_flows_.empty()) {
    slot = free_flows_.back();
    free_flows_.pop_back();
  } else {
    slot = flows_.size();
    flows_.emplace_back();
    simgrid_->comms.emplace_back();
  }
  ++flows_in_flight_;
  Flow& flow = flows_[slot];
  flow.bytes = bytes;
  flow.src = src;
  flow.dst = dst;
  flow.rate_bound = rate_bound;
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
  comm->set_source(simgrid_->platform.hosts[static_cast<size_t>(flow.src)]);
  comm->set_destination(simgrid_->platform.hosts[static_cast<size_t>(flow.dst)]);  // starts the comm
  if (flow.rate_bound > 0) set_flow_rate_bound(simgrid_->network_model, comm, flow.rate_bound);
  simgrid_->comms[slot] = std::move(comm);
  flow.sending = true;
  flow.pending = false;
}

bool EventLoop::set_weight(size_t slot, double weight) {
  if (ahead_s_ >= 0) {
    pending_.push_back(PendingOp{slot, weight});
    return true;
  }
  if (slot == completing_) return false;  // ended at this step; SimGrid holds its action no longer
  return set_flow_weight(simgrid_->network_model, simgrid_->comms[slot], weight);
}

void EventLoop::apply_pending() {
  for (const PendingOp& op : pending_) {
    if (op.weight == 0) begin_comm(op.slot);
    else set_flow_weight(simgrid_->network_model, simgrid_->comms[op.slot], op.weight);  // false: it ended at this step, as the weight came
  }
  pending_.clear();
}

size_t EventLoop::start_flow(int src, int dst, uint64_t bytes, double weight, double rate_bound) {
  if (bytes == 0) throw_internal_error("send: a flow needs a positive byte count");
  if (!(rate_bound >= 0)) throw_internal_error("send: a rate bound must be a number >= 0, got %g", rate_bound);
  if (std::isinf(rate_bound)) rate_bound = 0;  // no bound
  if (flow_log_) flow_log_->append(FlowLogEntry{now(), src, dst, bytes, weight, rate_bound});
  const size_t slot = start_comm(src, dst, bytes, rate_bound);
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
                                      uint64_t tag, double rate_bound) {
  const size_t slot = start_flow(src, dst, bytes, weight, rate_bound);
  flows_[slot].listener = &listener;
  flows_[slot].tag = tag;
  return handle_of(slot);
}

bool EventLoop::reweight(FlowHandle handle, double weight) {
  const auto bits = reinterpret_cast<uintptr_t>(handle);
  const size_t slot = static_cast<size_t>(bits & 0xffffffffu);
  if (slot == 0 || slot > flows_.size()) return false;
  Flow& flow = flows_[slot - 1];
  if ((!flow.sending && !flow.pending) || flow.generation != (static_cast<uint64_t>(bits) >> 32)) return false;
  if (!set_weight(slot - 1, weight)) return false;  // its last byte went at this step (completion not yet run)
  if (flow_log_) flow_log_->append_reweight(now(), flow.index, weight);
  return true;
}

void EventLoop::stop(std::exception_ptr error) {
  error_ = std::move(error);
  clear_events();
  driver_->clear();
  pending_.clear();
  ahead_s_ = -1;
}

void EventLoop::on_flow_done(size_t slot) {
  if (!error_) {
    completing_ = slot;
    driver_->before_completion();  // may run the events due (plain driver), which may stop the loop
  }
  if (error_) {  // stopped: what is still in flight drains without effect
    completing_ = SIZE_MAX;
    Flow& flow = flows_[slot];
    simgrid_->retire(now(), std::move(simgrid_->comms[slot]));
    const uint64_t generation = flow.generation + 1;
    if (flow.background) --background_flows_;
    if (flow.listener == nullptr && slot < flow_handlers_.size()) flow_handlers_[slot] = FlowHandlers{};
    flow = Flow{};
    flow.generation = generation;
    --flows_in_flight_;
    return;
  }
  dispatching_ = true;
  try {
    handle_flow_done(slot);
  } catch (...) {
    stop(std::current_exception());
  }
  completing_ = SIZE_MAX;
  dispatching_ = false;
  drop_background_if_idle();
  driver_->arm();
}

void EventLoop::handle_flow_done(size_t slot) {
  // Its handlers and comm taken out, the slot is free for a new flow at once (its comm is retired below); start_comm
  // and send set every other field of the next flow.
  Flow& flow = flows_[slot];
  sg4::CommPtr comm = std::move(simgrid_->comms[slot]);
  FlowListener* const listener = flow.listener;
  const uint64_t tag = flow.tag, bytes = flow.bytes;
  const double latency_s = flow.latency_s;
  const bool background = flow.background;
  flow.background = false;
  flow.sending = false;
  ++flow.generation;
  free_flows_.push_back(slot);
  --flows_in_flight_;
  completing_ = SIZE_MAX;
  simgrid_->retire(now(), std::move(comm));
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

void EventLoop::run_stop() {
  if (ahead_s_ >= 0) {  // this stop is at the time the handlers run ahead left their network work for
    ahead_s_ = -1;
    apply_pending();
  }
  run_due_events();
}

void EventLoop::drop_background_if_idle() {
  if (!pending_.empty() || background_events_ == 0 || events_.size() > background_events_ ||
      flows_in_flight_ > background_flows_)
    return;
  clear_events();  // only background events were left
  driver_->clear();
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

void EventLoop::run() {
  driver_->arm();
  driver_->run();
  simgrid_->finished.clear();
  if (error_) std::rethrow_exception(error_);
  if (flow_log_) flow_log_->finish();
  if (!events_.empty() || flows_in_flight_ > 0)
    throw_internal_error("simulation stopped with %zu events and %zu flows left", events_.size(), flows_in_flight_);
}

}  // namespace lynx
