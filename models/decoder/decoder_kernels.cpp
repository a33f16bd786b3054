// The portable form of the decoder's kernels (decoder_kernels.hpp): scalar loops that follow the definitions step
// by step, and the run-time choice between it and the AVX2+FMA form.
#include "models/decoder/decoder_kernels.hpp"

#include <cmath>
#include <cstring>

namespace lynx {

namespace {

namespace k = decoder_kernel_constants;

// ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)): the lane reduction of every eight-lane sum.
inline float reduce_lanes(const float* l) { return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7])); }

float dot_portable(const float* a, const float* b, int64_t n) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int64_t j = 0; j < n; ++j) acc[j & 7] = std::fma(a[j], b[j], acc[j & 7]);
  return reduce_lanes(acc);
}

void matvec_portable(float* out, const float* w, int64_t row_stride, const float* x, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) out[r] = dot_portable(w + r * row_stride, x, cols);
}

float exp_one(float x) {
  x = x > k::kExpMin ? x : k::kExpMin;  // the AVX2 max/min: a NaN becomes kExpMin
  x = x < k::kExpMax ? x : k::kExpMax;
  const float n = std::fma(x, k::kLog2e, k::kRoundMagic) - k::kRoundMagic;
  float r = std::fma(-n, k::kLn2Hi, x);
  r = std::fma(-n, k::kLn2Lo, r);
  float p = k::kInvFactorial[7];
  for (int i = 6; i >= 0; --i) p = std::fma(p, r, k::kInvFactorial[i]);
  const uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23;
  float two_n;
  std::memcpy(&two_n, &bits, sizeof two_n);
  return p * two_n;
}

void exp_portable(float* out, const float* x, int64_t n) {
  for (int64_t j = 0; j < n; ++j) out[j] = exp_one(x[j]);
}

void attend_portable(float* out, float* scores, const float* q, const float* keys, const float* values, int64_t rows,
                     int64_t row_stride, int64_t head_dim, float scale) {
  float max = -INFINITY;
  for (int64_t r = 0; r < rows; ++r) {
    scores[r] = dot_portable(q, keys + r * row_stride, head_dim) * scale;
    max = scores[r] > max ? scores[r] : max;
  }
  float lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int64_t r = 0; r < rows; ++r) {
    scores[r] = exp_one(scores[r] - max);
    lanes[r & 7] += scores[r];
  }
  const float inverse = 1.0f / reduce_lanes(lanes);
  for (int64_t r = 0; r < rows; ++r) scores[r] *= inverse;
  for (int64_t d = 0; d < head_dim; ++d) {
    float acc[4] = {0, 0, 0, 0};
    for (int64_t r = 0; r < rows; ++r) acc[r & 3] = std::fma(scores[r], values[r * row_stride + d], acc[r & 3]);
    out[d] = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  }
}

void swiglu_portable(float* h, const float* gate, int64_t n) {
  for (int64_t j = 0; j < n; ++j) h[j] = h[j] / (1.0f + exp_one(-h[j])) * gate[j];
}

}  // namespace

const DecoderKernels& decoder_kernels_portable() {
  static const DecoderKernels kernels{"portable", matvec_portable, dot_portable, attend_portable, swiglu_portable,
                                      exp_portable};
  return kernels;
}

#if defined(LYNX_DECODER_AVX2)
const DecoderKernels& decoder_kernels_avx2_fma_table();  // decoder_kernels_avx2.cpp
#endif

const DecoderKernels* decoder_kernels_avx2_fma() {
#if defined(LYNX_DECODER_AVX2)
  static const bool cpu_has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (cpu_has) return &decoder_kernels_avx2_fma_table();
#endif
  return nullptr;
}

const DecoderKernels& decoder_kernels_best() {
  const DecoderKernels* fast = decoder_kernels_avx2_fma();
  return fast ? *fast : decoder_kernels_portable();
}

}  // namespace lynx
