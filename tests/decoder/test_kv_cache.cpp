// The decoder's KV cache: appending token by token through the codec gives exactly the values of encoding the whole
// tensor (per-row formats and KIVI, whose key groups close as they fill), fp8 keeps one scale per append, Lynx rows
// read anchor-only below the set boundary and full above, and truncation rolls back exactly.
#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <vector>

#include "common/error.hpp"
#include "kernels/kv_codec.hpp"
#include "models/decoder/kv_cache.hpp"

using namespace lynx;

namespace {

constexpr int64_t kHeads = 4, kHeadDim = 8, kRow = kHeads * kHeadDim;

std::vector<float> random_rows(int64_t tokens, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.5f);
  std::vector<float> x(static_cast<size_t>(tokens * kRow));
  for (float& v : x) v = normal(rng);
  return x;
}

// kv_decode(kv_encode(x)) of the whole tensor.
std::vector<float> whole_tensor(const KvFormat& f, KvRole role, const std::vector<float>& x, bool full) {
  KvShape shape{static_cast<int64_t>(x.size()) / kRow, kHeads, kHeadDim};
  KvStreamBytes b = kv_stream_bytes(f, role, shape);
  std::vector<uint8_t> anchor(b.anchor), residual(b.residual + 1);
  kv_encode(f, role, shape, x.data(), anchor.data(), residual.data());
  std::vector<float> y(x.size());
  kv_decode(f, role, shape, anchor.data(), full ? residual.data() : nullptr, y.data());
  return y;
}

bool same_rows(const float* a, const std::vector<float>& b, int64_t first, int64_t count) {
  return std::memcmp(a + first * kRow, b.data() + first * kRow, static_cast<size_t>(count * kRow) * sizeof(float)) ==
         0;
}

}  // namespace

TEST_CASE("token-by-token appends equal the whole-tensor codec for per-row formats and KIVI") {
  const int64_t tokens = 77;  // not a multiple of KIVI's 32: an open key group at the end
  const std::vector<float> k = random_rows(tokens, 1), v = random_rows(tokens, 2);
  for (const char* name : {"fp32", "bf16", "int8-g64", "int4-g16", "int3-g8", "kivi2-g32", "kivi4-g16",
                           "lynx-a4r4-g64", "lynx-a2r6-g8", "lynx-a4r4-g64-rq", "lynx-a3r3-g16-rq"}) {
    CAPTURE(name);
    const KvFormat f = kv_format_parse(name);
    KvCache cache(f, 1, kHeads, kHeadDim);
    for (int64_t t = 0; t < tokens; ++t) cache.append(0, 1, &k[static_cast<size_t>(t * kRow)],
                                                     &v[static_cast<size_t>(t * kRow)]);
    CHECK(cache.tokens() == tokens);
    CHECK(same_rows(cache.keys(0), whole_tensor(f, KvRole::key, k, true), 0, tokens));
    CHECK(same_rows(cache.values(0), whole_tensor(f, KvRole::value, v, true), 0, tokens));
    // Appending in blocks gives the same as one at a time.
    KvCache blocks(f, 1, kHeads, kHeadDim);
    blocks.append(0, 40, k.data(), v.data());
    blocks.append(0, tokens - 40, &k[40 * kRow], &v[40 * kRow]);
    CHECK(same_rows(blocks.keys(0), whole_tensor(f, KvRole::key, k, true), 0, tokens));
  }
}

TEST_CASE("fp8 keeps one per-tensor scale per append: a prefill block as sent, each decode step its own") {
  const std::vector<float> k = random_rows(20, 3), v = random_rows(20, 4);
  const KvFormat f = kv_format_parse("fp8-e4m3");
  KvCache cache(f, 1, kHeads, kHeadDim);
  cache.append(0, 16, k.data(), v.data());
  cache.append(0, 1, &k[16 * kRow], &v[16 * kRow]);
  std::vector<float> block(k.begin(), k.begin() + 16 * kRow), one(k.begin() + 16 * kRow, k.begin() + 17 * kRow);
  CHECK(same_rows(cache.keys(0), whole_tensor(f, KvRole::key, block, true), 0, 16));
  CHECK(std::memcmp(cache.keys(0) + 16 * kRow, whole_tensor(f, KvRole::key, one, true).data(),
                    kRow * sizeof(float)) == 0);
  cache.truncate(10);  // rolling back inside a block keeps the block's scale
  CHECK(same_rows(cache.keys(0), whole_tensor(f, KvRole::key, block, true), 0, 10));
}

TEST_CASE("Lynx rows read anchor-only below the boundary, full above, and switch when the residual arrives") {
  const std::vector<float> k = random_rows(30, 5), v = random_rows(30, 6);
  for (const char* name : {"lynx-a4r4-g64", "lynx-a4r4-g64-rq", "lynx-a2r6-g16"}) {
    CAPTURE(name);
    const KvFormat f = kv_format_parse(name);
    const std::vector<float> full = whole_tensor(f, KvRole::key, k, true);
    const std::vector<float> anchor = whole_tensor(f, KvRole::key, k, false);
    CHECK(full != anchor);
    KvCache cache(f, 2, kHeads, kHeadDim);
    for (int l = 0; l < 2; ++l) cache.append(l, 20, k.data(), v.data());
    cache.set_anchor_only(20);
    for (int l = 0; l < 2; ++l) cache.append(l, 10, &k[20 * kRow], &v[20 * kRow]);  // the decode node's own rows
    CHECK(same_rows(cache.keys(1), anchor, 0, 20));
    CHECK(same_rows(cache.keys(1), full, 20, 10));
    cache.set_anchor_only(0);
    CHECK(same_rows(cache.keys(1), full, 0, 30));
    cache.set_anchor_only(KvCache::kAllTokens);  // every row, also rows appended later
    cache.truncate(25);
    for (int l = 0; l < 2; ++l) cache.append(l, 5, &k[25 * kRow], &v[25 * kRow]);
    CHECK(same_rows(cache.keys(0), anchor, 0, 30));
    CHECK(same_rows(cache.values(0), whole_tensor(f, KvRole::value, v, false), 0, 30));
  }
}

TEST_CASE("truncation rolls back exactly, KIVI keys cannot go back inside a quantized group") {
  const std::vector<float> k = random_rows(70, 7), v = random_rows(70, 8);
  for (const char* name : {"int4-g64", "lynx-a4r4-g64", "kivi2-g32"}) {
    CAPTURE(name);
    const KvFormat f = kv_format_parse(name);
    KvCache cache(f, 1, kHeads, kHeadDim);
    cache.append(0, 50, k.data(), v.data());
    cache.truncate(32);
    cache.append(0, 38, &k[32 * kRow], &v[32 * kRow]);
    CHECK(cache.tokens() == 70);
    CHECK(same_rows(cache.keys(0), whole_tensor(f, KvRole::key, k, true), 0, 70));
    CHECK(same_rows(cache.values(0), whole_tensor(f, KvRole::value, v, true), 0, 70));
  }
  KvCache kivi(kv_format_parse("kivi2-g32"), 1, kHeads, kHeadDim);
  kivi.append(0, 40, k.data(), v.data());
  CHECK_NOTHROW(kivi.truncate(35));  // inside the open group: its rows are still fp16
  CHECK_THROWS_WITH_AS(kivi.truncate(20), doctest::Contains("inside a group of 32 keys that is already quantized"),
                       LynxError);
  CHECK_THROWS_AS(kivi.truncate(99), LynxError);
}
