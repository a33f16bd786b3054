// One measured kernel table as a grid over its numeric shape axes (AIConfigurator's tables, aic_database.hpp), and
// the one interpolation and extrapolation rule the engine-composed cost model uses, stated here and in DESIGN.md:
//
//   Axes are taken in a fixed order (the model's shape first, the work size last: a GEMM's n, k, then m). At each
//   axis the query value x is looked up among the values measured under the point already fixed on the earlier
//   axes (a ragged grid: each branch has its own values).
//   - x measured: that branch.
//   - x between two measured values a < x < b: piecewise-linear in log-log, log t = log t(a) + (log t(b) - log t(a))
//     * (log x - log a) / (log b - log a), each t(.) found the same way on the later axes. Kernel times are power
//     laws over most of the grid (t ~ m at large m, ~ const at small m), which log-log follows exactly.
//   - x beyond the measured values: the nearest measured value e's time scaled by the op's roofline time at x over
//     its roofline time at e (the caller's `roofline`, e.g. max(FLOPs / peak, bytes / bandwidth)): the kernel keeps
//     the efficiency it reached at the edge of the grid. A latency-bound collective's roofline has a latency floor,
//     so below the smallest message it keeps the smallest message's time.
//   A query beyond the grid sets `extrapolated`.
//
// Points are positive: an axis value or a time that is not a positive finite number is refused when the grid is
// built (the caller names the file and row); duplicate points (the same values on every axis) are averaged.
// Measurement glitches are dropped: along the work-size axis (the last), a point whose time is more than
// kAicGlitchFactor times both its neighbours' is not a kernel's time (a kernel's time does not fall by 3x when its
// work grows, nor rise 3x and fall back within one step of the grid; AIConfigurator's H200 TRT-LLM MLA decode table
// has such rows, 100x their neighbours), so the lookup interpolates across it. Endpoints are kept: they have one
// neighbour. glitches_dropped() counts them and `sources` names the count.
#pragma once
#include <array>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace lynx {

constexpr int kAicMaxAxes = 8;
constexpr double kAicGlitchFactor = 3;

struct AicPoint {
  std::array<double, kAicMaxAxes> x{};  // the first `axes` values are used
  double ms = 0;                        // measured latency, milliseconds
};

using AicAxes = std::array<double, kAicMaxAxes>;
// The op's roofline time (any unit: only ratios are used) at a full shape.
using AicRoofline = std::function<double(const AicAxes&)>;

class AicGrid {
 public:
  AicGrid() = default;
  // `what` names the table for messages. Points need not be sorted.
  AicGrid(int axes, std::vector<AicPoint> points, std::string what);

  // Latency in milliseconds at `x` (the rule above). `extrapolated` (may be null) is set when any axis is beyond
  // the grid. An empty grid is a LynxError naming the table.
  double at_ms(const AicAxes& x, const AicRoofline& roofline, bool* extrapolated = nullptr) const;
  size_t points() const { return points_; }
  size_t glitches_dropped() const { return glitches_; }
  int axes() const { return axes_; }
  const std::string& what() const { return what_; }
  // The values measured on axis 0 (e.g. the GPU counts of an all-reduce table), sorted.
  std::vector<double> first_axis_values() const;
  // Every point kept (duplicates averaged, glitches dropped), in axis order: fn(axes, ms).
  void for_each_point(const std::function<void(const AicAxes&, double)>& fn) const;

 private:
  struct Node {
    std::vector<double> keys;      // sorted, distinct
    std::vector<double> log_keys;  // std::log of each key, kept (a lookup then takes the same values, not the logs)
    std::vector<int> child;        // index into nodes_ (inner) or values_ (last axis)
  };
  int build(std::vector<AicPoint>& points, size_t lo, size_t hi, int axis);
  // `log_q`: std::log of the query on each axis, filled the first time eval interpolates on that axis (NaN before).
  double eval(int node, int axis, AicAxes& x, AicAxes& log_q, const AicRoofline& roofline, bool* extrapolated) const;
  void walk(int node, int axis, AicAxes& x, const std::function<void(const AicAxes&, double)>& fn) const;

  int axes_ = 0;
  size_t points_ = 0;
  size_t glitches_ = 0;
  std::string what_;
  std::vector<Node> nodes_;
  std::vector<double> values_;
  std::vector<double> log_values_;  // std::log of each value, kept likewise
  int root_ = -1;
};

}  // namespace lynx
