// A cluster's platform as the simulator sees it: each serving instance (prefill instances first, then decode) has
// one or more NICs (one per GPU in real nodes), each an endpoint with its own link to its switch; racks of a
// leaf-spine share an uplink; sites are joined by site links. The facts here (endpoint numbering, racks, sites,
// propagation latencies, capacities) are what the simulator reads; the SimGrid objects that carry them are the
// engine's (simgrid_platform.hpp builds both).
#pragma once
#include <string>
#include <vector>

#include "sim/network/network_config.hpp"

namespace lynx {

// A serving instance as the network sees it: a name, its NICs and (topology sites) its site.
struct PlatformNode {
  std::string name;
  int nics = 1;
  int site = 0;
};

// A site link as built: its capacity before cross traffic, and the endpoints of its Poisson cross traffic (-1
// without). Its SimGrid links are the engine's (sim/engine/simgrid_platform.hpp).
struct PlatformSiteLink {
  double capacity_bytes_per_s = 0;
  int cross_src = -1, cross_dst = -1;
};

// The platform's facts, as the simulator reads them (no SimGrid object: those are the engine's).
struct Platform {
  size_t endpoints = 0;                     // endpoint ids 0..endpoints-1: node n's NICs are first_endpoint[n] + 0..nics-1
  std::vector<int> first_endpoint;          // node -> its first NIC's endpoint id
  std::vector<int> rack_of;                 // endpoint id -> rack of its node (0 for star; unique across sites)
  double latency_s = 0;                     // one way, same switch
  double cross_rack_latency_s = 0;          // one way, across the spine (star and leaf-spine)
  double nic_bytes_per_s = 0;
  double uplink_bytes_per_s = 0;            // leaf-spine only
  // topology sites only (empty otherwise)
  std::vector<int> site_of;                 // endpoint id -> site
  std::vector<double> site_spine_latency_s; // site -> added to a route leaving one of its racks (leaf-spine sites)
  std::vector<std::vector<double>> site_link_latency_s;  // [a][b]: the site link's latency (0 on the diagonal)
  std::vector<PlatformSiteLink> site_links; // as NetworkConfig.sites.links

  double route_latency_s(int src, int dst) const {
    const bool same_rack = rack_of[static_cast<size_t>(src)] == rack_of[static_cast<size_t>(dst)];
    if (site_of.empty()) return same_rack ? latency_s : cross_rack_latency_s;
    if (same_rack) return latency_s;
    const int a = site_of[static_cast<size_t>(src)], b = site_of[static_cast<size_t>(dst)];
    if (a == b) return latency_s + site_spine_latency_s[static_cast<size_t>(a)];
    return latency_s + site_spine_latency_s[static_cast<size_t>(a)] + site_spine_latency_s[static_cast<size_t>(b)] +
           site_link_latency_s[static_cast<size_t>(a)][static_cast<size_t>(b)];
  }
};


}  // namespace lynx
