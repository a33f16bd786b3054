// Every observable of a measurement table as lines of text (each row's line number; each field's text; each
// field read as a number, as a time and as a time that may be zero, or the error's text), so that two tables can
// be compared whole: the column cache's test (tests/models/test_csv_column_cache.cpp) and its fuzz harness
// (fuzz/fuzz_csv_cache.cpp) compare a table read from its file with the same table read from its cache.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "models/readers/csv_table.hpp"

namespace lynx::test {

inline std::vector<std::string> observe_table(const CsvTable& t) {
  std::vector<std::string> out;
  for (size_t r = 0; r < t.rows(); ++r) {
    out.push_back("line " + std::to_string(t.line_of(r)));
    for (size_t c = 0; c < t.columns(); ++c) {
      const std::string& name = t.column_name(c);
      out.push_back(name + "=" + t.text(r, name));
      for (int kind = 0; kind < 3; ++kind) {
        try {
          const double v = kind == 0 ? t.number_at(r, c) : t.time_at(r, c, kind == 2);
          char text[64];
          std::snprintf(text, sizeof text, "%a", v);
          out.push_back(text);
        } catch (const LynxError& e) {
          out.push_back(e.what());
        }
      }
    }
  }
  return out;
}

}  // namespace lynx::test
