#include "models/cost/engine/aic_grid.hpp"

#include <algorithm>
#include <cmath>

#include "common/error.hpp"

namespace lynx {

AicGrid::AicGrid(int axes, std::vector<AicPoint> points, std::string what)
    : axes_(axes), points_(points.size()), what_(std::move(what)) {
  if (axes < 1 || axes > kAicMaxAxes) throw_error("%s: %d axes (1..%d)", what_.c_str(), axes, kAicMaxAxes);
  for (const AicPoint& p : points) {
    for (int a = 0; a < axes; a++)
      if (!std::isfinite(p.x[a]) || p.x[a] <= 0)
        throw_error("%s: axis value %g is not a positive finite number", what_.c_str(), p.x[a]);
    if (!std::isfinite(p.ms) || p.ms <= 0)
      throw_error("%s: latency %g ms is not a positive finite time", what_.c_str(), p.ms);
  }
  std::sort(points.begin(), points.end(), [axes](const AicPoint& a, const AicPoint& b) {
    for (int i = 0; i < axes; i++)
      if (a.x[i] != b.x[i]) return a.x[i] < b.x[i];
    return a.ms < b.ms;
  });
  if (!points.empty()) root_ = build(points, 0, points.size(), 0);
  for (double v : values_) log_values_.push_back(std::log(v));
}

int AicGrid::build(std::vector<AicPoint>& points, size_t lo, size_t hi, int axis) {
  Node node;
  std::vector<double> series;  // last axis: each key's time, before glitches are dropped
  for (size_t i = lo; i < hi;) {
    size_t j = i;
    while (j < hi && points[j].x[axis] == points[i].x[axis]) j++;
    node.keys.push_back(points[i].x[axis]);
    if (axis == axes_ - 1) {
      double sum = 0;
      for (size_t r = i; r < j; r++) sum += points[r].ms;  // duplicates (sorted by time: a fixed order) averaged
      series.push_back(sum / static_cast<double>(j - i));
    } else {
      node.child.push_back(build(points, i, j, axis + 1));
    }
    i = j;
  }
  if (axis == axes_ - 1) {
    std::vector<double> keys;
    for (size_t i = 0; i < series.size(); i++) {
      const bool glitch = i > 0 && i + 1 < series.size() && series[i] > kAicGlitchFactor * series[i - 1] &&
                          series[i] > kAicGlitchFactor * series[i + 1];
      if (glitch) {
        glitches_++;
        continue;
      }
      keys.push_back(node.keys[i]);
      values_.push_back(series[i]);
      node.child.push_back(static_cast<int>(values_.size() - 1));
    }
    node.keys = std::move(keys);
  }
  for (double k : node.keys) node.log_keys.push_back(std::log(k));
  nodes_.push_back(std::move(node));
  return static_cast<int>(nodes_.size() - 1);
}

double AicGrid::eval(int index, int axis, AicAxes& x, AicAxes& log_q, const AicRoofline& roofline,
                     bool* extrapolated) const {
  const Node& node = nodes_[static_cast<size_t>(index)];
  const bool last = axis == axes_ - 1;
  auto child = [&](size_t i) {
    return last ? values_[static_cast<size_t>(node.child[i])]
                : eval(node.child[i], axis + 1, x, log_q, roofline, extrapolated);
  };
  const double q = x[axis];
  const std::vector<double>& k = node.keys;
  const auto it = std::lower_bound(k.begin(), k.end(), q);
  if (it != k.end() && *it == q) return child(static_cast<size_t>(it - k.begin()));
  if (it == k.begin() || it == k.end()) {
    // Beyond the grid: the edge point's time, scaled by the roofline from the edge to q.
    const size_t e = it == k.begin() ? 0 : k.size() - 1;
    if (extrapolated) *extrapolated = true;
    x[axis] = k[e];
    const double edge_ms = child(e);
    const double edge_roof = roofline(x);
    x[axis] = q;
    const double roof = roofline(x);
    if (!(edge_roof > 0) || !(roof > 0) || !std::isfinite(edge_roof) || !std::isfinite(roof))
      throw_error("%s: the roofline is not a positive time at the query (a bug)", what_.c_str());
    return edge_ms * roof / edge_roof;
  }
  const size_t b = static_cast<size_t>(it - k.begin()), a = b - 1;
  const double ta = child(a), tb = child(b);
  // Log-log between the neighbours; every log is the one std::log gives (of a key, of a measured value: kept).
  const double la = last ? log_values_[static_cast<size_t>(node.child[a])] : std::log(ta);
  const double lb = last ? log_values_[static_cast<size_t>(node.child[b])] : std::log(tb);
  const std::vector<double>& lk = node.log_keys;
  double& lq = log_q[static_cast<size_t>(axis)];
  if (std::isnan(lq)) lq = std::log(q);
  const double f = (lq - lk[a]) / (lk[b] - lk[a]);
  return std::exp(la + (lb - la) * f);
}

double AicGrid::at_ms(const AicAxes& x, const AicRoofline& roofline, bool* extrapolated) const {
  if (root_ < 0) throw_error("%s: no measured points", what_.c_str());
  for (int a = 0; a < axes_; a++)
    if (!std::isfinite(x[a]) || x[a] <= 0)
      throw_error("%s: query axis %d value %g is not a positive finite number", what_.c_str(), a, x[a]);
  AicAxes q = x, log_q;
  log_q.fill(std::nan(""));
  return eval(root_, 0, q, log_q, roofline, extrapolated);
}

std::vector<double> AicGrid::first_axis_values() const {
  if (root_ < 0) return {};
  return nodes_[static_cast<size_t>(root_)].keys;
}

void AicGrid::walk(int index, int axis, AicAxes& x, const std::function<void(const AicAxes&, double)>& fn) const {
  const Node& node = nodes_[static_cast<size_t>(index)];
  for (size_t i = 0; i < node.keys.size(); i++) {
    x[axis] = node.keys[i];
    if (axis == axes_ - 1)
      fn(x, values_[static_cast<size_t>(node.child[i])]);
    else
      walk(node.child[i], axis + 1, x, fn);
  }
}

void AicGrid::for_each_point(const std::function<void(const AicAxes&, double)>& fn) const {
  if (root_ < 0) return;
  AicAxes x{};
  walk(root_, 0, x, fn);
}

}  // namespace lynx
