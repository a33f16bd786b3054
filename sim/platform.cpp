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
  if (network.model == NetworkModel::exact) {
    sg4::Engine::set_config("network/model:CM02");
    sg4::Engine::set_config("network/crosstraffic:0");
    sg4::Engine::set_config("network/TCP-gamma:1e30");
  } else {
    sg4::Engine::set_config("network/model:LV08");
  }
  Platform p;
  const double latency_factor = network.model == NetworkModel::lv08 ? kLv08LatencyFactor : 1.0;
  p.latency_s = network.latency_us * 1e-6 * latency_factor;
  p.cross_rack_latency_s = (network.latency_us + network.spine_latency_us) * 1e-6 * latency_factor;
  p.nic_bytes_per_s = network.nic_gbps * 1e9 / 8;
  const bool split_duplex = network.link_sharing == LinkSharing::split_duplex;
  const bool leaf_spine = network.topology == Topology::leaf_spine;

  // Routes are per endpoint, not per pair (a full zone with a route for every pair grew as n^2: 1M routes and
  // 0.5 s at 512+512 instances): star, one star zone whose every host has its NIC up towards the switch and down
  // from it; leaf-spine, a star zone per rack (the leaf) under a root star zone whose routes are the leaves'
  // uplinks, up and down, through a router per leaf. A route crosses the same links in the same order as before.
  const int racks = leaf_spine ? static_cast<int>((nodes.size() + static_cast<size_t>(network.hosts_per_rack) - 1) /
                                                  static_cast<size_t>(network.hosts_per_rack))
                               : 1;
  sg4::NetZone* root = sg4::create_star_zone("cluster");
  std::vector<sg4::NetZone*> rack_zones;
  std::vector<simgrid::kernel::routing::NetPoint*> leaf_routers;
  for (int r = 0; r < racks && leaf_spine; ++r) {
    sg4::NetZone* leaf = sg4::create_star_zone("leaf" + std::to_string(r));
    leaf->set_parent(root);
    leaf_routers.push_back(leaf->create_router("leaf" + std::to_string(r) + "-switch"));
    rack_zones.push_back(leaf);
  }
  int max_nics = 1;
  for (size_t node = 0; node < nodes.size(); ++node) {
    const int rack = leaf_spine ? static_cast<int>(node) / network.hosts_per_rack : 0;
    sg4::NetZone* zone = leaf_spine ? rack_zones[static_cast<size_t>(rack)] : root;
    max_nics = std::max(max_nics, nodes[node].nics);
    p.first_endpoint.push_back(static_cast<int>(p.hosts.size()));
    for (int k = 0; k < nodes[node].nics; ++k) {
      // A single-NIC node keeps its plain name (the NIC link is "<name>-nic").
      const std::string name = nodes[node].nics == 1 ? nodes[node].name : nodes[node].name + "-gpu" + std::to_string(k);
      sg4::Host* host = zone->create_host(name, 1.0)->seal();
      const DirectedLink nic = make_link(zone, name + "-nic", p.nic_bytes_per_s, split_duplex);
      zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, {sg4::LinkInRoute(nic.up)}, false);
      zone->add_route(nullptr, host->get_netpoint(), nullptr, nullptr, {sg4::LinkInRoute(nic.down)}, false);
      p.hosts.push_back(host);
      p.rack_of.push_back(rack);
    }
  }
  if (leaf_spine) {
    // A leaf's uplink carries its hosts' NICs divided by the oversubscription (or uplink_gbps).
    p.uplink_bytes_per_s = network.uplink_gbps > 0
                               ? network.uplink_gbps * 1e9 / 8
                               : network.hosts_per_rack * max_nics * p.nic_bytes_per_s / network.oversubscription;
    std::vector<double> rack_nic_bytes_per_s(static_cast<size_t>(racks), 0.0);
    for (size_t e = 0; e < p.hosts.size(); ++e) rack_nic_bytes_per_s[static_cast<size_t>(p.rack_of[e])] += p.nic_bytes_per_s;
    for (int r = 0; r < racks; ++r) {
      sg4::NetZone* leaf = rack_zones[static_cast<size_t>(r)];
      std::vector<sg4::LinkInRoute> up, down;
      // An uplink at least as fast as its rack's NICs together can never be a flow's bottleneck (whatever crosses
      // it has crossed one of those NICs), so the max-min shares are the same without it; leaving it out keeps
      // the solver's connected sets per NIC instead of one spanning every cross-rack flow of the cluster (3.6 s
      // instead of 1.7 s at 512+512 instances).
      if (p.uplink_bytes_per_s < rack_nic_bytes_per_s[static_cast<size_t>(r)]) {
        const DirectedLink uplink =
            make_link(root, "leaf" + std::to_string(r) + "-uplink", p.uplink_bytes_per_s, split_duplex);
        up.emplace_back(uplink.up);
        down.emplace_back(uplink.down);
      }
      root->add_route(leaf->get_netpoint(), nullptr, leaf_routers[static_cast<size_t>(r)], nullptr, up, false);
      root->add_route(nullptr, leaf->get_netpoint(), nullptr, leaf_routers[static_cast<size_t>(r)], down, false);
      leaf->seal();
    }
  }
  root->seal();
  return p;
}

}  // namespace lynx
