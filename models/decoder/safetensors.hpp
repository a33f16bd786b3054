// The safetensors file format (huggingface/safetensors, "Format" in its README), read by memory-mapping:
//   8 bytes    N, the header's length, unsigned little-endian
//   N bytes    a JSON object: for each tensor name {"dtype": "F32"|"BF16"|"F16"|..., "shape": [d0, d1, ...],
//              "data_offsets": [begin, end]} (offsets in bytes from the start of the data, end exclusive), and an
//              optional "__metadata__" object of strings
//   the data   the tensors' bytes, row-major, little-endian
// The file is mapped read-only and tensors are pointers into the mapping, so opening a 16 GB checkpoint copies
// nothing and the OS pages in what the forward pass touches. Every inconsistency is a LynxError naming the file
// (and the tensor): a header that is not JSON or not that shape, offsets out of order or beyond the file (a
// truncated download), a byte count that disagrees with dtype and shape, a tensor listed twice, two tensors whose
// bytes overlap. Gaps between tensors are accepted (bytes nobody reads).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace lynx {

struct SafetensorsTensor {
  std::string dtype;              // as written: "F32", "BF16", "F16", "I64", ...
  std::vector<int64_t> shape;
  const uint8_t* data = nullptr;  // into the mapping
  uint64_t bytes = 0;
  uint64_t file_offset = 0;       // of the first byte, from the start of the file
};

class SafetensorsFile {
 public:
  // Maps and checks `path`. Throws LynxError naming the file.
  explicit SafetensorsFile(const std::string& path);

  const std::string& path() const { return path_; }
  bool contains(const std::string& name) const { return tensors_.count(name) > 0; }
  // Throws LynxError naming the file and tensor when absent.
  const SafetensorsTensor& tensor(const std::string& name) const;
  const std::map<std::string, SafetensorsTensor>& tensors() const { return tensors_; }
  uint64_t file_bytes() const { return size_; }
  // Keeps the mapping alive for as long as the pointer is held (the model holds it).
  std::shared_ptr<const void> mapping() const { return mapping_; }

 private:
  std::string path_;
  uint64_t size_ = 0;
  std::shared_ptr<const void> mapping_;
  std::map<std::string, SafetensorsTensor> tensors_;
};

// The checks of the constructor on `size` bytes of a safetensors file (header and data) already in memory, named
// `path` in messages: its tensors, pointing into `bytes`. Also refused here: a tensor listed twice (JSON keeps the
// last silently) and two tensors whose data bytes overlap (each would read the other's weights). The fuzz harness
// fuzz/fuzz_safetensors.cpp drives it.
std::map<std::string, SafetensorsTensor> safetensors_parse(const uint8_t* bytes, uint64_t size,
                                                          const std::string& path);

// Bytes per element of a safetensors dtype name, 0 if unknown.
int safetensors_dtype_bytes(const std::string& dtype);
// A tensor shape as the errors print it: "[2, 3]".
std::string shape_text(const std::vector<int64_t>& shape);

// One tensor to write: name, dtype ("F32", "BF16", "F16"), shape, and its bytes (row-major, little-endian).
struct SafetensorsEntry {
  std::string name, dtype;
  std::vector<int64_t> shape;
  std::string bytes;
};
// Writes a safetensors file (atomically): tensors in the given order, the header padded with spaces to a multiple
// of 8 bytes (as the reference writer does) so that every tensor of 4-byte elements is 4-byte aligned in a mapping.
void safetensors_write(const std::string& path, const std::vector<SafetensorsEntry>& tensors);

}  // namespace lynx
