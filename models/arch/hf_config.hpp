// Reads a Hugging Face config.json into a ModelSpec: the shapes, the attention kind (GQA or MLA), the experts, the
// sliding-window layers and the biases and norms the parameter count needs. One reader per architecture family,
// each reading only the keys that architecture's modeling file uses (transformers' modeling_<type>.py):
//   LlamaForCausalLM (rope_scaling "llama3" of Llama-3.1 read and checked), MistralForCausalLM (sliding_window on
//   every layer when set), Qwen2ForCausalLM (q/k/v biases), Qwen3ForCausalLM (q/k RMSNorm), Qwen3MoeForCausalLM,
//   MixtralForCausalLM, DeepseekV3ForCausalLM (MLA, shared experts, first_k_dense_replace dense layers; the
//   multi-token-prediction layer, num_nextn_predict_layers, is a speculative-decoding add-on and is not counted),
//   GptOssForCausalLM (MoE with expert and router biases, attention sinks, layer_types alternating sliding and
//   full attention).
// Why these keys and no more: a config.json holds training and tokenizer settings the simulator has no use for;
// reading only what sets bytes and FLOPs keeps an unknown key harmless, while an unknown architecture or a missing
// key it needs is one LynxError naming the file and the key (a model the simulator cannot count must not run).
#pragma once
#include <string>
#include <vector>

#include "models/arch/catalog.hpp"

namespace lynx {

// The architectures read, as config.json's "architectures"[0] names them.
const std::vector<std::string>& hf_supported_architectures();

// Parses `path` (a config.json); name and source are left for the caller. params is the count from the shapes.
ModelSpec read_hf_config(const std::string& path);
// The same from the file's text, named `path` in messages (the fuzz harness fuzz/fuzz_hf_config.cpp drives it).
ModelSpec read_hf_config_text(const std::string& text, const std::string& path);

}  // namespace lynx
