// A straightforward single-threaded forward pass in plain C style (one running sum per dot product, weights read
// by their file offsets, RoPE angles computed on the fly, an fp32 KV cache of [layers x seq_len x kv_dim]), in the
// manner of llama2.c's run.c. It is the independent check of the fast decoder (tests compare their logits on
// stories260K and on checkpoints of other shapes) and the speed baseline of bench/bench_decoder.
#pragma once
#include <vector>

#include "models/decoder/checkpoint.hpp"

namespace lynx {

class ReferenceDecoder {
 public:
  explicit ReferenceDecoder(const LlamaModel& model);
  // Logits [vocab] of `token` at position `pos` (positions fed in order from 0, pos < seq_len).
  const float* step(int token, int pos);

 private:
  const LlamaModel& model_;
  std::vector<float> x_, xb_, xb2_, hb_, hb2_, q_, att_, logits_, key_cache_, value_cache_;
};

}  // namespace lynx
