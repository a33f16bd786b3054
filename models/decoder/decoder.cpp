#include "models/decoder/decoder.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/error.hpp"

namespace lynx {

namespace {

constexpr int kMaxHeadDim = 512;

// Dot product with 8 independent partial sums (vectorizable without reordering a single sum), combined in a fixed
// order: deterministic, and the same for every caller.
inline float dot(const float* a, const float* b, int n) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int j = 0;
  for (; j + 8 <= n; j += 8)
    for (int l = 0; l < 8; ++l) acc[l] += a[j + l] * b[j + l];
  float s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
  for (; j < n; ++j) s += a[j] * b[j];
  return s;
}

// out += a * x (out is a local array: no aliasing).
inline void add_scaled(float* __restrict out, const float* __restrict x, float a, int n) {
  for (int d = 0; d < n; ++d) out[d] += a * x[d];
}

// out[r] = W[r, :] . x for W [rows x cols].
void matvec(float* out, const float* w, const float* x, int rows, int cols) {
  for (int r = 0; r < rows; ++r) out[r] = dot(w + static_cast<int64_t>(r) * cols, x, cols);
}

void rmsnorm(float* out, const float* x, const float* weight, int n) {
  float ss = dot(x, x, n) / static_cast<float>(n) + 1e-5f;
  float inverse = 1.0f / std::sqrt(ss);
  for (int i = 0; i < n; ++i) out[i] = weight[i] * (inverse * x[i]);
}

void softmax(float* x, int n) {
  float lane_max[8] = {x[0], x[0], x[0], x[0], x[0], x[0], x[0], x[0]};  // the max is exact in any order
  int i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; ++l) lane_max[l] = x[i + l] > lane_max[l] ? x[i + l] : lane_max[l];
  float max = lane_max[0];
  for (int l = 1; l < 8; ++l) max = lane_max[l] > max ? lane_max[l] : max;
  for (; i < n; ++i) max = x[i] > max ? x[i] : max;
  for (i = 0; i < n; ++i) x[i] = std::exp(x[i] - max);
  float sum = 0;
  for (i = 0; i < n; ++i) sum += x[i];
  float inverse = 1.0f / sum;
  for (i = 0; i < n; ++i) x[i] *= inverse;
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

Decoder::Decoder(const LlamaModel& model) : model_(model) {
  const LlamaConfig& c = model.config;
  if (c.head_dim() > kMaxHeadDim)
    throw_error("decoder: head_dim %d is larger than the supported %d", c.head_dim(), kMaxHeadDim);
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

  for (int l = 0; l < c.n_layers; ++l) {
    const LlamaLayer& L = model_.layers[static_cast<size_t>(l)];
    // Attention: q, k, v of each token, rotated by its position.
    for (int64_t i = 0; i < n; ++i) {
      float* xb = &xb_[i * dim];
      rmsnorm(xb, &x_[i * dim], L.rms_att, dim);
      matvec(&q_[i * dim], L.wq, xb, dim, dim);
      matvec(&k_[i * kv_dim], L.wk, xb, kv_dim, dim);
      matvec(&v_[i * kv_dim], L.wv, xb, kv_dim, dim);
      const float* cos_row = &rope_cos_[static_cast<size_t>(pos0 + i) * half];
      const float* sin_row = &rope_sin_[static_cast<size_t>(pos0 + i) * half];
      rope(&q_[i * dim], dim, head_dim, cos_row, sin_row);
      rope(&k_[i * kv_dim], kv_dim, head_dim, cos_row, sin_row);
    }
    cache.append(l, n, k_.data(), v_.data());
    const float* cache_k = cache.keys(l);
    const float* cache_v = cache.values(l);
    // Rows below `cached` come from the cache; the prefill pass reads its own block's rows fresh.
    const int64_t cached = prefill ? pos0 : pos0 + n;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t context = pos0 + i + 1;
      const int64_t from_cache = std::min(cached, context);
      for (int h = 0; h < c.n_heads; ++h) {
        const float* q = &q_[i * dim + h * head_dim];
        const int64_t head_offset = static_cast<int64_t>(h / group) * head_dim;
        const float* keys = cache_k + head_offset;
        const float* fresh_keys = &k_[head_offset];  // the block's own rows (prefill), row r at (r - pos0) * kv_dim
        float* scores = scores_.data();
        for (int64_t r = 0; r < from_cache; ++r) scores[r] = dot(q, keys + r * kv_dim, head_dim) * scale;
        for (int64_t r = from_cache; r < context; ++r)
          scores[r] = dot(q, fresh_keys + (r - pos0) * kv_dim, head_dim) * scale;
        softmax(scores, static_cast<int>(context));
        float out[kMaxHeadDim];
        for (int d = 0; d < head_dim; ++d) out[d] = 0;
        const float* values = cache_v + head_offset;
        const float* fresh_values = &v_[head_offset];
        for (int64_t r = 0; r < from_cache; ++r) add_scaled(out, values + r * kv_dim, scores[r], head_dim);
        for (int64_t r = from_cache; r < context; ++r)
          add_scaled(out, fresh_values + (r - pos0) * kv_dim, scores[r], head_dim);
        std::memcpy(&attn_[i * dim + h * head_dim], out, static_cast<size_t>(head_dim) * sizeof(float));
      }
    }
    // Output projection and the SwiGLU feed-forward block, both residual.
    for (int64_t i = 0; i < n; ++i) {
      float* x = &x_[i * dim];
      float* xb = &xb_[i * dim];
      matvec(xb, L.wo, &attn_[i * dim], dim, dim);
      for (int d = 0; d < dim; ++d) x[d] += xb[d];
      rmsnorm(xb, x, L.rms_ffn, dim);
      float* hb = &hb_[i * hidden];
      float* hb2 = &hb2_[i * hidden];
      matvec(hb, L.w1, xb, hidden, dim);
      matvec(hb2, L.w3, xb, hidden, dim);
      for (int j = 0; j < hidden; ++j) hb[j] = hb[j] / (1.0f + std::exp(-hb[j])) * hb2[j];
      matvec(xb, L.w2, hb, dim, hidden);
      for (int d = 0; d < dim; ++d) x[d] += xb[d];
    }
  }
  if (prefill) return;
  for (int64_t i = 0; i < n; ++i) {
    rmsnorm(&xb_[i * dim], &x_[i * dim], model_.rms_final, dim);
    matvec(&logits_[i * c.vocab_size], model_.classifier, &xb_[i * dim], c.vocab_size, dim);
  }
}

}  // namespace lynx
