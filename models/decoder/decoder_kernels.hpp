// The decoder's reductions (matrix-vector products, attention, softmax, the SwiGLU gate), in two forms that give
// bit-identical results: a portable one (scalar loops over std::fma, which glibc computes with the FMA instruction
// where the CPU has it) and an AVX2+FMA one, chosen at run time when the CPU has both. The default build stays
// portable (x86-64 baseline); only decoder_kernels_avx2.cpp is compiled with -mavx2 -mfma.
//
// Why the project's own kernels and not Eigen's products: the order of a sum decides its bits, and Eigen's order
// follows the SIMD width it was compiled for, so the portable and the AVX2 build would write different accuracy
// files. Here the order is part of the definition, the same in both forms and on every machine:
//   dot(a, b, n)   eight lanes, acc[j mod 8] = fma(a[j], b[j], acc[j mod 8]) for j = 0..n-1 in order, each lane
//                  from +0; then ((acc0 + acc1) + (acc2 + acc3)) + ((acc4 + acc5) + (acc6 + acc7)).
//   exp(x)         x clamped to [-87, 88] (so that 2^n stays a normal float), n = round(x log2 e),
//                  r = x - n ln2 (two fma steps, ln2 split in a float and its remainder), the Taylor polynomial of
//                  e^r to degree 7 by Horner in fma, times 2^n. Within 2 ulp of e^x on the clamped range.
//   softmax        m = max; e[r] = exp(s[r] - m); sum in eight lanes (lane r mod 8, in order, reduced as in dot);
//                  p[r] = e[r] * (1 / sum).
//   weighted sum   out[d] = (acc0[d] + acc1[d]) + (acc2[d] + acc3[d]), acc_k[d] = fma over rows r = k mod 4, in
//                  order, of p[r] * v[r][d], each from +0.
// Every token's arithmetic is the same loop whatever the block it is part of, so a block forward equals its tokens
// stepped one by one, bit for bit.
#pragma once
#include <cstdint>

namespace lynx {

struct DecoderKernels {
  const char* name;  // "portable" or "avx2-fma"
  // out[r] = dot(w + r * row_stride, x, cols) for r = 0..rows-1 (a row-major matrix when row_stride = cols).
  void (*matvec)(float* out, const float* w, int64_t row_stride, const float* x, int64_t rows, int64_t cols);
  float (*dot)(const float* a, const float* b, int64_t n);
  // One attention head over `rows` cached rows: scores[r] = dot(q, keys + r * row_stride, head_dim) * scale, the
  // softmax of scores (written back into `scores`, which holds `rows` floats), and out[head_dim] = the weighted
  // sum of values + r * row_stride.
  void (*attend)(float* out, float* scores, const float* q, const float* keys, const float* values, int64_t rows,
                 int64_t row_stride, int64_t head_dim, float scale);
  // The SwiGLU gate: h[j] = h[j] / (1 + exp(-h[j])) * gate[j].
  void (*swiglu)(float* h, const float* gate, int64_t n);
  // out[j] = exp(x[j]) as defined above (for the tests).
  void (*exp)(float* out, const float* x, int64_t n);
};

const DecoderKernels& decoder_kernels_portable();
// The AVX2+FMA form, or nullptr where the library was not built for x86-64 or the CPU lacks AVX2 or FMA.
const DecoderKernels* decoder_kernels_avx2_fma();
// The fastest form this CPU runs: AVX2+FMA where available, else the portable one.
const DecoderKernels& decoder_kernels_best();

namespace decoder_kernel_constants {
// ln 2 = 0.693147180559945309 (to 18 digits): its nearest float, and the float nearest the remainder.
constexpr float kLn2Hi = 0.693147182464599609375f;     // 0x3F317218
constexpr float kLn2Lo = -1.904654323148236e-09f;      // ln 2 - kLn2Hi
constexpr float kLog2e = 1.44269504088896340736f;      // 1 / ln 2
// e^x for x in [kExpMin, kExpMax] keeps n = round(x log2 e) in [-126, 127], where 2^n is a normal float.
constexpr float kExpMin = -87.0f, kExpMax = 88.0f;
constexpr float kRoundMagic = 12582912.0f;              // 1.5 * 2^23: t + magic - magic rounds t to an integer
// 1/k! for k = 2..7, the Taylor coefficients of e^r (the degree-8 term is below 6e-9 relative for |r| <= ln2/2).
constexpr float kInvFactorial[8] = {1.0f, 1.0f, 0.5f, 1.0f / 6, 1.0f / 24, 1.0f / 120, 1.0f / 720, 1.0f / 5040};
}  // namespace decoder_kernel_constants

}  // namespace lynx
