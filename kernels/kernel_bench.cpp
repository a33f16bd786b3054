#include "kernels/kernel_bench.hpp"

#include <algorithm>
#include <cstring>
#include <ctime>
#include <fstream>
#include <random>

#include "common/error.hpp"
#include "kernels/attention_reference.hpp"
#include "kernels/kv_codec.hpp"
#include "kernels/kv_format.hpp"

namespace lynx {

std::vector<std::string> kernel_bench_default_formats() {
  return {"bf16",          "fp8-e4m3",         "int8-g64",      "int4-g32",         "int4-g64",
          "int4-g128",     "kivi2-g32",        "lynx-a4r4-g32", "lynx-a4r4-g32-rq", "lynx-a4r4-g64",
          "lynx-a4r4-g64-rq", "lynx-a4r4-g128", "lynx-a4r4-g128-rq"};
}

std::string today_utc() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", &utc);
  return text;
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

KernelCost kernel_cost(const std::string& kernel, const std::string& format, int64_t elements, double input_bytes,
                       double output_bytes, double median_s, double copy_bytes_per_s) {
  KernelCost k;
  k.kernel = kernel;
  k.format = format;
  k.elements = elements;
  k.median_s = median_s;
  k.input_bytes_per_s = input_bytes / median_s;
  k.elements_per_s = static_cast<double>(elements) / median_s;
  k.traffic_bytes_per_s = (input_bytes + output_bytes) / median_s;
  k.ratio_to_copy = k.input_bytes_per_s / copy_bytes_per_s;
  k.traffic_ratio_to_copy = k.traffic_bytes_per_s / (2 * copy_bytes_per_s);
  k.input_bytes_per_element = input_bytes / static_cast<double>(elements);
  k.output_bytes_per_element = output_bytes / static_cast<double>(elements);
  return k;
}

KernelBytes kernel_bytes(const std::string& kernel, const std::string& format_name, int64_t batch, int64_t tokens,
                         int64_t kv_heads, int64_t n_heads, int64_t head_dim, int source_bytes) {
  const KvFormat format = kv_format_parse(format_name);
  const bool attention = kernel.rfind("attention", 0) == 0;
  // encode and decode work on one tensor of batch * tokens per role; attention on batch sequences of `tokens`
  const KvShape shape{attention ? tokens : batch * tokens, kv_heads, head_dim};
  const double copies = attention ? static_cast<double>(batch) : 1.0;
  const KvStreamBytes k = kv_stream_bytes(format, KvRole::key, shape), v = kv_stream_bytes(format, KvRole::value, shape);
  const bool anchor_only = kernel == "decode_anchor" || kernel == "attention_anchor";
  const double streams = copies * static_cast<double>(anchor_only ? k.anchor + v.anchor : k.total() + v.total());
  const double source = copies * 2.0 * static_cast<double>(shape.elements()) * source_bytes;
  KernelBytes b;
  if (kernel == "encode") {
    b.input = source;
    b.output = streams;
  } else if (!attention) {
    b.input = streams;
    b.output = source;
  } else {
    const double q = static_cast<double>(batch * n_heads * head_dim * source_bytes);
    b.input = streams + q;
    b.output = q;
  }
  return b;
}

namespace {

double thread_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Median thread CPU time of `repeats` runs of `run`, after `warmup` untimed runs.
template <typename Run>
double time_median(int warmup, int repeats, Run&& run) {
  for (int i = 0; i < warmup; ++i) run();
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) {
    const double start = thread_seconds();
    run();
    times.push_back(thread_seconds() - start);
  }
  return std::max(median_of(times), 1e-9);
}

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(colon + 1);
        name.erase(0, name.find_first_not_of(" \t"));
        return name;
      }
    }
  return "unknown CPU";
}

struct Encoded {
  std::vector<uint8_t> k_anchor, k_residual, v_anchor, v_residual;
};

}  // namespace

CostTable kernel_bench_cpu(const KernelBenchOptions& options, FILE* progress) {
  const std::vector<std::string> formats = options.formats.empty() ? kernel_bench_default_formats() : options.formats;
  for (const auto& name : formats) kv_format_parse(name);
  const double kv_mib = options.kv_mib > 0 ? options.kv_mib : (options.quick ? 1.0 : 64.0);
  const int repeats = options.repeats > 0 ? options.repeats : (options.quick ? 2 : 5);
  const int warmup = options.warmup > 0 ? options.warmup : 1;

  CostTable table;
  table.device = cpu_model_name() + " (1 thread)";
  table.device_kind = "cpu";
  table.measured = true;
  table.date = today_utc();
  table.source_type = "float32";
  table.timer = "median thread CPU time (CLOCK_THREAD_CPUTIME_ID)";
  table.repeats = repeats;
  table.warmup = warmup;
  table.batch = 1;
  table.kv_heads = 8;
  table.head_dim = 128;
  table.n_heads = 32;
  const int64_t row = table.kv_heads * table.head_dim;
  table.tokens = std::max<int64_t>(1, static_cast<int64_t>(kv_mib * 1048576.0 / (2.0 * 4.0 * static_cast<double>(row))));
  const KvShape shape{table.tokens, table.kv_heads, table.head_dim};
  const AttentionShape attention{table.tokens, table.kv_heads, table.n_heads, table.head_dim};
  const size_t n = static_cast<size_t>(shape.elements());
  const int64_t elements = 2 * shape.elements();  // K and V

  std::mt19937 rng(20240611);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> k(n), v(n), out(n), q(static_cast<size_t>(table.n_heads * table.head_dim)),
      attention_out(q.size());
  for (auto& x : k) x = normal(rng);
  for (auto& x : v) x = normal(rng);
  for (auto& x : q) x = normal(rng);

  // The copy: the same bytes as the K and V source tensors, one memcpy each.
  std::vector<float> copy_k(n), copy_v(n);
  const double copy_s = time_median(warmup, repeats, [&] {
    std::memcpy(copy_k.data(), k.data(), n * sizeof(float));
    std::memcpy(copy_v.data(), v.data(), n * sizeof(float));
  });
  table.copy_bytes_per_s = 2.0 * static_cast<double>(n * sizeof(float)) / copy_s;
  if (progress)
    std::fprintf(progress, "bench-kernels: cpu, %lld tokens x %lld kv_heads x %lld head_dim (K and V: %.0f MiB of float), "
                 "memcpy %.2f GB/s\n", static_cast<long long>(table.tokens), static_cast<long long>(table.kv_heads),
                 static_cast<long long>(table.head_dim), kv_mib, table.copy_bytes_per_s / 1e9);
  copy_k = {};
  copy_v = {};

  for (const auto& name : formats) {
    const KvFormat format = kv_format_parse(name);
    const bool lynx = format.residual_bits > 0;
    const KvStreamBytes kb = kv_stream_bytes(format, KvRole::key, shape), vb = kv_stream_bytes(format, KvRole::value, shape);
    Encoded e{std::vector<uint8_t>(kb.anchor), std::vector<uint8_t>(kb.residual), std::vector<uint8_t>(vb.anchor),
              std::vector<uint8_t>(vb.residual)};
    auto add = [&](const std::string& kernel, double seconds) {
      const KernelBytes bytes = kernel_bytes(kernel, name, 1, table.tokens, table.kv_heads, table.n_heads,
                                             table.head_dim, 4);
      table.kernels.push_back(kernel_cost(kernel, name, elements, bytes.input, bytes.output, seconds,
                                          table.copy_bytes_per_s));
      if (progress) {
        const KernelCost& c = table.kernels.back();
        std::fprintf(progress, "  %-17s %-16s %9.3f ms  %7.3f GB/s in  ratio %.3f\n", name.c_str(), kernel.c_str(),
                     seconds * 1e3, c.input_bytes_per_s / 1e9, c.ratio_to_copy);
      }
    };
    add("encode", time_median(warmup, repeats, [&] {
          kv_encode(format, KvRole::key, shape, k.data(), e.k_anchor.data(), e.k_residual.data());
          kv_encode(format, KvRole::value, shape, v.data(), e.v_anchor.data(), e.v_residual.data());
        }));
    for (bool full : {true, false}) {
      if (!full && !lynx) continue;
      const uint8_t* kr = full ? e.k_residual.data() : nullptr;
      const uint8_t* vr = full ? e.v_residual.data() : nullptr;
      add(full ? "decode_full" : "decode_anchor", time_median(warmup, repeats, [&] {
            kv_decode(format, KvRole::key, shape, e.k_anchor.data(), kr, out.data());
            kv_decode(format, KvRole::value, shape, e.v_anchor.data(), vr, out.data());
          }));
      add(full ? "attention_full" : "attention_anchor", time_median(warmup, repeats, [&] {
            attention_reference(format, attention, q.data(), e.k_anchor.data(), kr, e.v_anchor.data(), vr,
                                attention_out.data());
          }));
    }
  }
  return table;
}

CostTable cost_table_from_datasheet(const std::string& device, double hbm_bytes_per_s, double copy_efficiency,
                                    double kernel_efficiency, const std::vector<std::string>& formats) {
  if (!(hbm_bytes_per_s > 0) || !(copy_efficiency > 0) || !(kernel_efficiency > 0))
    throw_error("datasheet cost table: the bandwidth and the efficiencies must be positive");
  CostTable table;
  table.device = device;
  table.device_kind = "cuda";
  table.measured = false;
  char text[512];
  std::snprintf(text, sizeof text,
                "not measured: the datasheet's memory bandwidth %.3g B/s; a device-to-device copy assumed to move "
                "%.2f of it (read + write), every kernel %.2f of the copy's bandwidth over the exact bytes it reads "
                "and writes for its format (memory-bound; attention's arithmetic assumed hidden)",
                hbm_bytes_per_s, copy_efficiency, kernel_efficiency);
  table.derived_from = text;
  table.date = today_utc();
  table.source_type = "bf16";
  table.timer = "none (derived)";
  table.batch = 16;
  table.tokens = 16384;
  table.kv_heads = 8;
  table.n_heads = 32;
  table.head_dim = 128;
  table.copy_bytes_per_s = hbm_bytes_per_s * copy_efficiency / 2;  // bytes copied: each is read and written
  const double kernel_traffic_per_s = 2 * table.copy_bytes_per_s * kernel_efficiency;
  const int64_t elements = 2 * table.batch * table.tokens * table.kv_heads * table.head_dim;
  for (const auto& name : formats)
    for (const auto& kernel : kernel_names()) {
      if (!kernel_applies(kernel, name)) continue;
      const KernelBytes b = kernel_bytes(kernel, name, table.batch, table.tokens, table.kv_heads, table.n_heads,
                                         table.head_dim, 2);
      KernelCost c = kernel_cost(kernel, name, elements, b.input, b.output, (b.input + b.output) / kernel_traffic_per_s,
                                 table.copy_bytes_per_s);
      c.median_s = 0;
      c.elements = 0;
      table.kernels.push_back(c);
    }
  return table;
}

void print_cost_table(const CostTable& t, FILE* out) {
  std::fprintf(out, "# %s (%s), %s, %s\n", t.device.c_str(), t.device_kind.c_str(), t.date.c_str(),
               t.measured ? "measured" : ("derived: " + t.derived_from).c_str());
  std::fprintf(out, "# copy %.3f GB/s (bytes copied per second); shape: batch %lld x %lld tokens x %lld kv_heads x "
               "%lld head_dim, %lld query heads; %s\n",
               t.copy_bytes_per_s / 1e9, static_cast<long long>(t.batch), static_cast<long long>(t.tokens),
               static_cast<long long>(t.kv_heads), static_cast<long long>(t.head_dim),
               static_cast<long long>(t.n_heads), t.timer.c_str());
  std::fprintf(out, "%-18s %-17s %12s %14s %14s %14s %14s\n", "kernel", "format", "median_ms", "input_GB/s",
               "Gelements/s", "ratio_to_copy", "traffic_ratio");
  for (const auto& k : t.kernels)
    std::fprintf(out, "%-18s %-17s %12.3f %14.3f %14.3f %14.3f %14.3f\n", k.kernel.c_str(), k.format.c_str(),
                 k.median_s * 1e3, k.input_bytes_per_s / 1e9, k.elements_per_s / 1e9, k.ratio_to_copy,
                 k.traffic_ratio_to_copy);
  std::fprintf(out, "# targets\n");
  for (const auto& k : t.kernels) {
    if (t.device_kind == "cpu" && k.kernel == "encode")
      std::fprintf(out, "target %-17s %-17s input/memcpy %.3f >= 0.30  %s\n", k.kernel.c_str(), k.format.c_str(),
                   k.ratio_to_copy, k.ratio_to_copy >= 0.3 ? "met" : "NOT MET");
    if (t.device_kind == "cuda" && (k.kernel == "encode" || k.kernel.rfind("decode", 0) == 0))
      std::fprintf(out, "target %-17s %-17s traffic/copy %.3f >= 0.70  %s\n", k.kernel.c_str(), k.format.c_str(),
                   k.traffic_ratio_to_copy, k.traffic_ratio_to_copy >= 0.7 ? "met" : "NOT MET");
  }
  const KernelCost* bf16 = t.find("attention_full", "bf16");
  for (const auto& k : t.kernels)
    if (bf16 && k.kernel == "attention_anchor") {
      // A property of the format (anchor bits + 32 metadata bits per group), not of the kernel.
      const KvFormat f = kv_format_parse(k.format);
      const double ratio = k.input_bytes_per_element / bf16->input_bytes_per_element;
      std::fprintf(out, "target %-17s %-17s bytes/bf16 %.3f <= 0.30  %s (the anchor: %d + 32/%d bits per element)\n",
                   k.kernel.c_str(), k.format.c_str(), ratio, ratio <= 0.3 ? "met" : "NOT MET", f.anchor_bits,
                   f.group_size);
    }
}

}  // namespace lynx
