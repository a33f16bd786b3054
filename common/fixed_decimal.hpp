// Writing a double as printf's "%.9f" does, byte for byte, without printf: the per-request CSV writes 19 times per
// request this way and printf's general floating-point path was a twentieth of a simulation's time. The value is
// converted exactly (its 53-bit significand times 10^9 in 128-bit integer arithmetic) and rounded half to even,
// which is what glibc's printf does in the default rounding mode; a test compares the two on millions of values.
#pragma once
#include <string>

namespace lynx {

// Appends `value` as "%.9f" would print it. Finite values only (NaN and infinities: the caller's business).
void append_fixed9(std::string& out, double value);

}  // namespace lynx
