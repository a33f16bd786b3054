// Builds the SimGrid platform of a cluster: each serving instance (prefill instances first, then decode) has one
// or more NICs (one per GPU in real nodes), each a SimGrid host with its own link to the switch ("endpoints"), and,
// for leaf-spine, one aggregate uplink per leaf (see network_config.hpp). All links have zero
// latency in SimGrid: propagation delay is added by the event loop after a flow's last byte (see flow_priority.hpp
// for why). Must be called once per process, before the first simulation event.
#pragma once
#include <string>
#include <vector>

#include <simgrid/s4u/Host.hpp>

#include "sim/network_config.hpp"

namespace lynx {

// A serving instance as the network sees it: a name and its NICs.
struct PlatformNode {
  std::string name;
  int nics = 1;
};

struct Platform {
  std::vector<simgrid::s4u::Host*> hosts;   // index = endpoint id: node n's NICs are first_endpoint[n] + 0..nics-1
  std::vector<int> first_endpoint;          // node -> its first NIC's endpoint id
  std::vector<int> rack_of;                 // endpoint id -> rack of its node (0 for star)
  double latency_s = 0;                     // one way, same switch
  double cross_rack_latency_s = 0;          // one way, across the spine
  double nic_bytes_per_s = 0;
  double uplink_bytes_per_s = 0;            // leaf-spine only

  double route_latency_s(int src, int dst) const {
    return rack_of[static_cast<size_t>(src)] == rack_of[static_cast<size_t>(dst)] ? latency_s : cross_rack_latency_s;
  }
};

// Applies the network model's SimGrid configuration and creates the zone with the nodes and their NICs.
Platform platform_build(const NetworkConfig& network, const std::vector<PlatformNode>& nodes);

}  // namespace lynx
