// Writing a double as printf's "%.9f" does, byte for byte: requests.csv writes 19 times per request this way.
// Two writers behind one seam: write_fixed9_plain is the standard library's (std::to_chars, fixed, 9 decimals);
// write_fixed9 is this project's own: the value converted exactly (its 53-bit significand times 10^9 in 128-bit
// integer arithmetic) and rounded half to even, as glibc's printf does in the default rounding mode. A test compares
// both with printf on millions of values; before it was kept, a program compared the three on 15,476,184 doubles
// (every binary exponent, ties k/2^j, random bit patterns) and found no difference.
// Why the own writer is kept: std::to_chars takes about 665 instructions a time here, write_fixed9 about 127
// (callgrind, 200,000 running sums of a simulation's kind). On the Mooncake benchmark (`lynxsim simulate --config
// experiments/configs/mooncake_8x8_h200_100g.json`, 228,589 times written) the run takes 3.432 G instructions with
// the plain writer and 3.337 G with this one (2.8% of the run, under the 5% a fast path must otherwise save), and
// the bare SimGrid replay of its flows 2.573 G: 1.334x against 1.297x, where main's plain build, which runs at
// about 1.32x the replay in wall time, is at 1.269x. Without it the run would exceed its bar of 1.35x the replay
// (docs/benchmarks.md). Reproduce: call write_fixed9_plain in sim/output/requests_csv.cpp's write_seconds and
// compare the two builds under valgrind --tool=callgrind.
#pragma once
#include <charconv>
#include <cstddef>

namespace lynx {

// The room write_fixed9 needs: the most characters "%.9f" writes for a double (a sign, 309 whole digits for
// DBL_MAX, the point and 9 decimals: 320) and the NUL that printf's path (|value| >= 2^74) adds after them.
inline constexpr size_t kFixed9Room = 321;

// Writes `value` as "%.9f" would print it at `out`, which has kFixed9Room bytes of room; returns the end of the
// text (no NUL). Finite values only (NaN and infinities: the caller's business).
char* write_fixed9(char* out, double value);
// The same bytes by std::to_chars (the plain twin); the same room and contract.
inline char* write_fixed9_plain(char* out, double value) {
  return std::to_chars(out, out + kFixed9Room, value, std::chars_format::fixed, 9).ptr;
}

}  // namespace lynx
