// Builds the SimGrid platform of a cluster: each serving instance (prefill instances first, then decode) has one
// or more NICs (one per GPU in real nodes), each a SimGrid host with its own link to the switch ("endpoints"), and,
// for leaf-spine, one aggregate uplink per leaf (see network_config.hpp); for sites, each site is a star or a
// leaf-spine of its own under a root zone whose routes between sites are the site links (site_config.hpp), and
// a site link with Poisson cross traffic gets two more endpoints, one in each of its sites, for the other
// tenants' flows. All links have zero latency in SimGrid: propagation delay is added by the event loop after a
// flow's last byte (see flow_priority.hpp for why). Must be called once per process, before the first simulation
// event.
#pragma once
#include <string>
#include <vector>

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include "sim/network/network_config.hpp"

namespace lynx {

// A serving instance as the network sees it: a name, its NICs and (topology sites) its site.
struct PlatformNode {
  std::string name;
  int nics = 1;
  int site = 0;
};

// A site link as built: its SimGrid links (a -> b is `up`; `up == down` when links are shared), its capacity
// before cross traffic, and the endpoints of its Poisson cross traffic (-1 without).
struct PlatformSiteLink {
  simgrid::s4u::Link* up = nullptr;
  simgrid::s4u::Link* down = nullptr;
  double capacity_bytes_per_s = 0;
  int cross_src = -1, cross_dst = -1;
};

struct Platform {
  std::vector<simgrid::s4u::Host*> hosts;   // index = endpoint id: node n's NICs are first_endpoint[n] + 0..nics-1
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

// Applies the network model's SimGrid configuration and creates the zone with the nodes and their NICs.
Platform platform_build(const NetworkConfig& network, const std::vector<PlatformNode>& nodes);

}  // namespace lynx
