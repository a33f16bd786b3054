// lynx_experiments: experiment files, sweeps, results and plots.
// An experiment is a base simulate configuration plus sweep axes addressed by JSON path into it, crossed (every
// combination, the first axis varying slowest) or zipped (the i-th values together). The whole file is
// validated before anything runs: every point's configuration and workload are parsed, and a bad path or value is
// an error naming the experiment file, the axis and the point.
//
// Every field is declared once in experiment.cpp (kExperimentSection) and listed in docs/config.md. For example:
// {
//   "name": "ttft_vs_bandwidth",
//   "description": "...",
//   "base": { ...a simulate configuration (sim/config/sim_config.hpp)... },
//   "sweep": {"mode": "cross",                                  or "zip"
//             "axes": [{"path": "cluster.network.nic_gbps", "values": [10, 25, 50, 100, 200, 400]},
//                      {"path": "format", "values": ["bf16", "int8-g64", "int4-g64", "lynx-a4r4-g64"]},
//                      {"paths": ["model", "cluster.decode.tp"],          a linked axis: several paths move
//                       "values": [["llama-3.1-8b", 1], ["llama-3.1-70b", 4]]}]},   together, one array per value
//   "plot": {"x": "cluster.network.nic_gbps", "series": "format", "facet": "model", "cdf_at": 100,
//            "ratios": [{"numerator": ["int8-g64", "ttft"], "denominator": ["lynx-a4r4-g64", "ttft_spec"]}]}
// }
// Relative paths in "base" resolve against the experiment file's directory.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/enum_names.hpp"
#include "common/json_schema.hpp"

namespace lynx {

// The root section of an experiment file, for the reference.
extern const SchemaSection kExperimentSection;

struct SweepAxis {
  std::vector<std::string> paths;     // dotted JSON paths into the base configuration (one, or linked ones)
  std::vector<nlohmann::json> values; // for linked paths, each value is an array with one entry per path
  const std::string& path() const { return paths.front(); }  // names the axis
};

struct SweepPoint {
  size_t index = 0;                   // 0-based, in sweep order
  std::string name;                   // directory name: p0007_nic_gbps=100_format=int8-g64
  std::vector<nlohmann::json> values; // one per axis path (linked paths flattened), in axis order
  nlohmann::json config;              // base with the axis values set
};

// How the axes combine: every combination, or the i-th value of every axis together.
enum class SweepMode { cross, zip };
inline constexpr auto kSweepModeNames = enum_names<SweepMode>({{SweepMode::cross, "cross"}, {SweepMode::zip, "zip"}});
const char* sweep_mode_name(SweepMode mode);
// What a plot section draws ("plot.kind"): lines over x, or a regime map (experiments/plot_regimes.hpp).
enum class PlotKind { lines, regime_map };
inline constexpr auto kPlotKindNames =
    enum_names<PlotKind>({{PlotKind::lines, "lines"}, {PlotKind::regime_map, "regime-map"}});

struct Experiment {
  std::string origin;                 // the experiment file
  std::string base_dir;               // its directory
  std::string name, description;
  nlohmann::json base;
  SweepMode mode = SweepMode::cross;
  std::vector<SweepAxis> axes;
  nlohmann::json plot;                // as written (keys, types: here; what it names: experiments/plot_request.hpp)
  nlohmann::json source;              // the whole file, copied into results
  std::vector<SweepPoint> points;
};

// Loads and validates an experiment, expanding and checking every point.
Experiment experiment_load(const std::string& path);
// A simulation configuration given where an experiment is expected: one error saying what the file is and what runs it.
void experiment_check_kind(const nlohmann::json& root, const std::string& path);
// With validate = false the points are expanded but not checked (reading results of an earlier run).
Experiment experiment_from_json(const nlohmann::json& root, const std::string& origin, const std::string& base_dir,
                                bool validate = true);

// Sets `value` at dotted `path` of `config`, creating objects on the way.
// A numeric component indexes an existing array element (cluster.network.site_links.0.latency_ms).
void json_set_path(nlohmann::json& config, const std::string& path, const nlohmann::json& value);
// True when one dotted path is the other or lies inside it ("a.b" and "a.b.c"; not "a.b" and "a.bc").
bool paths_overlap(const std::string& a, const std::string& b);

}  // namespace lynx
