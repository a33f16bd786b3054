// What a sweep point's results were computed from, recorded beside them as <point>/config.json, so that a rerun
// reuses a finished point only when the point would run exactly the same thing now. The record is the point's
// resolved configuration (sim/config/resolved_config.hpp: the experiment's base with the axis values set, every input
// path resolved as the run resolves it), runnable as is with `lynxsim simulate --config`. Editing the experiment's
// base or axes, moving it, or pointing the data folder elsewhere changes the record; editing its description or
// plot section does not. A finished point whose record differs is not silently reused nor silently replaced: the
// sweep stops before writing anything, naming the point and the first differing JSON path (--force reruns it).
//
// Order of writes, which makes a SIGKILL at any moment safe: the old summary.json goes first, then the record is
// written, then the point runs and writes requests.csv and, last, summary.json. A point is finished only when its
// summary.json exists and its record equals the one it would have now.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "experiments/experiment.hpp"

namespace lynx {

constexpr const char* kPointRecordFile = "config.json";
// The record's former name, before config.json replaced it: removed with the other files of an earlier run.
constexpr const char* kLegacyPointRecordFile = "resolved_config.json";

// The point's resolved configuration; throws LynxError on a configuration that does not validate
// (experiment_load has already checked every point).
nlohmann::json point_record(const Experiment& experiment, const SweepPoint& point);

enum class PointState {
  not_finished,  // no summary.json
  finished,      // summary.json and an equal record
  stale,         // summary.json, but the record is missing, unreadable or different
};
struct PointCheck {
  PointState state = PointState::not_finished;
  std::string difference;  // stale: why, e.g. "$.seed is 1 in the results, 2 now", or "no config.json"
};
PointCheck point_state(const std::string& point_dir, const nlohmann::json& record);

// The first JSON path ("$.cluster.network.nic_gbps", "$.sweep[2]") where `a` and `b` differ, keys in sorted order;
// "" when equal.
std::string json_first_difference(const nlohmann::json& a, const nlohmann::json& b, const std::string& path = "$");

// Clears what an earlier run of the point left (results, error, temporaries) and writes the record: the point is
// then not finished until it runs to its summary.
void point_prepare(const std::string& point_dir, const nlohmann::json& record);

}  // namespace lynx
