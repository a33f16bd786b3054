#include "models/decoder/decoder.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <Eigen/Core>

#include "common/error.hpp"

namespace lynx {

namespace {

using VectorMap = Eigen::Map<Eigen::VectorXf>;
using ConstVectorMap = Eigen::Map<const Eigen::VectorXf>;

// out = weight * x / rms(x), element by element (Eigen), the mean square from the kernel's dot.
void rmsnorm(const DecoderKernels& kernels, float* out, const float* x, const float* weight, int n) {
  const float ss = kernels.dot(x, x, n) / static_cast<float>(n) + 1e-5f;  // 1e-5: llama2.c's run.c epsilon
  const float inverse = 1.0f / std::sqrt(ss);
  VectorMap(out, n) = ConstVectorMap(weight, n).cwiseProduct(inverse * ConstVectorMap(x, n));
}

// Rotates consecutive pairs (2j, 2j+1) of every head of `v` [width] by the angles of one position.
void rope(float* v, int width, int head_dim, const float* cos_row, const float* sin_row) {
  for (int h = 0; h < width; h += head_dim)
    for (int j = 0; j < head_dim / 2; ++j) {
      float a = v[h + 2 * j], b = v[h + 2 * j + 1];
      v[h + 2 * j] = a * cos_row[j] - b * sin_row[j];
      v[h + 2 * j + 1] = a * sin_row[j] + b * cos_row[j];
    }
}

}  // namespace

int argmax(const float* x, int n) {
  int best = 0;
  for (int i = 1; i < n; ++i)
    if (x[i] > x[best]) best = i;
  return best;
}

Decoder::Decoder(const LlamaModel& model, const DecoderKernels& kernels) : model_(model), kernels_(kernels) {
  const LlamaConfig& c = model.config;
  const int half = c.head_dim() / 2;
  rope_cos_.resize(static_cast<size_t>(c.seq_len) * half);
  rope_sin_.resize(rope_cos_.size());
  for (int pos = 0; pos < c.seq_len; ++pos)
    for (int j = 0; j < half; ++j) {
      float frequency = 1.0f / std::pow(10000.0f, static_cast<float>(2 * j) / static_cast<float>(c.head_dim()));
      float angle = static_cast<float>(pos) * frequency;
      rope_cos_[static_cast<size_t>(pos) * half + j] = std::cos(angle);
      rope_sin_[static_cast<size_t>(pos) * half + j] = std::sin(angle);
    }
  scores_.resize(static_cast<size_t>(c.seq_len));
}

KvCache Decoder::make_cache(const KvFormat& format) const {
  const LlamaConfig& c = model_.config;
  return KvCache(format, c.n_layers, c.n_kv_heads, c.head_dim());
}

void Decoder::reserve(int64_t n) {
  if (n <= capacity_) return;
  const LlamaConfig& c = model_.config;
  auto size = [n](int width) { return static_cast<size_t>(n * width); };
  x_.resize(size(c.dim));
  xb_.resize(size(c.dim));
  q_.resize(size(c.dim));
  k_.resize(size(c.kv_dim()));
  v_.resize(size(c.kv_dim()));
  attn_.resize(size(c.dim));
  hb_.resize(size(c.hidden_dim));
  hb2_.resize(size(c.hidden_dim));
  logits_.resize(size(c.vocab_size));
  capacity_ = n;
}

const float* Decoder::forward(KvCache& cache, const int* tokens, int64_t n) {
  run(cache, tokens, n, false);
  return logits_.data();
}

void Decoder::prefill(KvCache& cache, const int* tokens, int64_t n) { run(cache, tokens, n, true); }

void Decoder::run(KvCache& cache, const int* tokens, int64_t n, bool prefill) {
  const LlamaConfig& c = model_.config;
  if (n <= 0) return;
  if (cache.n_layers() != c.n_layers) throw_error("decoder: the KV cache has %d layers, the model %d",
                                                  cache.n_layers(), c.n_layers);
  const int64_t pos0 = cache.tokens();
  if (pos0 + n > c.seq_len)
    throw_error("decoder: positions %lld..%lld are past the model's context of %d tokens",
                static_cast<long long>(pos0), static_cast<long long>(pos0 + n - 1), c.seq_len);
  for (int64_t i = 0; i < n; ++i)
    if (tokens[i] < 0 || tokens[i] >= c.vocab_size)
      throw_error("decoder: token %d outside the vocabulary of %d", tokens[i], c.vocab_size);
  reserve(n);
  const int dim = c.dim, kv_dim = c.kv_dim(), hidden = c.hidden_dim, head_dim = c.head_dim();
  const int group = c.n_heads / c.n_kv_heads, half = head_dim / 2;
  const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));

  for (int64_t i = 0; i < n; ++i)
    std::memcpy(&x_[i * dim], model_.token_embedding + static_cast<int64_t>(tokens[i]) * dim,
                static_cast<size_t>(dim) * sizeof(float));

  const DecoderKernels& k = kernels_;
  for (int l = 0; l < c.n_layers; ++l) {
    const LlamaLayer& L = model_.layers[static_cast<size_t>(l)];
    // Attention: q, k, v of each token, rotated by its position.
    for (int64_t i = 0; i < n; ++i) {
      float* xb = &xb_[i * dim];
      rmsnorm(k, xb, &x_[i * dim], L.rms_att, dim);
      k.matvec(&q_[i * dim], L.wq, dim, xb, dim, dim);
      k.matvec(&k_[i * kv_dim], L.wk, dim, xb, kv_dim, dim);
      k.matvec(&v_[i * kv_dim], L.wv, dim, xb, kv_dim, dim);
      const float* cos_row = &rope_cos_[static_cast<size_t>(pos0 + i) * half];
      const float* sin_row = &rope_sin_[static_cast<size_t>(pos0 + i) * half];
      rope(&q_[i * dim], dim, head_dim, cos_row, sin_row);
      rope(&k_[i * kv_dim], kv_dim, head_dim, cos_row, sin_row);
    }
    cache.append(l, n, k_.data(), v_.data());
    // What attention reads, [pos0 + n x kv_dim]: the cache as stored; the prefill pass reads its own block's rows
    // fresh (fp32), after the cached rows, in a scratch copy.
    const float* rows_k = cache.keys(l);
    const float* rows_v = cache.values(l);
    if (prefill) {
      const size_t cached = static_cast<size_t>(pos0 * kv_dim), fresh = static_cast<size_t>(n * kv_dim);
      prefill_k_.resize(cached + fresh);
      prefill_v_.resize(cached + fresh);
      std::copy(rows_k, rows_k + cached, prefill_k_.begin());
      std::copy(rows_v, rows_v + cached, prefill_v_.begin());
      std::copy(k_.begin(), k_.begin() + static_cast<ptrdiff_t>(fresh), prefill_k_.begin() + static_cast<ptrdiff_t>(cached));
      std::copy(v_.begin(), v_.begin() + static_cast<ptrdiff_t>(fresh), prefill_v_.begin() + static_cast<ptrdiff_t>(cached));
      rows_k = prefill_k_.data();
      rows_v = prefill_v_.data();
    }
    for (int64_t i = 0; i < n; ++i) {
      const int64_t context = pos0 + i + 1;
      for (int h = 0; h < c.n_heads; ++h) {
        const int64_t head_offset = static_cast<int64_t>(h / group) * head_dim;
        k.attend(&attn_[i * dim + h * head_dim], scores_.data(), &q_[i * dim + h * head_dim], rows_k + head_offset,
                 rows_v + head_offset, context, kv_dim, head_dim, scale);
      }
    }
    // Output projection and the SwiGLU feed-forward block, both residual.
    for (int64_t i = 0; i < n; ++i) {
      float* x = &x_[i * dim];
      float* xb = &xb_[i * dim];
      k.matvec(xb, L.wo, dim, &attn_[i * dim], dim, dim);
      VectorMap(x, dim) += ConstVectorMap(xb, dim);
      rmsnorm(k, xb, x, L.rms_ffn, dim);
      float* hb = &hb_[i * hidden];
      float* hb2 = &hb2_[i * hidden];
      k.matvec(hb, L.w1, dim, xb, hidden, dim);
      k.matvec(hb2, L.w3, dim, xb, hidden, dim);
      k.swiglu(hb, hb2, hidden);
      k.matvec(xb, L.w2, hidden, hb, dim, hidden);
      VectorMap(x, dim) += ConstVectorMap(xb, dim);
    }
  }
  if (prefill) return;
  for (int64_t i = 0; i < n; ++i) {
    rmsnorm(k, &xb_[i * dim], &x_[i * dim], model_.rms_final, dim);
    k.matvec(&logits_[i * c.vocab_size], model_.classifier, dim, &xb_[i * dim], c.vocab_size, dim);
  }
}

}  // namespace lynx
