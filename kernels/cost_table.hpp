// The kernel cost table the simulator reads (kernels/costs/<device>.json): for each kernel and KV format, how many
// KV elements per second the device processes, measured by `lynxsim bench-kernels` (or, until a device was
// measured, derived from its datasheet bandwidth and saying so in its own fields). The simulator charges a kernel
// time = elements / elements_per_s, where elements counts the K and V elements the kernel touches
// (tokens x kv_heads x head_dim for each of K and V).
//
// Kernels: encode (quantize and split one layer's K and V into the wire streams, on the prefill GPU),
// decode_full / decode_anchor (dequantize back, with or without the Lynx residual, on the decode GPU),
// attention_full / attention_anchor (decode attention of one query token over the cache in that format, with the
// dequantization fused in). The *_anchor kernels exist for formats with a residual (Lynx) only.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace lynx {

struct KernelCost {
  std::string kernel;                    // one of kernel_names()
  std::string format;                    // KV format registry name
  double input_bytes_per_s = 0;          // bytes the kernel reads per second (its KV input: the source tensor for
                                         // encode, the streams otherwise)
  double elements_per_s = 0;             // K and V elements per second: what the simulator uses
  double ratio_to_copy = 0;              // input_bytes_per_s / copy_bytes_per_s
  double traffic_bytes_per_s = 0;        // bytes read + written per second (0 when not recorded)
  double traffic_ratio_to_copy = 0;      // traffic_bytes_per_s / (2 * copy_bytes_per_s): the fraction of the copy's
                                         // memory bandwidth the kernel sustains
  double input_bytes_per_element = 0;    // bytes read per K/V element
  double output_bytes_per_element = 0;   // bytes written per K/V element
  double median_s = 0;                   // median time of one run (0 when derived)
  int64_t elements = 0;                  // K and V elements per run (0 when derived)
};

struct CostTable {
  std::string device;                    // e.g. "AMD EPYC (1 thread)", "NVIDIA H200"
  std::string device_kind;               // "cpu" or "cuda"
  bool measured = false;                 // false: derived from a datasheet, see derived_from
  std::string derived_from;              // only when measured is false
  std::string date;                      // YYYY-MM-DD
  double copy_bytes_per_s = 0;           // bytes copied per second by memcpy (CPU) or a device-to-device copy (GPU)
  std::string source_type;               // element type of encode's input and decode's output: "float32" or "bf16"
  std::string timer;                     // how runs were timed
  int64_t repeats = 0, warmup = 0;       // timed runs (median taken) and untimed runs before them
  int64_t tokens = 0, kv_heads = 0, n_heads = 0, head_dim = 0, batch = 0;  // the benchmark's problem shape
  std::vector<KernelCost> kernels;
  std::string origin;                    // the file it was read from ("" when built in memory)

  // The entry for `kernel` and `format_name`, by this rule: (1) the exact format; (2) for *_anchor of a format
  // without a residual, its *_full entry (the two are the same kernel); (3) the entry of the same kernel whose
  // format has the same kind, bits and split, with the nearest group size (the larger on a tie). Else null.
  const KernelCost* find(const std::string& kernel, const std::string& format_name) const;
  // find(...)->elements_per_s; throws LynxError naming the table, the kernel and the formats it has.
  double elements_per_s(const std::string& kernel, const std::string& format_name) const;
};

// "encode", "decode_full", "decode_anchor", "attention_full", "attention_anchor".
const std::vector<std::string>& kernel_names();
// Whether a complete table has an entry of `kernel` for `format_name` (the *_anchor kernels: Lynx formats only).
bool kernel_applies(const std::string& kernel, const std::string& format_name);

// Reads and validates a table; errors name the file and the JSON path ($.kernels[3].elements_per_s).
CostTable load_cost_table(const std::string& path);
// The same from the file's text already read (`path` names it in errors), so that a caller that also hashes the
// file reads it once.
CostTable cost_table_parse(const std::string& text, const std::string& path);
// The table as JSON (the format load_cost_table reads), and written atomically.
std::string cost_table_json(const CostTable& table);
void save_cost_table(const CostTable& table, const std::string& path);

// Throws LynxError naming what is missing unless every kernel that applies is present for every format in
// `formats` with positive figures, and copy_bytes_per_s is positive.
void cost_table_check_complete(const CostTable& table, const std::vector<std::string>& formats);

}  // namespace lynx
