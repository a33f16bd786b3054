// Plain greedy decoding as a disaggregated decode node runs it, the reference the Lynx protocol must reproduce.
// The prefill node runs prompt[0..P-1) at full precision and sends its KV in the cache's format; the decode node
// feeds prompt[P-1] (so even the first output token reads the transferred KV) and then each token it produced.
#pragma once
#include <vector>

#include "models/decoder/decoder.hpp"

namespace lynx {

// Clears `cache`, prefills, then decodes `n_new` tokens greedily with every row read full. The prompt must hold at
// least one token (BOS).
std::vector<int> greedy_generate(Decoder& decoder, KvCache& cache, const std::vector<int>& prompt, int n_new);

// What Lynx's draft phase writes (lynx_protocol.hpp, step 1) when it is not cut short: clears `cache`, prefills,
// reads the prompt's rows anchor-only (the residual has not arrived) and decodes `n_new` tokens greedily; the rows
// the decode node writes itself are read full. `cache` must hold a Lynx format. The tokens equal
// greedy_generate's up to the first draft a verification would reject.
std::vector<int> anchor_only_generate(Decoder& decoder, KvCache& cache, const std::vector<int>& prompt, int n_new);

// The prefill part alone: clears `cache` and writes the KV of prompt[0..P-1) (the decode node then feeds
// prompt[P-1]).
void prefill_prompt(Decoder& decoder, KvCache& cache, const std::vector<int>& prompt);

}  // namespace lynx
