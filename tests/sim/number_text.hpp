// Doubles carried out of an isolated run (sim/engine/isolated_run.hpp returns text) and back, to the last digit: each as
// %.17g followed by a space.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

namespace lynx {

inline std::string numbers_text(const std::vector<double>& values) {
  std::string out;
  char buffer[64];
  for (double x : values) {
    std::snprintf(buffer, sizeof buffer, "%.17g ", x);
    out += buffer;
  }
  return out;
}

inline std::vector<double> parse_numbers_text(const std::string& text) {
  std::vector<double> values;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t next = text.find(' ', pos);
    values.push_back(std::stod(text.substr(pos, next - pos)));
    pos = next + 1;
  }
  return values;
}

}  // namespace lynx
