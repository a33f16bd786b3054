#include "sim/event_loop.hpp"

#include <xbt/log.h>

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "sim/flow_priority.hpp"

namespace lynx {

namespace sg4 = simgrid::s4u;

namespace {
EventLoop* g_loop = nullptr;  // the process's one loop, for SimGrid's static completion signal
}

namespace {
std::vector<PlatformNode> single_nic_nodes(const std::vector<std::string>& names) {
  std::vector<PlatformNode> nodes;
  for (const auto& name : names) nodes.push_back(PlatformNode{name, 1});
  return nodes;
}
}  // namespace

EventLoop::EventLoop(const NetworkConfig& network, const std::vector<std::string>& node_names)
    : EventLoop(network, single_nic_nodes(node_names)) {}

EventLoop::EventLoop(const NetworkConfig& network, const std::vector<PlatformNode>& nodes) {
  if (g_loop != nullptr) throw_error("one simulation per process: SimGrid's engine cannot be created twice");
  g_loop = this;
  int argc = 1;
  char name[] = "lynxsim";
  char* argv[] = {name, nullptr};
  engine_ = std::make_unique<sg4::Engine>(&argc, argv);
  xbt_log_control_set("root.thresh:critical");
  platform_ = platform_build(network, nodes);
  sg4::Activity::on_completion_cb([](const sg4::Activity& activity) {
    if (g_loop != nullptr) g_loop->on_activity_done(activity);
  });
}

EventLoop::~EventLoop() { g_loop = nullptr; }

double EventLoop::now() const { return sg4::Engine::get_clock(); }

void EventLoop::at(double time_s, std::function<void()> handler) {
  if (time_s < now()) time_s = now();
  events_.push(Event{time_s, next_sequence_++, std::move(handler)});
  arm_timer();
}

void EventLoop::send(int src, int dst, uint64_t bytes, double weight, std::function<void()> on_sent,
                     std::function<void()> on_delivered) {
  if (bytes == 0) throw_error("send: a flow needs a positive byte count");
  sg4::CommPtr comm = sg4::Comm::sendto_init();
  comm->set_payload_size(bytes);
  comm->set_source(platform_.hosts[static_cast<size_t>(src)]);
  comm->set_destination(platform_.hosts[static_cast<size_t>(dst)]);  // starts the comm
  if (weight != 1.0) set_flow_weight(comm, weight);
  ++flows_started_;
  bytes_sent_ += bytes;
  const sg4::Activity* key = comm.get();
  flows_.emplace(key, Flow{std::move(comm), bytes, platform_.route_latency_s(src, dst), std::move(on_sent),
                           std::move(on_delivered)});
}

void EventLoop::retire(sg4::ActivityPtr activity) {
  const double t = now();
  if (!finished_.empty() && finished_.front().first < t) {
    // Everything that ended before now has been fully handled by SimGrid.
    auto keep = std::remove_if(finished_.begin(), finished_.end(), [t](const auto& f) { return f.first < t; });
    finished_.erase(keep, finished_.end());
  }
  finished_.emplace_back(t, std::move(activity));
}

void EventLoop::on_activity_done(const sg4::Activity& activity) {
  if (error_) return;  // stopped: what is still in flight drains without effect
  try {
    handle_activity_done(activity);
  } catch (...) {
    error_ = std::current_exception();
    while (!events_.empty()) events_.pop();
    if (timer_) {
      retire(timer_);
      timer_->suspend();
      timer_->cancel();
      timer_ = nullptr;
    }
  }
}

void EventLoop::handle_activity_done(const sg4::Activity& activity) {
  if (activity.get_state() != sg4::Activity::State::FINISHED) return;  // a cancelled timer
  if (&activity == timer_.get()) {
    retire(timer_);
    timer_ = nullptr;
    timer_target_s_ = -1;
    run_due_events();
    arm_timer();
    return;
  }
  auto it = flows_.find(&activity);
  if (it == flows_.end()) return;
  Flow flow = std::move(it->second);
  flows_.erase(it);
  retire(flow.comm);
  auto deliver = [this, bytes = flow.bytes, handler = std::move(flow.on_delivered)]() {
    ++flows_delivered_;
    bytes_delivered_ += bytes;
    handler();
  };
  if (flow.on_sent) flow.on_sent();
  if (flow.latency_s > 0)
    at(now() + flow.latency_s, std::move(deliver));
  else
    deliver();
  arm_timer();
}

void EventLoop::run_due_events() {
  // The timer ends at now + (target - now), which can differ from target by one rounding step.
  const double due = now() + 1e-12 * std::max(1.0, now());
  while (!events_.empty() && events_.top().time_s <= due) {
    std::function<void()> handler = std::move(const_cast<Event&>(events_.top()).handler);
    events_.pop();
    handler();
  }
}

void EventLoop::arm_timer() {
  if (events_.empty() || error_) return;
  const double target = events_.top().time_s;
  if (timer_ && timer_target_s_ <= target) return;  // already due no later than the earliest event
  if (timer_) {
    // A cancelled Exec keeps its share of the host until SimGrid next cleans up, which would slow the new timer
    // down; suspending it first takes it off the host at once.
    retire(timer_);
    timer_->suspend();
    timer_->cancel();
  }
  timer_ = sg4::Exec::init();
  timer_->set_flops_amount(std::max(0.0, target - now()));
  timer_->set_host(platform_.timer_host);
  timer_->start();
  timer_target_s_ = target;
}

void EventLoop::run() {
  arm_timer();
  engine_->run();
  if (error_) std::rethrow_exception(error_);
  if (!events_.empty() || !flows_.empty())
    throw_error("simulation stopped with %zu events and %zu flows left", events_.size(), flows_.size());
}

}  // namespace lynx
