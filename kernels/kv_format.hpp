// lynx_kernels: KV-cache wire formats. A format says how one layer's K or V tensor [tokens x kv_heads x head_dim]
// is turned into bytes on the network: one stream (anchor) for ordinary formats, two (anchor + residual) for Lynx.
// The registry names are what users write in configurations:
//   fp32, bf16, fp8-e4m3           plain element types (fp8 with one fp32 scale per tensor, amax/448)
//   int<B>-g<G>                    per-group asymmetric B-bit integers (B = 2..8), fp16 scale + fp16 zero per group
//   kivi<B>-g<G>                   KIVI (arXiv 2402.02750): keys per channel in groups of G tokens, values per token
//                                  in groups of G channels, B bits; the last (tokens mod G) keys stay fp16
//   lynx-a<A>r<R>-g<G>[-rq]        Lynx: an anchor of A bits (with the group metadata) and a residual of R bits.
//                                  Default split "bit-slice": an (A+R)-bit asymmetric code whose top A bits are the
//                                  anchor and low R bits the residual. "-rq" = "residual-quant": A-bit RTN anchor,
//                                  then the anchor's error quantized with R bits and step scale/2^R (QuantSpec,
//                                  arXiv 2502.10424).
// Groups of G run along the channel axis of one token (kv_heads*head_dim values, head by head); a token row whose
// length is not a multiple of G ends with a shorter group. Codes are packed LSB-first, each token row padded to a
// whole byte. Byte counts here are exact and are what the simulator sends.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace lynx {

enum class KvFormatKind { fp32, bf16, fp8_e4m3, int_group, kivi, lynx };
enum class LynxSplit { bit_slice, residual_quant };
enum class KvRole { key, value };

struct KvFormat {
  KvFormatKind kind = KvFormatKind::bf16;
  int anchor_bits = 16;    // code bits per element in the anchor stream (metadata not included)
  int residual_bits = 0;   // code bits per element in the residual stream; 0 = single-stream format
  int group_size = 0;      // G; 0 for ungrouped formats
  LynxSplit split = LynxSplit::bit_slice;
  std::string name;        // canonical registry name

  bool is_lynx() const { return kind == KvFormatKind::lynx; }
  bool is_grouped() const { return group_size > 0; }
  int code_bits() const { return anchor_bits + residual_bits; }  // bits of the full integer code
};

// Shape of one layer's K or V tensor, row-major [tokens][kv_heads][head_dim].
struct KvShape {
  int64_t tokens = 0;
  int64_t kv_heads = 0;
  int64_t head_dim = 0;
  int64_t row_elements() const { return kv_heads * head_dim; }
  int64_t elements() const { return tokens * kv_heads * head_dim; }
};

// Bytes of each stream for one tensor.
struct KvStreamBytes {
  uint64_t anchor = 0;
  uint64_t residual = 0;
  uint64_t total() const { return anchor + residual; }
};

constexpr int kGroupMetaBytes = 4;   // fp16 scale + fp16 zero point
constexpr int kFp8ScaleBytes = 4;    // one fp32 scale per tensor

// Parses a registry name; throws LynxError listing the accepted forms.
KvFormat kv_format_parse(const std::string& name);
// The formats used by default in tables and demos.
std::vector<std::string> kv_format_default_names();
// One line describing the accepted names (for --help and error messages).
std::string kv_format_grammar();

// Exact stream sizes of one tensor of `shape` in `format`.
KvStreamBytes kv_stream_bytes(const KvFormat& format, KvRole role, const KvShape& shape);

// ---- layout of the streams (shared by the CPU codecs and the CUDA kernels) ----
// Bytes of one packed token row of `elements` codes of `bits` bits.
inline uint64_t kv_packed_row_bytes(int64_t elements, int bits) {
  return (static_cast<uint64_t>(elements) * static_cast<uint64_t>(bits) + 7) / 8;
}
// Groups per token row for channel-grouped formats.
inline int64_t kv_groups_per_row(const KvShape& shape, int group_size) {
  return (shape.row_elements() + group_size - 1) / group_size;
}
// Anchor stream of a channel-grouped tensor: [codes: tokens x packed row][meta: tokens x groups x (scale, zero)].
// Byte offset of the metadata.
uint64_t kv_grouped_meta_offset(const KvFormat& format, const KvShape& shape);
// KIVI keys: [codes of the first full_token_groups*G tokens][meta: token groups x channels x (scale, zero)]
//            [fp16 tail: (tokens mod G) x channels].
int64_t kivi_key_full_token_groups(const KvFormat& format, const KvShape& shape);

}  // namespace lynx
