// Hugging Face model directories written by the project itself, for its tests and benchmark (no checkpoint can be
// downloaded where they run): the converter of a llama2.c checkpoint (stories260K) to config.json + safetensors,
// and synthetic checkpoints of any supported architecture with random weights. Both write what HF's own
// conversion writes: LlamaForCausalLM tensor names, q/k rows permuted from llama2.c's interleaved RoPE pairs to
// HF's rotate-half order (the permutation of transformers' convert_llama_weights_to_hf.py, written here from its
// definition: row h*hd + 2j + p moves to h*hd + p*hd/2 + j), weights in F32, BF16 (round to nearest even) or F16.
#pragma once
#include <string>

#include "models/decoder/checkpoint.hpp"

namespace lynx {

// Writes `model` (a llama2.c checkpoint) to `dir` as a LlamaForCausalLM folder; `shards` > 1 splits the tensors
// over that many files with model.safetensors.index.json.
void hf_write_from_llama2c(const LlamaModel& model, const std::string& dir, WeightDtype dtype, int shards = 1);

struct SyntheticCheckpoint {
  std::string architecture = "LlamaForCausalLM";  // or MistralForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM
  LlamaConfig config;     // shapes, head_dim_override, rope_theta, rms_eps, Llama-3.1 rope scaling, tying
  WeightDtype dtype = WeightDtype::f32;
  unsigned seed = 1;
  float scale = 0.2f;     // matrices uniform in [-scale, scale]; norm weights 1 + that, biases that
  int shards = 1;
};
// Writes a random checkpoint of `spec` to `dir` (Qwen2 with q/k/v biases, Qwen3 with q/k norms).
void hf_write_synthetic(const std::string& dir, const SyntheticCheckpoint& spec);

}  // namespace lynx
