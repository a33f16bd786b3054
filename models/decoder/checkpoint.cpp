#include "models/decoder/checkpoint.hpp"

#include <cmath>
#include <cstring>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "models/decoder/known_files.hpp"
#include "models/decoder/sha256.hpp"

namespace lynx {

namespace {

constexpr int64_t kHeaderBytes = 7 * 4;

int32_t read_i32(const std::string& bytes, size_t offset) {
  int32_t v;
  std::memcpy(&v, bytes.data() + offset, sizeof v);
  return v;
}

void check_config(const LlamaConfig& c, const std::string& origin) {
  auto bad = [&](const char* why) {
    throw_error("%s: not a llama2.c checkpoint: header (dim %d, hidden_dim %d, n_layers %d, n_heads %d, n_kv_heads %d, "
                "vocab_size %d, seq_len %d): %s",
                origin.c_str(), c.dim, c.hidden_dim, c.n_layers, c.n_heads, c.n_kv_heads,
                c.shared_classifier ? c.vocab_size : -c.vocab_size, c.seq_len, why);
  };
  if (c.dim <= 0 || c.hidden_dim <= 0 || c.n_layers <= 0 || c.n_heads <= 0 || c.n_kv_heads <= 0 ||
      c.vocab_size <= 0 || c.seq_len <= 0)
    bad("every field must be positive (vocab_size may be negative: separate classifier)");
  if (c.dim % c.n_heads != 0) bad("dim must be a multiple of n_heads");
  if (c.n_heads % c.n_kv_heads != 0) bad("n_heads must be a multiple of n_kv_heads");
  if (c.head_dim() % 2 != 0) bad("head_dim (dim / n_heads) must be even for rotary embeddings");
}

}  // namespace

int64_t llama_weight_floats(const LlamaConfig& c) {
  const int64_t dim = c.dim, hidden = c.hidden_dim, layers = c.n_layers, vocab = c.vocab_size;
  const int64_t kv_dim = c.kv_dim(), head_dim = c.head_dim();
  int64_t n = vocab * dim;                         // token embedding
  n += layers * dim;                               // rms_att
  n += layers * dim * dim + 2 * layers * kv_dim * dim + layers * dim * dim;  // wq, wk, wv, wo
  n += layers * dim;                               // rms_ffn
  n += 3 * layers * hidden * dim;                  // w1, w2, w3
  n += dim;                                        // rms_final
  n += static_cast<int64_t>(c.seq_len) * head_dim; // the two unused RoPE tables, seq_len * head_dim / 2 each
  if (!c.shared_classifier) n += vocab * dim;
  return n;
}

std::string llama_header_bytes(const LlamaConfig& c) {
  int32_t header[7] = {c.dim, c.hidden_dim, c.n_layers, c.n_heads, c.n_kv_heads,
                       c.shared_classifier ? c.vocab_size : -c.vocab_size, c.seq_len};
  return std::string(reinterpret_cast<const char*>(header), sizeof header);
}

LlamaModel llama_from_bytes(const std::string& bytes, const std::string& origin) {
  if (static_cast<int64_t>(bytes.size()) < kHeaderBytes)
    throw_error("%s: %zu bytes is too short for a llama2.c checkpoint (a 28-byte header of 7 int32, then fp32 "
                "weights)",
                origin.c_str(), bytes.size());
  check_known_file(origin, bytes);
  LlamaModel m;
  LlamaConfig& c = m.config;
  c.dim = read_i32(bytes, 0);
  c.hidden_dim = read_i32(bytes, 4);
  c.n_layers = read_i32(bytes, 8);
  c.n_heads = read_i32(bytes, 12);
  c.n_kv_heads = read_i32(bytes, 16);
  int32_t vocab = read_i32(bytes, 20);
  c.seq_len = read_i32(bytes, 24);
  c.shared_classifier = vocab > 0;
  c.vocab_size = vocab == INT32_MIN ? 0 : std::abs(vocab);
  check_config(c, origin);
  const int64_t floats = llama_weight_floats(c);
  const int64_t expected = kHeaderBytes + 4 * floats;
  if (static_cast<int64_t>(bytes.size()) != expected)
    throw_error("%s: size %zu bytes does not match its header (dim %d, hidden_dim %d, n_layers %d, n_heads %d, "
                "n_kv_heads %d, vocab_size %d, seq_len %d, %s classifier), which needs exactly %lld bytes",
                origin.c_str(), bytes.size(), c.dim, c.hidden_dim, c.n_layers, c.n_heads, c.n_kv_heads, vocab,
                c.seq_len, c.shared_classifier ? "shared" : "separate", static_cast<long long>(expected));
  m.weights.resize(static_cast<size_t>(floats));
  std::memcpy(m.weights.data(), bytes.data() + kHeaderBytes, static_cast<size_t>(floats) * sizeof(float));
  for (int64_t i = 0; i < floats; ++i)
    if (!std::isfinite(m.weights[static_cast<size_t>(i)]))
      throw_error("%s: weight %lld (byte offset %lld) is not finite", origin.c_str(), static_cast<long long>(i),
                  static_cast<long long>(kHeaderBytes + 4 * i));

  const int64_t dim = c.dim, hidden = c.hidden_dim, layers = c.n_layers, kv_dim = c.kv_dim();
  const float* p = m.weights.data();
  auto take = [&p](int64_t count) {
    const float* start = p;
    p += count;
    return start;
  };
  m.token_embedding = take(c.vocab_size * dim);
  const float* rms_att = take(layers * dim);
  const float* wq = take(layers * dim * dim);
  const float* wk = take(layers * kv_dim * dim);
  const float* wv = take(layers * kv_dim * dim);
  const float* wo = take(layers * dim * dim);
  const float* rms_ffn = take(layers * dim);
  const float* w1 = take(layers * hidden * dim);
  const float* w2 = take(layers * dim * hidden);
  const float* w3 = take(layers * hidden * dim);
  m.rms_final = take(dim);
  take(static_cast<int64_t>(c.seq_len) * c.head_dim());  // unused RoPE tables (recomputed by the decoder)
  m.classifier = c.shared_classifier ? m.token_embedding : take(c.vocab_size * dim);
  m.layers.resize(static_cast<size_t>(layers));
  for (int64_t l = 0; l < layers; ++l) {
    LlamaLayer& L = m.layers[static_cast<size_t>(l)];
    L.rms_att = rms_att + l * dim;
    L.wq = wq + l * dim * dim;
    L.wk = wk + l * kv_dim * dim;
    L.wv = wv + l * kv_dim * dim;
    L.wo = wo + l * dim * dim;
    L.rms_ffn = rms_ffn + l * dim;
    L.w1 = w1 + l * hidden * dim;
    L.w2 = w2 + l * dim * hidden;
    L.w3 = w3 + l * hidden * dim;
  }
  m.path = origin;
  m.sha256 = sha256_hex(bytes);
  return m;
}

LlamaModel llama_load(const std::string& path) { return llama_from_bytes(read_file(path), path); }

}  // namespace lynx
