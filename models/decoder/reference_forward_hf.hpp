// The plain reference forward pass of a Hugging Face checkpoint, written the way transformers' modeling_llama /
// modeling_qwen2 / modeling_qwen3 define it and independent of the fast decoder: tensors looked up by their HF
// names as plain fp32 arrays, one running sum per dot product, RoPE in rotate-half form (pairs j, j + head_dim/2)
// on q/k as HF stores them, angles from inverse frequencies computed in double (with Llama-3.1's "llama3"
// scaling), q/k/v biases and per-head q/k RMSNorm when the tensors are there, an fp32 KV cache. Tests compare the
// decoder's logits with these (tests/decoder/test_hf_checkpoint.cpp states the tolerance).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "models/decoder/checkpoint.hpp"

namespace lynx {

// Every tensor of a checkpoint as fp32, by HF name.
using HfTensors = std::map<std::string, std::vector<float>>;

class HfReferenceDecoder {
 public:
  // `config`: the checkpoint's (hf_read_config); `tensors` must outlive the decoder.
  HfReferenceDecoder(const LlamaConfig& config, const HfTensors& tensors);
  // Logits [vocab] of `token` at position `pos` (positions fed in order from 0).
  const float* step(int token, int pos);

 private:
  const std::vector<float>& w(const std::string& name) const;
  const float* optional(const std::string& name) const;
  LlamaConfig c_;
  const HfTensors& t_;
  std::vector<double> inv_freq_;
  std::vector<float> x_, xb_, xb2_, hb_, hb2_, q_, att_, logits_;
  std::vector<std::vector<float>> key_cache_, value_cache_;  // per layer, [pos x kv_dim]
};

}  // namespace lynx
