#include "sim/engine/simgrid_platform.hpp"

#include <algorithm>

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include "common/error.hpp"

namespace lynx {

namespace {
namespace sg4 = simgrid::s4u;
using NetPoint = simgrid::kernel::routing::NetPoint;

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

// One switched network (the whole cluster, or one site): a star, or racks of hosts_per_rack under leaves.
struct Fabric {
  bool leaf_spine = false;
  int hosts_per_rack = 1;
  double oversubscription = 1;
  double uplink_gbps = 0;  // 0: from oversubscription
  std::string prefix;      // of its leaf zones' names
};

// A host with its own NIC link in `zone` (a star zone): up towards the zone's switch, down from it.
sg4::Host* add_endpoint(sg4::NetZone* zone, const std::string& name, double bytes_per_s, bool split_duplex) {
  sg4::Host* host = zone->create_host(name, 1.0)->seal();
  const DirectedLink nic = make_link(zone, name + "-nic", bytes_per_s, split_duplex);
  zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, {sg4::LinkInRoute(nic.up)}, false);
  zone->add_route(nullptr, host->get_netpoint(), nullptr, nullptr, {sg4::LinkInRoute(nic.down)}, false);
  return host;
}

// Creates `node_ids`' endpoints in `zone` (for a leaf-spine, in one star zone per rack under it, whose routes in
// `zone` are the leaves' uplinks, through a router per leaf), numbering racks from `p.rack_of`'s next free id;
// `record_sites`: each endpoint's site into `p.site_of`.
// Routes are per endpoint, not per pair (a full zone with a route for every pair grew as n^2: 1M routes and 0.5 s
// at 512+512 instances).
void build_fabric(sg4::NetZone* zone, const Fabric& f, const std::vector<PlatformNode>& nodes,
                  const std::vector<size_t>& node_ids, bool split_duplex, bool record_sites, Platform& p, SimGridPlatform& g) {
  const int first_rack = p.rack_of.empty() ? 0 : *std::max_element(p.rack_of.begin(), p.rack_of.end()) + 1;
  const size_t per_rack = static_cast<size_t>(f.hosts_per_rack);
  const int racks = f.leaf_spine ? static_cast<int>((node_ids.size() + per_rack - 1) / per_rack) : 1;
  std::vector<sg4::NetZone*> rack_zones;
  std::vector<NetPoint*> leaf_routers;
  for (int r = 0; r < racks && f.leaf_spine; ++r) {
    sg4::NetZone* leaf = sg4::create_star_zone(f.prefix + "leaf" + std::to_string(r));
    leaf->set_parent(zone);
    leaf_routers.push_back(leaf->create_router(f.prefix + "leaf" + std::to_string(r) + "-switch"));
    rack_zones.push_back(leaf);
  }
  int max_nics = 1;
  const size_t first_host = g.hosts.size();
  for (size_t k = 0; k < node_ids.size(); ++k) {
    const PlatformNode& node = nodes[node_ids[k]];
    const int rack = f.leaf_spine ? static_cast<int>(k / per_rack) : 0;
    sg4::NetZone* host_zone = f.leaf_spine ? rack_zones[static_cast<size_t>(rack)] : zone;
    max_nics = std::max(max_nics, node.nics);
    p.first_endpoint[node_ids[k]] = static_cast<int>(g.hosts.size());
    for (int n = 0; n < node.nics; ++n) {
      // A single-NIC node keeps its plain name (the NIC link is "<name>-nic").
      const std::string name = node.nics == 1 ? node.name : node.name + "-gpu" + std::to_string(n);
      g.hosts.push_back(add_endpoint(host_zone, name, p.nic_bytes_per_s, split_duplex));
      p.rack_of.push_back(first_rack + rack);
      if (record_sites) p.site_of.push_back(node.site);
    }
  }
  if (!f.leaf_spine) return;
  // A leaf's uplink carries its hosts' NICs divided by the oversubscription (or uplink_gbps).
  const double uplink_bytes_per_s = f.uplink_gbps > 0 ? f.uplink_gbps * 1e9 / 8
                                                      : f.hosts_per_rack * max_nics * p.nic_bytes_per_s / f.oversubscription;
  p.uplink_bytes_per_s = uplink_bytes_per_s;
  std::vector<double> rack_nic_bytes_per_s(static_cast<size_t>(racks), 0.0);
  for (size_t e = first_host; e < g.hosts.size(); ++e)
    rack_nic_bytes_per_s[static_cast<size_t>(p.rack_of[e] - first_rack)] += p.nic_bytes_per_s;
  for (int r = 0; r < racks; ++r) {
    sg4::NetZone* leaf = rack_zones[static_cast<size_t>(r)];
    std::vector<sg4::LinkInRoute> up, down;
    // An uplink at least as fast as its rack's NICs together can never be a flow's bottleneck (whatever crosses
    // it has crossed one of those NICs), so the max-min shares are the same without it; leaving it out keeps
    // the solver's connected sets per NIC instead of one spanning every cross-rack flow of the cluster (3.6 s
    // instead of 1.7 s at 512+512 instances).
    if (uplink_bytes_per_s < rack_nic_bytes_per_s[static_cast<size_t>(r)]) {
      const DirectedLink uplink =
          make_link(zone, f.prefix + "leaf" + std::to_string(r) + "-uplink", uplink_bytes_per_s, split_duplex);
      up.emplace_back(uplink.up);
      down.emplace_back(uplink.down);
    }
    zone->add_route(leaf->get_netpoint(), nullptr, leaf_routers[static_cast<size_t>(r)], nullptr, up, false);
    zone->add_route(nullptr, leaf->get_netpoint(), nullptr, leaf_routers[static_cast<size_t>(r)], down, false);
    leaf->seal();
  }
}

// topology sites: a full root zone whose routes between site zones are the site links (a few sites: a route per
// pair is cheap), each site zone a fabric of its own with a gateway router.
void build_sites(const NetworkConfig& network, const std::vector<PlatformNode>& nodes, bool split_duplex,
                 double latency_factor, Platform& p, SimGridPlatform& g) {
  const SitesConfig& s = network.sites;
  const size_t n_sites = s.sites.size();
  sg4::NetZone* root = sg4::create_full_zone("cluster");
  std::vector<sg4::NetZone*> zones;
  std::vector<NetPoint*> gateways;
  p.site_links.resize(s.links.size());
  g.site_link_up.resize(s.links.size());
  g.site_link_down.resize(s.links.size());
  p.site_spine_latency_s.assign(n_sites, 0.0);
  p.site_link_latency_s.assign(n_sites, std::vector<double>(n_sites, 0.0));
  for (size_t i = 0; i < n_sites; ++i) {
    const SiteConfig& site = s.sites[i];
    sg4::NetZone* zone = sg4::create_star_zone("site-" + site.name);
    zone->set_parent(root);
    // The site's gateway router sits in a zone of its own under the site: SimGrid 3.32 resolves a route from a host
    // nested in a rack zone to a router of an enclosing zone in the wrong zone (the host's NIC went missing), so
    // both ends of a route inside the site are always in sibling zones or the site itself.
    sg4::NetZone* border = sg4::create_star_zone(site.name + "-border");
    border->set_parent(zone);
    gateways.push_back(border->create_router(site.name + "-gateway"));
    border->seal();
    zone->add_route(border->get_netpoint(), nullptr, gateways.back(), nullptr, {}, false);
    zone->add_route(nullptr, border->get_netpoint(), nullptr, gateways.back(), {}, false);
    zones.push_back(zone);
    Fabric f;
    f.leaf_spine = site.topology == SiteTopology::leaf_spine;
    f.hosts_per_rack = f.leaf_spine ? site.hosts_per_rack : 1;
    f.oversubscription = site.oversubscription;
    f.uplink_gbps = site.uplink_gbps;
    f.prefix = site.name + "-";
    std::vector<size_t> ids;
    for (size_t n = 0; n < nodes.size(); ++n)
      if (nodes[n].site == static_cast<int>(i)) ids.push_back(n);
    build_fabric(zone, f, nodes, ids, split_duplex, true, p, g);
    if (f.leaf_spine) p.site_spine_latency_s[i] = site.spine_latency_us * 1e-6 * latency_factor;
  }
  for (size_t l = 0; l < s.links.size(); ++l) {
    const SiteLinkConfig& link = s.links[l];
    const size_t a = static_cast<size_t>(link.site_a), b = static_cast<size_t>(link.site_b);
    PlatformSiteLink& built = p.site_links[l];
    built.capacity_bytes_per_s = link.capacity_gbps() * 1e9 / 8;
    // Constant cross traffic takes its share of the capacity for the whole run (sim/network/cross_traffic.hpp).
    const bool constant = link.cross_traffic.enabled && link.cross_traffic.kind == CrossTrafficKind::constant;
    const double bytes_per_s = built.capacity_bytes_per_s * (constant ? 1 - link.cross_traffic.fraction : 1.0);
    const DirectedLink d = make_link(root, "site-link-" + s.sites[a].name + "-" + s.sites[b].name, bytes_per_s,
                                     split_duplex);
    g.site_link_up[l] = d.up;
    g.site_link_down[l] = d.down;
    root->add_route(zones[a]->get_netpoint(), zones[b]->get_netpoint(), gateways[a], gateways[b],
                    {sg4::LinkInRoute(d.up)}, false);
    root->add_route(zones[b]->get_netpoint(), zones[a]->get_netpoint(), gateways[b], gateways[a],
                    {sg4::LinkInRoute(d.down)}, false);
    p.site_link_latency_s[a][b] = p.site_link_latency_s[b][a] = link.latency_us * 1e-6 * latency_factor;
    if (link.cross_traffic.enabled && link.cross_traffic.kind == CrossTrafficKind::poisson) {
      // The other tenants' endpoints: an access link as fast as the site link, so only the site link is shared.
      const std::string name = "cross" + std::to_string(l);
      for (size_t end = 0; end < 2; ++end) {
        const size_t site = end == 0 ? a : b;
        (end == 0 ? built.cross_src : built.cross_dst) = static_cast<int>(g.hosts.size());
        g.hosts.push_back(add_endpoint(zones[site], name + (end == 0 ? "-src" : "-dst"), built.capacity_bytes_per_s,
                                       split_duplex));
        p.rack_of.push_back(-1 - static_cast<int>(2 * l + end));
        p.site_of.push_back(static_cast<int>(site));
      }
    }
  }
  for (sg4::NetZone* zone : zones) zone->seal();
  root->seal();
}
}  // namespace

Platform platform_build(const NetworkConfig& network, const std::vector<PlatformNode>& nodes, SimGridPlatform& g) {
  g = SimGridPlatform{};
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
  p.first_endpoint.assign(nodes.size(), 0);
  const bool split_duplex = network.link_sharing == LinkSharing::split_duplex;
  if (network.topology == Topology::sites) {
    build_sites(network, nodes, split_duplex, latency_factor, p, g);
    p.endpoints = g.hosts.size();
    return p;
  }
  sg4::NetZone* root = sg4::create_star_zone("cluster");
  Fabric f;
  f.leaf_spine = network.topology == Topology::leaf_spine;
  f.hosts_per_rack = f.leaf_spine ? network.hosts_per_rack : 1;
  f.oversubscription = network.oversubscription;
  f.uplink_gbps = network.uplink_gbps;
  std::vector<size_t> ids(nodes.size());
  for (size_t n = 0; n < nodes.size(); ++n) ids[n] = n;
  build_fabric(root, f, nodes, ids, split_duplex, false, p, g);
  root->seal();
  p.endpoints = g.hosts.size();
  return p;
}

}  // namespace lynx
