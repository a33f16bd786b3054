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
  CHECK(o.number_or("absent", 7.0) == 7.0);
  CHECK_THROWS_WITH_AS(o.positive_number("neg"), "f.json: $.neg: expected a positive number, got -1", LynxError);
  CHECK_THROWS_WITH_AS(o.positive_integer("x"), "f.json: $.x: expected a positive integer, got 2.5", LynxError);
  CHECK_THROWS_WITH_AS(o.string("missing"), "f.json: $.missing: missing field, expected a string", LynxError);
  JsonObject sub = o.object("sub");
  CHECK_THROWS_WITH_AS(sub.positive_integer("k"), "f.json: $.sub.k: expected a positive integer, got 0", LynxError);
  CHECK(o.number("neg") == -1);
  CHECK_THROWS_WITH_AS(o.finish(), doctest::Contains("f.json: $.typo: unknown field (known here: "), LynxError);
  CHECK(o.choice_or("s", {"hi", "ho"}, "ho") == "hi");
  CHECK_THROWS_WITH_AS(o.choice("s", {"a", "b"}), "f.json: $.s: expected one of \"a\", \"b\", got \"hi\"",
                       LynxError);
}

TEST_CASE("array element paths") { CHECK(json_index_path("$.models", 3) == "$.models[3]"); }
