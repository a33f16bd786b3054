// Field declarations (common/json_schema.hpp): a bound reader reads through them, refuses undeclared keys, lists
// every declared name for an unknown field; the reference and the example are printed from the same sections, and
// the example reads back to the defaults.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

#include "common/error.hpp"
#include "common/json_reader.hpp"
#include "common/schema_doc.hpp"

using namespace lynx;

namespace {
constexpr const char* kColours[] = {"red", "green", nullptr};
constexpr NumberField kRate{"rate_gbps", "Gbps", 10, 0, 100, true, "link rate"};
constexpr IntegerField kCount{"count", "items", 3, 1, 9, "how many"};
constexpr StringField kName{"name", "box", "any name", "what it is called"};
constexpr ChoiceField kColour{"colour", "red", kColours, "its colour"};
constexpr BoolField kShiny{"shiny", false, "polished | or not"};
constexpr PathField kFile{"file", "none", "an input file"};
constexpr ArrayField kWindow{"window", "[begin, end]", "a window"};
constexpr SchemaField kInnerFields[] = {{kCount}};
constexpr SchemaSection kInner = schema_section("Inner", "A nested object.", kInnerFields);
constexpr ObjectField kSub{"sub", &kInner, "nested"};
constexpr SchemaField kFields[] = {{kRate},   {kCount},  {kName},
                                   {kColour}, {kShiny},  {kFile, ExampleUse::commented, "\"x.json\""},
                                   {kSub},    {kWindow, ExampleUse::commented, "[0, 1]"}};
constexpr SchemaSection kRoot = schema_section("Root", "The root.", kFields);
}  // namespace

TEST_CASE("a bound reader reads declared fields with their defaults, kinds and choices") {
  nlohmann::json j = json_parse_text(R"({"rate_gbps": 25, "colour": "green", "sub": {"count": 9}})", "f.json");
  JsonObject o(j, "f.json", "$", &kRoot);
  CHECK(o.get(kRate) == 25);
  CHECK(o.get(kCount) == 3);
  CHECK(o.get(kName) == "box");
  CHECK(o.get(kColour) == "green");
  CHECK(o.get(kShiny) == false);
  CHECK(o.get(kFile, ".") == "");
  CHECK(o.get(kWindow).is_null());
  JsonObject sub = o.get(kSub);
  CHECK(sub.path() == "$.sub");
  CHECK(sub.get(kCount) == 9);
  sub.finish();
  o.finish();
  nlohmann::json bad = json_parse_text(R"({"colour": "blue", "shiny": 1})", "f.json");
  JsonObject b(bad, "f.json", "$", &kRoot);
  CHECK_THROWS_WITH_AS(b.get(kColour), "f.json: $.colour: expected one of \"red\", \"green\", got \"blue\"", LynxError);
  CHECK_THROWS_WITH_AS(b.get(kShiny), "f.json: $.shiny: expected true or false, got 1", LynxError);
}

TEST_CASE("a bound reader refuses an undeclared key, and an unknown field lists every declared name") {
  nlohmann::json j = json_parse_text(R"({"colur": "red"})", "f.json");
  JsonObject o(j, "f.json", "$", &kRoot);
  CHECK_THROWS_AS(o.has("undeclared"), std::logic_error);
  // Nothing read yet: the valid names still come from the section.
  CHECK_THROWS_WITH_AS(o.finish(),
                       "f.json: $.colur: unknown field; did you mean \"colour\"? (valid here: colour, count, file, name, rate_gbps, shiny, sub, "
                       "window)",
                       LynxError);
}

TEST_CASE("the reference is a table per section, from the declarations") {
  const std::string md = schema_markdown({{"Test file", "Intro.", &kRoot}}, "# Ref\n\n");
  CHECK(md.find("# Ref\n\n## Test file\n\nIntro.\n\n### `$`: Root\n\nThe root.\n") == 0);
  CHECK(md.find("| `rate_gbps` | number | Gbps | `10` | (0, 100] | link rate |") != std::string::npos);
  CHECK(md.find("| `colour` | string |  | `\"red\"` | \"red\", \"green\" | its colour |") != std::string::npos);
  CHECK(md.find("| `shiny` | boolean |  | `false` | true, false | polished \\| or not |") != std::string::npos);
  CHECK(md.find("| `sub` | object |  | `{}` | fields of `$.sub` | nested |") != std::string::npos);
  CHECK(md.find("### `$.sub`: Inner\n") != std::string::npos);
  CHECK(md.find("| `window` | array |  | none | [begin, end] | a window |") != std::string::npos);
}

TEST_CASE("the example shows every field and reads back to the defaults") {
  const std::string text = schema_example(kRoot, "// header\n");
  CHECK(text.find("// header\n{\n  \"rate_gbps\": 10,  // link rate; (0, 100] Gbps\n") == 0);
  CHECK(text.find("  // \"file\": \"x.json\",  // an input file\n") != std::string::npos);
  // The last field shown takes no comma; commented-out ones after it do not count.
  CHECK(text.find("  \"sub\": {  // nested\n    \"count\": 3  // how many; [1, 9] items\n  }\n  // \"window\": [0, 1],") !=
        std::string::npos);
  CHECK_THROWS_AS(json_parse_text(text, "example"), LynxError);  // comments need allow_comments
  nlohmann::json j = json_parse_text(text, "example", true);
  JsonObject o(j, "example", "$", &kRoot);
  CHECK(o.get(kRate) == 10);
  CHECK(o.get(kColour) == "red");
  CHECK(o.get(kFile, ".") == "");
  CHECK(o.get(kSub).get(kCount) == 3);
  CHECK(!j.contains("window"));
}

TEST_CASE("a dotted path finds its declaration through nested sections") {
  const SchemaSection* parent = nullptr;
  const SchemaField* f = schema_find_path(kRoot, "sub.count", &parent);
  REQUIRE(f != nullptr);
  CHECK(f->integer == &kCount);
  CHECK(parent == &kInner);
  CHECK(schema_find_path(kRoot, "rate_gbps", &parent)->number == &kRate);
  CHECK(parent == &kRoot);
  CHECK(schema_find_path(kRoot, "sub.rate_gbps") == nullptr);  // not declared in the nested section
  CHECK(schema_find_path(kRoot, "name.x") == nullptr);         // a string has no fields
  CHECK(schema_find_path(kRoot, "window.0") == nullptr);       // nor an array
  CHECK(schema_find_path(kRoot, "") == nullptr);
}
