#include "kernels/attention_reference.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/error.hpp"
#include "kernels/kv_codec.hpp"

namespace lynx {

void attention_shape_check(const AttentionShape& s) {
  if (s.tokens < 1 || s.kv_heads < 1 || s.head_dim < 1 || s.n_heads < 1 || s.n_heads % s.kv_heads != 0)
    throw_error("attention: bad shape (tokens %lld, kv_heads %lld, n_heads %lld, head_dim %lld): expected positive "
                "sizes with n_heads a multiple of kv_heads",
                static_cast<long long>(s.tokens), static_cast<long long>(s.kv_heads),
                static_cast<long long>(s.n_heads), static_cast<long long>(s.head_dim));
}

void attention_reference(const KvFormat& format, const AttentionShape& shape, const float* q,
                         const uint8_t* k_anchor, const uint8_t* k_residual, const uint8_t* v_anchor,
                         const uint8_t* v_residual, float* out) {
  attention_shape_check(shape);
  const KvShape kv = shape.kv();
  const size_t n = static_cast<size_t>(kv.elements());
  std::vector<float> k(n), v(n);
  kv_decode(format, KvRole::key, kv, k_anchor, k_residual, k.data());
  kv_decode(format, KvRole::value, kv, v_anchor, v_residual, v.data());

  const int64_t T = shape.tokens, D = shape.head_dim, row = kv.row_elements();
  const double scale = 1.0 / std::sqrt(static_cast<double>(D));
  std::vector<double> score(static_cast<size_t>(T)), acc(static_cast<size_t>(D));
  for (int64_t h = 0; h < shape.n_heads; ++h) {
    const int64_t kv_head = h / shape.group();
    const float* qh = q + h * D;
    double max_score = -INFINITY;
    for (int64_t t = 0; t < T; ++t) {
      const float* kt = k.data() + t * row + kv_head * D;
      double dot = 0;
      for (int64_t d = 0; d < D; ++d) dot += static_cast<double>(qh[d]) * static_cast<double>(kt[d]);
      score[t] = dot * scale;
      max_score = std::max(max_score, score[t]);
    }
    double sum = 0;
    for (int64_t t = 0; t < T; ++t) {
      score[t] = std::exp(score[t] - max_score);
      sum += score[t];
    }
    std::fill(acc.begin(), acc.end(), 0.0);
    for (int64_t t = 0; t < T; ++t) {
      const float* vt = v.data() + t * row + kv_head * D;
      for (int64_t d = 0; d < D; ++d) acc[d] += score[t] * static_cast<double>(vt[d]);
    }
    for (int64_t d = 0; d < D; ++d) out[h * D + d] = static_cast<float>(acc[d] / sum);
  }
}

}  // namespace lynx
