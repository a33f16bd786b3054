// The evaluation text and what is cut from it (tinystories_v2_validation_100.txt by default): stories separated by
// "<|endoftext|>", each trimmed of surrounding whitespace and tokenized on its own (no BOS); 39,245 tokens for the
// shipped text and tokenizer.
//   teacher forcing  every story token is predicted once: a story is cut into windows of at most seq_len-1 tokens,
//                    each window decoded from a fresh context [BOS, window...].
//   prompts          for each cut length c and each story of at least c tokens, the prompt [BOS, first c tokens].
// A model's own tokenizer gives the stories' ids through any encoder (SentencePiece, sp_tokenizer.hpp), or the
// text comes pre-tokenized: a file of one story per line, its token ids as decimal numbers separated by spaces,
// without BOS (README "Your own model" gives the one-line command that writes it with transformers).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/decoder/tokenizer.hpp"

namespace lynx {

// Stories of `text`, in order, trimmed; empty pieces are dropped.
std::vector<std::string> split_stories(const std::string& text);

struct EvalCorpus {
  std::vector<std::vector<int>> stories;  // token ids, without BOS
  int64_t tokens = 0;                     // their total
  int bos = kBosToken;                    // the token every window and prompt starts with
};
// Tokenizes the first `max_stories` stories of `text` (0 = all).
EvalCorpus eval_corpus(const Tokenizer& tokenizer, const std::string& text, int max_stories);
// The same with any encoder of a story's text (no BOS) and the model's BOS id.
EvalCorpus eval_corpus(const std::function<std::vector<int>(const std::string&)>& encode, const std::string& text,
                       int max_stories, int bos);
// A pre-tokenized text (`contents` of the file `path`, format above): throws LynxError naming the file and line
// for anything but ids in [0, vocab_size); empty lines are skipped.
EvalCorpus eval_corpus_from_ids(const std::string& contents, const std::string& path, int vocab_size,
                                int max_stories, int bos);

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
