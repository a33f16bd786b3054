// An experiment's plot section is checked before a sweep runs: every example's passes, and an unknown key, a
// wrongly typed value or a metric without a median is one error naming the file and JSON path and what is valid.
#include <doctest/doctest.h>

#include <string>

#include "common/error.hpp"
#include "common/json_reader.hpp"
#include "experiments/experiment.hpp"
#include "experiments/plot.hpp"

using namespace lynx;

namespace {
std::string error_of(const char* plot_json) {
  try {
    plot_section_check(nlohmann::json::parse(plot_json), "exp.json");
  } catch (const LynxError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("the example experiments' plot sections pass") {
  const std::string dir = std::string(LYNX_SOURCE_DIR) + "/experiments/";
  for (const char* name : {"ttft_vs_bandwidth.json", "lynx_headline.json", "prefix_caching.json", "anchor_width.json"}) {
    CAPTURE(name);
    Experiment e = experiment_load(dir + name);
    CHECK_NOTHROW(plot_section_check(e.plot, name));
  }
}

TEST_CASE("a bad plot section is one error naming the file, the JSON path and the valid values") {
  CHECK(error_of(R"({"x": "cluster.network.nic_gbps", "colour_by": "format"})") ==
        "exp.json: $.plot.colour_by: unknown field (valid here: baseline, cdf_at, facet, frontier, ratios, series, x)");
  CHECK(error_of(R"({"cdf_at": "25"})") == "exp.json: $.plot.cdf_at: expected a number, got \"25\"");
  CHECK(error_of(R"({"facet": ["model", 3]})") ==
        "exp.json: $.plot.facet: expected a swept path or a list of them, got [\"model\",3]");
  CHECK(error_of(R"({"ratios": [{"numerator": ["int8-g64", "ttft"], "denominator": ["bf16", "ttfb"]}]})") ==
        "exp.json: $.plot.ratios[0].denominator[1]: \"ttfb\" is not a metric with a median (valid: ttft, ttft_spec, "
        "ttft_correct, tpot, e2el, kv_transfer, exposed_transfer)");
  CHECK(error_of(R"({"ratios": [{"numerator": ["int8-g64"], "denominator": ["bf16", "ttft"]}]})").find(
            "$.plot.ratios[0].numerator: expected [series, metric]") != std::string::npos);
  CHECK(error_of(R"({"frontier": ["e2el", "itl"]})").find("$.plot.frontier[1]: \"itl\" is not a metric") !=
        std::string::npos);
  CHECK(error_of(R"([1])") == "exp.json: $.plot: expected a JSON object, got [1]");
  CHECK(error_of(R"({"x": "cluster.network.nic_gbps", "series": "format", "facet": "model", "baseline": "bf16"})")
            .empty());
}
