#include "traces/trace_format.hpp"

#include <iterator>

#include "common/error.hpp"

namespace lynx {

const std::vector<std::string>& trace_format_names() {
  static const std::vector<std::string> names(std::begin(kTraceFormatNames), std::end(kTraceFormatNames) - 1);
  return names;
}

const char* trace_format_name(TraceFormat format) {
  return trace_format_names()[static_cast<size_t>(format)].c_str();
}

TraceFormat trace_format_parse(const std::string& name) {
  const auto& names = trace_format_names();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<TraceFormat>(i);
  std::string known;
  for (const auto& n : names) known += (known.empty() ? "\"" : ", \"") + n + "\"";
  throw_error("unknown trace format \"%s\" (expected one of %s)", name.c_str(), known.c_str());
}

}  // namespace lynx
