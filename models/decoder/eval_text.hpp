// The evaluation text and what is cut from it (tinystories_v2_validation_100.txt by default): stories separated by
// "<|endoftext|>", each trimmed of surrounding whitespace and tokenized on its own (no BOS); 39,245 tokens for the
// shipped text and tokenizer.
//   teacher forcing  every story token is predicted once: a story is cut into windows of at most seq_len-1 tokens,
//                    each window decoded from a fresh context [BOS, window...].
//   prompts          for each cut length c and each story of at least c tokens, the prompt [BOS, first c tokens].
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "models/decoder/tokenizer.hpp"

namespace lynx {

// Stories of `text`, in order, trimmed; empty pieces are dropped.
std::vector<std::string> split_stories(const std::string& text);

struct EvalCorpus {
  std::vector<std::vector<int>> stories;  // token ids, without BOS
  int64_t tokens = 0;                     // their total
};
// Tokenizes the first `max_stories` stories of `text` (0 = all).
EvalCorpus eval_corpus(const Tokenizer& tokenizer, const std::string& text, int max_stories);

// [BOS, up to window_tokens story tokens] pieces covering every story token once.
std::vector<std::vector<int>> teacher_forcing_windows(const EvalCorpus& corpus, int window_tokens);

struct Prompt {
  int story = 0;          // index in the corpus
  int cut = 0;            // story tokens in the prompt
  std::vector<int> tokens;  // BOS + the first `cut` story tokens
};
// Prompts for each cut length (ascending order of cut, then story).
std::vector<Prompt> cut_prompts(const EvalCorpus& corpus, const std::vector<int>& cuts);

}  // namespace lynx
