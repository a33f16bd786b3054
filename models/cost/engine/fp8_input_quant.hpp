// The input quantization inside a per-tensor fp8 GEMM row of AIConfigurator's tables, and what the GEMM of a
// checkpoint with static input scales costs instead.
//
// The collector times each engine's fp8 linear layer whole, from a bf16 input, with no input scale in its weights
// (TensorRT-LLM: collector/trtllm/collect_gemm.py; its FP8QDQLinearMethod then quantizes the input dynamically), so a
// per-tensor fp8 row holds a dynamic per-tensor quantization: one pass over the input for its absolute maximum, then
// the cast to fp8. A checkpoint with static input scales (NVIDIA ModelOpt's FP8 checkpoints, which TensorRT-LLM's
// performance overview runs; any per-tensor fp8 config.json without quantization_config.activation_scheme
// "dynamic") casts with its stored scale: the cast alone.
//
// The tables show the difference. Over the weight-bandwidth-bound rows (m <= 16, n and k >= 1024, 8 to 512 MB of
// weights) a least-squares line t = a + weight bytes x c fits each dtype; the per-tensor fp8 rows reach the bf16
// rows' bandwidth (1/c within 2-5% on H100 and H200) but their intercept a is higher. H100: TensorRT-LLM 13.4
// against 4.3 us, vLLM 7.5 against 3.6, SGLang 7.1 against 4.2; H200 13.7/4.8, 8.0/4.0, 7.6/4.6; B200 15.6/4.1,
// 9.4/4.2, 9.3/4.7, where the fp8 rows' bandwidth is also 2% (TensorRT-LLM) to 16-24% (SGLang, vLLM) below the
// bf16 rows' (tests/models/test_fp8_input_quant.cpp recomputes them; a run's `sources` line prints the fixed part). A
// static-scale GEMM is costed as
//   row - quant_fixed - m x k x 2 bytes / (0.8 x HBM)
//   quant_fixed = max(0, a_fp8 - a_bf16 - one element-wise kernel's 3 us)
// (the last term is the amax pass's read of the bf16 input, at the element-wise rule's bandwidth,
// elementwise_cost.hpp), never below the fp8 GEMM's roofline at the GPU's datasheet peaks. Assumptions, named:
// the fp8 GEMM kernel's own fixed cost equals the bf16 kernel's (their bandwidths agree; no table separates the
// kernels); the cast a static checkpoint still runs costs one element-wise kernel (engines fuse it into the RMSNorm
// before the qkv and gate+up projections in some paths: then this still over-counts it).
// Block-scaled fp8 (fp8_block) quantizes per 128-wide block at run time in every checkpoint: its rows are used as
// measured. MoE and MLA BMM rows are used as measured (no bf16 table of the same kernel to fit the difference on).
#pragma once
#include "models/cost/engine/aic_grid.hpp"

namespace lynx {

// t = intercept_ms + weight bytes x ms_per_weight_byte over a GEMM table's weight-bandwidth-bound rows.
struct GemmBandwidthFit {
  double intercept_ms = 0;
  double ms_per_weight_byte = 0;
  int points = 0;
};

// The fit over `gemm` (axes n, k, m) at `bytes_per_weight` (2 bf16, 1 fp8). A table with fewer than 3 such rows,
// or a degenerate fit, is a LynxError naming the table.
GemmBandwidthFit fit_gemm_bandwidth(const AicGrid& gemm, double bytes_per_weight);

// The fixed part of a dynamic per-tensor quantization per call: max(0, fp8 intercept - bf16 intercept - 3 us).
double fp8_dynamic_quant_fixed_ms(const GemmBandwidthFit& bf16, const GemmBandwidthFit& fp8);

// A per-tensor fp8 row `row_ms` at (m, n, k) less its dynamic quantization: what a static-scale checkpoint's GEMM
// costs (the rule above), floored at `roofline_ms`.
double static_fp8_gemm_ms(double row_ms, double m, double k, double quant_fixed_ms, double hbm_gb_per_s,
                          double roofline_ms);

}  // namespace lynx
