#include "traces/aiperf_export.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/sha256.hpp"

namespace lynx {

namespace {
constexpr const char* kAggregateName = "profile_export_aiperf.json";
constexpr const char* kAggregateSuffix = "_aiperf.json";

bool is_object_with(const nlohmann::json& o, const char* a, const char* b) {
  return o.is_object() && o.contains(a) && o[a].is_object() && o.contains(b) && o[b].is_object();
}

bool one_of(const std::string& s, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (s == n) return true;
  return false;
}

// The aggregate's metrics, each checked: its "avg" (or another statistic) a finite number >= 0 in one of `units`.
class Aggregate {
 public:
  Aggregate(const nlohmann::json& o, const std::string& path) : o_(o), path_(path) {}
  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw_error("%s: $.%s: %s", path_.c_str(), key.c_str(), what.c_str());
  }
  // NAN when the metric or the statistic is absent (or null, as AIPerf writes a statistic it had no sample for).
  double get(const std::string& metric, const char* stat, std::initializer_list<const char*> units) const {
    const auto it = o_.find(metric);
    if (it == o_.end() || it->is_null()) return NAN;
    if (!it->is_object()) fail(metric, "expected a metric object {\"unit\": ..., \"avg\": ...}");
    const auto s = it->find(stat);
    if (s == it->end() || s->is_null()) return NAN;
    const std::string key = metric + "." + stat;
    if (!s->is_number() || !std::isfinite(s->get<double>()) || s->get<double>() < 0)
      fail(key, "expected a finite number >= 0");
    const auto u = it->find("unit");
    const std::string unit = u != it->end() && u->is_string() ? u->get<std::string>() : "";
    if (!one_of(unit, units)) {
      std::string expected;
      for (const char* x : units) expected += std::string(expected.empty() ? "" : " or ") + "\"" + x + "\"";
      fail(metric + ".unit", "\"" + unit + "\": expected " + expected);
    }
    return s->get<double>();
  }
  double required(const std::string& metric, std::initializer_list<const char*> units, const std::string& why) const {
    const double v = get(metric, "avg", units);
    if (std::isnan(v)) fail(metric, "missing: " + why);
    return v;
  }

 private:
  const nlohmann::json& o_;
  std::string path_;
};

// The per-request records beside an aggregate: profile_export_aiperf.json -> profile_export.jsonl ("" : none).
std::string records_path_of(const std::string& aggregate) {
  const std::string name = std::filesystem::path(aggregate).filename().string();
  if (name.size() <= std::string(kAggregateSuffix).size() ||
      name.compare(name.size() - std::string(kAggregateSuffix).size(), std::string::npos, kAggregateSuffix) != 0)
    return "";
  const std::string stem = name.substr(0, name.size() - std::string(kAggregateSuffix).size());
  const std::filesystem::path records = std::filesystem::path(aggregate).parent_path() / (stem + ".jsonl");
  return std::filesystem::is_regular_file(records) ? records.string() : "";
}

// One record's metric value (NAN when absent), checked.
double record_value(const nlohmann::json& metrics, const char* name, const char* unit, const std::string& where) {
  const auto it = metrics.find(name);
  if (it == metrics.end() || it->is_null()) return NAN;
  const std::string key = std::string("$.metrics.") + name;
  if (!it->is_object() || !it->contains("value"))
    throw_error("%s: %s: expected {\"value\": ..., \"unit\": ...}", where.c_str(), key.c_str());
  const nlohmann::json& v = (*it)["value"];
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
    throw_error("%s: %s.value: expected a finite number >= 0", where.c_str(), key.c_str());
  const auto u = it->find("unit");
  if (u != it->end() && u->is_string() && u->get<std::string>() != unit)
    throw_error("%s: %s.unit: \"%s\": expected \"%s\"", where.c_str(), key.c_str(), u->get<std::string>().c_str(),
                unit);
  return v.get<double>();
}

// The successful profiling-phase records, into the run's per-request rows.
void read_records(const std::string& path, ServingBenchRun& run) {
  const std::string text = read_file(path);
  std::istringstream in(text);
  std::string line;
  int64_t number = 0;
  std::vector<int64_t> start_ns;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = path + ":" + std::to_string(number);
    const nlohmann::json r = nlohmann::json::parse(line, nullptr, false);
    if (r.is_discarded() || !aiperf_is_record(r))
      throw_error("%s: expected an AIPerf record (a JSON object with \"metadata\" and \"metrics\")", where.c_str());
    const nlohmann::json& meta = r["metadata"];
    if (const auto phase = meta.find("benchmark_phase"); phase != meta.end() && phase->is_string() &&
                                                         phase->get<std::string>() != "profiling")
      continue;  // warmup requests are outside the aggregate
    if (const auto e = r.find("error"); e != r.end() && !e->is_null()) continue;  // failed: outside the counts too
    const nlohmann::json& m = r["metrics"];
    const double isl = record_value(m, "input_sequence_length", "tokens", where);
    const double osl = record_value(m, "output_sequence_length", "tokens", where);
    const double ttft = record_value(m, "time_to_first_token", "ms", where);
    if (std::isnan(isl) || std::isnan(osl))
      throw_error("%s: $.metrics: a successful record without input_sequence_length and output_sequence_length",
                  where.c_str());
    if (std::isnan(ttft))
      throw_error("%s: $.metrics.time_to_first_token: missing (calibrate needs a streaming run, aiperf --streaming)",
                  where.c_str());
    run.input_lens.push_back(std::llround(isl));
    run.output_lens.push_back(std::llround(osl));
    run.ttfts_ms.push_back(ttft);
    const char* start_key = meta.contains("request_start_ns") ? "request_start_ns" : "timestamp_ns";
    const auto s = meta.find(start_key);
    if (s != meta.end() && s->is_number_integer()) start_ns.push_back(s->get<int64_t>());
  }
  if (run.input_lens.empty()) throw_error("%s: no successful profiling record", path.c_str());
  if (start_ns.size() == run.input_lens.size()) {
    const int64_t first = *std::min_element(start_ns.begin(), start_ns.end());
    for (int64_t ns : start_ns) run.send_s.push_back(static_cast<double>(ns - first) * 1e-9);
  }
  run.rows_file = path;
  run.rows_sha256 = sha256_hex(text);
}
}  // namespace

bool aiperf_is_aggregate(const nlohmann::json& o) { return is_object_with(o, "benchmark_duration", "request_count"); }
bool aiperf_is_record(const nlohmann::json& o) { return is_object_with(o, "metadata", "metrics"); }

ServingBenchRun aiperf_read(const std::string& given) {
  std::string path = given;
  if (std::filesystem::is_directory(given)) {
    path = (std::filesystem::path(given) / kAggregateName).string();
    if (!std::filesystem::is_regular_file(path))
      throw_error("%s: a folder without %s (an AIPerf artifact folder holds it)", given.c_str(), kAggregateName);
  }
  const std::string text = read_file(path);
  const nlohmann::json o = nlohmann::json::parse(text, nullptr, false);
  if (o.is_discarded() || !aiperf_is_aggregate(o))
    throw_error("%s: not an AIPerf aggregate export (a JSON object with \"benchmark_duration\" and \"request_count\")",
                path.c_str());
  const Aggregate a(o, path);
  ServingBenchRun run;
  run.file = path;
  run.line = 1;
  run.sha256 = sha256_hex(text);
  const std::string every = "every replay needs request_count, benchmark_duration, total_isl, total_osl and "
                            "time_to_first_token (a streaming run)";
  const double requests = a.required("request_count", {"requests"}, every);
  if (requests != std::floor(requests)) a.fail("request_count.avg", "expected a whole number of requests");
  run.fields["Successful requests"] = requests;
  run.fields["Benchmark duration (s)"] = a.required("benchmark_duration", {"sec", "s", "seconds"}, every);
  run.fields["Total input tokens"] = a.required("total_isl", {"tokens"}, every);
  const double osl = !std::isnan(a.get("total_osl", "avg", {"tokens"})) ? a.get("total_osl", "avg", {"tokens"})
                                                                         : a.get("total_output_tokens", "avg", {"tokens"});
  if (std::isnan(osl)) a.fail("total_osl", "missing: " + every);
  run.fields["Total generated tokens"] = osl;
  run.fields["Mean TTFT (ms)"] = a.required("time_to_first_token", {"ms"}, every);
  const std::pair<const char*, const char*> optional[] = {{"p50", "Median TTFT (ms)"}, {"p99", "P99 TTFT (ms)"}};
  for (const auto& [stat, name] : optional)
    if (const double v = a.get("time_to_first_token", stat, {"ms"}); !std::isnan(v)) run.fields[name] = v;
  const std::pair<const char*, const char*> tpot[] = {
      {"avg", "Mean TPOT (ms)"}, {"p50", "Median TPOT (ms)"}, {"p99", "P99 TPOT (ms)"}};
  for (const auto& [stat, name] : tpot)
    if (const double v = a.get("inter_token_latency", stat, {"ms"}); !std::isnan(v)) run.fields[name] = v;
  if (const double v = a.get("request_latency", "avg", {"ms"}); !std::isnan(v)) run.fields["Mean E2EL (ms)"] = v;
  if (run.requests() < 1) a.fail("request_count.avg", "no successful request");

  // How the client sent them: input_config.loadgen (AIPerf writes the settings the user gave).
  const nlohmann::json* loadgen = nullptr;
  if (const auto ic = o.find("input_config"); ic != o.end() && ic->is_object())
    if (const auto lg = ic->find("loadgen"); lg != ic->end() && lg->is_object()) loadgen = &*lg;
  if (loadgen != nullptr) {
    if (const auto c = loadgen->find("concurrency"); c != loadgen->end() && !c->is_null()) {
      if (!c->is_number_integer() || c->get<int64_t>() < 1)
        a.fail("input_config.loadgen.concurrency", "expected a whole number of requests in flight >= 1");
      run.fields["Maximum request concurrency"] = static_cast<double>(c->get<int64_t>());
    }
    if (const auto r = loadgen->find("request_rate"); r != loadgen->end() && !r->is_null()) {
      if (!r->is_number() || !(r->get<double>() > 0) || !std::isfinite(r->get<double>()))
        a.fail("input_config.loadgen.request_rate", "expected requests/s > 0");
      run.request_rate = r->get<double>();
    }
  }
  if (run.fields.count("Maximum request concurrency") == 0 && std::isinf(run.request_rate))
    a.fail("input_config.loadgen", "neither concurrency nor request_rate: how the client sent the requests is not in "
                                   "the file (AIPerf writes the load settings given on its command line there)");

  const std::string records = records_path_of(path);
  if (records.empty()) return run;
  read_records(records, run);
  // The records must agree with the aggregate.
  if (const std::optional<RowsDisagreement> d = serving_rows_disagreement(run))
    throw_error("%s: %s (the totals: %s)", records.c_str(), d->text.c_str(), path.c_str());
  return run;
}

}  // namespace lynx
