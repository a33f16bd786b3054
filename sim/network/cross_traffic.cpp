#include "sim/network/cross_traffic.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "common/error.hpp"

#include "traces/random.hpp"

namespace lynx {

namespace {
constexpr uint64_t kCrossTrafficStream = 0x63726f7373ULL;  // "cross": the streams apart from the workload's

}  // namespace

struct CrossTraffic::OnOff {
  EventLoop* loop;
  size_t link;  // its site link
  double full_bytes_per_s, fraction, on_s, off_s;
  Rng rng;
  void enter(bool on) {
    loop->set_site_link_bandwidth(link, full_bytes_per_s * (on ? 1 - fraction : 1.0));
    const double stay_s = rng.exponential(on ? on_s : off_s);
    loop->at_background(loop->now() + stay_s, [this, on] { enter(!on); });
  }
};

struct CrossTraffic::PoissonFlows {
  EventLoop* loop;
  int src, dst;
  double mean_gap_s, mean_bytes, pareto_shape;
  FlowSizeDistribution sizes;
  Rng rng;
  void arrive() {
    const double bytes = cross_flow_bytes(sizes, mean_bytes, pareto_shape, rng.uniform01_open_low());
    loop->send_background(src, dst, static_cast<uint64_t>(std::llround(bytes)));
    loop->at_background(loop->now() + rng.exponential(mean_gap_s), [this] { arrive(); });
  }
};

double cross_flow_bytes(FlowSizeDistribution sizes, double mean_bytes, double pareto_shape, double u) {
  double bytes = mean_bytes;
  if (sizes == FlowSizeDistribution::exponential) bytes = -mean_bytes * std::log(u);
  if (sizes == FlowSizeDistribution::pareto)
    bytes = mean_bytes * (pareto_shape - 1) / pareto_shape / std::pow(u, 1 / pareto_shape);
  return std::max(1.0, bytes);
}

namespace {
// A site link's expected background events per simulated second, and the fields that set it (for messages).
double link_events_per_s(const SiteLinkConfig& link, std::string* fields) {
  const CrossTrafficConfig& x = link.cross_traffic;
  if (!x.enabled || x.fraction <= 0 || x.kind == CrossTrafficKind::constant) return 0;
  char text[256];
  if (x.kind == CrossTrafficKind::on_off) {
    const double switches_per_s = 2 / ((x.on_ms + x.off_ms) * 1e-3);
    if (fields) {
      std::snprintf(text, sizeof text, "on_ms %g and off_ms %g: %.3g on/off switches per simulated second", x.on_ms,
                    x.off_ms, switches_per_s);
      *fields = text;
    }
    return switches_per_s;
  }
  const double capacity_bytes_per_s = link.capacity_gbps() * 1e9 / 8;
  const double flows_per_s = x.fraction * capacity_bytes_per_s / (x.mean_flow_mb * 1e6);
  if (fields) {
    std::snprintf(text, sizeof text,
                  "mean_flow_mb %g with fraction %g of %g Gbps (bandwidth_gbps x count): %.3g flows per simulated "
                  "second",
                  x.mean_flow_mb, x.fraction, link.capacity_gbps(), flows_per_s);
    *fields = text;
  }
  return flows_per_s;
}
}  // namespace

double cross_traffic_events_per_s(const NetworkConfig& network) {
  if (network.topology != Topology::sites) return 0;
  double total = 0;
  for (const SiteLinkConfig& link : network.sites.links) total += link_events_per_s(link, nullptr);
  return total;
}

void cross_traffic_check_cost(const NetworkConfig& network, double span_s, const std::string& origin) {
  const double rate = cross_traffic_events_per_s(network);
  const double seconds = std::max(span_s, 1.0);
  if (!(rate * seconds > kMaxCrossTrafficEvents)) return;
  // Name the link that costs the most.
  size_t worst = 0;
  double worst_rate = -1;
  for (size_t l = 0; l < network.sites.links.size(); ++l) {
    const double r = link_events_per_s(network.sites.links[l], nullptr);
    if (r > worst_rate) worst_rate = r, worst = l;
  }
  std::string fields;
  (void)link_events_per_s(network.sites.links[worst], &fields);
  throw_error("%s: $.cluster.network.site_links[%zu].cross_traffic: %s; over the run (at least the workload's %.3g s "
              "of arrivals, and at least 1 s) that is about %.3g background events, more than the %.3g lynxsim "
              "runs (a Poisson flow costs about 3 us: about a minute); cross traffic of every link: %.3g events per simulated second. Raise the "
              "periods or the flow size (or shorten the workload)",
              origin.c_str(), worst, fields.c_str(), span_s, rate * seconds, kMaxCrossTrafficEvents, rate);
}

CrossTraffic::~CrossTraffic() = default;

CrossTraffic::CrossTraffic(EventLoop& loop, const NetworkConfig& network, uint64_t seed) {
  if (network.topology != Topology::sites) return;
  const Platform& p = loop.platform();
  for (size_t l = 0; l < network.sites.links.size(); ++l) {
    const CrossTrafficConfig& x = network.sites.links[l].cross_traffic;
    if (!x.enabled || x.fraction <= 0 || x.kind == CrossTrafficKind::constant) continue;
    const PlatformSiteLink& link = p.site_links[l];
    Rng rng(seed_derive(seed, kCrossTrafficStream + l));
    if (x.kind == CrossTrafficKind::on_off) {
      const double on_s = x.on_ms * 1e-3, off_s = x.off_ms * 1e-3;
      on_offs_.push_back(std::make_unique<OnOff>(
          OnOff{&loop, l, link.capacity_bytes_per_s, x.fraction, on_s, off_s, rng}));
      OnOff& process = *on_offs_.back();
      const bool on = process.rng.uniform01() < on_s / (on_s + off_s);
      loop.at_background(0, [&process, on] { process.enter(on); });
    } else {
      const double mean_bytes = x.mean_flow_mb * 1e6;
      const double mean_gap_s = mean_bytes / (x.fraction * link.capacity_bytes_per_s);
      poissons_.push_back(std::make_unique<PoissonFlows>(
          PoissonFlows{&loop, link.cross_src, link.cross_dst, mean_gap_s, mean_bytes, x.pareto_shape, x.sizes, rng}));
      PoissonFlows& process = *poissons_.back();
      loop.at_background(process.rng.exponential(mean_gap_s), [&process] { process.arrive(); });
    }
  }
}

}  // namespace lynx
