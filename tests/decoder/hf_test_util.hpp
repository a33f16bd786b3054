// Fixtures of the Hugging Face checkpoint tests: folders the project writes itself into the build tree at test
// time (never committed): stories260K converted (F32, BF16, sharded) and small synthetic checkpoints of each
// architecture, and every tensor of a folder read back as fp32 for the reference forward pass.
#pragma once
#include <sys/stat.h>

#include <string>

#include "decoder_test_util.hpp"
#include "models/decoder/hf_checkpoint.hpp"
#include "models/decoder/hf_export.hpp"
#include "models/decoder/reference_forward_hf.hpp"
#include "models/decoder/safetensors.hpp"

namespace lynx::test {

inline std::string hf_test_dir(const std::string& name) {
  const std::string root = std::string(LYNX_BINARY_DIR) + "/hf_test_checkpoints";
  ::mkdir(root.c_str(), 0755);
  return root + "/" + name;
}

// stories260K as a LlamaForCausalLM folder in `dtype` over `shards` files.
inline std::string stories260k_hf(WeightDtype dtype, int shards = 1) {
  const std::string dir = hf_test_dir(std::string("stories260k-") + weight_dtype_name(dtype) + "-" +
                                      std::to_string(shards));
  hf_write_from_llama2c(stories260k(), dir, dtype, shards);
  return dir;
}

// Every tensor of the folder's safetensors files as fp32.
inline HfTensors hf_tensors(const std::string& dir) {
  HfTensors out;
  for (const char* file : {"model.safetensors", "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}) {
    struct stat st {};
    const std::string path = dir + "/" + file;
    if (::stat(path.c_str(), &st) != 0) continue;
    SafetensorsFile f(path);
    for (const auto& [name, t] : f.tensors()) {
      const WeightDtype dtype = t.dtype == "F32" ? WeightDtype::f32 : t.dtype == "BF16" ? WeightDtype::bf16 : WeightDtype::f16;
      std::vector<float> values(t.bytes / static_cast<uint64_t>(weight_dtype_bytes(dtype)));
      weights_to_f32(values.data(), t.data, dtype, 0, static_cast<int64_t>(values.size()));
      out[name] = std::move(values);
    }
  }
  return out;
}

}  // namespace lynx::test
