// The one place where lynxsim's profiled cost model interpolates and extrapolates measurements.
// A Curve is a measured time against one size (tokens, bytes, query-key pairs, KV tokens, batch size):
//   - between two measured points: linear in the size;
//   - beyond the last point: proportional to the size, through the last point (time / size of the last point):
//     every quantity measured here (GEMMs past a few thousand tokens, attention FLOPs or KV bytes, all-reduce bytes
//     past 64 MiB, per-sequence CPU work) is throughput-bound at the end of its range;
//   - below the first point: either the first point's time (`Below::floor`: a kernel does not get faster than its
//     launch and its smallest measured size) or proportional through the first point (`Below::proportional`, for
//     prefill attention, whose measured sizes start at 1K tokens where the kernel is already FLOP-bound).
// Points measured twice at the same size are averaged; the times are then made non-decreasing in the size (a
// running maximum: a kernel is never timed faster on more work than the slowest measurement on less), so that
// measurement noise never makes more work cheaper. Monotone measurements are kept exactly.
// at() reports whether it left the measured range, so that a run's summary can say its times were extrapolated.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace lynx {

// 1 / d when d is a power of two whose reciprocal is a normal double (x / d == x * (1 / d) exactly then, for every
// normal x / d), else 0.
double exact_inverse(double d);

class Curve {
 public:
  enum class Below { floor, proportional };
  Curve() = default;
  // `points` are (size, seconds) in any order; `what` names the curve in messages.
  Curve(std::vector<std::pair<double, double>> points, Below below, std::string what);

  // Time at `size`; sets *extrapolated (when given) if `size` lies beyond the last measured size (above; below
  // the first point the floor or proportional rule is an interpolation towards zero work, not an extrapolation).
  double at(double size, bool* extrapolated = nullptr) const;
  // The same value, starting the search at `segment` (the interior segment the previous call used, updated): a
  // caller that asks for slowly growing sizes (a decode run's context) skips the binary search. Inline: a decode
  // run asks it once per iteration, millions of times a run.
  double at(double size, size_t& segment, bool* extrapolated) const {
    // Interior sizes only (the ends take at()'s other branches): segment i covers [sizes_[i - 1], sizes_[i]).
    const Span s = span(segment);
    return s.holds(size) ? s.at(size) : at_searching(size, segment, extrapolated);
  }
  // One interior segment with its operands read out, for a caller that keeps it in registers while its sizes stay
  // in it (a decode run: thousands of growing sizes per segment); at() of a size it holds, to the bit.
  struct Span {
    double low = 0, high = 0, first = 0;  // holds sizes in [low, high) above the curve's first size; none if empty
    double y0 = 0, rise = 0, width = 1, inverse = 0;
    bool holds(double size) const { return size >= low && size < high && size > first; }
    double at(double size) const { return interpolate(size, low, y0, rise, width, inverse); }
    // at() with its branch on `inverse` taken by the caller (a loop the compiler vectorises): `inverse` not 0, the
    // width a power of two; `inverse` 0.
    double at_by_inverse(double size) const { return interpolate_by_inverse(size, low, y0, rise, inverse); }
    double at_by_width(double size) const { return interpolate_by_width(size, low, y0, rise, width); }
  };
  // Segment `segment` (as at() leaves it) as a Span; an empty one if it is not an interior segment.
  Span span(size_t segment) const {
    Span s;
    if (segment == 0 || segment >= sizes_.size()) return s;  // high = low: holds nothing
    s.low = sizes_[segment - 1];
    s.high = sizes_[segment];
    s.first = sizes_.front();
    s.y0 = seconds_[segment - 1];
    s.rise = seconds_[segment] - seconds_[segment - 1];
    s.width = sizes_[segment] - sizes_[segment - 1];
    s.inverse = exact_inverse_widths_[segment];
    return s;
  }
  // For a caller that looks several curves measured at the same sizes up at one size (a layer's dense ops): the
  // interior segment holding `size` (0 where at() takes an end branch: at or below the first size, at or above the
  // last), searched once for all of them, and at() of a size in that segment, to the bit.
  size_t interior_segment(double size) const;
  double at_interior(double size, size_t segment) const {
    const double x0 = sizes_[segment - 1], x1 = sizes_[segment], y0 = seconds_[segment - 1], y1 = seconds_[segment];
    return y0 + (y1 - y0) * (size - x0) / (x1 - x0);
  }
  bool same_sizes(const Curve& other) const { return sizes_ == other.sizes_; }
  bool empty() const { return sizes_.empty(); }
  double first_size() const { return sizes_.front(); }
  double last_size() const { return sizes_.back(); }
  const std::string& what() const { return what_; }

 private:
  double at_searching(double size, size_t& segment, bool* extrapolated) const;  // at(), the segment updated
  // Linear between (x0, y0) and (x0 + width, y0 + rise). A power-of-two width divides exactly as a multiplication by
  // its reciprocal (`inverse`, else 0): the same bits, without a division (most measured sizes are powers of two, so
  // most of a decode run's segments have one).
  static double interpolate(double size, double x0, double y0, double rise, double width, double inverse) {
    return inverse != 0 ? interpolate_by_inverse(size, x0, y0, rise, inverse)
                        : interpolate_by_width(size, x0, y0, rise, width);
  }
  static double interpolate_by_width(double size, double x0, double y0, double rise, double width) {
    return y0 + rise * (size - x0) / width;
  }
  static double interpolate_by_inverse(double size, double x0, double y0, double rise, double inverse) {
    return y0 + rise * (size - x0) * inverse;
  }
  std::vector<double> sizes_, seconds_;
  // By segment i (sizes_[i - 1], sizes_[i]): 1 / its width when the width is a power of two, else 0.
  std::vector<double> exact_inverse_widths_;
  Below below_ = Below::floor;
  std::string what_;
};

}  // namespace lynx
