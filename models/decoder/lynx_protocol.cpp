#include "models/decoder/lynx_protocol.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "models/decoder/greedy.hpp"

namespace lynx {

Speculation lynx_speculate(Decoder& decoder, KvCache& cache, const std::vector<int>& prompt, int k) {
  if (!cache.format().is_lynx())
    throw_error("Lynx protocol: the KV format %s has no anchor/residual split", cache.format().name.c_str());
  if (k < 1) throw_error("Lynx protocol: k = %d draft tokens, expected >= 1", k);
  const int vocab = decoder.config().vocab_size;
  prefill_prompt(decoder, cache, prompt);
  const int64_t prompt_rows = cache.tokens();  // P - 1: what the prefill node sent

  Speculation s;
  // 1. Draft on the anchor stream.
  cache.set_anchor_only(prompt_rows);
  int token = prompt.back();
  for (int i = 0; i < k; ++i) {
    token = argmax(decoder.step(cache, token), vocab);
    s.draft.push_back(token);
  }
  // 2. The residual has arrived: full prompt KV, provisional rows rolled back, one verification pass.
  cache.set_anchor_only(0);
  cache.truncate(prompt_rows);
  std::vector<int> block;
  block.push_back(prompt.back());
  block.insert(block.end(), s.draft.begin(), s.draft.end());
  const float* logits = decoder.forward(cache, block.data(), static_cast<int64_t>(block.size()));
  for (int i = 0; i <= k; ++i) s.verified.push_back(argmax(logits + static_cast<int64_t>(i) * vocab, vocab));
  // 3. Keep the matching prefix; the rows of the rejected drafts go.
  while (s.accepted < k && s.draft[static_cast<size_t>(s.accepted)] == s.verified[static_cast<size_t>(s.accepted)])
    ++s.accepted;
  cache.truncate(prompt_rows + 1 + s.accepted);
  return s;
}

std::vector<int> lynx_generate(Decoder& decoder, KvCache& cache, const std::vector<int>& prompt, int k, int n_new,
                               Speculation* round) {
  Speculation s = lynx_speculate(decoder, cache, prompt, k);
  std::vector<int> out(s.draft.begin(), s.draft.begin() + s.accepted);
  out.push_back(s.verified[static_cast<size_t>(s.accepted)]);
  const int vocab = decoder.config().vocab_size;
  while (static_cast<int>(out.size()) < n_new) out.push_back(argmax(decoder.step(cache, out.back()), vocab));
  if (static_cast<int>(out.size()) > n_new) out.resize(static_cast<size_t>(std::max(n_new, 0)));
  if (round) *round = std::move(s);
  return out;
}

}  // namespace lynx
