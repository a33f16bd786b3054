#include "kernels/cuda/kernel_bench_cuda.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <random>
#include <vector>

#include "common/error.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/kv_cuda.hpp"
#include "kernels/kv_format.hpp"
#include "kernels/scalar_types.hpp"

namespace lynx {

namespace {

// Median time in seconds of `repeats` runs of `run` on the default stream, after `warmup` runs (CUDA events).
template <typename Run>
double time_median_cuda(int warmup, int repeats, Run&& run) {
  for (int i = 0; i < warmup; ++i) run();
  cuda_synchronize("benchmark warm-up");
  cudaEvent_t start, stop;
  cuda_check(cudaEventCreate(&start), "cudaEventCreate");
  cuda_check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) {
    cuda_check(cudaEventRecord(start, nullptr), "cudaEventRecord");
    run();
    cuda_check(cudaEventRecord(stop, nullptr), "cudaEventRecord");
    cuda_check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    cuda_check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    times.push_back(std::max(1e-9, 1e-3 * static_cast<double>(ms)));
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cuda_synchronize("benchmark");
  return median_of(times);
}

// Fills `n` bf16 values with a normal pattern of 16 Mi values, repeated (enough to be far from any cache).
void fill_normal_bf16(DeviceBuffer& buffer, int64_t n, uint32_t seed) {
  const int64_t block = std::min<int64_t>(n, int64_t{1} << 24);
  std::vector<uint16_t> host(static_cast<size_t>(block));
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (auto& h : host) h = float_to_bf16(normal(rng));
  for (int64_t done = 0; done < n; done += block) {
    const int64_t count = std::min(block, n - done);
    cuda_check(cudaMemcpy(buffer.bytes() + 2 * done, host.data(), static_cast<size_t>(count) * 2,
                          cudaMemcpyHostToDevice),
               "cudaMemcpy");
  }
}

}  // namespace

CostTable kernel_bench_cuda(const KernelBenchOptions& options, FILE* progress) {
  if (cuda_device_count() == 0) throw_error("bench-kernels: no CUDA device is visible");
  const std::vector<std::string> formats = options.formats.empty() ? kernel_bench_default_formats() : options.formats;
  for (const auto& name : formats) kv_format_parse(name);
  const double kv_mib = options.kv_mib > 0 ? options.kv_mib : (options.quick ? 4.0 : 1024.0);
  const int repeats = options.repeats > 0 ? options.repeats : (options.quick ? 2 : 10);
  const int warmup = options.warmup > 0 ? options.warmup : 2;

  CostTable table;
  table.device = cuda_device_name();
  table.device_kind = "cuda";
  table.measured = true;
  table.date = today_utc();
  table.source_type = "bf16";
  table.timer = "median of CUDA event times on the default stream";
  table.repeats = repeats;
  table.warmup = warmup;
  table.kv_heads = 8;
  table.head_dim = 128;
  table.n_heads = 32;
  const int64_t row = table.kv_heads * table.head_dim;
  const int64_t all_tokens = std::max<int64_t>(1, static_cast<int64_t>(kv_mib * 1048576.0 / (2.0 * 2.0 * static_cast<double>(row))));
  table.batch = std::clamp<int64_t>(all_tokens / 256, 1, 16);
  table.tokens = std::max<int64_t>(1, all_tokens / table.batch);
  const int64_t tokens = table.batch * table.tokens;  // encode and decode: one tensor of all the batch's tokens
  const KvShape shape{tokens, table.kv_heads, table.head_dim};
  const AttentionShape attention{table.tokens, table.kv_heads, table.n_heads, table.head_dim};
  const KvShape sequence = attention.kv();
  const int64_t n = shape.elements(), elements = 2 * n;

  DeviceBuffer k(static_cast<size_t>(n) * 2), v(static_cast<size_t>(n) * 2), out(static_cast<size_t>(n) * 2);
  fill_normal_bf16(k, n, 1);
  fill_normal_bf16(v, n, 2);
  const int64_t q_count = table.batch * table.n_heads * table.head_dim;
  DeviceBuffer q(static_cast<size_t>(q_count) * 2), attention_out(static_cast<size_t>(q_count) * 2);
  fill_normal_bf16(q, q_count, 3);
  DeviceBuffer workspace(attention_cuda_workspace_bytes(attention, table.batch));

  const double copy_s = time_median_cuda(warmup, repeats, [&] {
    cuda_check(cudaMemcpyAsync(out.data(), k.data(), k.size(), cudaMemcpyDeviceToDevice, nullptr), "copy");
    cuda_check(cudaMemcpyAsync(out.data(), v.data(), v.size(), cudaMemcpyDeviceToDevice, nullptr), "copy");
  });
  table.copy_bytes_per_s = static_cast<double>(k.size() + v.size()) / copy_s;
  if (progress)
    std::fprintf(progress, "bench-kernels: %s, %lld x %lld tokens x %lld kv_heads x %lld head_dim (K and V: %.0f MiB "
                 "of bf16), device copy %.1f GB/s\n", table.device.c_str(), static_cast<long long>(table.batch),
                 static_cast<long long>(table.tokens), static_cast<long long>(table.kv_heads),
                 static_cast<long long>(table.head_dim), kv_mib, table.copy_bytes_per_s / 1e9);

  for (const auto& name : formats) {
    const KvFormat format = kv_format_parse(name);
    const bool lynx = format.residual_bits > 0;
    const KvStreamBytes kb = kv_stream_bytes(format, KvRole::key, shape), vb = kv_stream_bytes(format, KvRole::value, shape);
    DeviceBuffer ka(kb.anchor), kr(kb.residual), va(vb.anchor), vr(vb.residual);
    auto add = [&](const std::string& kernel, double seconds) {
      const KernelBytes bytes = kernel_bytes(kernel, name, table.batch, table.tokens, table.kv_heads, table.n_heads,
                                             table.head_dim, 2);
      table.kernels.push_back(kernel_cost(kernel, name, elements, bytes.input, bytes.output, seconds,
                                          table.copy_bytes_per_s));
      if (progress) {
        const KernelCost& c = table.kernels.back();
        std::fprintf(progress, "  %-17s %-16s %9.3f ms  %8.1f GB/s in  traffic/copy %.3f\n", name.c_str(),
                     kernel.c_str(), seconds * 1e3, c.input_bytes_per_s / 1e9, c.traffic_ratio_to_copy);
      }
    };
    add("encode", time_median_cuda(warmup, repeats, [&] {
          kv_encode_cuda(format, KvRole::key, shape, static_cast<const uint16_t*>(k.data()), ka.bytes(), kr.bytes());
          kv_encode_cuda(format, KvRole::value, shape, static_cast<const uint16_t*>(v.data()), va.bytes(), vr.bytes());
        }));
    for (bool full : {true, false}) {
      if (!full && !lynx) continue;
      add(full ? "decode_full" : "decode_anchor", time_median_cuda(warmup, repeats, [&] {
            kv_decode_cuda(format, KvRole::key, shape, ka.bytes(), full ? kr.bytes() : nullptr,
                           static_cast<uint16_t*>(out.data()));
            kv_decode_cuda(format, KvRole::value, shape, va.bytes(), full ? vr.bytes() : nullptr,
                           static_cast<uint16_t*>(out.data()));
          }));
    }
    // Attention reads each sequence's own encoded cache: encode the batch sequence by sequence (not timed).
    ka = DeviceBuffer();
    kr = DeviceBuffer();
    va = DeviceBuffer();
    vr = DeviceBuffer();
    const KvStreamBytes sk = kv_stream_bytes(format, KvRole::key, sequence), sv = kv_stream_bytes(format, KvRole::value, sequence);
    DeviceBuffer cka(sk.anchor * table.batch), ckr(sk.residual * table.batch), cva(sv.anchor * table.batch),
        cvr(sv.residual * table.batch);
    for (int64_t b = 0; b < table.batch; ++b) {
      const int64_t offset = b * sequence.elements();
      kv_encode_cuda(format, KvRole::key, sequence, static_cast<const uint16_t*>(k.data()) + offset,
                     cka.bytes() + b * sk.anchor, ckr.bytes() + b * sk.residual);
      kv_encode_cuda(format, KvRole::value, sequence, static_cast<const uint16_t*>(v.data()) + offset,
                     cva.bytes() + b * sv.anchor, cvr.bytes() + b * sv.residual);
    }
    cuda_synchronize("bench-kernels: encoding the attention caches");
    for (bool full : {true, false}) {
      if (!full && !lynx) continue;
      add(full ? "attention_full" : "attention_anchor", time_median_cuda(warmup, repeats, [&] {
            attention_decode_cuda(format, attention, table.batch, static_cast<const uint16_t*>(q.data()), cka.bytes(),
                                  full ? ckr.bytes() : nullptr, cva.bytes(), full ? cvr.bytes() : nullptr,
                                  static_cast<uint16_t*>(attention_out.data()), workspace.data());
          }));
    }
  }
  return table;
}

}  // namespace lynx
