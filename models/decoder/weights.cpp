#include "models/decoder/weights.hpp"

#include <algorithm>

namespace lynx {

namespace {
// Rows converted per kernel call: 32 rows of a 4,096-wide matrix are 512 KB of fp32, within a core's L2 on
// current x86 parts, so the converted block is still in cache when the product reads it.
constexpr int64_t kBlockRows = 32;
}  // namespace

const char* weight_dtype_name(WeightDtype dtype) {
  switch (dtype) {
    case WeightDtype::f32: return "F32";
    case WeightDtype::bf16: return "BF16";
    case WeightDtype::f16: return "F16";
  }
  return "?";
}

int weight_dtype_bytes(WeightDtype dtype) { return dtype == WeightDtype::f32 ? 4 : 2; }

void weights_matvec(const DecoderKernels& kernels, float* out, const WeightMatrix& w, const float* x,
                    std::vector<float>& scratch) {
  if (w.dtype == WeightDtype::f32) {
    kernels.matvec(out, w.f32(), w.cols, x, w.rows, w.cols);
    return;
  }
  scratch.resize(static_cast<size_t>(kBlockRows * w.cols));
  for (int64_t r0 = 0; r0 < w.rows; r0 += kBlockRows) {
    const int64_t n = std::min(kBlockRows, w.rows - r0);
    weights_to_f32(scratch.data(), w.data, w.dtype, r0 * w.cols, n * w.cols);
    kernels.matvec(out + r0, scratch.data(), w.cols, x, n, w.cols);
  }
}

}  // namespace lynx
