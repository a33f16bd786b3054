// Experiment files, sweeps and results: validation with named errors, the example experiments (run here, the demo
// on a reduced grid) with their key numbers checked, reruns that skip finished points, and shards that merge into
// the unsharded result byte for byte.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/json_reader.hpp"
#include "experiments/experiment.hpp"
#include "experiments/results.hpp"
#include "experiments/sweep_runner.hpp"

using namespace lynx;
namespace fs = std::filesystem;

namespace {
const std::string kExperiments = std::string(LYNX_SOURCE_DIR) + "/experiments";

// summary.csv as rows of column -> text.
std::vector<std::map<std::string, std::string>> read_summary(const std::string& dir) {
  std::ifstream in(dir + "/summary.csv");
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  std::stringstream hs(line);
  for (std::string cell; std::getline(hs, cell, ',');) header.push_back(cell);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    std::stringstream ls(line);
    std::map<std::string, std::string> row;
    size_t i = 0;
    for (std::string cell; std::getline(ls, cell, ',');) row[header.at(i++)] = cell;
    rows.push_back(row);
  }
  return rows;
}

double value(const std::vector<std::map<std::string, std::string>>& rows,
             const std::map<std::string, std::string>& where, const std::string& column) {
  for (const auto& row : rows) {
    bool match = true;
    for (const auto& [k, v] : where) match = match && row.at(k) == v;
    if (match) return std::stod(row.at(column));
  }
  FAIL("no row matches");
  return 0;
}

SweepOptions quiet(const std::string& dir, int jobs = 2) {
  SweepOptions o;
  o.out_dir = dir;
  o.jobs = jobs;
  o.progress = false;
  return o;
}

// Every regular file under dir (relative path -> content).
std::map<std::string, std::string> tree(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file()) files[fs::relative(entry.path(), dir).string()] = read_file(entry.path().string());
  return files;
}

std::string fresh_dir(const std::string& name) {
  // Per process: test runs of other checkouts on the same machine must not share the folder.
  fs::path p = fs::temp_directory_path() / ("lynx_exp_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p.string();
}
}  // namespace

TEST_CASE("points are crossed (first axis slowest) or zipped, with linked paths moving together") {
  nlohmann::json e = nlohmann::json::parse(R"({
    "name": "t",
    "base": {"model": "llama-3.1-8b",
             "workload": {"synthetic": {"rate_per_s": 1, "count": 2, "input_tokens": {"fixed": 100},
                                        "output_tokens": {"fixed": 2}}}},
    "sweep": {"axes": [{"paths": ["model", "cluster.decode.tp"], "values": [["llama-3.1-8b", 1], ["llama-3.1-70b", 4]]},
                       {"path": "cluster.network.nic_gbps", "values": [10, 100, 400]}]}})");
  Experiment x = experiment_from_json(e, "x.json", "");
  REQUIRE(x.points.size() == 6);
  CHECK(x.points[0].name == "p0000_model=llama-3.1-8b_nic_gbps=10");
  CHECK(x.points[4].name == "p0004_model=llama-3.1-70b_nic_gbps=100");
  CHECK(x.points[4].config["cluster"]["decode"]["tp"] == 4);
  CHECK(x.points[4].config["cluster"]["network"]["nic_gbps"] == 100);
  e["sweep"]["mode"] = "zip";
  CHECK_THROWS_WITH_AS(experiment_from_json(e, "x.json", ""),
                       doctest::Contains("x.json: $.sweep.axes[1].values: zip needs every axis to have 2 values"),
                       LynxError);
}

TEST_CASE("a bad path or value is an error naming the file, axis and point, before anything runs") {
  nlohmann::json base = nlohmann::json::parse(R"({"model": "llama-3.1-8b",
    "workload": {"synthetic": {"rate_per_s": 1, "count": 2, "input_tokens": {"fixed": 100}, "output_tokens": {"fixed": 2}}}})");
  auto error_of = [&](const char* axes) {
    try {
      nlohmann::json e = {{"name", "t"}, {"base", base}};
      e["sweep"]["axes"] = nlohmann::json::parse(axes);
      experiment_from_json(e, "exp.json", "");
      return std::string("no error");
    } catch (const LynxError& e) {
      return std::string(e.what());
    }
  };
  CHECK(error_of(R"([{"path": "cluster.network.nic_gpbs", "values": [10]}])")
            .find("exp.json: sweep point 0 (cluster.network.nic_gpbs = 10)") == 0);
  CHECK(error_of(R"([{"path": "cluster.network.nic_gpbs", "values": [10]}])").find("$.cluster.network.nic_gpbs: unknown field") !=
        std::string::npos);
  CHECK(error_of(R"([{"path": "cluster.network.nic_gbps", "values": [100, -5]}])")
            .find("sweep point 1 (cluster.network.nic_gbps = -5)") != std::string::npos);
  CHECK(error_of(R"([{"path": "format", "values": ["bf16", "int4-g7"]}])").find("$.format: expected a KV format name") !=
        std::string::npos);
  CHECK(error_of(R"([{"path": "format", "values": []}])") ==
        "exp.json: $.sweep.axes[0].values: expected a non-empty array, got []");
}

TEST_CASE("the example experiments validate") {
  for (const char* name : {"ttft_vs_bandwidth.json", "lynx_headline.json", "prefix_caching.json", "anchor_width.json",
                           "lynx_regimes.json"}) {
    CAPTURE(name);
    Experiment e = experiment_load(kExperiments + "/" + name);
    CHECK(!e.points.empty());
  }
}

TEST_CASE("lynx_regimes: every point of the map, and a numeric path component indexes an array element") {
  Experiment e = experiment_load(kExperiments + "/lynx_regimes.json");
  // 7 bandwidths x 8 (model, prompt) x 3 loads x 3 distances x 2 cross traffic x 6 (format, acceptance, policy,
  // serving): the sixth is co-located serving on the same GPUs.
  CHECK(e.points.size() == 7 * 8 * 3 * 3 * 2 * 6);
  const nlohmann::json& adaptive = e.points[e.points.size() - 2].config;
  CHECK(adaptive["transfer"]["format_policy"] == "adaptive");
  CHECK(adaptive["transfer"]["adaptive_formats"] == nlohmann::json{"lynx-a4r4-g64"});
  CHECK(adaptive["cluster"]["serving"] == "disaggregated");
  const nlohmann::json& last = e.points.back().config;
  CHECK(last["cluster"]["serving"] == "colocated");
  CHECK(last["format"] == "bf16");
  CHECK(last["cluster"]["network"]["site_links"][0]["latency_ms"] == 10);
  CHECK(last["cluster"]["network"]["site_links"][0]["bandwidth_gbps"] == 3200);
  CHECK(last["cluster"]["network"]["site_links"][0]["cross_traffic"]["fraction"] == 0.5);
  nlohmann::json config = {{"a", {{{"b", 1}}, {{"b", 2}}}}};
  json_set_path(config, "a.1.b", 5);
  CHECK(config["a"][1]["b"] == 5);
  CHECK_THROWS_WITH_AS(json_set_path(config, "a.2.b", 5), doctest::Contains("index 2 is past the end"), LynxError);
}

TEST_CASE("lynx_headline: int8 over Lynx up to 1.422x when the KV crosses after the prefill, Lynx's first token as int4's") {
  Experiment e = experiment_load(kExperiments + "/lynx_headline.json");
  const std::string dir = fresh_dir("headline");
  SweepReport report = sweep_run(e, quiet(dir));
  CHECK(report.ran == e.points.size());
  auto rows = read_summary(dir);
  double previous = 1e9;
  for (const char* gbps : {"10", "25", "40", "50", "100"}) {
    CAPTURE(gbps);
    for (const char* mode : {"layer-wise", "after-prefill"}) {
      CAPTURE(mode);
      auto at = [&](const char* format, const char* acceptance = "") {  // "": the measured statistics (the file)
        return std::map<std::string, std::string>{{"transfer.mode", mode}, {"lynx.acceptance_rate", acceptance},
                                                  {"format", format}, {"cluster.network.nic_gbps", gbps}};
      };
      // The first speculative token does not depend on acceptance; the three times keep their order.
      for (const char* acceptance : {"0.9", "0.99"}) {
        CHECK(value(rows, at("lynx-a4r4-g64", acceptance), "median_ttft_spec_ms") ==
              value(rows, at("lynx-a4r4-g64"), "median_ttft_spec_ms"));
        CHECK(value(rows, at("lynx-a4r4-g64", acceptance), "median_ttft_correct_ms") <=
              value(rows, at("lynx-a4r4-g64", acceptance), "median_ttft_ms"));
      }
      const double int8 = value(rows, at("int8-g64"), "median_ttft_ms");
      const double int4 = value(rows, at("int4-g64"), "median_ttft_ms");
      const double bf16 = value(rows, at("bf16"), "median_ttft_ms");
      const double lynx_spec = value(rows, at("lynx-a4r4-g64"), "median_ttft_spec_ms");
      const double lynx = value(rows, at("lynx-a4r4-g64"), "median_ttft_ms");
      CHECK(bf16 > int8);
      CHECK(int8 / lynx_spec > 1.0);
      CHECK(lynx_spec / int4 == doctest::Approx(1.0).epsilon(0.002));
      CHECK(lynx >= lynx_spec);
      if (std::string(mode) == "after-prefill") {
        CHECK(int8 / lynx_spec < previous);  // the gain shrinks as the network gets faster
        previous = int8 / lynx_spec;
        if (std::string(gbps) == "10") {
          // The value the code computes now, from summary.csv's 10-digit medians: int8's TTFT 3327.973655 ms over
          // Lynx's first speculative token 2340.936952 ms, both with vLLM 0.24's H200 kernels as that engine serves
          // (the experiment's engine: its 8192-token prefill chunks, docs/engines.md). The README's figures table
          // ("The paper's regime", 10 Gbps, after prefill, / ttft_spec) shows it as 1.422 and must agree. The gap is
          // the transfer's closed form on the default connector (vllm-mooncake over rdma), int8's bytes against the anchor's (which
          // shares the NIC 1000:1 with its residual), and int8's longer first decode step.
          const double expected = 3327.973655 / 2340.936952, ratio = int8 / lynx_spec;
          CAPTURE(ratio);
          CHECK(std::fabs(ratio - expected) <= 1e-9 * expected);
          CHECK(std::lround(expected * 1000) == 1422);  // the README's 1.422
        }
      }
    }
  }
  fs::remove_all(dir);
}

TEST_CASE("ttft_vs_bandwidth (the demo) on a reduced grid: 300 requests, 10 and 100 Gbps") {
  nlohmann::json source = json_parse_file(kExperiments + "/ttft_vs_bandwidth.json");
  source["base"]["workload"]["first_n"] = 300;
  source["sweep"]["axes"][2]["values"] = {10, 100};
  Experiment e = experiment_from_json(source, kExperiments + "/ttft_vs_bandwidth.json", kExperiments);
  REQUIRE(e.points.size() == 16);
  const std::string dir = fresh_dir("demo");
  SweepReport report = sweep_run(e, quiet(dir));
  CHECK(report.ran == 16);
  auto rows = read_summary(dir);
  for (const char* model : {"llama-3.1-8b", "llama-3.1-70b"}) {
    CAPTURE(model);
    auto at = [&](const char* format, const char* gbps) {
      return std::map<std::string, std::string>{{"model", model}, {"format", format}, {"cluster.network.nic_gbps", gbps}};
    };
    CHECK(value(rows, at("bf16", "10"), "completed") == 300);
    CHECK(value(rows, at("bf16", "10"), "median_ttft_ms") > value(rows, at("int8-g64", "10"), "median_ttft_ms"));
    CHECK(value(rows, at("int8-g64", "10"), "median_ttft_ms") > value(rows, at("int4-g64", "10"), "median_ttft_ms"));
    CHECK(value(rows, at("lynx-a4r4-g64", "10"), "median_ttft_spec_ms") <
          value(rows, at("int8-g64", "10"), "median_ttft_ms"));
    for (const char* format : {"bf16", "int8-g64", "int4-g64", "lynx-a4r4-g64"})
      CHECK(value(rows, at(format, "100"), "median_ttft_ms") <= value(rows, at(format, "10"), "median_ttft_ms"));
  }
  fs::remove_all(dir);
}

TEST_CASE("prefix_caching on the first 3000 requests: the cache serves prompt tokens, and exposes more transfer") {
  nlohmann::json source = json_parse_file(kExperiments + "/prefix_caching.json");
  source["base"]["workload"]["first_n"] = 3000;
  source["sweep"]["axes"][2]["values"] = {25, 100};
  Experiment e = experiment_from_json(source, kExperiments + "/prefix_caching.json", kExperiments);
  REQUIRE(e.points.size() == 8);
  const std::string dir = fresh_dir("prefix");
  SweepReport report = sweep_run(e, quiet(dir));
  CHECK(report.ran == 8);
  auto rows = read_summary(dir);
  for (const char* format : {"int8-g64", "lynx-a4r4-g64"})
    for (const char* gbps : {"25", "100"}) {
      CAPTURE(format);
      CAPTURE(gbps);
      auto at = [&](const char* cache) {
        return std::map<std::string, std::string>{
            {"cluster.prefill.prefix_cache", cache}, {"format", format}, {"cluster.network.nic_gbps", gbps}};
      };
      CHECK(value(rows, at("false"), "prefix_cache_hit_ratio") == 0);
      const double hit = value(rows, at("true"), "prefix_cache_hit_ratio");
      CHECK(hit > 0.05);
      CHECK(hit < 0.374);  // below the trace's infinite-cache ratio
      CHECK(value(rows, at("true"), "prefill_tokens_saved") ==
            doctest::Approx(hit * value(rows, at("true"), "total_input_tokens")));
      CHECK(value(rows, at("true"), "mean_exposed_transfer_ms") >= value(rows, at("false"), "mean_exposed_transfer_ms"));
    }
  fs::remove_all(dir);
}

TEST_CASE("anchor_width at 10 Gbps: wider anchors draft later but are kept more often, a middle width is first") {
  nlohmann::json source = json_parse_file(kExperiments + "/anchor_width.json");
  source["base"]["workload"]["first_n"] = 1000;
  source["sweep"]["axes"][1]["values"] = {10};
  Experiment e = experiment_from_json(source, kExperiments + "/anchor_width.json", kExperiments);
  const std::string dir = fresh_dir("anchor_width");
  SweepReport report = sweep_run(e, quiet(dir));
  REQUIRE(report.ran == 12);
  auto rows = read_summary(dir);
  auto at = [](const std::string& format) {
    return std::map<std::string, std::string>{{"format", format}, {"cluster.network.nic_gbps", "10"}};
  };
  for (const char* split : {"", "-rq"}) {
    CAPTURE(split);
    double previous_spec = 0, previous_kept = -1;
    for (int a = 2; a <= 6; ++a) {
      const std::string f = "lynx-a" + std::to_string(a) + "r" + std::to_string(8 - a) + "-g64" + split;
      CAPTURE(f);
      const double spec = value(rows, at(f), "median_ttft_spec_ms"), kept = value(rows, at(f), "first_draft_kept_rate");
      CHECK(spec > previous_spec);  // more anchor bytes before the first draft
      CHECK(kept > previous_kept);  // drafts on a wider anchor are kept more often
      CHECK(spec <= value(rows, at(f), "median_ttft_correct_ms"));
      previous_spec = spec;
      previous_kept = kept;
    }
    const std::string a2 = std::string("lynx-a2r6-g64") + split, a5 = std::string("lynx-a5r3-g64") + split;
    CHECK(value(rows, at(a5), "median_ttft_correct_ms") < value(rows, at(a2), "median_ttft_correct_ms"));
    CHECK(value(rows, at(a5), "median_ttft_correct_ms") < value(rows, at("int8-g64"), "median_ttft_correct_ms"));
  }
  fs::remove_all(dir);
}

TEST_CASE("a rerun skips finished points and ends identical to an uninterrupted run, shards merge byte for byte") {
  nlohmann::json source = json_parse_file(kExperiments + "/lynx_headline.json");
  source["sweep"]["axes"][3]["values"] = {10, 100};
  Experiment e = experiment_from_json(source, kExperiments + "/lynx_headline.json", kExperiments);
  const std::string whole = fresh_dir("whole"), again = fresh_dir("again");
  sweep_run(e, quiet(whole));
  // A run that lost some points (as if interrupted: no summary, a stale temporary) finishes them on rerun.
  sweep_run(e, quiet(again));
  fs::remove_all(again + "/" + e.points[3].name);
  fs::remove(again + "/" + e.points[5].name + "/summary.json");
  write_file_atomic(again + "/" + e.points[5].name + "/requests.csv", "partial");
  SweepReport rerun = sweep_run(e, quiet(again, 1));
  CHECK(rerun.skipped == e.points.size() - 2);
  CHECK(rerun.ran == 2);
  CHECK(tree(again) == tree(whole));
  // Shards.
  const std::string s1 = fresh_dir("shard1"), s2 = fresh_dir("shard2"), merged = fresh_dir("merged");
  SweepOptions o1 = quiet(s1), o2 = quiet(s2);
  parse_shard("1/2", o1.shard_index, o1.shard_count);
  parse_shard("2/2", o2.shard_index, o2.shard_count);
  CHECK(sweep_run(e, o1).selected + sweep_run(e, o2).selected == e.points.size());
  results_merge(merged, {s1, s2});
  CHECK(tree(merged) == tree(whole));
  CHECK_THROWS_WITH_AS(parse_shard("3/2", o1.shard_index, o1.shard_count), doctest::Contains("expected K/N"), LynxError);
  for (const auto& d : {whole, again, s1, s2, merged}) fs::remove_all(d);
}

TEST_CASE("a point that fails is reported with its error and the others go on") {
  // Llama-3.1-405B's bf16 weights (812 GB) do not fit on one H200: that point fails when it runs.
  nlohmann::json source = nlohmann::json::parse(R"({
    "name": "one_fails",
    "base": {"model": "llama-3.1-8b",
             "workload": {"synthetic": {"rate_per_s": 1, "count": 3, "input_tokens": {"fixed": 1000},
                                        "output_tokens": {"fixed": 4}}}},
    "sweep": {"axes": [{"path": "model", "values": ["llama-3.1-8b", "llama-3.1-405b", "qwen2.5-7b"]}]}})");
  Experiment e = experiment_from_json(source, "one_fails.json", "");
  const std::string dir = fresh_dir("one_fails");
  SweepReport report = sweep_run(e, quiet(dir));
  CHECK(report.ran == 2);
  CHECK(report.failed == 1);
  CHECK(read_file(dir + "/" + e.points[1].name + "/error.txt").find("do not fit in 1 x h200-sxm") != std::string::npos);
  CHECK(!fs::exists(dir + "/" + e.points[1].name + "/summary.json"));
  auto rows = read_summary(dir);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].at("model") == "llama-3.1-8b");
  CHECK(rows[1].at("model") == "qwen2.5-7b");
  fs::remove_all(dir);
}
