// What a sweep point's results were computed from, recorded beside them as <point>/resolved_config.json, so that a
// rerun reuses a finished point only when the point would run exactly the same thing now. The record is the
// point's configuration (the experiment's base with the axis values set) and every input file it names, resolved
// to the path that would be read (relative paths and @data/ resolved as the run resolves them). Editing the
// experiment's base or axes, moving it, or pointing the data folder elsewhere changes the record; editing its
// description or plot section does not.
//
// Order of writes, which makes a SIGKILL at any moment safe: the old summary.json goes first, then the record is
// written, then the point runs and writes requests.csv and, last, summary.json. A point is finished only when its
// summary.json exists and its record equals the one it would have now.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "experiments/experiment.hpp"

namespace lynx {

constexpr const char* kPointRecordFile = "resolved_config.json";

// {"config": {...}, "inputs": {"workload.trace": "/abs/path", ...}}; throws LynxError on a configuration that does
// not validate (experiment_load has already checked every point).
nlohmann::json point_record(const Experiment& experiment, const SweepPoint& point);

enum class PointState {
  not_finished,  // no summary.json
  finished,      // summary.json and an equal record
  stale,         // summary.json, but the record is missing, unreadable or different
};
PointState point_state(const std::string& point_dir, const nlohmann::json& record);

// Clears what an earlier run of the point left (results, error, temporaries) and writes the record: the point is
// then not finished until it runs to its summary.
void point_prepare(const std::string& point_dir, const nlohmann::json& record);

}  // namespace lynx
