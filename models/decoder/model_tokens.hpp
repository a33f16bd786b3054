// The tokenizer of a model the decoder runs, whichever kind the user has: llama2.c's .bin (tokenizer.hpp), a
// SentencePiece .model (sp_tokenizer.hpp), or none at all when the text comes pre-tokenized (eval_text.hpp). The
// kind is the file's: a name ending ".model" is SentencePiece, anything else llama2.c's format. A Hugging Face
// folder's own tokenizer.model is used when no tokenizer is given.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "models/decoder/checkpoint.hpp"
#include "models/decoder/sp_tokenizer.hpp"
#include "models/decoder/tokenizer.hpp"

namespace lynx {

class ModelTokens {
 public:
  // Opens `path` for `model` (checks that the vocabulary fits the model's). Throws LynxError naming the file.
  ModelTokens(const std::string& path, const LlamaModel& model);
  const std::string& path() const { return path_; }
  std::vector<int> encode(const std::string& text) const;  // no BOS/EOS
  std::string decode(const std::vector<int>& ids) const;   // ids after `previous` (llama2.c spacing rules)
  std::string decode_after(int previous, const std::vector<int>& ids) const;

 private:
  std::string path_;
  bool sentencepiece_ = false;
  Tokenizer llama2c_;
  std::unique_ptr<SpTokenizer> sp_;
};

// The tokenizer file to use for a model at `model_path` when the user named none: the shipped tok512 for a
// llama2.c checkpoint, a Hugging Face folder's tokenizer.model; "" when the folder has none.
std::string default_tokenizer_path(const std::string& model_path);
// The tokenizer a command uses: `given` (resolved) when set, else default_tokenizer_path; a LynxError when a
// Hugging Face folder has none, whose advice ends with `instead` (e.g. "pass the text pre-tokenized with --tokens").
std::string tokenizer_path_for(const std::string& model_path, const std::string& given, const char* instead);

// The token that starts every window and prompt: the model's BOS, else its EOS (the document separator of models
// trained without BOS); a LynxError naming config.json when it has neither.
int model_start_token(const LlamaModel& model);

}  // namespace lynx
