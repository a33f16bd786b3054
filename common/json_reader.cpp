#include "common/json_reader.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include "common/data_folder.hpp"
#include "common/error.hpp"

namespace lynx {

namespace {
std::string describe(const nlohmann::json& v) {
  std::string text = v.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}
}  // namespace

nlohmann::json json_parse_text(const std::string& text, const std::string& origin) {
  try {
    return nlohmann::json::parse(text);
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
    std::string what = e.what();
    size_t colon = what.rfind(": ");
    std::string reason = colon == std::string::npos ? what : what.substr(colon + 2);
    throw_error("%s:%zu:%zu: malformed JSON: %s", origin.c_str(), line, column, reason.c_str());
  }
}

nlohmann::json json_parse_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw_error("%s: cannot open file", path.c_str());
  std::stringstream buffer;
  buffer << in.rdbuf();
  return json_parse_text(buffer.str(), path);
}

std::string json_index_path(const std::string& path, size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

JsonObject::JsonObject(const nlohmann::json& value, std::string origin, std::string path)
    : value_(&value), origin_(std::move(origin)), path_(std::move(path)) {
  if (!value.is_object())
    throw_error("%s: %s: expected a JSON object, got %s", origin_.c_str(), path_.c_str(), describe(value).c_str());
}

std::string JsonObject::path_of(const std::string& key) const { return path_ + "." + key; }

void JsonObject::fail(const std::string& key, const std::string& expected) const {
  if (value_->contains(key))
    throw_error("%s: %s: expected %s, got %s", origin_.c_str(), path_of(key).c_str(), expected.c_str(),
                describe((*value_)[key]).c_str());
  throw_error("%s: %s: missing field, expected %s", origin_.c_str(), path_of(key).c_str(), expected.c_str());
}

bool JsonObject::has(const std::string& key) const { return value_->contains(key); }

const nlohmann::json& JsonObject::field(const std::string& key) {
  read_.insert(key);
  return (*value_)[key];
}

std::string JsonObject::string(const std::string& key) {
  if (!has(key) || !(*value_)[key].is_string()) fail(key, "a string");
  return field(key).get<std::string>();
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

double JsonObject::number_or(const std::string& key, double fallback) { return has(key) ? number(key) : fallback; }
double JsonObject::positive_number_or(const std::string& key, double fallback) {
  return has(key) ? positive_number(key) : fallback;
}
double JsonObject::non_negative_number_or(const std::string& key, double fallback) {
  return has(key) ? non_negative_number(key) : fallback;
}

int64_t JsonObject::positive_integer(const std::string& key) {
  if (!has(key) || !(*value_)[key].is_number_integer() || (*value_)[key].get<int64_t>() <= 0)
    fail(key, "a positive integer");
  return field(key).get<int64_t>();
}

int64_t JsonObject::positive_integer_or(const std::string& key, int64_t fallback) {
  return has(key) ? positive_integer(key) : fallback;
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
      for (const auto& k : read_) known += (known.empty() ? "" : ", ") + k;
      throw_error("%s: %s: unknown field (known here: %s)", origin_.c_str(), path_of(it.key()).c_str(),
                  known.c_str());
    }
  }
}

}  // namespace lynx
