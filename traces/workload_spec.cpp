#include "common/atomic_file.hpp"
#include "traces/workload_spec.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "common/error.hpp"

namespace lynx {

namespace {
// Every field, declared once (common/json_schema.hpp); the sections below list them for the reader and the
// reference. Bounds: 10 million tokens is 76x the longest context in the model catalog; 1e8 requests is a week at
// 165 requests/s; a CV in [0.01, 100] keeps the gamma sampler exact and finite (shape 1/CV^2 in [1e-4, 1e4]);
// production traces show CVs of 1 to 13 (Azure code).
constexpr int64_t kMaxTokens = 10'000'000;

// Trace reading options (a trace workload, or an empirical length).
constexpr StringField kColArrival{"arrival", nullptr, "a column name", "arrival time column", true};
constexpr StringField kColInput{"input_tokens", nullptr, "a column name", "prompt length column", true};
constexpr StringField kColOutput{"output_tokens", nullptr, "a column name", "output length column", true};
constexpr StringField kColHashes{"prefix_hashes", nullptr, "a member name",
                                 "jsonl only: member holding the prompt's prefix block ids (optional)"};
constexpr ChoiceField kColTimeUnit{"time_unit", kTimeUnitNames.name(TimeUnit::s), kTimeUnitNames.choices(),
                                   "unit of the arrival column (datetime: absolute date-time, seconds from the first row)"};
constexpr BoolField kColRebase{"rebase_to_first_row", false, "shift arrivals so that the first row arrives at 0"};
constexpr SchemaField kColumnsFields[] = {{kColArrival, ExampleUse::shown, "\"t\""},
                                          {kColInput, ExampleUse::shown, "\"in\""},
                                          {kColOutput, ExampleUse::shown, "\"out\""},
                                          {kColHashes, ExampleUse::commented, "\"hash_ids\""},
                                          {kColTimeUnit},
                                          {kColRebase}};
constexpr SchemaSection kColumnsSection =
    schema_section("Trace columns", "The columns (CSV) or members (JSONL) of a generic trace.", kColumnsFields);

constexpr ChoiceField kTraceFormat{"format", kTraceFormatNames.name(TraceFormat::auto_detect), kTraceFormatNames.choices(),
                                   "trace only: the trace's format (auto: detected from its first line)"};
constexpr BoolField kSkipBadRows{"skip_bad_rows", false, "trace only: skip and count malformed rows instead of stopping"};
constexpr BoolField kKeepFailed{"keep_failed", false, "trace only: keep rows with 0 output tokens (failed requests)"};
constexpr ObjectField kColumns{"columns", &kColumnsSection,
                               "trace only, and required there with format csv or jsonl: the columns to read", false,
                               false};

// Lengths of a synthetic workload.
constexpr IntegerField kFixedTokens{"fixed", "tokens", 0, 1, kMaxTokens,
                                    "every request's length (one of fixed, uniform, empirical)"};
constexpr NumberField kRangeRatio{"range_ratio", "fraction", 0, 0, 1, false,
                                  "with fixed only: lengths uniform in [floor(L (1 - r)), ceil(L (1 + r))], as `vllm "
                                  "bench serve --random-range-ratio r` draws them (0: exactly L)"};
constexpr ArrayField kUniformTokens{"uniform", "[low, high]: integers with 1 <= low <= high <= 10000000",
                                    "lengths drawn uniformly from [low, high] tokens"};
constexpr PathField kEmpiricalTrace{"empirical", "none",
                                    "lengths drawn from the rows of this trace (input and output from one trace are "
                                    "drawn as pairs)"};
constexpr SchemaField kLengthFields[] = {
    {kFixedTokens, ExampleUse::shown, "128"},
    {kRangeRatio, ExampleUse::commented, "0.1"},
    {kUniformTokens, ExampleUse::commented, "[16, 512]"},
    {kEmpiricalTrace, ExampleUse::commented, "\"@data/traces/azure-llm-2023/AzureLLMInferenceTrace_code.csv\""},
    {kTraceFormat, ExampleUse::commented},
    {kSkipBadRows, ExampleUse::commented},
    {kKeepFailed, ExampleUse::commented},
    {kColumns, ExampleUse::commented}};
constexpr SchemaSection kLengthSection = schema_section(
    "Synthetic lengths", "Exactly one of fixed, uniform or empirical; the trace options apply to empirical only.",
    kLengthFields);

// A synthetic workload.
constexpr ChoiceField kArrival{"arrival", kArrivalProcessNames.name(ArrivalProcess::poisson), kArrivalProcessNames.choices(),
                              "arrival process"};
constexpr NumberField kRatePerS{"rate_per_s", "requests/s", NAN, 0, 1e6, true,
                                "mean arrival rate (required; none with at-once: every request at time 0)"};
constexpr NumberField kCv{"cv", "", NAN, 0.01, 100, false,
                          "gamma arrivals only, required there: coefficient of variation of the gaps"};
constexpr IntegerField kCount{"count", "requests", 0, 1, 100'000'000, "requests to generate", true};
constexpr ObjectField kInputTokens{"input_tokens", &kLengthSection, "prompt lengths", true};
constexpr ObjectField kOutputTokens{"output_tokens", &kLengthSection, "output lengths", true};
constexpr SchemaField kSyntheticFields[] = {{kArrival},
                                            {kRatePerS, ExampleUse::shown, "4"},
                                            {kCv, ExampleUse::commented, "3"},
                                            {kCount, ExampleUse::shown, "200"},
                                            {kInputTokens},
                                            {kOutputTokens}};
constexpr SchemaSection kSyntheticSection =
    schema_section("Synthetic workload", "Requests generated from a seeded arrival process and length distributions.",
                   kSyntheticFields);

// The workload and its transforms, applied in this order: time window, first N, spreading, time scale or rate.
constexpr PathField kTrace{"trace", "none (then synthetic)", "the trace to replay (exactly one of trace, synthetic)"};
constexpr ObjectField kSynthetic{"synthetic", &kSyntheticSection,
                                 "a synthetic workload (exactly one of trace, synthetic)", false, false};
constexpr ArrayField kTimeWindow{"time_window_s", "[begin_s, end_s] with 0 <= begin_s < end_s <= 1e9",
                                 "keep arrivals in [begin, end) s, shifted to start at 0"};
constexpr double kWindowMaxS = 1e9;
constexpr IntegerField kFirstN{"first_n", "requests", 0, 1, INT64_MAX, "keep the first N requests (default: all)"};
constexpr BoolField kSpread{"spread_same_timestamp", false,
                            "spread requests sharing a timestamp uniformly over the timestamp step, seeded"};
constexpr NumberField kSpreadStepS{"spread_step_s", "s", 0, 0, 86400, true,
                                   "with spread_same_timestamp only: the step (default: inferred from the trace)"};
constexpr NumberField kTimeScale{"time_scale", "", 1, 0, 1e6, true, "multiply arrival times (0.5: twice as fast)"};
constexpr NumberField kTargetRate{"target_rate_per_s", "requests/s", 0, 0, 1e6, true,
                                  "rescale arrival times to this mean rate (not with time_scale)"};
constexpr IntegerField kPrefixBlockTokens{"prefix_block_tokens", "tokens", kMooncakeBlockTokens, 1, 1 << 20,
                                          "with cluster.prefill.prefix_cache only: tokens per prefix block of the "
                                          "trace's hash ids"};
constexpr IntegerField kMaxConcurrency{"max_concurrency", "requests", 0, 1, 1 << 24,
                                      "a closed loop of this many clients, as `vllm bench serve --max-concurrency`: at "
                                      "most this many requests in flight; a request waits for a client, and a "
                                      "finished request's client sends the next at once (default: none, each "
                                      "request at its arrival)"};
constexpr ChoiceField kOverContext{"over_context", kOverContextNames.name(OverContextPolicy::error), kOverContextNames.choices(),
                                   "a request longer than the model's context: an error, or skip it, or truncate "
                                   "its prompt to its last tokens (the summary counts both; truncate never cuts an "
                                   "output: a request whose output alone fills the context is an error)"};
constexpr SchemaField kWorkloadFields[] = {
    {kTrace, ExampleUse::commented, "\"@data/traces/mooncake/conversation_trace.jsonl\""},
    {kSynthetic},
    {kTraceFormat, ExampleUse::commented},
    {kSkipBadRows, ExampleUse::commented},
    {kKeepFailed, ExampleUse::commented},
    {kColumns, ExampleUse::commented},
    {kTimeWindow, ExampleUse::commented, "[0, 600]"},
    {kFirstN, ExampleUse::commented, "1000"},
    {kSpread},
    {kSpreadStepS, ExampleUse::commented, "3"},
    {kTimeScale},
    {kTargetRate, ExampleUse::commented, "4"},
    {kPrefixBlockTokens, ExampleUse::commented},
    {kMaxConcurrency, ExampleUse::commented, "4"},
    {kOverContext}};

// A trace path field: resolved, and checked to open now so that the error can name the JSON path.
std::string trace_path_field(JsonObject& o, const PathField& field, const std::string& base_dir) {
  std::string path = o.get(field, base_dir);
  try {
    std::fclose(open_input_file(path));  // a regular file only (common/atomic_file.hpp)
  } catch (const LynxError& e) {
    const std::string why = e.what(), named = path + ": ";  // the reason, without the path named again
    throw_error("%s: %s: cannot open trace file \"%s\": %s", o.origin().c_str(), o.path_of(field.key).c_str(),
                path.c_str(), why.compare(0, named.size(), named) == 0 ? why.c_str() + named.size() : why.c_str());
  }
  return path;
}

void read_options_from_json(JsonObject& o, TraceReadOptions& read) {
  read.format = o.get_enum<TraceFormat>(kTraceFormat);
  read.skip_bad_rows = o.get(kSkipBadRows);
  read.keep_failed = o.get(kKeepFailed);
  bool generic = read.format == TraceFormat::csv || read.format == TraceFormat::jsonl;
  if (o.has(kColumns.key)) {
    if (!generic) o.fail(kColumns.key, "no columns: they apply to the \"csv\" and \"jsonl\" formats only");
    JsonObject c = o.get(kColumns);
    read.columns.arrival = c.get(kColArrival);
    read.columns.input_tokens = c.get(kColInput);
    read.columns.output_tokens = c.get(kColOutput);
    if (c.has(kColHashes.key)) {
      if (read.format != TraceFormat::jsonl) c.fail(kColHashes.key, "no prefix_hashes: only jsonl holds them");
      read.columns.prefix_hashes = c.get(kColHashes);
    }
    read.columns.time_unit = c.get_enum<TimeUnit>(kColTimeUnit);
    read.columns.rebase_to_first_row = c.get(kColRebase);
    c.finish();
  } else if (generic) {
    o.fail(kColumns.key,
           "an object naming the columns: {\"arrival\": ..., \"input_tokens\": ..., \"output_tokens\": ...}");
  }
}

// Trace options where no trace is read: an error naming the field rather than "unknown field".
void refuse_read_options(JsonObject& o, const char* where) {
  for (const char* key : {kTraceFormat.key, kSkipBadRows.key, kKeepFailed.key, kColumns.key})
    if (o.has(key)) o.fail(key, std::string("no ") + key + " " + where + " (it applies to a trace)");
}

LengthSpec length_from_json(JsonObject& o, const std::string& base_dir) {
  LengthSpec l;
  int kinds = o.has(kFixedTokens.key) + o.has(kUniformTokens.key) + o.has(kEmpiricalTrace.key);
  if (kinds != 1)
    throw_error("%s: %s: expected one of {\"fixed\": tokens}, {\"uniform\": [low, high]}, {\"empirical\": \"trace "
                "path\"}",
                o.origin().c_str(), o.path().c_str());
  if (o.has(kFixedTokens.key)) {
    l.kind = LengthSpec::Kind::fixed;
    l.fixed_tokens = o.get(kFixedTokens);
    l.range_ratio = o.get(kRangeRatio);
    refuse_read_options(o, "for fixed lengths");
  } else if (o.has(kUniformTokens.key)) {
    if (o.has(kRangeRatio.key)) o.fail(kRangeRatio.key, "no range_ratio without \"fixed\" (it spreads a fixed length)");
    l.kind = LengthSpec::Kind::uniform;
    const nlohmann::json& a = o.get(kUniformTokens);
    if (a.size() != 2 || !a[0].is_number_integer() || !a[1].is_number_integer() || a[0].get<int64_t>() < 1 ||
        a[1].get<int64_t>() < a[0].get<int64_t>() || a[1].get<int64_t>() > kMaxTokens)
      o.fail(kUniformTokens.key, kUniformTokens.form);
    l.low_tokens = a[0].get<int64_t>();
    l.high_tokens = a[1].get<int64_t>();
    refuse_read_options(o, "for uniform lengths");
  } else {
    if (o.has(kRangeRatio.key)) o.fail(kRangeRatio.key, "no range_ratio without \"fixed\" (it spreads a fixed length)");
    l.kind = LengthSpec::Kind::empirical;
    l.trace_path = trace_path_field(o, kEmpiricalTrace, base_dir);
    read_options_from_json(o, l.trace_options);
  }
  o.finish();
  return l;
}

SyntheticSpec synthetic_from_json(JsonObject& o, const std::string& base_dir) {
  SyntheticSpec s;
  s.arrival = o.get_enum<ArrivalProcess>(kArrival);
  if (s.arrival == ArrivalProcess::at_once) {
    if (o.has(kRatePerS.key)) o.fail(kRatePerS.key, "no rate_per_s with \"arrival\": \"at-once\" (every request at time 0)");
    s.rate_per_s = 1;
  } else {
    s.rate_per_s = o.get(kRatePerS);
  }
  if (s.arrival == ArrivalProcess::gamma) s.cv = o.get(kCv);
  else if (o.has(kCv.key)) o.fail(kCv.key, "no cv for poisson arrivals (their CV is 1; use \"arrival\": \"gamma\")");
  s.count = o.get(kCount);
  JsonObject input = o.get(kInputTokens);
  s.input_tokens = length_from_json(input, base_dir);
  JsonObject output = o.get(kOutputTokens);
  s.output_tokens = length_from_json(output, base_dir);
  o.finish();
  return s;
}

void transforms_from_json(JsonObject& o, TraceTransforms& t) {
  if (o.has(kTimeWindow.key)) {
    const nlohmann::json& w = o.get(kTimeWindow);
    if (w.size() != 2 || !w[0].is_number() || !w[1].is_number() || !(w[0].get<double>() >= 0) ||
        !(w[1].get<double>() > w[0].get<double>()) || !(w[1].get<double>() <= kWindowMaxS))
      o.fail(kTimeWindow.key, kTimeWindow.form);
    t.has_time_window = true;
    t.window_begin_s = w[0].get<double>();
    t.window_end_s = w[1].get<double>();
  }
  t.first_n = o.get(kFirstN);
  t.spread_same_timestamp = o.get(kSpread);
  if (o.has(kSpreadStepS.key)) {
    if (!t.spread_same_timestamp) o.fail(kSpreadStepS.key, "no spread_step_s without \"spread_same_timestamp\": true");
    t.spread_step_s = o.get(kSpreadStepS);
  }
  t.time_scale = o.get(kTimeScale);
  if (o.has(kTargetRate.key)) {
    if (o.has(kTimeScale.key)) o.fail(kTargetRate.key, "either time_scale or target_rate_per_s, not both");
    t.target_rate_per_s = o.get(kTargetRate);
  }
}
}  // namespace

const char* over_context_name(OverContextPolicy policy) { return kOverContextNames.name(policy); }

extern constexpr SchemaSection kWorkloadSection = schema_section(
    "Workload",
    "A trace (read, then transformed) or a synthetic workload; the transforms apply to both, in this order: "
    "time_window_s, first_n, spread_same_timestamp, then time_scale or target_rate_per_s.",
    kWorkloadFields);

WorkloadSpec workload_spec_from_json(JsonObject& workload, const std::string& base_dir) {
  workload.bind(kWorkloadSection);
  WorkloadSpec spec;
  spec.origin = workload.origin() + ": " + workload.path();
  if (workload.has(kTrace.key) == workload.has(kSynthetic.key))
    throw_error("%s: %s: expected either \"trace\": \"path\" or \"synthetic\": {...} (exactly one)",
                workload.origin().c_str(), workload.path().c_str());
  if (workload.has(kTrace.key)) {
    spec.trace_path = trace_path_field(workload, kTrace, base_dir);
    read_options_from_json(workload, spec.read);
  } else {
    spec.synthetic = true;
    refuse_read_options(workload, "for a synthetic workload");
    JsonObject synthetic = workload.get(kSynthetic);
    spec.synthetic_spec = synthetic_from_json(synthetic, base_dir);
  }
  transforms_from_json(workload, spec.transforms);
  spec.prefix_block_tokens_given = workload.has(kPrefixBlockTokens.key);
  spec.prefix_block_tokens = workload.get(kPrefixBlockTokens);
  spec.over_context = workload.get_enum<OverContextPolicy>(kOverContext);
  spec.max_concurrency = workload.get(kMaxConcurrency);
  workload.finish();
  return spec;
}

void workload_read_notes(const TraceReadReport& r) {
  if (r.bad_rows_skipped > 0)
    std::fprintf(stderr, "lynxsim: note: %s: skipped %lld bad rows of %lld (first: %s)\n", r.path.c_str(),
                 static_cast<long long>(r.bad_rows_skipped), static_cast<long long>(r.rows),
                 r.first_bad_rows.front().c_str());
  if (r.failed_rows > 0 && !r.failed_kept)
    std::fprintf(stderr, "lynxsim: note: %s: dropped %lld failed requests (0 output tokens; keep_failed keeps them)\n",
                 r.path.c_str(), static_cast<long long>(r.failed_rows));
}

std::vector<Request> workload_build(const WorkloadSpec& spec, uint64_t seed) {
  WorkloadBuild build = workload_build_report(spec, seed);
  workload_read_notes(build.read);
  return std::move(build.requests);
}

}  // namespace lynx
