// Fuzz harness for the KV format-name parser (kernels/kv_format.hpp kv_format_parse): the input is the name.
// A name that parses must be stable (its canonical name parses to the same format) and give finite stream sizes
// for a small tensor; anything else thrown but LynxError, a crash or a hang is a finding.
#include <string>

#include "fuzz/fuzz_support.hpp"
#include "kernels/kv_format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string name(reinterpret_cast<const char*>(data), size);
  lynx::fuzz::expect_lynx_error_only([&] {
    const lynx::KvFormat f = lynx::kv_format_parse(name);
    const lynx::KvFormat again = lynx::kv_format_parse(f.name);
    if (again.name != f.name || again.kind != f.kind || again.anchor_bits != f.anchor_bits ||
        again.residual_bits != f.residual_bits || again.group_size != f.group_size || again.split != f.split)
      lynx::fuzz::finding("canonical name \"" + f.name + "\" of \"" + name + "\" parses to another format");
    const lynx::KvShape shape{33, 2, 64};
    for (lynx::KvRole role : {lynx::KvRole::key, lynx::KvRole::value}) {
      const lynx::KvStreamBytes bytes = lynx::kv_stream_bytes(f, role, shape);
      if (bytes.anchor == 0) lynx::fuzz::finding("format \"" + f.name + "\" has an empty anchor stream");
      if (f.is_lynx() != (bytes.residual > 0))
        lynx::fuzz::finding("format \"" + f.name + "\": residual bytes disagree with is_lynx()");
    }
  });
  return 0;
}
