#include "common/atomic_file.hpp"
#include "common/sha256.hpp"

#include <cstdio>

#include "common/error.hpp"

namespace lynx {

Sha256::Sha256() { sha256_init(&context_); }

void Sha256::update(const void* data, size_t size) {
  if (size > 0) sha256_update(&context_, size, static_cast<const uint8_t*>(data));
}

std::string Sha256::hex() {
  uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&context_, sizeof digest, digest);
  static const char* digits = "0123456789abcdef";
  std::string out(2 * sizeof digest, '0');
  for (size_t i = 0; i < sizeof digest; ++i) {
    out[2 * i] = digits[digest[i] >> 4];
    out[2 * i + 1] = digits[digest[i] & 15];
  }
  return out;
}

std::string sha256_hex(const uint8_t* data, size_t size) {
  Sha256 h;
  h.update(data, size);
  return h.hex();
}

std::string sha256_file(const std::string& path) {
  std::FILE* file = open_input_file(path);  // a regular file only (common/atomic_file.hpp)
  Sha256 hash;
  uint8_t block[1 << 16];  // on the stack: a zeroed 1 MiB vector per file was half the hashing time of a small file
  size_t n = 0;
  while ((n = std::fread(block, 1, sizeof block, file)) > 0) hash.update(block, n);
  const bool failed = std::ferror(file) != 0;
  std::fclose(file);
  if (failed) throw_error("%s: cannot read file to hash it", path.c_str());
  return hash.hex();
}

}  // namespace lynx
