// SimGrid's own configuration items a run may set (`lynxsim simulate --cfg ITEM:VALUE`, `lynxsim run --cfg`), and
// the ones lynxsim sets by default. Only items that change how SimGrid computes the same model are accepted: the
// solver's update strategy and its precisions. The items that define the model lynxsim relies on (the network
// model CM02, no cross-traffic, no TCP window cap: sim/engine/platform.cpp; the latency and bandwidth factors; the host and
// CPU models) are refused with the reason, as is any item not in the list (an unknown item aborts SimGrid).
#pragma once
#include <string>
#include <vector>

namespace lynx {

// Checks each "item:value"; a refused or malformed one is a LynxError naming `where` (e.g. "--cfg").
void simgrid_options_check(const std::vector<std::string>& items, const std::string& where);

// The items a run applies: lynxsim's defaults, then `items` (a later value of an item wins in SimGrid).
std::vector<std::string> simgrid_options_effective(const std::vector<std::string>& items);

// Applies items (after the engine exists, before the platform is built).
void simgrid_options_apply(const std::vector<std::string>& items);

}  // namespace lynx
