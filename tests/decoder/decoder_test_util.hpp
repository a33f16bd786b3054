// Shared fixtures of the decoder tests: the shipped model, tokenizer and text, loaded once per test process.
#pragma once
#include <string>

#include "common/atomic_file.hpp"
#include "models/decoder/checkpoint.hpp"
#include "models/decoder/known_files.hpp"
#include "models/decoder/tokenizer.hpp"

namespace lynx::test {

inline const LlamaModel& stories260k() {
  static LlamaModel model = llama_load(shipped_model_path());
  return model;
}
inline const Tokenizer& tok512() {
  static Tokenizer tokenizer = tokenizer_load(shipped_tokenizer_path(), 512);
  return tokenizer;
}
inline const std::string& eval_text() {
  static std::string text = read_file(shipped_text_path());
  return text;
}

}  // namespace lynx::test
