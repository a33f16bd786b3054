// Lynx's speculate/verify protocol (arXiv 2607.01831, as reconstructed in DESIGN.md), run for real in the decoder.
// The prompt's KV arrives in a Lynx format: the anchor stream first, the residual later.
//   1. Draft: with the prompt's KV read anchor-only, decode k tokens greedily. The decode node's own K/V of these
//      tokens (last prompt token, d_1..d_{k-1}) are computed from the perturbed hidden states and are provisional.
//   2. Verify, once the residual has arrived: read the prompt's KV full, roll the provisional rows back, and run one
//      forward over [prompt[P-1], d_1..d_k], which recomputes their K/V at full precision. v_i = the argmax at
//      d_i's place (v_{k+1} after d_k).
//   3. Keep the longest prefix d_1..d_m with d_i == v_i, plus v_{m+1} (the verifier's token at the first mismatch,
//      or the bonus token when all k match); discard the rest of the rows; continue greedily on full KV.
// The output is exactly greedy_generate's on a cache of the same format (the "full" KV): every kept token and row
// was computed, bit for bit, as plain greedy computes it (see decoder.hpp on block forwards).
#pragma once
#include <vector>

#include "models/decoder/decoder.hpp"

namespace lynx {

struct Speculation {
  std::vector<int> draft;     // d_1..d_k, drafted on anchor-only prompt KV
  std::vector<int> verified;  // v_1..v_{k+1}, the verifier's argmax on full KV
  int accepted = 0;           // m: the longest prefix of draft equal to verified
};

// Steps 1-3 for k >= 1 draft tokens, on a cache in a Lynx format. Leaves `cache` with the prompt read full and the
// rows of prompt + d_1..d_m (P + m tokens): the next token to feed is verified[m]. The prompt needs P + k <= seq_len.
Speculation lynx_speculate(Decoder& decoder, KvCache& cache, const std::vector<int>& prompt, int k);

// The protocol end to end: lynx_speculate, then greedy on full KV until `n_new` tokens. `round` (optional) receives
// the speculation.
std::vector<int> lynx_generate(Decoder& decoder, KvCache& cache, const std::vector<int>& prompt, int k, int n_new,
                               Speculation* round = nullptr);

}  // namespace lynx
