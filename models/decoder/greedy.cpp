#include "models/decoder/greedy.hpp"

#include "common/error.hpp"

namespace lynx {

void prefill_prompt(Decoder& decoder, KvCache& cache, const std::vector<int>& prompt) {
  if (prompt.empty()) throw_error("decoder: a prompt needs at least one token (BOS)");
  cache.set_anchor_only(0);
  cache.clear();
  decoder.prefill(cache, prompt.data(), static_cast<int64_t>(prompt.size()) - 1);
}

std::vector<int> greedy_generate(Decoder& decoder, KvCache& cache, const std::vector<int>& prompt, int n_new) {
  prefill_prompt(decoder, cache, prompt);
  std::vector<int> out;
  int token = prompt.back();
  const int vocab = decoder.config().vocab_size;
  for (int i = 0; i < n_new; ++i) {
    token = argmax(decoder.step(cache, token), vocab);
    out.push_back(token);
  }
  return out;
}

}  // namespace lynx
