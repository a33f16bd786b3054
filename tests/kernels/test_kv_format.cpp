#include <doctest/doctest.h>

#include "common/error.hpp"
#include "kernels/kv_format.hpp"

using namespace lynx;

TEST_CASE("format names parse into their parameters") {
  KvFormat f = kv_format_parse("lynx-a4r4-g64");
  CHECK(f.kind == KvFormatKind::lynx);
  CHECK(f.anchor_bits == 4);
  CHECK(f.residual_bits == 4);
  CHECK(f.group_size == 64);
  CHECK(f.split == LynxSplit::bit_slice);
  CHECK(kv_format_parse("lynx-a3r5-g32-rq").split == LynxSplit::residual_quant);
  CHECK(kv_format_parse("int4-g128").kind == KvFormatKind::int_group);
  CHECK(kv_format_parse("kivi2-g32").kind == KvFormatKind::kivi);
  CHECK(kv_format_parse("fp8-e4m3").anchor_bits == 8);
  for (const auto& name : kv_format_default_names()) CHECK(kv_format_parse(name).name == name);
}

TEST_CASE("bad format names are one clear error") {
  const char* bad[] = {"int9-g64", "int4-g0", "int4-g12", "lynx-a5r4-g64", "lynx-a0r4-g64", "kivi1-g32",
                       "bf15", "", "int4-g64x", "lynx-a4r4-g64-bs"};
  for (const char* name : bad) {
    CAPTURE(name);
    CHECK_THROWS_AS(kv_format_parse(name), LynxError);
  }
  CHECK_THROWS_WITH_AS(kv_format_parse("int9-g64"),
                       doctest::Contains("unknown KV format \"int9-g64\" (integer bits must be 2..8)"), LynxError);
}

TEST_CASE("exact stream bytes per format: one Llama-3.1-8B layer's K, 1000 tokens (8 kv heads x 128)") {
  KvShape s{1000, 8, 128};  // 1024 elements per token
  auto bytes = [&](const char* name, KvRole role = KvRole::value) { return kv_stream_bytes(kv_format_parse(name), role, s); };
  CHECK(bytes("fp32").anchor == 1000u * 1024 * 4);
  CHECK(bytes("bf16").anchor == 1000u * 1024 * 2);
  CHECK(bytes("bf16").residual == 0);
  CHECK(bytes("fp8-e4m3").anchor == 4 + 1000u * 1024);
  CHECK(bytes("int8-g64").anchor == 1000u * (1024 + 16 * 4));     // 8.5 bits/element
  CHECK(bytes("int8-g128").anchor == 1000u * (1024 + 8 * 4));     // 8.25 bits/element
  CHECK(bytes("int4-g64").anchor == 1000u * (512 + 16 * 4));      // 4.5 bits/element
  CHECK(bytes("int4-g32").anchor == 1000u * (512 + 32 * 4));      // 5 bits/element
  CHECK(bytes("int3-g32").anchor == 1000u * (384 + 32 * 4));
  KvStreamBytes lynx = bytes("lynx-a4r4-g64");
  CHECK(lynx.anchor == 1000u * (512 + 16 * 4));
  CHECK(lynx.residual == 1000u * 512);
  CHECK(lynx.total() == bytes("int8-g64").anchor);                // same total as int8
  CHECK(bytes("lynx-a4r4-g64-rq").anchor == lynx.anchor);
  KvStreamBytes a3r5 = bytes("lynx-a3r5-g32");
  CHECK(a3r5.anchor == 1000u * (384 + 32 * 4));
  CHECK(a3r5.residual == 1000u * 640);
  // KIVI values: per token, like int2-g32.
  CHECK(bytes("kivi2-g32", KvRole::value).anchor == 1000u * (256 + 32 * 4));
  // KIVI keys: 31 full groups of 32 tokens (992 tokens) quantized per channel, 8 tokens left in fp16.
  CHECK(bytes("kivi2-g32", KvRole::key).anchor == 992u * 256 + 31u * 1024 * 4 + 8u * 1024 * 2);
}

TEST_CASE("rows that are not a multiple of the group size end with a short group, odd bit widths pad rows") {
  KvShape s{3, 4, 8};  // stories260K: 32 elements per token
  CHECK(kv_stream_bytes(kv_format_parse("int8-g64"), KvRole::key, s).anchor == 3u * (32 + 4));
  CHECK(kv_stream_bytes(kv_format_parse("int4-g24"), KvRole::key, s).anchor == 3u * (16 + 2 * 4));
  KvShape odd{2, 1, 5};  // 5 elements x 3 bits = 15 bits -> 2 bytes per row
  CHECK(kv_packed_row_bytes(5, 3) == 2);
  CHECK(kv_stream_bytes(kv_format_parse("lynx-a3r5-g8"), KvRole::key, odd).anchor == 2u * (2 + 4));
  CHECK(kv_stream_bytes(kv_format_parse("lynx-a3r5-g8"), KvRole::key, odd).residual == 2u * 4);
}
