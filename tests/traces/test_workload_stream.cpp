// The streamed workload (traces/workload_stream.hpp) against the whole build (workload_build: the same selected rows
// in a list, spread group by group and stable-sorted): for every kind of source and every transform, the stream's
// group buffer and reorder queue give the same requests in the same order with the same ids and bit-identical
// arrival times, and the same errors.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "common/json_reader.hpp"
#include "trace_test_util.hpp"
#include "traces/workload_spec.hpp"
#include "traces/workload_stream.hpp"

using namespace lynx;
using lynx_test::error_of;

namespace {
WorkloadSpec parse(const std::string& workload_json) {
  nlohmann::json j = json_parse_text("{\"workload\": " + workload_json + "}", "run.json");
  JsonObject root(j, "run.json", "$");
  JsonObject w = root.object("workload");
  return workload_spec_from_json(w, LYNX_SOURCE_DIR);
}

std::vector<Request> streamed(const WorkloadSpec& spec, uint64_t seed) {
  WorkloadStream stream(spec, seed);
  std::vector<Request> out;
  Request r;
  while (stream.next(r)) out.push_back(r);
  CHECK_FALSE(stream.next(r));  // stays at the end
  return out;
}

// The first difference, or "" when the two lists are the same.
std::string difference(const std::vector<Request>& built, const std::vector<Request>& streamed) {
  if (built.size() != streamed.size())
    return "sizes " + std::to_string(built.size()) + " and " + std::to_string(streamed.size());
  for (size_t i = 0; i < built.size(); ++i) {
    const Request& a = built[i];
    const Request& b = streamed[i];
    if (a.id != b.id || a.arrival_s != b.arrival_s || a.input_tokens != b.input_tokens ||
        a.output_tokens != b.output_tokens || a.prefix_block_hashes != b.prefix_block_hashes ||
        a.source_line != b.source_line)
      return "request " + std::to_string(i);
  }
  return "";
}

void check_same(const std::string& workload_json, uint64_t seed = 7) {
  CAPTURE(workload_json);
  WorkloadSpec spec = parse(workload_json);
  std::vector<Request> built = workload_build(spec, seed);
  REQUIRE(built.size() > 1);
  CHECK(difference(built, streamed(spec, seed)) == "");
}

const char* kMooncake = R"("trace": "@data/traces/mooncake/conversation_trace.jsonl")";
const char* kAzure = R"("trace": "@data/traces/azure-llm-2023/AzureLLMInferenceTrace_code.csv")";
}  // namespace

TEST_CASE("a streamed trace is the built trace, transform by transform") {
  const std::string m = kMooncake;
  check_same("{" + m + "}");
  check_same("{" + m + R"(, "time_window_s": [600, 1200], "first_n": 1000})");
  check_same("{" + m + R"(, "time_scale": 0.37})");
  // Spreading with an inferred step (a first pass for the median gap), alone and with a target rate (a second).
  check_same("{" + m + R"(, "spread_same_timestamp": true})");
  check_same("{" + m + R"(, "time_window_s": [600, 1200], "first_n": 1000, "spread_same_timestamp": true,
      "target_rate_per_s": 2.5})");
  // A given step far wider than the trace's 3 s clock: spread groups overtake each other, and the stream must
  // reorder them as the stable sort does.
  check_same("{" + m + R"(, "spread_same_timestamp": true, "spread_step_s": 40, "time_scale": 0.5})");
  check_same("{" + m + R"(, "target_rate_per_s": 11})");
  // Azure: absolute date-times, timestamps shared at sub-second steps.
  check_same("{" + std::string(kAzure) + R"(, "spread_same_timestamp": true, "target_rate_per_s": 3})");
  check_same("{" + std::string(kAzure) + R"(, "first_n": 5000})");
}

TEST_CASE("a streamed synthetic workload is the built one") {
  const std::string s = R"("synthetic": {"arrival": "gamma", "rate_per_s": 4, "cv": 3, "count": 3000,
      "input_tokens": {"uniform": [100, 9000]}, "output_tokens": {"fixed": 64}})";
  check_same("{" + s + "}");
  check_same("{" + s + R"(, "time_window_s": [100, 400], "first_n": 500, "time_scale": 2})");
  check_same("{" + s + R"(, "target_rate_per_s": 9})");
  check_same("{" + s + R"(, "spread_same_timestamp": true, "spread_step_s": 5})");
}

TEST_CASE("a streamed hand-written trace: groups at the ends, skipped bad rows, kept failures") {
  // Groups of shared timestamps first and last (the last group's step is the median gap), a gap wider than 1.5
  // median gaps (its group takes the median), a bad row and a failed request.
  const std::string path = lynx_test::write_temp("stream_groups.csv",
      "arrived_at,num_prefill_tokens,num_decode_tokens\n"
      "0,10,1\n0,11,1\n0,12,1\n1,13,1\n2,14,0\n2,15,1\nx,1,1\n3,16,1\n10,17,1\n10,18,1\n11,19,1\n11,20,1\n11,21,1\n");
  const std::string t = R"("trace": ")" + path + R"(", "skip_bad_rows": true, "keep_failed": true)";
  for (uint64_t seed : {1, 2, 3}) {
    check_same("{" + t + R"(, "spread_same_timestamp": true})", seed);
    check_same("{" + t + R"(, "spread_same_timestamp": true, "spread_step_s": 4.5, "target_rate_per_s": 0.25})",
               seed);
  }
  WorkloadStream stream(parse("{" + t + "}"), 1);
  Request r;
  int64_t n = 0;
  while (stream.next(r)) ++n;
  CHECK(n == 12);
  CHECK(stream.read_report().rows == 13);
  CHECK(stream.read_report().bad_rows_skipped == 1);
  CHECK(stream.read_report().failed_rows == 1);
}

TEST_CASE("a streamed workload fails as the build does") {
  auto same_error = [](const std::string& workload_json) {
    CAPTURE(workload_json);
    WorkloadSpec spec = parse(workload_json);
    const std::string built = error_of([&] { workload_build(spec, 1); });
    CHECK(!built.empty());
    CHECK(error_of([&] { streamed(spec, 1); }) == built);
  };
  const std::string m = kMooncake;
  same_error("{" + m + R"(, "time_window_s": [5000, 6000]})");
  same_error("{" + m + R"(, "time_window_s": [5000, 6000], "spread_same_timestamp": true})");
  same_error("{" + m + R"(, "first_n": 1, "target_rate_per_s": 2})");
  const std::string one_time = lynx_test::write_temp("stream_one_time.csv",
      "arrived_at,num_prefill_tokens,num_decode_tokens\n5,10,1\n5,11,1\n5,12,1\n");
  same_error(R"({"trace": ")" + one_time + R"(", "spread_same_timestamp": true})");
  const std::string bad = lynx_test::write_temp("stream_bad.csv",
      "arrived_at,num_prefill_tokens,num_decode_tokens\n0,1,1\n1,-1,1\n");
  same_error(R"({"trace": ")" + bad + R"("})");
  same_error(R"({"trace": ")" + bad + R"(", "spread_same_timestamp": true, "target_rate_per_s": 1})");
}

TEST_CASE("workload_count is the number of requests the stream yields") {
  const std::string m = kMooncake;
  for (const std::string& w :
       {"{" + m + "}", "{" + m + R"(, "time_window_s": [600, 1200], "spread_same_timestamp": true})",
        "{" + m + R"(, "first_n": 777, "target_rate_per_s": 3})",
        std::string(R"({"synthetic": {"arrival": "poisson", "rate_per_s": 4, "count": 3000,
            "input_tokens": {"fixed": 100}, "output_tokens": {"fixed": 10}}, "first_n": 1234})"),
        std::string(R"({"synthetic": {"arrival": "poisson", "rate_per_s": 4, "count": 3000,
            "input_tokens": {"fixed": 100}, "output_tokens": {"fixed": 10}}, "time_window_s": [10, 300]})")}) {
    CAPTURE(w);
    WorkloadSpec spec = parse(w);
    CHECK(workload_count(spec, 3) == static_cast<int64_t>(streamed(spec, 3).size()));
  }
}
