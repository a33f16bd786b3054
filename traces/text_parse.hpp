// Strict parsing of the fields of trace rows: token counts, times as exact integer nanoseconds (a decimal number
// in a stated unit, or a wall-clock date-time), and CSV splitting. Times are kept as integers so that a trace's
// time arithmetic (rebasing absolute timestamps on the first row, checking the order) is exact; they become
// double seconds only at the end.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/enum_names.hpp"

namespace lynx {

enum class ParseStatus { ok, not_a_number, negative, out_of_range };

// The unit of a numeric time column, or `datetime` for wall-clock strings like 2023-11-16 18:17:03.9799600.
enum class TimeUnit { s, ms, us, ns, datetime };
inline constexpr auto kTimeUnitNames =
    enum_names<TimeUnit>({{TimeUnit::s, "s"}, {TimeUnit::ms, "ms"}, {TimeUnit::us, "us"}, {TimeUnit::ns, "ns"},
                          {TimeUnit::datetime, "datetime"}});
const char* time_unit_name(TimeUnit unit);
// A unit's name; throws LynxError listing them.
TimeUnit time_unit_parse(const std::string& name);

// Strips spaces and tabs at both ends.
std::string_view text_trim(std::string_view text);

// A token count: decimal digits, optionally signed, optionally followed by a fraction of zeros ("12", "12.0": what
// pandas writes for an integer column with a missing value). Leading and trailing spaces are ignored.
ParseStatus parse_count(std::string_view text, int64_t& value);

// A non-negative decimal number (digits, optional fraction, optional exponent: 12, 0.25, 1.5e-3) in units of
// 10^unit_exp10 ns (9 for seconds, 6 for ms, ...), as nanoseconds rounded half up. Exact for up to 19
// significant digits.
ParseStatus parse_decimal_ns(std::string_view text, int unit_exp10, int64_t& ns);

// "YYYY-MM-DD HH:MM:SS[.fraction of 1 to 9 digits][Z|+HH:MM|-HH:MM|+HHMM]" ('T' may replace the space), as
// nanoseconds since 1970-01-01 UTC (a missing offset means UTC). Returns false on anything else, including
// impossible dates (2023-02-29) and times, and years outside 1970-2199 (so that differences fit in int64).
bool parse_datetime_ns(std::string_view text, int64_t& ns);

// Splits one CSV line at commas into `fields` (views into `line`). A field may be quoted ("a,b"); the quotes are
// removed, a doubled quote inside stays doubled (no field lynxsim reads contains one). Returns false if a quoted
// field is not terminated (a quoted field spanning lines is not supported).
bool csv_split(std::string_view line, std::vector<std::string_view>& fields);

// `text` for an error message: at most `limit` characters, with "..." when cut.
std::string text_excerpt(std::string_view text, size_t limit = 100);

}  // namespace lynx
