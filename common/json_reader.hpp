// JSON input with errors that name the file and the JSON path ($.gpus[2].hbm_gb_per_s) and the expected form.
// A JsonObject reads the fields of one object; finish() rejects any field that was not read (typos must not
// be silently ignored). Used by every catalog, configuration and experiment loader. A JsonObject bound to a
// SchemaSection (common/json_schema.hpp) reads only the fields the section declares, and an unknown field's error
// lists every name the section declares.
#pragma once
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/json_schema.hpp"

namespace lynx {

// Parses a whole file; a syntax error names the file, line and column.
// allow_comments: `//` and `/* */` comments are skipped (configurations and experiments, which
// `lynxsim config --example` annotates); catalogs and result files stay plain JSON.
nlohmann::json json_parse_file(const std::string& path, bool allow_comments = false);
// The text json_parse_file parses (the same errors for a folder or an unreadable file), for a caller that also
// hashes it.
std::string json_file_text(const std::string& path);
// Parses text that came from `origin` (a file name or a description used in messages).
nlohmann::json json_parse_text(const std::string& text, const std::string& origin, bool allow_comments = false);

// A number as schema texts print it (%.10g: 0.1, 1e+06).
std::string number_text(double v);
// Human-readable allowed range of a field, e.g. "(0, 100000] Gbps" or "[1, 65536]".
std::string field_range_text(const NumberField& f);
std::string field_range_text(const IntegerField& f);

class JsonObject {
 public:
  // `origin` is the file name, `path` the JSON path of `value` within it ("$" for the root).
  JsonObject(const nlohmann::json& value, std::string origin, std::string path,
             const SchemaSection* section = nullptr);
  // Binds the object to the section that declares its fields (see above).
  void bind(const SchemaSection& section);

  bool has(const std::string& key) const;
  // A declared field: its value, or its default when absent; type and range enforced.
  double get(const NumberField& field);
  int64_t get(const IntegerField& field);
  std::string get(const StringField& field);   // absent without a default: an error
  std::string get(const ChoiceField& field);
  // The same as the position of the value in field.choices: an enum's choices come from its table
  // (common/enum_names.hpp), whose rows are checked to be its enumerators in order, so the position is the enumerator.
  size_t choice_index(const ChoiceField& field);
  template <typename Enum>
  Enum get_enum(const ChoiceField& field) {
    return static_cast<Enum>(choice_index(field));
  }
  bool get(const BoolField& field);
  // Resolved (see input_path); "" when absent and the field has a when_absent.
  std::string get(const PathField& field, const std::string& base_dir);
  // The nested object, bound to the field's section; absent: an error if required, else an empty object.
  JsonObject get(const ObjectField& field);
  // The value, checked to be an array; absent: an error if required, else null.
  const nlohmann::json& get(const ArrayField& field);
  // The value as it is (the reader checks its form); null when absent.
  const nlohmann::json& get(const ValueField& field);
  std::string string(const std::string& key);
  std::string string_or(const std::string& key, const std::string& fallback);
  double number(const std::string& key);                // any finite number
  double positive_number(const std::string& key);       // > 0
  double non_negative_number(const std::string& key);   // >= 0
  double non_negative_number_or(const std::string& key, double fallback);
  int64_t positive_integer(const std::string& key);     // integer > 0
  int64_t non_negative_integer_or(const std::string& key, int64_t fallback);
  // A file path (common/data_folder.hpp: "@data/..." in the data folder, else relative to base_dir); a missing
  // data file is an error naming this field.
  std::string input_path(const std::string& key, const std::string& base_dir);
  bool boolean_or(const std::string& key, bool fallback);
  // One of `choices`; the error lists them.
  std::string choice(const std::string& key, const std::vector<std::string>& choices);
  std::string choice_or(const std::string& key, const std::vector<std::string>& choices, const std::string& fallback);
  // A nested object or array, marked as read.
  JsonObject object(const std::string& key);
  const nlohmann::json& array(const std::string& key);
  const nlohmann::json& raw(const std::string& key);   // any value, marked as read

  // Throws if a field was present but never read.
  void finish() const;

  std::string path_of(const std::string& key) const;
  const std::string& origin() const { return origin_; }
  const std::string& path() const { return path_; }
  const nlohmann::json& value() const { return *value_; }
  [[noreturn]] void fail(const std::string& key, const std::string& expected) const;

 private:
  const nlohmann::json& field(const std::string& key);
  const nlohmann::json* value_;
  std::string origin_;
  std::string path_;
  std::set<std::string> read_;
  const SchemaSection* section_ = nullptr;
  mutable std::set<std::string> known_;  // every key the reader asked for: the valid names, for messages
};

// Path of element `index` of the array at `path`: "$.models" -> "$.models[3]".
std::string json_index_path(const std::string& path, size_t index);

}  // namespace lynx
