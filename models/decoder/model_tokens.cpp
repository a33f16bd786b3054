#include "models/decoder/model_tokens.hpp"

#include <sys/stat.h>

#include "common/data_folder.hpp"
#include "common/error.hpp"
#include "models/decoder/hf_checkpoint.hpp"
#include "models/decoder/known_files.hpp"

namespace lynx {

namespace {
bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}
}  // namespace

ModelTokens::ModelTokens(const std::string& path, const LlamaModel& model) : path_(path) {
  sentencepiece_ = ends_with(path, ".model");
  if (!sentencepiece_) {
    llama2c_ = tokenizer_load(path, model.config.vocab_size);
    return;
  }
  sp_ = std::make_unique<SpTokenizer>(path);
  if (sp_->vocab_size() > model.config.vocab_size)
    throw_error("%s: %d pieces, more than the model's vocabulary of %d: the tokenizer is not this model's",
                path.c_str(), sp_->vocab_size(), model.config.vocab_size);
}

std::vector<int> ModelTokens::encode(const std::string& text) const {
  return sentencepiece_ ? sp_->encode(text) : tokenizer_encode(llama2c_, text, false, false);
}

std::string ModelTokens::decode(const std::vector<int>& ids) const {
  return sentencepiece_ ? sp_->decode(ids) : tokenizer_decode(llama2c_, ids);
}

std::string ModelTokens::decode_after(int previous, const std::vector<int>& ids) const {
  if (sentencepiece_) return sp_->decode(ids);
  std::string text;
  for (int token : ids) {
    if (token != kBosToken && token != kEosToken) text += tokenizer_piece(llama2c_, previous, token);
    previous = token;
  }
  return text;
}

std::string default_tokenizer_path(const std::string& model_path) {
  if (!hf_is_model_directory(model_path)) return shipped_tokenizer_path();
  const std::string candidate = model_path + "/tokenizer.model";
  struct stat st {};
  return ::stat(candidate.c_str(), &st) == 0 ? candidate : "";
}

std::string tokenizer_path_for(const std::string& model_path, const std::string& given, const char* instead) {
  if (!given.empty()) return resolve_input_path(given, "");
  std::string path = default_tokenizer_path(model_path);
  if (path.empty())
    throw_error("%s: no tokenizer.model in the folder: name the model's tokenizer with --tokenizer (a SentencePiece "
                ".model), or %s",
                model_path.c_str(), instead);
  return path;
}

int model_start_token(const LlamaModel& model) {
  const LlamaConfig& c = model.config;
  if (c.bos_token >= 0) return c.bos_token;
  if (c.eos_token >= 0) return c.eos_token;
  throw_error("%s: config.json has neither bos_token_id nor eos_token_id: no token to start a text with",
              model.path.c_str());
}

}  // namespace lynx
