#include "models/decoder/kv_cache.hpp"

#include <algorithm>
#include <cstring>

#include "common/error.hpp"
#include "kernels/kv_codec.hpp"

namespace lynx {

KvStore::KvStore(const KvFormat& format, KvRole role, int64_t kv_heads, int64_t head_dim)
    : format_(format), role_(role) {
  row_shape_ = KvShape{1, kv_heads, head_dim};
  row_ = row_shape_.row_elements();
  kivi_keys_ = format.kind == KvFormatKind::kivi && role == KvRole::key;
  if (kivi_keys_) {
    group_record_ = kv_stream_bytes(format, role, KvShape{format.group_size, kv_heads, head_dim}).anchor;
  } else {
    KvStreamBytes b = kv_stream_bytes(format, role, row_shape_);
    anchor_record_ = b.anchor;
    residual_record_ = b.residual;
  }
}

void KvStore::decode_row(int64_t row, float* out) const {
  const uint8_t* residual =
      residual_record_ > 0 && row >= anchor_only_ ? residual_.data() + static_cast<uint64_t>(row) * residual_record_
                                                  : nullptr;
  kv_decode(format_, role_, row_shape_, anchor_.data() + static_cast<uint64_t>(row) * anchor_record_, residual, out);
}

void KvStore::decode_kivi_group(int64_t group) {
  const int64_t G = format_.group_size;
  KvShape shape{G, row_shape_.kv_heads, row_shape_.head_dim};
  kv_decode(format_, role_, shape, groups_.data() + static_cast<uint64_t>(group) * group_record_, nullptr,
            view_.data() + group * G * row_);
}

void KvStore::append(const float* rows, int64_t n) {
  if (n <= 0) return;
  view_.resize(static_cast<size_t>((tokens_ + n) * row_));
  if (kivi_keys_) {
    const int64_t G = format_.group_size;
    const int64_t start = tokens_;
    for (int64_t r = 0; r < n; ++r) {
      const float* x = rows + r * row_;
      const int64_t t = start + r;
      open_rows_.insert(open_rows_.end(), x, x + row_);
      if (static_cast<int64_t>(open_rows_.size()) == G * row_) {  // the group is complete: quantize it
        const int64_t group = t / G;
        groups_.resize(static_cast<size_t>((group + 1) * static_cast<int64_t>(group_record_)));
        kv_encode(format_, role_, KvShape{G, row_shape_.kv_heads, row_shape_.head_dim}, open_rows_.data(),
                  groups_.data() + static_cast<uint64_t>(group) * group_record_, nullptr);
        open_rows_.clear();
        decode_kivi_group(group);
      } else {  // a row of an unfinished group: the codec keeps it in fp16
        scratch_anchor_.resize(kv_stream_bytes(format_, role_, row_shape_).anchor);
        kv_encode(format_, role_, row_shape_, x, scratch_anchor_.data(), nullptr);
        kv_decode(format_, role_, row_shape_, scratch_anchor_.data(), nullptr, view_.data() + t * row_);
      }
    }
    tokens_ = start + n;
    return;
  }
  anchor_.resize(static_cast<size_t>(static_cast<uint64_t>(tokens_ + n) * anchor_record_));
  residual_.resize(static_cast<size_t>(static_cast<uint64_t>(tokens_ + n) * residual_record_));
  if (format_.kind == KvFormatKind::fp8_e4m3) {
    // One tensor of n rows (one scale), split into per-row records that each carry the block's scale.
    KvShape block{n, row_shape_.kv_heads, row_shape_.head_dim};
    scratch_anchor_.resize(kv_stream_bytes(format_, role_, block).anchor);
    kv_encode(format_, role_, block, rows, scratch_anchor_.data(), nullptr);
    for (int64_t r = 0; r < n; ++r) {
      uint8_t* record = anchor_.data() + static_cast<uint64_t>(tokens_ + r) * anchor_record_;
      std::memcpy(record, scratch_anchor_.data(), kFp8ScaleBytes);
      std::memcpy(record + kFp8ScaleBytes, scratch_anchor_.data() + kFp8ScaleBytes + r * row_,
                  static_cast<size_t>(row_));
    }
  } else {
    for (int64_t r = 0; r < n; ++r) {
      const uint64_t t = static_cast<uint64_t>(tokens_ + r);
      kv_encode(format_, role_, row_shape_, rows + r * row_, anchor_.data() + t * anchor_record_,
                residual_record_ > 0 ? residual_.data() + t * residual_record_ : nullptr);
    }
  }
  for (int64_t r = 0; r < n; ++r) decode_row(tokens_ + r, view_.data() + (tokens_ + r) * row_);
  tokens_ += n;
}

void KvStore::truncate(int64_t tokens) {
  if (tokens < 0 || tokens > tokens_)
    throw_error("KV cache: cannot keep %lld tokens of %lld", static_cast<long long>(tokens),
                static_cast<long long>(tokens_));
  if (kivi_keys_) {
    const int64_t G = format_.group_size;
    const int64_t closed_tokens = static_cast<int64_t>(groups_.size() / group_record_) * G;
    if (tokens >= closed_tokens) {
      open_rows_.resize(static_cast<size_t>((tokens - closed_tokens) * row_));
    } else if (tokens % G == 0) {
      groups_.resize(static_cast<size_t>(tokens / G * static_cast<int64_t>(group_record_)));
      open_rows_.clear();
    } else {
      throw_error("KV cache: cannot roll %s keys back to %lld tokens: that is inside a group of %d keys that is "
                  "already quantized per channel",
                  format_.name.c_str(), static_cast<long long>(tokens), format_.group_size);
    }
  } else {
    anchor_.resize(static_cast<size_t>(static_cast<uint64_t>(tokens) * anchor_record_));
    residual_.resize(static_cast<size_t>(static_cast<uint64_t>(tokens) * residual_record_));
  }
  view_.resize(static_cast<size_t>(tokens * row_));
  tokens_ = tokens;
}

void KvStore::set_anchor_only(int64_t tokens) {
  if (tokens < 0) throw_error("KV cache: anchor-only prefix %lld must be >= 0", static_cast<long long>(tokens));
  const int64_t old = anchor_only_;
  anchor_only_ = tokens;
  if (kivi_keys_ || residual_record_ == 0) return;  // no residual: anchor-only reads the same values
  const int64_t begin = std::min(old, tokens), end = std::min(std::max(old, tokens), tokens_);
  for (int64_t r = begin; r < end; ++r) decode_row(r, view_.data() + r * row_);
}

KvCache::KvCache(const KvFormat& format, int n_layers, int kv_heads, int head_dim) : format_(format) {
  if (n_layers <= 0 || kv_heads <= 0 || head_dim <= 0)
    throw_error("KV cache: layers %d, kv_heads %d and head_dim %d must be positive", n_layers, kv_heads, head_dim);
  for (int l = 0; l < n_layers; ++l) {
    keys_.emplace_back(format, KvRole::key, kv_heads, head_dim);
    values_.emplace_back(format, KvRole::value, kv_heads, head_dim);
  }
}

void KvCache::append(int layer, int64_t n, const float* k, const float* v) {
  keys_[static_cast<size_t>(layer)].append(k, n);
  values_[static_cast<size_t>(layer)].append(v, n);
}

void KvCache::truncate(int64_t tokens) {
  int64_t held = 0;
  for (const auto& k : keys_) held = std::max(held, k.tokens());
  if (tokens < 0 || tokens > held)
    throw_error("KV cache: cannot keep %lld tokens of %lld", static_cast<long long>(tokens),
                static_cast<long long>(held));
  for (size_t l = 0; l < keys_.size(); ++l) {
    keys_[l].truncate(std::min(tokens, keys_[l].tokens()));
    values_[l].truncate(std::min(tokens, values_[l].tokens()));
  }
}

void KvCache::set_anchor_only(int64_t tokens) {
  for (size_t l = 0; l < keys_.size(); ++l) {
    keys_[l].set_anchor_only(tokens);
    values_[l].set_anchor_only(tokens);
  }
}

}  // namespace lynx
