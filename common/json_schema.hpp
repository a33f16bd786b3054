// Field declarations of JSON inputs, written once beside each reader: key, kind, unit, default, allowed range or
// choices, meaning. A reader lists its fields as a SchemaSection (a static array of SchemaField) and reads every
// field through those declarations (JsonObject::get, common/json_reader.hpp); a JsonObject bound to a section
// refuses to read a key the section does not declare. The configuration reference (`lynxsim config --schema`,
// docs/config.md) and the annotated example (`lynxsim config --example`) are printed from the same sections
// (common/schema_doc.hpp), so the documentation cannot drift from what the reader accepts.
#pragma once
#include <cstddef>
#include <cstdint>

namespace lynx {

struct SchemaSection;

// A number: NaN default_value means the field is required (or, where the reader says so, optional without one).
struct NumberField {
  const char* key;
  const char* unit;       // "Gbps", "us", "fraction", ... ("" for a plain number)
  double default_value;   // used when the field is absent (NaN: no default)
  double min, max;        // allowed range, [min, max] or (min, max] when min_exclusive
  bool min_exclusive;
  const char* meaning;
};
struct IntegerField {
  const char* key;
  const char* unit;       // "tokens", "requests", ... ("" for a plain count)
  int64_t default_value;  // a default outside [min, max] means "absent: not applied"
  int64_t min, max;       // allowed range [min, max]; a JSON number outside int64 is out of range too
  const char* meaning;
  bool required = false;  // true: absence is an error, default_value unused
};
// A free string (a name the reader checks itself, e.g. against a catalog; `allowed` says what).
struct StringField {
  const char* key;
  const char* default_value;  // nullptr: no default (required, or optional as the meaning says)
  const char* allowed;        // e.g. "a model name of models/catalog/models.json"
  const char* meaning;
  bool required = false;      // without a default and not required, the reader checks has() first
};
// One string of a fixed list. A field read as an enum (JsonObject::get_enum) takes its choices and default from the
// enum's table (common/enum_names.hpp: EnumTable::choices(), name()), which the compiler checks against the enum.
struct ChoiceField {
  const char* key;
  const char* default_value;     // nullptr: required
  const char* const* choices;    // nullptr-terminated
  const char* meaning;
};
struct BoolField {
  const char* key;
  bool default_value;
  const char* meaning;
};
// An input file: "@data/PATH" (the data folder) or a path relative to the file that names it.
struct PathField {
  const char* key;
  const char* when_absent;  // what is used without it, e.g. "the shipped catalog"; nullptr: required
  const char* meaning;
};
// A nested object whose fields are declared by `section` (nullptr: an object of another format, which the meaning
// names and another reader checks).
struct ObjectField {
  const char* key;
  const SchemaSection* section;
  const char* meaning;
  bool required = false;
  bool absent_is_empty = true;  // absent is the same as {} (every field at its default); false: the reader checks
                                // has() and absent means "not used" (the meaning says what then)
};
// An array of the form the reader checks; `items`: each element is an object of that section.
struct ArrayField {
  const char* key;
  const char* form;      // e.g. "[begin_s, end_s] with 0 <= begin_s < end_s <= 1e9"
  const char* meaning;
  bool required = false;
  const SchemaSection* items = nullptr;
};
// A value of more than one JSON type (e.g. a string or an array of strings), of the form the reader checks.
struct ValueField {
  const char* key;
  const char* form;
  const char* meaning;
};

enum class FieldKind { number, integer, string, choice, boolean, path, object, array, value };

// How `lynxsim config --example` shows a field: with its default (or `example`), or commented out (an
// alternative, or a field that only applies with some other setting, which its meaning names).
enum class ExampleUse { shown, commented };

// One entry of a section: exactly one declaration pointer is set, as `kind` says.
struct SchemaField {
  FieldKind kind;
  const NumberField* number = nullptr;
  const IntegerField* integer = nullptr;
  const StringField* string = nullptr;
  const ChoiceField* choice = nullptr;
  const BoolField* boolean = nullptr;
  const PathField* path = nullptr;
  const ObjectField* object = nullptr;
  const ArrayField* array = nullptr;
  const ValueField* value = nullptr;
  ExampleUse use = ExampleUse::shown;
  const char* example = nullptr;  // JSON text shown in the example instead of the default

  constexpr SchemaField(const NumberField& f, ExampleUse u = ExampleUse::shown, const char* e = nullptr)
      : kind(FieldKind::number), number(&f), use(u), example(e) {}
  constexpr SchemaField(const IntegerField& f, ExampleUse u = ExampleUse::shown, const char* e = nullptr)
      : kind(FieldKind::integer), integer(&f), use(u), example(e) {}
  constexpr SchemaField(const StringField& f, ExampleUse u = ExampleUse::shown, const char* e = nullptr)
      : kind(FieldKind::string), string(&f), use(u), example(e) {}
  constexpr SchemaField(const ChoiceField& f, ExampleUse u = ExampleUse::shown, const char* e = nullptr)
      : kind(FieldKind::choice), choice(&f), use(u), example(e) {}
  constexpr SchemaField(const BoolField& f, ExampleUse u = ExampleUse::shown, const char* e = nullptr)
      : kind(FieldKind::boolean), boolean(&f), use(u), example(e) {}
  constexpr SchemaField(const PathField& f, ExampleUse u = ExampleUse::shown, const char* e = nullptr)
      : kind(FieldKind::path), path(&f), use(u), example(e) {}
  constexpr SchemaField(const ObjectField& f, ExampleUse u = ExampleUse::shown, const char* e = nullptr)
      : kind(FieldKind::object), object(&f), use(u), example(e) {}
  constexpr SchemaField(const ArrayField& f, ExampleUse u = ExampleUse::shown, const char* e = nullptr)
      : kind(FieldKind::array), array(&f), use(u), example(e) {}
  constexpr SchemaField(const ValueField& f, ExampleUse u = ExampleUse::shown, const char* e = nullptr)
      : kind(FieldKind::value), value(&f), use(u), example(e) {}

  const char* key() const;
  const char* meaning() const;
};

// The fields of one JSON object, in the order the reference lists them.
struct SchemaSection {
  const char* title;     // e.g. "Network"
  const char* meaning;   // a sentence on what the object describes and any rule across its fields
  const SchemaField* fields;
  size_t count;
};

template <size_t N>
constexpr SchemaSection schema_section(const char* title, const char* meaning, const SchemaField (&fields)[N]) {
  return SchemaSection{title, meaning, fields, N};
}

// The declaration of `key` in `section`, or nullptr.
const SchemaField* schema_find(const SchemaSection& section, const char* key);
// The declaration at a dotted path below `root` ("cluster.network.nic_gbps"), through nested object fields; nullptr
// when a step is not declared or is not an object with a section. `parent`, when given, is set to the section that
// declares the field.
const SchemaField* schema_find_path(const SchemaSection& root, const char* dotted_path,
                                    const SchemaSection** parent = nullptr);

}  // namespace lynx
