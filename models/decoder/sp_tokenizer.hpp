// SentencePiece tokenizer models (the ".model" protobuf that Llama-2, Mistral, Gemma and stories260K's tok512
// ship), through Debian's libsentencepiece-dev: encoding and decoding are SentencePiece's own, so a user's model
// tokenizes as it was trained. The library is optional at build time (CMake looks for it with pkg-config); without
// it, opening a .model file is a LynxError that says so, and pre-tokenized input (eval_text.hpp) still works.
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace lynx {

// Whether this build has SentencePiece.
bool sentencepiece_available();

class SpTokenizer {
 public:
  // Loads a SentencePiece model; throws LynxError naming the file.
  explicit SpTokenizer(const std::string& path);
  ~SpTokenizer();
  SpTokenizer(SpTokenizer&&) noexcept;
  SpTokenizer& operator=(SpTokenizer&&) noexcept;

  int vocab_size() const;
  int bos_id() const;  // -1 when the model has none
  int eos_id() const;
  // Token ids of `text`, without BOS/EOS (SentencePiece's normalization and dummy prefix as the model specifies).
  std::vector<int> encode(const std::string& text) const;
  // Text of `ids`.
  std::string decode(const std::vector<int>& ids) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string path_;
};

}  // namespace lynx
