#include "sim/network_config.hpp"

namespace lynx {

namespace {
// Declared once (common/json_reader.hpp). 100 Tbps and 1 s bound any datacenter NIC and hop; the bounds keep
// SimGrid's arithmetic finite.
constexpr NumberField kNicGbps{"nic_gbps", "Gbps", 100, 0, 1e5, true, "bandwidth of each NIC's link to its switch"};
constexpr IntegerField kNicsPerInstance{"nics_per_instance", "NICs", 0, 0, 64,
                                        "NICs of each instance (0: one per GPU, the instance's tp)"};
constexpr NumberField kLatencyUs{"latency_us", "us", 5, 0, 1e6, false, "one-way latency of a node's link"};
constexpr NumberField kSpineLatencyUs{"spine_latency_us", "us", 0, 0, 1e6, false,
                                      "leaf-spine: one-way latency of a leaf's uplink"};
constexpr IntegerField kHostsPerRack{"hosts_per_rack", "nodes", 8, 1, 65536, "leaf-spine: nodes under one leaf"};
constexpr NumberField kOversubscription{"oversubscription", "ratio", 1, 0, 1000, true,
                                        "leaf-spine: downlink over uplink bandwidth of a leaf"};
constexpr NumberField kUplinkGbps{"uplink_gbps", "Gbps", 0, 0, 1e6, true,
                                  "leaf-spine: a leaf's uplink bandwidth (instead of oversubscription)"};
}  // namespace

NetworkConfig network_config_from_json(JsonObject& o) {
  NetworkConfig n;
  n.topology = o.choice_or("topology", {"star", "leaf-spine"}, n.topology);
  n.nic_gbps = o.get(kNicGbps);
  n.nics_per_instance = static_cast<int>(o.get(kNicsPerInstance));
  n.latency_us = o.get(kLatencyUs);
  n.spine_latency_us = o.get(kSpineLatencyUs);
  n.hosts_per_rack = static_cast<int>(o.get(kHostsPerRack));
  n.oversubscription = o.get(kOversubscription);
  n.uplink_gbps = o.has("uplink_gbps") ? o.get(kUplinkGbps) : 0;
  n.link_sharing = o.choice_or("link_sharing", {"split-duplex", "shared"}, n.link_sharing);
  n.model = o.choice_or("model", {"exact", "lv08"}, n.model);
  o.finish();
  return n;
}

}  // namespace lynx
