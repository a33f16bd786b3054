#include "models/decoder/checkpoint.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <memory>

#include <sys/stat.h>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "models/decoder/known_files.hpp"
#include "common/sha256.hpp"

namespace lynx {

namespace {

constexpr int64_t kHeaderBytes = 7 * 4;

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

namespace {

LlamaConfig parse_header(const char* header, const std::string& origin) {
  int32_t h[7];
  std::memcpy(h, header, sizeof h);
  if (std::memcmp(header, "ak42", 4) == 0)
    throw_error("%s: this is a llama2.c export of version %d (magic \"ak42\"); only the legacy format (version 0, "
                "export.py --version 0, as karpathy/tinyllamas ships) is read",
                origin.c_str(), h[1]);
  LlamaConfig c;
  c.dim = h[0];
  c.hidden_dim = h[1];
  c.n_layers = h[2];
  c.n_heads = h[3];
  c.n_kv_heads = h[4];
  c.shared_classifier = h[5] > 0;
  c.vocab_size = h[5] == INT32_MIN ? 0 : std::abs(h[5]);
  c.seq_len = h[6];
  check_config(c, origin);
  return c;
}

void check_size(const LlamaConfig& c, uint64_t size, const std::string& origin) {
  const int64_t expected = kHeaderBytes + 4 * llama_weight_floats(c);
  if (static_cast<int64_t>(size) != expected)
    throw_error("%s: size %llu bytes does not match its header (dim %d, hidden_dim %d, n_layers %d, n_heads %d, "
                "n_kv_heads %d, vocab_size %d, seq_len %d, %s classifier), which needs exactly %lld bytes",
                origin.c_str(), static_cast<unsigned long long>(size), c.dim, c.hidden_dim, c.n_layers, c.n_heads,
                c.n_kv_heads, c.shared_classifier ? c.vocab_size : -c.vocab_size, c.seq_len,
                c.shared_classifier ? "shared" : "separate", static_cast<long long>(expected));
}

// Checks the weights and points the tensors into them.
void finish_model(LlamaModel& m, const std::string& origin) {
  const LlamaConfig& c = m.config;
  for (size_t i = 0; i < m.weights.size(); ++i)
    if (!std::isfinite(m.weights[i]))
      throw_error("%s: weight %zu (byte offset %llu) is not finite", origin.c_str(), i,
                  static_cast<unsigned long long>(kHeaderBytes + 4 * i));
  const int64_t dim = c.dim, hidden = c.hidden_dim, layers = c.n_layers, kv_dim = c.kv_dim();
  const float* p = m.weights.data();
  auto take = [&p](int64_t count) {
    const float* start = p;
    p += count;
    return start;
  };
  auto matrix = [](const float* data, int64_t rows, int64_t cols) {
    return WeightMatrix{data, WeightDtype::f32, rows, cols};
  };
  m.token_embedding = matrix(take(c.vocab_size * dim), c.vocab_size, dim);
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
  m.classifier = c.shared_classifier ? m.token_embedding : matrix(take(c.vocab_size * dim), c.vocab_size, dim);
  m.layers.resize(static_cast<size_t>(layers));
  for (int64_t l = 0; l < layers; ++l) {
    LlamaLayer& L = m.layers[static_cast<size_t>(l)];
    L.rms_att = rms_att + l * dim;
    L.wq = matrix(wq + l * dim * dim, dim, dim);
    L.wk = matrix(wk + l * kv_dim * dim, kv_dim, dim);
    L.wv = matrix(wv + l * kv_dim * dim, kv_dim, dim);
    L.wo = matrix(wo + l * dim * dim, dim, dim);
    L.rms_ffn = rms_ffn + l * dim;
    L.w1 = matrix(w1 + l * hidden * dim, hidden, dim);
    L.w2 = matrix(w2 + l * dim * hidden, dim, hidden);
    L.w3 = matrix(w3 + l * hidden * dim, hidden, dim);
  }
  m.path = origin;
}

[[noreturn]] void too_short(const std::string& origin, uint64_t size) {
  throw_error("%s: %llu bytes is too short for a llama2.c checkpoint (a 28-byte header of 7 int32, then fp32 "
              "weights)",
              origin.c_str(), static_cast<unsigned long long>(size));
}

}  // namespace

LlamaModel llama_from_bytes(const std::string& bytes, const std::string& origin) {
  if (static_cast<int64_t>(bytes.size()) < kHeaderBytes) too_short(origin, bytes.size());
  check_known_file(origin, bytes);
  LlamaModel m;
  m.config = parse_header(bytes.data(), origin);
  check_size(m.config, bytes.size(), origin);
  m.weights.resize(static_cast<size_t>(llama_weight_floats(m.config)));
  std::memcpy(m.weights.data(), bytes.data() + kHeaderBytes, m.weights.size() * sizeof(float));
  finish_model(m, origin);
  m.sha256 = sha256_hex(bytes);
  return m;
}

LlamaModel llama_load(const std::string& path) {
  // Read straight into the weights (a Llama-2-7B export is 27 GB), hashing as we go.
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(open_input_file(path), &std::fclose);  // a regular file only
  struct stat info {};
  if (::fstat(::fileno(in.get()), &info) != 0) throw_error("%s: cannot read file", path.c_str());
  const uint64_t size = static_cast<uint64_t>(info.st_size);
  if (size < static_cast<uint64_t>(kHeaderBytes)) too_short(path, size);
  char header[kHeaderBytes];
  if (std::fread(header, 1, kHeaderBytes, in.get()) != static_cast<size_t>(kHeaderBytes))
    throw_error("%s: read error", path.c_str());
  LlamaModel m;
  Sha256 sha;
  sha.update(header, kHeaderBytes);
  m.config = parse_header(header, path);
  check_size(m.config, size, path);
  m.weights.resize(static_cast<size_t>(llama_weight_floats(m.config)));
  char* out = reinterpret_cast<char*>(m.weights.data());
  const size_t total = m.weights.size() * sizeof(float), chunk = size_t{1} << 24;
  for (size_t done = 0; done < total; done += chunk) {
    const size_t n = std::min(chunk, total - done);
    if (std::fread(out + done, 1, n, in.get()) != n) throw_error("%s: read error", path.c_str());
    sha.update(out + done, n);
  }
  m.sha256 = sha.hex();
  check_known_sha256(path, m.sha256, size);
  finish_model(m, path);
  return m;
}

}  // namespace lynx
