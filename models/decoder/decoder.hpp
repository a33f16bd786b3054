// The Llama forward pass (RMSNorm, rotary embeddings, grouped-query attention, SwiGLU, tied or separate
// classifier; and for Hugging Face checkpoints q/k/v biases (Qwen2), per-head q/k RMSNorm (Qwen3), Llama-3.1 RoPE
// scaling, an explicit head_dim, bf16/fp16 weights converted as they are used) over a KvCache held in any KV wire format. fp32 arithmetic, single-threaded. The reductions
// (matrix-vector products, attention, the SwiGLU gate) are decoder_kernels.hpp's, whose AVX2+FMA and portable forms
// give the same bits; the element-wise vector algebra (RMSNorm scaling, residual adds) is Eigen's.
//
// Two modes, matching disaggregated serving:
//   prefill  the prefill node's pass over a prompt: attention reads the fresh fp32 K/V of the block (and the cache
//            for any earlier rows); the block's K/V are written to the cache in its format as one tensor, which is
//            what crosses the network. No logits.
//   forward  the decode node's pass over n >= 1 tokens (a decode step, or a verification block): each layer's K/V
//            of the block are appended to the cache first, and every token attends causally over the cache as
//            stored (dequantized, anchor-only where the cache says so). Returns logits [n x vocab].
// A forward over n tokens gives bit-identical logits to n forwards of one token for every format whose groups lie
// within a token row (all but fp8's per-tensor scale and KIVI's per-channel keys): each token's arithmetic is the
// same loop in the same order. The Lynx protocol's exactness rests on this. Results are the same on every machine:
// the kernels' summation order does not depend on the SIMD width.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/kv_format.hpp"
#include "models/decoder/decoder_kernels.hpp"
#include "models/decoder/checkpoint.hpp"
#include "models/decoder/kv_cache.hpp"

namespace lynx {

class Decoder {
 public:
  // `model` must outlive the decoder. `kernels`: the fastest this CPU runs unless a test asks for another form.
  explicit Decoder(const LlamaModel& model, const DecoderKernels& kernels = decoder_kernels_best());
  const DecoderKernels& kernels() const { return kernels_; }

  const LlamaModel& model() const { return model_; }
  const LlamaConfig& config() const { return model_.config; }
  // An empty cache for this model in `format`.
  KvCache make_cache(const KvFormat& format) const;

  // Decode-mode pass over tokens[0..n) at positions cache.tokens() .. +n. Returns logits [n x vocab], valid until
  // the next call. Throws LynxError past the model's context (seq_len) or for a token outside the vocabulary.
  const float* forward(KvCache& cache, const int* tokens, int64_t n);
  const float* step(KvCache& cache, int token) { return forward(cache, &token, 1); }
  // Prefill-mode pass (see above).
  void prefill(KvCache& cache, const int* tokens, int64_t n);
  // Token positions run through the model so far (prefill and decode), for cost estimates.
  int64_t positions_run() const { return positions_run_; }

 private:
  void run(KvCache& cache, const int* tokens, int64_t n, bool prefill);
  void reserve(int64_t n);
  void reserve_positions(int64_t positions);

  const LlamaModel& model_;
  const DecoderKernels& kernels_;
  std::vector<float> rope_frequency_;       // [head_dim/2]
  std::vector<float> rope_cos_, rope_sin_;  // [positions reached x head_dim/2]
  // Activations of a block of n tokens, [n x width].
  std::vector<float> x_, xb_, q_, k_, v_, attn_, hb_, hb2_, logits_;
  std::vector<float> scores_;  // [positions reached]
  std::vector<float> matrix_scratch_, head_scratch_;  // converted weight rows; one head
  std::vector<float> prefill_k_, prefill_v_;  // [tokens x kv_dim]: cached rows, then the prefill block's fresh ones
  int64_t capacity_ = 0;
  int64_t positions_run_ = 0;
};

// Index of the largest of x[0..n) (the first on ties): greedy decoding's choice.
int argmax(const float* x, int n);

}  // namespace lynx
