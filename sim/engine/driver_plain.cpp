// The plain driver (event_driver.hpp): SimGrid's public S4U API only, as SimGrid's own examples drive time from
// maestro. It runs the events due, then Engine::run_until(the earliest event's time); the flows that end meanwhile
// come through Activity::on_completion_cb. A completion may queue an event before that time: SimGrid's run then has to
// stop after the current step, which the public API offers through vetoed activities (Engine::track_vetoed_activities,
// the DAG-scheduling examples' way back to their scheduler): an Exec with no host, started with vetoable_start, is
// vetoed and SimGrid's run returns once the step is over.
// The order at one time is the fast driver's: a stop is reached when the clock is at or past the earliest event's
// time (an event is never run at a clock below its time), the events due then (those within a rounding step of it)
// run before the completions of that step, and the events a completion queues for that time after all of them.
#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>

#include <limits>
#include <memory>
#include <set>

#include "sim/engine/event_driver.hpp"
#include "sim/engine/simgrid_parts.hpp"

namespace lynx {

namespace sg4 = simgrid::s4u;

class PlainDriver final : public EventLoop::Driver {
 public:
  explicit PlainDriver(EventLoop& loop) : loop_(loop), sg_(simgrid_parts(loop)), stopper_(sg4::Exec::init()) {}
  ~PlainDriver() override { sg_.engine->track_vetoed_activities(nullptr); }

  // An event earlier than the date SimGrid runs until: SimGrid's run stops after this step.
  void arm() override {
    if (!in_run_ || stopping_ || loop_.error_ || loop_.events_.empty()) return;
    if (loop_.events_.top().time_s < until_s_) {
      stopping_ = true;
      stopper_->vetoable_start();  // no host: vetoed, into vetoed_, and SimGrid's run returns after this step
    }
  }
  void clear() override {}
  // The first completion of a step: the events due at this clock run first, as where no flow ends.
  void before_completion() override {
    const double clock = sg4::Engine::get_clock();
    loop_.clock_s_ = clock;
    if (clock == completions_at_s_) return;
    completions_at_s_ = clock;
    if (stop_reached(clock)) loop_.run_batch([this] { loop_.run_due_events(); });
  }
  void run() override;

 private:
  bool stop_reached(double clock) const { return !loop_.events_.empty() && loop_.events_.top().time_s <= clock; }

  EventLoop& loop_;
  EventLoop::SimGrid& sg_;
  sg4::ExecPtr stopper_;        // never assigned a host: its start is always vetoed
  std::set<sg4::Activity*> vetoed_;
  bool in_run_ = false;         // inside SimGrid's run
  bool stopping_ = false;       // the stopper was started in this run
  double until_s_ = std::numeric_limits<double>::infinity();  // the date SimGrid runs until
  double completions_at_s_ = -1;  // the clock of the last completion (its step's events due ran before it)
};

void PlainDriver::run() {
  sg_.engine->track_vetoed_activities(&vetoed_);
  while (true) {
    loop_.clock_s_ = sg4::Engine::get_clock();
    if (!loop_.error_ && stop_reached(loop_.clock_s_)) loop_.run_batch([this] { loop_.run_due_events(); });
    if (loop_.idle() || (loop_.error_ && loop_.flows_in_flight_ == 0)) break;
    // Stopped by an error: the flows in flight drain without effect.
    until_s_ = loop_.error_ || loop_.events_.empty() ? std::numeric_limits<double>::infinity()
                                                     : loop_.events_.top().time_s;
    stopping_ = false;
    in_run_ = true;
    if (until_s_ == std::numeric_limits<double>::infinity()) sg_.engine->run();
    else sg_.engine->run_until(until_s_);  // may return a step early (within 1e-5 s of it): the loop goes on
    in_run_ = false;
    vetoed_.clear();
    sg_.finished.clear();  // outside SimGrid: the last handles of finished comms can go
  }
  sg_.engine->track_vetoed_activities(nullptr);
}

std::unique_ptr<EventLoop::Driver> make_plain_driver(EventLoop& loop) { return std::make_unique<PlainDriver>(loop); }

}  // namespace lynx
