// A Llama-architecture checkpoint in llama2.c's legacy ".bin" format (the format of karpathy/tinyllamas
// stories260K/15M/42M/110M and of llama2.c's Llama-2-7B export):
//   header: 7 int32 (dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len); a negative vocab_size
//           means the classifier is a separate matrix, positive that it is the token embedding (tied).
//   then fp32, little-endian, in this order (W is [out x in], row-major):
//     token_embedding [vocab x dim], rms_att [layers x dim], wq [layers x dim x dim], wk [layers x kv_dim x dim],
//     wv [layers x kv_dim x dim], wo [layers x dim x dim], rms_ffn [layers x dim], w1 [layers x hidden x dim],
//     w2 [layers x dim x hidden], w3 [layers x hidden x dim], rms_final [dim],
//     two unused RoPE tables [seq_len x head_dim/2] each, and, when not tied, the classifier [vocab x dim].
// head_dim = dim / n_heads, kv_dim = n_kv_heads * head_dim. The file's size must be exactly what the header says.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace lynx {

struct LlamaConfig {
  int dim = 0;          // residual stream width
  int hidden_dim = 0;   // SwiGLU inner width
  int n_layers = 0;
  int n_heads = 0;      // query heads
  int n_kv_heads = 0;   // key/value heads (grouped-query attention when < n_heads)
  int vocab_size = 0;
  int seq_len = 0;      // context length the model was trained for (the decoder's position limit)
  bool shared_classifier = true;
  int head_dim() const { return dim / n_heads; }
  int kv_dim() const { return n_kv_heads * head_dim(); }
};

// Pointers into LlamaModel::weights for one transformer block.
struct LlamaLayer {
  const float* rms_att = nullptr;  // [dim]
  const float* wq = nullptr;       // [dim x dim]
  const float* wk = nullptr;       // [kv_dim x dim]
  const float* wv = nullptr;       // [kv_dim x dim]
  const float* wo = nullptr;       // [dim x dim]
  const float* rms_ffn = nullptr;  // [dim]
  const float* w1 = nullptr;       // [hidden x dim] (gate)
  const float* w2 = nullptr;       // [dim x hidden] (down)
  const float* w3 = nullptr;       // [hidden x dim] (up)
};

// Owns its weights; the pointers point into `weights`, so a model can be moved but not copied.
struct LlamaModel {
  LlamaModel() = default;
  LlamaModel(const LlamaModel&) = delete;
  LlamaModel& operator=(const LlamaModel&) = delete;
  LlamaModel(LlamaModel&&) = default;
  LlamaModel& operator=(LlamaModel&&) = default;

  LlamaConfig config;
  std::vector<float> weights;        // every float of the file after the header, in file order
  const float* token_embedding = nullptr;  // [vocab x dim]
  std::vector<LlamaLayer> layers;
  const float* rms_final = nullptr;  // [dim]
  const float* classifier = nullptr; // [vocab x dim]; the token embedding when shared
  std::string path;
  std::string sha256;                // of the whole file
};

// Number of floats after the header for `config` (the file holds 28 + 4 * this bytes).
int64_t llama_weight_floats(const LlamaConfig& config);

// The 28-byte header of `config`.
std::string llama_header_bytes(const LlamaConfig& config);

// Loads a checkpoint file. Throws LynxError naming the file for: a bad header, a size that does not match it, a
// non-finite weight, or a shipped file name whose sha256 is not the known one.
LlamaModel llama_load(const std::string& path);
// Same from the bytes of a file (`origin` names it in messages and in the sha256 check).
LlamaModel llama_from_bytes(const std::string& bytes, const std::string& origin);

}  // namespace lynx
