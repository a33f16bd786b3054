// An enum's names in one table (common/enum_names.hpp): names, parsing, the schema's choice list, extra columns.
// That a table missing an enumerator or out of order does not compile is checked by the ctest cases
// common:enum-names-* (tests/common/enum_names_compile.cpp, compiled with and without a defect).
#include <doctest/doctest.h>

#include <string>

#include "common/enum_names.hpp"

using namespace lynx;

namespace {
enum class Shape { circle, square2, n_gon };
constexpr auto kShapeNames =
    enum_names<Shape>({{Shape::circle, "circle"}, {Shape::square2, "square-2"}, {Shape::n_gon, "n-gon"}});

struct ShapeInfo {
  Shape value;
  const char* name;
  int corners;  // -1: none
};
constexpr auto kShapes =
    enum_table<ShapeInfo>({{Shape::circle, "circle", -1}, {Shape::square2, "square", 4}, {Shape::n_gon, "polygon", 0}});

struct Source {
  const char* name;
  double rate;
};
constexpr Source kSources[] = {{"a", 0.5}, {"b", 0.9}};
constexpr auto kSourceNames = choice_names(kSources);
}  // namespace

static_assert(kShapeNames.size() == 3);
static_assert(std::string_view(kShapeNames.name(Shape::n_gon)) == "n-gon");
static_assert(kShapeNames.parse("square-2") == Shape::square2);
static_assert(!kShapeNames.parse("square"));
static_assert(kShapeNames.choices()[3] == nullptr);
static_assert(kShapes[Shape::square2].corners == 4);
static_assert(kSourceNames.size() == 3 && kSourceNames[2] == nullptr);

TEST_CASE("enum names: each enumerator's name, its parse, the choices in order and a message's list") {
  CHECK(std::string(kShapeNames.name(Shape::circle)) == "circle");
  CHECK(kShapeNames.parse("n-gon") == Shape::n_gon);
  CHECK_FALSE(kShapeNames.parse("N-gon").has_value());
  CHECK_FALSE(kShapeNames.parse("").has_value());
  const char* const* choices = kShapeNames.choices();
  CHECK(std::string(choices[0]) == "circle");
  CHECK(std::string(choices[1]) == "square-2");
  CHECK(std::string(choices[2]) == "n-gon");
  CHECK(choices[3] == nullptr);
  CHECK(kShapeNames.names_text() == "\"circle\", \"square-2\", \"n-gon\"");
  CHECK(kShapeNames.names_text(false) == "circle, square-2, n-gon");
}

TEST_CASE("enum table: rows with more columns, iterated in order, and the names of rows without an enum") {
  std::string names;
  int corners = 0;
  for (const ShapeInfo& s : kShapes) {
    names += s.name;
    corners += s.corners;
  }
  CHECK(names == "circlesquarepolygon");
  CHECK(corners == 3);
  CHECK(kShapes.parse("polygon") == Shape::n_gon);
  CHECK(std::string(kSourceNames[0]) == "a");
  CHECK(std::string(kSourceNames[1]) == "b");
}
