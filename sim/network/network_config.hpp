// The datacenter network of a simulated cluster, as users describe it (JSON "cluster.network").
//   topology "star":       every node's NIC to one non-blocking switch; a route is NIC(up) -> NIC(down).
//   topology "leaf-spine": nodes in racks of hosts_per_rack on leaf switches; each leaf has one aggregate uplink to
//                          the spine layer of (hosts_per_rack * nic_gbps / oversubscription) Gbps, or uplink_gbps;
//                          a cross-rack route is NIC -> leaf uplink -> leaf downlink -> NIC (ECMP over the spines
//                          is modelled as one fat uplink per leaf).
//   topology "sites":      the pools in named sites, each a star or a leaf-spine, joined by site links
//                          (sim/network/site_config.hpp); a cross-site route is NIC -> [leaf uplink] -> site link ->
//                          [leaf downlink] -> NIC.
// Each serving instance has one NIC per GPU (its tensor-parallel degree), as real GPU servers do (e.g. 8 x 400
// Gbps), or nics_per_instance NICs; nic_gbps is per NIC. nics_per_instance 1 gives the older model of one NIC per
// instance. Bandwidths in Gbps (1e9 bit/s), latencies in microseconds, one way. Links are split-duplex (independent
// directions, as Ethernet/InfiniBand) or shared (both directions on one capacity).
#pragma once
#include <string>

#include "common/enum_names.hpp"
#include "common/json_reader.hpp"
#include "sim/network/site_config.hpp"

namespace lynx {

// The choices of "cluster.network" and their names (also given by the *_name functions below). A site's own
// topologies (site_config.hpp) are spelt as the network's.
enum class Topology { star, leaf_spine, sites };
inline constexpr auto kTopologyNames =
    enum_names<Topology>({{Topology::star, kSiteTopologyNames.name(SiteTopology::star)},
                          {Topology::leaf_spine, kSiteTopologyNames.name(SiteTopology::leaf_spine)},
                          {Topology::sites, "sites"}});
enum class LinkSharing { split_duplex, shared };
inline constexpr auto kLinkSharingNames =
    enum_names<LinkSharing>({{LinkSharing::split_duplex, "split-duplex"}, {LinkSharing::shared, "shared"}});
enum class NetworkModel { exact, lv08 };
inline constexpr auto kNetworkModelNames =
    enum_names<NetworkModel>({{NetworkModel::exact, "exact"}, {NetworkModel::lv08, "lv08"}});

struct NetworkConfig {
  Topology topology = Topology::star;
  double nic_gbps = 100;                // per NIC
  int nics_per_instance = 0;            // 0: one NIC per GPU of the instance (its tp)
  double latency_us = 5;                // one way, per route (charged once, however many links it crosses)
  double spine_latency_us = 0;          // extra one-way latency of a cross-rack route (leaf-spine)
  int hosts_per_rack = 8;               // leaf-spine
  double oversubscription = 1;          // leaf-spine: rack NIC capacity / uplink capacity
  double uplink_gbps = 0;               // leaf-spine: explicit uplink capacity (0 = from oversubscription)
  LinkSharing link_sharing = LinkSharing::split_duplex;
  NetworkModel model = NetworkModel::exact;  // exact: CM02, no cross traffic, no TCP window cap
  SitesConfig sites;                    // topology sites only
};

// The configuration's spelling of each choice (for messages and result files).
const char* topology_name(Topology topology);
const char* link_sharing_name(LinkSharing sharing);
const char* network_model_name(NetworkModel model);

// The fields of "cluster.network", declared once (network_config.cpp): read by network_config_from_json (which binds
// `o` to it) and printed by `lynxsim config --schema`.
extern const SchemaSection kNetworkSection;

NetworkConfig network_config_from_json(JsonObject& o);

}  // namespace lynx
