// SchemaField accessors and section lookup (common/json_schema.hpp).
#include "common/json_schema.hpp"

#include <cstring>

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

}  // namespace lynx
