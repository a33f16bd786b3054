// The CPU reference decode attention on cases whose answer is known without it: one token, identical keys, GQA's
// head mapping, an independent float computation, and the equality of Lynx bit-slice (full) with int8 attention.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "common/error.hpp"
#include "kernels/attention_reference.hpp"
#include "kernels/kv_codec.hpp"

using namespace lynx;

namespace {

struct Cache {
  std::vector<uint8_t> ka, kr, va, vr;
};

Cache encode(const KvFormat& f, const KvShape& s, const std::vector<float>& k, const std::vector<float>& v) {
  const KvStreamBytes kb = kv_stream_bytes(f, KvRole::key, s), vb = kv_stream_bytes(f, KvRole::value, s);
  Cache c{std::vector<uint8_t>(kb.anchor), std::vector<uint8_t>(kb.residual + 1), std::vector<uint8_t>(vb.anchor),
          std::vector<uint8_t>(vb.residual + 1)};
  kv_encode(f, KvRole::key, s, k.data(), c.ka.data(), c.kr.data());
  kv_encode(f, KvRole::value, s, v.data(), c.va.data(), c.vr.data());
  return c;
}

std::vector<float> attend(const KvFormat& f, const AttentionShape& a, const std::vector<float>& q, const Cache& c,
                          bool full = true) {
  std::vector<float> out(static_cast<size_t>(a.n_heads * a.head_dim));
  attention_reference(f, a, q.data(), c.ka.data(), full ? c.kr.data() : nullptr, c.va.data(),
                      full ? c.vr.data() : nullptr, out.data());
  return out;
}

std::vector<float> normal_values(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(n);
  for (auto& v : x) v = normal(rng);
  return x;
}

}  // namespace

TEST_CASE("attention over one token returns that token's V row in every query head") {
  const KvFormat f = kv_format_parse("fp32");
  const AttentionShape a{1, 2, 6, 16};
  const std::vector<float> k = normal_values(32, 1), v = normal_values(32, 2), q = normal_values(96, 3);
  const std::vector<float> out = attend(f, a, q, encode(f, a.kv(), k, v));
  for (int64_t h = 0; h < 6; ++h)
    for (int64_t d = 0; d < 16; ++d) CHECK(out[h * 16 + d] == doctest::Approx(v[(h / 3) * 16 + d]).epsilon(1e-6));
}

TEST_CASE("identical keys give every token the same weight: the mean of V, per KV head (GQA mapping)") {
  const KvFormat f = kv_format_parse("fp32");
  const AttentionShape a{50, 4, 8, 8};
  const KvShape s = a.kv();
  std::vector<float> k(static_cast<size_t>(s.elements())), v(k.size());
  for (int64_t t = 0; t < 50; ++t)
    for (int64_t h = 0; h < 4; ++h)
      for (int64_t d = 0; d < 8; ++d) {
        k[(t * 4 + h) * 8 + d] = 0.1f * static_cast<float>(d + h);
        v[(t * 4 + h) * 8 + d] = static_cast<float>(100 * h + t);  // the mean over t is 100h + 24.5
      }
  const std::vector<float> out = attend(f, a, normal_values(64, 4), encode(f, s, k, v));
  for (int64_t h = 0; h < 8; ++h)
    for (int64_t d = 0; d < 8; ++d) CHECK(out[h * 8 + d] == doctest::Approx(100.0 * static_cast<double>(h / 2) + 24.5).epsilon(1e-6));
}

TEST_CASE("the reference equals a direct float softmax attention on random data") {
  const KvFormat f = kv_format_parse("fp32");
  const AttentionShape a{300, 2, 8, 32};
  const KvShape s = a.kv();
  const std::vector<float> k = normal_values(static_cast<size_t>(s.elements()), 5),
                           v = normal_values(static_cast<size_t>(s.elements()), 6), q = normal_values(256, 7);
  const std::vector<float> out = attend(f, a, q, encode(f, s, k, v));
  for (int64_t h = 0; h < 8; ++h) {
    const int64_t g = h / 4;
    std::vector<float> w(300);
    float max_score = -1e30f, sum = 0;
    for (int64_t t = 0; t < 300; ++t) {
      float dot = 0;
      for (int64_t d = 0; d < 32; ++d) dot += q[h * 32 + d] * k[(t * 2 + g) * 32 + d];
      w[t] = dot / std::sqrt(32.0f);
      max_score = std::max(max_score, w[t]);
    }
    for (auto& x : w) sum += (x = std::exp(x - max_score));
    for (int64_t d = 0; d < 32; ++d) {
      float acc = 0;
      for (int64_t t = 0; t < 300; ++t) acc += w[t] * v[(t * 2 + g) * 32 + d];
      CHECK(out[h * 32 + d] == doctest::Approx(acc / sum).epsilon(1e-4));
    }
  }
}

TEST_CASE("Lynx bit-slice attention with its residual equals int8 attention, anchor-only differs") {
  const AttentionShape a{200, 2, 4, 64};
  const KvShape s = a.kv();
  const std::vector<float> k = normal_values(static_cast<size_t>(s.elements()), 8),
                           v = normal_values(static_cast<size_t>(s.elements()), 9), q = normal_values(256, 10);
  const KvFormat lynx = kv_format_parse("lynx-a4r4-g64"), int8 = kv_format_parse("int8-g64");
  const Cache lc = encode(lynx, s, k, v);
  const std::vector<float> full = attend(lynx, a, q, lc), anchor = attend(lynx, a, q, lc, false);
  CHECK(full == attend(int8, a, q, encode(int8, s, k, v)));
  CHECK(full != anchor);
}

TEST_CASE("attention rejects a shape whose query heads are not a multiple of the KV heads") {
  const KvFormat f = kv_format_parse("bf16");
  std::vector<uint8_t> bytes(1024);
  std::vector<float> q(64), out(64);
  CHECK_THROWS_WITH_AS(attention_reference(f, {4, 3, 4, 8}, q.data(), bytes.data(), nullptr, bytes.data(), nullptr,
                                           out.data()),
                       doctest::Contains("n_heads a multiple of kv_heads"), LynxError);
}
