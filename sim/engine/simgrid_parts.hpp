// The SimGrid objects of an event loop (event_loop.hpp), for the engine room's own files: SimGrid's engine, the
// platform's hosts and links, the comm of each flow in flight, and comms that have ended but that SimGrid may still
// be handling. Nothing outside sim/engine/ includes this header (or any SimGrid header).
#pragma once
#include <memory>
#include <utility>
#include <vector>

#include <simgrid/forward.h>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>

#include "sim/engine/event_loop.hpp"
#include "sim/engine/simgrid_platform.hpp"

namespace lynx {

struct EventLoop::SimGrid {
  std::unique_ptr<simgrid::s4u::Engine> engine;
  simgrid::kernel::resource::Model* network_model = nullptr;  // flow_network_model(), for set_flow_weight
  SimGridPlatform platform;
  std::vector<simgrid::s4u::CommPtr> comms;  // by flow slot; null while a start is pending or the slot is free
  // Finished comms, kept alive until the clock has moved past the time they ended: SimGrid may still be handling
  // other activities that ended at that same time (dropping the last handle of a comm it handles crashes).
  std::vector<std::pair<double, simgrid::s4u::CommPtr>> finished;
  void retire(double now_s, simgrid::s4u::CommPtr comm);
};

// The loop's SimGrid objects (the drivers, and tests of this room that need a host).
EventLoop::SimGrid& simgrid_parts(EventLoop& loop);

}  // namespace lynx
