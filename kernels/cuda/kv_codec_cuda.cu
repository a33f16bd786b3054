// CUDA encode and decode of every KV format (see kv_cuda.hpp), on the CPU codec's layout and arithmetic
// (group_quant.hpp). Memory-bound kernels: each thread moves 8 elements (16 bytes of bf16) per step, neighbouring
// threads neighbouring bytes.
//   - grouped formats (int, Lynx, KIVI values): T threads per group of G (T = the largest power of two <= 32 that
//     divides G/8), each with G/8/T chunks; min/max reduced with warp shuffles; one lane writes the group's fp16
//     scale and zero; every lane packs its 8 codes into anchor (and residual) bytes, both streams in one pass;
//   - KIVI keys: one thread per token group and 8 channels, walking the group's tokens twice (min/max, codes);
//   - fp8: amax by atomicMax on the float bits, then the codes, then the scale;
//   - decode: one thread per 8 elements for every layout (kv_device.cuh's load8_decoded), bf16 out.
#include <algorithm>
#include <cfloat>

#include "common/error.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/kv_cuda.hpp"
#include "kernels/cuda/kv_device.cuh"

namespace lynx {

namespace cuda {
namespace {

constexpr int kBlock = 256;

enum class Split : int { none, bit_slice, residual_quant };

struct GroupedEncode {
  KvLayout f;
  int64_t tokens = 0;
  int threads_per_group = 1;   // T
  int chunks_per_thread = 1;   // (G / 8) / T
  int levels = 0;              // 2^(code bits)
  Split split = Split::none;
};

__device__ inline unsigned group_lane_mask(int T) {
  const unsigned lane = threadIdx.x & 31u;
  return T == 32 ? 0xFFFFFFFFu : (((1u << T) - 1u) << (lane & ~static_cast<unsigned>(T - 1)));
}

__global__ void encode_grouped_kernel(GroupedEncode p, const uint16_t* __restrict__ x, uint8_t* __restrict__ anchor,
                                      uint8_t* __restrict__ residual) {
  const KvLayout& f = p.f;
  const int T = p.threads_per_group;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t group_id = tid / T;
  const int lane = static_cast<int>(tid % T);
  const bool valid = group_id < p.tokens * f.groups;  // invalid lanes form whole groups of their own
  const int64_t t = valid ? group_id / f.groups : 0, g = valid ? group_id % f.groups : 0;
  const uint16_t* xt = x + t * f.row;
  const int G = f.group_size;

  // min and max of the group (the value; a zero's sign is settled below)
  float lo = INFINITY, hi = -INFINITY;
  for (int k = 0; k < p.chunks_per_thread; ++k) {
    const int64_t e0 = g * G + 8 * (lane + k * T);
    const int count = valid ? static_cast<int>(min64(8, f.row - e0)) : 0;
    if (count <= 0) continue;
    float v[8];
    load8_bf16(xt + e0, count, v);
#pragma unroll
    for (int i = 0; i < 8; ++i)
      if (i < count) {
        lo = fminf(lo, v[i]);
        hi = fmaxf(hi, v[i]);
      }
  }
  for (int o = T / 2; o > 0; o /= 2) {
    lo = fminf(lo, __shfl_xor_sync(0xFFFFFFFFu, lo, o));
    hi = fmaxf(hi, __shfl_xor_sync(0xFFFFFFFFu, hi, o));
  }
  // The CPU's sequential min/max keeps the first element equal to the extreme; only a zero's sign can tell.
  if (lo == 0.0f || hi == 0.0f) {  // the same in every lane of the group
    int64_t key = INT64_MAX;       // 2 * (position in the group) + sign of the first zero
    for (int k = 0; k < p.chunks_per_thread && key == INT64_MAX; ++k) {
      const int64_t e0 = g * G + 8 * (lane + k * T);
      const int count = static_cast<int>(min64(8, f.row - e0));
      if (count <= 0) continue;
      float v[8];
      load8_bf16(xt + e0, count, v);
#pragma unroll
      for (int i = 0; i < 8; ++i)
        if (i < count && v[i] == 0.0f && key == INT64_MAX)
          key = 2 * (e0 - g * G + i) + (__float_as_uint(v[i]) >> 31);
    }
    const unsigned mask = group_lane_mask(T);
    for (int o = T / 2; o > 0; o /= 2) key = min64(key, static_cast<int64_t>(__shfl_xor_sync(mask, static_cast<long long>(key), o)));
    const float zero_value = (key & 1) ? -0.0f : 0.0f;
    if (lo == 0.0f) lo = zero_value;
    if (hi == 0.0f) hi = zero_value;
  }
  if (!valid) return;

  const GroupQuantParams q = group_quant_params(lo, hi, p.levels);
  if (lane == 0)
    store_le(anchor + f.meta_offset + (t * f.groups + g) * kGroupMetaBytes,
             static_cast<uint64_t>(q.scale_half) | (static_cast<uint64_t>(q.zero_half) << 16), 4);
  const float zero = half_to_float(q.zero_half), scale = half_to_float(q.scale_half);
  const float inverse = group_inverse(scale), top = static_cast<float>(p.levels - 1);
  const ResidualQuant rq = residual_quant(scale, f.residual_bits > 0 ? f.residual_bits : 1);
  const int A = f.anchor_bits, R = f.residual_bits;
  for (int k = 0; k < p.chunks_per_thread; ++k) {
    const int64_t e0 = g * G + 8 * (lane + k * T);
    const int count = static_cast<int>(min64(8, f.row - e0));
    if (count <= 0) continue;
    float v[8];
    load8_bf16(xt + e0, count, v);
    uint64_t high = 0, low = 0;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      if (i >= count) continue;
      const uint32_t code = quant_code(v[i], zero, inverse, top);
      if (p.split == Split::bit_slice) {
        high |= static_cast<uint64_t>(code >> R) << (8 * i);
        low |= static_cast<uint64_t>(code & ((1u << R) - 1u)) << (8 * i);
      } else {
        high |= static_cast<uint64_t>(code) << (8 * i);
        if (p.split == Split::residual_quant)
          low |= static_cast<uint64_t>(residual_code(v[i], zero, scale, code, rq)) << (8 * i);
      }
    }
    const int64_t chunk = e0 / 8;
    store_le(anchor + t * f.anchor_row_bytes + chunk * A, pack8_codes(high, A), packed_bytes(count, A));
    if (R > 0) store_le(residual + t * f.residual_row_bytes + chunk * R, pack8_codes(low, R), packed_bytes(count, R));
  }
}

// KIVI keys: thread = (token group, 8 channels).
__global__ void encode_kivi_keys_kernel(KvLayout f, const uint16_t* __restrict__ x, uint8_t* __restrict__ anchor) {
  const int64_t chunks = (f.row + 7) / 8;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (tid >= f.kivi_groups * chunks) return;
  const int64_t group = tid / chunks, c0 = 8 * (tid % chunks);
  const int count = static_cast<int>(min64(8, f.row - c0));
  const int G = f.group_size, A = f.anchor_bits, levels = 1 << A;
  const uint16_t* xg = x + group * G * f.row + c0;
  float lo[8], hi[8], v[8];
  load8_bf16(xg, count, v);
#pragma unroll
  for (int i = 0; i < 8; ++i) lo[i] = hi[i] = v[i];
  for (int t = 1; t < G; ++t) {  // per channel in token order: the CPU's sequential min/max, lane by lane
    load8_bf16(xg + t * f.row, count, v);
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      lo[i] = v[i] < lo[i] ? v[i] : lo[i];
      hi[i] = hi[i] < v[i] ? v[i] : hi[i];
    }
  }
  float zero[8], inverse[8];
  uint8_t* meta = anchor + f.meta_offset + (group * f.row + c0) * kGroupMetaBytes;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    zero[i] = 0.0f;
    inverse[i] = 0.0f;
    if (i >= count) continue;
    const GroupQuantParams q = group_quant_params(lo[i], hi[i], levels);
    store_le(meta + kGroupMetaBytes * i, static_cast<uint64_t>(q.scale_half) | (static_cast<uint64_t>(q.zero_half) << 16),
             4);
    zero[i] = half_to_float(q.zero_half);
    inverse[i] = group_inverse(half_to_float(q.scale_half));
  }
  const float top = static_cast<float>(levels - 1);
  for (int t = 0; t < G; ++t) {
    load8_bf16(xg + t * f.row, count, v);
    uint64_t codes = 0;
#pragma unroll
    for (int i = 0; i < 8; ++i)
      if (i < count) codes |= static_cast<uint64_t>(quant_code(v[i], zero[i], inverse[i], top)) << (8 * i);
    store_le(anchor + (group * G + t) * f.anchor_row_bytes + (c0 / 8) * A, pack8_codes(codes, A), packed_bytes(count, A));
  }
}

// The fp16 tail of KIVI keys (tokens mod G): one element per thread.
__global__ void encode_fp16_kernel(int64_t n, const uint16_t* __restrict__ x, uint8_t* __restrict__ out) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) store_le(out + 2 * i, float_to_half(bf16_to_float(x[i])), 2);
}

__global__ void encode_fp32_kernel(int64_t n, const uint16_t* __restrict__ x, float* __restrict__ out) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = bf16_to_float(x[i]);
}

// fp8: 1) the maximum |x| as float bits, by atomicMax (non-negative floats order like their bits)
__global__ void fp8_amax_kernel(int64_t n, const uint16_t* __restrict__ x, unsigned* __restrict__ amax_bits) {
  float m = 0.0f;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x * 8;
  for (int64_t e0 = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * 8; e0 < n; e0 += stride) {
    float v[8];
    load8_bf16(x + e0, static_cast<int>(min64(8, n - e0)), v);
#pragma unroll
    for (int i = 0; i < 8; ++i) m = fmaxf(m, fabsf(v[i]));
  }
  for (int o = 16; o > 0; o /= 2) m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, o));
  if ((threadIdx.x & 31) == 0) atomicMax(amax_bits, __float_as_uint(m));
}

// The CPU's scale: amax / 448, or 1 when that is not a positive finite float.
__device__ inline float fp8_scale_of(float amax) {
  float scale = amax > 0 ? div_rn(amax, kFp8E4m3Max) : 1.0f;
  if (!(scale > 0) || !(scale <= FLT_MAX)) scale = 1.0f;
  return scale;
}

// 2) the codes
__global__ void fp8_encode_kernel(int64_t n, const uint16_t* __restrict__ x, uint8_t* __restrict__ anchor) {
  const int64_t e0 = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * 8;
  if (e0 >= n) return;
  const float inverse = div_rn(1.0f, fp8_scale_of(__uint_as_float(*reinterpret_cast<const unsigned*>(anchor))));
  const int count = static_cast<int>(min64(8, n - e0));
  float v[8];
  load8_bf16(x + e0, count, v);
  uint64_t codes = 0;
#pragma unroll
  for (int i = 0; i < 8; ++i) codes |= static_cast<uint64_t>(float_to_fp8_e4m3(mul_rn(v[i], inverse))) << (8 * i);
  store_le(anchor + kFp8ScaleBytes + e0, codes, count);
}

// 3) the scale, over the amax
__global__ void fp8_finish_kernel(uint8_t* anchor) {
  unsigned* bits = reinterpret_cast<unsigned*>(anchor);
  *bits = __float_as_uint(fp8_scale_of(__uint_as_float(*bits)));
}

// Decode, every layout: one thread per 8 elements of a token row.
__global__ void decode_kernel(KvLayout f, int64_t tokens, const uint8_t* __restrict__ anchor,
                              const uint8_t* __restrict__ residual, uint16_t* __restrict__ out) {
  const int64_t chunks = (f.row + 7) / 8;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (tid >= tokens * chunks) return;
  const int64_t t = tid / chunks, c0 = 8 * (tid % chunks);
  const int count = static_cast<int>(min64(8, f.row - c0));
  const float fp8_scale = f.layout == Layout::fp8 ? __uint_as_float(static_cast<uint32_t>(load_le(anchor, 4))) : 1.0f;
  float v[8];
  load8_decoded(f, anchor, residual, fp8_scale, t, c0, count, v);
  store8_bf16(out + t * f.row + c0, count, v);
}

unsigned blocks_for(int64_t threads) {
  const int64_t blocks = (threads + kBlock - 1) / kBlock;
  if (blocks > 0x7FFFFFFF) throw_error("CUDA kernels: a tensor too large for one launch (%lld threads)",
                                       static_cast<long long>(threads));
  return static_cast<unsigned>(blocks);
}

cudaStream_t as_stream(void* stream) { return static_cast<cudaStream_t>(stream); }

}  // namespace
}  // namespace cuda

void kv_encode_cuda(const KvFormat& format, KvRole role, const KvShape& shape, const uint16_t* input,
                    uint8_t* anchor, uint8_t* residual, void* stream_handle) {
  using namespace cuda;
  if (format.residual_bits > 0 && residual == nullptr)
    throw_error("kv_encode_cuda: %s needs a residual buffer", format.name.c_str());
  const int64_t n = shape.elements();
  if (n <= 0) return;
  const cudaStream_t stream = as_stream(stream_handle);
  const KvLayout f = kv_layout(format, role, shape, true);
  switch (f.layout) {
    case Layout::bf16:
      cuda_check(cudaMemcpyAsync(anchor, input, static_cast<size_t>(n) * 2, cudaMemcpyDeviceToDevice, stream),
                 "kv_encode_cuda");
      return;
    case Layout::fp32:
      encode_fp32_kernel<<<blocks_for(n), kBlock, 0, stream>>>(n, input, reinterpret_cast<float*>(anchor));
      break;
    case Layout::fp8: {
      if (reinterpret_cast<uintptr_t>(anchor) % 4 != 0)
        throw_error("kv_encode_cuda: fp8-e4m3 needs a 4-byte aligned anchor buffer");
      cuda_check(cudaMemsetAsync(anchor, 0, 4, stream), "kv_encode_cuda");
      const unsigned blocks = std::min<unsigned>(blocks_for((n + 7) / 8), 132u * 16u);
      fp8_amax_kernel<<<blocks, kBlock, 0, stream>>>(n, input, reinterpret_cast<unsigned*>(anchor));
      fp8_encode_kernel<<<blocks_for((n + 7) / 8), kBlock, 0, stream>>>(n, input, anchor);
      fp8_finish_kernel<<<1, 1, 0, stream>>>(anchor);
      break;
    }
    case Layout::kivi_key: {
      const int64_t threads = f.kivi_groups * ((f.row + 7) / 8);
      if (threads > 0) encode_kivi_keys_kernel<<<blocks_for(threads), kBlock, 0, stream>>>(f, input, anchor);
      const int64_t tail = (shape.tokens - f.kivi_groups * f.group_size) * f.row;
      if (tail > 0)
        encode_fp16_kernel<<<blocks_for(tail), kBlock, 0, stream>>>(
            tail, input + f.kivi_groups * f.group_size * f.row, anchor + f.kivi_tail_offset);
      break;
    }
    case Layout::grouped: {
      GroupedEncode p;
      p.f = f;
      p.tokens = shape.tokens;
      const int chunks = format.group_size / 8;
      p.threads_per_group = 1;
      while (p.threads_per_group < 32 && chunks % (2 * p.threads_per_group) == 0) p.threads_per_group *= 2;
      p.chunks_per_thread = chunks / p.threads_per_group;
      const bool lynx = format.kind == KvFormatKind::lynx;
      p.split = !lynx ? Split::none : format.split == LynxSplit::bit_slice ? Split::bit_slice : Split::residual_quant;
      p.levels = 1 << (p.split == Split::bit_slice ? format.anchor_bits + format.residual_bits : format.anchor_bits);
      encode_grouped_kernel<<<blocks_for(shape.tokens * f.groups * p.threads_per_group), kBlock, 0, stream>>>(
          p, input, anchor, residual);
      break;
    }
  }
  cuda_check(cudaGetLastError(), "kv_encode_cuda");
}

void kv_decode_cuda(const KvFormat& format, KvRole role, const KvShape& shape, const uint8_t* anchor,
                    const uint8_t* residual, uint16_t* output, void* stream_handle) {
  using namespace cuda;
  const int64_t n = shape.elements();
  if (n <= 0) return;
  const cudaStream_t stream = as_stream(stream_handle);
  const KvLayout f = kv_layout(format, role, shape, residual != nullptr);
  if (f.layout == Layout::bf16) {
    cuda_check(cudaMemcpyAsync(output, anchor, static_cast<size_t>(n) * 2, cudaMemcpyDeviceToDevice, stream),
               "kv_decode_cuda");
    return;
  }
  decode_kernel<<<blocks_for(shape.tokens * ((f.row + 7) / 8)), kBlock, 0, stream>>>(f, shape.tokens, anchor, residual,
                                                                                      output);
  cuda_check(cudaGetLastError(), "kv_decode_cuda");
}

}  // namespace lynx
