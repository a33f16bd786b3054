#include "traces/workload_spec.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "common/error.hpp"

namespace lynx {

namespace {
// A trace path field: resolved, and checked to open now so that the error can name the JSON path.
std::string trace_path_field(JsonObject& o, const std::string& key, const std::string& base_dir) {
  std::string path = o.input_path(key, base_dir);
  std::ifstream probe(path, std::ios::binary);
  if (!probe || std::filesystem::is_directory(path))
    throw_error("%s: %s: cannot open trace file \"%s\"", o.origin().c_str(), o.path_of(key).c_str(), path.c_str());
  return path;
}

void read_options_from_json(JsonObject& o, TraceReadOptions& read) {
  read.format = trace_format_parse(o.choice_or("format", trace_format_names(), "auto"));
  read.skip_bad_rows = o.boolean_or("skip_bad_rows", false);
  read.keep_failed = o.boolean_or("keep_failed", false);
  bool generic = read.format == TraceFormat::csv || read.format == TraceFormat::jsonl;
  if (o.has("columns")) {
    if (!generic) o.fail("columns", "no columns: they apply to the \"csv\" and \"jsonl\" formats only");
    JsonObject c = o.object("columns");
    read.columns.arrival = c.string("arrival");
    read.columns.input_tokens = c.string("input_tokens");
    read.columns.output_tokens = c.string("output_tokens");
    if (c.has("prefix_hashes")) {
      if (read.format != TraceFormat::jsonl) c.fail("prefix_hashes", "no prefix_hashes: only jsonl holds them");
      read.columns.prefix_hashes = c.string("prefix_hashes");
    }
    read.columns.time_unit = time_unit_parse(c.choice_or("time_unit", {"s", "ms", "us", "ns", "datetime"}, "s"));
    read.columns.rebase_to_first_row = c.boolean_or("rebase_to_first_row", false);
    c.finish();
  } else if (generic) {
    o.fail("columns", "an object naming the columns: {\"arrival\": ..., \"input_tokens\": ..., \"output_tokens\": ...}");
  }
}

// The numeric fields, each declared once (common/json_reader.hpp). Bounds: 10 million tokens is 76x the longest
// context in the model catalog; 1e8 requests is a week at 165 requests/s; a CV in [0.01, 100] keeps the gamma
// sampler exact and finite (shape 1/CV^2 in [1e-4, 1e4]); production traces show CVs of 1 to 13 (Azure code).
constexpr int64_t kMaxTokens = 10'000'000;
constexpr IntegerField kFixedTokens{"fixed", "tokens", 0, 1, kMaxTokens, "every request's length", true};
constexpr NumberField kRatePerS{"rate_per_s", "requests/s", NAN, 0, 1e6, true, "mean arrival rate"};
constexpr NumberField kCv{"cv", "", NAN, 0.01, 100, false, "gamma arrivals: coefficient of variation of the gaps"};
constexpr IntegerField kCount{"count", "requests", 0, 1, 100'000'000, "requests to generate", true};
constexpr IntegerField kFirstN{"first_n", "requests", 0, 1, INT64_MAX, "keep the first N requests"};
constexpr NumberField kSpreadStepS{"spread_step_s", "s", 0, 0, 86400, true,
                                   "spread requests sharing a timestamp over this step"};
constexpr NumberField kTimeScale{"time_scale", "", 1, 0, 1e6, true, "multiply arrival times (0.5: twice as fast)"};
constexpr NumberField kTargetRate{"target_rate_per_s", "requests/s", 0, 0, 1e6, true,
                                  "rescale arrival times to this mean rate"};
constexpr NumberField kWindowBound{"time_window_s", "s", 0, 0, 1e9, false, "[begin, end) of the arrivals kept"};
constexpr IntegerField kPrefixBlockTokens{"prefix_block_tokens", "tokens", kMooncakeBlockTokens, 1, 1 << 20,
                                          "tokens per prefix block of the trace's hash ids"};

LengthSpec length_from_json(JsonObject& o, const std::string& base_dir) {
  LengthSpec l;
  int kinds = o.has("fixed") + o.has("uniform") + o.has("empirical");
  if (kinds != 1)
    throw_error("%s: %s: expected one of {\"fixed\": tokens}, {\"uniform\": [low, high]}, {\"empirical\": \"trace "
                "path\"}",
                o.origin().c_str(), o.path().c_str());
  if (o.has("fixed")) {
    l.kind = LengthSpec::Kind::fixed;
    l.fixed_tokens = o.get(kFixedTokens);
  } else if (o.has("uniform")) {
    l.kind = LengthSpec::Kind::uniform;
    const nlohmann::json& a = o.array("uniform");
    if (a.size() != 2 || !a[0].is_number_integer() || !a[1].is_number_integer() || a[0].get<int64_t>() < 1 ||
        a[1].get<int64_t>() < a[0].get<int64_t>() || a[1].get<int64_t>() > kMaxTokens)
      o.fail("uniform", "[low, high]: integers with 1 <= low <= high <= " + std::to_string(kMaxTokens));
    l.low_tokens = a[0].get<int64_t>();
    l.high_tokens = a[1].get<int64_t>();
  } else {
    l.kind = LengthSpec::Kind::empirical;
    l.trace_path = trace_path_field(o, "empirical", base_dir);
    read_options_from_json(o, l.trace_options);
  }
  o.finish();
  return l;
}

SyntheticSpec synthetic_from_json(JsonObject& o, const std::string& base_dir) {
  SyntheticSpec s;
  s.arrival = o.choice_or("arrival", {"poisson", "gamma"}, "poisson") == "gamma" ? ArrivalProcess::gamma
                                                                                 : ArrivalProcess::poisson;
  s.rate_per_s = o.get(kRatePerS);
  if (s.arrival == ArrivalProcess::gamma) s.cv = o.get(kCv);
  else if (o.has("cv")) o.fail("cv", "no cv for poisson arrivals (their CV is 1; use \"arrival\": \"gamma\")");
  s.count = o.get(kCount);
  JsonObject input = o.object("input_tokens");
  s.input_tokens = length_from_json(input, base_dir);
  JsonObject output = o.object("output_tokens");
  s.output_tokens = length_from_json(output, base_dir);
  o.finish();
  return s;
}

void transforms_from_json(JsonObject& o, TraceTransforms& t) {
  if (o.has("time_window_s")) {
    const nlohmann::json& w = o.array("time_window_s");
    if (w.size() != 2 || !w[0].is_number() || !w[1].is_number() || !(w[0].get<double>() >= 0) ||
        !(w[1].get<double>() > w[0].get<double>()) || !(w[1].get<double>() <= kWindowBound.max))
      o.fail("time_window_s", "[begin_s, end_s] with 0 <= begin_s < end_s <= 1e9");
    t.has_time_window = true;
    t.window_begin_s = w[0].get<double>();
    t.window_end_s = w[1].get<double>();
  }
  t.first_n = o.get(kFirstN);
  t.spread_same_timestamp = o.boolean_or("spread_same_timestamp", false);
  if (o.has("spread_step_s")) {
    if (!t.spread_same_timestamp) o.fail("spread_step_s", "no spread_step_s without \"spread_same_timestamp\": true");
    t.spread_step_s = o.get(kSpreadStepS);
  }
  t.time_scale = o.get(kTimeScale);
  if (o.has("target_rate_per_s")) {
    if (o.has("time_scale")) o.fail("target_rate_per_s", "either time_scale or target_rate_per_s, not both");
    t.target_rate_per_s = o.get(kTargetRate);
  }
}
}  // namespace

WorkloadSpec workload_spec_from_json(JsonObject& workload, const std::string& base_dir) {
  WorkloadSpec spec;
  spec.origin = workload.origin() + ": " + workload.path();
  if (workload.has("trace") == workload.has("synthetic"))
    throw_error("%s: %s: expected either \"trace\": \"path\" or \"synthetic\": {...} (exactly one)",
                workload.origin().c_str(), workload.path().c_str());
  if (workload.has("trace")) {
    spec.trace_path = trace_path_field(workload, "trace", base_dir);
    read_options_from_json(workload, spec.read);
  } else {
    spec.synthetic = true;
    JsonObject synthetic = workload.object("synthetic");
    spec.synthetic_spec = synthetic_from_json(synthetic, base_dir);
  }
  transforms_from_json(workload, spec.transforms);
  spec.prefix_block_tokens_given = workload.has("prefix_block_tokens");
  spec.prefix_block_tokens = workload.get(kPrefixBlockTokens);
  spec.over_context = workload.choice_or("over_context", {"error", "skip", "truncate"}, "error");
  workload.finish();
  return spec;
}

WorkloadBuild workload_build_report(const WorkloadSpec& spec, uint64_t seed) {
  WorkloadBuild build;
  RequestSelector selector(spec.transforms);
  std::string source;
  if (spec.synthetic) {
    source = "the synthetic workload";
    for (Request& r : synthetic_generate(spec.synthetic_spec, seed)) {
      RequestSelector::Verdict v = selector.offer(r);
      if (v == RequestSelector::Verdict::stop) break;
      if (v == RequestSelector::Verdict::keep) build.requests.push_back(std::move(r));
    }
  } else {
    source = spec.trace_path;
    build.read = trace_read_each(spec.trace_path, spec.read, [&](Request&& r) {
      RequestSelector::Verdict v = selector.offer(r);
      if (v == RequestSelector::Verdict::stop) return false;
      if (v == RequestSelector::Verdict::keep) build.requests.push_back(std::move(r));
      return !selector.done();
    });
  }
  if (build.requests.empty())
    throw_error("%s: the workload is empty: the time window [%g, %g) s holds no request of %s",
                spec.origin.empty() ? "workload" : spec.origin.c_str(), spec.transforms.window_begin_s,
                spec.transforms.window_end_s, source.c_str());
  transforms_finish(build.requests, spec.transforms, seed);
  return build;
}

std::vector<Request> workload_build(const WorkloadSpec& spec, uint64_t seed) {
  WorkloadBuild build = workload_build_report(spec, seed);
  const TraceReadReport& r = build.read;
  if (r.bad_rows_skipped > 0)
    std::fprintf(stderr, "lynxsim: note: %s: skipped %lld bad rows of %lld (first: %s)\n", r.path.c_str(),
                 static_cast<long long>(r.bad_rows_skipped), static_cast<long long>(r.rows),
                 r.first_bad_rows.front().c_str());
  if (r.failed_rows > 0 && !r.failed_kept)
    std::fprintf(stderr, "lynxsim: note: %s: dropped %lld failed requests (0 output tokens; keep_failed keeps them)\n",
                 r.path.c_str(), static_cast<long long>(r.failed_rows));
  return std::move(build.requests);
}

}  // namespace lynx
