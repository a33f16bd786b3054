// CUDA decode attention over a KV cache held in any wire format, dequantization fused into the loop (see
// kv_cuda.hpp). Split-KV ("flash decoding"): block (split, kv head x query-head chunk, sequence) walks a range of
// the sequence's tokens for up to MAXG query heads that share one KV head (GQA: each K/V element is read once for
// all of them). A team of head_dim/8 threads holds one token's head (8 channels each, decoded by load8_decoded
// exactly as kv_decode decodes them); scores are reduced across the team with shuffles and kept as an online
// softmax in base 2. Teams are merged in shared memory, splits by a second kernel that writes bf16.
#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/kv_cuda.hpp"
#include "kernels/cuda/kv_device.cuh"

namespace lynx {

namespace cuda {
namespace {

constexpr int kAttnThreads = 128;

struct AttentionPlan {
  int max_group = 1;           // MAXG: query heads per block
  int q_chunks = 1;            // blocks per KV head along the query heads
  int64_t splits = 1;          // blocks along the tokens
  int64_t tokens_per_split = 1;
};

// Deterministic from the shape alone (the workspace size must not depend on the device): about 1024 blocks,
// at least 64 tokens per split.
AttentionPlan attention_plan(const AttentionShape& s, int64_t batch) {
  AttentionPlan p;
  const int64_t group = s.group();
  p.max_group = group >= 8 ? 8 : group >= 4 ? 4 : group >= 2 ? 2 : 1;
  while (p.max_group < group && p.max_group < 8) p.max_group *= 2;
  p.q_chunks = static_cast<int>((group + p.max_group - 1) / p.max_group);
  const int64_t base = std::max<int64_t>(1, batch * s.kv_heads * p.q_chunks);
  p.splits = std::max<int64_t>(1, std::min<int64_t>((1024 + base - 1) / base, (s.tokens + 63) / 64));
  p.tokens_per_split = (s.tokens + p.splits - 1) / p.splits;
  p.splits = (s.tokens + p.tokens_per_split - 1) / p.tokens_per_split;
  return p;
}

struct AttentionParams {
  KvLayout k, v;
  int64_t tokens = 0, n_heads = 0, head_dim = 0;
  int group = 1, q_chunks = 1;
  int64_t splits = 1, tokens_per_split = 1;
  uint64_t k_anchor_stride = 0, k_residual_stride = 0, v_anchor_stride = 0, v_residual_stride = 0;
  float score_scale = 0;  // log2(e) / sqrt(head_dim): scores in base 2
};

__device__ inline float team_sum(float x, int T) {
  for (int o = T / 2; o > 0; o /= 2) x += __shfl_xor_sync(0xFFFFFFFFu, x, o);
  return x;
}

template <int MAXG>
__global__ void __launch_bounds__(kAttnThreads)
    attention_split_kernel(AttentionParams p, const uint16_t* __restrict__ q, const uint8_t* __restrict__ k_anchor,
                           const uint8_t* __restrict__ k_residual, const uint8_t* __restrict__ v_anchor,
                           const uint8_t* __restrict__ v_residual, float* __restrict__ partial) {
  __shared__ float s_m[MAXG][kAttnThreads], s_l[MAXG][kAttnThreads];
  __shared__ float s_acc[MAXG][kAttnThreads * 8];

  const int T = static_cast<int>(p.head_dim / 8), teams = kAttnThreads / T;
  const int team = threadIdx.x / T, lane = threadIdx.x % T;
  const int64_t b = blockIdx.z, split = blockIdx.x;
  const int kv_head = blockIdx.y / p.q_chunks, chunk = blockIdx.y % p.q_chunks;
  const int h0 = kv_head * p.group + chunk * MAXG, nh = min(MAXG, p.group - chunk * MAXG);
  const int64_t t_begin = split * p.tokens_per_split, t_end = min64(p.tokens, t_begin + p.tokens_per_split);
  const uint8_t* ka = k_anchor + b * p.k_anchor_stride;
  const uint8_t* kr = k_residual ? k_residual + b * p.k_residual_stride : nullptr;
  const uint8_t* va = v_anchor + b * p.v_anchor_stride;
  const uint8_t* vr = v_residual ? v_residual + b * p.v_residual_stride : nullptr;
  const float k_fp8 = p.k.layout == Layout::fp8 ? __uint_as_float(static_cast<uint32_t>(load_le(ka, 4))) : 1.0f;
  const float v_fp8 = p.v.layout == Layout::fp8 ? __uint_as_float(static_cast<uint32_t>(load_le(va, 4))) : 1.0f;
  const int64_t c0 = kv_head * p.head_dim + lane * 8;

  float qv[MAXG][8], m[MAXG], l[MAXG], acc[MAXG][8];
#pragma unroll
  for (int j = 0; j < MAXG; ++j) {
    if (j < nh) load8_bf16(q + (b * p.n_heads + h0 + j) * p.head_dim + lane * 8, 8, qv[j]);
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      qv[j][i] = j < nh ? qv[j][i] * p.score_scale : 0.0f;
      acc[j][i] = 0.0f;
    }
    m[j] = -INFINITY;
    l[j] = 0.0f;
  }

  // Two tokens per team per step; every thread runs the same number of steps (the shuffles need the whole warp).
  for (int64_t base = t_begin; base < t_end; base += 2 * teams) {
    const int64_t t0 = base + team, t1 = base + teams + team;
    const bool ok0 = t0 < t_end, ok1 = t1 < t_end;
    float k0[8], k1[8], v0[8], v1[8];
    load8_decoded(p.k, ka, kr, k_fp8, ok0 ? t0 : t_begin, c0, 8, k0);
    load8_decoded(p.k, ka, kr, k_fp8, ok1 ? t1 : t_begin, c0, 8, k1);
    load8_decoded(p.v, va, vr, v_fp8, ok0 ? t0 : t_begin, c0, 8, v0);
    load8_decoded(p.v, va, vr, v_fp8, ok1 ? t1 : t_begin, c0, 8, v1);
#pragma unroll
    for (int j = 0; j < MAXG; ++j) {
      if (j >= nh) break;  // the same in the whole block
      float s0 = 0.0f, s1 = 0.0f;
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        s0 = fmaf(qv[j][i], k0[i], s0);
        s1 = fmaf(qv[j][i], k1[i], s1);
      }
      s0 = team_sum(s0, T);  // every lane shuffles; only then are the scores of missing tokens dropped
      s1 = team_sum(s1, T);
      s0 = ok0 ? s0 : -INFINITY;
      s1 = ok1 ? s1 : -INFINITY;
      const float m_new = fmaxf(m[j], fmaxf(s0, s1));
      const float m_use = m_new == -INFINITY ? 0.0f : m_new;  // nothing seen yet: every weight below is 0
      const float correction = exp2f(m[j] - m_use), p0 = exp2f(s0 - m_use), p1 = exp2f(s1 - m_use);
      l[j] = l[j] * correction + p0 + p1;
#pragma unroll
      for (int i = 0; i < 8; ++i) acc[j][i] = fmaf(p1, v1[i], fmaf(p0, v0[i], acc[j][i] * correction));
      m[j] = m_new;
    }
  }

  // Merge the teams.
#pragma unroll
  for (int j = 0; j < MAXG; ++j) {
    if (lane == 0) {
      s_m[j][team] = m[j];
      s_l[j][team] = l[j];
    }
#pragma unroll
    for (int i = 0; i < 8; ++i) s_acc[j][threadIdx.x * 8 + i] = acc[j][i];
  }
  __syncthreads();
  const int64_t first = (b * p.n_heads + h0) * p.splits + split;  // partial index of query head h0
  float* partial_ml = partial;
  float* partial_acc = partial + 2 * p.splits * p.n_heads * gridDim.z;
  for (int idx = threadIdx.x; idx < nh * p.head_dim; idx += kAttnThreads) {
    const int j = static_cast<int>(idx / p.head_dim), d = static_cast<int>(idx % p.head_dim);
    float M = -INFINITY;
    for (int tm = 0; tm < teams; ++tm) M = fmaxf(M, s_m[j][tm]);
    const float m_use = M == -INFINITY ? 0.0f : M;
    float L = 0.0f, A = 0.0f;
    for (int tm = 0; tm < teams; ++tm) {
      const float w = exp2f(s_m[j][tm] - m_use);
      L = fmaf(s_l[j][tm], w, L);
      A = fmaf(s_acc[j][tm * p.head_dim + d], w, A);
    }
    const int64_t part = first + static_cast<int64_t>(j) * p.splits;
    partial_acc[part * p.head_dim + d] = A;
    if (d == 0) {
      partial_ml[2 * part] = M;
      partial_ml[2 * part + 1] = L;
    }
  }
}

// Merge the splits of one (sequence, query head): block = head_dim threads.
__global__ void attention_merge_kernel(int64_t splits, int64_t head_dim, int64_t heads_total,
                                       const float* __restrict__ partial, uint16_t* __restrict__ out) {
  const int64_t bh = blockIdx.x, d = threadIdx.x;
  const float* ml = partial + 2 * bh * splits;
  const float* acc = partial + 2 * splits * heads_total + bh * splits * head_dim;
  float M = -INFINITY;
  for (int64_t s = 0; s < splits; ++s) M = fmaxf(M, ml[2 * s]);
  float L = 0.0f, A = 0.0f;
  for (int64_t s = 0; s < splits; ++s) {
    const float w = exp2f(ml[2 * s] - M);
    L = fmaf(ml[2 * s + 1], w, L);
    A = fmaf(acc[s * head_dim + d], w, A);
  }
  out[bh * head_dim + d] = float_to_bf16(A / L);
}

void check_head_dim(int64_t head_dim) {
  if (head_dim != 8 && head_dim != 16 && head_dim != 32 && head_dim != 64 && head_dim != 128 && head_dim != 256)
    throw_error("attention_decode_cuda: head_dim %lld is not supported (8, 16, 32, 64, 128 or 256)",
                static_cast<long long>(head_dim));
}

}  // namespace
}  // namespace cuda

uint64_t attention_cuda_workspace_bytes(const AttentionShape& shape, int64_t batch) {
  attention_shape_check(shape);
  const cuda::AttentionPlan plan = cuda::attention_plan(shape, batch);
  return static_cast<uint64_t>(batch * shape.n_heads * plan.splits * (shape.head_dim + 2)) * sizeof(float);
}

void attention_decode_cuda(const KvFormat& format, const AttentionShape& shape, int64_t batch, const uint16_t* q,
                           const uint8_t* k_anchor, const uint8_t* k_residual, const uint8_t* v_anchor,
                           const uint8_t* v_residual, uint16_t* out, void* workspace, void* stream_handle) {
  using namespace cuda;
  attention_shape_check(shape);
  check_head_dim(shape.head_dim);
  if (batch <= 0) return;
  const KvShape kv = shape.kv();
  const AttentionPlan plan = attention_plan(shape, batch);
  AttentionParams p;
  p.k = kv_layout(format, KvRole::key, kv, k_residual != nullptr);
  p.v = kv_layout(format, KvRole::value, kv, v_residual != nullptr);
  p.tokens = shape.tokens;
  p.n_heads = shape.n_heads;
  p.head_dim = shape.head_dim;
  p.group = static_cast<int>(shape.group());
  p.q_chunks = plan.q_chunks;
  p.splits = plan.splits;
  p.tokens_per_split = plan.tokens_per_split;
  const KvStreamBytes kb = kv_stream_bytes(format, KvRole::key, kv), vb = kv_stream_bytes(format, KvRole::value, kv);
  p.k_anchor_stride = kb.anchor;
  p.k_residual_stride = kb.residual;
  p.v_anchor_stride = vb.anchor;
  p.v_residual_stride = vb.residual;
  p.score_scale = static_cast<float>(1.4426950408889634 / std::sqrt(static_cast<double>(shape.head_dim)));

  const cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
  float* partial = static_cast<float*>(workspace);
  if (batch > 65535) throw_error("attention_decode_cuda: batch %lld exceeds 65535", static_cast<long long>(batch));
  const dim3 grid(static_cast<unsigned>(plan.splits), static_cast<unsigned>(shape.kv_heads * plan.q_chunks),
                  static_cast<unsigned>(batch));
  switch (plan.max_group) {
    case 1: attention_split_kernel<1><<<grid, kAttnThreads, 0, stream>>>(p, q, k_anchor, k_residual, v_anchor, v_residual, partial); break;
    case 2: attention_split_kernel<2><<<grid, kAttnThreads, 0, stream>>>(p, q, k_anchor, k_residual, v_anchor, v_residual, partial); break;
    case 4: attention_split_kernel<4><<<grid, kAttnThreads, 0, stream>>>(p, q, k_anchor, k_residual, v_anchor, v_residual, partial); break;
    default: attention_split_kernel<8><<<grid, kAttnThreads, 0, stream>>>(p, q, k_anchor, k_residual, v_anchor, v_residual, partial); break;
  }
  cuda_check(cudaGetLastError(), "attention_decode_cuda");
  attention_merge_kernel<<<static_cast<unsigned>(batch * shape.n_heads), static_cast<unsigned>(shape.head_dim), 0,
                           stream>>>(plan.splits, shape.head_dim, batch * shape.n_heads, partial, out);
  cuda_check(cudaGetLastError(), "attention_decode_cuda");
}

}  // namespace lynx
