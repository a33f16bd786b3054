// AIConfigurator's model of a memory-bound (element-wise) kernel, used wherever the engine model costs a kernel no
// table measured: a constant 3 us plus its bytes at 0.8 of the HBM bandwidth. Source: the data folder's
// calibration/aiconfigurator/systems/{h100_sxm,h200_sxm,b200_sxm}.yaml (mem_empirical_constant_latency,
// mem_bw_empirical_scaling_factor; all three the same values, marked there "nonofficial correction based on
// observations").
#pragma once

namespace lynx {

constexpr double kElementwiseLatencyMs = 3e-3;
constexpr double kElementwiseBandwidthFraction = 0.8;

inline double elementwise_ms(double kernels, double bytes, double hbm_gb_per_s) {
  return kernels * kElementwiseLatencyMs + bytes / (kElementwiseBandwidthFraction * hbm_gb_per_s * 1e9) * 1e3;
}

}  // namespace lynx
