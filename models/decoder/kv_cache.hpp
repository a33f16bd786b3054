// The decode node's KV cache, held in a KV wire format. As a serving engine would, every appended token's K and V
// go through the format's CPU codec (kernels/kv_codec.hpp) and only the encoded bytes are kept; attention reads a
// dequantized mirror that is exactly kv_decode of those bytes. Lynx formats can be read anchor-only (residual not
// arrived) for a prefix of rows and full for the rest.
//
// How each format is stored, so that appending token by token gives the same values as encoding the whole tensor:
//   fp32, bf16, int<B>-g<G>, lynx-*, KIVI values: groups run within a token row, so each row is encoded alone.
//   fp8-e4m3: one per-tensor scale per append call (a prefill block of n rows is one tensor with one scale, as it is
//             sent; a decode step is a tensor of one row); each row's record keeps its block's scale.
//   KIVI keys: per channel over groups of G tokens. Rows of an unfinished group are kept in fp16 (the codec's tail)
//             and the group is quantized from its fp32 rows when its G-th row arrives.
// Truncation (rolling back speculative tokens) is exact for every format except into an already quantized KIVI key
// group, which a KIVI engine cannot undo either: that is a LynxError.
#pragma once
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/kv_format.hpp"

namespace lynx {

// One layer's keys or values.
class KvStore {
 public:
  KvStore(const KvFormat& format, KvRole role, int64_t kv_heads, int64_t head_dim);

  int64_t tokens() const { return tokens_; }
  int64_t row_elements() const { return row_; }
  // Appends `n` rows [n x kv_heads x head_dim] (one tensor for fp8's scale).
  void append(const float* rows, int64_t n);
  // Keeps the first `tokens` rows.
  void truncate(int64_t tokens);
  // Rows [0, tokens) are read anchor-only from now on (also rows appended later below that index); the others
  // full. 0 = everything full (the residual has arrived). Formats without a residual read the same either way.
  void set_anchor_only(int64_t tokens);
  int64_t anchor_only() const { return anchor_only_; }
  // What attention reads: [tokens x kv_heads x head_dim].
  const float* view() const { return view_.data(); }

 private:
  void decode_row(int64_t row, float* out) const;
  void decode_kivi_group(int64_t group);

  KvFormat format_;
  KvRole role_;
  KvShape row_shape_;  // one token
  int64_t row_ = 0;
  int64_t tokens_ = 0;
  int64_t anchor_only_ = 0;
  bool kivi_keys_ = false;
  // Per-row records (every format except KIVI keys).
  uint64_t anchor_record_ = 0, residual_record_ = 0;
  std::vector<uint8_t> anchor_, residual_;
  // KIVI keys: quantized groups of G rows, and the fp32 rows of the unfinished group.
  uint64_t group_record_ = 0;
  std::vector<uint8_t> groups_;
  std::vector<float> open_rows_;
  // Scratch for encoding.
  std::vector<uint8_t> scratch_anchor_, scratch_residual_;
  std::vector<float> view_;
};

// Every layer's K and V.
class KvCache {
 public:
  KvCache(const KvFormat& format, int n_layers, int kv_heads, int head_dim);

  const KvFormat& format() const { return format_; }
  int n_layers() const { return static_cast<int>(keys_.size()); }
  // Tokens held by the last layer (every layer holds this many between forward passes).
  int64_t tokens() const { return keys_.back().tokens(); }
  // Tokens held by `layer` (a forward pass appends layer by layer).
  int64_t tokens(int layer) const { return keys_[static_cast<size_t>(layer)].tokens(); }

  // Appends `n` tokens' K and V [n x kv_heads x head_dim] to `layer`.
  void append(int layer, int64_t n, const float* k, const float* v);
  void truncate(int64_t tokens);
  void clear() { truncate(0); }
  void set_anchor_only(int64_t tokens);
  static constexpr int64_t kAllTokens = std::numeric_limits<int64_t>::max();

  const float* keys(int layer) const { return keys_[static_cast<size_t>(layer)].view(); }
  const float* values(int layer) const { return values_[static_cast<size_t>(layer)].view(); }

 private:
  KvFormat format_;
  std::vector<KvStore> keys_, values_;
};

}  // namespace lynx
