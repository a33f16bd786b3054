#include "models/decoder/greedy.hpp"

#include "common/error.hpp"

namespace lynx {

void prefill_prompt(Decoder& decoder, KvCache& cache, const std::vector<int>& prompt) {
  if (prompt.empty()) throw_error("decoder: a prompt needs at least one token (BOS)");
  cache.set_anchor_only(0);
  cache.clear();
  decoder.prefill(cache, prompt.data(), static_cast<int64_t>(prompt.size()) - 1);
}

namespace {
std::vector<int> decode_greedily(Decoder& decoder, KvCache& cache, const std::vector<int>& prompt, int n_new) {
  std::vector<int> out;
  int token = prompt.back();
  const int vocab = decoder.config().vocab_size;
  for (int i = 0; i < n_new; ++i) {
    token = argmax(decoder.step(cache, token), vocab);
    out.push_back(token);
  }
  return out;
}
}  // namespace

std::vector<int> greedy_generate(Decoder& decoder, KvCache& cache, const std::vector<int>& prompt, int n_new) {
  prefill_prompt(decoder, cache, prompt);
  return decode_greedily(decoder, cache, prompt, n_new);
}

std::vector<int> anchor_only_generate(Decoder& decoder, KvCache& cache, const std::vector<int>& prompt, int n_new) {
  if (!cache.format().is_lynx())
    throw_error("anchor-only decoding: the KV format %s has no anchor/residual split", cache.format().name.c_str());
  prefill_prompt(decoder, cache, prompt);
  cache.set_anchor_only(cache.tokens());
  std::vector<int> out = decode_greedily(decoder, cache, prompt, n_new);
  cache.set_anchor_only(0);
  return out;
}

}  // namespace lynx
