#include "models/validation/engine_validation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>

#include "common/atomic_file.hpp"
#include "common/data_folder.hpp"
#include "common/error.hpp"
#include "models/arch/catalog.hpp"
#include "models/cost/compute_model.hpp"
#include "models/cost/engine/engine_cost.hpp"
#include "models/validation/offline_bench.hpp"

namespace lynx {

namespace {

constexpr const char* kColumns[] = {"measured_engine", "engine", "gpu",      "model",    "tp",
                                    "weights",         "kv",     "kind",     "batch",    "isl",
                                    "osl",             "measured", "unit",   "excluded", "citation"};
constexpr size_t kColumnCount = sizeof kColumns / sizeof kColumns[0];

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t tab = line.find('\t', start);
    out.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) return out;
    start = tab + 1;
  }
}

double positive(const std::string& text, const std::string& where, const char* column) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v) || v <= 0)
    throw_error("%s: column %s: \"%s\" is not a positive number", where.c_str(), column, text.c_str());
  return v;
}

// One static batch: the prefill of batch prompts of isl tokens, then osl - 1 decode steps (seconds).
double static_batch_seconds(const StepCostModel& step, int64_t batch, int64_t isl, int64_t osl) {
  double t = step.prefill_seconds(std::vector<PrefillPiece>(static_cast<size_t>(batch), PrefillPiece{isl, 0}));
  for (int64_t i = 1; i < osl; i++) {
    DecodeWork w;
    w.query_tokens = batch, w.sequences = batch;
    w.attention_kv_tokens = static_cast<double>(batch) * static_cast<double>(isl + i);
    t += step.decode_seconds(w);
  }
  return t;
}

// trtllm-bench's offline throughput of `requests` isl/osl requests on one instance of tp GPUs, with its own
// max_batch_size / max_num_tokens heuristic and kv_fraction of each GPU's free memory for the KV cache, free
// after the weights and the engine's own memory with `other_bytes` for its CUDA context (offline_bench.hpp). Total
// output tokens per second of the instance.
double trtllm_bench_tokens_per_s(const EngineCostModel& step, const ModelSpec& model, const GpuSpec& gpu, int tp,
                                 bool fp8_weights, bool fp8_kv, int64_t requests, int64_t isl, int64_t osl,
                                 double kv_fraction, double other_bytes) {
  const double weight_bytes_per_param = fp8_weights ? 1.0 : 2.0, kv_bytes = fp8_kv ? 1.0 : 2.0;
  const TrtllmBenchLimits limits = trtllm_bench_limits(model, gpu, tp, weight_bytes_per_param, kv_bytes, isl, osl, kv_fraction);
  OfflineBench b;
  b.requests = requests, b.isl = isl, b.osl = osl;
  b.max_batch_size = limits.max_batch_size, b.max_num_tokens = limits.max_num_tokens;
  b.kv_capacity_tokens = instance_kv_tokens(model, gpu, tp, step.weight_bytes(), kv_bytes, kv_fraction,
                                            trtllm_runtime_bytes_per_gpu(model, tp, limits.max_num_tokens, other_bytes));
  b.graph_batch_sizes = trtllm_bench_graph_sizes();
  return run_offline_bench(step, b).output_tokens_per_s;
}

// The KV-cache fraction of free GPU memory: the published runs used 0.95 "in many cases", 0.90 (trtllm-bench's
// default) or lower where 0.95 ran out of memory (perf-overview.md, "Running the Benchmark"). The headline uses 0.95;
// the breakdown shows the same groups at 0.90.
constexpr double kBenchKvFraction = 0.95, kBenchKvFractionLow = 0.90;

std::string gpu_label(const std::string& gpu) {
  if (gpu == "h100-sxm") return "H100";
  if (gpu == "h200-sxm") return "H200";
  if (gpu == "a100-80gb-sxm") return "A100";
  return gpu;
}

}  // namespace

std::string default_engine_validation_dir() { return project_dir() + "/models/validation"; }

void add_engine_validation(ValidationReport& report, const std::string& validation_dir, const std::string& data_dir,
                           const std::string& models_catalog, const std::string& gpus_catalog) {
  const std::vector<ModelSpec> models = load_model_catalog(models_catalog);
  const std::vector<GpuSpec> gpus = load_gpu_catalog(gpus_catalog);
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(validation_dir)) {
    const std::string name = e.path().filename().string();
    if (name.size() > 14 && name.compare(name.size() - 14, 14, "_published.tsv") == 0) files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());  // a fixed order: the same report on every file system
  std::map<std::string, std::pair<double, int>> sums, sums_low, sums_safe;
  std::vector<std::string> order;
  for (const std::string& file : files) {
    std::istringstream in(read_file(file));
    std::string line;
    int number = 0;
    bool header = false;
    while (std::getline(in, line)) {
      number++;
      if (line.empty() || line[0] == '#') continue;
      const std::string where = file + ":" + std::to_string(number);
      const std::vector<std::string> f = split_tabs(line);
      if (f.size() != kColumnCount)
        throw_error("%s: %zu tab-separated columns, expected %zu", where.c_str(), f.size(), kColumnCount);
      if (!header) {
        for (size_t i = 0; i < kColumnCount; i++)
          if (f[i] != kColumns[i])
            throw_error("%s: header column %zu is \"%s\", expected \"%s\"", where.c_str(), i + 1, f[i].c_str(),
                        kColumns[i]);
        header = true;
        continue;
      }
      const ModelSpec* model = nullptr;
      const GpuSpec* gpu = nullptr;
      for (const ModelSpec& m : models)
        if (m.name == f[3]) model = &m;
      for (const GpuSpec& g : gpus)
        if (g.name == f[2]) gpu = &g;
      if (!model) throw_error("%s: model \"%s\" is not in the model catalog", where.c_str(), f[3].c_str());
      if (!gpu) throw_error("%s: GPU \"%s\" is not in the GPU catalog", where.c_str(), f[2].c_str());
      const int tp = static_cast<int>(positive(f[4], where, "tp"));
      const std::optional<WeightsDtype> weights = kWeightsDtypeNames.parse(f[5]);
      if (!weights) throw_error("%s: weights \"%s\" (bf16 or fp8)", where.c_str(), f[5].c_str());
      if (f[6] != "bf16" && f[6] != "fp8") throw_error("%s: kv \"%s\" (bf16 or fp8)", where.c_str(), f[6].c_str());
      const std::string& kind = f[7];
      const int64_t batch = static_cast<int64_t>(positive(f[8], where, "batch"));
      const int64_t isl = static_cast<int64_t>(positive(f[9], where, "isl"));
      const int64_t osl = static_cast<int64_t>(positive(f[10], where, "osl"));
      const double measured = positive(f[11], where, "measured");
      std::shared_ptr<const EngineCostModel> step;
      try {
        step = make_engine_cost(*model, *gpu, gpus, tp, *weights,
                                aic_engine_parse(f[1]), data_dir, f[6] == "fp8");
      } catch (const LynxError& e) {
        throw_error("%s: %s", where.c_str(), e.what());
      }
      ValidationRow row;
      double measured_ms = 0, predicted_ms = 0, low_fraction_ms = 0, safe_other_ms = 0;
      std::string phase;
      char condition[160];
      if (kind == "first_token") {
        measured_ms = measured;
        predicted_ms = step->prefill_seconds(std::vector<PrefillPiece>(static_cast<size_t>(batch), PrefillPiece{isl, 0})) * 1e3;
        phase = "prefill";
        std::snprintf(condition, sizeof condition, "%s TP%d first token at input %lld", model->name.c_str(), tp,
                      static_cast<long long>(isl));
      } else if (kind == "static_throughput") {
        measured_ms = 1e3 / measured;  // ms per output token per GPU
        const double seconds = static_batch_seconds(*step, batch, isl, osl);
        predicted_ms = 1e3 * seconds * tp / static_cast<double>(batch * osl);
        phase = "static batch";
        std::snprintf(condition, sizeof condition, "%s TP%d batch %lld %lld/%lld (ms/token/GPU)", model->name.c_str(),
                      tp, static_cast<long long>(batch), static_cast<long long>(isl), static_cast<long long>(osl));
      } else if (kind == "batch_latency") {
        measured_ms = measured;
        predicted_ms = static_batch_seconds(*step, batch, isl, osl) * 1e3;
        phase = "static batch";
        std::snprintf(condition, sizeof condition, "%s TP%d batch %lld %lld/%lld", model->name.c_str(), tp,
                      static_cast<long long>(batch), static_cast<long long>(isl), static_cast<long long>(osl));
      } else if (kind == "trtllm_bench_throughput") {
        const bool fp8_weights = *weights == WeightsDtype::fp8, fp8_kv = f[6] == "fp8";
        double tokens_per_s = 0, tokens_per_s_low = 0, tokens_per_s_safe = 0;
        try {
          tokens_per_s = trtllm_bench_tokens_per_s(*step, *model, *gpu, tp, fp8_weights, fp8_kv, batch, isl, osl,
                                                   kBenchKvFraction, kTrtllmOtherBytes);
          tokens_per_s_low = trtllm_bench_tokens_per_s(*step, *model, *gpu, tp, fp8_weights, fp8_kv, batch, isl, osl,
                                                       kBenchKvFractionLow, kTrtllmOtherBytes);
          tokens_per_s_safe = trtllm_bench_tokens_per_s(*step, *model, *gpu, tp, fp8_weights, fp8_kv, batch, isl, osl,
                                                        kBenchKvFraction, kTrtllmOtherBytesSafe);
        } catch (const LynxError& e) {
          throw_error("%s: %s", where.c_str(), e.what());
        }
        // ms per output token of the instance; a table in tokens/s per GPU is the instance's total over tp
        if (f[12] != "tok/s" && f[12] != "tok/s/GPU")
          throw_error("%s: unit \"%s\" (tok/s of the instance, or tok/s/GPU)", where.c_str(), f[12].c_str());
        measured_ms = 1e3 / (f[12] == "tok/s" ? measured : measured * tp);
        predicted_ms = 1e3 / tokens_per_s;
        low_fraction_ms = 1e3 / tokens_per_s_low;
        safe_other_ms = 1e3 / tokens_per_s_safe;
        phase = "offline throughput";
        std::snprintf(condition, sizeof condition, "%s TP%d %lld requests %lld/%lld (ms/token)", model->name.c_str(),
                      tp, static_cast<long long>(batch), static_cast<long long>(isl), static_cast<long long>(osl));
      } else {
        throw_error("%s: kind \"%s\" (first_token, static_throughput, batch_latency or trtllm_bench_throughput)",
                    where.c_str(), kind.c_str());
      }
      row.group = gpu_label(gpu->name) + " " + f[1] + " " + phase + " TP" + std::to_string(tp) + " (" + f[0] + ")";
      row.condition = condition;
      row.measured_ms = measured_ms;
      row.predicted_ms = predicted_ms;
      row.repeats = 1;
      row.excluded = f[13] == "-" ? "" : f[13];
      row.source = f[14];
      row.tp = tp;
      row.batched_tokens = static_cast<double>(batch * isl);
      if (std::find(order.begin(), order.end(), row.group) == order.end()) order.push_back(row.group);
      if (row.excluded.empty()) {
        sums[row.group].first += std::fabs(predicted_ms / measured_ms - 1);
        sums[row.group].second += 1;
        if (low_fraction_ms > 0) {
          sums_low[row.group].first += std::fabs(low_fraction_ms / measured_ms - 1);
          sums_low[row.group].second += 1;
          sums_safe[row.group].first += std::fabs(safe_other_ms / measured_ms - 1);
          sums_safe[row.group].second += 1;
        }
      }
      report.rows.push_back(row);
    }
    if (!header) throw_error("%s: no header line", file.c_str());
  }
  for (const std::string& g : order)
    report.groups.push_back({g, sums[g].second, sums[g].second ? 100 * sums[g].first / sums[g].second : 0.0});
  for (const std::string& g : order)  // the assumption's reach: the same rows with the KV cache at 0.90
    if (sums_low.count(g))
      report.breakdown.push_back({g + " at kv_cache_free_gpu_mem_fraction 0.90", sums_low[g].second,
                                  100 * sums_low[g].first / sums_low[g].second});
  for (const std::string& g : order)  // and with AIConfigurator's 3.5 GiB deployment margin for the CUDA context
    if (sums_safe.count(g))
      report.breakdown.push_back({g + " with 3.5 GiB of CUDA context and libraries (AIConfigurator's safe figure)",
                                  sums_safe[g].second, 100 * sums_safe[g].first / sums_safe[g].second});
}

}  // namespace lynx
