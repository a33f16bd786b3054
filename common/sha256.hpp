// SHA-256 (FIPS 180-4), computed by Nettle (Debian's nettle-dev; its sha256 uses the x86 SHA instructions where
// the CPU has them): the decoder checks that the shipped model, tokenizer and evaluation text are the known files
// (a same-named stories260K.bin with wrong weights circulates) and records the model's hash in the accuracy file; a
// simulation's summary records the hash of its trace and tables. Incremental, so that a multi-GB checkpoint is
// hashed while it is read. Nettle rather than OpenSSL's libcrypto: every lynxsim process loads the library, and
// loading libcrypto costs about 10 M instructions (callgrind of a program that only hashes "abc" against one that
// does not, both linked with SimGrid), Nettle about 1.7 M, against about 116 M for a whole one-request simulation.
#pragma once
#include <nettle/sha2.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace lynx {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t size);
  // Lower-case hex digest of everything passed to update(); call once.
  std::string hex();

 private:
  sha256_ctx context_;
};

// Lower-case hex digest of `size` bytes.
std::string sha256_hex(const uint8_t* data, size_t size);
inline std::string sha256_hex(const std::string& bytes) {
  return sha256_hex(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}
// Lower-case hex digest of a file's bytes, read in blocks; a file that cannot be read is a LynxError naming it.
std::string sha256_file(const std::string& path);

}  // namespace lynx
