// json_member_scan: the text of a nested member found by scanning, checked against nlohmann's parse of the whole
// document (the scanned text parses to the same value), through strings holding brackets, quotes and escapes,
// scalars and arrays before the member, and the cases that must give nothing.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "common/json_member_scan.hpp"

using lynx::json_member_text;

TEST_CASE("json_member_text finds a nested member past strings with brackets, escapes and other values") {
  const std::string doc = R"({
    "about": "a } ] { [ \" \\ text", "n": 12.5e3, "t": true, "z": null, "list": [1, {"formats": 0}, "]"],
    "formats": {
      "bf16": {"speculation": [1, 2]},
      "lynx-a4r4-g64": {"speculation": {"k": [[1, 2], [3]]}, "note": "}{"},
      "last": []
    }
  })";
  const nlohmann::json whole = nlohmann::json::parse(doc);
  for (const char* format : {"bf16", "lynx-a4r4-g64", "last"}) {
    const std::string_view text = json_member_text(doc, {"formats", format});
    REQUIRE(!text.empty());
    CHECK(nlohmann::json::parse(text) == whole["formats"][format]);
  }
  CHECK(nlohmann::json::parse(json_member_text(doc, {"formats"})) == whole["formats"]);
  CHECK(nlohmann::json::parse(json_member_text(doc, {"list"})) == whole["list"]);
}

TEST_CASE("json_member_text gives nothing for a missing key, a scalar, a non-object step or unclosed brackets") {
  const std::string doc = R"({"a": {"b": 3, "c": "x"}, "d": [{"e": {}}]})";
  CHECK(json_member_text(doc, {"a", "missing"}).empty());
  CHECK(json_member_text(doc, {"a", "b"}).empty());       // a number, not an object or array
  CHECK(json_member_text(doc, {"a", "c"}).empty());       // a string
  CHECK(json_member_text(doc, {"d", "e"}).empty());       // "d" is an array: no member "e"
  CHECK(json_member_text("[1, 2]", {"a"}).empty());
  CHECK(json_member_text(R"({"a": {"b": [1, 2)", {"a"}).empty());
  CHECK(json_member_text(R"({"a" 1})", {"a"}).empty());
  CHECK(json_member_text("", {"a"}).empty());
  CHECK(json_member_text(doc, {"a"}) == R"({"b": 3, "c": "x"})");
}
