// An enum and the names it is spelt by (in configuration files, messages and result files), declared once, in one
// table that the compiler checks against the enum:
//
//   enum class RouterPolicy { least_loaded, round_robin, prefix_aware };
//   inline constexpr auto kRouterPolicyNames = enum_names<RouterPolicy>(
//       {{RouterPolicy::least_loaded, "least-loaded"}, {RouterPolicy::round_robin, "round-robin"},
//        {RouterPolicy::prefix_aware, "prefix-aware"}});
//
// The table must list every enumerator once, in declaration order, and the enumerators must be 0, 1, 2, ...: an
// enumerator added to the enum without a row, a row out of order or a duplicate stops the compilation at the table
// (enum_names is consteval; the error names table_must_name_every_enumerator_once_in_declaration_order). A table may
// carry more than the name (enum_table: rows of any struct with members `value` and `name`, e.g. the serving engines'
// folders and versions, models/cost/serving_engine.hpp).
//
// What it gives: name(value); parse(text), the value of a name; choices(), the names in order, nullptr-terminated,
// for a schema's ChoiceField (common/json_schema.hpp), whose reader returns the position of the name read, which the
// check makes the enumerator's value (JsonObject::get_enum); names_text(), the names for a message.
//
// How the compiler is asked whether a value has an enumerator: __PRETTY_FUNCTION__ of a function templated on the
// value spells an enumerator by its name ("RouterPolicy::prefix_aware") and any other value as a cast
// ("(RouterPolicy)3"), in GCC and Clang alike; a static_assert below checks that this compiler does so.
#pragma once
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace lynx {

template <class Enum>
struct EnumName {
  Enum value;
  const char* name;
};

namespace enum_names_detail {

// True when V is the value of an enumerator of its type (see above).
template <auto V>
constexpr bool is_enumerator() {
  constexpr std::string_view text = __PRETTY_FUNCTION__;
  constexpr size_t start = text.find("V = ");
  static_assert(start != std::string_view::npos, "enum_names.hpp: this compiler does not spell template values");
  std::string_view value = text.substr(start + 4);
  value = value.substr(0, value.find_first_of(";]"));
  // a value without an enumerator: "(Type)digits"; an enumerator: "Type::name", whose name may end in digits
  size_t digits = value.size();
  while (digits > 0 && value[digits - 1] >= '0' && value[digits - 1] <= '9') --digits;
  if (digits > 0 && value[digits - 1] == '-') --digits;
  return !(digits < value.size() && digits > 0 && value[digits - 1] == ')');
}

template <class Enum, size_t First, size_t... I>
constexpr bool any_enumerator_from(std::index_sequence<I...>) {
  return (is_enumerator<static_cast<Enum>(First + I)>() || ...);
}

// Reached only when a table does not match its enum: the compiler names this function in its error.
void table_must_name_every_enumerator_once_in_declaration_order();

enum class Probe { zero, one1 };
static_assert(is_enumerator<Probe::zero>() && is_enumerator<Probe::one1>() && !is_enumerator<static_cast<Probe>(2)>(),
              "enum_names.hpp: this compiler spells template values in a way the enumerator check does not read");

}  // namespace enum_names_detail

// The values from N on (N rows) that the check asks about: an enumerator added anywhere to an enum of implicit
// values makes its last one N; the next seven catch one given a value of its own just past them.
inline constexpr size_t kEnumNamesLookahead = 8;

template <class Entry, size_t N>
class EnumTable {
 public:
  using Enum = decltype(Entry::value);
  static_assert(std::is_enum_v<Enum>, "an enum table's entries start with the enumerator, `value`");

  consteval explicit EnumTable(const Entry (&entries)[N]) {
    for (size_t i = 0; i < N; ++i) {
      if (static_cast<size_t>(entries[i].value) != i || entries[i].name == nullptr)
        enum_names_detail::table_must_name_every_enumerator_once_in_declaration_order();
      entries_[i] = entries[i];
      names_[i] = entries[i].name;
    }
    names_[N] = nullptr;
    if (enum_names_detail::any_enumerator_from<Enum, N>(std::make_index_sequence<kEnumNamesLookahead>{}))
      enum_names_detail::table_must_name_every_enumerator_once_in_declaration_order();
  }

  static constexpr size_t size() { return N; }
  // The row of `value` (a value without an enumerator: the first row; it cannot be made without a cast).
  constexpr const Entry& operator[](Enum value) const {
    const auto i = static_cast<size_t>(value);
    return entries_[i < N ? i : 0];
  }
  constexpr const char* name(Enum value) const { return (*this)[value].name; }
  // The value named `name`, if any.
  constexpr std::optional<Enum> parse(std::string_view name) const {
    for (const Entry& e : entries_)
      if (name == e.name) return e.value;
    return std::nullopt;
  }
  // The names in enumerator order, then nullptr (ChoiceField::choices).
  constexpr const char* const* choices() const { return names_.data(); }
  // The names for a message: `"a", "b", "c"` (quoted) or `a, b, c` (quote = false).
  std::string names_text(bool quote = true) const {
    std::string text;
    for (size_t i = 0; i < N; ++i) {
      if (i > 0) text += ", ";
      text += quote ? std::string("\"") + names_[i] + "\"" : std::string(names_[i]);
    }
    return text;
  }
  constexpr const Entry* begin() const { return entries_.data(); }
  constexpr const Entry* end() const { return entries_.data() + N; }

 private:
  std::array<Entry, N> entries_{};
  std::array<const char*, N + 1> names_{};
};

// The names of rows that have a `name` but no enumerator (e.g. a list of published sources), in order, then nullptr:
// a ChoiceField's choices generated from the rows rather than listed again.
template <class Entry, size_t N>
consteval std::array<const char*, N + 1> choice_names(const Entry (&entries)[N]) {
  std::array<const char*, N + 1> names{};
  for (size_t i = 0; i < N; ++i) names[i] = entries[i].name;
  return names;
}

// A table of {enumerator, name} rows.
template <class Enum, size_t N>
consteval EnumTable<EnumName<Enum>, N> enum_names(const EnumName<Enum> (&entries)[N]) {
  return EnumTable<EnumName<Enum>, N>(entries);
}
// A table of rows of a struct of one's own ({enumerator, name, ...}).
template <class Entry, size_t N>
consteval EnumTable<Entry, N> enum_table(const Entry (&entries)[N]) {
  return EnumTable<Entry, N>(entries);
}

}  // namespace lynx
