// Round trips of every KV format on random and adversarial data, with each element's error checked against the
// quantization step of its own group, read back from the encoded stream's metadata.
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "common/error.hpp"
#include "kernels/kv_codec.hpp"
#include "kernels/scalar_types.hpp"

using namespace lynx;

namespace {

struct Encoded {
  std::vector<uint8_t> anchor, residual;
};

Encoded encode(const KvFormat& f, KvRole role, const KvShape& s, const std::vector<float>& x) {
  KvStreamBytes b = kv_stream_bytes(f, role, s);
  Encoded e{std::vector<uint8_t>(b.anchor + 1, 0xAB), std::vector<uint8_t>(b.residual + 1, 0xAB)};
  kv_encode(f, role, s, x.data(), e.anchor.data(), e.residual.data());
  CHECK(e.anchor.back() == 0xAB);  // nothing written past the stream's size
  CHECK(e.residual.back() == 0xAB);
  return e;
}

std::vector<float> decode(const KvFormat& f, KvRole role, const KvShape& s, const Encoded& e, bool full) {
  std::vector<float> y(static_cast<size_t>(s.elements()));
  kv_decode(f, role, s, e.anchor.data(), full ? e.residual.data() : nullptr, y.data());
  return y;
}

float meta_half(const uint8_t* p) { return half_to_float(static_cast<uint16_t>(p[0] | (p[1] << 8))); }

// Scale and zero point of element i's group, read from the anchor stream.
void group_of(const KvFormat& f, KvRole role, const KvShape& s, const Encoded& e, int64_t i, float& scale,
              float& zero, bool& tail_fp16) {
  const int64_t row = s.row_elements(), t = i / row, c = i % row;
  tail_fp16 = false;
  if (f.kind == KvFormatKind::kivi && role == KvRole::key) {
    int64_t groups = kivi_key_full_token_groups(f, s);
    if (t >= groups * f.group_size) {
      tail_fp16 = true;
      return;
    }
    const uint8_t* meta = e.anchor.data() + groups * f.group_size * kv_packed_row_bytes(row, f.anchor_bits);
    const uint8_t* m = meta + ((t / f.group_size) * row + c) * kGroupMetaBytes;
    scale = meta_half(m);
    zero = meta_half(m + 2);
    return;
  }
  const uint8_t* m = e.anchor.data() + kv_grouped_meta_offset(f, s) +
                     (t * kv_groups_per_row(s, f.group_size) + c / f.group_size) * kGroupMetaBytes;
  scale = meta_half(m);
  zero = meta_half(m + 2);
}

// Float rounding allowance for a reconstruction zero + code*scale near x.
float float_slack(float x, float zero, float scale, int levels) {
  return 4 * FLT_EPSILON * (std::fabs(x) + std::fabs(zero) + static_cast<float>(levels) * scale);
}

float ulp_half(float x) {
  float a = std::fabs(x);
  if (a < std::ldexp(1.0f, -14)) return std::ldexp(1.0f, -24);
  return std::ldexp(1.0f, static_cast<int>(std::floor(std::log2(a))) - 10);
}

// Checks every element's error against the format's bound; returns the number of elements checked.
void check_round_trip(const KvFormat& f, KvRole role, const KvShape& s, const std::vector<float>& x) {
  Encoded e = encode(f, role, s, x);
  std::vector<float> full = decode(f, role, s, e, true);
  std::vector<float> anchor_only = decode(f, role, s, e, false);
  const int64_t n = s.elements();
  for (int64_t i = 0; i < n; ++i) {
    CAPTURE(f.name);
    CAPTURE(i);
    CAPTURE(x[i]);
    const float xi = x[i];
    switch (f.kind) {
      case KvFormatKind::fp32:
        REQUIRE(full[i] == xi);
        break;
      case KvFormatKind::bf16: {
        float ulp = std::ldexp(1.0f, static_cast<int>(std::floor(std::log2(std::fabs(xi) + 1e-38f))) - 7);
        REQUIRE(std::fabs(full[i] - xi) <= ulp / 2);
        break;
      }
      case KvFormatKind::fp8_e4m3: {
        float scale;
        std::memcpy(&scale, e.anchor.data(), 4);
        float v = std::fabs(xi / scale);
        float step = v < 0.015625f ? 0.001953125f : std::ldexp(1.0f, static_cast<int>(std::floor(std::log2(v))) - 3);
        REQUIRE(std::fabs(full[i] - xi) <= scale * step / 2 * (1 + 1e-5f) + 1e-30f);
        break;
      }
      default: {
        float scale = 0, zero = 0;
        bool tail = false;
        group_of(f, role, s, e, i, scale, zero, tail);
        if (tail) {
          REQUIRE(std::fabs(full[i] - xi) <= ulp_half(xi) / 2);
          break;
        }
        const int levels = 1 << (f.anchor_bits + f.residual_bits);
        const float slack = float_slack(xi, zero, scale, levels);
        if (f.kind != KvFormatKind::lynx) {
          REQUIRE(std::fabs(full[i] - xi) <= scale / 2 + slack);
          REQUIRE(anchor_only[i] == full[i]);
        } else if (f.split == LynxSplit::bit_slice) {
          // scale is the (A+R)-bit step; the anchor's step is scale * 2^R.
          REQUIRE(std::fabs(full[i] - xi) <= scale / 2 + slack);
          REQUIRE(std::fabs(anchor_only[i] - xi) <= scale * static_cast<float>(1 << f.residual_bits) / 2 + slack);
        } else {
          // scale is the anchor's step; the residual's step is scale / 2^R.
          REQUIRE(std::fabs(anchor_only[i] - xi) <= scale / 2 + slack);
          REQUIRE(std::fabs(full[i] - xi) <= scale / static_cast<float>(1 << (f.residual_bits + 1)) + slack);
        }
      }
    }
  }
}

enum class Data { normal, constant_groups, outlier, large, tiny, mixed_scales, zeros };

std::vector<float> make_data(Data kind, const KvShape& s, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(static_cast<size_t>(s.elements()));
  for (size_t i = 0; i < x.size(); ++i) {
    switch (kind) {
      case Data::normal: x[i] = normal(rng); break;
      case Data::constant_groups: x[i] = 0.3f + static_cast<float>((i / 32) % 3); break;
      case Data::outlier: x[i] = (i % 32 == 5) ? 900.0f * (i % 64 == 5 ? -1.0f : 1.0f) : 0.01f * normal(rng); break;
      case Data::large: x[i] = 30000.0f * normal(rng) / 4.0f; break;
      case Data::tiny: x[i] = 1e-6f * normal(rng); break;
      case Data::mixed_scales: x[i] = normal(rng) * std::ldexp(1.0f, static_cast<int>(i % 17) - 8); break;
      case Data::zeros: x[i] = 0.0f; break;
    }
  }
  return x;
}

const char* kFormats[] = {"fp32",          "bf16",          "fp8-e4m3",     "int8-g32",          "int8-g64",
                          "int4-g64",      "int4-g128",     "int3-g32",     "int2-g8",           "kivi2-g32",
                          "kivi4-g64",     "lynx-a4r4-g64", "lynx-a4r4-g32-rq", "lynx-a3r5-g32", "lynx-a2r6-g128-rq",
                          "lynx-a5r3-g64", "lynx-a1r1-g8"};
const KvShape kShapes[] = {{1, 1, 8}, {7, 4, 8}, {33, 1, 128}, {64, 8, 64}, {70, 2, 40}};

}  // namespace

TEST_CASE("every format round-trips every kind of data within half a step of its group") {
  const Data kinds[] = {Data::normal, Data::constant_groups, Data::outlier, Data::large,
                        Data::tiny,   Data::mixed_scales,    Data::zeros};
  uint32_t seed = 1;
  for (const char* name : kFormats) {
    KvFormat f = kv_format_parse(name);
    for (const KvShape& s : kShapes)
      for (Data kind : kinds)
        for (KvRole role : {KvRole::key, KvRole::value}) check_round_trip(f, role, s, make_data(kind, s, seed++));
  }
}

TEST_CASE("bit-slice anchor+residual decodes to exactly the (A+R)-bit code's value") {
  const std::pair<const char*, const char*> pairs[] = {
      {"lynx-a4r4-g64", "int8-g64"}, {"lynx-a3r5-g32", "int8-g32"}, {"lynx-a2r2-g16", "int4-g16"}};
  for (auto [lynx_name, int_name] : pairs) {
    KvFormat lynx = kv_format_parse(lynx_name), plain = kv_format_parse(int_name);
    KvShape s{37, 4, 32};
    std::vector<float> x = make_data(Data::normal, s, 99);
    std::vector<float> a = decode(lynx, KvRole::key, s, encode(lynx, KvRole::key, s, x), true);
    std::vector<float> b = decode(plain, KvRole::key, s, encode(plain, KvRole::key, s, x), true);
    CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
  }
}

TEST_CASE("residual-quant anchor equals plain RTN at A bits") {
  KvFormat lynx = kv_format_parse("lynx-a4r4-g64-rq"), int4 = kv_format_parse("int4-g64");
  KvShape s{20, 8, 64};
  std::vector<float> x = make_data(Data::normal, s, 5);
  Encoded le = encode(lynx, KvRole::value, s, x), ie = encode(int4, KvRole::value, s, x);
  CHECK(le.anchor == ie.anchor);  // identical bytes: the anchor is a proper int4-g64 stream
  std::vector<float> a = decode(lynx, KvRole::value, s, le, false), b = decode(int4, KvRole::value, s, ie, true);
  CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

TEST_CASE("the anchor-only error shrinks by 2^R once the residual arrives (mean over random data)") {
  for (const char* name : {"lynx-a4r4-g64", "lynx-a4r4-g64-rq"}) {
    KvFormat f = kv_format_parse(name);
    KvShape s{256, 8, 128};
    std::vector<float> x = make_data(Data::normal, s, 11);
    Encoded e = encode(f, KvRole::key, s, x);
    std::vector<float> full = decode(f, KvRole::key, s, e, true), anchor = decode(f, KvRole::key, s, e, false);
    double err_full = 0, err_anchor = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      err_full += std::fabs(full[i] - x[i]);
      err_anchor += std::fabs(anchor[i] - x[i]);
    }
    CAPTURE(name);
    CHECK(err_anchor / err_full > 10.0);  // ideal ratio 16 for R = 4
    CHECK(err_anchor / err_full < 20.0);
  }
}

TEST_CASE("NaN, infinity and values beyond the fp16 metadata range are clear errors") {
  KvShape s{4, 2, 8};
  for (const char* name : kFormats) {
    KvFormat f = kv_format_parse(name);
    for (float bad : {NAN, INFINITY, -INFINITY}) {
      std::vector<float> x(static_cast<size_t>(s.elements()), 1.0f);
      x[21] = bad;
      KvStreamBytes b = kv_stream_bytes(f, KvRole::value, s);
      std::vector<uint8_t> anchor(b.anchor), residual(b.residual + 1);
      CAPTURE(name);
      CHECK_THROWS_WITH_AS(kv_encode(f, KvRole::value, s, x.data(), anchor.data(), residual.data()),
                           doctest::Contains("element (token 1, head 0, dim 5)"), LynxError);
    }
  }
  KvFormat f = kv_format_parse("int8-g64");
  std::vector<float> x(static_cast<size_t>(s.elements()), 1.0f);
  x[3] = 1e5f;
  std::vector<uint8_t> anchor(kv_stream_bytes(f, KvRole::key, s).anchor);
  CHECK_THROWS_WITH_AS(kv_encode(f, KvRole::key, s, x.data(), anchor.data(), nullptr),
                       doctest::Contains("fp16 metadata range"), LynxError);
}
