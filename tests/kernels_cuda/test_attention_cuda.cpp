// CUDA decode attention against the CPU reference (attention_reference), on a grid of shapes (tokens 1..4096,
// kv_heads 1 and 8, head_dim 64 and 128, 1 and 4 query heads per KV head, two sequences per launch) for bf16, fp8,
// int8, int4, KIVI-2 and Lynx (anchor-only and full), group sizes 32/64/128. Both read the same encoded streams.
// Tolerance: the bf16 rounding of the output (2^-8 relative) plus 2e-5 of max|V| for float accumulation, tight
// enough that dropping one token of 4096 fails.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/attention_reference.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/kv_cuda.hpp"
#include "kernels/kv_codec.hpp"
#include "kernels/scalar_types.hpp"
#include "tests/kernels_cuda/cuda_test_data.hpp"

using namespace lynx;
using lynx::test::Data;

namespace {

void check_attention(const std::string& name, const AttentionShape& shape, int64_t batch, float q_scale,
                     uint32_t seed) {
  const KvFormat f = kv_format_parse(name);
  const KvShape kv = shape.kv();
  const size_t n = static_cast<size_t>(kv.elements()), qn = static_cast<size_t>(shape.n_heads * shape.head_dim);
  const KvStreamBytes kb = kv_stream_bytes(f, KvRole::key, kv), vb = kv_stream_bytes(f, KvRole::value, kv);
  CAPTURE(name);
  CAPTURE(shape.tokens);
  CAPTURE(shape.kv_heads);
  CAPTURE(shape.n_heads);
  CAPTURE(shape.head_dim);
  CAPTURE(q_scale);

  std::vector<uint8_t> ka(kb.anchor * batch), kr(kb.residual * batch), va(vb.anchor * batch), vr(vb.residual * batch);
  std::vector<test::Bf16Tensor> qs;
  float v_max = 0;
  for (int64_t b = 0; b < batch; ++b) {
    const test::Bf16Tensor k = test::make_bf16(n, Data::normal, seed + 10 * static_cast<uint32_t>(b));
    const test::Bf16Tensor v = test::make_bf16(n, Data::normal, seed + 10 * static_cast<uint32_t>(b) + 1);
    qs.push_back(test::make_bf16(qn, Data::normal, seed + 10 * static_cast<uint32_t>(b) + 2, q_scale));
    for (float x : v.values) v_max = std::max(v_max, std::fabs(x));
    kv_encode(f, KvRole::key, kv, k.values.data(), ka.data() + b * kb.anchor, kr.data() + b * kb.residual);
    kv_encode(f, KvRole::value, kv, v.values.data(), va.data() + b * vb.anchor, vr.data() + b * vb.residual);
  }
  DeviceBuffer d_ka(ka.size()), d_kr(kr.size()), d_va(va.size()), d_vr(vr.size()), d_q(batch * qn * 2),
      d_out(batch * qn * 2), workspace(attention_cuda_workspace_bytes(shape, batch));
  d_ka.upload(ka.data(), ka.size());
  d_kr.upload(kr.data(), kr.size());
  d_va.upload(va.data(), va.size());
  d_vr.upload(vr.data(), vr.size());
  std::vector<uint16_t> q_bits;
  for (const auto& q : qs) q_bits.insert(q_bits.end(), q.bits.begin(), q.bits.end());
  d_q.upload(q_bits.data(), q_bits.size() * 2);

  for (bool full : {true, false}) {
    if (!full && f.residual_bits == 0) continue;
    CAPTURE(full);
    attention_decode_cuda(f, shape, batch, static_cast<const uint16_t*>(d_q.data()), d_ka.bytes(),
                          full ? d_kr.bytes() : nullptr, d_va.bytes(), full ? d_vr.bytes() : nullptr,
                          static_cast<uint16_t*>(d_out.data()), workspace.data());
    cuda_synchronize("attention_decode_cuda");
    std::vector<uint16_t> got(batch * qn);
    d_out.download(got.data(), got.size() * 2);
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<float> expected(qn);
      attention_reference(f, shape, qs[b].values.data(), ka.data() + b * kb.anchor,
                          full ? kr.data() + b * kb.residual : nullptr, va.data() + b * vb.anchor,
                          full ? vr.data() + b * vb.residual : nullptr, expected.data());
      for (size_t i = 0; i < qn; ++i) {
        const float g = bf16_to_float(got[b * qn + i]);
        CAPTURE(b);
        CAPTURE(i);
        CAPTURE(g);
        CAPTURE(expected[i]);
        REQUIRE(std::fabs(g - expected[i]) <= std::fabs(expected[i]) * 0.00390625f + 2e-5f * v_max);
      }
    }
  }
}

}  // namespace

TEST_CASE("CUDA attention agrees with the CPU reference on the grid of shapes, formats and group sizes") {
  const std::vector<std::string> formats = {
      "bf16",          "fp8-e4m3",      "int8-g64",       "int4-g32",         "int4-g64",          "int4-g128",
      "kivi2-g32",     "kivi2-g64",     "kivi2-g128",     "lynx-a4r4-g32",    "lynx-a4r4-g64",     "lynx-a4r4-g128",
      "lynx-a4r4-g64-rq", "lynx-a4r4-g128-rq", "fp32"};
  const int64_t tokens[] = {1, 7, 64, 100, 1000, 4096};
  uint32_t seed = 1;
  for (const auto& format : formats)
    for (int64_t t : tokens)
      for (int64_t heads : {1, 8})
        for (int64_t dim : {64, 128})
          for (int64_t group : {1, 4}) {
            const AttentionShape shape{t, heads, heads * group, dim};
            check_attention(format, shape, 2, (seed % 3 == 0) ? 6.0f : 1.0f, seed);
            seed += 100;
          }
}

TEST_CASE("CUDA attention handles 8 and more query heads per KV head, and other head sizes") {
  const AttentionShape shapes[] = {{300, 2, 16, 64}, {257, 1, 12, 128}, {50, 4, 4 * 3, 32}, {129, 2, 2, 256}};
  uint32_t seed = 77;
  for (const auto& s : shapes)
    for (const char* format : {"bf16", "int4-g32", "lynx-a4r4-g64", "kivi2-g32"}) check_attention(format, s, 3, 2.0f, seed++);
}
