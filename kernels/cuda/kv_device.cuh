// Device-side pieces shared by the CUDA codec and attention kernels: little-endian loads and stores of a few bytes
// at any alignment (the widest access the address allows), 8 bf16 values at a time, and the plain-old-data view of
// a format's stream layout that kernels take by value (KvLayout, built on the host by kv_layout()).
#pragma once
#include <cstdint>

#include "kernels/group_quant.hpp"
#include "kernels/kv_format.hpp"
#include "kernels/scalar_types.hpp"

namespace lynx::cuda {

// Bytes of `count` packed codes of `bits` bits (kv_packed_row_bytes, on the device).
__host__ __device__ inline int packed_bytes(int count, int bits) { return (count * bits + 7) / 8; }

__host__ __device__ inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

// ---- little-endian bytes ----
__device__ inline uint64_t load_le(const uint8_t* p, int n) {  // 1 <= n <= 8
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  if (n == 8 && (a & 7) == 0) return *reinterpret_cast<const uint64_t*>(p);
  if (n == 4 && (a & 3) == 0) return *reinterpret_cast<const uint32_t*>(p);
  if (n == 2 && (a & 1) == 0) return *reinterpret_cast<const uint16_t*>(p);
  if (n == 8 && (a & 3) == 0)
    return static_cast<uint64_t>(*reinterpret_cast<const uint32_t*>(p)) |
           (static_cast<uint64_t>(*reinterpret_cast<const uint32_t*>(p + 4)) << 32);
  uint64_t w = 0;
  for (int i = 0; i < n; ++i) w |= static_cast<uint64_t>(p[i]) << (8 * i);
  return w;
}

__device__ inline void store_le(uint8_t* p, uint64_t w, int n) {  // 1 <= n <= 8
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  if (n == 8 && (a & 7) == 0) {
    *reinterpret_cast<uint64_t*>(p) = w;
  } else if (n == 4 && (a & 3) == 0) {
    *reinterpret_cast<uint32_t*>(p) = static_cast<uint32_t>(w);
  } else if (n == 2 && (a & 1) == 0) {
    *reinterpret_cast<uint16_t*>(p) = static_cast<uint16_t>(w);
  } else if (n == 8 && (a & 3) == 0) {
    *reinterpret_cast<uint32_t*>(p) = static_cast<uint32_t>(w);
    *reinterpret_cast<uint32_t*>(p + 4) = static_cast<uint32_t>(w >> 32);
  } else {
    for (int i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(w >> (8 * i));
  }
}

// ---- 8 bf16 values ----
// Loads `count` (<= 8) bf16 values as floats; the rest are 0.
__device__ inline void load8_bf16(const uint16_t* p, int count, float v[8]) {
  if (count == 8 && (reinterpret_cast<uintptr_t>(p) & 15) == 0) {
    const uint4 w = *reinterpret_cast<const uint4*>(p);
    const uint32_t words[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      v[2 * i] = __uint_as_float(words[i] << 16);
      v[2 * i + 1] = __uint_as_float(words[i] & 0xFFFF0000u);
    }
    return;
  }
#pragma unroll
  for (int i = 0; i < 8; ++i) v[i] = i < count ? bf16_to_float(p[i]) : 0.0f;
}

// Stores the first `count` (<= 8) values rounded to bf16.
__device__ inline void store8_bf16(uint16_t* p, int count, const float v[8]) {
  if (count == 8 && (reinterpret_cast<uintptr_t>(p) & 15) == 0) {
    uint32_t words[4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
      words[i] = static_cast<uint32_t>(float_to_bf16(v[2 * i])) |
                 (static_cast<uint32_t>(float_to_bf16(v[2 * i + 1])) << 16);
    *reinterpret_cast<uint4*>(p) = make_uint4(words[0], words[1], words[2], words[3]);
    return;
  }
#pragma unroll
  for (int i = 0; i < 8; ++i)
    if (i < count) p[i] = float_to_bf16(v[i]);
}

// 16 bytes at any alignment.
__device__ inline uint4 load16(const uint8_t* p) {
  if ((reinterpret_cast<uintptr_t>(p) & 15) == 0) return *reinterpret_cast<const uint4*>(p);
  const uint64_t lo = load_le(p, 8), hi = load_le(p + 8, 8);
  return make_uint4(static_cast<uint32_t>(lo), static_cast<uint32_t>(lo >> 32), static_cast<uint32_t>(hi),
                    static_cast<uint32_t>(hi >> 32));
}

// ---- a format's stream layout for one tensor (one role), as plain data ----
enum class Layout : int { fp32, bf16, fp8, grouped, kivi_key };

struct KvLayout {
  Layout layout = Layout::bf16;
  int anchor_bits = 16, residual_bits = 0, group_size = 0;
  bool bit_slice = true;          // Lynx split (grouped layout)
  bool full = true;               // false: decode the Lynx anchor only
  int64_t row = 0;                // kv_heads * head_dim
  int64_t groups = 0;             // groups per token row (grouped)
  uint64_t anchor_row_bytes = 0;  // packed codes per token row
  uint64_t residual_row_bytes = 0;
  uint64_t meta_offset = 0;       // grouped: codes of all tokens first; kivi keys: after the quantized tokens' codes
  int64_t kivi_groups = 0;        // kivi keys: full token groups
  uint64_t kivi_tail_offset = 0;  // kivi keys: the fp16 tail
};

// The layout of `format`'s streams for one tensor of `shape` in `role`; `full` false decodes a Lynx anchor alone.
inline KvLayout kv_layout(const KvFormat& format, KvRole role, const KvShape& shape, bool full) {
  KvLayout f;
  f.row = shape.row_elements();
  f.anchor_bits = format.anchor_bits;
  f.residual_bits = format.kind == KvFormatKind::lynx ? format.residual_bits : 0;
  f.group_size = format.group_size;
  f.bit_slice = format.split == LynxSplit::bit_slice;
  f.full = full || f.residual_bits == 0;
  switch (format.kind) {
    case KvFormatKind::fp32: f.layout = Layout::fp32; return f;
    case KvFormatKind::bf16: f.layout = Layout::bf16; return f;
    case KvFormatKind::fp8_e4m3: f.layout = Layout::fp8; return f;
    default: break;
  }
  f.anchor_row_bytes = kv_packed_row_bytes(f.row, f.anchor_bits);
  f.residual_row_bytes = kv_packed_row_bytes(f.row, f.residual_bits);
  if (format.kind == KvFormatKind::kivi && role == KvRole::key) {
    f.layout = Layout::kivi_key;
    f.kivi_groups = kivi_key_full_token_groups(format, shape);
    f.meta_offset = static_cast<uint64_t>(f.kivi_groups * f.group_size) * f.anchor_row_bytes;
    f.kivi_tail_offset = f.meta_offset + static_cast<uint64_t>(f.kivi_groups * f.row) * kGroupMetaBytes;
    return f;
  }
  f.layout = Layout::grouped;
  f.groups = kv_groups_per_row(shape, format.group_size);
  f.meta_offset = kv_grouped_meta_offset(format, shape);
  return f;
}

// The reconstruction of one grouped element, as kv_decode does it.
__device__ inline GroupDequant load_group_dequant(const KvLayout& f, const uint8_t* meta) {
  const uint32_t m = static_cast<uint32_t>(load_le(meta, 4));
  return group_dequant(static_cast<uint16_t>(m & 0xFFFF), static_cast<uint16_t>(m >> 16), f.residual_bits,
                       f.bit_slice, f.full);
}

// Channels [c0, c0 + 8) of token t (c0 a multiple of 8, the chunk inside the row), decoded to floats exactly as
// kv_decode decodes them; `count` < 8 at the end of a row whose length is not a multiple of 8.
__device__ inline void load8_decoded(const KvLayout& f, const uint8_t* anchor, const uint8_t* residual,
                                     float fp8_scale, int64_t t, int64_t c0, int count, float v[8]) {
  switch (f.layout) {
    case Layout::fp32: {
      const float* p = reinterpret_cast<const float*>(anchor) + t * f.row + c0;
#pragma unroll
      for (int i = 0; i < 8; ++i) v[i] = i < count ? p[i] : 0.0f;
      return;
    }
    case Layout::bf16:
      load8_bf16(reinterpret_cast<const uint16_t*>(anchor) + t * f.row + c0, count, v);
      return;
    case Layout::fp8: {
      const uint64_t w = load_le(anchor + kFp8ScaleBytes + t * f.row + c0, count);
#pragma unroll
      for (int i = 0; i < 8; ++i)
        v[i] = i < count ? mul_rn(fp8_e4m3_to_float(static_cast<uint8_t>(w >> (8 * i))), fp8_scale) : 0.0f;
      return;
    }
    case Layout::kivi_key: {
      const int64_t quantized = f.kivi_groups * f.group_size;
      if (t >= quantized) {  // the fp16 tail
        const uint8_t* p = anchor + f.kivi_tail_offset + 2 * ((t - quantized) * f.row + c0);
#pragma unroll
        for (int i = 0; i < 8; ++i)
          v[i] = i < count ? half_to_float(static_cast<uint16_t>(load_le(p + 2 * i, 2))) : 0.0f;
        return;
      }
      const int bytes = packed_bytes(count, f.anchor_bits);
      const uint64_t codes = unpack8_codes(load_le(anchor + t * f.anchor_row_bytes + (c0 / 8) * f.anchor_bits, bytes),
                                           f.anchor_bits);
      const uint8_t* meta = anchor + f.meta_offset + ((t / f.group_size) * f.row + c0) * kGroupMetaBytes;
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        if (i >= count) {
          v[i] = 0.0f;
          continue;
        }
        const uint32_t m = static_cast<uint32_t>(load_le(meta + 4 * i, 4));
        const float scale = half_to_float(static_cast<uint16_t>(m & 0xFFFF));
        const float zero = half_to_float(static_cast<uint16_t>(m >> 16));
        v[i] = add_rn(zero, mul_rn(static_cast<float>((codes >> (8 * i)) & 0xFF), scale));
      }
      return;
    }
    case Layout::grouped: {
      const int abytes = packed_bytes(count, f.anchor_bits);
      const uint64_t high =
          unpack8_codes(load_le(anchor + t * f.anchor_row_bytes + (c0 / 8) * f.anchor_bits, abytes), f.anchor_bits);
      uint64_t low = 0;
      if (f.residual_bits > 0 && f.full) {
        const int rbytes = packed_bytes(count, f.residual_bits);
        low = unpack8_codes(load_le(residual + t * f.residual_row_bytes + (c0 / 8) * f.residual_bits, rbytes),
                            f.residual_bits);
      }
      const GroupDequant d =
          load_group_dequant(f, anchor + f.meta_offset + (t * f.groups + c0 / f.group_size) * kGroupMetaBytes);
#pragma unroll
      for (int i = 0; i < 8; ++i)
        v[i] = i < count ? group_value(d, static_cast<uint32_t>((high >> (8 * i)) & 0xFF),
                                       static_cast<uint32_t>((low >> (8 * i)) & 0xFF))
                         : 0.0f;
      return;
    }
  }
}

}  // namespace lynx::cuda
