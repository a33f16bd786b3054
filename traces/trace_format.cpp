#include "traces/trace_format.hpp"

#include "common/error.hpp"

namespace lynx {

const char* trace_format_name(TraceFormat format) { return kTraceFormatNames.name(format); }

TraceFormat trace_format_parse(const std::string& name) {
  if (const auto format = kTraceFormatNames.parse(name)) return *format;
  throw_error("unknown trace format \"%s\" (expected one of %s)", name.c_str(), kTraceFormatNames.names_text().c_str());
}

}  // namespace lynx
