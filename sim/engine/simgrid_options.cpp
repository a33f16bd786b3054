// SimGrid configuration items (sim/engine/simgrid_options.hpp). The accepted items and their values are SimGrid 3.32's
// (src/kernel/resource/NetworkModel... and src/simgrid/sg_config.cpp of v3.32: "network/optim" is "Lazy" or
// "Full"; "network/maxmin-selective-update" a boolean; "maxmin/precision" and "surf/precision" positive numbers).
#include "sim/engine/simgrid_options.hpp"

#include <cstdlib>

#include <simgrid/s4u/Engine.hpp>

#include "common/error.hpp"

namespace lynx {

namespace {
// The items lynxsim applies by default, before the user's. Empty: SimGrid's own defaults (network/optim Lazy). A
// faster default (network/optim:Full) waits for a test showing results equal within 1e-9 on a congested case.
const std::vector<std::string> kDefaultItems = {};

// Items that define the model lynxsim's exact arithmetic rests on (sim/engine/platform.cpp), refused with this reason.
constexpr const char* kModelItems[] = {"network/model", "network/crosstraffic", "network/TCP-gamma",
                                       "network/latency-factor", "network/bandwidth-factor", "network/weight-S",
                                       "network/loopback-bw", "network/loopback-lat", "network/solver", "host/model", "cpu/model",
                                       "cpu/optim", "disk/model", "network/communication-cost"};

bool is_bool(const std::string& v) {
  return v == "yes" || v == "no" || v == "on" || v == "off" || v == "1" || v == "0" || v == "true" || v == "false";
}
bool is_fraction(const std::string& v) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  return !v.empty() && end == v.c_str() + v.size() && x > 0 && x < 1;
}
}  // namespace

void simgrid_options_check(const std::vector<std::string>& items, const std::string& where) {
  for (const std::string& item : items) {
    const size_t colon = item.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == item.size())
      throw_error("%s %s: expected ITEM:VALUE, e.g. network/optim:Full", where.c_str(), printable(item).c_str());
    const std::string key = item.substr(0, colon), value = item.substr(colon + 1);
    for (const char* model : kModelItems)
      if (key == model)
        throw_error("%s %s: refused: %s is part of the network model lynxsim's results rest on (CM02, no "
                    "cross-traffic, no TCP window cap, zero-latency links: sim/engine/platform.cpp); use "
                    "cluster.network.model to choose a model",
                    where.c_str(), printable(item).c_str(), key.c_str());
    bool ok;
    const char* expected;
    if (key == "network/optim") {
      ok = value == "Lazy" || value == "Full";
      expected = "Lazy or Full";
    } else if (key == "network/maxmin-selective-update") {
      ok = is_bool(value);
      expected = "yes or no";
    } else if (key == "maxmin/precision" || key == "surf/precision") {
      ok = is_fraction(value);
      expected = "a number in (0, 1)";
    } else {
      throw_error("%s %s: unknown or not accepted: lynxsim passes network/optim, network/maxmin-selective-update, "
                  "maxmin/precision and surf/precision to SimGrid",
                  where.c_str(), printable(item).c_str());
    }
    if (!ok) throw_error("%s %s: %s expects %s", where.c_str(), printable(item).c_str(), key.c_str(), expected);
  }
}

std::vector<std::string> simgrid_options_effective(const std::vector<std::string>& items) {
  std::vector<std::string> all = kDefaultItems;
  all.insert(all.end(), items.begin(), items.end());
  return all;
}

void simgrid_options_apply(const std::vector<std::string>& items) {
  for (const std::string& item : items) simgrid::s4u::Engine::set_config(item);
}

}  // namespace lynx
