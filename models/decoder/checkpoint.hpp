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
//
// The same structs hold a Hugging Face checkpoint (hf_checkpoint.hpp): its extra architecture fields (an explicit
// head_dim, RoPE base and Llama-3.1 scaling, RMSNorm epsilon, q/k/v biases, per-head q/k norms, the rotate-half
// layout of HF's q/k rows, BOS/EOS ids) have llama2.c's values by default, and its matrices point into the
// memory-mapped safetensors files (weights.hpp), which `mappings` keeps alive.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "models/decoder/weights.hpp"

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
  // Hugging Face checkpoints only (the defaults are llama2.c's run.c constants).
  int head_dim_override = 0;     // config.json head_dim when it is not dim / n_heads (Qwen3); 0 = dim / n_heads
  float rope_theta = 10000.0f;   // RoPE base (run.c: 10000)
  float rms_eps = 1e-5f;         // RMSNorm epsilon (run.c: 1e-5)
  // Llama-3.1 RoPE scaling ("rope_type": "llama3"); factor 0 = none.
  float rope_factor = 0, rope_low_freq_factor = 0, rope_high_freq_factor = 0;
  int rope_original_context = 0;
  bool rope_rotate_half = false;  // q/k rows in HF's rotate-half order (pairs j, j + head_dim/2), not interleaved
  int bos_token = 1, eos_token = 2;  // -1: the model has none
  int head_dim() const { return head_dim_override > 0 ? head_dim_override : dim / n_heads; }
  int q_dim() const { return n_heads * head_dim(); }
  int kv_dim() const { return n_kv_heads * head_dim(); }
};

// One transformer block: matrices point into the model's storage; vectors are fp32.
struct LlamaLayer {
  const float* rms_att = nullptr;  // [dim]
  WeightMatrix wq;                 // [q_dim x dim]
  WeightMatrix wk;                 // [kv_dim x dim]
  WeightMatrix wv;                 // [kv_dim x dim]
  WeightMatrix wo;                 // [dim x q_dim]
  const float* bq = nullptr;       // [q_dim] q/k/v biases (Qwen2), or none
  const float* bk = nullptr;       // [kv_dim]
  const float* bv = nullptr;       // [kv_dim]
  const float* q_norm = nullptr;   // [head_dim] RMSNorm weight of each query head before RoPE (Qwen3), or none
  const float* k_norm = nullptr;   // [head_dim]
  const float* rms_ffn = nullptr;  // [dim]
  WeightMatrix w1;                 // [hidden x dim] (gate)
  WeightMatrix w2;                 // [dim x hidden] (down)
  WeightMatrix w3;                 // [hidden x dim] (up)
};

// Owns its weights; the pointers point into `weights`, so a model can be moved but not copied.
struct LlamaModel {
  LlamaModel() = default;
  LlamaModel(const LlamaModel&) = delete;
  LlamaModel& operator=(const LlamaModel&) = delete;
  LlamaModel(LlamaModel&&) = default;
  LlamaModel& operator=(LlamaModel&&) = default;

  LlamaConfig config;
  std::vector<float> weights;        // llama2.c: every float of the file after the header, in file order
  WeightMatrix token_embedding;      // [vocab x dim]
  std::vector<LlamaLayer> layers;
  const float* rms_final = nullptr;  // [dim]
  WeightMatrix classifier;           // [vocab x dim]; the token embedding when shared
  std::string path;
  std::string sha256;                // of the whole file (a directory: hf_checkpoint.hpp)
  // Hugging Face: the mapped files the matrices point into, and fp32 copies of small vectors (norms, biases).
  std::vector<std::shared_ptr<const void>> mappings;
  std::deque<std::vector<float>> vectors;
  std::string format = "llama2.c";   // or "huggingface"
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
