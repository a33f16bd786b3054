#include "common/json_reader.hpp"

#include "common/atomic_file.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/data_folder.hpp"
#include "common/did_you_mean.hpp"
#include "common/error.hpp"

namespace lynx {

namespace {
std::string describe(const nlohmann::json& v) {
  std::string text = v.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}
}  // namespace

namespace {
// Rejects an object that names a key twice (nlohmann keeps the last silently): the callback sees every key as it
// is parsed. The path of the object is built only for the error (from the open containers: their keys and indices),
// not at every container as it opens (that was a third of parsing a 39 KB kernel cost table).
class DuplicateKeyCheck {
 public:
  explicit DuplicateKeyCheck(const std::string& origin) : origin_(origin) {}
  bool operator()(int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    switch (event) {
      case Event::object_start:
        open(false);
        break;
      case Event::array_start:
        open(true);
        break;
      case Event::object_end:
      case Event::array_end:
        --depth_;
        after_value();
        break;
      case Event::key: {
        Frame& f = frames_[depth_ - 1];
        const std::string& key = parsed.get_ref<const std::string&>();
        if (!f.add_key(key))
          throw_error("%s: %s.%s: duplicate key (JSON objects name each key once)", origin_.c_str(),
                      path_to(depth_).c_str(), key.c_str());
        f.key = key;
        break;
      }
      case Event::value:
        after_value();
        break;
    }
    return true;
  }

 private:
  // An open container: an array and the index of its next value, or an object, its keys so far and the key whose
  // value is being parsed. Frames are reused as containers open and close (no allocation per container).
  struct Frame {
    bool array = false;
    size_t next = 0;
    std::string key;
    // The object's keys: a short list searched in order (no allocation once the frame has been used), and a set
    // as well once there are many.
    std::vector<std::string> keys;
    size_t key_count = 0;
    std::set<std::string> many;
    bool add_key(const std::string& k) {
      if (key_count >= kShortKeys) {
        if (key_count == kShortKeys) many.insert(keys.begin(), keys.begin() + kShortKeys);
        if (!many.insert(k).second) return false;
      } else {
        for (size_t i = 0; i < key_count; ++i)
          if (keys[i] == k) return false;
        if (key_count == keys.size()) keys.emplace_back();
        keys[key_count] = k;
      }
      ++key_count;
      return true;
    }
    static constexpr size_t kShortKeys = 32;
  };
  void open(bool array) {
    if (depth_ == frames_.size()) frames_.emplace_back();
    Frame& f = frames_[depth_++];
    f.array = array;
    f.next = 0;
    f.key_count = 0;
    f.many.clear();
  }
  void after_value() {
    if (depth_ > 0 && frames_[depth_ - 1].array) ++frames_[depth_ - 1].next;
  }
  // The JSON path of the container open at depth `depth` (1: the document).
  std::string path_to(size_t depth) const {
    std::string path = "$";
    for (size_t i = 0; i + 1 < depth; ++i) {
      const Frame& f = frames_[i];
      path = f.array ? json_index_path(path, f.next) : path + "." + f.key;
    }
    return path;
  }
  const std::string& origin_;
  std::vector<Frame> frames_;
  size_t depth_ = 0;
};
}  // namespace

nlohmann::json json_parse_text(const std::string& text, const std::string& origin, bool allow_comments) {
  try {
    return nlohmann::json::parse(text, DuplicateKeyCheck(origin), true, allow_comments);
  } catch (const nlohmann::json::out_of_range& e) {
    // A number beyond double's range (1e400): nlohmann gives no position, so name the file and the reason.
    std::string what = e.what();
    size_t bracket = what.find("] ");
    throw_error("%s: malformed JSON: %s", origin.c_str(),
                (bracket == std::string::npos ? what : what.substr(bracket + 2)).c_str());
  } catch (const nlohmann::json::parse_error& e) {
    // Turn the byte offset into line and column.
    size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    size_t line = 1, column = 1;
    for (size_t i = 0; i < offset && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    // "[json.exception.parse_error.101] parse error at line 1, column 2: syntax error while parsing value -
    // invalid literal; last read: 'N'": keep what follows the position.
    std::string what = e.what();
    size_t column_at = what.find("column ");
    size_t colon = column_at == std::string::npos ? std::string::npos : what.find(": ", column_at);
    std::string reason = colon == std::string::npos ? what : what.substr(colon + 2);
    for (char& c : reason)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    const char read_last = reason.size() >= 2 ? reason[reason.size() - 2] : ' ';  // before the closing quote
    if (reason.find("invalid literal") != std::string::npos && (read_last == 'N' || read_last == 'I'))
      reason += " (JSON has no NaN or Infinity: write a finite number)";
    throw_error("%s:%zu:%zu: malformed JSON: %s", origin.c_str(), line, column, reason.c_str());
  }
}

std::string json_file_text(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw_error("%s: is a directory, expected a JSON file", path.c_str());
  return read_file(path);
}

nlohmann::json json_parse_file(const std::string& path, bool allow_comments) {
  return json_parse_text(json_file_text(path), path, allow_comments);
}

std::string json_index_path(const std::string& path, size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

JsonObject::JsonObject(const nlohmann::json& value, std::string origin, std::string path,
                       const SchemaSection* section)
    : value_(&value), origin_(std::move(origin)), path_(std::move(path)) {
  if (!value.is_object())
    throw_error("%s: %s: expected a JSON object, got %s", origin_.c_str(), path_.c_str(), describe(value).c_str());
  if (section) bind(*section);
}

void JsonObject::bind(const SchemaSection& section) {
  section_ = &section;
  for (size_t i = 0; i < section.count; ++i) known_.insert(section.fields[i].key());
}

std::string JsonObject::path_of(const std::string& key) const { return path_ + "." + key; }

void JsonObject::fail(const std::string& key, const std::string& expected) const {
  if (value_->contains(key))
    throw_error("%s: %s: expected %s, got %s", origin_.c_str(), path_of(key).c_str(), expected.c_str(),
                describe((*value_)[key]).c_str());
  throw_error("%s: %s: missing field, expected %s", origin_.c_str(), path_of(key).c_str(), expected.c_str());
}

bool JsonObject::has(const std::string& key) const {
  // A bound reader reading an undeclared key is a bug (the reference would not list the field): exit 3.
  if (section_ && !schema_find(*section_, key.c_str()))
    throw InternalError("the reader of " + path_ + " reads \"" + key + "\", which its schema section \"" +
                           section_->title + "\" does not declare");
  known_.insert(key);
  return value_->contains(key);
}

const nlohmann::json& JsonObject::field(const std::string& key) {
  read_.insert(key);
  return (*value_)[key];
}

std::string JsonObject::string(const std::string& key) {
  if (!has(key) || !(*value_)[key].is_string()) fail(key, "a string");
  return field(key).get<std::string>();
}

std::string number_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", v);
  return text;
}

namespace {
std::string with_unit(std::string range, const char* unit) {
  if (unit && *unit) range += std::string(" ") + unit;
  return range;
}
}  // namespace

std::string field_range_text(const NumberField& f) {
  return with_unit((f.min_exclusive ? "(" : "[") + number_text(f.min) + ", " + number_text(f.max) + "]", f.unit);
}

std::string field_range_text(const IntegerField& f) {
  return with_unit("[" + std::to_string(f.min) + ", " + std::to_string(f.max) + "]", f.unit);
}

double JsonObject::get(const NumberField& f) {
  if (!has(f.key)) {
    if (std::isnan(f.default_value)) fail(f.key, "a number in " + field_range_text(f));
    return f.default_value;
  }
  const nlohmann::json& v = (*value_)[f.key];
  const std::string expected = "a number in " + field_range_text(f);
  if (!v.is_number()) fail(f.key, expected);
  const double x = v.get<double>();
  const bool above_min = f.min_exclusive ? x > f.min : x >= f.min;
  if (!std::isfinite(x) || !above_min || !(x <= f.max)) fail(f.key, expected);
  read_.insert(f.key);
  return x;
}

int64_t JsonObject::get(const IntegerField& f) {
  if (!has(f.key)) {
    if (f.required) fail(f.key, "an integer in " + field_range_text(f));
    return f.default_value;
  }
  const nlohmann::json& v = (*value_)[f.key];
  const std::string expected = "an integer in " + field_range_text(f);
  if (v.is_number_unsigned()) {
    if (v.get<uint64_t>() > static_cast<uint64_t>(f.max)) fail(f.key, expected);
  } else if (!v.is_number_integer()) {
    fail(f.key, expected);
  }
  const int64_t x = v.get<int64_t>();
  if (x < f.min || x > f.max) fail(f.key, expected);
  read_.insert(f.key);
  return x;
}

namespace {
std::string choices_text(const char* const* choices) {
  std::string text = "one of";
  for (size_t i = 0; choices[i]; ++i) text += std::string(i ? ", \"" : " \"") + choices[i] + "\"";
  return text;
}
}  // namespace

std::string JsonObject::get(const StringField& f) {
  if (!has(f.key) && f.default_value) return f.default_value;
  return string(f.key);
}

std::string JsonObject::get(const ChoiceField& f) { return f.choices[choice_index(f)]; }

size_t JsonObject::choice_index(const ChoiceField& f) {
  if (!has(f.key) && f.default_value) {
    for (size_t i = 0; f.choices[i]; ++i)
      if (std::string_view(f.default_value) == f.choices[i]) return i;
    throw_internal_error("%s: the default \"%s\" is not one of its choices", f.key, f.default_value);
  }
  const std::string expected = choices_text(f.choices);
  if (!has(f.key) || !(*value_)[f.key].is_string()) fail(f.key, expected);
  const std::string& value = (*value_)[f.key].get_ref<const std::string&>();
  for (size_t i = 0; f.choices[i]; ++i)
    if (value == f.choices[i]) {
      read_.insert(f.key);
      return i;
    }
  fail(f.key, expected);
}

bool JsonObject::get(const BoolField& f) { return boolean_or(f.key, f.default_value); }

std::string JsonObject::get(const PathField& f, const std::string& base_dir) {
  if (!has(f.key) && f.when_absent) return "";
  if (!has(f.key)) fail(f.key, "a file path (\"@data/PATH\" or relative to this file)");
  return input_path(f.key, base_dir);
}

JsonObject JsonObject::get(const ObjectField& f) {
  static const nlohmann::json kEmpty = nlohmann::json::object();
  if (!has(f.key) && !f.required) return JsonObject(kEmpty, origin_, path_of(f.key), f.section);
  if (!has(f.key) || !(*value_)[f.key].is_object()) fail(f.key, "a JSON object");
  return JsonObject(field(f.key), origin_, path_of(f.key), f.section);
}

const nlohmann::json& JsonObject::get(const ArrayField& f) {
  static const nlohmann::json kNull;
  if (!has(f.key) && !f.required) return kNull;
  if (!has(f.key) || !(*value_)[f.key].is_array()) fail(f.key, std::string("a JSON array: ") + f.form);
  return field(f.key);
}

const nlohmann::json& JsonObject::get(const ValueField& f) {
  static const nlohmann::json kNull;
  return has(f.key) ? field(f.key) : kNull;
}

std::string JsonObject::input_path(const std::string& key, const std::string& base_dir) {
  const std::string written = string(key);
  try {
    return resolve_input_path(written, base_dir);
  } catch (const LynxError& e) {
    throw_error("%s: %s: %s", origin_.c_str(), path_of(key).c_str(), e.what());
  }
}

std::string JsonObject::string_or(const std::string& key, const std::string& fallback) {
  return has(key) ? string(key) : fallback;
}

double JsonObject::number(const std::string& key) {
  if (!has(key) || !(*value_)[key].is_number() || !std::isfinite((*value_)[key].get<double>()))
    fail(key, "a number");
  return field(key).get<double>();
}

double JsonObject::positive_number(const std::string& key) {
  if (!has(key) || !(*value_)[key].is_number() || !((*value_)[key].get<double>() > 0) ||
      !std::isfinite((*value_)[key].get<double>()))
    fail(key, "a positive number");
  return field(key).get<double>();
}

double JsonObject::non_negative_number(const std::string& key) {
  if (!has(key) || !(*value_)[key].is_number() || !((*value_)[key].get<double>() >= 0) ||
      !std::isfinite((*value_)[key].get<double>()))
    fail(key, "a non-negative number");
  return field(key).get<double>();
}

double JsonObject::non_negative_number_or(const std::string& key, double fallback) {
  return has(key) ? non_negative_number(key) : fallback;
}

int64_t JsonObject::positive_integer(const std::string& key) {
  if (!has(key) || !(*value_)[key].is_number_integer() || (*value_)[key].get<int64_t>() <= 0)
    fail(key, "a positive integer");
  return field(key).get<int64_t>();
}

int64_t JsonObject::non_negative_integer_or(const std::string& key, int64_t fallback) {
  if (!has(key)) return fallback;
  if (!(*value_)[key].is_number_integer() || (*value_)[key].get<int64_t>() < 0) fail(key, "a non-negative integer");
  return field(key).get<int64_t>();
}

bool JsonObject::boolean_or(const std::string& key, bool fallback) {
  if (!has(key)) return fallback;
  if (!(*value_)[key].is_boolean()) fail(key, "true or false");
  return field(key).get<bool>();
}

std::string JsonObject::choice(const std::string& key, const std::vector<std::string>& choices) {
  std::string expected = "one of";
  for (size_t i = 0; i < choices.size(); ++i) expected += (i ? ", \"" : " \"") + choices[i] + "\"";
  if (!has(key) || !(*value_)[key].is_string()) fail(key, expected);
  std::string value = (*value_)[key].get<std::string>();
  for (const auto& c : choices)
    if (c == value) {
      read_.insert(key);
      return value;
    }
  fail(key, expected);
}

std::string JsonObject::choice_or(const std::string& key, const std::vector<std::string>& choices,
                                  const std::string& fallback) {
  return has(key) ? choice(key, choices) : fallback;
}

JsonObject JsonObject::object(const std::string& key) {
  if (!has(key) || !(*value_)[key].is_object()) fail(key, "a JSON object");
  return JsonObject(field(key), origin_, path_of(key));
}

const nlohmann::json& JsonObject::array(const std::string& key) {
  if (!has(key) || !(*value_)[key].is_array()) fail(key, "a JSON array");
  return field(key);
}

const nlohmann::json& JsonObject::raw(const std::string& key) {
  if (!has(key)) fail(key, "a value");
  return field(key);
}

void JsonObject::finish() const {
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    if (!read_.count(it.key())) {
      std::string known;
      std::vector<std::string> names;
      for (const auto& k : known_) {
        known += (known.empty() ? "" : ", ") + k;
        names.emplace_back(k);
      }
      throw_error("%s: %s: unknown field%s (valid here: %s)", origin_.c_str(), path_of(it.key()).c_str(),
                  did_you_mean(it.key(), names).c_str(), known.c_str());
    }
  }
}

}  // namespace lynx
