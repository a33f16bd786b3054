// The regime map (plot kind "regime-map", experiments/lynx_regimes.json): heatmaps over two sweep axes (x, y) of the
// gain of each Lynx value of the series axis over each other value (baseline median / Lynx median of the same
// metric: ttft_spec, ttft_correct, ttft, e2el; formats without speculation have the three first-token times equal,
// so the comparison uses one definition on both sides), on a log colour scale with the cells at or above 1.1x and
// the paper's 1.43x outlined. Every other axis (and each facet path) makes figures of its own. The C++ side checks
// the names against the sweep; experiments/plot_regimes.py reads summary.csv and each point's requests.csv (for
// each cell's spread) and draws.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "experiments/experiment.hpp"

namespace lynx {

// Whether the experiment's plot section asks for a regime map.
bool plot_is_regime_map(const Experiment& e);
// Checks x, y, series and facet name sweep axes (x, y and series different axes) and that the series has a value
// starting "lynx" and one that does not; a LynxError names the file and JSON path.
void regime_map_check(const Experiment& e);
// What experiments/plot_regimes.py is given (checked first): the axes' paths, x, y, series, facets and out_dir.
nlohmann::json regime_map_request(const Experiment& e, const std::string& out_dir);

}  // namespace lynx
