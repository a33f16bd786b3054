// The record of what a sweep point ran (experiments/point_record.hpp).
#include "experiments/point_record.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <vector>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/json_reader.hpp"
#include "sim/config/resolved_config.hpp"

namespace lynx {

namespace fs = std::filesystem;

nlohmann::json point_record(const Experiment& e, const SweepPoint& p) {
  return resolve_config(p.config, e.origin + " (point " + p.name + ")", e.base_dir).json;
}

std::string json_first_difference(const nlohmann::json& a, const nlohmann::json& b, const std::string& path) {
  if (a.is_object() && b.is_object()) {
    std::set<std::string> keys;
    for (const auto& item : a.items()) keys.insert(item.key());
    for (const auto& item : b.items()) keys.insert(item.key());
    for (const std::string& key : keys) {
      if (!a.contains(key) || !b.contains(key)) return path + "." + key;
      std::string inner = json_first_difference(a[key], b[key], path + "." + key);
      if (!inner.empty()) return inner;
    }
    return "";
  }
  if (a.is_array() && b.is_array()) {
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
      std::string inner = json_first_difference(a[i], b[i], json_index_path(path, i));
      if (!inner.empty()) return inner;
    }
    return a.size() == b.size() ? "" : json_index_path(path, std::min(a.size(), b.size()));
  }
  return a == b ? "" : path;
}

namespace {
// The value at a path json_first_difference returned, for the message ("absent" when it is not there).
std::string value_at(const nlohmann::json& root, const std::string& path) {
  const nlohmann::json* at = &root;
  size_t i = 1;  // after "$"
  while (i < path.size()) {
    if (path[i] == '.') {
      size_t end = path.find_first_of(".[", i + 1);
      const std::string key = path.substr(i + 1, end == std::string::npos ? std::string::npos : end - i - 1);
      if (!at->is_object() || !at->contains(key)) return "absent";
      at = &(*at)[key];
      i = end == std::string::npos ? path.size() : end;
    } else {  // "[index]"
      const size_t end = path.find(']', i);
      const size_t index = std::stoul(path.substr(i + 1, end - i - 1));
      if (!at->is_array() || index >= at->size()) return "absent";
      at = &(*at)[index];
      i = end + 1;
    }
  }
  std::string text = at->dump();
  return text.size() > 80 ? text.substr(0, 77) + "..." : text;
}
}  // namespace

PointCheck point_state(const std::string& dir, const nlohmann::json& record) {
  if (!fs::exists(dir + "/summary.json")) return {PointState::not_finished, ""};
  const std::string path = dir + "/" + kPointRecordFile;
  if (!fs::exists(path))
    return {PointState::stale, std::string("no ") + kPointRecordFile + " (results of an older lynxsim, or removed)"};
  const nlohmann::json recorded = nlohmann::json::parse(read_file(path), nullptr, false);
  if (recorded.is_discarded()) return {PointState::stale, std::string(kPointRecordFile) + " is not valid JSON"};
  const std::string where = json_first_difference(recorded, record);
  if (where.empty()) return {PointState::finished, ""};
  return {PointState::stale, where + " is " + value_at(recorded, where) + " in the results, " +
                                 value_at(record, where) + " now"};
}

void point_prepare(const std::string& dir, const nlohmann::json& record) {
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) throw_error("%s: cannot create the directory: %s", dir.c_str(), error.message().c_str());
  auto remove = [&](const fs::path& path) {
    fs::remove(path, error);
    if (error) throw_error("%s: cannot remove: %s", path.c_str(), error.message().c_str());
  };
  // The summary first: from here on the point reads as not finished, whatever else is interrupted.
  for (const char* name : {"summary.json", "requests.csv", "error.txt", kLegacyPointRecordFile})
    remove(fs::path(dir) / name);
  // Temporaries of a run that was killed (write_file_atomic's "<name>.tmp.<pid>").
  std::vector<fs::path> temporaries;
  for (const auto& entry : fs::directory_iterator(dir, error))
    if (entry.path().filename().string().find(".tmp.") != std::string::npos) temporaries.push_back(entry.path());
  for (const fs::path& path : temporaries) remove(path);
  write_file_atomic(dir + "/" + kPointRecordFile, record.dump(2) + "\n");
}

}  // namespace lynx
