// The SimGrid side of a cluster's platform: each endpoint (a NIC, platform.hpp) is a SimGrid host with its own
// link to its switch; a leaf-spine adds one aggregate uplink per leaf; sites are star or leaf-spine zones under a
// root zone whose routes between sites are the site links (sim/network/site_config.hpp); a site link with Poisson
// cross traffic gets two more endpoints, one in each of its sites, for the other tenants' flows. All links have zero
// latency in SimGrid: the event loop adds propagation delay after a flow's last byte (flow_priority.hpp says why).
// Inside the engine room only: the simulator reads the facts of platform.hpp.
#pragma once
#include <vector>

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include "sim/engine/platform.hpp"
#include "sim/network/network_config.hpp"

namespace lynx {

struct SimGridPlatform {
  std::vector<simgrid::s4u::Host*> hosts;  // by endpoint id
  // by site link (NetworkConfig.sites.links): a -> b is up, b -> a down; the same link when links are shared
  std::vector<simgrid::s4u::Link*> site_link_up, site_link_down;
};

// Applies the network model's SimGrid configuration (CM02 without cross-traffic or TCP window for `exact`, LV08
// otherwise) and creates the zones, hosts and links of `nodes` on `network`; the SimGrid objects into `simgrid`.
// Once per process, after the engine exists and before the first flow.
Platform platform_build(const NetworkConfig& network, const std::vector<PlatformNode>& nodes, SimGridPlatform& simgrid);

}  // namespace lynx
