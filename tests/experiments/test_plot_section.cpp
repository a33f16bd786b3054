// An experiment's plot section and `lynxsim plot`'s options are checked once, in C++, before a sweep runs or a plot
// is drawn (experiments/plot_request.hpp): every example's section passes; an unknown key, a wrongly typed value, a
// name that is not a sweep axis, an x value that is not swept, a metric without a median or an option that does not
// fit its metric is one error naming the file and JSON path (or the option) and what is valid. What the script is
// handed is the checked request with the metric table.
#include <doctest/doctest.h>

#include <string>

#include "common/error.hpp"
#include "experiments/experiment.hpp"
#include "experiments/plot_regimes.hpp"
#include "experiments/plot_request.hpp"

using namespace lynx;

namespace {
// An experiment sweeping format and cluster.network.nic_gbps, with this plot section.
Experiment experiment_with_plot(const char* plot_json) {
  nlohmann::json e = nlohmann::json::parse(R"({"name": "t", "base": {"model": "llama-3.1-8b"},
    "sweep": {"axes": [{"path": "format", "values": ["bf16", "int8-g64", "lynx-a4r4-g64"]},
                       {"path": "cluster.network.nic_gbps", "values": [100, 10, 25]}]}})");
  e["plot"] = nlohmann::json::parse(plot_json);
  return experiment_from_json(e, "exp.json", "", false);
}

std::string error_of(const char* plot_json, const PlotOptions& options = {}) {
  try {
    plot_request_read(experiment_with_plot(plot_json), options);
  } catch (const LynxError& e) {
    return e.what();
  }
  return "";
}

PlotOptions metric_options(const char* metric, const char* stat = "", bool cdf = false,
                           std::vector<std::string> at = {}) {
  PlotOptions o;
  o.metric = metric;
  o.stat = stat;
  o.cdf = cdf;
  o.at_values = std::move(at);
  return o;
}
}  // namespace

TEST_CASE("the example experiments' plot sections pass") {
  const std::string dir = std::string(LYNX_SOURCE_DIR) + "/experiments/";
  for (const char* name :
       {"ttft_vs_bandwidth.json", "lynx_headline.json", "prefix_caching.json", "anchor_width.json"}) {
    CAPTURE(name);
    Experiment e = experiment_load(dir + name);
    CHECK_NOTHROW(plot_request_read(e));
  }
}

TEST_CASE("a regime map names three different axes and a series with a lynx value and another") {
  Experiment e = experiment_load(std::string(LYNX_SOURCE_DIR) + "/experiments/lynx_regimes.json");
  CHECK(plot_is_regime_map(e));
  CHECK_NOTHROW(regime_map_check(e));
  const nlohmann::json request = regime_map_request(e, "out");
  CHECK(request["y"] == "workload.synthetic.input_tokens.fixed");
  CHECK(request["axes"].size() == e.axes.size());
  auto error_with = [&](const char* key, const nlohmann::json& value) {
    Experiment bad = e;
    bad.plot[key] = value;
    try {
      regime_map_check(bad);
    } catch (const LynxError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  CHECK(error_with("y", "cluster.network.nic_gbps").find("must be different sweep axes") != std::string::npos);
  CHECK(error_with("y", "seed").find("$.plot.y: \"seed\" is not a sweep axis") != std::string::npos);
  CHECK(error_with("series", "workload.time_scale").find("a value starting \"lynx\"") != std::string::npos);
  CHECK(error_with("series", nlohmann::json({"format", "workload.time_scale"})) ==
        e.origin + ": $.plot.series: a regime map compares the values of one series path, got 2 paths");
  CHECK(error_with("series", nlohmann::json({"format"})) == "no error");
}

TEST_CASE("series names one path or several: a line per combination, the first path naming it") {
  nlohmann::json e = nlohmann::json::parse(R"({"name": "t", "base": {"model": "llama-3.1-8b"},
    "sweep": {"axes": [{"path": "format", "values": ["int8-g64", "lynx-a4r4-g64"]},
                       {"path": "transfer.chunk_layers", "values": [2, 16]},
                       {"path": "cluster.network.nic_gbps", "values": [10, 25]}]}})");
  auto read = [&](const char* plot_json) {
    nlohmann::json with = e;
    with["plot"] = nlohmann::json::parse(plot_json);
    return plot_request_read(experiment_from_json(with, "exp.json", "", false));
  };
  auto error_of_keys = [&](const char* plot_json) {
    try {
      read(plot_json);
    } catch (const LynxError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  const PlotRequest r = read(R"({"series": ["format", "transfer.chunk_layers"], "baseline": "int8-g64"})");
  CHECK(r.series == "format");
  CHECK(r.series_more == std::vector<std::string>{"transfer.chunk_layers"});
  // The script is told which paths name a line and which of them a baseline is matched on.
  const Experiment ex = [&] {
    nlohmann::json with = e;
    with["plot"] = {{"series", {"format", "transfer.chunk_layers"}}, {"baseline", "int8-g64"}};
    return experiment_from_json(with, "exp.json", "", false);
  }();
  const nlohmann::json j = plot_request_json(plot_request_read(ex), ex, "results", "out");
  CHECK(j["series"] == "format");
  CHECK(j["series_more"] == nlohmann::json({"transfer.chunk_layers"}));
  CHECK(j["series_extra_paths"] == nlohmann::json({"transfer.chunk_layers"}));
  // One path as an array is the same as the string.
  CHECK(read(R"({"series": ["format"], "facet": "transfer.chunk_layers"})").series_more.empty());
  // Without the second key, chunk_layers is an axis the plot would merge: refused as before.
  CHECK(error_of_keys(R"({"series": "format"})") ==
        "exp.json: $.plot: axis \"transfer.chunk_layers\" has several values; name it as \"facet\"");
  CHECK(error_of_keys(R"({"series": ["format", "seed"]})") ==
        "exp.json: $.plot.series[1]: \"seed\" is not a sweep axis (axes: format, transfer.chunk_layers, "
        "cluster.network.nic_gbps)");
  CHECK(error_of_keys(R"({"series": ["format", "transfer.chunk_layers", "format"]})") ==
        "exp.json: $.plot.series[2]: \"format\" is named twice");
  CHECK(error_of_keys(R"({"series": ["format", 2]})") ==
        "exp.json: $.plot.series: expected a sweep axis path, or an array of them (absent: \"format\"), got "
        "[\"format\",2]");
  CHECK(error_of_keys(R"({"series": []})").find("$.plot.series: expected a sweep axis path") != std::string::npos);
  // The baseline is a value of the first path.
  CHECK(error_of_keys(R"({"series": ["format", "transfer.chunk_layers"], "baseline": "2"})") ==
        "exp.json: $.plot.baseline: \"2\" is not a value of the series axis format (its values: int8-g64, "
        "lynx-a4r4-g64)");
}

TEST_CASE("the plot section is read with its declared defaults and cdf_at names a value of x, number or text") {
  const PlotRequest r = plot_request_read(experiment_with_plot("{}"));
  CHECK(r.x == "cluster.network.nic_gbps");
  CHECK(r.series == "format");
  CHECK(r.baseline == "bf16");
  CHECK(r.facets.empty());
  CHECK(r.ttft_cdf_at.empty());
  CHECK(plot_request_read(experiment_with_plot(R"({"cdf_at": 25})")).ttft_cdf_at == "25");
  CHECK(plot_request_read(experiment_with_plot(R"({"cdf_at": "25"})")).ttft_cdf_at == "25");  // as the schema says
  CHECK(plot_request_read(experiment_with_plot(R"({"cdf_at": 25.0})")).ttft_cdf_at == "25");
  CHECK(plot_request_read(experiment_with_plot(R"({"x": "format", "series": "cluster.network.nic_gbps",
                                                   "cdf_at": "int8-g64"})")).ttft_cdf_at == "int8-g64");
  CHECK(error_of(R"({"cdf_at": 40})") ==
        "exp.json: $.plot.cdf_at: 40: not a value of cluster.network.nic_gbps (10, 25, 100)");
  CHECK(error_of(R"({"cdf_at": "x"})") ==
        "exp.json: $.plot.cdf_at: x: not a value of cluster.network.nic_gbps (10, 25, 100)");
}

TEST_CASE("a bad plot section is one error naming the file, the JSON path and the valid values") {
  CHECK(error_of(R"({"x": "cluster.network.nic_gbps", "colour_by": "format"})") ==
        "exp.json: $.plot.colour_by: unknown field (valid here: baseline, cdf_at, facet, frontier, kind, ratios, series, x, y)");
  CHECK(error_of(R"({"cdf_at": true})") ==
        "exp.json: $.plot.cdf_at: expected a value of the x axis (number or string), got true");
  CHECK(error_of(R"({"facet": ["model", 3]})") ==
        "exp.json: $.plot.facet: expected a sweep axis path, or an array of them, got [\"model\",3]");
  CHECK(error_of(R"({"x": "cluster.network.latency_us"})") ==
        "exp.json: $.plot.x: \"cluster.network.latency_us\" is not a sweep axis (axes: format, "
        "cluster.network.nic_gbps)");
  CHECK(error_of(R"({"series": "cluster.network.nic_gbps", "x": "format", "facet": ["model"]})") ==
        "exp.json: $.plot.facet[0]: \"model\" is not a sweep axis (axes: format, cluster.network.nic_gbps)");
  CHECK(error_of(R"({"x": "format", "series": "format"})") ==
        "exp.json: $.plot: axis \"cluster.network.nic_gbps\" has several values; name it as \"facet\"");
  CHECK(error_of(R"({"ratios": [{"numerator": ["int8-g64", "ttft"], "denominator": ["bf16", "ttfb"]}]})") ==
        "exp.json: $.plot.ratios[0].denominator[1]: \"ttfb\" is not a metric with a median (valid: ttft, ttft_spec, "
        "ttft_correct, tpot, e2el, kv_transfer, exposed_transfer)");
  CHECK(error_of(R"({"ratios": [{"numerator": ["int8-g64"], "denominator": ["bf16", "ttft"]}]})").find(
            "$.plot.ratios[0].numerator: expected [series, metric]") != std::string::npos);
  CHECK(error_of(R"({"ratios": [{"numerator": ["a", "ttft"], "denominator": ["b", "ttft"], "by": 1}]})").find(
            "$.plot.ratios[0].by: unknown field") != std::string::npos);
  CHECK(error_of(R"({"frontier": ["e2el", "itl"]})").find("$.plot.frontier[1]: \"itl\" is not a metric") !=
        std::string::npos);
  CHECK(error_of(R"({"x": "cluster.network.nic_gbps", "series": "format", "baseline": "bf16"})").empty());
  // A series a figure divides by is one the sweep runs (named, else the figure is left out or prints nan rows).
  CHECK(error_of(R"({"x": "cluster.network.nic_gbps", "series": "format", "baseline": "fp8"})").find(
            "exp.json: $.plot.baseline: \"fp8\" is not a value of the series axis format (its values: ") == 0);
  CHECK(error_of(R"({"ratios": [{"numerator": ["a", "ttft"], "denominator": ["bf16", "ttft"]}]})").find(
            "exp.json: $.plot.ratios[0].numerator[0]: \"a\" is not a value of the series axis format") == 0);
}

TEST_CASE("the options must fit the metric and name swept x values") {
  CHECK(error_of("{}", metric_options("ttfb")).find("--metric ttfb: unknown metric (valid: ttft, ") == 0);
  CHECK(error_of("{}", metric_options("itl", "p99")) ==
        "--stat p99: summary.json holds only the mean of itl (mean_itl_ms); valid --stat for itl: mean");
  CHECK(error_of("{}", metric_options("goodput", "p50")) ==
        "--stat p50: goodput is one value per point (request_goodput in summary.json); leave --stat out");
  CHECK(error_of("{}", metric_options("goodput", "", true)).find("--cdf: goodput has no per-request value in "
                                                                 "requests.csv (CDFs of: ttft, ttft_spec,") == 0);
  CHECK(error_of("{}", metric_options("ttft", "p99", true)) ==
        "--stat: a CDF shows every request; leave --stat out with --cdf");
  CHECK(error_of("{}", metric_options("ttft", "", true, {"40"})) ==
        "--at 40: not a value of cluster.network.nic_gbps (10, 25, 100)");
  CHECK(error_of("{}", metric_options("ttft", "", false, {"25"})) == "--at needs --cdf");
  PlotOptions stat_alone;
  stat_alone.stat = "p99";
  CHECK(error_of("{}", stat_alone).find("--stat needs --metric (one of: ttft, ") == 0);

  const PlotRequest itl = plot_request_read(experiment_with_plot("{}"), metric_options("itl"));
  CHECK(itl.stat == "mean");
  const PlotRequest tpot = plot_request_read(experiment_with_plot("{}"), metric_options("tpot"));
  CHECK(tpot.stat == "p50");
  // A CDF at the plot section's cdf_at, else at the smallest x; --at values each once, as summary.csv writes them.
  CHECK(plot_request_read(experiment_with_plot("{}"), metric_options("ttft", "", true)).cdf_at ==
        std::vector<std::string>{"10"});
  CHECK(plot_request_read(experiment_with_plot(R"({"cdf_at": 25})"), metric_options("ttft", "", true)).cdf_at ==
        std::vector<std::string>{"25"});
  CHECK(plot_request_read(experiment_with_plot("{}"), metric_options("kv_transfer", "", true, {"100", "1e2", "10.0"}))
            .cdf_at == std::vector<std::string>{"100", "10"});
}

TEST_CASE("the script is handed the checked request and the metric table") {
  const Experiment e = experiment_with_plot(R"({"cdf_at": 25, "frontier": ["e2el"],
      "ratios": [{"numerator": ["int8-g64", "ttft"], "denominator": ["lynx-a4r4-g64", "ttft_spec"]}]})");
  const nlohmann::json j =
      plot_request_json(plot_request_read(e, metric_options("tpot", "p99")), e, "/nowhere", "/out");
  CHECK(j["x"] == "cluster.network.nic_gbps");
  CHECK(j["series_values"] == nlohmann::json({"bf16", "int8-g64", "lynx-a4r4-g64"}));
  CHECK(j["ttft_cdf_at"] == "25");
  CHECK(j["ratios"][0]["denominator"] == nlohmann::json({"lynx-a4r4-g64", "ttft_spec"}));
  CHECK(j["metric"]["column"] == "p99_tpot_ms");
  CHECK(j["metrics"]["ttft"]["columns"]["p50"] == "median_ttft_ms");
  CHECK(j["metrics"]["itl"]["columns"] == nlohmann::json({{"mean", "mean_itl_ms"}}));
  CHECK(j["metrics"]["goodput"]["columns"].empty());
  CHECK(j["metrics"]["goodput"]["column"] == "request_goodput");
  CHECK(j["metrics"].size() == plot_metrics().size());
  CHECK(j["request_values"].empty());  // no CDF asked for
}

TEST_CASE("--slo names a metric in ms that a plot of the command shows, and a positive value") {
  auto slo = [](std::vector<std::string> slos, const char* metric = "") {
    PlotOptions o;
    o.metric = metric;
    o.slo = std::move(slos);
    return o;
  };
  const PlotRequest standard = plot_request_read(experiment_with_plot("{}"), slo({"ttft:2000", "ttft_spec:1.5e3"}));
  REQUIRE(standard.slos.size() == 2);
  CHECK(std::string(standard.slos[0].metric->name) == "ttft");
  CHECK(standard.slos[0].value == 2000);
  CHECK(standard.slos[1].value == 1500);
  CHECK(plot_request_read(experiment_with_plot("{}"), slo({"tpot:50"}, "tpot")).slos.at(0).value == 50);
  CHECK(error_of("{}", slo({"ttft:0"})) == "--slo ttft:0: the target must be a positive number of ms, got 0");
  CHECK(error_of("{}", slo({"ttft:-3"})) == "--slo ttft:-3: the target must be a positive number of ms, got -3");
  CHECK(error_of("{}", slo({"ttft:inf"})).find("--slo ttft:inf: ") == 0);
  CHECK(error_of("{}", slo({"ttft"})) ==
        "--slo ttft: expected METRIC:VALUE with VALUE in ms, e.g. --slo ttft:2000 (metrics: ttft, ttft_spec, "
        "ttft_correct, tpot, e2el, kv_transfer, exposed_transfer, itl)");
  CHECK(error_of("{}", slo({"ttft:2s"})).find("--slo ttft:2s: expected METRIC:VALUE") == 0);
  CHECK(error_of("{}", slo({"ttfb:2000"})).find("--slo ttfb:2000: ttfb is not a metric in ms (valid: ttft,") == 0);
  CHECK(error_of("{}", slo({"goodput:3"}, "goodput")).find("--slo goodput:3: goodput is not a metric in ms") == 0);
  CHECK(error_of("{}", slo({"tpot:50"})) == "--slo tpot:50: no plot of this command shows tpot (these do: ttft, "
                                             "ttft_correct, ttft_spec); add --metric tpot");
  CHECK(error_of("{}", slo({"ttft:50"}, "tpot")) ==
        "--slo ttft:50: no plot of this command shows ttft (these do: tpot); add --metric ttft");
  // Handed to the script with the metric's unit.
  const Experiment e = experiment_with_plot("{}");
  const nlohmann::json j = plot_request_json(plot_request_read(e, slo({"ttft:2000"})), e, "/nowhere", "/out");
  CHECK(j["slo"] == nlohmann::json::parse(R"([{"metric": "ttft", "value": 2000.0, "unit": "ms"}])"));
}

TEST_CASE("axis labels are the schema's section, meaning and unit, not the JSON path") {
  CHECK(plot_axis_label("cluster.network.nic_gbps") == "Network: bandwidth of each NIC's link to its switch (Gbps)");
  CHECK(plot_axis_label("cluster.transfer.chunk_layers") == "chunk_layers");  // not under cluster: undeclared
  CHECK(plot_axis_label("transfer.chunk_layers") == "KV transfer: layers per KV transfer chunk (layers)");
  CHECK(plot_axis_label("cluster.prefill.instances") == "Prefill pool: model replicas in the pool (instances)");
  CHECK(plot_axis_label("workload.synthetic.rate_per_s") == "Synthetic workload: mean arrival rate (requests/s)");
  CHECK(plot_axis_label("format") == "The KV cache's wire format");
  CHECK(plot_axis_label("no.such.field") == "field");  // not declared: its last component
  const Experiment e = experiment_with_plot("{}");
  const nlohmann::json j = plot_request_json(plot_request_read(e), e, "/nowhere", "/out");
  CHECK(j["labels"]["cluster.network.nic_gbps"] == "Network: bandwidth of each NIC's link to its switch (Gbps)");
}
