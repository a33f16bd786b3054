#include "models/decoder/tokenizer.hpp"

#include <cstdint>
#include <cstring>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "models/decoder/known_files.hpp"

namespace lynx {

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// The byte of a "<0xNN>" piece, or -1.
int byte_of_piece(const std::string& piece) {
  if (piece.size() != 6 || piece.compare(0, 3, "<0x") != 0 || piece[5] != '>') return -1;
  int hi = hex_digit(piece[3]), lo = hex_digit(piece[4]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

// Length of the UTF-8 character starting with `lead` (1 for a stray continuation or invalid byte).
size_t utf8_length(unsigned char lead) {
  if (lead >= 0xF0 && lead < 0xF8) return 4;
  if (lead >= 0xE0) return lead < 0xF0 ? 3 : 1;
  if (lead >= 0xC0) return 2;
  return 1;
}

}  // namespace

Tokenizer tokenizer_load(const std::string& path, int vocab_size) {
  const std::string bytes = read_file(path);
  check_known_file(path, bytes);
  Tokenizer t;
  std::memset(t.byte_token, -1, sizeof t.byte_token);
  size_t at = 0;
  auto read = [&](void* out, size_t size, const char* what, int token) {
    if (bytes.size() - at < size)
      throw_error("%s: truncated at byte %zu while reading the %s of token %d (a llama2.c tokenizer of %d tokens: "
                  "int32 max_token_length, then per token float score, int32 length, bytes)",
                  path.c_str(), at, what, token, vocab_size);
    std::memcpy(out, bytes.data() + at, size);
    at += size;
  };
  int32_t max_length = 0;
  read(&max_length, 4, "header", -1);
  if (max_length <= 0) throw_error("%s: max_token_length %d must be positive", path.c_str(), max_length);
  t.max_token_length = max_length;
  t.pieces.resize(static_cast<size_t>(vocab_size));
  t.scores.resize(static_cast<size_t>(vocab_size));
  for (int i = 0; i < vocab_size; ++i) {
    float score;
    int32_t length;
    read(&score, 4, "score", i);
    read(&length, 4, "length", i);
    if (length < 0 || length > max_length)
      throw_error("%s: token %d has length %d, outside 0..max_token_length %d", path.c_str(), i, length, max_length);
    std::string piece(static_cast<size_t>(length), '\0');
    read(piece.data(), piece.size(), "bytes", i);
    t.scores[static_cast<size_t>(i)] = score;
    t.ids.emplace(piece, i);  // the first id wins if a piece repeats
    int b = byte_of_piece(piece);
    if (b >= 0 && t.byte_token[b] < 0) t.byte_token[b] = i;
    t.pieces[static_cast<size_t>(i)] = std::move(piece);
  }
  if (at != bytes.size())
    throw_error("%s: %zu bytes left after %d tokens: the tokenizer does not match the model's vocabulary of %d",
                path.c_str(), bytes.size() - at, vocab_size, vocab_size);
  return t;
}

std::vector<int> tokenizer_encode(const Tokenizer& t, const std::string& text, bool bos, bool eos) {
  std::vector<int> tokens;
  if (bos) tokens.push_back(kBosToken);
  std::vector<int> work;
  if (!text.empty()) {
    auto space = t.ids.find(" ");
    if (space == t.ids.end()) throw_error("tokenizer: the vocabulary has no \" \" piece for the dummy prefix");
    work.push_back(space->second);
  }
  for (size_t i = 0; i < text.size();) {
    size_t n = std::min(utf8_length(static_cast<unsigned char>(text[i])), text.size() - i);
    auto it = t.ids.find(text.substr(i, n));
    if (it != t.ids.end()) {
      work.push_back(it->second);
    } else {
      for (size_t j = i; j < i + n; ++j) {
        int id = t.byte_token[static_cast<unsigned char>(text[j])];
        if (id < 0)
          throw_error("tokenizer: byte 0x%02X at offset %zu has neither a piece nor a <0x%02X> fallback token",
                      static_cast<unsigned>(static_cast<unsigned char>(text[j])), j,
                      static_cast<unsigned>(static_cast<unsigned char>(text[j])));
        work.push_back(id);
      }
    }
    i += n;
  }
  std::string pair;
  while (true) {
    float best_score = -1e10f;
    int best_id = -1;
    size_t best_at = 0;
    for (size_t i = 0; i + 1 < work.size(); ++i) {
      pair = t.pieces[static_cast<size_t>(work[i])];
      pair += t.pieces[static_cast<size_t>(work[i + 1])];
      auto it = t.ids.find(pair);
      if (it != t.ids.end() && t.scores[static_cast<size_t>(it->second)] > best_score) {
        best_score = t.scores[static_cast<size_t>(it->second)];
        best_id = it->second;
        best_at = i;
      }
    }
    if (best_id < 0) break;
    work[best_at] = best_id;
    work.erase(work.begin() + static_cast<std::ptrdiff_t>(best_at) + 1);
  }
  tokens.insert(tokens.end(), work.begin(), work.end());
  if (eos) tokens.push_back(kEosToken);
  return tokens;
}

std::string tokenizer_piece(const Tokenizer& t, int previous, int token) {
  if (token < 0 || token >= static_cast<int>(t.pieces.size()))
    throw_error("tokenizer: token %d outside the vocabulary of %zu", token, t.pieces.size());
  const std::string& piece = t.pieces[static_cast<size_t>(token)];
  int b = byte_of_piece(piece);
  if (b >= 0) return std::string(1, static_cast<char>(b));
  if (previous == kBosToken && !piece.empty() && piece[0] == ' ') return piece.substr(1);
  return piece;
}

std::string tokenizer_decode(const Tokenizer& t, const std::vector<int>& tokens) {
  std::string text;
  int previous = -1;
  for (int token : tokens) {
    if (token != kBosToken && token != kEosToken) text += tokenizer_piece(t, previous, token);
    previous = token;
  }
  return text;
}

}  // namespace lynx
