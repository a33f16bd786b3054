// The first, plain version of the CPU reference codecs and scalar conversions (kernels/kv_codec.cpp and
// kernels/scalar_types.hpp as the foundation wrote them: scalar loops, std::nearbyint, std::ldexp), kept verbatim as
// a test oracle. The optimised codec must produce the same bytes and the same floats on every input.
#pragma once
#include <cstdint>

#include "kernels/kv_format.hpp"

namespace lynx::plain {

void kv_encode(const KvFormat& format, KvRole role, const KvShape& shape, const float* input, uint8_t* anchor,
               uint8_t* residual);
void kv_decode(const KvFormat& format, KvRole role, const KvShape& shape, const uint8_t* anchor,
               const uint8_t* residual, float* output);
uint16_t float_to_half(float f);
float half_to_float(uint16_t h);
uint8_t float_to_fp8_e4m3(float v);
float fp8_e4m3_to_float(uint8_t b);

}  // namespace lynx::plain
