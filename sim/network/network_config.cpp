#include "sim/network/network_config.hpp"

#include "common/error.hpp"

namespace lynx {

namespace {
// Declared once (common/json_reader.hpp). 100 Tbps and 1 s bound any datacenter NIC and hop; the bounds keep
// SimGrid's arithmetic finite.
constexpr NumberField kNicGbps{"nic_gbps", "Gbps", 100, 0, 1e5, true, "bandwidth of each NIC's link to its switch"};
constexpr IntegerField kNicsPerInstance{"nics_per_instance", "NICs", 0, 0, 64,
                                        "NICs of each instance (0: one per GPU, the instance's tp)"};
constexpr NumberField kLatencyUs{"latency_us", "us", 5, 0, 1e6, false,
                                  "one-way latency of a route between two nodes, charged once per route (not per "
                                  "link or NIC crossed): each flow is delivered this long after its last byte left"};
constexpr NumberField kSpineLatencyUs{"spine_latency_us", "us", 0, 0, 1e6, false,
                                      "leaf-spine: added once to a cross-rack route's latency_us (once per route, "
                                      "not per uplink crossed: the up and down hop through the spine together)"};
constexpr IntegerField kHostsPerRack{"hosts_per_rack", "nodes", 8, 1, 65536, "leaf-spine: nodes under one leaf"};
constexpr NumberField kOversubscription{"oversubscription", "ratio", 1, 0, 1000, true,
                                        "leaf-spine: downlink over uplink bandwidth of a leaf"};
constexpr NumberField kUplinkGbps{"uplink_gbps", "Gbps", 0, 0, 1e6, true,
                                  "leaf-spine: a leaf's uplink bandwidth (default: from oversubscription)"};
constexpr ChoiceField kTopology{"topology", kTopologyNames.name(Topology::star), kTopologyNames.choices(),
                                "star: every NIC on one non-blocking switch; leaf-spine: racks of hosts_per_rack "
                                "under leaf switches with one aggregate uplink each; sites: the pools in named sites "
                                "(each a star or a leaf-spine) joined by site_links"};
constexpr ArrayField kSites{"sites", "an array of site objects", "sites topology: the sites and the pools in them",
                            false, &kSiteSection};
constexpr ArrayField kSiteLinks{"site_links", "an array of site link objects",
                                "sites topology: the links between sites", false, &kSiteLinkSection};
constexpr ChoiceField kLinkSharing{"link_sharing", kLinkSharingNames.name(LinkSharing::split_duplex),
                                   kLinkSharingNames.choices(),
                                   "independent directions (Ethernet, InfiniBand) or both on one capacity"};
constexpr ChoiceField kModel{"model", kNetworkModelNames.name(NetworkModel::exact), kNetworkModelNames.choices(),
                             "exact: CM02, no cross traffic, no TCP window cap; lv08: SimGrid's default TCP "
                             "corrections"};
constexpr SchemaField kNetworkFields[] = {
    {kTopology}, {kNicGbps}, {kNicsPerInstance}, {kLatencyUs},
    // The leaf-spine fields are errors on the example's star, so they are shown commented out.
    {kSpineLatencyUs, ExampleUse::commented, "0"}, {kHostsPerRack, ExampleUse::commented, "8"},
    {kOversubscription, ExampleUse::commented, "1"}, {kUplinkGbps, ExampleUse::commented, "800"}, {kLinkSharing}, {kModel},
    {kSites, ExampleUse::commented,
     "[{\"name\": \"a\", \"pools\": [\"prefill\"], \"topology\": \"leaf-spine\", \"hosts_per_rack\": 8, "
     "\"oversubscription\": 2, \"spine_latency_us\": 2}, {\"name\": \"b\", \"pools\": [\"decode\"]}]"},
    {kSiteLinks, ExampleUse::commented,
     "[{\"sites\": [\"a\", \"b\"], \"bandwidth_gbps\": 100, \"count\": 2, \"latency_ms\": 5, \"cross_traffic\": "
     "{\"kind\": \"poisson\", \"fraction\": 0.5, \"mean_flow_mb\": 1, \"sizes\": \"pareto\", \"pareto_shape\": 1.5}}] "
     "(or \"cross_traffic\": {\"kind\": \"on-off\", \"fraction\": 0.5, \"on_ms\": 10, \"off_ms\": 30})"}};
}  // namespace

extern constexpr SchemaSection kNetworkSection = schema_section(
    "Network", "The datacenter network between the instances; bandwidths per NIC in Gbps (1e9 bit/s), latencies "
    "one way.", kNetworkFields);

const char* topology_name(Topology topology) { return kTopologyNames.name(topology); }
const char* link_sharing_name(LinkSharing sharing) { return kLinkSharingNames.name(sharing); }
const char* network_model_name(NetworkModel model) { return kNetworkModelNames.name(model); }

namespace {
// A field the chosen topology would ignore is an error naming its JSON path: a star has no racks, a
// leaf-spine no sites, and a sites network keeps rack fields per site.
void refuse(const JsonObject& o, const char* key, Topology topology) {
  if (o.has(key))
    throw_error("%s: %s: not used by topology \"%s\"; remove it%s", o.origin().c_str(), o.path_of(key).c_str(),
                topology_name(topology),
                topology == Topology::sites ? " (rack fields go in each leaf-spine site)" : "");
}
}  // namespace

NetworkConfig network_config_from_json(JsonObject& o) {
  o.bind(kNetworkSection);
  NetworkConfig n;
  n.topology = o.get_enum<Topology>(kTopology);
  if (n.topology != Topology::leaf_spine)
    for (const char* key : {kHostsPerRack.key, kOversubscription.key, kUplinkGbps.key, kSpineLatencyUs.key})
      refuse(o, key, n.topology);
  if (n.topology != Topology::sites)
    for (const char* key : {kSites.key, kSiteLinks.key}) refuse(o, key, n.topology);
  if (n.topology == Topology::sites) {
    const nlohmann::json& sites = o.get(kSites);
    const nlohmann::json& links = o.get(kSiteLinks);
    n.sites = sites_config_from_json(sites, links.is_null() ? nlohmann::json::array() : links, o.origin(), o.path());
  }
  n.nic_gbps = o.get(kNicGbps);
  n.nics_per_instance = static_cast<int>(o.get(kNicsPerInstance));
  n.latency_us = o.get(kLatencyUs);
  n.spine_latency_us = o.get(kSpineLatencyUs);
  n.hosts_per_rack = static_cast<int>(o.get(kHostsPerRack));
  n.oversubscription = o.get(kOversubscription);
  n.uplink_gbps = o.has(kUplinkGbps.key) ? o.get(kUplinkGbps) : 0;
  n.link_sharing = o.get_enum<LinkSharing>(kLinkSharing);
  n.model = o.get_enum<NetworkModel>(kModel);
  o.finish();
  return n;
}

}  // namespace lynx
