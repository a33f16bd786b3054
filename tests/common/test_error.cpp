// The two error kinds (common/error.hpp): bad input is a LynxError (lynxsim exits 2), a failed invariant of the
// program an InternalError (exit 3). main() catches LynxError first, so an InternalError must not be one.
#include <doctest/doctest.h>

#include <type_traits>

#include "common/enum_names.hpp"
#include "common/error.hpp"
#include "common/json_reader.hpp"
#include "common/json_schema.hpp"

// Its own namespace: in a unity build (CMAKE_UNITY_BUILD, the Makefile's sanitized and fuzz builds) another test
// file's helpers of the same names would share its scope.
namespace test_error {

using namespace lynx;

TEST_CASE("an internal error is not a bad-input error, and both format like printf") {
  static_assert(!std::is_base_of_v<LynxError, InternalError>);
  CHECK_THROWS_WITH_AS(throw_internal_error("request %d: %s", 7, "stuck"), "request 7: stuck", InternalError);
  CHECK_THROWS_WITH_AS(throw_error("%s:%d: bad", "f.json", 3), "f.json:3: bad", LynxError);
}

namespace {
enum class Colour { red, green, blue };
constexpr auto kColourNames =
    enum_names<Colour>({{Colour::red, "red"}, {Colour::green, "green"}, {Colour::blue, "blue"}});
constexpr ChoiceField kColour{"colour", kColourNames.name(Colour::green), kColourNames.choices(), "a colour"};
constexpr SchemaField kFields[] = {{kColour}};
constexpr SchemaSection kSection = schema_section("Test", "a test section", kFields);
}  // namespace

TEST_CASE("a choice reads as its enum and its name comes back from the enum's table") {
  const nlohmann::json blue = {{"colour", "blue"}}, empty = nlohmann::json::object(), bad = {{"colour", "pink"}};
  JsonObject a(blue, "t.json", "$", &kSection), b(empty, "t.json", "$", &kSection), c(bad, "t.json", "$", &kSection);
  CHECK(a.get_enum<Colour>(kColour) == Colour::blue);
  CHECK(b.get_enum<Colour>(kColour) == Colour::green);  // the default
  CHECK(std::string(kColourNames.name(Colour::red)) == "red");
  CHECK_THROWS_WITH_AS(c.get_enum<Colour>(kColour),
                       "t.json: $.colour: expected one of \"red\", \"green\", \"blue\", got \"pink\"", LynxError);
  // An undeclared key read through a bound object is the program's bug.
  CHECK_THROWS_AS(a.has("shade"), InternalError);
}

}  // namespace test_error
