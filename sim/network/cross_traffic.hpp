// Other tenants' traffic on site links (site_config.hpp's cross_traffic), so that KV competes with something other
// than KV. Each kind is the simplest process that has its property:
//   constant: the link is built with (1 - fraction) of its capacity (platform.cpp), a fluid load that never yields:
//             a lone KV flow whose bottleneck is that link runs at exactly (1 - fraction) of its rate;
//   on-off:   the same share taken during on periods only (Link::set_bandwidth at each switch), on and off periods
//             exponential with means on_ms and off_ms, starting in the on state with probability on / (on + off)
//             (the stationary one);
//   poisson:  flows between two endpoints of their own in the link's two sites (platform.cpp), arriving as a
//             Poisson process of rate fraction x capacity / mean size, sized fixed, exponential or Pareto (tail
//             index pareto_shape, scale mean x (shape - 1) / shape), sharing max-min with the KV flows.
// Everything is seeded from the run's seed and the link's index (seed_derive), in the event loop's background (it
// never keeps a run alive: event_loop.hpp), and counted in no summary figure, so a run without cross traffic is
// the run it was before.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/engine/event_loop.hpp"
#include "sim/network/network_config.hpp"

namespace lynx {

// The running processes; the loop's background events point into it, so it must outlive the loop's run().
class CrossTraffic {
 public:
  // Schedules the cross traffic of every site link of `network` on `loop` from time 0 (nothing for other
  // topologies and links without cross traffic; constant traffic is already in the platform).
  CrossTraffic(EventLoop& loop, const NetworkConfig& network, uint64_t seed);
  ~CrossTraffic();
  CrossTraffic(const CrossTraffic&) = delete;
  CrossTraffic& operator=(const CrossTraffic&) = delete;

 private:
  struct OnOff;
  struct PoissonFlows;
  std::vector<std::unique_ptr<OnOff>> on_offs_;
  std::vector<std::unique_ptr<PoissonFlows>> poissons_;
};

// What cross traffic costs before anything runs: its expected background events per simulated second (an on-off
// link switches 2 / (on + off) times a second; a Poisson link starts fraction x capacity / mean size flows a
// second, each a flow the network solver shares), summed over the site links. The run lasts at least as long as
// the workload's arrivals (cross traffic runs until its last request is done), so a run's background work is at
// least rate x span. cross_traffic_check_cost refuses a run whose estimate, rate x max(span_s, 1 s), exceeds
// kMaxCrossTrafficEvents (measured here: a Poisson flow about 3 us of work, an on-off switch on an idle link 0.1 us;
// 2e7 is about a minute), with a LynxError naming `origin`, the link's fields that drive it and the estimate
// (legal values such as on_ms 1e-6 or mean_flow_mb 1e-6 would otherwise run for hours and never say why).
constexpr double kMaxCrossTrafficEvents = 2e7;
double cross_traffic_events_per_s(const NetworkConfig& network);
void cross_traffic_check_cost(const NetworkConfig& network, double span_s, const std::string& origin);

// One flow size (bytes, at least 1) of the distribution with mean `mean_bytes` from uniform `u` in (0, 1].
double cross_flow_bytes(FlowSizeDistribution sizes, double mean_bytes, double pareto_shape, double u);

}  // namespace lynx
