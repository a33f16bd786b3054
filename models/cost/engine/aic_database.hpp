// NVIDIA AIConfigurator's measured kernel database (the data folder's calibration/aiconfigurator/, see its
// README.md): for one GPU and one serving engine, the latency of that engine's own kernels, looked up by shape.
// Tables live at systems/data/<gpu>/<op>/<engine>/<version>/<table>.parquet and are read lazily, each the first
// time a lookup needs it (a dense model never opens the MoE or MLA tables), with the project's Parquet reader.
//
// What each lookup reads (bf16 activations and weights, bf16 KV cache, no sliding window, beam 1):
//   gemm_ms              gemm_perf, gemm_dtype bfloat16|fp8|fp8_block, axes (n, k, m)
//   context_attention_ms context_attention_perf, axes (head_dim, kv heads, heads, batch, isl)
//   generation_attention_ms generation_attention_perf, axes (head_dim, kv heads, heads, batch, kv tokens); a row's
//                        KV tokens are isl + step (the prompt in the cache plus the tokens decoded so far)
//   custom_allreduce_ms  the engine's all-reduce (comm/<engine>/custom_allreduce_perf): its CUDA-graph variant
//                        (vllm_graph, sglang_graph) or eager variant, TRT-LLM's one implementation; axes (GPUs,
//                        message elements). The engine's entry point: above its one-shot/two-shot sizes the table
//                        already holds its NCCL fall-back (the large-message rows equal NCCL's)
//   nccl_allreduce_ms    comm/nccl/2.29.2/nccl_perf, op all_reduce, dtype half; axes (GPUs, message elements)
//   moe_ms               moe_perf, moe_dtype, distribution balanced; axes (hidden, inter, topk, experts, moe tp,
//                        moe ep, tokens)
//   mla_context_ms / mla_generation_ms  context_mla_perf / generation_mla_perf (SGLang, TRT-LLM: the attention
//                        kernel), or vLLM's mla_*_module_perf (the whole MLA module of DeepSeek-V3, projections
//                        included, at the module's gemm_type bfloat16 or fp8_block; mla_is_module() says which);
//                        kv_cache_dtype bfloat16 (fp8 with fp8_kv); axes (heads per GPU, batch, tokens: isl, or
//                        isl + step in decode). The tables' tp_size column is not an axis: each heads value has one
//                        (tp_size = 64 / heads, 1 for 64 and 128 heads), so the per-GPU heads say it all
//   mla_bmm_ms           mla_bmm_perf (SGLang, TRT-LLM): the absorbed up-projections of a decode step, op mla_gen_pre
//                        (queries' nope part to the latent) or mla_gen_post (latent to values), bmm_dtype bfloat16|fp8;
//                        axes (heads per GPU, tokens)
// Where several kernels of an engine measured the same table and dtype (e.g. FlashAttention 3 and 4), the one with
// the most rows is used (the engine's default path on that GPU) and named in the table's source.
// Interpolation and extrapolation: aic_grid.hpp (one rule for every table), beyond the grid scaled by each op's
// roofline on the measured GPU's datasheet peaks (`peaks`).
// Every latency of every table read is checked: a value that is not a positive finite number is one LynxError
// naming the file and the row.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "models/cost/engine/aic_grid.hpp"
#include "models/cost/serving_engine.hpp"

namespace lynx {

// The GPU folders measured (systems/data/<folder>) and the catalog GPU each is: h100_sxm h100-sxm, h200_sxm
// h200-sxm, b200_sxm b200-sxm. "" when the catalog GPU has no folder.
std::string aic_gpu_folder(const std::string& catalog_gpu);

// Datasheet peaks of the measured GPU, for the roofline beyond the grid.
struct AicPeaks {
  double bf16_tflops = 0, fp8_tflops = 0, hbm_gb_per_s = 0, nvlink_gb_per_s = 0;
};

enum class AicGemmDtype { bf16, fp8, fp8_block };  // fp8: per-tensor scaled; fp8_block: 128 x 128 blocks

class AicDatabase {
 public:
  // `root` is the aiconfigurator folder (calibration_dir() + "/aiconfigurator"); `gpu_folder` e.g. "h100_sxm";
  // `engine` one of the engines it measured (serving_engine_in_aic; another is an InternalError).
  AicDatabase(std::string root, std::string gpu_folder, ServingEngine engine, AicPeaks peaks);

  double gemm_ms(double m, double n, double k, AicGemmDtype dtype = AicGemmDtype::bf16) const;
  // A per-tensor fp8 row less the dynamic input quantization the collector timed with it (fp8_input_quant.hpp):
  // the GEMM of a checkpoint with static input scales. Reads the bf16 and fp8 GEMM tables.
  double static_fp8_gemm_ms(double m, double n, double k) const;
  // The fixed part of that quantization, ms per call, fitted once on those two tables.
  double fp8_dynamic_quant_fixed_ms() const;
  // fp8_kv: the rows with an fp8 KV cache (bf16 attention math), as an engine runs with kv_cache_dtype fp8.
  double context_attention_ms(double batch, double isl, double heads, double kv_heads, double head_dim,
                              bool fp8_kv = false) const;
  double generation_attention_ms(double batch, double kv_tokens, double heads, double kv_heads, double head_dim,
                                 bool fp8_kv = false) const;
  // message_elements: bf16 values per GPU (the table's unit); gpus: 2, 4 or 8 (another count is a LynxError).
  double custom_allreduce_ms(double message_elements, int gpus, bool cuda_graph) const;
  double nccl_allreduce_ms(double message_elements, int gpus) const;
  double moe_ms(double tokens, double hidden, double inter, double topk, double experts, double moe_tp,
                double moe_ep, const std::string& dtype = "bfloat16") const;
  // heads: per GPU (n_heads / tp); fp8_gemm: the module's fp8_block rows (vLLM, weights fp8)
  double mla_context_ms(double batch, double isl, double heads, bool fp8_kv = false, bool fp8_gemm = false) const;
  double mla_generation_ms(double batch, double kv_tokens, double heads, bool fp8_kv = false,
                           bool fp8_gemm = false) const;
  // pre: mla_gen_pre, else mla_gen_post
  double mla_bmm_ms(double tokens, double heads, bool pre, bool fp8 = false) const;
  bool mla_is_module() const { return engine_ == ServingEngine::vllm; }
  // The family names the MLA lookups read with these options (for sources and preloading).
  static std::string mla_family(bool context, bool fp8_kv, bool fp8_gemm);
  static std::string mla_bmm_family(bool pre, bool fp8);
  static std::string gemm_family(AicGemmDtype dtype);  // "gemm", "gemm_fp8", "gemm_fp8_block"
  static std::string moe_dtype(AicGemmDtype dtype);    // the moe_perf rows of that dtype: "bfloat16", "fp8", "fp8_block"

  // The table a lookup family reads, as `sources` names it: "aiconfigurator h100_sxm attention/vllm/0.24.0/
  // context_attention_perf.parquet (vllm_flash_attn_fa3, bfloat16)". Loads the table. Families: "gemm", "gemm_fp8",
  // "context_attention", "generation_attention" (each also with the suffix "_fp8kv"), "allreduce_graph", "allreduce_eager", "nccl_allreduce", "moe",
  // "mla_context", "mla_generation" (each with "_fp8kv", then ":fp8_block", suffixes as mla_family builds them),
  // "mla_bmm_pre:<dtype>", "mla_bmm_post:<dtype>".
  std::string source(const std::string& family) const;
  // The table a family reads, without loading it: "aiconfigurator h100_sxm/gemm/vllm/0.24.0/gemm_perf.parquet".
  std::string table_name(const std::string& family) const;
  // The grid behind a family (tests: held-out points).
  const AicGrid& grid(const std::string& family) const;
  // Loads these families' tables now (StepCostModel::preload_tables); one that does not load is skipped, its
  // error left to the first lookup that needs it. Lookups and their results are as without it.
  void preload(const std::vector<std::string>& families) const;
  // Loads these families' tables now; one that does not load throws its LynxError (StepCostModel::load_tables).
  void load_now(const std::vector<std::string>& families) const;
  // True once any lookup was beyond a table's grid.
  bool extrapolated() const { return extrapolated_; }
  ServingEngine engine() const { return engine_; }
  size_t tables_loaded() const { return loaded_.size(); }
  std::vector<std::string> families_loaded() const;  // in name order
  const std::string& gpu_folder() const { return gpu_; }
  const AicPeaks& peaks() const { return peaks_; }

  // Rooflines (seconds at the datasheet peaks) used beyond the grid, exposed for tests.
  static double gemm_roofline(const AicAxes& nkm, double flops_per_s, double bytes_per_elem, double bytes_per_s);

 private:
  struct Spec {
    std::string rel;  // path under systems/data/<gpu>/
    std::vector<std::pair<std::string, std::string>> filters;
    std::vector<std::pair<std::string, double>> numbers;
    std::vector<std::string> axes;
    bool all_kernels = false;  // every kernel's rows (vLLM's MLA modules: the backend it picks by length)
  };
  Spec spec(const std::string& family) const;
  struct Loaded {
    AicGrid grid;
    std::string source;
  };
  const Loaded& load(std::string_view family) const;
  // The family's time at x, the roofline beyond its grid. `roofline` is passed on by reference (std::cref), so
  // no lookup allocates: lookups run at every simulated step.
  template <class Roofline>
  double lookup(std::string_view family, const AicAxes& x, const Roofline& roofline) const;

  std::string root_, gpu_;
  ServingEngine engine_;
  AicPeaks peaks_;
  mutable std::map<std::string, std::unique_ptr<Loaded>, std::less<>> loaded_;  // found by a string_view
  mutable bool extrapolated_ = false;
  mutable double fp8_quant_fixed_ms_ = -1;  // < 0: not fitted yet
};

// One row of a table for the grid: used by AicDatabase and by tests that write their own tables.
// Reads `file` (a Parquet table), checks every row's latency, keeps the rows whose text columns equal `filters`
// (column=value) and, among kernels, those of `kernel` ("" = the kernel_source with most rows), and maps each to
// the axes named (a name "a+b" sums two columns). The kernel chosen is returned in *kernel_used.
std::vector<AicPoint> aic_points_from_table(const std::string& file,
                                           const std::vector<std::pair<std::string, std::string>>& filters,
                                           const std::vector<std::pair<std::string, double>>& number_filters,
                                           const std::vector<std::string>& axes, std::string* kernel_used);
AicGrid aic_grid_from_table(const std::string& file, const std::vector<std::pair<std::string, std::string>>& filters,
                            const std::vector<std::pair<std::string, double>>& number_filters,
                            const std::vector<std::string>& axes, const std::string& what,
                            std::string* kernel_used);

}  // namespace lynx
