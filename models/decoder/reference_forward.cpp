#include "models/decoder/reference_forward.hpp"

#include <cmath>

namespace lynx {

namespace {

void reference_matmul(float* out, const float* x, const float* w, int n, int d) {  // W [d x n] times x [n]
  for (int i = 0; i < d; i++) {
    float sum = 0.0f;
    for (int j = 0; j < n; j++) sum += w[i * n + j] * x[j];
    out[i] = sum;
  }
}

void reference_rmsnorm(float* out, const float* x, const float* w, int n) {
  float ss = 0.0f;
  for (int j = 0; j < n; j++) ss += x[j] * x[j];
  ss = 1.0f / sqrtf(ss / static_cast<float>(n) + 1e-5f);
  for (int j = 0; j < n; j++) out[j] = w[j] * (ss * x[j]);
}

void reference_softmax(float* x, int n) {
  float max = x[0];
  for (int i = 1; i < n; i++)
    if (x[i] > max) max = x[i];
  float sum = 0.0f;
  for (int i = 0; i < n; i++) {
    x[i] = expf(x[i] - max);
    sum += x[i];
  }
  for (int i = 0; i < n; i++) x[i] /= sum;
}

}  // namespace

ReferenceDecoder::ReferenceDecoder(const LlamaModel& model) : model_(model) {
  const LlamaConfig& c = model.config;
  x_.resize(static_cast<size_t>(c.dim));
  xb_.resize(static_cast<size_t>(c.dim));
  xb2_.resize(static_cast<size_t>(c.dim));
  q_.resize(static_cast<size_t>(c.dim));
  hb_.resize(static_cast<size_t>(c.hidden_dim));
  hb2_.resize(static_cast<size_t>(c.hidden_dim));
  att_.resize(static_cast<size_t>(c.n_heads) * static_cast<size_t>(c.seq_len));
  logits_.resize(static_cast<size_t>(c.vocab_size));
  key_cache_.resize(static_cast<size_t>(c.n_layers) * static_cast<size_t>(c.seq_len) * static_cast<size_t>(c.kv_dim()));
  value_cache_.resize(key_cache_.size());
}

const float* ReferenceDecoder::step(int token, int pos) {
  const LlamaConfig& c = model_.config;
  const int dim = c.dim, hidden = c.hidden_dim, L = c.n_layers, head_size = c.head_dim(), kv_dim = c.kv_dim();
  const int kv_mul = c.n_heads / c.n_kv_heads;
  // Tensor offsets in file order (llama2.c's legacy layout), independent of LlamaModel's pointers.
  const float* w = model_.weights.data();
  const float* emb = w;
  const float* rms_att = emb + static_cast<long>(c.vocab_size) * dim;
  const float* wq = rms_att + L * dim;
  const float* wk = wq + static_cast<long>(L) * dim * dim;
  const float* wv = wk + static_cast<long>(L) * kv_dim * dim;
  const float* wo = wv + static_cast<long>(L) * kv_dim * dim;
  const float* rms_ffn = wo + static_cast<long>(L) * dim * dim;
  const float* w1 = rms_ffn + L * dim;
  const float* w2 = w1 + static_cast<long>(L) * hidden * dim;
  const float* w3 = w2 + static_cast<long>(L) * dim * hidden;
  const float* rms_final = w3 + static_cast<long>(L) * hidden * dim;
  const float* wcls = c.shared_classifier ? emb : rms_final + dim + static_cast<long>(c.seq_len) * head_size;

  float* x = x_.data();
  for (int i = 0; i < dim; i++) x[i] = emb[static_cast<long>(token) * dim + i];
  for (int l = 0; l < L; l++) {
    reference_rmsnorm(xb_.data(), x, rms_att + l * dim, dim);
    float* k = &key_cache_[(static_cast<size_t>(l) * c.seq_len + pos) * kv_dim];
    float* v = &value_cache_[(static_cast<size_t>(l) * c.seq_len + pos) * kv_dim];
    reference_matmul(q_.data(), xb_.data(), wq + static_cast<long>(l) * dim * dim, dim, dim);
    reference_matmul(k, xb_.data(), wk + static_cast<long>(l) * kv_dim * dim, dim, kv_dim);
    reference_matmul(v, xb_.data(), wv + static_cast<long>(l) * kv_dim * dim, dim, kv_dim);
    for (int i = 0; i < dim; i += 2) {
      float freq = 1.0f / powf(10000.0f, static_cast<float>(i % head_size) / static_cast<float>(head_size));
      float angle = static_cast<float>(pos) * freq;
      float fcr = cosf(angle), fci = sinf(angle);
      for (int which = 0; which < (i < kv_dim ? 2 : 1); which++) {
        float* vec = which == 0 ? q_.data() : k;
        float a = vec[i], b = vec[i + 1];
        vec[i] = a * fcr - b * fci;
        vec[i + 1] = a * fci + b * fcr;
      }
    }
    for (int h = 0; h < c.n_heads; h++) {
      const float* q = q_.data() + h * head_size;
      float* att = att_.data() + static_cast<long>(h) * c.seq_len;
      for (int t = 0; t <= pos; t++) {
        const float* kt = &key_cache_[(static_cast<size_t>(l) * c.seq_len + t) * kv_dim + (h / kv_mul) * head_size];
        float score = 0.0f;
        for (int i = 0; i < head_size; i++) score += q[i] * kt[i];
        att[t] = score / sqrtf(static_cast<float>(head_size));
      }
      reference_softmax(att, pos + 1);
      float* out = xb_.data() + h * head_size;
      for (int i = 0; i < head_size; i++) out[i] = 0.0f;
      for (int t = 0; t <= pos; t++) {
        const float* vt =
            &value_cache_[(static_cast<size_t>(l) * c.seq_len + t) * kv_dim + (h / kv_mul) * head_size];
        for (int i = 0; i < head_size; i++) out[i] += att[t] * vt[i];
      }
    }
    reference_matmul(xb2_.data(), xb_.data(), wo + static_cast<long>(l) * dim * dim, dim, dim);
    for (int i = 0; i < dim; i++) x[i] += xb2_[i];
    reference_rmsnorm(xb_.data(), x, rms_ffn + l * dim, dim);
    reference_matmul(hb_.data(), xb_.data(), w1 + static_cast<long>(l) * dim * hidden, dim, hidden);
    reference_matmul(hb2_.data(), xb_.data(), w3 + static_cast<long>(l) * dim * hidden, dim, hidden);
    for (int i = 0; i < hidden; i++) {
      float val = hb_[i];
      val *= 1.0f / (1.0f + expf(-val));
      hb_[i] = val * hb2_[i];
    }
    reference_matmul(xb_.data(), hb_.data(), w2 + static_cast<long>(l) * dim * hidden, hidden, dim);
    for (int i = 0; i < dim; i++) x[i] += xb_[i];
  }
  reference_rmsnorm(x, x, rms_final, dim);
  reference_matmul(logits_.data(), x, wcls, dim, c.vocab_size);
  return logits_.data();
}

}  // namespace lynx
