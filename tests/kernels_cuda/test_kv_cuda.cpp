// CUDA encode and decode against the CPU reference codec, on a grid of shapes (tokens 1..4096, kv_heads 1 and 8,
// head_dim 64 and 128) and formats (group sizes 32, 64, 128, and odd ones): the GPU's streams must equal the CPU's
// byte for byte (the CPU encoding the same bf16 values as floats), nothing may be written past them, and the GPU's
// bf16 decode must equal the CPU's float decode rounded to bf16, full and anchor-only.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/kv_cuda.hpp"
#include "kernels/kv_codec.hpp"
#include "kernels/scalar_types.hpp"
#include "tests/kernels_cuda/cuda_test_data.hpp"

using namespace lynx;
using lynx::test::Data;

namespace {

constexpr size_t kGuard = 64;  // bytes after each stream that must stay untouched

struct Case {
  std::string format;
  KvRole role;
  KvShape shape;
  Data data;
};

void check_case(const Case& c, uint32_t seed) {
  const KvFormat f = kv_format_parse(c.format);
  const KvStreamBytes bytes = kv_stream_bytes(f, c.role, c.shape);
  const size_t n = static_cast<size_t>(c.shape.elements());
  const test::Bf16Tensor x = test::make_bf16(n, c.data, seed);
  CAPTURE(c.format);
  CAPTURE(c.role == KvRole::key ? "key" : "value");
  CAPTURE(c.shape.tokens);
  CAPTURE(c.shape.kv_heads);
  CAPTURE(c.shape.head_dim);
  CAPTURE(static_cast<int>(c.data));

  // CPU reference
  std::vector<uint8_t> anchor(bytes.anchor), residual(bytes.residual);
  kv_encode(f, c.role, c.shape, x.values.data(), anchor.data(), residual.data());

  // GPU
  DeviceBuffer input(n * 2), d_anchor(bytes.anchor + kGuard), d_residual(bytes.residual + kGuard), d_out(n * 2);
  input.upload(x.bits.data(), n * 2);
  d_anchor.fill(0xAB);
  d_residual.fill(0xAB);
  kv_encode_cuda(f, c.role, c.shape, static_cast<const uint16_t*>(input.data()), d_anchor.bytes(),
                 bytes.residual ? d_residual.bytes() : nullptr);
  cuda_synchronize("kv_encode_cuda");
  std::vector<uint8_t> g_anchor(bytes.anchor + kGuard), g_residual(bytes.residual + kGuard);
  d_anchor.download(g_anchor.data(), g_anchor.size());
  d_residual.download(g_residual.data(), g_residual.size());
  REQUIRE(std::memcmp(g_anchor.data(), anchor.data(), bytes.anchor) == 0);
  REQUIRE(std::memcmp(g_residual.data(), residual.data(), bytes.residual) == 0);
  for (size_t i = 0; i < kGuard; ++i) {
    REQUIRE(g_anchor[bytes.anchor + i] == 0xAB);
    REQUIRE(g_residual[bytes.residual + i] == 0xAB);
  }

  // Decode the (identical) streams, full and anchor-only.
  for (bool full : {true, false}) {
    if (!full && f.residual_bits == 0) continue;
    CAPTURE(full);
    std::vector<float> expected(n);
    kv_decode(f, c.role, c.shape, anchor.data(), full ? residual.data() : nullptr, expected.data());
    kv_decode_cuda(f, c.role, c.shape, d_anchor.bytes(), full ? d_residual.bytes() : nullptr,
                   static_cast<uint16_t*>(d_out.data()));
    cuda_synchronize("kv_decode_cuda");
    std::vector<uint16_t> got(n);
    d_out.download(got.data(), n * 2);
    for (size_t i = 0; i < n; ++i) {
      CAPTURE(i);
      REQUIRE(got[i] == float_to_bf16(expected[i]));
    }
  }
}

const std::vector<std::string> kMainFormats = {
    "bf16",          "fp8-e4m3",         "int8-g32",      "int8-g64",         "int8-g128",      "int4-g32",
    "int4-g64",      "int4-g128",        "kivi2-g32",     "kivi2-g64",        "kivi2-g128",     "lynx-a4r4-g32",
    "lynx-a4r4-g64", "lynx-a4r4-g128",   "lynx-a4r4-g32-rq", "lynx-a4r4-g64-rq", "lynx-a4r4-g128-rq"};
const std::vector<std::string> kOtherFormats = {"fp32",          "int2-g32",          "int3-g64",      "int5-g24",
                                                "int8-g512",     "kivi4-g64",         "kivi3-g16",     "lynx-a2r6-g64",
                                                "lynx-a3r5-g32-rq", "lynx-a1r1-g8",   "lynx-a5r3-g40", "lynx-a2r2-g1024-rq"};

}  // namespace

TEST_CASE("CUDA encode and decode equal the CPU codec on the grid of shapes and group sizes") {
  const int64_t tokens[] = {1, 7, 64, 100, 1000, 4096};
  uint32_t seed = 1;
  for (const auto& format : kMainFormats)
    for (int64_t t : tokens)
      for (int64_t heads : {1, 8})
        for (int64_t dim : {64, 128})
          for (KvRole role : {KvRole::key, KvRole::value}) check_case({format, role, {t, heads, dim}, Data::normal}, seed++);
}

TEST_CASE("CUDA encode and decode equal the CPU codec on other widths, odd group sizes and short rows") {
  const KvShape shapes[] = {{1, 1, 8}, {33, 1, 64}, {70, 2, 40}, {130, 8, 128}, {9, 3, 24}};
  uint32_t seed = 1000;
  for (const auto& format : kOtherFormats)
    for (const KvShape& s : shapes)
      for (KvRole role : {KvRole::key, KvRole::value}) check_case({format, role, s, Data::normal}, seed++);
}

TEST_CASE("CUDA encode equals the CPU codec on signed zeros, constant groups, outliers and rounding ties") {
  const Data kinds[] = {Data::signed_zeros, Data::constant, Data::outliers, Data::integers};
  uint32_t seed = 5000;
  for (const auto& format : kMainFormats)
    for (Data kind : kinds)
      for (KvRole role : {KvRole::key, KvRole::value}) check_case({format, role, {96, 8, 64}, kind}, seed++);
}
