// --set PATH=VALUE (experiments/config_overrides.hpp): values parsed as JSON when they parse, else strings; errors
// name the option; experiment plot options are type-checked before anything runs.
#include <doctest/doctest.h>

#include "common/error.hpp"
#include "experiments/config_overrides.hpp"
#include "experiments/experiment.hpp"

using namespace lynx;

TEST_CASE("--set values: JSON when they parse, else a string") {
  CHECK(config_override_parse("cluster.network.nic_gbps=25").value == 25);
  CHECK(config_override_parse("cluster.network.nic_gbps=25").path == "cluster.network.nic_gbps");
  CHECK(config_override_parse("format=int8-g64").value == "int8-g64");
  CHECK(config_override_parse("cluster.prefill.prefix_cache=true").value == true);
  CHECK(config_override_parse("seed=null").value.is_null());
  CHECK(config_override_parse("workload.synthetic.input_tokens={\"fixed\": 64}").value["fixed"] == 64);
  CHECK(config_override_parse("workload.time_window_s=[0, 600]").value.size() == 2);
  CHECK(config_override_parse("workload.trace=a=b.jsonl").value == "a=b.jsonl");  // the first = splits
  CHECK(config_override_parse("model=\"llama-3.1-70b\"").value == "llama-3.1-70b");
  CHECK(config_override_parse("format=").value == "");
  CHECK_THROWS_WITH_AS(config_override_parse("format"),
                       doctest::Contains("--set format: expected PATH=VALUE"), LynxError);
  CHECK_THROWS_WITH_AS(config_override_parse("=3"), doctest::Contains("--set =3: expected PATH=VALUE"), LynxError);
  CHECK_THROWS_WITH_AS(config_override_parse("x={\"a\": 1, \"a\": 2}"), doctest::Contains("duplicate key"), LynxError);
}

TEST_CASE("--set applies in order, null removes, errors name the option") {
  nlohmann::json c = {{"format", "bf16"}, {"seed", 3}};
  config_overrides_apply(c, config_overrides_parse({"cluster.network.nic_gbps=25", "seed=null", "format=int4-g64",
                                                    "format=int8-g64"}));
  CHECK(c == nlohmann::json::parse(R"({"format": "int8-g64", "cluster": {"network": {"nic_gbps": 25}}})"));
  CHECK_THROWS_WITH_AS(config_overrides_apply(c, config_overrides_parse({"format.bits=4"})),
                       "--set format.bits=4: JSON path \"format.bits\": \"bits\" is inside a value that is not an object",
                       LynxError);
}

TEST_CASE("an error naming an overridden path names the option, the last one setting it") {
  const auto overrides = config_overrides_parse({"cluster.network=5", "cluster.network.nic_gbps=-1", "format=x"});
  CHECK(config_override_blame("c.json: $.cluster.network.nic_gbps: expected a number", overrides) ==
        "--set cluster.network.nic_gbps=-1: c.json: $.cluster.network.nic_gbps: expected a number");
  CHECK(config_override_blame("c.json: $.cluster.network: expected a JSON object, got 5", overrides) ==
        "--set cluster.network=5: c.json: $.cluster.network: expected a JSON object, got 5");
  CHECK(config_override_blame("c.json: $.format: expected a KV format name", overrides) ==
        "--set format=x: c.json: $.format: expected a KV format name");
  CHECK(config_override_blame("c.json: $.format_x: unknown field", overrides) == "c.json: $.format_x: unknown field");
  CHECK(config_override_blame("c.json: $.seed: expected", overrides) == "c.json: $.seed: expected");
}

TEST_CASE("experiment plot options are checked before anything runs") {
  nlohmann::json base = nlohmann::json::parse(R"({"model": "llama-3.1-8b",
    "workload": {"synthetic": {"rate_per_s": 1, "count": 2, "input_tokens": {"fixed": 100}, "output_tokens": {"fixed": 2}}}})");
  auto error_of = [&](const char* plot) {
    try {
      nlohmann::json e = {{"name", "t"}, {"base", base}, {"plot", nlohmann::json::parse(plot)}};
      experiment_from_json(e, "exp.json", "");
      return std::string("no error");
    } catch (const LynxError& e) {
      return std::string(e.what());
    }
  };
  CHECK(error_of(R"({"x": "format", "facet": ["model"], "cdf_at": 25, "ratios": [], "frontier": ["e2el"]})") ==
        "no error");
  CHECK(error_of(R"({"seris": "format"})").find("exp.json: $.plot.seris: unknown field; did you mean \"series\"? (valid here: baseline, cdf_at, "
                                                "facet, frontier, kind, ratios, series, x, y)") == 0);
  CHECK(error_of(R"({"facet": 3})") ==
        "exp.json: $.plot.facet: expected a sweep axis path, or an array of them, got 3");
  CHECK(error_of(R"({"x": 10})") == "exp.json: $.plot.x: expected a string, got 10");
}

TEST_CASE("--set PATH=null on an undeclared field is an error, not a silent no-op") {
  nlohmann::json c = {{"format", "bf16"}};
  CHECK_THROWS_WITH_AS(config_overrides_apply(c, config_overrides_parse({"cluster.decode.max_bacth=null"})),
                       doctest::Contains("--set cluster.decode.max_bacth=null: $.cluster.decode.max_bacth: unknown "
                                         "field; did you mean \"max_batch\"? (valid here: "),
                       LynxError);
  CHECK_THROWS_WITH_AS(config_overrides_apply(c, config_overrides_parse({"sede=null"})),
                       doctest::Contains("--set sede=null: $.sede: unknown field"), LynxError);
  config_overrides_apply(c, config_overrides_parse({"cluster.decode.max_batch=null", "seed=null"}));  // declared
  CHECK(c == nlohmann::json::parse(R"({"format": "bf16", "cluster": {"decode": {}}})"));
}

TEST_CASE("experiment names are one safe folder name, axis paths once, values distinct, axes not empty") {
  const nlohmann::json base = {{"model", "llama-3.1-8b"}};
  auto load = [&](const nlohmann::json& name, const nlohmann::json& sweep) {
    nlohmann::json e = {{"name", name}, {"base", base}};
    if (!sweep.is_null()) e["sweep"] = sweep;
    return experiment_from_json(e, "e.json", ".", false);
  };
  CHECK(load("ttft_vs_bandwidth-2.1", nullptr).name == "ttft_vs_bandwidth-2.1");
  for (const char* bad : {"../../escaped", "", ".hidden", "-x", "a/b", "a b", "red\x1b[31m"})
    CHECK_THROWS_WITH_AS(load(bad, nullptr), doctest::Contains("e.json: $.name: expected a name of 1 to 100"), LynxError);
  CHECK_THROWS_AS(load(std::string(101, 'a'), nullptr), LynxError);
  CHECK_THROWS_WITH_AS(
      load("x", {{"axes", {{{"paths", {"format", "format"}},
                             {"values", nlohmann::json::array({nlohmann::json::array({"bf16", "int8-g64"})})}}}}}),
      "e.json: $.sweep.axes[0].paths: \"format\" and \"format\" set the same field; name each path once", LynxError);
  CHECK_THROWS_WITH_AS(load("x", {{"axes", {{{"path", "cluster.network"}, {"values", {nlohmann::json::object()}}},
                                            {{"path", "cluster.network.nic_gbps"}, {"values", {25}}}}}}),
                       doctest::Contains("path \"cluster.network.nic_gbps\" is already swept by another axis "
                                         "(\"cluster.network\")"),
                       LynxError);
  CHECK_THROWS_WITH_AS(load("x", {{"axes", {{{"path", "seed"}, {"values", {1, 2, 1}}}}}}),
                       "e.json: $.sweep.axes[0].values[2]: 1 again (values[0]); each value once", LynxError);
  CHECK_THROWS_WITH_AS(load("x", {{"axes", nlohmann::json::array()}}),
                       doctest::Contains("$.sweep.axes: expected at least one axis"), LynxError);
}

TEST_CASE("--set text that is not UTF-8 is refused when parsed (a configuration is JSON, UTF-8 only)") {
  // Found by fuzz_set_override: the string value was kept and failed later, inside nlohmann's dump().
  CHECK_THROWS_WITH_AS(config_override_parse("cluster={\x96prefill\": 0}l"),
                       doctest::Contains("not UTF-8 text, which a configuration cannot hold"), LynxError);
  CHECK_THROWS_AS(config_override_parse("mod\xffl=bf16"), LynxError);
  CHECK(config_override_parse("model=caf\xc3\xa9").value == "caf\xc3\xa9");  // valid UTF-8 is a string as before
}
