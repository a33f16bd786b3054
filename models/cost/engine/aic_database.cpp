#include "models/cost/engine/aic_database.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <filesystem>
#include <map>
#include <set>

#include "common/error.hpp"
#include "models/cost/engine/fp8_input_quant.hpp"
#include "models/readers/parquet_reader.hpp"

namespace lynx {

namespace {

// NCCL version of the data folder's comm/nccl tables (its README.md).
constexpr const char* kNcclVersion = "2.29.2";
// Latency floor of the collective roofline: the smallest custom all-reduce rows of the H100 tables are 2.6-4.6 us
// (TRT-LLM 2.8 us, SGLang graph 2.6 us, vLLM graph 4.6 us at 128 elements, 4 GPUs), so below the smallest message
// an all-reduce keeps its time instead of shrinking with the bytes.
constexpr double kCollectiveFloorSeconds = 5e-6;

bool is_text(const ParquetColumn& c) { return c.kind == ParquetColumn::Kind::text; }

}  // namespace

std::string aic_gpu_folder(const std::string& catalog_gpu) {
  if (catalog_gpu == "h100-sxm") return "h100_sxm";
  if (catalog_gpu == "h200-sxm") return "h200_sxm";
  if (catalog_gpu == "b200-sxm") return "b200_sxm";
  return "";
}

std::vector<AicPoint> aic_points_from_table(const std::string& file,
                                           const std::vector<std::pair<std::string, std::string>>& filters,
                                           const std::vector<std::pair<std::string, double>>& number_filters,
                                           const std::vector<std::string>& axes, std::string* kernel_used) {
  // Only the columns this grid reads are decoded (a table has about 16).
  std::vector<std::string> wanted = {"latency", "kernel_source"};
  for (const auto& f : filters) wanted.push_back(f.first);
  for (const auto& f : number_filters) wanted.push_back(f.first);
  for (const std::string& a : axes)
    for (size_t start = 0;;) {
      const size_t plus = a.find('+', start);
      wanted.push_back(a.substr(start, plus == std::string::npos ? std::string::npos : plus - start));
      if (plus == std::string::npos) break;
      start = plus + 1;
    }
  const ParquetTable t(file, wanted);
  // A cell as a number: read from the column's vectors where present, else ParquetTable::number's error (a null,
  // or a text column).
  auto number = [&t](int64_t r, const ParquetColumn& c) {
    const size_t i = static_cast<size_t>(r);
    if (c.kind == ParquetColumn::Kind::real && c.present[i]) return c.reals[i];
    if (c.kind == ParquetColumn::Kind::integer && c.present[i]) return static_cast<double>(c.ints[i]);
    return t.number(r, c);
  };
  const ParquetColumn& latency = t.column("latency");
  for (int64_t r = 0; r < t.rows(); r++) {
    const double ms = number(r, latency);
    if (!std::isfinite(ms) || ms <= 0)
      throw_error("%s: row %lld: latency %g ms is not a positive finite time", file.c_str(),
                  static_cast<long long>(r), ms);
  }
  std::vector<const ParquetColumn*> text_cols;
  for (const auto& f : filters) {
    const ParquetColumn& c = t.column(f.first);
    if (!is_text(c)) throw_error("%s: column %s is not text", file.c_str(), f.first.c_str());
    text_cols.push_back(&c);
  }
  std::vector<const ParquetColumn*> number_cols;
  for (const auto& f : number_filters) number_cols.push_back(&t.column(f.first));
  std::vector<std::vector<const ParquetColumn*>> axis_cols;
  for (const std::string& a : axes) {
    std::vector<const ParquetColumn*> parts;
    size_t start = 0;
    for (;;) {
      const size_t plus = a.find('+', start);
      parts.push_back(&t.column(a.substr(start, plus == std::string::npos ? std::string::npos : plus - start)));
      if (plus == std::string::npos) break;
      start = plus + 1;
    }
    axis_cols.push_back(parts);
  }
  // A text filter compares pool entries once each, then rows by their entry (a null row is text()'s error).
  std::vector<std::vector<uint8_t>> entry_matches;
  for (size_t i = 0; i < filters.size(); i++) {
    std::vector<uint8_t> m(text_cols[i]->pool.size());
    for (size_t e = 0; e < m.size(); e++) m[e] = text_cols[i]->pool[e] == filters[i].second;
    entry_matches.push_back(std::move(m));
  }
  std::vector<int64_t> kept;
  for (int64_t r = 0; r < t.rows(); r++) {
    bool ok = true;
    for (size_t i = 0; i < filters.size() && ok; i++) {
      const int32_t e = text_cols[i]->text_index[static_cast<size_t>(r)];
      if (e < 0) t.text(r, *text_cols[i]);
      ok = entry_matches[i][static_cast<size_t>(e)];
    }
    for (size_t i = 0; i < number_filters.size() && ok; i++) ok = number(r, *number_cols[i]) == number_filters[i].second;
    if (ok) kept.push_back(r);
  }
  // The kernel with the most rows (ties: the first name in order), unless one is asked for; "*": every kernel, in
  // that order of rows, a shape measured by several taken from the first.
  std::string kernel = kernel_used && !kernel_used->empty() ? *kernel_used : "";
  const bool has_kernel = t.has_column("kernel_source");
  const ParquetColumn* kernel_col = has_kernel ? &t.column("kernel_source") : nullptr;
  std::vector<std::string> order;
  if (has_kernel && (kernel.empty() || kernel == "*")) {
    std::vector<size_t> by_entry(kernel_col->pool.size());
    for (int64_t r : kept) {
      const int32_t e = kernel_col->text_index[static_cast<size_t>(r)];
      if (e < 0) t.text(r, *kernel_col);  // a null kernel: text()'s error
      by_entry[static_cast<size_t>(e)]++;
    }
    std::map<std::string, size_t> count;
    for (size_t e = 0; e < by_entry.size(); e++)
      if (by_entry[e] > 0) count[kernel_col->pool[e]] += by_entry[e];
    std::vector<std::pair<std::string, size_t>> by_rows(count.begin(), count.end());
    std::stable_sort(by_rows.begin(), by_rows.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& entry : by_rows) order.push_back(entry.first);
    if (kernel.empty() && !order.empty()) order.resize(1);
    kernel.clear();
    for (const std::string& k : order) kernel += (kernel.empty() ? "" : "+") + k;
  } else if (has_kernel) {
    order = {kernel};
  } else {
    order = {""};
  }
  std::vector<AicPoint> points;
  std::set<std::vector<double>> shapes_seen;
  for (const std::string& k : order) {
    std::vector<uint8_t> is_k;  // per pool entry of kernel_source: that entry is k
    if (has_kernel)
      for (const std::string& name : kernel_col->pool) is_k.push_back(name == k);
    for (int64_t r : kept) {
      if (has_kernel) {
        const int32_t e = kernel_col->text_index[static_cast<size_t>(r)];
        if (e < 0) t.text(r, *kernel_col);
        if (!is_k[static_cast<size_t>(e)]) continue;
      }
      AicPoint p;
      for (size_t a = 0; a < axis_cols.size(); a++) {
        double v = 0;
        for (const ParquetColumn* c : axis_cols[a]) v += number(r, *c);
        if (!std::isfinite(v) || v <= 0)
          throw_error("%s: row %lld: %s = %g is not a positive shape", file.c_str(), static_cast<long long>(r),
                      axes[a].c_str(), v);
        p.x[a] = v;
      }
      p.ms = number(r, latency);
      if (order.size() > 1 && !shapes_seen.insert(std::vector<double>(p.x.begin(), p.x.begin() + axis_cols.size())).second)
        continue;
      points.push_back(p);
    }
  }
  if (points.empty()) {
    std::string f;
    for (const auto& x : filters) f += " " + x.first + "=" + x.second;
    for (const auto& x : number_filters) f += " " + x.first + "=" + std::to_string(static_cast<long long>(x.second));
    throw_error("%s: no rows with%s", file.c_str(), f.c_str());
  }
  if (kernel_used) *kernel_used = kernel;
  return points;
}

AicGrid aic_grid_from_table(const std::string& file, const std::vector<std::pair<std::string, std::string>>& filters,
                            const std::vector<std::pair<std::string, double>>& number_filters,
                            const std::vector<std::string>& axes, const std::string& what,
                            std::string* kernel_used) {
  return AicGrid(static_cast<int>(axes.size()), aic_points_from_table(file, filters, number_filters, axes, kernel_used),
                 what);
}

AicDatabase::AicDatabase(std::string root, std::string gpu_folder, ServingEngine engine, AicPeaks peaks)
    : root_(std::move(root)), gpu_(std::move(gpu_folder)), engine_(engine), peaks_(peaks) {
  if (!serving_engine_in_aic(engine_))
    throw_internal_error("AIConfigurator has no tables of engine %s", serving_engine_name(engine_));
  const std::string dir = root_ + "/systems/data/" + gpu_;
  if (!std::filesystem::is_directory(dir))
    throw_error("no AIConfigurator tables for %s at %s (scripts/get-data.sh fetches them)", gpu_.c_str(),
                dir.c_str());
}

AicDatabase::Spec AicDatabase::spec(const std::string& family) const {
  const ServingEngineInfo& e = kServingEngines[engine_];
  const std::string ev = std::string(e.aic_folder) + "/" + e.aic_version;
  Spec sp;
  std::string& rel = sp.rel;
  auto& filters = sp.filters;
  auto& numbers = sp.numbers;
  auto& axes = sp.axes;
  const std::vector<std::string> attention_axes = {"head_dim", "num_key_value_heads", "num_heads", "batch_size"};
  if (family == "gemm" || family == "gemm_fp8" || family == "gemm_fp8_block") {
    rel = "gemm/" + ev + "/gemm_perf.parquet";
    filters = {{"gemm_dtype", family == "gemm" ? "bfloat16" : family == "gemm_fp8" ? "fp8" : "fp8_block"}};
    axes = {"n", "k", "m"};
  } else if (family.rfind("context_attention", 0) == 0 || family.rfind("generation_attention", 0) == 0) {
    const bool context = family.rfind("context_attention", 0) == 0;
    const bool fp8_kv = family.size() > 6 && family.compare(family.size() - 6, 6, "_fp8kv") == 0;
    rel = "attention/" + ev + (context ? "/context_attention_perf.parquet" : "/generation_attention_perf.parquet");
    filters = {{"attn_dtype", "bfloat16"}, {"kv_cache_dtype", fp8_kv ? "fp8" : "bfloat16"}};
    numbers = {{"window_size", 0}, {"beam_width", 1}};
    axes = attention_axes;
    axes.push_back(context ? "isl" : "isl+step");
  } else if (family == "allreduce_graph" || family == "allreduce_eager") {
    rel = "comm/" + ev + "/custom_allreduce_perf.parquet";
    filters = {{"allreduce_dtype", "bfloat16"}};
    if (engine_ != ServingEngine::trtllm)
      filters.push_back({"backend", std::string(e.aic_folder) + (family == "allreduce_graph" ? "_graph" : "_eager")});
    axes = {"num_gpus", "message_size"};
  } else if (family == "nccl_allreduce") {
    rel = std::string("comm/nccl/") + kNcclVersion + "/nccl_perf.parquet";
    filters = {{"op_name", "all_reduce"}, {"nccl_dtype", "half"}};
    axes = {"num_gpus", "message_size"};
  } else if (family.rfind("moe:", 0) == 0) {
    rel = "moe/" + ev + "/moe_perf.parquet";
    filters = {{"moe_dtype", family.substr(4)}, {"distribution", "balanced"}};
    axes = {"hidden_size", "inter_size", "topk", "num_experts", "moe_tp_size", "moe_ep_size", "num_tokens"};
  } else if (family.rfind("mla_context", 0) == 0 || family.rfind("mla_generation", 0) == 0) {
    const bool context = family.rfind("mla_context", 0) == 0;
    const bool fp8_kv = family.find("_fp8kv") != std::string::npos;
    const bool fp8_gemm = family.find(":fp8_block") != std::string::npos;
    const std::string kv = fp8_kv ? "fp8" : "bfloat16";
    if (engine_ == ServingEngine::vllm) {
      rel = "mla/" + ev + (context ? "/mla_context_module_perf.parquet" : "/mla_generation_module_perf.parquet");
      // the rows name the attention backend vLLM ran for each shape (on Hopper FLASH_ATTN_MLA up to 512 tokens,
      // FLASH_ATTN from 1024 in prefill): one module, its rows together
      sp.all_kernels = true;
      filters = {{"mla_dtype", "bfloat16"}, {"kv_cache_dtype", kv}, {"gemm_type", fp8_gemm ? "fp8_block" : "bfloat16"}};
    } else {
      rel = "mla/" + ev + (context ? "/context_mla_perf.parquet" : "/generation_mla_perf.parquet");
      filters = {{"mla_dtype", "bfloat16"}, {"kv_cache_dtype", kv}};
    }
    axes = {"num_heads", "batch_size", context ? "isl" : "isl+step"};
  } else if (family.rfind("mla_bmm_pre:", 0) == 0 || family.rfind("mla_bmm_post:", 0) == 0) {
    const bool pre = family.rfind("mla_bmm_pre:", 0) == 0;
    rel = "mla_bmm/" + ev + "/mla_bmm_perf.parquet";
    filters = {{"op_name", pre ? "mla_gen_pre" : "mla_gen_post"}, {"bmm_dtype", family.substr(family.find(':') + 1)}};
    axes = {"num_heads", "num_tokens"};
  } else {
    throw_error("AIConfigurator: no table family \"%s\" (a bug)", family.c_str());
  }
  return sp;
}

std::string AicDatabase::table_name(const std::string& family) const {
  return "aiconfigurator " + gpu_ + "/" + spec(family).rel;
}

const AicDatabase::Loaded& AicDatabase::load(std::string_view family) const {
  auto it = loaded_.find(family);
  if (it != loaded_.end()) return *it->second;
  const Spec sp = spec(std::string(family));
  const std::string& rel = sp.rel;
  const auto& filters = sp.filters;
  const std::string file = root_ + "/systems/data/" + gpu_ + "/" + rel;
  std::string kernel = sp.all_kernels ? "*" : "";
  auto loaded = std::make_unique<Loaded>();
  loaded->grid = aic_grid_from_table(file, filters, sp.numbers, sp.axes, "aiconfigurator " + gpu_ + "/" + rel, &kernel);
  std::string what;
  for (const auto& f : filters)
    if (f.first != "backend" && f.first != "distribution") what += (what.empty() ? "" : ", ") + f.second;
  loaded->source = "aiconfigurator " + gpu_ + " " + rel + " (" + (kernel.empty() ? "" : kernel + ", ") + what + ")";
  if (loaded->grid.glitches_dropped() > 0)
    loaded->source += "; " + std::to_string(loaded->grid.glitches_dropped()) + " glitch row(s) dropped (more than " +
                      std::to_string(static_cast<int>(kAicGlitchFactor)) + "x both neighbours)";
  return *loaded_.emplace(std::string(family), std::move(loaded)).first->second;
}

std::string AicDatabase::source(const std::string& family) const { return load(family).source; }
const AicGrid& AicDatabase::grid(const std::string& family) const { return load(family).grid; }

std::vector<std::string> AicDatabase::families_loaded() const {
  std::vector<std::string> names;
  for (const auto& entry : loaded_) names.push_back(entry.first);
  return names;
}

void AicDatabase::preload(const std::vector<std::string>& families) const {
  for (const std::string& family : families) {
    try {
      load(family);
    } catch (const LynxError&) {
      // Left to the lookup that needs this table: it reports the same error, where it matters.
    }
  }
}

void AicDatabase::load_now(const std::vector<std::string>& families) const {
  for (const std::string& family : families) load(family);
}

template <class Roofline>
double AicDatabase::lookup(std::string_view family, const AicAxes& x, const Roofline& roofline) const {
  bool beyond = false;
  const double ms = load(family).grid.at_ms(x, std::cref(roofline), &beyond);
  if (beyond) extrapolated_ = true;
  return ms;
}

double AicDatabase::gemm_roofline(const AicAxes& nkm, double flops_per_s, double bytes_per_elem, double bytes_per_s) {
  const double n = nkm[0], k = nkm[1], m = nkm[2];
  return std::max(2 * m * n * k / flops_per_s, (m * k + n * k + m * n) * bytes_per_elem / bytes_per_s);
}

double AicDatabase::gemm_ms(double m, double n, double k, AicGemmDtype dtype) const {
  const bool fp8 = dtype != AicGemmDtype::bf16;
  const double flops = (fp8 ? peaks_.fp8_tflops : peaks_.bf16_tflops) * 1e12, bw = peaks_.hbm_gb_per_s * 1e9;
  return lookup(gemm_family(dtype), {n, k, m},
                [&](const AicAxes& x) { return gemm_roofline(x, flops, fp8 ? 1 : 2, bw); });
}

double AicDatabase::fp8_dynamic_quant_fixed_ms() const {
  if (fp8_quant_fixed_ms_ < 0)
    fp8_quant_fixed_ms_ = lynx::fp8_dynamic_quant_fixed_ms(fit_gemm_bandwidth(load("gemm").grid, 2),
                                                           fit_gemm_bandwidth(load("gemm_fp8").grid, 1));
  return fp8_quant_fixed_ms_;
}

double AicDatabase::static_fp8_gemm_ms(double m, double n, double k) const {
  const double row_ms = gemm_ms(m, n, k, AicGemmDtype::fp8);
  const double roofline_ms = gemm_roofline({n, k, m}, peaks_.fp8_tflops * 1e12, 1, peaks_.hbm_gb_per_s * 1e9) * 1e3;
  return lynx::static_fp8_gemm_ms(row_ms, m, k, fp8_dynamic_quant_fixed_ms(), peaks_.hbm_gb_per_s, roofline_ms);
}

double AicDatabase::context_attention_ms(double batch, double isl, double heads, double kv_heads, double head_dim,
                                         bool fp8_kv) const {
  const double flops = peaks_.bf16_tflops * 1e12, bw = peaks_.hbm_gb_per_s * 1e9;
  return lookup(fp8_kv ? "context_attention_fp8kv" : "context_attention", {head_dim, kv_heads, heads, batch, isl},
                [&](const AicAxes& x) {
    const double hd = x[0], kv = x[1], h = x[2], b = x[3], s = x[4];
    // causal: s(s+1)/2 query-key pairs, 4 FLOPs per pair per head channel (QK^T and PV); Q, K, V read, O written
    return std::max(4 * b * h * hd * s * (s + 1) / 2 / flops, 2 * b * s * (2 * h + 2 * kv) * hd / bw);
  });
}

double AicDatabase::generation_attention_ms(double batch, double kv_tokens, double heads, double kv_heads,
                                            double head_dim, bool fp8_kv) const {
  const double flops = peaks_.bf16_tflops * 1e12, bw = peaks_.hbm_gb_per_s * 1e9, kv_bytes = fp8_kv ? 1 : 2;
  return lookup(fp8_kv ? "generation_attention_fp8kv" : "generation_attention",
                {head_dim, kv_heads, heads, batch, kv_tokens}, [&](const AicAxes& x) {
    const double hd = x[0], kv = x[1], h = x[2], b = x[3], l = x[4];
    return std::max(4 * b * h * hd * l / flops, kv_bytes * b * l * 2 * kv * hd / bw);  // K and V of every token read
  });
}

namespace {
// Ring all-reduce bytes over NVLink after a latency floor (kCollectiveFloorSeconds).
AicRoofline collective_roofline(double nvlink_gb_per_s) {
  return [nvlink_gb_per_s](const AicAxes& x) {
    const double g = x[0], bytes = 2 * x[1];
    return kCollectiveFloorSeconds + 2 * (g - 1) / g * bytes / (nvlink_gb_per_s * 1e9);
  };
}
void check_gpus(const AicGrid& grid, int gpus) {
  for (double g : grid.first_axis_values())
    if (g == gpus) return;
  std::string have;
  for (double g : grid.first_axis_values()) have += (have.empty() ? "" : ", ") + std::to_string(static_cast<int>(g));
  throw_error("%s: no all-reduce measured on %d GPUs (measured: %s)", grid.what().c_str(), gpus, have.c_str());
}
}  // namespace

double AicDatabase::custom_allreduce_ms(double message_elements, int gpus, bool cuda_graph) const {
  const std::string family = cuda_graph ? "allreduce_graph" : "allreduce_eager";
  check_gpus(load(family).grid, gpus);
  return lookup(family, {static_cast<double>(gpus), message_elements}, collective_roofline(peaks_.nvlink_gb_per_s));
}

double AicDatabase::nccl_allreduce_ms(double message_elements, int gpus) const {
  check_gpus(load("nccl_allreduce").grid, gpus);
  return lookup("nccl_allreduce", {static_cast<double>(gpus), message_elements},
                collective_roofline(peaks_.nvlink_gb_per_s));
}

double AicDatabase::moe_ms(double tokens, double hidden, double inter, double topk, double experts, double moe_tp,
                           double moe_ep, const std::string& dtype) const {
  const double flops = peaks_.bf16_tflops * 1e12, bw = peaks_.hbm_gb_per_s * 1e9;
  return lookup("moe:" + dtype, {hidden, inter, topk, experts, moe_tp, moe_ep, tokens}, [&](const AicAxes& x) {
    const double h = x[0], i = x[1], k = x[2], e = x[3], tp = x[4], ep = x[5], t = x[6];
    const double expert_bytes = 3 * h * i * 2 / tp;  // gate, up, down of one expert's slice, bf16
    return std::max(2 * t * k * 3 * h * i / (tp * ep) / flops, std::min(e, t * k) / ep * expert_bytes / bw);
  });
}

std::string AicDatabase::mla_family(bool context, bool fp8_kv, bool fp8_gemm) {
  return std::string(context ? "mla_context" : "mla_generation") + (fp8_kv ? "_fp8kv" : "") +
         (fp8_gemm ? ":fp8_block" : "");
}

std::string AicDatabase::gemm_family(AicGemmDtype dtype) {
  return dtype == AicGemmDtype::bf16 ? "gemm" : dtype == AicGemmDtype::fp8 ? "gemm_fp8" : "gemm_fp8_block";
}

std::string AicDatabase::moe_dtype(AicGemmDtype dtype) {
  return dtype == AicGemmDtype::bf16 ? "bfloat16" : dtype == AicGemmDtype::fp8 ? "fp8" : "fp8_block";
}

std::string AicDatabase::mla_bmm_family(bool pre, bool fp8) {
  return std::string(pre ? "mla_bmm_pre:" : "mla_bmm_post:") + (fp8 ? "fp8" : "bfloat16");
}

// The rooflines below are DeepSeek-V3's MLA shapes (kv_lora_rank 512, qk_rope 64, qk_nope 128, v 128: the shapes the
// tables measured; engine_cost composes MLA only for models of these head shapes).
double AicDatabase::mla_context_ms(double batch, double isl, double heads, bool fp8_kv, bool fp8_gemm) const {
  const double flops = peaks_.bf16_tflops * 1e12, bw = peaks_.hbm_gb_per_s * 1e9;
  return lookup(mla_family(true, fp8_kv, fp8_gemm), {heads, batch, isl}, [&](const AicAxes& x) {
    const double h = x[0], b = x[1], s = x[2];
    // the plain form: q/k 192 channels (128 nope + 64 rope), v 128 (models/arch/attention.hpp)
    return std::max(2 * b * h * (192 + 128) * s * (s + 1) / 2 / flops, 2 * b * s * h * (2 * 192 + 2 * 128) / bw);
  });
}

double AicDatabase::mla_generation_ms(double batch, double kv_tokens, double heads, bool fp8_kv, bool fp8_gemm) const {
  const double flops = peaks_.bf16_tflops * 1e12, bw = peaks_.hbm_gb_per_s * 1e9;
  return lookup(mla_family(false, fp8_kv, fp8_gemm), {heads, batch, kv_tokens}, [&](const AicAxes& x) {
    const double h = x[0], b = x[1], l = x[2];
    // absorbed form: 2 x heads x (2 x 512 + 64) FLOPs per key; the 576-wide latent read once per token
    return std::max(2 * b * h * (2 * 512 + 64) * l / flops, (fp8_kv ? 1 : 2) * b * l * 576 / bw);
  });
}

double AicDatabase::mla_bmm_ms(double tokens, double heads, bool pre, bool fp8) const {
  const double flops = (fp8 ? peaks_.fp8_tflops : peaks_.bf16_tflops) * 1e12, bw = peaks_.hbm_gb_per_s * 1e9;
  return lookup(mla_bmm_family(pre, fp8), {heads, tokens}, [&](const AicAxes& x) {
    const double h = x[0], t = x[1];
    // per head a (tokens x 128) x (128 x 512) product (pre; post is its transpose): the weights read once
    return std::max(2 * t * h * 128 * 512 / flops, (fp8 ? 1 : 2) * (h * 128 * 512 + t * h * (128 + 512)) / bw);
  });
}

}  // namespace lynx
