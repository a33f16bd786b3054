// Costs of the KV kernels on a serving instance: quantize/split on the prefill GPU (encode), and unpacking the
// received streams into the decode GPU's cache (decode_anchor for a Lynx anchor alone, decode_full otherwise).
// Rates are KV elements per second for the whole instance (the tensor-parallel GPUs each hold a slice of the
// heads). They come from a measured cost table (kernels/costs/<device>.json) or, without one, from a roofline:
// the kernel streams its input and output through HBM at the catalog's memory efficiency. bf16 needs no kernel.
#pragma once
#include <cstdint>
#include <string>

#include "kernels/cost_table.hpp"
#include "kernels/kv_format.hpp"
#include "models/arch/catalog.hpp"

namespace lynx {

struct KernelCosts {
  std::string source;                 // the table's path, or "roofline default (...)"
  std::string file;                   // the cost table read ("" for the roofline default)
  std::string file_sha256;            // its hash (set by simulation_inputs, which reads the file)
  std::string device;                 // the table's device ("" for the roofline default)
  bool measured = false;              // the table was measured on `device` (else derived from a datasheet)
  double encode_elements_per_s = 0;   // 0 = no kernel (free)
  double decode_full_elements_per_s = 0;
  double decode_anchor_elements_per_s = 0;
  // Decode attention over the cache in this format, as a multiple of bf16 attention's time per KV element
  // (attention_full / attention_anchor of the table against its bf16 attention_full; 1 for bf16).
  double attention_full_relative = 1;
  double attention_anchor_relative = 1;

  double encode_seconds(double elements) const { return rate_seconds(elements, encode_elements_per_s); }
  double decode_seconds(double elements, bool anchor_only) const {
    return rate_seconds(elements, anchor_only ? decode_anchor_elements_per_s : decode_full_elements_per_s);
  }

 private:
  static double rate_seconds(double elements, double rate) { return rate > 0 ? elements / rate : 0.0; }
};

// Roofline default for `format` on `tensor_parallel` GPUs of type `gpu`.
KernelCosts kernel_costs_roofline(const GpuSpec& gpu, const KvFormat& format, int tensor_parallel);
// From a cost table (kernels/cost_table.hpp, its lookup rule for formats it does not list exactly), the rates of one
// GPU times `tensor_parallel`.
KernelCosts kernel_costs_from_table(const CostTable& table, const KvFormat& format, int tensor_parallel);
// The shipped table of a catalog GPU: kernels/costs/<first word of its name>.json ("h200-sxm" -> h200.json), or "".
std::string default_cost_table_path(const GpuSpec& gpu);

}  // namespace lynx
