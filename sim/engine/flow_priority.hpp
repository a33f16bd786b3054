// Weighted max-min sharing between flows, and SimGrid's kernel timer (the fast driver's, driver_fast.cpp): with the
// fast driver's model, the places lynxsim touches SimGrid's kernel layer. Both drivers need the weights.
// SimGrid 3.32 has no flow priority in its public API. Its CM02/LV08 solvers compute a weighted max-min share in
// which a flow with sharing penalty p gets bandwidth proportional to 1/p on its bottleneck; the kernel Action of a
// started Comm exposes set_sharing_penalty(). Weight w = penalty 1/w; weight 1000 against 1 behaves as strict
// priority. Only consistent on zero-latency links (3.32 shadows sharing_penalty_ in NetworkAction), which is why
// lynxsim's links have zero latency and propagation delay is added by the event loop.
#pragma once
#include <simgrid/forward.h>
#include <simgrid/s4u/Comm.hpp>

namespace lynx {

// Sets the sharing weight of a started (running) comm. Returns false, changing nothing, if its network action has
// ended at this step and SimGrid has not yet handled its completion (it has sent every byte). Throws LynxError if
// the comm has no network action at all.
// `network_model` is flow_network_model()'s, fetched once per engine (its dynamic_cast cost as much as the rest).
bool set_flow_weight(simgrid::kernel::resource::Model* network_model, const simgrid::s4u::CommPtr& comm, double weight);
// Caps a just-started comm's rate at `bytes_per_s` (> 0): the bound of its variable in SimGrid's max-min system,
// as Comm::set_rate would set before the start (which 3.32 does not pass on for a host-to-host comm). Throws
// LynxError if the comm has no running network action.
void set_flow_rate_bound(simgrid::kernel::resource::Model* network_model, const simgrid::s4u::CommPtr& comm,
                         double bytes_per_s);
// The engine's network model: the one whose actions carry the comms.
simgrid::kernel::resource::Model* flow_network_model();

// SimGrid's own kernel timer (simgrid/kernel/Timer.hpp, an installed header): `callback` runs in maestro at
// exactly `date_s` (the engine bounds each solve by the earliest timer, so the clock stops there), with no
// activity and no resource involved; flows can be started from it. The timer is deleted once it has run.
// `callback(argument)` is what runs: a function pointer and its argument fit SimGrid's task without an allocation
// (a std::function does not).
simgrid::kernel::timer::Timer* kernel_timer_set(double date_s, void (*callback)(void*), void* argument);
// Removes a timer that has not run yet.
void kernel_timer_remove(simgrid::kernel::timer::Timer* timer);

}  // namespace lynx
