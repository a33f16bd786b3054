// Test data for the CUDA-vs-CPU comparisons: bf16 tensors (as GPUs hold KV) and the same values as floats for the
// CPU reference, of a few kinds that stress the quantizers (signed zeros, constant groups, outliers, ties).
#pragma once
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/scalar_types.hpp"

namespace lynx::test {

enum class Data { normal, signed_zeros, constant, outliers, integers };

struct Bf16Tensor {
  std::vector<uint16_t> bits;  // what the GPU gets
  std::vector<float> values;   // the same values, for the CPU reference
};

inline Bf16Tensor make_bf16(size_t n, Data kind, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> pick(0, 7);
  Bf16Tensor t;
  t.bits.resize(n);
  t.values.resize(n);
  for (size_t i = 0; i < n; ++i) {
    float x = 0;
    switch (kind) {
      case Data::normal: x = scale * normal(rng); break;
      case Data::signed_zeros: {
        const float choices[] = {0.0f, -0.0f, 0.0f, -0.0f, 1.5f, -2.0f, 0.25f, -0.0f};
        x = choices[pick(rng)];
        break;
      }
      case Data::constant: x = (i / 64) % 2 ? -0.0f : 0.75f; break;
      case Data::outliers: x = (i % 97 == 5) ? 3000.0f : 0.01f * normal(rng); break;
      case Data::integers: x = static_cast<float>(pick(rng) - 3); break;
    }
    t.bits[i] = float_to_bf16(x);
    t.values[i] = bf16_to_float(t.bits[i]);
  }
  return t;
}

}  // namespace lynx::test
