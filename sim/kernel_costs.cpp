#include "sim/kernel_costs.hpp"

#include <cstdio>

namespace lynx {

KernelCosts kernel_costs_roofline(const GpuSpec& gpu, const KvFormat& format, int tensor_parallel) {
  KernelCosts k;
  char text[160];
  std::snprintf(text, sizeof text, "roofline default (%s HBM %.0f GB/s x %.2f, bf16 in/out + wire bytes)",
                gpu.name.c_str(), gpu.hbm_gb_per_s, gpu.memory_efficiency);
  k.source = text;
  if (format.kind == KvFormatKind::bf16) return k;
  const double bandwidth = gpu.hbm_gb_per_s * 1e9 * gpu.memory_efficiency * tensor_parallel;
  const double metadata_bits = format.is_grouped() ? 8.0 * kGroupMetaBytes / format.group_size : 0.0;
  const double anchor_bytes = (format.anchor_bits + metadata_bits) / 8.0;
  const double residual_bytes = format.residual_bits / 8.0;
  k.encode_elements_per_s = bandwidth / (2.0 + anchor_bytes + residual_bytes);
  k.decode_full_elements_per_s = bandwidth / (anchor_bytes + residual_bytes + 2.0);
  k.decode_anchor_elements_per_s = bandwidth / (anchor_bytes + 2.0);
  return k;
}

}  // namespace lynx
