// Fuzz harness for the two readers of a Hugging Face config.json: the simulator's catalog reader
// (models/arch/hf_config.hpp, read_hf_config_text: shapes, attention kind, experts, parameter count) and the
// decoder's (models/decoder/hf_checkpoint.hpp, hf_config_from_text: what the forward pass needs). The input is the
// file's text, given to both. Besides crashes, hangs and foreign exceptions, a model either reader accepts with a
// non-positive shape is a finding (the readers promise positive sizes; every later product relies on it).
#include <string>

#include "fuzz/fuzz_support.hpp"
#include "models/arch/hf_config.hpp"
#include "models/decoder/hf_checkpoint.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  lynx::fuzz::expect_lynx_error_only([&] {
    const lynx::ModelSpec m = lynx::read_hf_config_text(text, "config.json");
    if (m.n_layers <= 0 || m.hidden_size <= 0 || m.n_heads <= 0 || m.vocab_size <= 0)
      lynx::fuzz::finding("read_hf_config_text accepted a non-positive shape");
  });
  lynx::fuzz::expect_lynx_error_only([&] {
    const lynx::LlamaConfig c = lynx::hf_config_from_text(text, "config.json");
    if (c.dim <= 0 || c.n_layers <= 0 || c.n_heads <= 0 || c.n_kv_heads <= 0 || c.vocab_size <= 0 ||
        c.seq_len <= 0 || c.head_dim() <= 0 || c.n_heads % c.n_kv_heads != 0)
      lynx::fuzz::finding("hf_config_from_text accepted an impossible shape");
  });
  return 0;
}
