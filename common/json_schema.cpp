// SchemaField accessors and section lookup (common/json_schema.hpp).
#include "common/json_schema.hpp"

#include <cstring>
#include <string>

namespace lynx {

const char* SchemaField::key() const {
  switch (kind) {
    case FieldKind::number: return number->key;
    case FieldKind::integer: return integer->key;
    case FieldKind::string: return string->key;
    case FieldKind::choice: return choice->key;
    case FieldKind::boolean: return boolean->key;
    case FieldKind::path: return path->key;
    case FieldKind::object: return object->key;
    case FieldKind::array: return array->key;
    case FieldKind::value: return value->key;
  }
  return "";
}

const char* SchemaField::meaning() const {
  switch (kind) {
    case FieldKind::number: return number->meaning;
    case FieldKind::integer: return integer->meaning;
    case FieldKind::string: return string->meaning;
    case FieldKind::choice: return choice->meaning;
    case FieldKind::boolean: return boolean->meaning;
    case FieldKind::path: return path->meaning;
    case FieldKind::object: return object->meaning;
    case FieldKind::array: return array->meaning;
    case FieldKind::value: return value->meaning;
  }
  return "";
}

const SchemaField* schema_find(const SchemaSection& section, const char* key) {
  for (size_t i = 0; i < section.count; ++i)
    if (std::strcmp(section.fields[i].key(), key) == 0) return &section.fields[i];
  return nullptr;
}

const SchemaField* schema_find_path(const SchemaSection& root, const char* dotted_path,
                                    const SchemaSection** parent) {
  const std::string path = dotted_path;
  const SchemaSection* section = &root;
  size_t begin = 0;
  while (true) {
    const size_t dot = path.find('.', begin);
    const std::string key = path.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin);
    const SchemaField* field = schema_find(*section, key.c_str());
    if (field == nullptr || dot == std::string::npos) {
      if (parent != nullptr) *parent = section;
      return field;
    }
    if (field->kind != FieldKind::object || field->object->section == nullptr) return nullptr;
    section = field->object->section;
    begin = dot + 1;
  }
}

}  // namespace lynx
