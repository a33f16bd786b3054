// Multi-site networks as users describe them (JSON "cluster.network" with topology "sites"): the pools are placed in
// named sites (buildings, regions), each site is a star or a leaf-spine of its own, and sites are joined by
// inter-site links. A request's KV crosses the link between its prefill and its decode site.
//   sites:      [{"name": "east", "pools": ["prefill"], "topology": "star"},
//                {"name": "west", "pools": ["decode"], "topology": "leaf-spine", "hosts_per_rack": 4}]
//   site_links: [{"sites": ["east", "west"], "bandwidth_gbps": 100, "latency_ms": 5, "count": 2,
//                 "cross_traffic": {"kind": "constant", "fraction": 0.5}}]
// A site link of `count` parallel links is one link of count x bandwidth_gbps (ECMP spreads flows over them; as a
// leaf's uplinks, they are modelled as one fat link), whose propagation latency is added once to every route that
// crosses it. Other tenants' traffic on a site link (cross_traffic) is described here and run by
// sim/network/cross_traffic.hpp. Every field a site's own topology ignores is an error naming its JSON path.
#pragma once
#include <string>
#include <vector>

#include "common/enum_names.hpp"
#include "common/json_reader.hpp"

namespace lynx {

// The choices of a site and its cross traffic, with their names.
enum class SiteTopology { star, leaf_spine };
inline constexpr auto kSiteTopologyNames =
    enum_names<SiteTopology>({{SiteTopology::star, "star"}, {SiteTopology::leaf_spine, "leaf-spine"}});
enum class CrossTrafficKind { constant, on_off, poisson };
inline constexpr auto kCrossTrafficKindNames =
    enum_names<CrossTrafficKind>({{CrossTrafficKind::constant, "constant"},
                                  {CrossTrafficKind::on_off, "on-off"},
                                  {CrossTrafficKind::poisson, "poisson"}});
enum class FlowSizeDistribution { fixed, exponential, pareto };
inline constexpr auto kFlowSizeDistributionNames = enum_names<FlowSizeDistribution>(
    {{FlowSizeDistribution::fixed, "fixed"}, {FlowSizeDistribution::exponential, "exponential"},
     {FlowSizeDistribution::pareto, "pareto"}});

// Other tenants' traffic on a site link, in the direction sites[0] -> sites[1] (the KV's direction when the prefill
// pool is in sites[0]); `fraction` is of the link's capacity (count x bandwidth).
//   constant: that fraction of the capacity is taken, always (a fluid load that does not yield to KV);
//   on-off:   the same, during on periods only; on and off periods are exponential with means on_ms and off_ms;
//   poisson:  flows of the given size distribution (mean mean_flow_mb) arrive as a Poisson process whose offered
//             load is `fraction` of the capacity; they share the link max-min with KV flows.
struct CrossTrafficConfig {
  bool enabled = false;
  CrossTrafficKind kind = CrossTrafficKind::constant;
  double fraction = 0;
  double on_ms = 0, off_ms = 0;  // on-off
  double mean_flow_mb = 0;       // poisson (1 MB = 1e6 bytes)
  FlowSizeDistribution sizes = FlowSizeDistribution::exponential;
  double pareto_shape = 1.5;
};

struct SiteConfig {
  std::string name;
  bool has_prefill = false, has_decode = false;
  SiteTopology topology = SiteTopology::star;
  int hosts_per_rack = 8;          // leaf-spine
  double oversubscription = 1;     // leaf-spine
  double uplink_gbps = 0;          // leaf-spine (0: from oversubscription)
  double spine_latency_us = 0;     // leaf-spine: added once to a route that leaves a rack of this site
};

struct SiteLinkConfig {
  int site_a = 0, site_b = 0;  // indices into sites; traffic a -> b uses the link's "up" direction
  double bandwidth_gbps = 0;   // of one link
  int count = 1;
  double latency_us = 0;       // one way
  CrossTrafficConfig cross_traffic;
  double capacity_gbps() const { return bandwidth_gbps * count; }
};

struct SitesConfig {
  std::vector<SiteConfig> sites;
  std::vector<SiteLinkConfig> links;
  int prefill_site = 0, decode_site = 0;
  // The link between two sites, or -1.
  int link_between(int a, int b) const;
};

extern const SchemaSection kSiteSection;
extern const SchemaSection kSiteLinkSection;
extern const SchemaSection kCrossTrafficSection;

// Reads "sites" and "site_links" (arrays of the sections above) of `network` (the JSON path `network_path`);
// every error names the file and JSON path. Each pool must be in exactly one site, every site must hold a pool,
// and the prefill and decode sites must be joined by a link when they differ.
SitesConfig sites_config_from_json(const nlohmann::json& sites, const nlohmann::json& links, const std::string& origin,
                                   const std::string& network_path);

const char* cross_traffic_kind_name(CrossTrafficKind kind);

}  // namespace lynx
