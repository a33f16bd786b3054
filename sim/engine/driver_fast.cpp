// The fast driver (event_driver.hpp): a model of our own in SimGrid's engine (StepHook, a
// simgrid::kernel::resource::Model with no action, added last with Engine::add_model). At the start of every step
// SimGrid asks each model for the time to its next date and stops the clock at the earliest, so our model's answer
// (the earliest queued event) stops it exactly there, with no activity, host or solver variable involved; the events
// due then run when SimGrid updates our model at that clock: it is updated last, and SimGrid runs its timers right
// after, so they run where a SimGrid timer at that clock would, before the step's completions. A kernel timer is set
// only in a step whose completions coincide with its events, to keep the order timers give there (SimGrid looks for
// timers again after the completions if one ran). Between steps it runs events ahead of SimGrid's clock where no
// flow can change meanwhile (look_ahead). On the Mooncake benchmark (experiments/configs/mooncake_8x8_h200_100g.json)
// it runs 3.26 G instructions against the plain driver's 3.99 G (callgrind), 0.82 of its time as whole processes
// (10 alternated pairs, median), where SimGrid's own replay of the same flows takes 2.57 G (docs/benchmarks.md).
// It reads SimGrid 3.32's kernel layer (EngineImpl's step order, the models' action sets and heaps), which carries no
// API promise: make_fast_driver checks what it relies on and declines otherwise, and the loop falls back to the plain
// driver. LYNX_NO_LOOK_AHEAD=1 steps SimGrid at every event time; LYNX_CHECK_LOOK_AHEAD=1 checks at each look-ahead
// that the date it read is SimGrid's own (tests run both).
#include <simgrid/kernel/Timer.hpp>
#include <simgrid/kernel/resource/Action.hpp>
#include <simgrid/kernel/resource/Model.hpp>
#include <simgrid/version.h>
#include <xbt/config.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "sim/engine/event_driver.hpp"
#include "sim/engine/flow_priority.hpp"
#include "sim/engine/simgrid_parts.hpp"

namespace lynx {

namespace {
namespace kr = simgrid::kernel::resource;

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

// An action of `model` has ended (finished or failed) and SimGrid has not yet handled its completion.
bool holds_ended_actions(kr::Model* model) {
  return !model->get_finished_action_set()->empty() || !model->get_failed_action_set()->empty();
}
}  // namespace

class FastDriver final : public EventLoop::Driver {
 public:
  explicit FastDriver(EventLoop& loop) : loop_(loop), sg_(simgrid_parts(loop)) {}
  ~FastDriver() override;
  // Adds our model to SimGrid's engine and reads SimGrid's other models; the reason it cannot run, or "".
  std::string install();

  void arm() override;
  void clear() override {
    remove_timers();
    sync_s_ = -1;
  }
  void run() override { sg_.engine->run(); }

  // Our model in SimGrid's engine: it holds no action and no resource; SimGrid asks it, after every model added
  // before it (the network's among them), for the time to its next date at the start of each step, and tells it
  // when the clock has moved. It outlives the driver (SimGrid owns it): the driver unhooks it when it goes.
  class StepHook : public kr::Model {
   public:
    StepHook() : Model("lynx-event-loop") {}
    double next_occurring_event(double now) override { return driver != nullptr ? driver->next_stop_in(now) : -1.0; }
    void update_actions_state(double now, double /*delta*/) override {
      if (driver != nullptr) driver->on_clock_moved(now);
    }
    FastDriver* driver = nullptr;
  };

 private:
  double next_stop_in(double clock_s);  // at the start of a SimGrid step: the look-ahead, then our next date
  void on_clock_moved(double clock_s);  // after SimGrid's clock has moved: the stops due
  void dispatch_due_stops();            // run_earliest_stop for each stop due
  void on_dispatch_timer();             // the dispatch timer: the stops due
  void set_dispatch_timer();
  void run_earliest_stop();  // the earliest clock stop taken off stops_ and its work run as a batch (run_stop)
  bool completions_pending() const;  // a model holds an ended action SimGrid has not yet handled
  void look_ahead();
  void remove_timers();
  double earliest_stop() const { return stops_.back(); }

  EventLoop& loop_;
  EventLoop::SimGrid& sg_;
  StepHook* hook_ = nullptr;
  bool look_ahead_ = true, check_look_ahead_ = false;
  double timing_precision_s_ = 1e-9;  // SimGrid's surf/precision
  double sync_s_ = -1;  // a clock stop due after running ahead (look_ahead), else -1
  // Clock stops still due, sorted latest first (back: the earliest), each at a queued event's time; the earliest is
  // at the earliest event, and is the date our model gives SimGrid. An earlier event adds a stop rather than moving
  // the earliest, so that the clock stops where it did when each stop was a SimGrid timer of its own. A stop is
  // only ever added below every other one (arm drops those before it first), so it goes at the back, and the
  // earliest comes off the back: no search, no heap.
  std::vector<double> stops_;
  // A SimGrid timer that runs the stops due at this clock (run_earliest_stop for each), where SimGrid's order at a
  // step must be kept around its completions: timers, then completions, then timers set meanwhile (on_clock_moved,
  // arm); null when none is set. Elsewhere the stops run in on_clock_moved itself.
  simgrid::kernel::timer::Timer* dispatch_timer_ = nullptr;
  bool in_dispatch_ = false;  // inside dispatch_due_stops (a stop due meanwhile runs in it)
  bool in_step_ = false;      // SimGrid has asked our model its date in this step (a solve, not its presolve)
  bool timer_ran_ = false;    // our dispatch timer has run since this step's solve
  struct WatchedModel {
    kr::Model* model;
    bool may_run_ahead;  // updates lazily, its next date idempotent (look_ahead)
  };
  static constexpr size_t kMaxWatchedModels = 16;
  std::vector<WatchedModel> models_;  // SimGrid's models but ours, in its order
};

FastDriver::~FastDriver() {
  remove_timers();
  if (hook_ != nullptr) hook_->driver = nullptr;
}

std::string fast_driver_version_refusal(int major, int minor) {
  if (major == 3 && minor == 32) return "";
  return "it reads SimGrid 3.32's kernel; this is SimGrid " + std::to_string(major) + "." + std::to_string(minor);
}

std::string FastDriver::install() {
  // The library's version and the headers' (compiled against); LYNX_FAST_DRIVER_SIMGRID_VERSION=MAJOR.MINOR stands
  // for the library's in the test of the fallback.
  int major = 0, minor = 0, patch = 0;
  sg_version_get(&major, &minor, &patch);
  if (const char* v = std::getenv("LYNX_FAST_DRIVER_SIMGRID_VERSION"); v != nullptr && *v != '\0')
    std::sscanf(v, "%d.%d", &major, &minor);
  std::string refusal = fast_driver_version_refusal(SIMGRID_VERSION_MAJOR, SIMGRID_VERSION_MINOR);
  if (refusal.empty()) refusal = fast_driver_version_refusal(major, minor);
  if (!refusal.empty()) return refusal;
  // Running ahead needs lazy updates (a full update touches every action's remaining work at every step).
  look_ahead_ = simgrid::config::get_value<std::string>("network/optim") == "Lazy" && !env_flag("LYNX_NO_LOOK_AHEAD");
  check_look_ahead_ = env_flag("LYNX_CHECK_LOOK_AHEAD");
  timing_precision_s_ = simgrid::config::get_value<double>("surf/precision");
  // Added last, so that SimGrid asks it after the network model has solved the network at this time.
  auto hook = std::make_shared<StepHook>();
  sg_.engine->add_model(hook);
  hook_ = hook.get();
  const auto models = sg_.engine->get_all_models();
  if (models.empty() || models.back() != hook_) return "its model is not the last of SimGrid's models";
  // SimGrid's other models, read at every step (look_ahead, completions_pending): whether each may be run ahead of
  // (it updates lazily and its next date is idempotent) is fixed once the engine is built. Only the network's ever
  // holds an action (the loop starts comms alone: no computation, I/O or VM work), so the scans read it alone;
  // LYNX_CHECK_LOOK_AHEAD=1 reads every model, and look_ahead checks that no other one holds an action.
  for (kr::Model* model : models)
    if (model != hook_ && (model == sg_.network_model || check_look_ahead_))
      models_.push_back(WatchedModel{model, model->is_update_lazy() && model->next_occurring_event_is_idempotent()});
  if (std::none_of(models_.begin(), models_.end(), [this](const WatchedModel& m) { return m.model == sg_.network_model; }))
    return "SimGrid's network model is not one of its engine's models";
  if (models_.size() > kMaxWatchedModels) return "SimGrid has " + std::to_string(models_.size()) + " models";
  hook_->driver = this;
  return "";
}

void FastDriver::run_earliest_stop() {
  // The stops due run in date order, each once: the one running is the earliest.
  stops_.pop_back();
  sync_s_ = -1;
  if (loop_.error_) return;
  loop_.run_batch([this] { loop_.run_stop(); });
}

double FastDriver::next_stop_in(double clock_s) {
  in_step_ = true;     // this step's on_clock_moved may run the stops it reaches itself
  timer_ran_ = false;  // the last step's timers have all run
  // A stop due at this clock: a zero-length step runs it first (as SimGrid's timer at this date did), no look-ahead.
  const bool due_now = !stops_.empty() && earliest_stop() <= clock_s;
  if (!due_now && dispatch_timer_ == nullptr && !loop_.error_) loop_.run_batch([this] { look_ahead(); });
  if (stops_.empty()) return -1.0;
  return earliest_stop() <= clock_s ? 0.0 : earliest_stop() - clock_s;  // SimGrid's own jump, clock + (stop - clock)
}

// The stops the clock has reached run here, where SimGrid's own timer at this date would run them: our model is the
// last one SimGrid updates in a step, and between that and its timers it only emits on_time_advance (no listener in
// this process). Its timers run before the step's completions are handled; a timer that ran makes SimGrid look for
// timers again after them, so that events a completion queues for now run within this step. When completions are
// pending, a timer (finding no stop due) keeps that. Outside a step (SimGrid's presolve), the timer as before.
void FastDriver::on_clock_moved(double clock_s) {
  loop_.clock_s_ = clock_s;
  const bool in_step = in_step_;
  in_step_ = false;
  if (stops_.empty() || earliest_stop() > clock_s) return;
  if (!in_step || dispatch_timer_ != nullptr) {
    set_dispatch_timer();
    return;
  }
  dispatch_due_stops();
  if (!loop_.error_ && completions_pending()) set_dispatch_timer();
}

bool FastDriver::completions_pending() const {
  return std::any_of(models_.begin(), models_.end(), [](const WatchedModel& m) { return holds_ended_actions(m.model); });
}

void FastDriver::set_dispatch_timer() {
  if (dispatch_timer_ != nullptr || in_dispatch_) return;  // in_dispatch_: the running dispatch takes it
  dispatch_timer_ = kernel_timer_set(loop_.clock_s_,
                                     [](void* driver) { static_cast<FastDriver*>(driver)->on_dispatch_timer(); }, this);
  ++loop_.dispatch_timers_;
}

void FastDriver::on_dispatch_timer() {
  dispatch_timer_ = nullptr;  // SimGrid deletes it once it has run
  timer_ran_ = true;
  dispatch_due_stops();
}

void FastDriver::dispatch_due_stops() {
  in_dispatch_ = true;
  const double clock = loop_.clock_s_;
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
// time: that batch is the last, and a stop there applies them in their order (EventLoop::apply_pending).
void FastDriver::look_ahead() {
  const double clock = loop_.clock_s_;
  if (!look_ahead_ || loop_.error_ || !(clock > 0) || !loop_.pending_.empty()) return;
  if (check_look_ahead_)  // the scans below read the network's model alone where not checking
    for (const WatchedModel& m : models_)
      if (m.model != sg_.network_model && (holds_ended_actions(m.model) || !m.model->get_started_action_set()->empty()))
        throw_internal_error("look-ahead at %.17g: a SimGrid model other than the network's holds an action", clock);
  // The models with actions running (the network's, in practice): each must update lazily and have its next date
  // in its action heap; none may hold an action ended and not yet dispatched.
  kr::Model* active[kMaxWatchedModels];
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
  while (!loop_.events_.empty() && loop_.pending_.empty() && !loop_.error_) {
    const double t = loop_.events_.top().time_s;
    if (!(t + 2 * timing_precision_s_ < next_change) || t > 2 * clock) break;
    loop_.ahead_s_ = last_s = t;
    loop_.run_due_events();
    ++loop_.steps_ahead_;
    if (loop_.pending_.empty()) loop_.drop_background_if_idle();
  }
  if (!loop_.pending_.empty()) return;  // ahead_s_ stays: the stop there applies them
  loop_.ahead_s_ = -1;
  // SimGrid's next stop, from this clock: exactly where the skipped steps' last clock would have gone only if it is
  // at most twice this clock; else a step at the last time run ahead restores the skipped steps' last jump.
  const double next_stop = std::min(next_change, loop_.events_.empty() ? next_change : loop_.events_.top().time_s);
  if (last_s >= 0 && next_stop > 2 * clock) sync_s_ = last_s;
}

void FastDriver::remove_timers() {
  stops_.clear();
  if (dispatch_timer_ != nullptr) kernel_timer_remove(dispatch_timer_);
  dispatch_timer_ = nullptr;
}

void FastDriver::arm() {
  if (loop_.error_ || (loop_.events_.empty() && loop_.pending_.empty() && sync_s_ < 0)) return;
  // The earliest thing due: network work left by handlers run ahead, else a clock stop after running ahead
  // (look_ahead), else the earliest event.
  double target = !loop_.pending_.empty() ? loop_.ahead_s_ : loop_.events_.empty() ? sync_s_ : loop_.events_.top().time_s;
  if (loop_.pending_.empty() && sync_s_ >= 0) target = std::min(target, sync_s_);
  // A stop before it would stop the clock for nothing (an event ran early, within a rounding step, or ahead).
  while (!stops_.empty() && earliest_stop() < target) stops_.pop_back();
  // A later stop stays: it is at a queued event's time (events are never withdrawn), where the clock stops anyway.
  // The target is then below every stop left: the new earliest.
  if (stops_.empty() || earliest_stop() > target) stops_.push_back(target);
  // Due at this clock (an event queued for now by a completion, or before the first step): within this step if a
  // timer already ran in it (from a timer, which SimGrid then runs after the completions), else at a zero-length
  // step (our model's date is now: on_clock_moved runs it), as SimGrid's own timer at this date did.
  if (target <= loop_.clock_s_ && timer_ran_) set_dispatch_timer();
}

std::unique_ptr<EventLoop::Driver> make_fast_driver(EventLoop& loop, std::string& why_not) {
  auto driver = std::make_unique<FastDriver>(loop);
  why_not = driver->install();
  if (!why_not.empty()) return nullptr;
  return driver;
}

}  // namespace lynx
