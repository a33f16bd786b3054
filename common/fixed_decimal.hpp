// Writing a double as printf's "%.9f" does, byte for byte, without printf: the per-request CSV writes 19 times per
// request this way and printf's general floating-point path was a twentieth of a simulation's time. The value is
// converted exactly (its 53-bit significand times 10^9 in 128-bit integer arithmetic) and rounded half to even,
// which is what glibc's printf does in the default rounding mode; a test compares the two on millions of values.
#pragma once
#include <cstddef>

namespace lynx {

// The room write_fixed9 needs: the most characters "%.9f" writes for a double (a sign, 309 whole digits for
// DBL_MAX, the point and 9 decimals: 320) and the NUL that printf's path (|value| >= 2^74) adds after them.
inline constexpr size_t kFixed9Room = 321;

// Writes `value` as "%.9f" would print it at `out`, which has kFixed9Room bytes of room; returns the end of the
// text (no NUL). Finite values only (NaN and infinities: the caller's business).
char* write_fixed9(char* out, double value);

}  // namespace lynx
