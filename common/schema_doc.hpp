// Documents printed from the readers' own field declarations (common/json_schema.hpp): the Markdown reference of
// a file format (`lynxsim config --schema`, committed as docs/config.md) and an annotated example that runs
// (`lynxsim config --example`, JSON with // comments). Both walk the sections from a root, depth first, each nested
// object under its JSON path ($, $.cluster, $.cluster.network, ...); a section reached by several paths (the two
// lengths of a synthetic workload) is listed once, under all of them.
#pragma once
#include <string>
#include <vector>

#include "common/json_schema.hpp"

namespace lynx {

// One file format: its root section and a paragraph introducing it.
struct SchemaDocument {
  const char* title;    // e.g. "Simulation configuration (`lynxsim simulate --config FILE`)"
  const char* intro;
  const SchemaSection* root;
};

// The Markdown reference: a heading and table per section (field, type, unit, default, allowed values, meaning).
std::string schema_markdown(const std::vector<SchemaDocument>& documents, const std::string& preamble);

// A complete example of `root`: every field shown at its default (or its declared example value), alternatives
// and fields that need another setting commented out; each line annotated with the field's meaning and range.
std::string schema_example(const SchemaSection& root, const std::string& header);

}  // namespace lynx
