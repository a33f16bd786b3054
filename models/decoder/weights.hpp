// A weight matrix as the decoder reads it: a pointer into storage the model keeps alive (a memory-mapped
// safetensors file, or the fp32 floats of a llama2.c checkpoint) with its element type. fp32 matrices are read in
// place; bf16 and fp16 ones are converted to fp32 a block of rows at a time as a product uses them
// (weights_matvec), so a 16 GB bf16 checkpoint stays 16 GB of mapped file, never 32 GB of fp32. The conversions
// are exact (every bf16 and fp16 value is a float), so a product over a converted block has the same bits as the
// same product over the matrix converted whole: the summation order is decoder_kernels.hpp's either way.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/scalar_types.hpp"
#include "models/decoder/decoder_kernels.hpp"

namespace lynx {

enum class WeightDtype { f32, bf16, f16 };

const char* weight_dtype_name(WeightDtype dtype);  // "F32", "BF16", "F16" (safetensors' spelling)
int weight_dtype_bytes(WeightDtype dtype);

// [rows x cols], row-major, contiguous.
struct WeightMatrix {
  const void* data = nullptr;
  WeightDtype dtype = WeightDtype::f32;
  int64_t rows = 0, cols = 0;
  const float* f32() const { return static_cast<const float*>(data); }  // dtype f32 only
};

// Element i of `count` values of `dtype` at `data`, as fp32 (byte copies: no alignment needed).
inline void weights_to_f32(float* out, const void* data, WeightDtype dtype, int64_t begin, int64_t count) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  if (dtype == WeightDtype::f32) {
    std::memcpy(out, bytes + begin * 4, static_cast<size_t>(count) * 4);
    return;
  }
  for (int64_t i = 0; i < count; ++i) {
    uint16_t h;
    std::memcpy(&h, bytes + (begin + i) * 2, 2);
    out[i] = dtype == WeightDtype::bf16 ? bf16_to_float(h) : half_to_float(h);
  }
}

// Row `row` of `w` [cols] as fp32.
inline void weights_row(float* out, const WeightMatrix& w, int64_t row) {
  weights_to_f32(out, w.data, w.dtype, row * w.cols, w.cols);
}

// out[r] = dot(row r of w, x) for every row, through kernels.matvec; `scratch` holds converted rows.
void weights_matvec(const DecoderKernels& kernels, float* out, const WeightMatrix& w, const float* x,
                    std::vector<float>& scratch);

}  // namespace lynx
