#include <doctest/doctest.h>

#include "common/error.hpp"
#include "common/json_reader.hpp"

using namespace lynx;

TEST_CASE("json syntax errors name the origin, line and column") {
  try {
    json_parse_text("{\n  \"a\": 1,\n  \"b\": ]\n}", "cfg.json");
    FAIL("expected an error");
  } catch (const LynxError& e) {
    std::string m = e.what();
    CHECK(m.find("cfg.json:3:") == 0);
    CHECK(m.find("malformed JSON") != std::string::npos);
  }
}

TEST_CASE("json object fields: types, ranges, paths and unknown fields") {
  nlohmann::json j = json_parse_text(R"({"x": 2.5, "n": 3, "neg": -1, "s": "hi", "sub": {"k": 0}, "typo": 1})", "f.json");
  JsonObject o(j, "f.json", "$");
  CHECK(o.positive_number("x") == 2.5);
  CHECK(o.positive_integer("n") == 3);
  CHECK(o.string("s") == "hi");
  CHECK(o.non_negative_number_or("absent", 7.0) == 7.0);
  CHECK_THROWS_WITH_AS(o.positive_number("neg"), "f.json: $.neg: expected a positive number, got -1", LynxError);
  CHECK_THROWS_WITH_AS(o.positive_integer("x"), "f.json: $.x: expected a positive integer, got 2.5", LynxError);
  CHECK_THROWS_WITH_AS(o.string("missing"), "f.json: $.missing: missing field, expected a string", LynxError);
  JsonObject sub = o.object("sub");
  CHECK_THROWS_WITH_AS(sub.positive_integer("k"), "f.json: $.sub.k: expected a positive integer, got 0", LynxError);
  CHECK(o.number("neg") == -1);
  CHECK_THROWS_WITH_AS(o.finish(), doctest::Contains("f.json: $.typo: unknown field (valid here: "), LynxError);
  CHECK(o.choice_or("s", {"hi", "ho"}, "ho") == "hi");
  CHECK_THROWS_WITH_AS(o.choice("s", {"a", "b"}), "f.json: $.s: expected one of \"a\", \"b\", got \"hi\"",
                       LynxError);
}

TEST_CASE("array element paths") { CHECK(json_index_path("$.models", 3) == "$.models[3]"); }

TEST_CASE("declared fields: default, type, range and integer overflow, each with the range in the message") {
  nlohmann::json j = json_parse_text(
      R"({"gbps": 1e300, "n": 4294967297, "big": 99999999999999999999, "frac": 2.5, "ok": 25, "neg": -3})", "c.json");
  JsonObject o(j, "c.json", "$.net");
  const NumberField gbps{"gbps", "Gbps", 100, 0, 1e5, true, "NIC bandwidth"};
  const IntegerField n{"n", "", 1, 1, 65536, "instances"};
  CHECK_THROWS_WITH_AS(o.get(gbps), "c.json: $.net.gbps: expected a number in (0, 100000] Gbps, got 1e+300", LynxError);
  CHECK_THROWS_WITH_AS(o.get(n), "c.json: $.net.n: expected an integer in [1, 65536], got 4294967297", LynxError);
  CHECK_THROWS_WITH_AS(o.get(IntegerField{"big", "tokens", 1, 1, INT64_MAX, ""}),
                       doctest::Contains("c.json: $.net.big: expected an integer in [1, 9223372036854775807] tokens"),
                       LynxError);
  CHECK_THROWS_WITH_AS(o.get(IntegerField{"frac", "", 1, 1, 10, ""}),
                       "c.json: $.net.frac: expected an integer in [1, 10], got 2.5", LynxError);
  CHECK_THROWS_WITH_AS(o.get(IntegerField{"neg", "", 1, 0, 10, ""}),
                       "c.json: $.net.neg: expected an integer in [0, 10], got -3", LynxError);
  CHECK(o.get(NumberField{"ok", "Gbps", 100, 0, 1e5, true, ""}) == 25);
  CHECK(o.get(NumberField{"absent", "Gbps", 100, 0, 1e5, true, ""}) == 100);
  CHECK_THROWS_WITH_AS(o.get(IntegerField{"absent", "", 0, 1, 2, "", true}),
                       "c.json: $.net.absent: missing field, expected an integer in [1, 2]", LynxError);
}

TEST_CASE("unknown fields list the valid names, duplicate keys, NaN, huge numbers and directories are clear errors") {
  nlohmann::json j = json_parse_text(R"({"instances": 2, "max_bacth": 8})", "c.json");
  JsonObject o(j, "c.json", "$.decode");
  o.get(IntegerField{"instances", "", 1, 1, 10, ""});
  o.get(IntegerField{"max_batch", "", 256, 1, 1024, ""});
  CHECK_THROWS_WITH_AS(o.finish(), "c.json: $.decode.max_bacth: unknown field; did you mean \"max_batch\"? (valid here: instances, max_batch)",
                       LynxError);
  CHECK_THROWS_WITH_AS(json_parse_text(R"({"a": {"b": [1, {"c": 1, "c": 2}]}})", "d.json"),
                       "d.json: $.a.b[1].c: duplicate key (JSON objects name each key once)", LynxError);
  CHECK_THROWS_WITH_AS(json_parse_text(R"({"a": 1, "b": {"x": 1}, "a": 2})", "d.json"),
                       "d.json: $.a: duplicate key (JSON objects name each key once)", LynxError);
  CHECK_THROWS_WITH_AS(json_parse_text(R"({"x": [[1], [2, {"k": 1, "j": {"k": 1}, "k": 2}]], "y": 1})", "d.json"),
                       "d.json: $.x[1][1].k: duplicate key (JSON objects name each key once)", LynxError);
  // Objects of many keys (past the short list), one after another in the same array (a frame reused).
  auto object_of = [](int n, const std::string& extra) {
    std::string text = "{";
    for (int i = 0; i < n; ++i) text += "\"k" + std::to_string(i) + "\": " + std::to_string(i) + ", ";
    return text + extra + "}";
  };
  CHECK(json_parse_text("[" + object_of(40, "\"z\": 0") + ", " + object_of(3, "\"k39\": 1") + "]", "m.json").size() ==
        2);
  CHECK_THROWS_WITH_AS(json_parse_text("[" + object_of(40, "\"z\": 0") + ", " + object_of(40, "\"k2\": 1") + "]",
                                       "m.json"),
                       "m.json: $[1].k2: duplicate key (JSON objects name each key once)", LynxError);
  CHECK_THROWS_WITH_AS(json_parse_text(object_of(40, "\"k35\": 1"), "m.json"),
                       "m.json: $.k35: duplicate key (JSON objects name each key once)", LynxError);
  CHECK_THROWS_WITH_AS(json_parse_text("{\"x\": NaN}", "n.json"),
                       doctest::Contains("n.json:1:7: malformed JSON: syntax error while parsing value - invalid "
                                         "literal; last read: '\"x\": N'"),
                       LynxError);
  CHECK_THROWS_WITH_AS(json_parse_text("{\"x\": NaN}", "n.json"), doctest::Contains("JSON has no NaN or Infinity"),
                       LynxError);
  CHECK_THROWS_WITH_AS(json_parse_text("{\"x\": 1e400}", "o.json"),
                       "o.json: malformed JSON: number overflow parsing '1e400'", LynxError);
  CHECK_THROWS_WITH_AS(json_parse_file("/tmp"), "/tmp: is a directory, expected a JSON file", LynxError);
}
