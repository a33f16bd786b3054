// Readers of the multi-site network fields (site_config.hpp), declared once for the schema.
#include "sim/network/site_config.hpp"

#include <cmath>

#include "common/error.hpp"

namespace lynx {

namespace {
// Bounds as network_config.cpp's: 100 Tbps and 1 s bound any link and hop; 1000 ms covers any terrestrial
// distance (the Earth's half circumference in fibre, 20,000 km at 2e8 m/s, is 100 ms).
constexpr StringField kSiteName{"name", nullptr, "a name of [A-Za-z0-9._-], unique among the sites",
                                "the site's name, used by site_links", true};
constexpr ArrayField kSitePools{"pools", "an array of \"prefill\" and/or \"decode\"",
                                "the pools whose every instance is in this site", true};
constexpr ChoiceField kSiteTopology{"topology", kSiteTopologyNames.name(SiteTopology::star),
                                    kSiteTopologyNames.choices(),
                                    "the site's own network: one non-blocking switch, or racks under leaves"};
constexpr IntegerField kSiteHostsPerRack{"hosts_per_rack", "nodes", 8, 1, 65536,
                                         "leaf-spine site: nodes under one leaf"};
constexpr NumberField kSiteOversubscription{"oversubscription", "ratio", 1, 0, 1000, true,
                                            "leaf-spine site: a leaf's NIC bandwidth over its uplink's"};
constexpr NumberField kSiteUplinkGbps{"uplink_gbps", "Gbps", 0, 0, 1e6, true,
                                      "leaf-spine site: a leaf's uplink bandwidth (default: from oversubscription)"};
constexpr NumberField kSiteSpineLatencyUs{"spine_latency_us", "us", 0, 0, 1e6, false,
                                          "leaf-spine site: added once to a route that leaves a rack of this site"};
constexpr SchemaField kSiteFields[] = {{kSiteName},           {kSitePools},         {kSiteTopology},
                                       {kSiteHostsPerRack},   {kSiteOversubscription},
                                       {kSiteUplinkGbps, ExampleUse::commented, "800"}, {kSiteSpineLatencyUs}};

constexpr ChoiceField kKind{"kind", nullptr, kCrossTrafficKindNames.choices(),
                            "constant: a fixed share of the capacity taken; on-off: the same during exponential on "
                            "periods; poisson: flows arriving as a Poisson process, sharing max-min with KV"};
constexpr NumberField kFraction{"fraction", "fraction", NAN, 0, 0.99, false,
                                "the share of the link's capacity the other tenants take (on-off: while on; "
                                "poisson: their offered load)"};
constexpr NumberField kOnMs{"on_ms", "ms", NAN, 0, 1e9, true, "on-off: mean on period (exponential)"};
constexpr NumberField kOffMs{"off_ms", "ms", NAN, 0, 1e9, true, "on-off: mean off period (exponential)"};
constexpr NumberField kMeanFlowMb{"mean_flow_mb", "MB", NAN, 0, 1e6, true,
                                  "poisson: mean flow size (1 MB = 1e6 bytes)"};
constexpr ChoiceField kSizes{"sizes", kFlowSizeDistributionNames.name(FlowSizeDistribution::exponential),
                             kFlowSizeDistributionNames.choices(),
                             "poisson: flow sizes, all mean_flow_mb, exponential, or Pareto (heavy-tailed)"};
constexpr NumberField kParetoShape{"pareto_shape", "", 1.5, 1, 100, true,
                                   "poisson, sizes pareto: the tail index (> 1, so that the mean exists)"};
constexpr SchemaField kCrossTrafficFields[] = {{kKind},       {kFraction}, {kOnMs},        {kOffMs},
                                               {kMeanFlowMb}, {kSizes},    {kParetoShape}};

constexpr ArrayField kLinkSites{"sites", "[site_a, site_b]: two site names",
                                "the sites it joins; cross traffic runs from site_a to site_b", true};
constexpr NumberField kLinkBandwidthGbps{"bandwidth_gbps", "Gbps", NAN, 0, 1e6, true, "bandwidth of one link"};
constexpr IntegerField kLinkCount{"count", "links", 1, 1, 1024,
                                  "parallel links (ECMP), modelled as one link of count x bandwidth_gbps"};
constexpr NumberField kLinkLatencyUs{"latency_us", "us", 0, 0, 1e6, false,
                                     "one-way propagation latency, added once to a route crossing it (or latency_ms)"};
constexpr NumberField kLinkLatencyMs{"latency_ms", "ms", 0, 0, 1e3, false, "the same in ms (one of latency_us, latency_ms)"};
constexpr ObjectField kCrossTraffic{"cross_traffic", &kCrossTrafficSection,
                                    "other tenants' traffic on this link (absent: none)", false, false};
constexpr SchemaField kSiteLinkFields[] = {{kLinkSites},     {kLinkBandwidthGbps}, {kLinkCount},
                                           {kLinkLatencyUs}, {kLinkLatencyMs, ExampleUse::commented, "5"},
                                           {kCrossTraffic, ExampleUse::commented, "{\"kind\": \"constant\", \"fraction\": 0.5}"}};

void refuse(const JsonObject& o, const char* key, const char* why) {
  if (o.has(key))
    throw_error("%s: %s: not used %s; remove it", o.origin().c_str(), o.path_of(key).c_str(), why);
}

CrossTrafficConfig cross_traffic_from_json(JsonObject& o) {
  CrossTrafficConfig x;
  x.enabled = true;
  x.kind = o.get_enum<CrossTrafficKind>(kKind);
  if (!o.has(kFraction.key)) o.fail(kFraction.key, "a fraction of the link's capacity in [0, 0.99]");
  x.fraction = o.get(kFraction);
  if (x.kind == CrossTrafficKind::on_off) {
    x.on_ms = o.get(kOnMs);
    x.off_ms = o.get(kOffMs);
  } else {
    refuse(o, kOnMs.key, "by this kind (on-off only)");
    refuse(o, kOffMs.key, "by this kind (on-off only)");
  }
  if (x.kind == CrossTrafficKind::poisson) {
    x.mean_flow_mb = o.get(kMeanFlowMb);
    x.sizes = o.get_enum<FlowSizeDistribution>(kSizes);
    if (x.sizes == FlowSizeDistribution::pareto) x.pareto_shape = o.get(kParetoShape);
    else refuse(o, kParetoShape.key, "unless sizes is pareto");
  } else {
    refuse(o, kMeanFlowMb.key, "by this kind (poisson only)");
    refuse(o, kSizes.key, "by this kind (poisson only)");
    refuse(o, kParetoShape.key, "by this kind (poisson only)");
  }
  o.finish();
  return x;
}

bool valid_name(const std::string& s) {
  if (s.empty() || s.size() > 100) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) return false;
  return true;
}
}  // namespace

extern constexpr SchemaSection kCrossTrafficSection = schema_section(
    "Cross traffic", "Other tenants' traffic on a site link (`cluster.network.site_links[i].cross_traffic`), from "
    "its first site to its second.", kCrossTrafficFields);
extern constexpr SchemaSection kSiteSection = schema_section(
    "Site", "One site of a `sites` network (`cluster.network.sites[i]`): the pools in it and its own topology.",
    kSiteFields);
extern constexpr SchemaSection kSiteLinkSection = schema_section(
    "Site link", "A link between two sites (`cluster.network.site_links[i]`).", kSiteLinkFields);

const char* cross_traffic_kind_name(CrossTrafficKind kind) { return kCrossTrafficKindNames.name(kind); }

int SitesConfig::link_between(int a, int b) const {
  for (size_t i = 0; i < links.size(); ++i)
    if ((links[i].site_a == a && links[i].site_b == b) || (links[i].site_a == b && links[i].site_b == a))
      return static_cast<int>(i);
  return -1;
}

SitesConfig sites_config_from_json(const nlohmann::json& sites, const nlohmann::json& links, const std::string& origin,
                                   const std::string& network_path) {
  SitesConfig c;
  const std::string sites_path = network_path + ".sites", links_path = network_path + ".site_links";
  if (sites.is_null() || sites.empty())
    throw_error("%s: %s: topology \"sites\" needs a non-empty array of sites", origin.c_str(), sites_path.c_str());
  int prefill_site = -1, decode_site = -1;
  for (size_t i = 0; i < sites.size(); ++i) {
    JsonObject o(sites[i], origin, json_index_path(sites_path, i), &kSiteSection);
    SiteConfig s;
    s.name = o.get(kSiteName);
    if (!valid_name(s.name)) o.fail(kSiteName.key, "a name of [A-Za-z0-9._-] (1-100 characters)");
    for (const SiteConfig& other : c.sites)
      if (other.name == s.name) o.fail(kSiteName.key, "a name no other site has");
    const nlohmann::json& pools = o.get(kSitePools);
    if (pools.empty()) o.fail(kSitePools.key, "a non-empty array of \"prefill\" and/or \"decode\" (a site holds a pool)");
    for (const auto& p : pools) {
      const std::string pool = p.is_string() ? p.get<std::string>() : "";
      int& placed = pool == "prefill" ? prefill_site : decode_site;
      if (pool != "prefill" && pool != "decode") o.fail(kSitePools.key, "an array of \"prefill\" and/or \"decode\"");
      if (placed >= 0) o.fail(kSitePools.key, "pools placed in no other site (" + pool + " is already placed)");
      placed = static_cast<int>(i);
      (pool == "prefill" ? s.has_prefill : s.has_decode) = true;
    }
    s.topology = o.get_enum<SiteTopology>(kSiteTopology);
    if (s.topology == SiteTopology::leaf_spine) {
      s.hosts_per_rack = static_cast<int>(o.get(kSiteHostsPerRack));
      s.oversubscription = o.get(kSiteOversubscription);
      if (o.has(kSiteUplinkGbps.key) && o.has(kSiteOversubscription.key))
        o.fail(kSiteUplinkGbps.key, "one of uplink_gbps and oversubscription, not both");
      s.uplink_gbps = o.has(kSiteUplinkGbps.key) ? o.get(kSiteUplinkGbps) : 0;
      s.spine_latency_us = o.get(kSiteSpineLatencyUs);
    } else {
      for (const char* key : {kSiteHostsPerRack.key, kSiteOversubscription.key, kSiteUplinkGbps.key,
                              kSiteSpineLatencyUs.key})
        refuse(o, key, "by a star site (leaf-spine only)");
    }
    o.finish();
    c.sites.push_back(s);
  }
  if (prefill_site < 0 || decode_site < 0)
    throw_error("%s: %s: every pool must be in a site (%s is in none)", origin.c_str(), sites_path.c_str(),
                prefill_site < 0 ? "prefill" : "decode");
  c.prefill_site = prefill_site;
  c.decode_site = decode_site;
  for (size_t i = 0; i < links.size(); ++i) {
    JsonObject o(links[i], origin, json_index_path(links_path, i), &kSiteLinkSection);
    SiteLinkConfig l;
    const nlohmann::json& ends = o.get(kLinkSites);
    int idx[2] = {-1, -1};
    if (ends.size() != 2) o.fail(kLinkSites.key, "two site names");
    for (size_t k = 0; k < 2; ++k)
      for (size_t s = 0; s < c.sites.size(); ++s)
        if (ends[k].is_string() && ends[k].get<std::string>() == c.sites[s].name) idx[k] = static_cast<int>(s);
    if (idx[0] < 0 || idx[1] < 0 || idx[0] == idx[1]) o.fail(kLinkSites.key, "two different names of sites[]");
    if (c.link_between(idx[0], idx[1]) >= 0) o.fail(kLinkSites.key, "two sites no other link joins");
    l.site_a = idx[0];
    l.site_b = idx[1];
    l.bandwidth_gbps = o.get(kLinkBandwidthGbps);
    l.count = static_cast<int>(o.get(kLinkCount));
    if (o.has(kLinkLatencyUs.key) && o.has(kLinkLatencyMs.key))
      o.fail(kLinkLatencyMs.key, "one of latency_us and latency_ms, not both");
    l.latency_us = o.has(kLinkLatencyMs.key) ? o.get(kLinkLatencyMs) * 1e3 : o.get(kLinkLatencyUs);
    if (o.has(kCrossTraffic.key)) {
      JsonObject x = o.get(kCrossTraffic);
      l.cross_traffic = cross_traffic_from_json(x);
    }
    o.finish();
    c.links.push_back(l);
  }
  if (c.prefill_site != c.decode_site && c.link_between(c.prefill_site, c.decode_site) < 0)
    throw_error("%s: %s: no link joins site \"%s\" (prefill) and site \"%s\" (decode)", origin.c_str(),
                links_path.c_str(), c.sites[static_cast<size_t>(c.prefill_site)].name.c_str(),
                c.sites[static_cast<size_t>(c.decode_site)].name.c_str());
  return c;
}

}  // namespace lynx
