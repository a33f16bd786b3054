// The kernel cost table: the quick CPU benchmark writes a complete table that load_cost_table reads back; the
// lookup's fallback rule; errors that name the JSON path; the committed tables (kernels/costs/) load and are
// complete; the datasheet table says it is derived. Functional tests only: no figure is checked against a time.
#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "kernels/cost_table.hpp"
#include "kernels/kernel_bench.hpp"

using namespace lynx;

namespace {
std::string temp_path(const std::string& name) { return std::string(LYNX_BINARY_DIR) + "/" + name; }
}  // namespace

TEST_CASE("the quick CPU benchmark writes a complete table that loads back") {
  KernelBenchOptions o;
  o.quick = true;
  const CostTable t = kernel_bench_cpu(o, nullptr);
  CHECK(t.device_kind == "cpu");
  CHECK(t.measured);
  CHECK(t.copy_bytes_per_s > 0);
  cost_table_check_complete(t, kernel_bench_default_formats());
  const std::string path = temp_path("test_cost_table_quick.json");
  save_cost_table(t, path);
  const CostTable back = load_cost_table(path);
  CHECK(back.kernels.size() == t.kernels.size());
  cost_table_check_complete(back, kernel_bench_default_formats());
  for (const auto& k : back.kernels) {
    CAPTURE(k.kernel);
    CAPTURE(k.format);
    CHECK(k.elements_per_s > 0);
    CHECK(k.input_bytes_per_s > 0);
    CHECK(k.ratio_to_copy > 0);
  }
  std::remove(path.c_str());
}

TEST_CASE("lookup: exact format, anchor kernels of single-stream formats, nearest group size, else an error") {
  CostTable t;
  t.device = "test";
  for (const char* f : {"int4-g32", "int4-g128", "lynx-a4r4-g64", "bf16"}) {
    KernelCost k;
    k.kernel = "attention_full";
    k.format = f;
    k.elements_per_s = f[0] == 'i' ? (f[6] == '3' ? 32 : 128) : 7;
    t.kernels.push_back(k);
  }
  CHECK(t.elements_per_s("attention_full", "int4-g32") == 32);
  CHECK(t.elements_per_s("attention_anchor", "bf16") == 7);        // bf16 has no residual: the full kernel
  CHECK(t.elements_per_s("attention_full", "int4-g256") == 128);   // nearest group size
  CHECK(t.elements_per_s("attention_full", "int4-g80") == 128);    // a tie goes to the larger group
  CHECK(t.elements_per_s("attention_full", "int4-g40") == 32);
  CHECK(t.elements_per_s("attention_full", "lynx-a4r4-g16") == 7);
  CHECK_THROWS_WITH_AS(t.elements_per_s("attention_full", "lynx-a4r4-g64-rq"), doctest::Contains("lynx-a4r4-g64-rq"),
                       LynxError);
  CHECK_THROWS_WITH_AS(t.elements_per_s("attention_anchor", "lynx-a4r4-g64"),
                       doctest::Contains("no attention_anchor cost"), LynxError);
  CHECK_THROWS_WITH_AS(t.elements_per_s("attn", "bf16"), doctest::Contains("unknown kernel"), LynxError);
}

TEST_CASE("a bad table is an error naming the file and the JSON path") {
  const std::string path = temp_path("test_cost_table_bad.json");
  const std::string head = R"({"device": "x", "device_kind": "cpu", "measured": true, "date": "2024-01-01",
                               "copy_bytes_per_s": 1e10, "kernels": [)";
  write_file_atomic(path, head + R"({"kernel": "encode", "format": "bf16", "input_bytes_per_s": 1,
                                     "elements_per_s": -1, "ratio_to_copy": 0.1}]})");
  CHECK_THROWS_WITH_AS(load_cost_table(path), doctest::Contains("$.kernels[0].elements_per_s"), LynxError);
  write_file_atomic(path, head + R"({"kernel": "encode", "format": "int9-g64", "input_bytes_per_s": 1,
                                     "elements_per_s": 1, "ratio_to_copy": 0.1}]})");
  CHECK_THROWS_WITH_AS(load_cost_table(path), doctest::Contains("$.kernels[0].format"), LynxError);
  write_file_atomic(path, head + R"({"kernel": "decode_anchor", "format": "int8-g64", "input_bytes_per_s": 1,
                                     "elements_per_s": 1, "ratio_to_copy": 0.1}]})");
  CHECK_THROWS_WITH_AS(load_cost_table(path), doctest::Contains("$.kernels[0].kernel"), LynxError);
  write_file_atomic(path, head + R"({"kernel": "encode", "format": "bf16", "input_bytes_per_s": 1,
                                     "elements_per_s": 1, "ratio_to_copy": 0.1, "speed": 3}]})");
  CHECK_THROWS_WITH_AS(load_cost_table(path), doctest::Contains("$.kernels[0].speed: unknown field"), LynxError);
  write_file_atomic(path, R"({"device": "x", "device_kind": "cuda", "measured": false, "date": "2024-01-01",
                              "copy_bytes_per_s": 1e10, "kernels": []})");
  CHECK_THROWS_WITH_AS(load_cost_table(path), doctest::Contains("$.derived_from: missing field"), LynxError);
  std::remove(path.c_str());
}

TEST_CASE("the committed cost tables load and are complete") {
  for (const char* name : {"cpu.json", "h200.json"}) {
    CAPTURE(name);
    const CostTable t = load_cost_table(std::string(LYNX_SOURCE_DIR) + "/kernels/costs/" + name);
    cost_table_check_complete(t, kernel_bench_default_formats());
    CHECK(!t.date.empty());
    if (!t.measured) CHECK(!t.derived_from.empty());
  }
}

TEST_CASE("the datasheet table is marked derived, and the Lynx anchor reads under 0.3 of bf16's bytes") {
  const CostTable t = cost_table_from_datasheet("NVIDIA H200", 4.8e12, 0.9, 0.7, kernel_bench_default_formats());
  CHECK_FALSE(t.measured);
  CHECK(t.derived_from.find("not measured") != std::string::npos);
  cost_table_check_complete(t, kernel_bench_default_formats());
  const double bf16 = t.find("attention_full", "bf16")->input_bytes_per_element;
  for (const char* f : {"lynx-a4r4-g64", "lynx-a4r4-g128", "lynx-a4r4-g64-rq"}) {
    CAPTURE(f);
    CHECK(t.find("attention_anchor", f)->input_bytes_per_element / bf16 <= 0.3);
  }
  // memory-bound: 0.7 of the copy's bandwidth over the bytes moved
  const KernelCost* e = t.find("encode", "int8-g64");
  CHECK(e->traffic_ratio_to_copy == doctest::Approx(0.7));
}
