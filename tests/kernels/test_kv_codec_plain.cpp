// The optimised CPU codec against the foundation's plain one (kv_codec_plain.cpp): the same bytes on the wire and
// the same floats back, bit for bit, for every format, shape and kind of data, signed zeros and NaN included.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "kernels/codec_loops.hpp"
#include "kernels/kv_codec.hpp"
#include "kernels/scalar_types.hpp"
#include "tests/kernels/kv_codec_plain.hpp"

// Its own namespace: in a unity build (CMAKE_UNITY_BUILD, the Makefile's sanitized and fuzz builds) another test
// file's helpers of the same names would share its scope.
namespace test_kv_codec_plain {

using namespace lynx;

namespace {

bool same_bits(float a, float b) { return float_bits(a) == float_bits(b); }

// Every float whose bit pattern is a multiple of `stride`, plus the neighbours of the interesting boundaries.
std::vector<float> float_samples(uint32_t stride) {
  std::vector<float> v;
  for (uint64_t u = 0; u <= 0xFFFFFFFFull; u += stride) v.push_back(float_from_bits(static_cast<uint32_t>(u)));
  const float edges[] = {0.0f,     65504.0f, 65520.0f,  6.103515625e-05f, 5.9604644775390625e-08f, 448.0f, 464.0f,
                         0.015625f, 0.001953125f, 1.0f, 3.3895313892515355e38f};
  for (float e : edges)
    for (int d = -64; d <= 64; ++d) {
      v.push_back(float_from_bits(float_bits(e) + static_cast<uint32_t>(d)));
      v.push_back(-float_from_bits(float_bits(e) + static_cast<uint32_t>(d)));
    }
  return v;
}

enum class Data { normal, signed_zeros, integers, outlier, tiny, constant };

std::vector<float> make_data(Data kind, const KvShape& s, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> pick(0, 5);
  std::vector<float> x(static_cast<size_t>(s.elements()));
  for (size_t i = 0; i < x.size(); ++i) {
    switch (kind) {
      case Data::normal: x[i] = normal(rng); break;
      case Data::signed_zeros: {
        const float choices[] = {0.0f, -0.0f, 0.0f, -0.0f, 1.5f, -2.0f};
        x[i] = choices[pick(rng)];
        break;
      }
      case Data::integers: x[i] = static_cast<float>(pick(rng) - 2); break;  // ties in the rounding
      case Data::outlier: x[i] = (i % 37 == 3) ? 3000.0f : 0.01f * normal(rng); break;
      case Data::tiny: x[i] = 1e-7f * normal(rng); break;
      case Data::constant: x[i] = -0.0f; break;
    }
  }
  return x;
}

void check_same(const std::string& name, KvRole role, const KvShape& s, const std::vector<float>& x) {
  const KvFormat f = kv_format_parse(name);
  const KvStreamBytes b = kv_stream_bytes(f, role, s);
  std::vector<uint8_t> a1(b.anchor + 1, 0x5A), r1(b.residual + 1, 0x5A), a2(b.anchor + 1, 0x5A), r2(b.residual + 1, 0x5A);
  kv_encode(f, role, s, x.data(), a1.data(), r1.data());
  plain::kv_encode(f, role, s, x.data(), a2.data(), r2.data());
  CAPTURE(name);
  CAPTURE(s.tokens);
  CAPTURE(s.kv_heads);
  CAPTURE(s.head_dim);
  REQUIRE(a1 == a2);
  REQUIRE(r1 == r2);
  for (bool full : {true, false}) {
    std::vector<float> y1(x.size()), y2(x.size());
    kv_decode(f, role, s, a1.data(), full ? r1.data() : nullptr, y1.data());
    plain::kv_decode(f, role, s, a2.data(), full ? r2.data() : nullptr, y2.data());
    REQUIRE(std::memcmp(y1.data(), y2.data(), y1.size() * sizeof(float)) == 0);
  }
}

}  // namespace

TEST_CASE("scalar conversions equal the plain versions on a sweep of every float range") {
  for (float f : float_samples(4099)) {
    if (std::isnan(f)) continue;
    CAPTURE(f);
    if (std::isfinite(f)) REQUIRE(float_to_fp8_e4m3(f) == plain::float_to_fp8_e4m3(f));
    REQUIRE(float_to_half(f) == plain::float_to_half(f));
  }
  for (int b = 0; b < 256; ++b) {
    float a = fp8_e4m3_to_float(static_cast<uint8_t>(b)), p = plain::fp8_e4m3_to_float(static_cast<uint8_t>(b));
    if ((b & 0x7F) == 0x7F) continue;  // NaN codes
    REQUIRE(same_bits(a, p));
  }
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float a = half_to_float(static_cast<uint16_t>(h)), p = plain::half_to_float(static_cast<uint16_t>(h));
    REQUIRE((same_bits(a, p) || (std::isnan(a) && std::isnan(p))));
  }
}

TEST_CASE("SWAR packing equals bit-by-bit packing for every width") {
  std::mt19937 rng(3);
  for (int bits = 1; bits <= 8; ++bits) {
    for (int trial = 0; trial < 200; ++trial) {
      uint64_t codes = 0, expected = 0;
      for (int j = 0; j < 8; ++j) {
        uint64_t c = rng() & ((1u << bits) - 1);
        codes |= c << (8 * j);
        expected |= c << (bits * j);
      }
      CAPTURE(bits);
      REQUIRE(pack8_codes(codes, bits) == expected);
      REQUIRE(unpack8_codes(expected, bits) == codes);
    }
  }
}

TEST_CASE("the optimised codec writes the plain codec's bytes and decodes to its floats") {
  const char* formats[] = {"fp32",          "bf16",          "fp8-e4m3",          "int8-g32",      "int8-g64",
                           "int4-g64",      "int4-g128",     "int3-g32",          "int2-g8",       "int5-g24",
                           "kivi2-g32",     "kivi4-g64",     "kivi3-g16",         "lynx-a4r4-g64", "lynx-a4r4-g32-rq",
                           "lynx-a3r5-g32", "lynx-a2r6-g128-rq", "lynx-a5r3-g64", "lynx-a1r1-g8",  "lynx-a2r2-g40",
                           "lynx-a4r3-g64-rq", "lynx-a1r7-g8-rq"};
  const KvShape shapes[] = {{1, 1, 8}, {7, 4, 8}, {33, 1, 128}, {64, 8, 64}, {70, 2, 40}, {5, 3, 12}, {9, 1, 3}};
  const Data kinds[] = {Data::normal, Data::signed_zeros, Data::integers, Data::outlier, Data::tiny, Data::constant};
  uint32_t seed = 7;
  for (const char* name : formats)
    for (const KvShape& s : shapes)
      for (Data kind : kinds)
        for (KvRole role : {KvRole::key, KvRole::value}) check_same(name, role, s, make_data(kind, s, seed++));
}

TEST_CASE("the optimised codec names the same bad element as the plain codec") {
  const KvShape s{6, 2, 16};
  for (const char* name : {"fp32", "bf16", "fp8-e4m3", "int4-g64", "kivi2-g8", "lynx-a4r4-g16"}) {
    const KvFormat f = kv_format_parse(name);
    for (KvRole role : {KvRole::key, KvRole::value}) {
      for (float bad : {NAN, INFINITY, 1e5f, 3.39e38f}) {
        std::vector<float> x(static_cast<size_t>(s.elements()), 0.5f);
        x[77] = bad;
        x[150] = NAN;
        const KvStreamBytes b = kv_stream_bytes(f, role, s);
        std::vector<uint8_t> anchor(b.anchor), residual(b.residual + 1);
        std::string fast, slow;
        try {
          kv_encode(f, role, s, x.data(), anchor.data(), residual.data());
        } catch (const LynxError& e) {
          fast = e.what();
        }
        try {
          plain::kv_encode(f, role, s, x.data(), anchor.data(), residual.data());
        } catch (const LynxError& e) {
          slow = e.what();
        }
        CAPTURE(name);
        CHECK(fast == slow);
      }
    }
  }
}

TEST_CASE("each vector inner loop (SSE2, and AVX2 where the CPU has it) equals its scalar definition") {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> pick(0, 9);
  const float scales[] = {1.0f, 1e-6f, 3e-8f, 1000.0f, 60000.0f, 0.0f};
  for (int trial = 0; trial < 3000; ++trial) {
    const int64_t n = 1 + static_cast<int64_t>(rng() % 80);
    std::vector<float> x(static_cast<size_t>(n));
    const float s = scales[trial % 6];
    for (auto& v : x) {
      const int p = pick(rng);
      v = p == 0 ? 0.0f : p == 1 ? -0.0f : s * normal(rng);
      if (std::fabs(v) > 65504.0f) v = 65504.0f;
    }
    CAPTURE(trial);
    float lo1 = 0, hi1 = 0, lo2 = 0, hi2 = 0;
    REQUIRE(codec_loops::min_max(x.data(), n, kHalfMax, lo1, hi1));
    REQUIRE(codec_loops::min_max_scalar(x.data(), n, kHalfMax, lo2, hi2));
    REQUIRE(same_bits(lo1, lo2));
    REQUIRE(same_bits(hi1, hi2));
    for (int bits : {1, 2, 4, 8}) {
      const int levels = 1 << bits;
      uint8_t m1[4], m2[4];
      float z1, s1, i1, z2, s2, i2;
      codec_loops::group_params(&lo1, &hi1, 1, levels, m1, &z1, &s1, &i1);
      codec_loops::group_params_scalar(&lo1, &hi1, 1, levels, m2, &z2, &s2, &i2);
      REQUIRE(std::memcmp(m1, m2, 4) == 0);
      const float top = static_cast<float>(levels - 1);
      std::vector<uint8_t> h1(x.size()), l1(x.size()), h2(x.size()), l2(x.size());
      codec_loops::quantize(x.data(), n, z1, i1, top, bits > 1 ? 1 : 0, h1.data(), l1.data());
      codec_loops::quantize_scalar(x.data(), n, z1, i1, top, bits > 1 ? 1 : 0, h2.data(), l2.data());
      REQUIRE(h1 == h2);
      REQUIRE(l1 == l2);
      codec_loops::quantize_sse2(x.data(), n, z1, i1, top, bits > 1 ? 1 : 0, h1.data(), l1.data());
      REQUIRE(h1 == h2);
      REQUIRE(l1 == l2);
      if (codec_loops::has_avx2()) {
        codec_loops::quantize_avx2(x.data(), n, z1, i1, top, bits > 1 ? 1 : 0, h1.data(), l1.data());
        REQUIRE(h1 == h2);
        REQUIRE(l1 == l2);
      }
      const int rbits = 1 + trial % 7;
      codec_loops::quantize_rq(x.data(), n, z1, s1, i1, top, rbits, h1.data(), l1.data());
      codec_loops::quantize_rq_scalar(x.data(), n, z1, s1, i1, top, rbits, h2.data(), l2.data());
      REQUIRE(h1 == h2);
      REQUIRE(l1 == l2);
      codec_loops::quantize_rq_sse2(x.data(), n, z1, s1, i1, top, rbits, h1.data(), l1.data());
      REQUIRE(h1 == h2);
      REQUIRE(l1 == l2);
      if (codec_loops::has_avx2()) {
        codec_loops::quantize_rq_avx2(x.data(), n, z1, s1, i1, top, rbits, h1.data(), l1.data());
        REQUIRE(h1 == h2);
        REQUIRE(l1 == l2);
      }
    }
    std::vector<uint8_t> b1(2 * x.size()), b2(2 * x.size());
    codec_loops::to_bf16(x.data(), n, b1.data());
    codec_loops::to_bf16_scalar(x.data(), n, b2.data());
    REQUIRE(b1 == b2);
    const float inverse = 1.0f / (s > 0 ? s : 1.0f) * static_cast<float>(pick(rng) + 1) * 30.0f;
    codec_loops::to_fp8(x.data(), n, inverse, b1.data());
    codec_loops::to_fp8_scalar(x.data(), n, inverse, b2.data());
    REQUIRE(b1 == b2);
    codec_loops::to_fp8_sse2(x.data(), n, inverse, b1.data());
    REQUIRE(b1 == b2);
    if (codec_loops::has_avx2()) {
      codec_loops::to_fp8_avx2(x.data(), n, inverse, b1.data());
      REQUIRE(b1 == b2);
    }
  }
}

TEST_CASE("SSE2 group parameters equal the scalar ones in 4-lane batches, subnormal and overflowing steps included") {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  const int count = 4001;
  std::vector<float> lo(count), hi(count);
  for (int g = 0; g < count; ++g) {
    const float magnitude = std::ldexp(1.0f, static_cast<int>(rng() % 42) - 26);  // 2^-26 .. 2^15
    float a = (unit(rng) * 2 - 1) * magnitude, b = (unit(rng) * 2 - 1) * magnitude;
    if (g % 7 == 0) a = b;
    if (g % 11 == 0) a = -65504.0f, b = 65504.0f;  // the 1-bit step overflows fp16
    if (g % 13 == 0) a = -0.0f;
    lo[g] = std::min(a, b);
    hi[g] = std::max(a, b);
  }
  for (int levels : {2, 4, 16, 256}) {
    std::vector<uint8_t> m1(4 * count), m2(4 * count);
    std::vector<float> z1(count), s1(count), i1(count), z2(count), s2(count), i2(count);
    codec_loops::group_params(lo.data(), hi.data(), count, levels, m1.data(), z1.data(), s1.data(), i1.data());
    codec_loops::group_params_scalar(lo.data(), hi.data(), count, levels, m2.data(), z2.data(), s2.data(), i2.data());
    CAPTURE(levels);
    REQUIRE(m1 == m2);
    for (int g = 0; g < count; ++g) {
      REQUIRE(same_bits(z1[g], z2[g]));
      REQUIRE(same_bits(i1[g], i2[g]));
    }
  }
}

TEST_CASE("SSE2 packing and unpacking equal the scalar forms for every width and length") {
  std::mt19937 rng(9);
  for (int bits = 1; bits <= 8; ++bits)
    for (int64_t count : {1, 7, 8, 15, 16, 17, 31, 32, 33, 64, 100, 1024}) {
      std::vector<uint8_t> codes(static_cast<size_t>(count));
      for (auto& c : codes) c = static_cast<uint8_t>(rng() & ((1u << bits) - 1));
      const size_t bytes = static_cast<size_t>((count * bits + 7) / 8);
      std::vector<uint8_t> a(bytes + 4, 0xEE), b(bytes + 4, 0xEE);
      codec_loops::pack_codes(codes.data(), count, bits, a.data());
      codec_loops::pack_codes_scalar(codes.data(), count, bits, b.data());
      CAPTURE(bits);
      CAPTURE(count);
      REQUIRE(a == b);
      std::vector<uint8_t> u1(codes.size() + 4, 0xEE), u2(codes.size() + 4, 0xEE);
      codec_loops::unpack_codes(a.data(), count, bits, u1.data());
      codec_loops::unpack_codes_scalar(a.data(), count, bits, u2.data());
      REQUIRE(u1 == u2);
      REQUIRE(std::equal(codes.begin(), codes.end(), u1.begin()));
    }
}

}  // namespace test_kv_codec_plain
