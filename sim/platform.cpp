#include "sim/platform.hpp"

#include <algorithm>

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include "common/error.hpp"

namespace lynx {

namespace {
namespace sg4 = simgrid::s4u;

// LV08's latency correction factor (SimGrid 3.32 default), applied to the propagation delay we add ourselves.
constexpr double kLv08LatencyFactor = 13.01;

struct DirectedLink {
  sg4::Link* up = nullptr;    // towards the switch
  sg4::Link* down = nullptr;  // from the switch
};

DirectedLink make_link(sg4::NetZone* zone, const std::string& name, double bytes_per_s, bool split_duplex) {
  DirectedLink l;
  if (split_duplex) {
    sg4::SplitDuplexLink* link = zone->create_split_duplex_link(name, bytes_per_s);
    link->set_latency(0)->seal();
    l.up = link->get_link_up();
    l.down = link->get_link_down();
  } else {
    l.up = l.down = zone->create_link(name, bytes_per_s)->set_latency(0)->seal();
  }
  return l;
}
}  // namespace

Platform platform_build(const NetworkConfig& network, const std::vector<PlatformNode>& nodes) {
  if (network.model == "exact") {
    sg4::Engine::set_config("network/model:CM02");
    sg4::Engine::set_config("network/crosstraffic:0");
    sg4::Engine::set_config("network/TCP-gamma:1e30");
  } else {
    sg4::Engine::set_config("network/model:LV08");
  }
  Platform p;
  const double latency_factor = network.model == "lv08" ? kLv08LatencyFactor : 1.0;
  p.latency_s = network.latency_us * 1e-6 * latency_factor;
  p.cross_rack_latency_s = (network.latency_us + network.spine_latency_us) * 1e-6 * latency_factor;
  p.nic_bytes_per_s = network.nic_gbps * 1e9 / 8;
  const bool split_duplex = network.link_sharing == "split-duplex";
  const bool leaf_spine = network.topology == "leaf-spine";

  sg4::NetZone* zone = sg4::create_full_zone("cluster");
  std::vector<DirectedLink> nics;
  int racks = 0, max_nics = 1;
  for (size_t node = 0; node < nodes.size(); ++node) {
    const int rack = leaf_spine ? static_cast<int>(node) / network.hosts_per_rack : 0;
    racks = std::max(racks, rack + 1);
    max_nics = std::max(max_nics, nodes[node].nics);
    p.first_endpoint.push_back(static_cast<int>(p.hosts.size()));
    for (int k = 0; k < nodes[node].nics; ++k) {
      // A single-NIC node keeps its plain name (the NIC link is "<name>-nic").
      const std::string name = nodes[node].nics == 1 ? nodes[node].name : nodes[node].name + "-gpu" + std::to_string(k);
      p.hosts.push_back(zone->create_host(name, 1.0)->seal());
      nics.push_back(make_link(zone, name + "-nic", p.nic_bytes_per_s, split_duplex));
      p.rack_of.push_back(rack);
    }
  }
  const int n = static_cast<int>(p.hosts.size());
  std::vector<DirectedLink> uplinks;
  if (leaf_spine) {
    // A leaf's uplink carries its hosts' NICs divided by the oversubscription (or uplink_gbps).
    p.uplink_bytes_per_s = network.uplink_gbps > 0
                               ? network.uplink_gbps * 1e9 / 8
                               : network.hosts_per_rack * max_nics * p.nic_bytes_per_s / network.oversubscription;
    for (int r = 0; r < racks; ++r)
      uplinks.push_back(make_link(zone, "leaf" + std::to_string(r) + "-uplink", p.uplink_bytes_per_s, split_duplex));
  }
  for (int s = 0; s < n; ++s) {
    for (int d = 0; d < n; ++d) {
      if (s == d) continue;
      std::vector<sg4::LinkInRoute> route{sg4::LinkInRoute(nics[static_cast<size_t>(s)].up)};
      const int rs = p.rack_of[static_cast<size_t>(s)], rd = p.rack_of[static_cast<size_t>(d)];
      if (rs != rd) {
        route.emplace_back(uplinks[static_cast<size_t>(rs)].up);
        route.emplace_back(uplinks[static_cast<size_t>(rd)].down);
      }
      route.emplace_back(nics[static_cast<size_t>(d)].down);
      zone->add_route(p.hosts[static_cast<size_t>(s)]->get_netpoint(), p.hosts[static_cast<size_t>(d)]->get_netpoint(),
                      nullptr, nullptr, route, false);
    }
  }
  zone->seal();
  return p;
}

}  // namespace lynx
