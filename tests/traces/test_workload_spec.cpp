// The simulator's entry point: the "workload" JSON object, its errors (file and JSON path), and the build.
#include <doctest/doctest.h>

#include <cmath>

#include "common/data_folder.hpp"
#include "common/json_reader.hpp"
#include "trace_test_util.hpp"
#include "traces/workload_spec.hpp"

using namespace lynx;
using lynx_test::error_of;

namespace {
WorkloadSpec parse(const std::string& text, const std::string& base_dir = LYNX_SOURCE_DIR) {
  nlohmann::json j = json_parse_text(text, "run.json");
  JsonObject root(j, "run.json", "$");
  JsonObject w = root.object("workload");
  return workload_spec_from_json(w, base_dir);
}
std::string parse_error(const std::string& text) {
  return error_of([&] { parse(text); });
}
bool same(const std::vector<Request>& a, const std::vector<Request>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].id != b[i].id || a[i].arrival_s != b[i].arrival_s || a[i].input_tokens != b[i].input_tokens ||
        a[i].output_tokens != b[i].output_tokens || a[i].prefix_block_hashes != b[i].prefix_block_hashes)
      return false;
  return true;
}
}  // namespace

TEST_CASE("a trace workload: path in the data folder, transforms, deterministic build") {
  WorkloadSpec spec = parse(R"({"workload": {"trace": "@data/traces/mooncake/conversation_trace.jsonl",
      "format": "mooncake", "time_window_s": [600, 1200], "first_n": 1000, "spread_same_timestamp": true,
      "target_rate_per_s": 2.5}})");
  CHECK(spec.trace_path == data_file("traces/mooncake/conversation_trace.jsonl"));
  CHECK(spec.read.format == TraceFormat::mooncake);
  CHECK(spec.transforms.first_n == 1000);
  CHECK(spec.origin == "run.json: $.workload");
  std::vector<Request> a = workload_build(spec, 7), b = workload_build(spec, 7), c = workload_build(spec, 8);
  REQUIRE(a.size() == 1000);
  CHECK(same(a, b));
  CHECK(!same(a, c));
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].id == static_cast<int64_t>(i));
    if (i) CHECK(a[i].arrival_s >= a[i - 1].arrival_s);
  }
  CHECK(trace_stats_compute(a).rate_per_s == doctest::Approx(2.5).epsilon(1e-12));
  CHECK(!a[0].prefix_block_hashes.empty());

  WorkloadBuild whole = workload_build_report(parse(R"({"workload": {"trace":
      "@data/traces/azure-llm-2023/AzureLLMInferenceTrace_code.csv"}})"), 0);
  CHECK(whole.requests.size() == 8819);
  CHECK(whole.read.format == TraceFormat::azure);
  CHECK(whole.read.rows == 8819);
}

TEST_CASE("a synthetic workload from JSON") {
  WorkloadSpec spec = parse(R"({"workload": {"synthetic": {"arrival": "gamma", "rate_per_s": 5, "cv": 4,
      "count": 500, "input_tokens": {"empirical": "@data/traces/azure-llm-2023/AzureLLMInferenceTrace_code.csv"},
      "output_tokens": {"uniform": [1, 64]}}, "time_scale": 2}})");
  CHECK(spec.synthetic);
  CHECK(spec.synthetic_spec.arrival == ArrivalProcess::gamma);
  CHECK(spec.synthetic_spec.cv == 4);
  CHECK(spec.synthetic_spec.input_tokens.kind == LengthSpec::Kind::empirical);
  std::vector<Request> a = workload_build(spec, 1), b = workload_build(spec, 1);
  REQUIRE(a.size() == 500);
  CHECK(same(a, b));
  for (const Request& r : a) {
    CHECK((r.input_tokens >= 3 && r.input_tokens <= 7437));
    CHECK((r.output_tokens >= 1 && r.output_tokens <= 64));
  }
  WorkloadSpec fixed = parse(R"({"workload": {"synthetic": {"rate_per_s": 1, "count": 3,
      "input_tokens": {"fixed": 128}, "output_tokens": {"fixed": 16}}}})");
  CHECK(fixed.synthetic_spec.arrival == ArrivalProcess::poisson);
  CHECK(workload_build(fixed, 0).back().input_tokens == 128);
}

TEST_CASE("a generic CSV trace from JSON, with skipped bad rows and kept failures") {
  std::string path = lynx_test::write_temp("spec_generic.csv", "t,a,b\n0.5,10,1\n0.75,x,1\n1.0,20,0\n");
  std::string text = R"({"workload": {"trace": ")" + path + R"(", "format": "csv", "skip_bad_rows": true,
      "keep_failed": true, "columns": {"arrival": "t", "input_tokens": "a", "output_tokens": "b",
      "time_unit": "s", "rebase_to_first_row": true}}})";
  WorkloadBuild build = workload_build_report(parse(text, "/elsewhere"), 0);  // absolute path: base_dir unused
  REQUIRE(build.requests.size() == 2);
  CHECK(build.requests[1].arrival_s == 0.5);
  CHECK(build.requests[1].output_tokens == 0);
  CHECK(build.read.bad_rows_skipped == 1);
  CHECK(build.read.failed_rows == 1);
}

TEST_CASE("workload JSON errors name the file and the JSON path") {
  const std::string mooncake = R"("trace": "@data/traces/mooncake/conversation_trace.jsonl")";
  CHECK(parse_error(R"({"workload": {}})") ==
        R"(run.json: $.workload: expected either "trace": "path" or "synthetic": {...} (exactly one))");
  CHECK(parse_error(R"({"workload": {)" + mooncake + R"(, "synthetic": {}}})") ==
        R"(run.json: $.workload: expected either "trace": "path" or "synthetic": {...} (exactly one))");
  CHECK(parse_error(R"({"workload": {"trace": "@data/traces/nope.jsonl"}})") ==
        "run.json: $.workload.trace: data file \"traces/nope.jsonl\" not found: looked for " + data_folder().path +
            "/traces/nope.jsonl (data folder chosen by " + data_folder().chosen_by +
            "); no such file there, and it is not one scripts/get-data.sh fetches (scripts/data-manifest.tsv): check "
            "the path");
  CHECK(parse_error(R"({"workload": {"trace": "nope.jsonl"}})") ==
        "run.json: $.workload.trace: cannot open trace file \"" + std::string(LYNX_SOURCE_DIR) + "/nope.jsonl\": cannot open file: No such file or directory");
  CHECK(parse_error(R"({"workload": {)" + mooncake + R"(, "format": "sharegpt"}})") ==
        R"(run.json: $.workload.format: expected one of "auto", "mooncake", "azure", "burstgpt", "vidur", "csv", "jsonl", got "sharegpt")");
  CHECK(parse_error(R"({"workload": {)" + mooncake + R"(, "fist_n": 3}})")
            .rfind("run.json: $.workload.fist_n: unknown field; did you mean \"first_n\"? (valid here: ", 0) == 0);
  CHECK(parse_error(R"({"workload": {)" + mooncake + R"(, "time_window_s": [5, 1]}})") ==
        "run.json: $.workload.time_window_s: expected [begin_s, end_s] with 0 <= begin_s < end_s <= 1e9, got [5,1]");
  CHECK(parse_error(R"({"workload": {)" + mooncake + R"(, "time_scale": 2, "target_rate_per_s": 1}})") ==
        "run.json: $.workload.target_rate_per_s: expected either time_scale or target_rate_per_s, not both, got 1");
  CHECK(parse_error(R"({"workload": {)" + mooncake + R"(, "spread_step_s": 3}})") ==
        R"(run.json: $.workload.spread_step_s: expected no spread_step_s without "spread_same_timestamp": true, got 3)");
  CHECK(parse_error(R"({"workload": {)" + mooncake + R"(, "first_n": 0}})") ==
        "run.json: $.workload.first_n: expected an integer in [1, 9223372036854775807] requests, got 0");
  CHECK(parse_error(R"({"workload": {)" + mooncake + R"(, "columns": {"arrival": "t"}}})") ==
        R"(run.json: $.workload.columns: expected no columns: they apply to the "csv" and "jsonl" formats only, got {"arrival":"t"})");
  CHECK(parse_error(R"({"workload": {)" + mooncake + R"(, "format": "csv"}})") ==
        R"(run.json: $.workload.columns: missing field, expected an object naming the columns: {"arrival": ..., "input_tokens": ..., "output_tokens": ...})");
  CHECK(parse_error(R"({"workload": {)" + mooncake +
                    R"(, "format": "jsonl", "columns": {"arrival": "t", "input_tokens": "a", "output_tokens": "b", "time_unit": "min"}}})") ==
        R"(run.json: $.workload.columns.time_unit: expected one of "s", "ms", "us", "ns", "datetime", got "min")");
  const std::string lengths = R"("input_tokens": {"fixed": 1}, "output_tokens": {"fixed": 1})";
  CHECK(parse_error(R"({"workload": {"synthetic": {"arrival": "gamma", "rate_per_s": 1, "count": 1, )" + lengths + "}}}") ==
        "run.json: $.workload.synthetic.cv: missing field, expected a number in [0.01, 100]");
  CHECK(parse_error(R"({"workload": {"synthetic": {"rate_per_s": 1, "cv": 2, "count": 1, )" + lengths + "}}}") ==
        R"(run.json: $.workload.synthetic.cv: expected no cv for poisson arrivals (their CV is 1; use "arrival": "gamma"), got 2)");
  CHECK(parse_error(R"({"workload": {"synthetic": {"rate_per_s": -1, "count": 1, )" + lengths + "}}}") ==
        "run.json: $.workload.synthetic.rate_per_s: expected a number in (0, 1000000] requests/s, got -1");
  CHECK(parse_error(R"({"workload": {"synthetic": {"rate_per_s": 1, "count": 1, "input_tokens": {"fixed": 1, "uniform": [1, 2]}, "output_tokens": {"fixed": 1}}}})") ==
        R"(run.json: $.workload.synthetic.input_tokens: expected one of {"fixed": tokens}, {"uniform": [low, high]}, {"empirical": "trace path"})");
  CHECK(parse_error(R"({"workload": {"synthetic": {"rate_per_s": 1, "count": 1, "input_tokens": {"uniform": [3, 2]}, "output_tokens": {"fixed": 1}}}})") ==
        "run.json: $.workload.synthetic.input_tokens.uniform: expected [low, high]: integers with 1 <= low <= high <= 10000000, got [3,2]");
  CHECK(parse_error(R"({"workload": {"synthetic": {"rate_per_s": 1, "count": 1, "input_tokens": {"empirical": "missing.csv"}, "output_tokens": {"fixed": 1}}}})") ==
        "run.json: $.workload.synthetic.input_tokens.empirical: cannot open trace file \"" + std::string(LYNX_SOURCE_DIR) +
            "/missing.csv\": cannot open file: No such file or directory");
}

TEST_CASE("synthetic workloads have bounded sizes, rates and CVs (no bad_alloc, no hang)") {
  const std::string lengths = R"("input_tokens": {"fixed": 1}, "output_tokens": {"fixed": 1})";
  CHECK(parse_error(R"({"workload": {"synthetic": {"rate_per_s": 1, "count": 1000000000000, )" + lengths + "}}}") ==
        "run.json: $.workload.synthetic.count: expected an integer in [1, 100000000] requests, got 1000000000000");
  CHECK(parse_error(R"({"workload": {"synthetic": {"arrival": "gamma", "cv": 1e-9, "rate_per_s": 1, "count": 5, )" +
                    lengths + "}}}") == "run.json: $.workload.synthetic.cv: expected a number in [0.01, 100], got 1e-09");
  CHECK(parse_error(R"({"workload": {"synthetic": {"rate_per_s": 1, "count": 5, "input_tokens": {"fixed": 1e7},
      "output_tokens": {"fixed": 1}}}})") ==
        "run.json: $.workload.synthetic.input_tokens.fixed: expected an integer in [1, 10000000] tokens, got 10000000.0");
  // The CV's bounds both build (no hang at 0.01, no non-finite gap at 100).
  for (const char* cv : {"0.01", "100"}) {
    std::vector<Request> r = workload_build(parse(std::string(R"({"workload": {"synthetic": {"arrival": "gamma", "cv": )") +
                                                  cv + R"(, "rate_per_s": 2, "count": 2000, )" + lengths + "}}}"),
                                            3);
    REQUIRE(r.size() == 2000);
    CHECK(std::isfinite(r.back().arrival_s));
  }
}

TEST_CASE("a window that holds no request is an error, and a bad trace row names file:line") {
  WorkloadSpec spec = parse(R"({"workload": {"trace": "@data/traces/mooncake/conversation_trace.jsonl",
      "time_window_s": [5000, 6000]}})");
  CHECK(error_of([&] { workload_build(spec, 0); }) ==
        "run.json: $.workload: the workload is empty: the time window [5000, 6000) s holds no request of " +
            spec.trace_path);
  std::string bad = lynx_test::write_temp("spec_bad.csv", "arrived_at,num_prefill_tokens,num_decode_tokens\n0,1,1\n1,-1,1\n");
  WorkloadSpec bad_spec = parse(R"({"workload": {"trace": ")" + bad + R"("}})");
  CHECK(error_of([&] { workload_build(bad_spec, 0); }) ==
        bad + R"(:3: num_prefill_tokens is negative: "-1" (expected a positive integer token count))");
}

TEST_CASE("docs/workloads.md's workload examples parse and build") {
  std::vector<Request> trace = workload_build(parse(R"({"workload": {"trace": "@data/traces/mooncake/conversation_trace.jsonl",
      "time_window_s": [0, 1800], "spread_same_timestamp": true, "target_rate_per_s": 4}})"), 1);
  CHECK(trace_stats_compute(trace).rate_per_s == doctest::Approx(4).epsilon(1e-12));
  std::vector<Request> synthetic = workload_build(parse(R"({"workload": {"synthetic": {"arrival": "gamma",
      "rate_per_s": 4, "cv": 3, "count": 2000,
      "input_tokens": {"empirical": "@data/traces/azure-llm-2023/AzureLLMInferenceTrace_code.csv"},
      "output_tokens": {"uniform": [16, 512]}}}})"), 1);
  CHECK(synthetic.size() == 2000);
}
