#include "experiments/results.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <algorithm>
#include <filesystem>
#include <set>
#include <optional>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/json_reader.hpp"
#include "experiments/point_record.hpp"
#include "sim/output/requests_csv.hpp"
#include "sim/config/resolved_config.hpp"

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
    if (!summary.is_object() || !summary.contains("metrics") || !summary["metrics"].is_object())
      throw_error("%s: expected a point summary with \"metrics\" (written by lynxsim run)", path.c_str());
    const nlohmann::json& metrics = summary["metrics"];
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

namespace {
// `config` without its input-path fields: what a point's config.json must equal, apart from where the data folder
// was on the machine that ran it (a shard may run where @data resolves elsewhere).
nlohmann::json without_path_fields(nlohmann::json config) {
  for (const std::string& field : resolved_config_path_fields()) {
    nlohmann::json* at = &config;
    size_t begin = 0;
    while (at != nullptr) {
      const size_t end = field.find('.', begin);
      const std::string key = field.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
      if (end == std::string::npos) {
        if (at->is_object()) at->erase(key);
        break;
      }
      at = at->is_object() && at->contains(key) ? &(*at)[key] : nullptr;
      begin = end + 1;
    }
  }
  return config;
}

// One point's files in one shard, each read whole and checked: config.json is the point's configuration,
// summary.json a summary with "metrics", requests.csv present. A LynxError names the file.
struct PointFiles {
  fs::path dir;
  std::vector<std::pair<std::string, std::string>> files;  // name, bytes, in the order they are written
};

PointFiles read_point(const SweepPoint& p, const fs::path& dir) {
  PointFiles r{dir, {}};
  for (const char* file : {kPointRecordFile, "requests.csv", "summary.json"}) {
    const fs::path path = dir / file;
    std::error_code error;
    if (!fs::exists(path, error))
      throw_error("%s: missing (point %s is not finished in %s: run that shard again, then merge)", path.c_str(),
                  p.name.c_str(), dir.parent_path().c_str());
    r.files.emplace_back(file, read_file(path.string()));
  }
  const nlohmann::json record = json_parse_text(r.files[0].second, (dir / kPointRecordFile).string());
  const std::string difference = json_first_difference(without_path_fields(record), without_path_fields(p.config));
  if (!difference.empty())
    throw_error("%s: not this point's configuration: %s differs from what %s/experiment.json gives point %s",
                (dir / kPointRecordFile).c_str(), difference.c_str(), dir.parent_path().c_str(), p.name.c_str());
  const std::string& csv = r.files[1].second;
  if (csv.empty() || csv.back() != '\n')
    throw_error("%s: cut short (no final new line)", (dir / "requests.csv").c_str());
  const nlohmann::json summary = json_parse_text(r.files[2].second, (dir / "summary.json").string());
  if (!summary.is_object() || !summary.contains("metrics") || !summary["metrics"].is_object())
    throw_error("%s: expected a point summary with \"metrics\" (written by lynxsim run)",
                (dir / "summary.json").c_str());
  return r;
}
}  // namespace

void results_merge(const std::string& out_dir, const std::vector<std::string>& shard_dirs) {
  if (shard_dirs.empty()) throw_error("merge: no results directories given");
  const std::string first_path = shard_dirs[0] + "/experiment.json";
  nlohmann::json first = json_parse_file(first_path);
  for (const auto& dir : shard_dirs)
    if (json_parse_file(dir + "/experiment.json") != first)
      throw_error("merge: %s/experiment.json differs from %s: not shards of one experiment", dir.c_str(),
                  first_path.c_str());
  // Never into another experiment's results: an --out that holds results must hold this experiment's.
  std::error_code error;
  if (fs::exists(out_dir + "/experiment.json", error) && json_parse_file(out_dir + "/experiment.json") != first)
    throw_error("merge: --out %s holds the results of another experiment (its experiment.json differs from %s): "
                "merge into a new folder",
                out_dir.c_str(), first_path.c_str());
  Experiment e = read_experiment_copy(shard_dirs[0]);
  // Every source is read and checked before anything is written: a corrupt, missing or foreign file is named where
  // it is, two shards holding one point must hold the same bytes, and no half-merged folder is left behind.
  std::vector<std::pair<std::string, PointFiles>> sources;  // point name, its files
  for (const SweepPoint& p : e.points) {
    std::optional<PointFiles> chosen;
    for (const auto& dir : shard_dirs) {
      const fs::path from = fs::path(dir) / p.name;
      if (!fs::exists(from, error)) continue;
      PointFiles files = read_point(p, from);
      if (!chosen) {
        chosen = std::move(files);
        continue;
      }
      for (size_t i = 0; i < files.files.size(); ++i)
        if (files.files[i].second != chosen->files[i].second)
          throw_error("merge: %s and %s differ: two shards disagree on point %s", (from / files.files[i].first).c_str(),
                      (chosen->dir / files.files[i].first).c_str(), p.name.c_str());
    }
    if (!chosen)
      throw_error("merge: point %s is in none of the %zu results directories (a shard missing, or not finished)",
                  p.name.c_str(), shard_dirs.size());
    sources.emplace_back(p.name, std::move(*chosen));
  }
  fs::create_directories(out_dir);
  for (const auto& [name, from] : sources) {
    const fs::path to = fs::path(out_dir) / name;
    fs::create_directories(to);
    // The record first and the summary last, as a run writes them (experiments/point_record.hpp).
    for (const auto& [file, bytes] : from.files) write_file_atomic((to / file).string(), bytes);
  }
  write_file_atomic(out_dir + "/experiment.json", read_file(first_path));
  write_summary_csv(out_dir, e);
}

namespace {
// summary.csv's cells, split at commas (it holds no quoted cells: names, numbers and JSON of scalars).
std::vector<std::string> csv_cells(const std::string& line) {
  std::vector<std::string> cells;
  size_t begin = 0;
  while (true) {
    const size_t comma = line.find(',', begin);
    cells.push_back(line.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin));
    if (comma == std::string::npos) return cells;
    begin = comma + 1;
  }
}

// True for "nan", "-inf", "Infinity", ...: what no lynxsim summary holds (JSON cannot) but an edited file may.
bool non_finite_text(const std::string& cell) {
  if (cell.empty()) return false;
  char* end = nullptr;
  const double v = std::strtod(cell.c_str(), &end);
  return end == cell.c_str() + cell.size() && !std::isfinite(v);
}
}  // namespace

void results_verify(const std::string& results_dir, const Experiment& e) {
  const std::string summary_path = results_dir + "/summary.csv";
  std::error_code error;
  if (!fs::exists(summary_path, error))
    throw_error("%s: not found (the sweep has not finished a point, or the folder was edited)", summary_path.c_str());
  const std::string text = read_file(summary_path);
  if (text.empty() || text.back() != '\n') throw_error("%s: cut short (no final new line)", summary_path.c_str());
  std::string expected_header = "point";
  for (const SweepAxis& a : e.axes)
    for (const std::string& path : a.paths) expected_header += "," + path;
  std::map<std::string, const SweepPoint*> points;
  for (const SweepPoint& p : e.points) points[p.name] = &p;
  size_t line_number = 0, begin = 0, columns = 0;
  std::set<std::string> listed;  // the points with a row
  while (begin < text.size()) {
    const size_t end = text.find('\n', begin);
    const std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    ++line_number;
    const std::vector<std::string> cells = csv_cells(line);
    if (line_number == 1) {
      if (line.compare(0, expected_header.size(), expected_header) != 0 ||
          (line.size() > expected_header.size() && line[expected_header.size()] != ','))
        throw_error("%s:1: not the header this experiment's sweep gives (expected it to begin \"%s\")",
                    summary_path.c_str(), expected_header.c_str());
      columns = cells.size();
      // Every metric a finished point's summary.json has is a column (a plot of a missing column would draw nothing).
      for (const SweepPoint& p : e.points) {
        const fs::path summary = fs::path(results_dir) / p.name / "summary.json";
        if (!fs::exists(summary, error)) continue;
        const nlohmann::json point = json_parse_file(summary.string());
        if (point.is_object() && point.contains("metrics") && point["metrics"].is_object())
          for (auto m = point["metrics"].begin(); m != point["metrics"].end(); ++m)
            if (std::find(cells.begin(), cells.end(), m.key()) == cells.end())
              throw_error("%s:1: no column \"%s\", a metric of the finished point %s (its summary.json): the file was "
                          "cut or edited; `lynxsim run` with the same experiment and --out writes it again",
                          summary_path.c_str(), m.key().c_str(), p.name.c_str());
        break;
      }
      continue;
    }
    if (cells.size() != columns)
      throw_error("%s:%zu: %zu cells, the header has %zu", summary_path.c_str(), line_number, cells.size(), columns);
    auto it = points.find(cells[0]);
    if (it == points.end())
      throw_error("%s:%zu: point \"%s\" is not a point of this experiment", summary_path.c_str(), line_number,
                  cells[0].c_str());
    listed.insert(cells[0]);
    const std::vector<std::string> header = csv_cells(text.substr(0, text.find('\n')));
    for (size_t k = 1; k < cells.size(); ++k)
      if (non_finite_text(cells[k]))
        throw_error("%s:%zu: column %s is %s, not a finite number", summary_path.c_str(), line_number,
                    header[k].c_str(), cells[k].c_str());
    const fs::path dir = fs::path(results_dir) / cells[0];
    (void)read_point(*it->second, dir);
    RequestsCsvReader reader((dir / "requests.csv").string());
    RequestRow row;
    while (reader.next(row)) {
    }
  }
  // Every finished point (its summary.json written) has its row: a plot would leave it out silently.
  for (const SweepPoint& p : e.points)
    if (!listed.count(p.name) && fs::exists(fs::path(results_dir) / p.name / "summary.json", error))
      throw_error("%s: no row for the finished point %s (%s/%s/summary.json): the file was cut or edited; "
                  "`lynxsim run` with the same experiment and --out writes it again",
                  summary_path.c_str(), p.name.c_str(), results_dir.c_str(), p.name.c_str());
}

}  // namespace lynx
