// Markdown reference and annotated example, printed from field declarations (common/schema_doc.hpp).
#include "common/schema_doc.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "common/json_reader.hpp"

namespace lynx {

namespace {
std::string quoted(const char* s) { return std::string("\"") + s + "\""; }

std::string choices_text(const char* const* choices, const char* separator) {
  std::string text;
  for (size_t i = 0; choices[i]; ++i) text += (i ? separator : "") + quoted(choices[i]);
  return text;
}

bool number_in_range(const NumberField& f, double x) {
  return (f.min_exclusive ? x > f.min : x >= f.min) && x <= f.max;
}

const char* kind_name(FieldKind kind) {
  switch (kind) {
    case FieldKind::number: return "number";
    case FieldKind::integer: return "integer";
    case FieldKind::string: return "string";
    case FieldKind::choice: return "string";
    case FieldKind::boolean: return "boolean";
    case FieldKind::path: return "file path";
    case FieldKind::object: return "object";
    case FieldKind::array: return "array";
    case FieldKind::value: return "value";
  }
  return "";
}

const char* unit_of(const SchemaField& f) {
  if (f.kind == FieldKind::number) return f.number->unit;
  if (f.kind == FieldKind::integer) return f.integer->unit;
  return "";
}

// The default as JSON text; "" when the field has none (required, or absent means "not applied").
std::string default_json(const SchemaField& f) {
  switch (f.kind) {
    case FieldKind::number:
      return std::isnan(f.number->default_value) || !number_in_range(*f.number, f.number->default_value)
                 ? ""
                 : number_text(f.number->default_value);
    case FieldKind::integer: {
      const IntegerField& i = *f.integer;
      return i.required || i.default_value < i.min || i.default_value > i.max ? "" : std::to_string(i.default_value);
    }
    case FieldKind::string: return f.string->default_value ? quoted(f.string->default_value) : "";
    case FieldKind::choice: return f.choice->default_value ? quoted(f.choice->default_value) : "";
    case FieldKind::boolean: return f.boolean->default_value ? "true" : "false";
    case FieldKind::path: return "";
    case FieldKind::object: return f.object->required || !f.object->absent_is_empty ? "" : "{}";
    case FieldKind::array: return "";
    case FieldKind::value: return "";
  }
  return "";
}

bool is_required(const SchemaField& f) {
  switch (f.kind) {
    case FieldKind::integer: return f.integer->required;
    case FieldKind::string: return f.string->required;
    case FieldKind::choice: return f.choice->default_value == nullptr;
    case FieldKind::path: return f.path->when_absent == nullptr;
    case FieldKind::object: return f.object->required;
    case FieldKind::array: return f.array->required;
    default: return false;
  }
}

// Allowed values, for the reference and the example's comments.
std::string allowed_text(const SchemaField& f, const char* choice_separator) {
  switch (f.kind) {
    case FieldKind::number:
      return (f.number->min_exclusive ? "(" : "[") + number_text(f.number->min) + ", " + number_text(f.number->max) +
             "]";
    case FieldKind::integer:
      return "[" + std::to_string(f.integer->min) + ", " + std::to_string(f.integer->max) + "]";
    case FieldKind::string: return f.string->allowed;
    case FieldKind::choice: return choices_text(f.choice->choices, choice_separator);
    case FieldKind::boolean: return "true, false";
    case FieldKind::path: return "\"@data/PATH\" (data folder) or a path relative to this file";
    case FieldKind::object: return "";
    case FieldKind::array: return f.array->form;
    case FieldKind::value: return f.value->form;
  }
  return "";
}

// Table cell text: '|' would end the cell and <B> would read as an HTML tag.
std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|' || c == '<' || c == '>') out += std::string("\\") + c;
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

std::string code(const std::string& text) { return text.empty() ? "" : "`" + text + "`"; }

// Every section reached from a root, in depth-first order of first visit, with every path that reaches it
// (shortest first: the one "fields of" refers to).
struct SectionPaths {
  std::vector<const SchemaSection*> order;
  std::map<const SchemaSection*, std::vector<std::string>> paths;
};

void collect(const SchemaSection& section, const std::string& path, SectionPaths& out) {
  auto& paths = out.paths[&section];
  if (paths.empty()) out.order.push_back(&section);
  paths.push_back(path);
  for (size_t i = 0; i < section.count; ++i) {
    const SchemaField& f = section.fields[i];
    if (f.kind == FieldKind::object && f.object->section) collect(*f.object->section, path + "." + f.key(), out);
    if (f.kind == FieldKind::array && f.array->items) collect(*f.array->items, path + "." + f.key() + "[]", out);
  }
}

void sort_paths(SectionPaths& sp) {
  for (auto& entry : sp.paths)
    std::stable_sort(entry.second.begin(), entry.second.end(), [](const std::string& a, const std::string& b) {
      return std::count(a.begin(), a.end(), '.') < std::count(b.begin(), b.end(), '.');
    });
}

void markdown_section(const SchemaSection& s, const SectionPaths& sp, std::string& out) {
  const std::vector<std::string>& paths = sp.paths.at(&s);
  out += "### ";
  for (size_t i = 0; i < paths.size(); ++i) out += (i ? ", " : "") + code(paths[i]);
  out += std::string(": ") + s.title + "\n\n" + s.meaning + "\n\n";
  out += "| field | type | unit | default | allowed | meaning |\n|---|---|---|---|---|---|\n";
  for (size_t i = 0; i < s.count; ++i) {
    const SchemaField& f = s.fields[i];
    std::string default_cell = is_required(f) ? "required" : code(default_json(f));
    if (f.kind == FieldKind::path && f.path->when_absent) default_cell = f.path->when_absent;
    if (default_cell.empty()) default_cell = "none";
    std::string allowed = allowed_text(f, ", ");
    if (f.kind == FieldKind::object)
      allowed = f.object->section ? "fields of " + code(sp.paths.at(f.object->section).front()) : "see meaning";
    if (f.kind == FieldKind::array && f.array->items)
      allowed += std::string(allowed.empty() ? "" : "; ") + "elements: " + code(sp.paths.at(f.array->items).front());
    out += "| " + code(f.key()) + " | " + kind_name(f.kind) + " | " + markdown_cell(unit_of(f)) + " | " +
           markdown_cell(default_cell) + " | " + markdown_cell(allowed) + " | " + markdown_cell(f.meaning()) + " |\n";
  }
  out += "\n";
}

std::string example_comment(const SchemaField& f) {
  std::string text = f.meaning();
  std::string allowed = f.kind == FieldKind::object ? "" : allowed_text(f, " | ");
  std::string unit = unit_of(f);
  if (f.kind == FieldKind::number || f.kind == FieldKind::integer) allowed += unit.empty() ? "" : " " + unit;
  if (f.kind == FieldKind::path || f.kind == FieldKind::boolean) allowed = "";
  if (!allowed.empty()) text += "; " + allowed;
  return text;
}

void example_object(const SchemaSection& s, const std::string& path, int depth, bool commented, std::string& out);

// The value shown for a field: its declared example, else its default.
std::string example_value(const SchemaField& f, const std::string& path) {
  if (f.example) return f.example;
  const std::string value = default_json(f);
  if (value.empty())
    throw std::logic_error(path + "." + f.key() + ": no default and no example value to show in the example");
  return value;
}

// The fields of `s`, one a line; inside a commented-out object (`commented`) every line is commented out.
void example_object(const SchemaSection& s, const std::string& path, int depth, bool commented, std::string& out) {
  const std::string indent(2 * static_cast<size_t>(depth), ' ');
  size_t last_shown = s.count;
  for (size_t i = 0; i < s.count; ++i)
    if (s.fields[i].use == ExampleUse::shown) last_shown = i;
  for (size_t i = 0; i < s.count; ++i) {
    const SchemaField& f = s.fields[i];
    const bool off = commented || f.use == ExampleUse::commented;
    const std::string lead = indent + (off ? "// " : "") + quoted(f.key()) + ": ";
    // In a commented-out block every entry keeps its comma: the block is read, if at all, after editing.
    const std::string comma = off || i != last_shown ? "," : "";
    if (f.kind == FieldKind::object && f.object->section && !f.example) {
      out += lead + "{  // " + example_comment(f) + "\n";
      example_object(*f.object->section, path + "." + f.key(), depth + 1, off, out);
      out += indent + (off ? "// " : "") + "}" + comma + "\n";
    } else {
      out += lead + example_value(f, path) + comma + "  // " + example_comment(f) + "\n";
    }
  }
}
}  // namespace

std::string schema_markdown(const std::vector<SchemaDocument>& documents, const std::string& preamble) {
  std::string out = preamble;
  for (const SchemaDocument& d : documents) {
    out += std::string("## ") + d.title + "\n\n" + d.intro + "\n\n";
    SectionPaths sp;
    collect(*d.root, "$", sp);
    sort_paths(sp);
    for (const SchemaSection* s : sp.order) markdown_section(*s, sp, out);
  }
  return out;
}

std::string schema_example(const SchemaSection& root, const std::string& header) {
  std::string out = header + "{\n";
  example_object(root, "$", 1, false, out);
  out += "}\n";
  return out;
}

}  // namespace lynx
