#include "models/cost/profiled/curve.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "common/error.hpp"

namespace lynx {

Curve::Curve(std::vector<std::pair<double, double>> points, Below below, std::string what)
    : below_(below), what_(std::move(what)) {
  std::map<double, std::pair<double, int>> merged;  // size -> (sum of seconds, count)
  for (const auto& [size, seconds] : points) {
    if (!(size > 0) || !(seconds > 0))
      throw_error("%s: a measured point needs a positive size and time (got %g, %g)", what_.c_str(), size, seconds);
    auto& slot = merged[size];
    slot.first += seconds;
    slot.second += 1;
  }
  if (merged.empty()) throw_error("%s: no measured points", what_.c_str());
  // Running maximum: a measured size's time is at least that of every smaller measured size.
  double running_max = 0;
  for (const auto& [size, sum] : merged) {
    running_max = std::max(running_max, sum.first / sum.second);
    sizes_.push_back(size);
    seconds_.push_back(running_max);
  }
  exact_inverse_widths_.assign(sizes_.size(), 0.0);
  for (size_t i = 1; i < sizes_.size(); ++i) exact_inverse_widths_[i] = exact_inverse(sizes_[i] - sizes_[i - 1]);
}

double exact_inverse(double d) {
  int exponent = 0;
  if (!std::isfinite(d) || !(d > 0) || std::frexp(d, &exponent) != 0.5) return 0.0;
  const double inverse = 1.0 / d;  // exact: a power of two
  return std::isnormal(inverse) ? inverse : 0.0;
}

double Curve::at(double size, bool* extrapolated) const {
  if (size <= 0) return 0.0;
  if (size <= sizes_.front())
    return below_ == Below::floor ? seconds_.front() : seconds_.front() * size / sizes_.front();
  if (size >= sizes_.back()) {
    if (size > sizes_.back() && extrapolated) *extrapolated = true;
    return seconds_.back() * size / sizes_.back();
  }
  return at_interior(size, static_cast<size_t>(std::upper_bound(sizes_.begin(), sizes_.end(), size) - sizes_.begin()));
}

size_t Curve::interior_segment(double size) const {
  if (!(size > 0 && size > sizes_.front() && size < sizes_.back())) return 0;
  return static_cast<size_t>(std::upper_bound(sizes_.begin(), sizes_.end(), size) - sizes_.begin());
}

double Curve::at_searching(double size, size_t& segment, bool* extrapolated) const {
  if (size > sizes_.front() && size < sizes_.back())
    segment = static_cast<size_t>(std::upper_bound(sizes_.begin(), sizes_.end(), size) - sizes_.begin());
  return at(size, extrapolated);
}

}  // namespace lynx
