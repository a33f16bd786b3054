#include "sim/network_config.hpp"

namespace lynx {

NetworkConfig network_config_from_json(JsonObject& o) {
  NetworkConfig n;
  n.topology = o.choice_or("topology", {"star", "leaf-spine"}, n.topology);
  n.nic_gbps = o.positive_number_or("nic_gbps", n.nic_gbps);
  n.latency_us = o.non_negative_number_or("latency_us", n.latency_us);
  n.spine_latency_us = o.non_negative_number_or("spine_latency_us", n.spine_latency_us);
  n.hosts_per_rack = static_cast<int>(o.positive_integer_or("hosts_per_rack", n.hosts_per_rack));
  n.oversubscription = o.positive_number_or("oversubscription", n.oversubscription);
  n.uplink_gbps = o.positive_number_or("uplink_gbps", 0);
  n.link_sharing = o.choice_or("link_sharing", {"split-duplex", "shared"}, n.link_sharing);
  n.model = o.choice_or("model", {"exact", "lv08"}, n.model);
  o.finish();
  return n;
}

}  // namespace lynx
