#include "models/decoder/reference_forward_hf.hpp"

#include <cmath>
#include <stdexcept>

namespace lynx {

namespace {

void matmul(float* out, const float* x, const float* w, int n, int d) {  // W [d x n] times x [n]
  for (int i = 0; i < d; i++) {
    float sum = 0.0f;
    for (int j = 0; j < n; j++) sum += w[static_cast<long>(i) * n + j] * x[j];
    out[i] = sum;
  }
}

void rmsnorm(float* out, const float* x, const float* w, int n, float eps) {
  float ss = 0.0f;
  for (int j = 0; j < n; j++) ss += x[j] * x[j];
  ss = 1.0f / sqrtf(ss / static_cast<float>(n) + eps);
  for (int j = 0; j < n; j++) out[j] = w[j] * (ss * x[j]);
}

// rotate_half RoPE of one head: x[j], x[j + half] rotated by angle pos * inv_freq[j].
void rope_head(float* x, int head_dim, int pos, const std::vector<double>& inv_freq) {
  const int half = head_dim / 2;
  for (int j = 0; j < half; j++) {
    const double angle = pos * inv_freq[static_cast<size_t>(j)];
    const float c = static_cast<float>(std::cos(angle)), s = static_cast<float>(std::sin(angle));
    const float a = x[j], b = x[j + half];
    x[j] = a * c - b * s;
    x[j + half] = b * c + a * s;
  }
}

}  // namespace

HfReferenceDecoder::HfReferenceDecoder(const LlamaConfig& config, const HfTensors& tensors) : c_(config), t_(tensors) {
  const int hd = c_.head_dim();
  const double pi = std::acos(-1.0);
  for (int j = 0; j < hd / 2; j++) {
    double f = 1.0 / std::pow(static_cast<double>(c_.rope_theta), 2.0 * j / hd);
    if (c_.rope_factor > 0) {  // "llama3": by wavelength against the original context
      const double wavelen = 2 * pi / f, old = c_.rope_original_context;
      const double lo = c_.rope_low_freq_factor, hi = c_.rope_high_freq_factor, factor = c_.rope_factor;
      if (wavelen > old / lo) {
        f = f / factor;
      } else if (wavelen >= old / hi) {
        const double smooth = (old / wavelen - lo) / (hi - lo);
        f = (1 - smooth) * f / factor + smooth * f;
      }
    }
    inv_freq_.push_back(f);
  }
  x_.resize(static_cast<size_t>(c_.dim));
  xb_.resize(static_cast<size_t>(c_.dim));
  xb2_.resize(static_cast<size_t>(c_.dim));
  q_.resize(static_cast<size_t>(c_.q_dim()));
  att_.resize(static_cast<size_t>(c_.q_dim()));
  hb_.resize(static_cast<size_t>(c_.hidden_dim));
  hb2_.resize(static_cast<size_t>(c_.hidden_dim));
  logits_.resize(static_cast<size_t>(c_.vocab_size));
  key_cache_.resize(static_cast<size_t>(c_.n_layers));
  value_cache_.resize(static_cast<size_t>(c_.n_layers));
}

const std::vector<float>& HfReferenceDecoder::w(const std::string& name) const {
  auto it = t_.find(name);
  if (it == t_.end()) throw std::runtime_error("reference: no tensor " + name);
  return it->second;
}

const float* HfReferenceDecoder::optional(const std::string& name) const {
  auto it = t_.find(name);
  return it == t_.end() ? nullptr : it->second.data();
}

const float* HfReferenceDecoder::step(int token, int pos) {
  const int dim = c_.dim, hidden = c_.hidden_dim, hd = c_.head_dim(), q_dim = c_.q_dim(), kv_dim = c_.kv_dim();
  const int kv_mul = c_.n_heads / c_.n_kv_heads;
  const float eps = c_.rms_eps;
  const float* emb = w("model.embed_tokens.weight").data();
  for (int i = 0; i < dim; i++) x_[static_cast<size_t>(i)] = emb[static_cast<long>(token) * dim + i];
  std::vector<float> k(static_cast<size_t>(kv_dim)), v(static_cast<size_t>(kv_dim)), tmp(static_cast<size_t>(hd));
  for (int l = 0; l < c_.n_layers; l++) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    rmsnorm(xb_.data(), x_.data(), w(p + "input_layernorm.weight").data(), dim, eps);
    matmul(q_.data(), xb_.data(), w(p + "self_attn.q_proj.weight").data(), dim, q_dim);
    matmul(k.data(), xb_.data(), w(p + "self_attn.k_proj.weight").data(), dim, kv_dim);
    matmul(v.data(), xb_.data(), w(p + "self_attn.v_proj.weight").data(), dim, kv_dim);
    if (const float* b = optional(p + "self_attn.q_proj.bias"))
      for (int i = 0; i < q_dim; i++) q_[static_cast<size_t>(i)] += b[i];
    if (const float* b = optional(p + "self_attn.k_proj.bias"))
      for (int i = 0; i < kv_dim; i++) k[static_cast<size_t>(i)] += b[i];
    if (const float* b = optional(p + "self_attn.v_proj.bias"))
      for (int i = 0; i < kv_dim; i++) v[static_cast<size_t>(i)] += b[i];
    const float* qn = optional(p + "self_attn.q_norm.weight");
    const float* kn = optional(p + "self_attn.k_norm.weight");
    for (int h = 0; h < c_.n_heads; h++) {
      float* qh = q_.data() + h * hd;
      if (qn) {
        tmp.assign(qh, qh + hd);
        rmsnorm(qh, tmp.data(), qn, hd, eps);
      }
      rope_head(qh, hd, pos, inv_freq_);
    }
    for (int h = 0; h < c_.n_kv_heads; h++) {
      float* kh = k.data() + h * hd;
      if (kn) {
        tmp.assign(kh, kh + hd);
        rmsnorm(kh, tmp.data(), kn, hd, eps);
      }
      rope_head(kh, hd, pos, inv_freq_);
    }
    auto& kc = key_cache_[static_cast<size_t>(l)];
    auto& vc = value_cache_[static_cast<size_t>(l)];
    kc.resize(static_cast<size_t>(pos) * kv_dim);
    vc.resize(static_cast<size_t>(pos) * kv_dim);
    kc.insert(kc.end(), k.begin(), k.end());
    vc.insert(vc.end(), v.begin(), v.end());
    std::vector<float> scores(static_cast<size_t>(pos + 1));
    for (int h = 0; h < c_.n_heads; h++) {
      const float* qh = q_.data() + h * hd;
      const int kvh = h / kv_mul;
      float max = -INFINITY;
      for (int t = 0; t <= pos; t++) {
        float s = 0.0f;
        for (int i = 0; i < hd; i++) s += qh[i] * kc[static_cast<size_t>(t) * kv_dim + kvh * hd + i];
        scores[static_cast<size_t>(t)] = s / sqrtf(static_cast<float>(hd));
        if (scores[static_cast<size_t>(t)] > max) max = scores[static_cast<size_t>(t)];
      }
      float sum = 0.0f;
      for (int t = 0; t <= pos; t++) {
        scores[static_cast<size_t>(t)] = expf(scores[static_cast<size_t>(t)] - max);
        sum += scores[static_cast<size_t>(t)];
      }
      float* out = att_.data() + h * hd;
      for (int i = 0; i < hd; i++) out[i] = 0.0f;
      for (int t = 0; t <= pos; t++)
        for (int i = 0; i < hd; i++)
          out[i] += scores[static_cast<size_t>(t)] / sum * vc[static_cast<size_t>(t) * kv_dim + kvh * hd + i];
    }
    matmul(xb2_.data(), att_.data(), w(p + "self_attn.o_proj.weight").data(), q_dim, dim);
    for (int i = 0; i < dim; i++) x_[static_cast<size_t>(i)] += xb2_[static_cast<size_t>(i)];
    rmsnorm(xb_.data(), x_.data(), w(p + "post_attention_layernorm.weight").data(), dim, eps);
    matmul(hb_.data(), xb_.data(), w(p + "mlp.gate_proj.weight").data(), dim, hidden);
    matmul(hb2_.data(), xb_.data(), w(p + "mlp.up_proj.weight").data(), dim, hidden);
    for (int i = 0; i < hidden; i++) {
      float g = hb_[static_cast<size_t>(i)];
      hb_[static_cast<size_t>(i)] = g / (1.0f + expf(-g)) * hb2_[static_cast<size_t>(i)];
    }
    matmul(xb_.data(), hb_.data(), w(p + "mlp.down_proj.weight").data(), hidden, dim);
    for (int i = 0; i < dim; i++) x_[static_cast<size_t>(i)] += xb_[static_cast<size_t>(i)];
  }
  rmsnorm(xb_.data(), x_.data(), w("model.norm.weight").data(), dim, eps);
  const std::string head = optional("lm_head.weight") ? "lm_head.weight" : "model.embed_tokens.weight";
  matmul(logits_.data(), xb_.data(), w(head).data(), dim, c_.vocab_size);
  return logits_.data();
}

}  // namespace lynx
