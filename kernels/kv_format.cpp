#include "kernels/kv_format.hpp"


#include "common/error.hpp"

namespace lynx {

std::string kv_format_grammar() {
  return "fp32, bf16, fp8-e4m3, int<B>-g<G> (B 2..8), kivi<B>-g<G> (B 2..4), lynx-a<A>r<R>-g<G> (bit-slice split) "
         "or lynx-a<A>r<R>-g<G>-rq (residual-quant split), A,R >= 1, A+R <= 8; G a positive multiple of 8 up to "
         "4096";
}

std::vector<std::string> kv_format_default_names() {
  return {"bf16", "fp8-e4m3", "int8-g64", "int4-g64", "kivi2-g32", "lynx-a4r4-g64", "lynx-a4r4-g64-rq"};
}

namespace {
// Names longer than this cannot be a format; they are cut in the message.
constexpr size_t kMaxFormatNameChars = 64;

[[noreturn]] void bad_format(const std::string& name, const char* why) {
  std::string shown = name.size() > kMaxFormatNameChars ? name.substr(0, kMaxFormatNameChars) + "..." : name;
  for (char& c : shown)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  throw_error("unknown KV format \"%s\" (%s); expected one of: %s", shown.c_str(), why, kv_format_grammar().c_str());
}

// Reads the name left to right: literal prefixes and small decimal numbers, no regex, no exceptions but LynxError.
class NameScanner {
 public:
  explicit NameScanner(const std::string& name) : name_(name) {}
  bool literal(const char* text) {
    const std::string t(text);
    if (name_.compare(pos_, t.size(), t) != 0) return false;
    pos_ += t.size();
    return true;
  }
  // 1 to 5 digits (a larger number is out of every range the grammar allows).
  bool number(int& value) {
    size_t digits = 0;
    value = 0;
    while (pos_ < name_.size() && name_[pos_] >= '0' && name_[pos_] <= '9') {
      if (++digits > 5) return false;
      value = value * 10 + (name_[pos_++] - '0');
    }
    return digits > 0;
  }
  bool done() const { return pos_ == name_.size(); }

 private:
  const std::string& name_;
  size_t pos_ = 0;
};

int group_size(const std::string& name, int g) {
  if (g < 8 || g > 4096 || g % 8 != 0) bad_format(name, "group size must be a multiple of 8 in 8..4096");
  return g;
}
}  // namespace

KvFormat kv_format_parse(const std::string& name) {
  KvFormat f;
  f.name = name;
  if (name == "fp32") {
    f.kind = KvFormatKind::fp32;
    f.anchor_bits = 32;
    return f;
  }
  if (name == "bf16") {
    f.kind = KvFormatKind::bf16;
    f.anchor_bits = 16;
    return f;
  }
  if (name == "fp8-e4m3") {
    f.kind = KvFormatKind::fp8_e4m3;
    f.anchor_bits = 8;
    return f;
  }
  if (name.size() > kMaxFormatNameChars) bad_format(name, "not a known name");
  int bits = 0, residual = 0, group = 0;
  NameScanner s(name);
  if (s.literal("int")) {
    if (!s.number(bits) || !s.literal("-g") || !s.number(group) || !s.done()) bad_format(name, "not a known name");
    if (bits < 2 || bits > 8) bad_format(name, "integer bits must be 2..8");
    f.kind = KvFormatKind::int_group;
    f.anchor_bits = bits;
    f.group_size = group_size(name, group);
    return f;
  }
  if (s.literal("kivi")) {
    if (!s.number(bits) || !s.literal("-g") || !s.number(group) || !s.done()) bad_format(name, "not a known name");
    if (bits < 2 || bits > 4) bad_format(name, "KIVI bits must be 2..4");
    f.kind = KvFormatKind::kivi;
    f.anchor_bits = bits;
    f.group_size = group_size(name, group);
    return f;
  }
  if (s.literal("lynx-a")) {
    if (!s.number(bits) || !s.literal("r") || !s.number(residual) || !s.literal("-g") || !s.number(group))
      bad_format(name, "not a known name");
    const bool rq = s.literal("-rq");
    if (!s.done()) bad_format(name, "not a known name");
    if (bits < 1 || residual < 1 || bits + residual > 8)
      bad_format(name, "anchor and residual bits must be >= 1 with A+R <= 8");
    f.kind = KvFormatKind::lynx;
    f.anchor_bits = bits;
    f.residual_bits = residual;
    f.group_size = group_size(name, group);
    f.split = rq ? LynxSplit::residual_quant : LynxSplit::bit_slice;
    return f;
  }
  bad_format(name, "not a known name");
}

uint64_t kv_grouped_meta_offset(const KvFormat& format, const KvShape& shape) {
  return static_cast<uint64_t>(shape.tokens) * kv_packed_row_bytes(shape.row_elements(), format.anchor_bits);
}

int64_t kivi_key_full_token_groups(const KvFormat& format, const KvShape& shape) {
  return shape.tokens / format.group_size;
}

KvStreamBytes kv_stream_bytes(const KvFormat& format, KvRole role, const KvShape& shape) {
  KvStreamBytes bytes;
  const uint64_t tokens = static_cast<uint64_t>(shape.tokens);
  const uint64_t row = static_cast<uint64_t>(shape.row_elements());
  switch (format.kind) {
    case KvFormatKind::fp32:
      bytes.anchor = tokens * row * 4;
      break;
    case KvFormatKind::bf16:
      bytes.anchor = tokens * row * 2;
      break;
    case KvFormatKind::fp8_e4m3:
      bytes.anchor = kFp8ScaleBytes + tokens * row;
      break;
    case KvFormatKind::kivi:
      if (role == KvRole::key) {
        uint64_t full_groups = static_cast<uint64_t>(kivi_key_full_token_groups(format, shape));
        uint64_t quantized_tokens = full_groups * static_cast<uint64_t>(format.group_size);
        bytes.anchor = quantized_tokens * kv_packed_row_bytes(shape.row_elements(), format.anchor_bits) +
                       full_groups * row * kGroupMetaBytes + (tokens - quantized_tokens) * row * 2;
        break;
      }
      [[fallthrough]];  // values: per token, like int<B>-g<G>
    case KvFormatKind::int_group:
    case KvFormatKind::lynx:
      bytes.anchor = kv_grouped_meta_offset(format, shape) +
                     tokens * static_cast<uint64_t>(kv_groups_per_row(shape, format.group_size)) * kGroupMetaBytes;
      bytes.residual = tokens * kv_packed_row_bytes(shape.row_elements(), format.residual_bits);
      break;
  }
  return bytes;
}

}  // namespace lynx
