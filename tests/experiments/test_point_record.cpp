// A sweep point's record is its resolved configuration (sim/config/resolved_config.hpp): input paths absolute, everything
// else as written; and the first differing JSON path that the refusal to reuse a stale point names.
#include <doctest/doctest.h>

#include <filesystem>

#include "common/data_folder.hpp"
#include "common/error.hpp"
#include "experiments/point_record.hpp"
#include "sim/config/resolved_config.hpp"

using namespace lynx;
namespace fs = std::filesystem;

TEST_CASE("the first differing JSON path: keys in sorted order, nested objects and arrays, missing keys") {
  const nlohmann::json a = nlohmann::json::parse(
      R"({"seed": 1, "cluster": {"network": {"nic_gbps": 100, "latency_us": 5}}, "axes": [1, 2, 3]})");
  nlohmann::json b = a;
  CHECK(json_first_difference(a, b) == "");
  b["cluster"]["network"]["nic_gbps"] = 200;
  b["seed"] = 2;
  CHECK(json_first_difference(a, b) == "$.cluster.network.nic_gbps");  // "cluster" sorts before "seed"
  b = a;
  b["axes"][2] = 4;
  CHECK(json_first_difference(a, b) == "$.axes[2]");
  b["axes"] = {1, 2};
  CHECK(json_first_difference(a, b) == "$.axes[2]");
  b = a;
  b["cluster"]["network"].erase("latency_us");
  CHECK(json_first_difference(a, b) == "$.cluster.network.latency_us");
  b = a;
  b["seed"] = "1";  // another type is another value
  CHECK(json_first_difference(a, b) == "$.seed");
}

TEST_CASE("a resolved configuration makes every input path absolute and leaves the rest as written") {
  const std::string base = std::string(LYNX_SOURCE_DIR) + "/kernels";
  const nlohmann::json root = nlohmann::json::parse(R"({"model": "llama-3.1-8b", "format": "lynx-a4r4-g64",
      "kernel_costs": "costs/h200.json", "lynx": {"acceptance": "../models/accuracy/stories260k.json"},
      "cluster": {"network": {"nic_gbps": 25}},
      "workload": {"trace": "@data/traces/mooncake/conversation_trace.jsonl", "first_n": 10}})");
  const ResolvedConfig r = resolve_config(root, "test.json", base);
  const std::string source = fs::path(LYNX_SOURCE_DIR).lexically_normal().string();
  CHECK(r.json["kernel_costs"] == source + "/kernels/costs/h200.json");
  CHECK(r.json["lynx"]["acceptance"] == source + "/models/accuracy/stories260k.json");
  CHECK(r.json["workload"]["trace"] == data_file("traces/mooncake/conversation_trace.jsonl"));
  CHECK(fs::path(r.json["workload"]["trace"].get<std::string>()).is_absolute());
  // The rest unchanged, defaults not filled in; and the parsed configuration reads the resolved paths.
  nlohmann::json rest = r.json;
  nlohmann::json original = root;
  for (nlohmann::json* j : {&rest, &original}) {
    j->erase("kernel_costs");
    (*j)["lynx"].erase("acceptance");
    (*j)["workload"].erase("trace");
  }
  CHECK(rest == original);
  CHECK(r.config.kernel_costs == source + "/kernels/costs/h200.json");
  CHECK(r.config.network.nic_gbps == 25);
  // Resolving the resolved configuration changes nothing, wherever it is read from.
  CHECK(resolve_config(r.json, "elsewhere/config.json", "/nonexistent").json == r.json);
  // Errors name the configuration and the JSON path as written.
  nlohmann::json bad = root;
  bad["kernel_costs"] = "@data/no/such/table.json";
  CHECK_THROWS_WITH_AS(resolve_config(bad, "test.json", base),
                       doctest::Contains("test.json: $.kernel_costs: data file \"no/such/table.json\" not found"),
                       LynxError);
}
