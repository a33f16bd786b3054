// SHA-256 (FIPS 180-4), small and dependency-free: the decoder checks that the shipped model, tokenizer and
// evaluation text are the known files (a same-named stories260K.bin with wrong weights circulates) and records
// the model's hash in the accuracy file.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace lynx {

// Lower-case hex digest of `size` bytes.
std::string sha256_hex(const uint8_t* data, size_t size);
inline std::string sha256_hex(const std::string& bytes) {
  return sha256_hex(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

}  // namespace lynx
