// Builds the SimGrid platform of a cluster: one host per serving instance (prefill instances first, then decode),
// NIC links and, for leaf-spine, one aggregate uplink per leaf (see network_config.hpp). All links have zero
// latency in SimGrid: propagation delay is added by the event loop after a flow's last byte (see flow_priority.hpp
// for why). Must be called once per process, before the first simulation event.
#pragma once
#include <string>
#include <vector>

#include <simgrid/s4u/Host.hpp>

#include "sim/network_config.hpp"

namespace lynx {

struct Platform {
  std::vector<simgrid::s4u::Host*> hosts;   // index = node id
  simgrid::s4u::Host* timer_host = nullptr; // runs the event loop's timer, on no route
  std::vector<int> rack_of;                 // node id -> rack (0 for star)
  double latency_s = 0;                     // one way, same switch
  double cross_rack_latency_s = 0;          // one way, across the spine
  double nic_bytes_per_s = 0;
  double uplink_bytes_per_s = 0;            // leaf-spine only

  double route_latency_s(int src, int dst) const {
    return rack_of[static_cast<size_t>(src)] == rack_of[static_cast<size_t>(dst)] ? latency_s : cross_rack_latency_s;
  }
};

// Applies the network model's SimGrid configuration and creates the zone with `host_names.size()` nodes.
Platform platform_build(const NetworkConfig& network, const std::vector<std::string>& host_names);

}  // namespace lynx
