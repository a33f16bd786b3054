#include "experiments/plot_gantt.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <vector>

#include "common/error.hpp"
#include "sim/output/request_spans.hpp"
#include "sim/output/requests_csv.hpp"

namespace lynx {

namespace {
// --gantt's ids: non-negative integers separated by commas, each once.
std::vector<int64_t> parse_ids(const std::string& text) {
  std::vector<int64_t> ids;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    int64_t id = -1;
    bool ok = !item.empty() && item.size() <= 18 &&
              std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (ok) id = std::stoll(item);
    if (!ok)
      throw_error("--gantt %s: \"%s\" is not a request id; expected ids from requests.csv's id column, e.g. --gantt "
                  "0,5,17",
                  text.c_str(), item.c_str());
    if (std::find(ids.begin(), ids.end(), id) != ids.end())
      throw_error("--gantt %s: request %lld named twice", text.c_str(), static_cast<long long>(id));
    ids.push_back(id);
    at = comma + 1;
  }
  if (static_cast<int>(ids.size()) > kGanttMaxRequests)
    throw_error("--gantt %s: %zu requests; at most %d in one figure", text.c_str(), ids.size(), kGanttMaxRequests);
  return ids;
}

nlohmann::json finite_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }
}  // namespace

nlohmann::json gantt_request(const std::string& run_dir, const std::string& ids_text, const std::string& out_dir,
                             const std::string& data_file) {
  const std::vector<int64_t> ids = parse_ids(ids_text);
  const std::string path = run_dir + "/requests.csv";
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error))
    throw_error("%s: not found (--gantt reads the requests.csv of a `lynxsim simulate --out` folder, or of one "
                "point's folder in a results directory)",
                path.c_str());
  std::map<int64_t, RequestRecord> found;
  int64_t rows = 0, lowest = 0, highest = 0;
  RequestsCsvReader reader(path);
  RequestRow row;
  while (reader.next(row)) {
    const int64_t id = row.record.id;
    lowest = rows == 0 ? id : std::min(lowest, id);
    highest = rows == 0 ? id : std::max(highest, id);
    ++rows;
    if (std::find(ids.begin(), ids.end(), id) != ids.end() && !found.count(id)) found.emplace(id, row.record);
  }
  for (const int64_t id : ids)
    if (!found.count(id))
      throw_error("--gantt %s: %s has no request %lld (%lld requests, ids %lld to %lld)", ids_text.c_str(),
                  path.c_str(), static_cast<long long>(id), static_cast<long long>(rows),
                  static_cast<long long>(lowest), static_cast<long long>(highest));
  nlohmann::json requests = nlohmann::json::array();
  std::string stem = "gantt";
  for (const int64_t id : ids) {
    const RequestRecord& r = found.at(id);
    const RequestSpans spans = request_spans(r);
    nlohmann::json j = {{"id", r.id},
                        {"arrival_s", r.arrival_s},
                        {"input_tokens", r.input_tokens},
                        {"output_tokens", r.output_tokens},
                        {"prefill_instance", r.prefill_instance},
                        {"decode_instance", r.decode_instance},
                        {"spec_tokens", r.spec_tokens},
                        {"accepted_tokens", r.accepted_tokens},
                        {"spans", nlohmann::json::array()},
                        {"marks", nlohmann::json::array()}};
    for (const RequestSpan& s : spans.spans)
      j["spans"].push_back({{"track", span_track_name(s.track)},
                            {"name", s.name},
                            {"start_s", finite_or_null(s.start_s)},
                            {"end_s", finite_or_null(s.end_s)}});
    for (const RequestMark& m : spans.marks)
      j["marks"].push_back({{"name", m.name}, {"at_s", finite_or_null(m.at_s)}});
    requests.push_back(j);
    stem += "_" + std::to_string(id);
  }
  nlohmann::json meanings = nlohmann::json::array();
  for (const SpanMeaning& m : request_span_meanings()) meanings.push_back({{"name", m.name}, {"meaning", m.meaning}});
  return {{"run", run_dir}, {"requests", requests}, {"meanings", meanings},   {"out_dir", out_dir},
          {"stem", stem},   {"data", data_file},    {"source", path}};
}

}  // namespace lynx
