// Hugging Face model directories for the functional decoder: config.json plus the weights as one
// model.safetensors or shards named by model.safetensors.index.json ("weight_map": tensor -> file), in F32, BF16
// or F16 (tensor by tensor), memory-mapped (safetensors.hpp) and converted to fp32 as the forward pass uses them.
//
// Architectures ("architectures"[0] of config.json) and what each adds to llama2.c's Llama:
//   LlamaForCausalLM    rope_theta, rms_norm_eps, rope_scaling {"rope_type": "llama3", factor, low_freq_factor,
//                       high_freq_factor, original_max_position_embeddings} (Llama-3.1), tied or untied lm_head
//   MistralForCausalLM  the same; a sliding_window shorter than max_position_embeddings caps the context (every
//                       position then attends to all earlier ones, which the window allows exactly)
//   Qwen2ForCausalLM    q/k/v projection biases
//   Qwen3ForCausalLM    an explicit head_dim and per-head RMSNorm of q and k before RoPE (q_norm, k_norm)
// Grouped-query attention throughout (num_key_value_heads). HF stores q/k rows in rotate-half order; the decoder
// moves each head's values back to llama2.c's interleaved pairs before RoPE (decoder.cpp), which is exact.
// config.json is read here, not by the simulator's catalog (models/catalog): only the keys the forward pass needs,
// each error naming the file and the key. Anything else (another architecture or RoPE scaling, attention_bias or
// mlp_bias on Llama, a tensor missing, a shape other than config.json's) is a LynxError naming the file and tensor.
#pragma once
#include <string>

#include "models/decoder/checkpoint.hpp"

namespace lynx {

// Whether `path` is a directory holding config.json (a Hugging Face model), as opposed to a llama2.c .bin.
bool hf_is_model_directory(const std::string& path);

// The decoder's view of config.json in `dir` (throws LynxError naming the file and key).
LlamaConfig hf_read_config(const std::string& dir, std::string* architecture = nullptr);

// The same from config.json's text, named `path` in messages (the fuzz harness fuzz/fuzz_hf_config.cpp drives it).
LlamaConfig hf_config_from_text(const std::string& text, const std::string& path, std::string* architecture = nullptr);

// Loads the model in `dir`. With `hash`, model.sha256 is the sha256 of config.json's sha256 and each weight file's
// (name and sha256, in name order), which reads every byte once; without it, sha256 is empty (the benchmark).
LlamaModel hf_load(const std::string& dir, bool hash = true);

// A .bin file or a Hugging Face directory, whichever `path` is.
LlamaModel model_load(const std::string& path);

}  // namespace lynx
