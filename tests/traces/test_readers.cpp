// Each reader on good rows, on every kind of bad row (exact message: file:line, offending text, expected form), and
// on a file the test generates; plus the shipped traces' published figures.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "trace_test_util.hpp"
#include "traces/trace_reader.hpp"
#include "traces/trace_stats.hpp"

using namespace lynx;
using lynx_test::error_of;
using lynx_test::write_temp;

namespace {
const std::string kMooncakeForm =
    R"({"timestamp": <ms from trace start>, "input_length": <tokens>, "output_length": <tokens>, "hash_ids": [<block ids>]})";
const std::string kAzureForm = "TIMESTAMP,ContextTokens,GeneratedTokens rows like 2023-11-16 18:17:03.9799600,4808,10";
const std::string kBurstForm =
    "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type rows like 5,ChatGPT,472,18,490,"
    "Conversation log";
const std::string kVidurForm = "arrived_at,num_prefill_tokens,num_decode_tokens rows like 0.125,1024,128";
const std::string kInputForm = "(expected a positive integer token count)";
const std::string kOutputForm = "(expected a non-negative integer token count)";
const std::string kOrder = "(expected rows in non-decreasing time order)";

std::string read_error(const std::string& path, TraceReadOptions options = {}) {
  return error_of([&] { trace_read(path, options); });
}
TraceReadOptions with_format(TraceFormat f) {
  TraceReadOptions o;
  o.format = f;
  return o;
}
}  // namespace

// ---------------------------------------------------------------- Mooncake JSONL
TEST_CASE("mooncake: good rows, with blank lines and CRLF") {
  std::string text = "{\"timestamp\": 0, \"input_length\": 6758, \"output_length\": 500, \"hash_ids\": [0, 1]}\r\n"
                     "\n"
                     "{\"hash_ids\": [0, 2, 3], \"output_length\": 1, \"input_length\": 1025, \"timestamp\": 27482}\n"
                     "{\"timestamp\": 27482, \"input_length\": 3, \"output_length\": 7, \"hash_ids\": []}";
  TraceReadResult r = trace_read(write_temp("mc_good.jsonl", text));
  CHECK(r.report.format == TraceFormat::mooncake);
  CHECK(r.report.rows == 3);
  REQUIRE(r.requests.size() == 3);
  CHECK(r.requests[0].arrival_s == 0);
  CHECK(r.requests[0].input_tokens == 6758);
  CHECK(r.requests[0].output_tokens == 500);
  CHECK(r.requests[0].prefix_block_hashes == std::vector<uint64_t>{0, 1});
  CHECK(r.requests[1].id == 1);
  CHECK(r.requests[1].arrival_s == 27.482);
  CHECK(r.requests[1].prefix_block_hashes == std::vector<uint64_t>{0, 2, 3});
  CHECK(r.requests[2].prefix_block_hashes.empty());
  CHECK(r.report.bytes == text.size());
}

TEST_CASE("mooncake: every kind of bad row stops with file:line, the text and the expected form") {
  const std::string good = R"({"timestamp": 2000, "input_length": 10, "output_length": 5, "hash_ids": [0]})";
  struct Case {
    const char* name;
    std::string row;
    std::string message;  // after "path:2: "
  };
  for (const Case& c : {
           Case{"missing", R"({"timestamp": 3000, "input_length": 10, "hash_ids": [0]})",
                R"(missing field "output_length": "{"timestamp": 3000, "input_length": 10, "hash_ids": [0]}" (expected )" +
                    kMooncakeForm + ")"},
           Case{"missing_hashes", R"({"timestamp": 3000, "input_length": 10, "output_length": 5})",
                R"(missing field "hash_ids": "{"timestamp": 3000, "input_length": 10, "output_length": 5}" (expected )" +
                    kMooncakeForm + ")"},
           Case{"nan", R"({"timestamp": 3000, "input_length": "x5", "output_length": 5, "hash_ids": [0]})",
                R"(input_length is not a number: "x5" )" + kInputForm},
           Case{"float", R"({"timestamp": 3000, "input_length": 10.5, "output_length": 5, "hash_ids": [0]})",
                R"(input_length is not a number: "10.5" )" + kInputForm},
           Case{"negative", R"({"timestamp": 3000, "input_length": 10, "output_length": -3, "hash_ids": [0]})",
                R"(output_length is negative: "-3" )" + kOutputForm},
           Case{"zero_input", R"({"timestamp": 3000, "input_length": 0, "output_length": 3, "hash_ids": [0]})",
                R"(input_length is zero: "0" )" + kInputForm},
           Case{"null_time", R"({"timestamp": null, "input_length": 10, "output_length": 3, "hash_ids": [0]})",
                R"(timestamp is not a number: "null" (expected a non-negative number of milliseconds))"},
           Case{"negative_time", R"({"timestamp": -5, "input_length": 10, "output_length": 3, "hash_ids": [0]})",
                R"(timestamp is negative: "-5" (expected a non-negative number of milliseconds))"},
           Case{"backwards", R"({"timestamp": 1000, "input_length": 10, "output_length": 3, "hash_ids": [0]})",
                R"(timestamp goes backwards: "1000" comes after "2000" on line 1 )" + kOrder},
           Case{"hashes", R"({"timestamp": 3000, "input_length": 10, "output_length": 3, "hash_ids": [1, -2]})",
                R"(hash_ids is not a list of block ids: "[1, -2]" (expected a JSON array of non-negative integers))"},
           Case{"json", R"({"timestamp": 3000 "input_length": 10})",
                R"(malformed JSON at column 20 (expected ',' or '}'): "{"timestamp": 3000 "input_length": 10}" (expected )" +
                    kMooncakeForm + ")"},
       }) {
    CAPTURE(c.name);
    std::string path = write_temp(std::string("mc_bad_") + c.name + ".jsonl", good + "\n" + c.row + "\n" + good + "\n");
    CHECK(read_error(path, with_format(TraceFormat::mooncake)) == path + ":2: " + c.message);
    // Detected the same way, and skipped and counted with skip_bad_rows.
    CHECK(read_error(path) == path + ":2: " + c.message);
    TraceReadOptions skip;
    skip.skip_bad_rows = true;
    TraceReadResult r = trace_read(path, skip);
    CHECK(r.requests.size() == 2);
    CHECK(r.report.rows == 3);
    CHECK(r.report.bad_rows_skipped == 1);
    REQUIRE(r.report.first_bad_rows.size() == 1);
    CHECK(r.report.first_bad_rows[0] == path + ":2: " + c.message);
    // A reader that does not keep the ids checks them the same way.
    TraceReadOptions unkept;
    unkept.keep_prefix_hashes = false;
    CHECK(read_error(path, unkept) == path + ":2: " + c.message);
  }
}

TEST_CASE("mooncake: without keep_prefix_hashes, the same requests with no ids") {
  std::string text;
  for (int i = 0; i < 300; ++i) {
    std::string ids;  // 0 to 40 ids, a few over 16 digits: arrays across the check's 16-byte steps
    for (int k = 0; k < i % 41; ++k) ids += (k ? ", " : "") + std::to_string(k % 7 == 6 ? 12345678901234567ull * k : k);
    text += "{\"timestamp\": " + std::to_string(i) + ", \"input_length\": " + std::to_string(10 + i) +
            ", \"output_length\": 3, \"hash_ids\": [" + ids + "]}\n";
  }
  const std::string path = write_temp("mc_unkept.jsonl", text);
  TraceReadOptions unkept;
  unkept.keep_prefix_hashes = false;
  const TraceReadResult kept = trace_read(path), checked = trace_read(path, unkept);
  REQUIRE(checked.requests.size() == kept.requests.size());
  REQUIRE(kept.requests.size() == 300);
  CHECK(kept.requests[40].prefix_block_hashes.size() == 40);
  for (size_t i = 0; i < kept.requests.size(); ++i) {
    CAPTURE(i);
    CHECK(checked.requests[i].prefix_block_hashes.empty());
    CHECK(checked.requests[i].arrival_s == kept.requests[i].arrival_s);
    CHECK(checked.requests[i].input_tokens == kept.requests[i].input_tokens);
    CHECK(checked.requests[i].output_tokens == kept.requests[i].output_tokens);
  }
  CHECK(checked.report.rows == kept.report.rows);
}

TEST_CASE("mooncake: a generated file of 5,000 rows reads back exactly") {
  std::string text;
  int64_t input_sum = 0;
  char row[256];
  for (int i = 0; i < 5000; ++i) {
    int64_t input = 100 + i, output = 1 + i % 7;
    input_sum += input;
    // Every 10 rows share a timestamp (3 s steps); every request shares block 0, each has one block of its own.
    std::snprintf(row, sizeof row, "{\"timestamp\": %d, \"input_length\": %lld, \"output_length\": %lld, "
                  "\"hash_ids\": [0, %d]}\n", 3000 * (i / 10), static_cast<long long>(input),
                  static_cast<long long>(output), i + 1);
    text += row;
  }
  std::string path = write_temp("mc_generated.jsonl", text);
  TraceReadResult r = trace_read(path);
  REQUIRE(r.requests.size() == 5000);
  int64_t sum = 0;
  for (size_t i = 0; i < r.requests.size(); ++i) {
    const Request& q = r.requests[i];
    sum += q.input_tokens;
    if (q.arrival_s != 3.0 * static_cast<double>(i / 10) || q.output_tokens != 1 + static_cast<int64_t>(i) % 7 ||
        q.prefix_block_hashes != std::vector<uint64_t>{0, i + 1}) {
      FAIL("row " << i << " differs");
    }
  }
  CHECK(sum == input_sum);
  // Block 0 is cached after the first request: every later one hits min(512, input) tokens.
  int64_t hits = 0;
  for (int i = 1; i < 5000; ++i) hits += std::min<int64_t>(512, 100 + i);
  CHECK(prefix_hit_tokens_infinite_cache(r.requests, 512) == hits);
}

// ---------------------------------------------------------------- Azure CSV
TEST_CASE("azure: absolute timestamps become exact seconds from the first row (2023 and 2024 forms)") {
  std::string path = write_temp("az_good.csv",
                                "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                "2023-11-16 18:17:03.9799600,4808,10\n"
                                "2023-11-16 18:17:04.0319600,3180,8\n"
                                "2023-11-16 18:17:04.0319600,110,27\n"
                                "2023-11-16 23:59:59.9999999,7433,14\n"
                                "2023-11-17 00:00:00.0000000,1,1\n");
  TraceReadResult r = trace_read(path);
  CHECK(r.report.format == TraceFormat::azure);
  REQUIRE(r.requests.size() == 5);
  CHECK(r.requests[0].arrival_s == 0);
  CHECK(r.requests[1].arrival_s == 0.052);
  CHECK(r.requests[2].arrival_s == 0.052);
  CHECK(r.requests[3].arrival_s == 20576.0200399);   // 5:42:56.0200399 later
  CHECK(r.requests[4].arrival_s == 20576.02004);
  CHECK(r.requests[0].input_tokens == 4808);
  CHECK(r.requests[0].output_tokens == 10);
  CHECK(r.requests[0].prefix_block_hashes.empty());

  std::string path2024 = write_temp("az_2024.csv",
                                    "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                    "2024-05-10 00:00:00.009930+00:00,2048,28\n"
                                    "2024-05-10 00:00:01.509931+00:00,17,3\n");
  TraceReadResult r2 = trace_read(path2024);
  CHECK(r2.report.format == TraceFormat::azure);
  REQUIRE(r2.requests.size() == 2);
  CHECK(r2.requests[1].arrival_s == 1.500001);
}

TEST_CASE("azure: every kind of bad row") {
  const std::string header = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
  const std::string first = "2023-11-16 18:17:04.0000000,4808,10\n";
  struct Case {
    const char* name;
    std::string row;
    std::string message;  // after "path:3: "
  };
  for (const Case& c : {
           Case{"missing", "2023-11-16 18:17:04.0319600,3180",
                R"(missing column "GeneratedTokens": "2023-11-16 18:17:04.0319600,3180" (expected )" + kAzureForm + ")"},
           Case{"extra", "2023-11-16 18:17:04.0319600,3180,8,9",
                R"(4 fields where the header has 3: "2023-11-16 18:17:04.0319600,3180,8,9" (expected )" + kAzureForm + ")"},
           Case{"quote", "2023-11-16 18:17:04.0319600,\"3180,8",
                R"(unterminated quoted field: "2023-11-16 18:17:04.0319600,"3180,8" (expected )" + kAzureForm + ")"},
           Case{"nan", "2023-11-16 18:17:04.0319600,31x0,8", R"(ContextTokens is not a number: "31x0" )" + kInputForm},
           Case{"empty", "2023-11-16 18:17:04.0319600,,8", R"(ContextTokens is not a number: "" )" + kInputForm},
           Case{"negative", "2023-11-16 18:17:04.0319600,3180,-8", R"(GeneratedTokens is negative: "-8" )" + kOutputForm},
           Case{"date", "2023-02-29 18:17:04.0319600,3180,8",
                R"(TIMESTAMP is not a date-time: "2023-02-29 18:17:04.0319600" (expected a date-time like 2023-11-16 18:17:03.9799600, in the years 1970-2199))"},
           Case{"backwards", "2023-11-16 18:17:03.9999999,3180,8",
                R"(TIMESTAMP goes backwards: "2023-11-16 18:17:03.9999999" comes after "2023-11-16 18:17:04.0000000" on line 2 )" +
                    kOrder},
       }) {
    CAPTURE(c.name);
    std::string path = write_temp(std::string("az_bad_") + c.name + ".csv", header + first + c.row + "\n" + first);
    CHECK(read_error(path) == path + ":3: " + c.message);
    TraceReadOptions skip;
    skip.skip_bad_rows = true;
    TraceReadResult r = trace_read(path, skip);
    CHECK(r.requests.size() == 2);
    CHECK(r.report.bad_rows_skipped == 1);
  }
}

TEST_CASE("azure: a generated file of 3,600 rows, one every 1.0000001 s, reads back exactly") {
  std::string text = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
  char row[128];
  int64_t start_s = 1700158623;  // 2023-11-16 18:17:03 UTC
  for (int64_t i = 0; i < 3600; ++i) {
    int64_t ticks = i * 10000001;  // 100 ns ticks
    int64_t s = start_s + ticks / 10000000, frac = ticks % 10000000;
    int64_t day_s = s % 86400;
    std::snprintf(row, sizeof row, "2023-11-16 %02lld:%02lld:%02lld.%07lld,%lld,%lld\n",
                  static_cast<long long>(day_s / 3600), static_cast<long long>(day_s / 60 % 60),
                  static_cast<long long>(day_s % 60), static_cast<long long>(frac), static_cast<long long>(i + 1),
                  static_cast<long long>(i % 5 + 1));
    text += row;
  }
  std::string path = write_temp("az_generated.csv", text);
  TraceReadResult r = trace_read(path);
  REQUIRE(r.requests.size() == 3600);
  for (int64_t i = 0; i < 3600; ++i) {
    const Request& q = r.requests[static_cast<size_t>(i)];
    if (q.arrival_s != static_cast<double>(i * 10000001) / 1e7 || q.input_tokens != i + 1)
      FAIL("row " << i << " differs: " << q.arrival_s);
  }
}

// ---------------------------------------------------------------- BurstGPT CSV
TEST_CASE("burstgpt: failures (0 response tokens) are dropped and counted, or kept") {
  std::string path = write_temp("bg_good.csv",
                                "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
                                "5,ChatGPT,472,18,490,Conversation log\n"
                                "45,ChatGPT,1087,0,1087,Conversation log\n"
                                "118,GPT-4,417,276,693,API log\n"
                                "\"118\",\"GPT-4, turbo\",10,1,11,API log\n");
  TraceReadResult r = trace_read(path);
  CHECK(r.report.format == TraceFormat::burstgpt);
  CHECK(r.report.rows == 4);
  CHECK(r.report.failed_rows == 1);
  REQUIRE(r.requests.size() == 3);
  CHECK(r.requests[0].arrival_s == 5);
  CHECK(r.requests[1].arrival_s == 118);
  CHECK(r.requests[1].input_tokens == 417);
  CHECK(r.requests[1].output_tokens == 276);
  CHECK(r.requests[2].input_tokens == 10);
  TraceReadOptions keep;
  keep.keep_failed = true;
  TraceReadResult k = trace_read(path, keep);
  REQUIRE(k.requests.size() == 4);
  CHECK(k.requests[1].output_tokens == 0);
  CHECK(k.report.failed_rows == 1);
  CHECK(k.report.failed_kept);

  std::string all_failed = write_temp("bg_failed.csv",
                                      "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
                                      "5,ChatGPT,472,0,472,Conversation log\n");
  CHECK(read_error(all_failed) == all_failed +
                                      ": no request: every valid row is a failed request (0 output tokens); "
                                      "keep_failed keeps them");
}

TEST_CASE("burstgpt: every kind of bad row") {
  const std::string header = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n";
  const std::string first = "10,ChatGPT,472,18,490,Conversation log\n";
  struct Case {
    const char* name;
    std::string row, message;
  };
  for (const Case& c : {
           Case{"missing", "12,ChatGPT,472,18,490",
                R"(missing column "Log Type": "12,ChatGPT,472,18,490" (expected )" + kBurstForm + ")"},
           Case{"nan", "12,ChatGPT,abc,18,490,Conversation log", R"(Request tokens is not a number: "abc" )" + kInputForm},
           Case{"negative", "12,ChatGPT,472,-1,490,Conversation log",
                R"(Response tokens is negative: "-1" )" + kOutputForm},
           Case{"time", "1O,ChatGPT,472,18,490,Conversation log",
                R"(Timestamp is not a number: "1O" (expected a non-negative number of seconds))"},
           Case{"backwards", "9,ChatGPT,472,18,490,Conversation log",
                R"(Timestamp goes backwards: "9" comes after "10" on line 2 )" + kOrder},
       }) {
    CAPTURE(c.name);
    std::string path = write_temp(std::string("bg_bad_") + c.name + ".csv", header + first + c.row + "\n");
    CHECK(read_error(path) == path + ":3: " + c.message);
  }
}

// ---------------------------------------------------------------- Vidur CSV
TEST_CASE("vidur: float arrival times (with exponents), extra columns ignored") {
  std::string path = write_temp("vd_good.csv",
                                "arrived_at,num_prefill_tokens,num_decode_tokens,num_total_tokens,pd_ratio\n"
                                "0.0,1024,128,1152,8.0\n"
                                "5.2e-05,17.0,3,20,5.67\n"
                                "0.125,4096,1,4097,4096.0\n");
  TraceReadResult r = trace_read(path);
  CHECK(r.report.format == TraceFormat::vidur);
  REQUIRE(r.requests.size() == 3);
  CHECK(r.requests[1].arrival_s == 5.2e-05);
  CHECK(r.requests[1].input_tokens == 17);
  CHECK(r.requests[2].arrival_s == 0.125);
  CHECK(r.requests[2].output_tokens == 1);
}

TEST_CASE("vidur: every kind of bad row") {
  const std::string header = "arrived_at,num_prefill_tokens,num_decode_tokens\n";
  const std::string first = "1.5,1024,128\n";
  struct Case {
    const char* name;
    std::string row, message;
  };
  for (const Case& c : {
           Case{"missing", "2.0,1024", R"(missing column "num_decode_tokens": "2.0,1024" (expected )" + kVidurForm + ")"},
           Case{"nan", "2.0,1024,12 8", R"(num_decode_tokens is not a number: "12 8" )" + kOutputForm},
           Case{"negative", "2.0,-1024,128", R"(num_prefill_tokens is negative: "-1024" )" + kInputForm},
           Case{"negative_time", "-2.0,1024,128",
                R"(arrived_at is negative: "-2.0" (expected a non-negative number of seconds))"},
           Case{"backwards", "1.25,1024,128", R"(arrived_at goes backwards: "1.25" comes after "1.5" on line 2 )" + kOrder},
       }) {
    CAPTURE(c.name);
    std::string path = write_temp(std::string("vd_bad_") + c.name + ".csv", header + first + c.row + "\n");
    CHECK(read_error(path) == path + ":3: " + c.message);
  }
}

TEST_CASE("vidur: a generated file reads back exactly") {
  std::string text = "arrived_at,num_prefill_tokens,num_decode_tokens\n";
  for (int i = 0; i < 2000; ++i) text += std::to_string(i) + ".25," + std::to_string(2 * i + 1) + ",7\n";
  TraceReadResult r = trace_read(write_temp("vd_generated.csv", text));
  REQUIRE(r.requests.size() == 2000);
  for (int i = 0; i < 2000; ++i)
    if (r.requests[static_cast<size_t>(i)].arrival_s != i + 0.25 || r.requests[static_cast<size_t>(i)].input_tokens != 2 * i + 1)
      FAIL("row " << i);
}

// ---------------------------------------------------------------- generic CSV and JSONL
TEST_CASE("generic csv: named columns, time units, rebasing") {
  std::string path = write_temp("gen.csv", "id,when_ms,prompt,completion\n"
                                           "a,1700000000000,100,10\n"
                                           "b,1700000000250,200,20\n");
  TraceReadOptions o;
  o.format = TraceFormat::csv;
  o.columns.arrival = "when_ms";
  o.columns.input_tokens = "prompt";
  o.columns.output_tokens = "completion";
  o.columns.time_unit = TimeUnit::ms;
  TraceReadResult r = trace_read(path, o);
  REQUIRE(r.requests.size() == 2);
  CHECK(r.requests[1].arrival_s == 1700000000.25);
  o.columns.rebase_to_first_row = true;
  r = trace_read(path, o);
  CHECK(r.requests[0].arrival_s == 0);
  CHECK(r.requests[1].arrival_s == 0.25);
  CHECK(r.requests[1].input_tokens == 200);

  o.columns.arrival = "time";
  CHECK(read_error(path, o) == path +
                                   ":1: the header lacks column \"time\": \"id,when_ms,prompt,completion\" (expected a "
                                   "header naming time, prompt and completion, then rows of <time in ms>, <tokens>, "
                                   "<tokens>)");
  o.columns.arrival = "";
  CHECK(read_error(path, o) ==
        "trace format \"csv\" needs the names of its arrival, input-token and output-token columns (columns.arrival, "
        "columns.input_tokens, columns.output_tokens)");
}

TEST_CASE("generic jsonl: named members, date-time strings, prefix hashes, bad rows") {
  std::string path = write_temp("gen.jsonl",
                                R"({"t": "2024-05-10 00:00:00.5+00:00", "in": 9, "out": 2, "blocks": [7]})" "\n"
                                R"({"t": "2024-05-10 00:00:01+00:00", "in": 10, "out": 3, "blocks": [7, 8]})" "\n");
  TraceReadOptions o;
  o.format = TraceFormat::jsonl;
  o.columns = {"t", "in", "out", "blocks", TimeUnit::datetime, false};
  TraceReadResult r = trace_read(path, o);
  REQUIRE(r.requests.size() == 2);
  CHECK(r.requests[1].arrival_s == 0.5);
  CHECK(r.requests[1].prefix_block_hashes == std::vector<uint64_t>{7, 8});

  std::string bad = write_temp("gen_bad.jsonl", R"({"t": "2024-05-10 00:00:00.5+00:00", "in": 9, "out": 2, "blocks": [7]})" "\n"
                                                R"({"t": "yesterday", "in": 10, "out": 3, "blocks": [7, 8]})" "\n");
  CHECK(read_error(bad, o) == bad + R"(:2: t is not a date-time: "yesterday" (expected a date-time like 2023-11-16 18:17:03.9799600, in the years 1970-2199))");
  std::string missing = write_temp("gen_missing.jsonl", R"({"t": "2024-05-10 00:00:00.5+00:00", "in": 9, "out": 2})" "\n");
  CHECK(read_error(missing, o) ==
        missing + R"(:1: missing field "blocks": "{"t": "2024-05-10 00:00:00.5+00:00", "in": 9, "out": 2}" (expected {"t": <time in datetime>, "in": <tokens>, "out": <tokens>, "blocks": [<block ids>]}))");
}

// ---------------------------------------------------------------- whole-file errors
TEST_CASE("unknown format, empty file, header only, all rows bad, wrong explicit format") {
  std::string unknown = write_temp("unknown.csv", "foo,bar\n1,2\n");
  CHECK(read_error(unknown) ==
        unknown + ":1: unknown trace format: \"foo,bar\" (expected a Mooncake JSONL row " + kMooncakeForm +
            ", or a CSV header of Azure (TIMESTAMP,ContextTokens,GeneratedTokens), BurstGPT (Timestamp,Model,Request "
            "tokens,Response tokens,Total tokens,Log Type) or Vidur (arrived_at,num_prefill_tokens,num_decode_tokens); "
            "for other files name the format (csv or jsonl) and the columns)");
  std::string json_unknown = write_temp("unknown.jsonl", "\n{\"time\": 1}\n");
  CHECK(read_error(json_unknown).rfind(json_unknown + ":2: unknown trace format: \"{\"time\": 1}\" (expected", 0) == 0);

  std::string empty = write_temp("empty.jsonl", "");
  CHECK(read_error(empty).rfind(empty + ": empty file (expected a trace: a Mooncake JSONL row", 0) == 0);
  std::string blank = write_temp("blank.csv", "\n  \n\r\n");
  CHECK(read_error(blank).rfind(blank + ": only blank lines, no row (expected a trace: ", 0) == 0);
  // Control bytes of a bad row are escaped: no terminal escape reaches stderr, a NUL does not cut the message.
  static const char kControlRows[] = "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03.9799600,1\x1b[2J\0x,5\n";
  std::string control = write_temp("control.csv", std::string(kControlRows, sizeof kControlRows - 1));
  CHECK(read_error(control) == control + ":2: ContextTokens is not a number: \"1\\x1b[2J\\x00x\" (expected a positive "
                                         "integer token count)");
  std::string header_only = write_temp("header_only.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n");
  CHECK(read_error(header_only) == header_only + ": no rows after the header (expected " + kAzureForm + ")");

  std::string all_bad = write_temp("all_bad.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\nx,1,1\ny,1,1\n");
  TraceReadOptions skip;
  skip.skip_bad_rows = true;
  CHECK(read_error(all_bad, skip) ==
        all_bad + ": no valid row: all 2 rows are bad (first: " + all_bad +
            R"(:2: TIMESTAMP is not a date-time: "x" (expected a date-time like 2023-11-16 18:17:03.9799600, in the years 1970-2199)))");

  std::string vidur = write_temp("vidur_as_azure.csv", "arrived_at,num_prefill_tokens,num_decode_tokens\n0,1,1\n");
  CHECK(read_error(vidur, with_format(TraceFormat::azure)) ==
        vidur + ":1: the header lacks column \"TIMESTAMP\": \"arrived_at,num_prefill_tokens,num_decode_tokens\" "
                "(expected " + kAzureForm + ")");
  CHECK(read_error("/nonexistent/trace.csv") == "/nonexistent/trace.csv: cannot open file: No such file or directory");
  CHECK(error_of([] { trace_format_parse("sharegpt"); }) ==
        R"(unknown trace format "sharegpt" (expected one of "auto", "mooncake", "azure", "burstgpt", "vidur", "csv", "jsonl"))");
}

TEST_CASE("skip_bad_rows keeps the first five messages and counts them all") {
  std::string text = "arrived_at,num_prefill_tokens,num_decode_tokens\n";
  for (int i = 0; i < 20; ++i) text += std::to_string(i) + (i % 2 ? ",x,1\n" : ",5,1\n");
  TraceReadOptions skip;
  skip.skip_bad_rows = true;
  std::string path = write_temp("many_bad.csv", text);
  TraceReadResult r = trace_read(path, skip);
  CHECK(r.requests.size() == 10);
  CHECK(r.report.bad_rows_skipped == 10);
  REQUIRE(r.report.first_bad_rows.size() == 5);
  CHECK(r.report.first_bad_rows[4] == path + ":11: num_prefill_tokens is not a number: \"x\" " + kInputForm);
}

TEST_CASE("a reader stops when asked, without reading the rest") {
  std::string text = "arrived_at,num_prefill_tokens,num_decode_tokens\n";
  for (int i = 0; i < 1000; ++i) text += std::to_string(i) + ",5,1\n";
  text += "this row is never read\n";
  int64_t seen = 0;
  TraceReadReport report = trace_read_each(write_temp("stop.csv", text), {}, [&](Request&& r) {
    ++seen;
    return r.arrival_s < 9;
  });
  CHECK(seen == 10);
  CHECK(report.rows == 10);
  CHECK(report.stopped_early);
}

// ---------------------------------------------------------------- the shipped traces
TEST_CASE("the shipped Mooncake conversation trace: the published figures") {
  TraceReadResult r = trace_read(lynx_test::shipped(lynx_test::kMooncakeTrace));
  CHECK(r.report.format == TraceFormat::mooncake);
  CHECK(r.report.rows == 12031);
  CHECK(r.report.bad_rows_skipped == 0);
  CHECK(r.report.failed_rows == 0);
  TraceStats s = trace_stats_compute(r.requests, kMooncakeBlockTokens);
  CHECK(s.requests == 12031);
  CHECK(s.span_s == 3536.999);
  CHECK(s.input_tokens_total == 144793823);
  CHECK(s.input.mean == doctest::Approx(12035.061341534369).epsilon(1e-12));
  CHECK(std::llround(s.input.mean) == 12035);
  CHECK(s.input.p50 == 6909);
  CHECK(s.input.p90 == 27367);
  CHECK(s.input.p99 == 85401);
  CHECK(s.input.max == 126195);
  CHECK(std::llround(1000 * s.input.share_over_8k) == 450);  // 45.0%
  CHECK(std::llround(1000 * s.input.share_over_32k) == 69);  // 6.9%
  CHECK(std::llround(s.output.mean) == 343);
  CHECK(s.output.max == 2000);
  CHECK(s.prefix_hit_tokens == 54098411);
  CHECK(std::llround(1000 * s.prefix_hit_ratio) == 374);  // 37.4%
}

TEST_CASE("the shipped Azure 2023 code trace") {
  TraceReadResult r = trace_read(lynx_test::shipped(lynx_test::kAzureCodeTrace));
  CHECK(r.report.format == TraceFormat::azure);
  CHECK(r.report.rows == 8819);
  TraceStats s = trace_stats_compute(r.requests);
  CHECK(s.requests == 8819);
  CHECK(s.span_s == 3435.948056);  // 18:17:03.9799600 to 19:14:19.9280160
  CHECK(s.input.p50 == 1469);
  CHECK(s.input.p99 == 7436);
  CHECK(s.input.max == 7437);
  CHECK(s.output.max == 1899);
  CHECK(!s.has_prefix_blocks);
}
