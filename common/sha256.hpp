// SHA-256 (FIPS 180-4), small and dependency-free: the decoder checks that the shipped model, tokenizer and
// evaluation text are the known files (a same-named stories260K.bin with wrong weights circulates) and records
// the model's hash in the accuracy file; a simulation's summary records the hash of its trace and tables.
// Incremental, so that a multi-GB checkpoint is hashed while it is read.
#pragma once
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
  uint32_t state_[8];
  uint64_t size_ = 0;   // bytes so far
  uint8_t block_[64];   // a partial block
  size_t buffered_ = 0;
};

// Lower-case hex digest of `size` bytes.
std::string sha256_hex(const uint8_t* data, size_t size);
inline std::string sha256_hex(const std::string& bytes) {
  return sha256_hex(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}
// Lower-case hex digest of a file's bytes, read in blocks; a file that cannot be read is a LynxError naming it.
std::string sha256_file(const std::string& path);

// The compression runs on the CPU's SHA instructions where it has them (x86 SHA-NI), else as portable C++; the
// digests are the same. For tests: `use` false forces the portable loop, true the instructions where available;
// returns whether they are now in use.
bool sha256_use_hardware(bool use);

}  // namespace lynx
