// Fuzz harness for the safetensors reader (models/decoder/safetensors.hpp, the decoder's weights): the input is the
// file (8-byte header length, JSON header, data), checked by safetensors_parse as SafetensorsFile checks a mapped
// file. Besides crashes, hangs and foreign exceptions, a result that breaks the reader's promises is a finding:
// every tensor's bytes lie inside the input's data and equal dtype size x its shape's element count, and no two
// tensors share a byte.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "fuzz/fuzz_support.hpp"
#include "models/decoder/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A copy of exactly `size` bytes, so that AddressSanitizer sees any read past the input.
  const std::vector<uint8_t> bytes(data, data + size);
  lynx::fuzz::expect_lynx_error_only([&] {
    const auto tensors = lynx::safetensors_parse(bytes.data(), bytes.size(), "fuzz.safetensors");
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    for (const auto& [name, t] : tensors) {
      uint64_t elements = 1;
      for (int64_t d : t.shape) elements *= static_cast<uint64_t>(d);
      if (t.bytes != elements * static_cast<uint64_t>(lynx::safetensors_dtype_bytes(t.dtype)))
        lynx::fuzz::finding("tensor \"" + name + "\": bytes disagree with dtype and shape");
      if (t.file_offset > size || t.bytes > size - t.file_offset || t.data != bytes.data() + t.file_offset)
        lynx::fuzz::finding("tensor \"" + name + "\" lies outside the input");
      if (t.bytes > 0) ranges.emplace_back(t.file_offset, t.file_offset + t.bytes);
    }
    std::sort(ranges.begin(), ranges.end());
    for (size_t i = 1; i < ranges.size(); ++i)
      if (ranges[i].first < ranges[i - 1].second) lynx::fuzz::finding("two tensors share bytes");
  });
  return 0;
}
