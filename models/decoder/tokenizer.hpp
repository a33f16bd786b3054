// The llama2.c tokenizer: a SentencePiece BPE vocabulary exported as
//   int32 max_token_length, then per token: float score, int32 length, `length` bytes of the piece.
// Pieces use ' ' for SentencePiece's word marker; "<0xNN>" pieces are byte-fallback tokens. Encoding follows
// SentencePiece's BPE as llama2.c reproduces it: a dummy-prefix space, one token per UTF-8 character (or its bytes
// when the character is not in the vocabulary), then repeatedly merge the adjacent pair whose concatenation is the
// highest-scoring piece (the leftmost on ties) until no pair merges.
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

namespace lynx {

constexpr int kBosToken = 1;
constexpr int kEosToken = 2;

struct Tokenizer {
  std::vector<std::string> pieces;  // by token id
  std::vector<float> scores;        // merge priority, by token id
  int max_token_length = 0;
  std::unordered_map<std::string, int> ids;  // piece -> token id
  int byte_token[256];                       // "<0xNN>" piece of each byte, -1 if absent
};

// Loads a tokenizer of `vocab_size` tokens (the model's). Throws LynxError naming the file when it is truncated,
// longer than that, or inconsistent; checks a shipped file's sha256.
Tokenizer tokenizer_load(const std::string& path, int vocab_size);

// Token ids of `text`, with BOS first and/or EOS last on request.
std::vector<int> tokenizer_encode(const Tokenizer& tokenizer, const std::string& text, bool bos, bool eos);

// Text of `token` following `previous` (the leading space of a piece after BOS is dropped, byte tokens become
// their byte).
std::string tokenizer_piece(const Tokenizer& tokenizer, int previous, int token);
// Text of a token sequence (which may start with BOS).
std::string tokenizer_decode(const Tokenizer& tokenizer, const std::vector<int>& tokens);

}  // namespace lynx
