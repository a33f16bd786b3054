// How an event loop (event_loop.hpp) moves SimGrid's clock to its events: the interface both drivers implement,
// for the engine room's own files. The loop tells its driver when the earliest thing due may have changed (arm)
// and when nothing is left to stop for (clear); the driver runs SimGrid until the loop is idle.
//   plain (driver_plain.cpp): SimGrid's public S4U API only;
//   fast (driver_fast.cpp): a model of our own in SimGrid 3.32's kernel, with look-ahead.
#pragma once
#include <exception>
#include <memory>
#include <string>

#include "sim/engine/event_loop.hpp"

namespace lynx {

class EventLoop::Driver {
 public:
  virtual ~Driver() = default;
  // An event was queued outside a handler batch, or a batch of handlers (events, a completion) has ended: the
  // earliest event may be earlier than the clock's next stop.
  virtual void arm() = 0;
  // Nothing more to stop for: the loop stopped on an error, or only background work is left.
  virtual void clear() = 0;
  // A flow's comm ended at SimGrid's clock (its completion callback), before its handlers run.
  virtual void before_completion() {}
  // Runs SimGrid until the loop is idle (or stopped: then until the flows in flight have drained).
  virtual void run() = 0;
};

template <class Work>
void EventLoop::run_batch(Work&& work) {
  dispatching_ = true;
  try {
    work();
  } catch (...) {
    stop(std::current_exception());
  }
  dispatching_ = false;
  drop_background_if_idle();
  driver_->arm();
}

std::unique_ptr<EventLoop::Driver> make_plain_driver(EventLoop& loop);
// Why the fast driver cannot run on SimGrid MAJOR.MINOR (it reads 3.32's kernel layer), or "".
std::string fast_driver_version_refusal(int major, int minor);
// The fast driver, or null with the reason in `why_not` where its preconditions fail (SimGrid's version, its models).
std::unique_ptr<EventLoop::Driver> make_fast_driver(EventLoop& loop, std::string& why_not);

}  // namespace lynx
