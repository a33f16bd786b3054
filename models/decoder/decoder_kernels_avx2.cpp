// The AVX2+FMA form of the decoder's kernels (decoder_kernels.hpp), 8 floats per instruction, the same arithmetic
// in the same order as the portable form (the tests compare them bit for bit). This file alone is compiled with
// -mavx2 -mfma, and it uses intrinsics only (no library templates, whose inline copies compiled here could replace
// the portable ones elsewhere); decoder_kernels.cpp hands it out only when the CPU reports AVX2 and FMA.
#include <immintrin.h>

#include <cstdint>

#include "models/decoder/decoder_kernels.hpp"

namespace lynx {

namespace {

namespace k = decoder_kernel_constants;

// Lanes 0..count-1 all ones (count 0..8): the mask of a tail of `count` elements.
inline __m256i tail_mask(int64_t count) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count)), lane);
}

// One lane-reduced sum of each of four vectors: lane i = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7)) of the
// i-th argument.
inline __m128 reduce4(__m256 a, __m256 b, __m256 c, __m256 d) {
  const __m256 t = _mm256_hadd_ps(_mm256_hadd_ps(a, b), _mm256_hadd_ps(c, d));
  return _mm_add_ps(_mm256_castps256_ps128(t), _mm256_extractf128_ps(t, 1));
}

// The same for eight vectors.
inline __m256 reduce8(__m256 a, __m256 b, __m256 c, __m256 d, __m256 e, __m256 f, __m256 g, __m256 h) {
  const __m256 u0 = _mm256_hadd_ps(_mm256_hadd_ps(a, b), _mm256_hadd_ps(c, d));
  const __m256 u1 = _mm256_hadd_ps(_mm256_hadd_ps(e, f), _mm256_hadd_ps(g, h));
  return _mm256_add_ps(_mm256_permute2f128_ps(u0, u1, 0x20), _mm256_permute2f128_ps(u0, u1, 0x31));
}

inline float reduce1(__m256 a) { return _mm_cvtss_f32(reduce4(a, a, a, a)); }

// The eight lane accumulators of dot(a, b, n).
inline __m256 dot_lanes(const float* a, const float* b, int64_t n) {
  __m256 acc = _mm256_setzero_ps();
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) acc = _mm256_fmadd_ps(_mm256_loadu_ps(a + j), _mm256_loadu_ps(b + j), acc);
  if (j < n) {  // masked lanes load +0, and fma(0, 0, acc) = acc (an accumulator from +0 is never -0)
    const __m256i m = tail_mask(n - j);
    acc = _mm256_fmadd_ps(_mm256_maskload_ps(a + j, m), _mm256_maskload_ps(b + j, m), acc);
  }
  return acc;
}

float dot_avx2(const float* a, const float* b, int64_t n) { return reduce1(dot_lanes(a, b, n)); }

// out[0..8) for eight rows w + i * stride, i = 0..7.
inline void dot8_rows(float* out, const float* w, int64_t stride, const float* x, int64_t cols) {
  __m256 acc[8];
  for (int i = 0; i < 8; ++i) acc[i] = _mm256_setzero_ps();
  int64_t j = 0;
  for (; j + 8 <= cols; j += 8) {
    const __m256 xv = _mm256_loadu_ps(x + j);
    for (int i = 0; i < 8; ++i) acc[i] = _mm256_fmadd_ps(_mm256_loadu_ps(w + i * stride + j), xv, acc[i]);
  }
  if (j < cols) {
    const __m256i m = tail_mask(cols - j);
    const __m256 xv = _mm256_maskload_ps(x + j, m);
    for (int i = 0; i < 8; ++i) acc[i] = _mm256_fmadd_ps(_mm256_maskload_ps(w + i * stride + j, m), xv, acc[i]);
  }
  _mm256_storeu_ps(out, reduce8(acc[0], acc[1], acc[2], acc[3], acc[4], acc[5], acc[6], acc[7]));
}

void matvec_avx2(float* out, const float* w, int64_t row_stride, const float* x, int64_t rows, int64_t cols) {
  int64_t r = 0;
  for (; r + 8 <= rows; r += 8) dot8_rows(out + r, w + r * row_stride, row_stride, x, cols);
  for (; r < rows; ++r) out[r] = dot_avx2(w + r * row_stride, x, cols);
}

inline __m256 exp8(__m256 x) {
  x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(k::kExpMin)), _mm256_set1_ps(k::kExpMax));
  const __m256 magic = _mm256_set1_ps(k::kRoundMagic);
  const __m256 n = _mm256_sub_ps(_mm256_fmadd_ps(x, _mm256_set1_ps(k::kLog2e), magic), magic);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(k::kLn2Hi), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(k::kLn2Lo), r);
  __m256 p = _mm256_set1_ps(k::kInvFactorial[7]);
  for (int i = 6; i >= 0; --i) p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(k::kInvFactorial[i]));
  const __m256i bits = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(bits));
}

void exp_avx2(float* out, const float* x, int64_t n) {
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) _mm256_storeu_ps(out + j, exp8(_mm256_loadu_ps(x + j)));
  if (j < n) {
    const __m256i m = tail_mask(n - j);
    _mm256_maskstore_ps(out + j, m, exp8(_mm256_maskload_ps(x + j, m)));
  }
}

void attend_avx2(float* out, float* scores, const float* q, const float* keys, const float* values, int64_t rows,
                 int64_t row_stride, int64_t head_dim, float scale) {
  // Scores, and their maximum (exact in any order).
  matvec_avx2(scores, keys, row_stride, q, rows, head_dim);
  const __m256 s = _mm256_set1_ps(scale);
  __m256 max8 = _mm256_set1_ps(-__builtin_inff());
  int64_t r = 0;
  for (; r + 8 <= rows; r += 8) {
    const __m256 v = _mm256_mul_ps(_mm256_loadu_ps(scores + r), s);
    _mm256_storeu_ps(scores + r, v);
    max8 = _mm256_max_ps(v, max8);
  }
  float max = -__builtin_inff();
  for (; r < rows; ++r) {
    scores[r] *= scale;
    max = scores[r] > max ? scores[r] : max;
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, max8);
  for (int i = 0; i < 8; ++i) max = lanes[i] > max ? lanes[i] : max;
  // e = exp(s - max), summed in eight lanes.
  const __m256 m8 = _mm256_set1_ps(max);
  __m256 sum = _mm256_setzero_ps();
  for (r = 0; r + 8 <= rows; r += 8) {
    const __m256 e = exp8(_mm256_sub_ps(_mm256_loadu_ps(scores + r), m8));
    _mm256_storeu_ps(scores + r, e);
    sum = _mm256_add_ps(sum, e);
  }
  if (r < rows) {
    const __m256i m = tail_mask(rows - r);
    const __m256 e = _mm256_and_ps(exp8(_mm256_sub_ps(_mm256_maskload_ps(scores + r, m), m8)), _mm256_castsi256_ps(m));
    _mm256_maskstore_ps(scores + r, m, e);
    sum = _mm256_add_ps(sum, e);
  }
  const __m256 inverse = _mm256_set1_ps(1.0f / reduce1(sum));
  for (r = 0; r + 8 <= rows; r += 8) _mm256_storeu_ps(scores + r, _mm256_mul_ps(_mm256_loadu_ps(scores + r), inverse));
  for (; r < rows; ++r) scores[r] *= _mm256_cvtss_f32(inverse);
  // out = the weighted sum of the value rows, four accumulators by row mod 4.
  for (int64_t d = 0; d < head_dim; d += 8) {
    const __m256i m = tail_mask(head_dim - d < 8 ? head_dim - d : 8);
    const float* v = values + d;
    __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    r = 0;
    for (; r + 4 <= rows; r += 4)
      for (int i = 0; i < 4; ++i)
        acc[i] = _mm256_fmadd_ps(_mm256_set1_ps(scores[r + i]), _mm256_maskload_ps(v + (r + i) * row_stride, m),
                                 acc[i]);
    for (int i = 0; r < rows; ++r, ++i)
      acc[i] = _mm256_fmadd_ps(_mm256_set1_ps(scores[r]), _mm256_maskload_ps(v + r * row_stride, m), acc[i]);
    _mm256_maskstore_ps(out + d, m, _mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3])));
  }
}

void swiglu_avx2(float* h, const float* gate, int64_t n) {
  const __m256 one = _mm256_set1_ps(1.0f), sign = _mm256_set1_ps(-0.0f);  // x ^ sign = -x
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256 x = _mm256_loadu_ps(h + j);
    const __m256 e = exp8(_mm256_xor_ps(x, sign));
    _mm256_storeu_ps(h + j, _mm256_mul_ps(_mm256_div_ps(x, _mm256_add_ps(one, e)), _mm256_loadu_ps(gate + j)));
  }
  if (j < n) {
    const __m256i m = tail_mask(n - j);
    const __m256 x = _mm256_maskload_ps(h + j, m);
    const __m256 e = exp8(_mm256_xor_ps(x, sign));
    _mm256_maskstore_ps(h + j, m,
                        _mm256_mul_ps(_mm256_div_ps(x, _mm256_add_ps(one, e)), _mm256_maskload_ps(gate + j, m)));
  }
}

}  // namespace

const DecoderKernels& decoder_kernels_avx2_fma_table() {
  static const DecoderKernels kernels{"avx2-fma", matvec_avx2, dot_avx2, attend_avx2, swiglu_avx2, exp_avx2};
  return kernels;
}

}  // namespace lynx
