// NVIDIA AIConfigurator's measured kernel database (issue 24): kernel latencies that NVIDIA measured with each
// serving engine's own kernels (vLLM, SGLang, TensorRT-LLM) on H100, H200 and B200, one Parquet table per kernel
// family, under <data folder>/calibration/aiconfigurator/systems/data/<gpu>/<op>/<framework>/<version>/ (the data
// folder's README names the source repository and commit). This file looks kernels up in those tables; the Parquet
// files themselves are read by models/profiled/parquet_reader.hpp (the project's own reader).
//
// One AicKernelDb holds one (GPU, framework, version); each table is read the first time a lookup needs it and
// kept. Every lookup returns the kernel's time in milliseconds (the tables' `latency` column is in ms; the collector
// writes `latency_ms`), whether the shape lay outside the measured grid, and which table answered.
//
// Interpolation and extrapolation (stated once; DESIGN.md "issue 24: reading the kernel database" repeats it):
// - The discrete columns of a table (dtypes, head counts, head size, window, GPUs, top-k, experts, TP/EP,
//   distribution) must match a measured value exactly; when no row has them the lookup throws AicNotCovered, which
//   is distinct from extrapolation (the kernel was never measured in that configuration).
// - The continuous columns (GEMM m, n, k; attention batch and sequence length; message elements; MoE tokens; MLA
//   batch and length; BMM tokens) are interpolated between the two measured grid values around the query, one axis
//   at a time (multilinear), with the time linear in the axis value between the two points. A query equal to a
//   grid point returns the measured value unchanged.
// - Beyond the grid on an axis: above the largest measured value the time there is scaled by the ratio of the work
//   (query / largest on that axis: GEMM FLOPs are linear in each of m, n, k; prefill attention work grows with
//   batch and isl^2; decode attention reads grow with batch and context; message time with elements); below the
//   smallest measured value the time there is kept (a kernel gets no faster than its smallest measured launch).
//   Such a result has extrapolated = true.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/error.hpp"

namespace lynx {

class ParquetTable;  // models/profiled/parquet_reader.hpp

// <calibration>/aiconfigurator (models/profiled/csv_table.hpp calibration_dir()).
std::string aic_dir();

// One engine's tables on one GPU, by the folder names the data uses: gpu_folder "h100_sxm" | "h200_sxm" |
// "b200_sxm"; framework "vllm" | "sglang" | "trtllm"; version "0.24.0" | "0.5.14" | "1.3.0rc20".
struct AicEngine {
  std::string gpu_folder;
  std::string framework;
  std::string version;
};

// Every (GPU, framework, version) that has at least one table under <dir>/systems/data, sorted; NCCL's own folder
// (comm/nccl/<version>) is not an engine and is not listed (nccl_version() below names it).
std::vector<AicEngine> aic_engines(const std::string& dir = aic_dir());

// A measured kernel time. `ms`: milliseconds. `extrapolated`: some continuous axis lay outside the measured grid
// (see the rule above). `table`: the file that answered, relative to aic_dir() (for `sources`).
struct KernelTime {
  double ms = 0;
  bool extrapolated = false;
  std::string table;
};

// The table exists but has no row with these discrete values (a dtype, head count, GPU count, ... never measured):
// not an extrapolation. The message names the table and the values asked for.
class AicNotCovered : public LynxError {
 public:
  explicit AicNotCovered(const std::string& message) : LynxError(message) {}
};

class AicKernelDb {
 public:
  // Finds nothing yet: tables are read on first use. A missing or damaged table is one LynxError naming the file
  // (parquet_reader.hpp), thrown by the lookup that needs it.
  explicit AicKernelDb(AicEngine engine, std::string dir = aic_dir());
  ~AicKernelDb();
  AicKernelDb(AicKernelDb&&) noexcept;
  AicKernelDb& operator=(AicKernelDb&&) noexcept;

  const AicEngine& engine() const { return engine_; }

  // GEMM (gemm_perf): out[m x n] = in[m x k] . W[k x n]; dtype as the table writes it: "bfloat16", "fp8",
  // "fp8_block" (others where measured). m is tokens in the pass.
  KernelTime gemm(const std::string& dtype, double m, double n, double k) const;

  // Prefill attention (context_attention_perf): `batch` sequences of `isl` new tokens each, `heads` query heads and
  // `kv_heads` KV heads on one GPU, head size head_dim, sliding window `window` (0 = full), KV cache dtype
  // "bfloat16" | "fp8"; attention math in bfloat16 (attn_dtype) unless attn_dtype says otherwise.
  KernelTime context_attention(double batch, double isl, int heads, int kv_heads, int head_dim, int window,
                               const std::string& kv_dtype, const std::string& attn_dtype = "bfloat16") const;

  // Decode attention (generation_attention_perf): one new token for each of `batch` sequences, each attending to
  // `context_tokens` tokens of KV cache, its own included (the table's isl + step: isl 1, step = tokens - 1).
  KernelTime generation_attention(double batch, double context_tokens, int heads, int kv_heads, int head_dim,
                                  int window, const std::string& kv_dtype,
                                  const std::string& attn_dtype = "bfloat16") const;

  // The engine's own all-reduce kernel (custom_allreduce_perf of this engine's comm folder), for a tensor of
  // message_elements elements of dtype ("bfloat16") over `gpus` GPUs in one node. vLLM and SGLang measured it
  // under CUDA graphs and eagerly (`backend` *_graph / *_eager): cuda_graph chooses; TensorRT-LLM has one kind.
  KernelTime custom_allreduce(const std::string& dtype, double message_elements, int gpus,
                              bool cuda_graph = true) const;

  // NCCL collectives (comm/nccl/<version>/nccl_perf, shared by every engine on the GPU): op "all_reduce" |
  // "all_gather" | "reduce_scatter" | "alltoall"; dtype as the table writes it ("half", "int8"); message_elements
  // in elements (collector/network/collect_nccl.py writes size // bytes_per_element).
  KernelTime nccl(const std::string& op, const std::string& dtype, double message_elements, int gpus) const;
  std::string nccl_version() const;  // the folder under comm/nccl that nccl() reads

  // Fused MoE layer (moe_perf): `tokens` tokens entering the layer on one GPU, hidden size, expert intermediate
  // size (the full expert's, before moe_tp split: the collector's inter_size), top-k of num_experts experts,
  // expert TP and EP degrees, token distribution "balanced" | "power_law_1.01" | "power_law_1.2".
  KernelTime moe(const std::string& dtype, double tokens, int hidden, int inter, int topk, int experts, int moe_tp,
                 int moe_ep, const std::string& distribution = "balanced") const;

  // MLA attention (DeepSeek-style). Context: `batch` sequences of `isl` tokens; generation: `batch` sequences each
  // with `context_tokens` in the cache. `heads` are the model's attention heads, tp_size the attention TP degree
  // (the tables key on both). Reads the engine's table: context_mla_perf / generation_mla_perf (SGLang,
  // TensorRT-LLM: attention kernel only) or, where those are absent, mla_context_module_perf /
  // mla_generation_module_perf (vLLM: the whole MLA module with its projections; `table` says which).
  KernelTime mla_context(const std::string& dtype, const std::string& kv_dtype, int heads, int tp_size,
                         double batch, double isl) const;
  KernelTime mla_generation(const std::string& dtype, const std::string& kv_dtype, int heads, int tp_size,
                            double batch, double context_tokens) const;

  // MLA's absorbed batched GEMMs (mla_bmm_perf): op "mla_gen_pre" | "mla_gen_post", `tokens` tokens, `heads` heads
  // on one GPU.
  KernelTime mla_bmm(const std::string& op, const std::string& dtype, double tokens, int heads) const;

  // Whether the engine has this table on this GPU (file present), by table name ("gemm_perf", ...).
  bool has_table(const std::string& table) const;

 private:
  const ParquetTable& table(const std::string& op_folder, const std::string& name) const;
  AicEngine engine_;
  std::string dir_;
  mutable std::map<std::string, std::unique_ptr<ParquetTable>> tables_;
};

}  // namespace lynx
