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

// out = weight * x / rms(x), element by element (Eigen), the mean square from the kernel's dot. `eps`: llama2.c's
// run.c uses 1e-5; a Hugging Face config.json gives rms_norm_eps.
void rmsnorm(const DecoderKernels& kernels, float* out, const float* x, const float* weight, int n, float eps) {
  const float ss = kernels.dot(x, x, n) / static_cast<float>(n) + eps;
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

// Hugging Face's rotate-half order within each head (pairs j, j + head_dim/2) to llama2.c's interleaved order
// (pairs 2j, 2j+1): the row permutation HF's Llama converter applies to q/k, undone. The values only move, so a
// checkpoint converted from llama2.c decodes to the same bits.
void interleave_heads(float* v, int width, int head_dim, std::vector<float>& scratch) {
  const int half = head_dim / 2;
  scratch.resize(static_cast<size_t>(head_dim));
  for (int h = 0; h < width; h += head_dim) {
    for (int j = 0; j < half; ++j) {
      scratch[static_cast<size_t>(2 * j)] = v[h + j];
      scratch[static_cast<size_t>(2 * j + 1)] = v[h + half + j];
    }
    std::copy(scratch.begin(), scratch.end(), v + h);
  }
}

// The rotation frequency of pair j: base^(-2j/head_dim), and for Llama-3.1's scaling (config.json rope_scaling,
// "rope_type": "llama3") low frequencies divided by `factor`, high ones kept, and a linear blend between (in
// wavelengths, against the original context divided by the low and high frequency factors).
float rope_frequency(const LlamaConfig& c, int j) {
  float frequency = 1.0f / std::pow(c.rope_theta, static_cast<float>(2 * j) / static_cast<float>(c.head_dim()));
  if (c.rope_factor <= 0) return frequency;
  constexpr float kTwoPi = 6.28318530717958647692f;
  const float wavelength = kTwoPi / frequency;
  const float context = static_cast<float>(c.rope_original_context);
  const float low_wavelength = context / c.rope_low_freq_factor;    // longer: scaled fully
  const float high_wavelength = context / c.rope_high_freq_factor;  // shorter: not scaled
  if (wavelength > low_wavelength) return frequency / c.rope_factor;
  if (wavelength < high_wavelength) return frequency;
  const float smooth = (context / wavelength - c.rope_low_freq_factor) /
                       (c.rope_high_freq_factor - c.rope_low_freq_factor);
  return (1.0f - smooth) * frequency / c.rope_factor + smooth * frequency;
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
  for (int j = 0; j < c.head_dim() / 2; ++j) rope_frequency_.push_back(rope_frequency(c, j));
}

// The RoPE tables up to position `positions` - 1, grown on demand (a Llama-3.1 context is 131,072 positions).
void Decoder::reserve_positions(int64_t positions) {
  const int half = model_.config.head_dim() / 2;
  const int64_t have = static_cast<int64_t>(rope_cos_.size()) / std::max(half, 1);
  if (positions <= have) return;
  rope_cos_.resize(static_cast<size_t>(positions * half));
  rope_sin_.resize(rope_cos_.size());
  for (int64_t pos = have; pos < positions; ++pos)
    for (int j = 0; j < half; ++j) {
      float angle = static_cast<float>(pos) * rope_frequency_[static_cast<size_t>(j)];
      rope_cos_[static_cast<size_t>(pos) * half + j] = std::cos(angle);
      rope_sin_[static_cast<size_t>(pos) * half + j] = std::sin(angle);
    }
  scores_.resize(static_cast<size_t>(positions));
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
  q_.resize(size(c.q_dim()));
  k_.resize(size(c.kv_dim()));
  v_.resize(size(c.kv_dim()));
  attn_.resize(size(c.q_dim()));
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
  reserve_positions(pos0 + n);
  positions_run_ += n;
  const int dim = c.dim, q_dim = c.q_dim(), kv_dim = c.kv_dim(), hidden = c.hidden_dim, head_dim = c.head_dim();
  const int group = c.n_heads / c.n_kv_heads, half = head_dim / 2;
  const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim)), eps = c.rms_eps;

  for (int64_t i = 0; i < n; ++i) weights_row(&x_[i * dim], model_.token_embedding, tokens[i]);

  const DecoderKernels& k = kernels_;
  auto add_bias = [](float* v, const float* bias, int width) {
    if (bias) VectorMap(v, width) += ConstVectorMap(bias, width);
  };
  auto norm_heads = [&](float* v, const float* weight, int width) {  // RMSNorm of each head (Qwen3's q/k norm)
    if (!weight) return;
    for (int h = 0; h < width; h += head_dim) {
      head_scratch_.assign(v + h, v + h + head_dim);
      rmsnorm(k, v + h, head_scratch_.data(), weight, head_dim, eps);
    }
  };
  for (int l = 0; l < c.n_layers; ++l) {
    const LlamaLayer& L = model_.layers[static_cast<size_t>(l)];
    // Attention: q, k, v of each token, rotated by its position.
    for (int64_t i = 0; i < n; ++i) {
      float* xb = &xb_[i * dim];
      float* q = &q_[i * q_dim];
      float* kk = &k_[i * kv_dim];
      float* v = &v_[i * kv_dim];
      rmsnorm(k, xb, &x_[i * dim], L.rms_att, dim, eps);
      weights_matvec(k, q, L.wq, xb, matrix_scratch_);
      weights_matvec(k, kk, L.wk, xb, matrix_scratch_);
      weights_matvec(k, v, L.wv, xb, matrix_scratch_);
      add_bias(q, L.bq, q_dim);
      add_bias(kk, L.bk, kv_dim);
      add_bias(v, L.bv, kv_dim);
      norm_heads(q, L.q_norm, q_dim);
      norm_heads(kk, L.k_norm, kv_dim);
      if (c.rope_rotate_half) {
        interleave_heads(q, q_dim, head_dim, head_scratch_);
        interleave_heads(kk, kv_dim, head_dim, head_scratch_);
      }
      const float* cos_row = &rope_cos_[static_cast<size_t>(pos0 + i) * half];
      const float* sin_row = &rope_sin_[static_cast<size_t>(pos0 + i) * half];
      rope(q, q_dim, head_dim, cos_row, sin_row);
      rope(kk, kv_dim, head_dim, cos_row, sin_row);
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
        k.attend(&attn_[i * q_dim + h * head_dim], scores_.data(), &q_[i * q_dim + h * head_dim],
                 rows_k + head_offset, rows_v + head_offset, context, kv_dim, head_dim, scale);
      }
    }
    // Output projection and the SwiGLU feed-forward block, both residual.
    for (int64_t i = 0; i < n; ++i) {
      float* x = &x_[i * dim];
      float* xb = &xb_[i * dim];
      weights_matvec(k, xb, L.wo, &attn_[i * q_dim], matrix_scratch_);
      VectorMap(x, dim) += ConstVectorMap(xb, dim);
      rmsnorm(k, xb, x, L.rms_ffn, dim, eps);
      float* hb = &hb_[i * hidden];
      float* hb2 = &hb2_[i * hidden];
      weights_matvec(k, hb, L.w1, xb, matrix_scratch_);
      weights_matvec(k, hb2, L.w3, xb, matrix_scratch_);
      k.swiglu(hb, hb2, hidden);
      weights_matvec(k, xb, L.w2, hb, matrix_scratch_);
      VectorMap(x, dim) += ConstVectorMap(xb, dim);
    }
  }
  if (prefill) return;
  for (int64_t i = 0; i < n; ++i) {
    rmsnorm(k, &xb_[i * dim], &x_[i * dim], model_.rms_final, dim, eps);
    weights_matvec(k, &logits_[i * c.vocab_size], model_.classifier, &xb_[i * dim], matrix_scratch_);
  }
}

}  // namespace lynx
