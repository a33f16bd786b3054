#include "models/cost/engine/fp8_input_quant.hpp"

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "models/cost/profiled/elementwise_cost.hpp"

namespace lynx {

namespace {
// The weight-bandwidth-bound rows the fit reads (the header's selection).
constexpr double kFitMaxTokens = 16;
constexpr double kFitMinFeatures = 1024;
constexpr double kFitMinWeightBytes = 8e6, kFitMaxWeightBytes = 512e6;
}  // namespace

GemmBandwidthFit fit_gemm_bandwidth(const AicGrid& gemm, double bytes_per_weight) {
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  gemm.for_each_point([&](const AicAxes& x, double ms) {
    const double features_out = x[0], features_in = x[1], m = x[2];
    const double bytes = features_out * features_in * bytes_per_weight;
    if (m > kFitMaxTokens || features_out < kFitMinFeatures || features_in < kFitMinFeatures ||
        bytes < kFitMinWeightBytes || bytes > kFitMaxWeightBytes)
      return;
    n += 1;
    sx += bytes;
    sy += ms;
    sxx += bytes * bytes;
    sxy += bytes * ms;
  });
  const double det = n * sxx - sx * sx;
  if (n < 3 || !(det > 0))
    throw_error("%s: %g weight-bandwidth-bound rows (m <= 16, n and k >= 1024, 8 to 512 MB of weights) to fit the "
                "input quantization on; at least 3 distinct sizes are needed",
                gemm.what().c_str(), n);
  GemmBandwidthFit fit;
  fit.ms_per_weight_byte = (n * sxy - sx * sy) / det;
  fit.intercept_ms = (sy - fit.ms_per_weight_byte * sx) / n;
  fit.points = static_cast<int>(n);
  if (!std::isfinite(fit.intercept_ms) || !(fit.ms_per_weight_byte > 0))
    throw_error("%s: the weight-bandwidth fit is degenerate (%g ms + %g ms per byte)", gemm.what().c_str(),
                fit.intercept_ms, fit.ms_per_weight_byte);
  return fit;
}

double fp8_dynamic_quant_fixed_ms(const GemmBandwidthFit& bf16, const GemmBandwidthFit& fp8) {
  return std::max(0.0, fp8.intercept_ms - bf16.intercept_ms - kElementwiseLatencyMs);
}

double static_fp8_gemm_ms(double row_ms, double m, double k, double quant_fixed_ms, double hbm_gb_per_s,
                          double roofline_ms) {
  const double amax_read_ms = elementwise_ms(0, m * k * 2, hbm_gb_per_s);
  return std::max(std::min(roofline_ms, row_ms), row_ms - quant_fixed_ms - amax_read_ms);
}

}  // namespace lynx
