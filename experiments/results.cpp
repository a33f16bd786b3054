#include "experiments/results.hpp"

#include <cstdio>
#include <filesystem>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/json_reader.hpp"
#include "experiments/point_record.hpp"

namespace lynx {

namespace fs = std::filesystem;

void write_experiment_copy(const std::string& out_dir, const Experiment& e) {
  nlohmann::json copy = {{"base_dir", fs::absolute(e.base_dir.empty() ? "." : e.base_dir).lexically_normal().string()},
                         {"experiment", e.source}};
  write_file_atomic(out_dir + "/experiment.json", copy.dump(2) + "\n");
}

Experiment read_experiment_copy(const std::string& results_dir) {
  const std::string path = results_dir + "/experiment.json";
  nlohmann::json copy = json_parse_file(path);
  JsonObject o(copy, path, "$");
  std::string base_dir = o.string("base_dir");
  const nlohmann::json& source = o.raw("experiment");
  o.finish();
  return experiment_from_json(source, path, base_dir, false);
}

std::string summary_csv_field(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) {
    char text[40];
    std::snprintf(text, sizeof text, "%.10g", v.get<double>());
    return text;
  }
  return v.dump();
}

void write_summary_csv(const std::string& out_dir, const Experiment& e) {
  std::vector<std::string> metric_names;
  std::string rows;
  for (const SweepPoint& p : e.points) {
    const std::string path = out_dir + "/" + p.name + "/summary.json";
    if (!fs::exists(path)) continue;
    nlohmann::json summary = json_parse_file(path);
    const nlohmann::json& metrics = summary.at("metrics");
    if (metric_names.empty())
      for (auto it = metrics.begin(); it != metrics.end(); ++it) metric_names.push_back(it.key());
    std::string row = p.name;
    for (const auto& v : p.values) row += "," + summary_csv_field(v);
    for (const auto& name : metric_names)
      row += "," + summary_csv_field(metrics.contains(name) ? metrics[name] : nullptr);
    rows += row + "\n";
  }
  std::string header = "point";
  for (const SweepAxis& a : e.axes)
    for (const std::string& path : a.paths) header += "," + path;
  for (const auto& name : metric_names) header += "," + name;
  write_file_atomic(out_dir + "/summary.csv", header + "\n" + rows);
}

void results_merge(const std::string& out_dir, const std::vector<std::string>& shard_dirs) {
  if (shard_dirs.empty()) throw_error("merge: no results directories given");
  nlohmann::json first = json_parse_file(shard_dirs[0] + "/experiment.json");
  for (const auto& dir : shard_dirs)
    if (json_parse_file(dir + "/experiment.json") != first)
      throw_error("merge: %s/experiment.json differs from %s/experiment.json: not shards of one experiment",
                  dir.c_str(), shard_dirs[0].c_str());
  Experiment e = read_experiment_copy(shard_dirs[0]);
  // Every source is read and checked before anything is written: a corrupt file is named where it is, and no
  // half-merged folder is left behind.
  std::vector<std::pair<std::string, fs::path>> sources;  // point name, the shard folder holding it
  for (const SweepPoint& p : e.points) {
    for (const auto& dir : shard_dirs) {
      const fs::path from = fs::path(dir) / p.name;
      if (!fs::exists(from / "summary.json")) continue;
      const nlohmann::json summary = json_parse_file((from / "summary.json").string());
      if (!summary.is_object() || !summary.contains("metrics") || !summary["metrics"].is_object())
        throw_error("%s: expected a point summary with \"metrics\" (written by lynxsim run)",
                    (from / "summary.json").c_str());
      sources.emplace_back(p.name, from);
      break;
    }
  }
  fs::create_directories(out_dir);
  for (const auto& [name, from] : sources) {
    {
      const fs::path to = fs::path(out_dir) / name;
      if (fs::equivalent(from.parent_path(), fs::path(out_dir))) continue;
      fs::create_directories(to);
      // The record first and the summary last, as a run writes them (experiments/point_record.hpp).
      for (const char* file : {kPointRecordFile, "requests.csv", "summary.json"})
        if (fs::exists(from / file)) write_file_atomic((to / file).string(), read_file((from / file).string()));
    }
  }
  write_file_atomic(out_dir + "/experiment.json", read_file(shard_dirs[0] + "/experiment.json"));
  write_summary_csv(out_dir, e);
}

}  // namespace lynx
