#include "sim/transfer/kernel_costs.hpp"

#include <cstdio>
#include <filesystem>

#include "common/data_folder.hpp"

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
  // Memory-bound attention: time in proportion to the bytes it reads per element, bf16's being 2.
  k.attention_full_relative = (anchor_bytes + residual_bytes) / 2.0;
  k.attention_anchor_relative = anchor_bytes / 2.0;
  return k;
}

}  // namespace lynx

namespace lynx {

KernelCosts kernel_costs_from_table(const CostTable& table, const KvFormat& format, int tensor_parallel) {
  KernelCosts k;
  k.source = table.origin + (table.measured ? " (measured on " + table.device + ", " + table.date + ")"
                                            : " (derived, not measured: " + table.device + ")");
  k.file = table.origin;
  k.device = table.device;
  k.measured = table.measured;
  if (format.kind == KvFormatKind::bf16) return k;  // the GPU holds bf16: nothing to convert
  const double gpus = static_cast<double>(tensor_parallel);
  const double bf16_attention = table.elements_per_s("attention_full", "bf16");
  k.attention_full_relative = bf16_attention / table.elements_per_s("attention_full", format.name);
  k.attention_anchor_relative =
      format.residual_bits > 0 ? bf16_attention / table.elements_per_s("attention_anchor", format.name)
                               : k.attention_full_relative;
  k.encode_elements_per_s = table.elements_per_s("encode", format.name) * gpus;
  k.decode_full_elements_per_s = table.elements_per_s("decode_full", format.name) * gpus;
  k.decode_anchor_elements_per_s =
      format.residual_bits > 0 ? table.elements_per_s("decode_anchor", format.name) * gpus : k.decode_full_elements_per_s;
  // A table without this exact format lends the entry of the same kind and bits with the nearest group size: said.
  std::string borrowed;
  for (const auto& name : kernel_names()) {
    const KernelCost* used = kernel_applies(name, format.name) ? table.find(name, format.name) : nullptr;
    if (used != nullptr && used->format != format.name && borrowed.find(used->format) == std::string::npos)
      borrowed += (borrowed.empty() ? "" : ", ") + used->format;
  }
  if (!borrowed.empty()) k.source += "; no " + format.name + " entry: the costs of " + borrowed + " used";
  return k;
}

std::string default_cost_table_path(const GpuSpec& gpu) {
  const std::string device = gpu.name.substr(0, gpu.name.find('-'));
  const std::string path = project_dir() + "/kernels/costs/" + device + ".json";
  return std::filesystem::exists(path) ? path : "";
}

}  // namespace lynx
