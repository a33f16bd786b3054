#include "models/validation/validation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "common/error.hpp"
#include "models/arch/catalog.hpp"
#include "models/cost/compute_model.hpp"
#include "models/readers/csv_table.hpp"
#include "models/cost/profiled/gpu_profile.hpp"
#include "models/cost/profiled/profiled_cost.hpp"

namespace lynx {

namespace {
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Models {
  std::vector<ModelSpec> models;
  std::vector<GpuSpec> gpus;
  std::string manifest, data_dir;
  std::map<std::string, std::shared_ptr<const GpuProfile>> profiles;

  ProfiledCostModel make(const std::string& model, const std::string& gpu, int tp) {
    const GpuSpec& g = find_gpu(gpus, gpu);
    const std::string measured = profile_gpu_for(g, gpus, profiled_gpu_names(manifest));
    if (!profiles.count(measured))
      profiles[measured] = std::make_shared<const GpuProfile>(load_gpu_profile(manifest, measured, data_dir));
    return ProfiledCostModel(find_model(models, model), g, tp, WeightsDtype::bf16, profiles[measured],
                             find_gpu(gpus, measured));
  }
};

// splitwise-sim data/perf_model.csv (README "S-PERF").
void splitwise(Models& m, ValidationReport& report) {
  const std::string path = m.data_dir + "/splitwise-sim/data/perf_model.csv";
  CsvTable t(path);
  struct Cond {
    std::vector<double> prompt_ms, token_ms;
    int line = 0;
  };
  // (hardware, tp, prompt, batch, output)
  std::map<std::tuple<std::string, int, int, int, int>, Cond> conditions;
  for (size_t r = 0; r < t.rows(); ++r) {
    if (t.text(r, "model") != "llama2-70b") continue;  // BLOOM-176B: not a Llama-architecture model
    auto key = std::make_tuple(t.text(r, "hardware"), static_cast<int>(t.number(r, "tensor_parallel")),
                               static_cast<int>(t.number(r, "prompt_size")), static_cast<int>(t.number(r, "batch_size")),
                               static_cast<int>(t.number(r, "token_size")));
    Cond& c = conditions[key];
    if (c.line == 0) c.line = t.line_of(r);
    c.prompt_ms.push_back(t.time(r, "prompt_time"));
    c.token_ms.push_back(t.time(r, "token_time"));
  }
  // Prefill of the same prompt at half the batch (same hardware, TP, output): a batch of twice the prompts cannot
  // take less time; a row that does is a measurement fault (the README notes the TP2 batch-64 rows).
  std::map<std::tuple<std::string, int, int, int>, double> prefill_by_batch;
  for (const auto& [key, c] : conditions) {
    const auto& [hw, tp, prompt, batch, output] = key;
    prefill_by_batch[{hw, tp, prompt, batch}] = median(c.prompt_ms);
    (void)output;
  }
  for (const auto& [key, c] : conditions) {
    const auto& [hw, tp, prompt, batch, output] = key;
    const std::string gpu = hw == "a100-80gb" ? "a100-80gb-sxm" : "h100-sxm";
    const std::string label = hw == "a100-80gb" ? "A100" : hw == "h100-80gb" ? "H100" : "H100 power-capped";
    ProfiledCostModel model = m.make("llama-2-70b", gpu, tp);
    char cond[120], source[400];
    std::snprintf(source, sizeof source, "splitwise-sim/data/perf_model.csv:%d", c.line);
    // Prefill: `batch` prompts of `prompt` tokens in one iteration.
    std::vector<PrefillPiece> pieces(static_cast<size_t>(batch), PrefillPiece{prompt, 0});
    ValidationRow p;
    p.group = label + " prefill (splitwise-sim)";
    std::snprintf(cond, sizeof cond, "TP%d prompt %d x batch %d output %d", tp, prompt, batch, output);
    p.condition = cond;
    p.measured_ms = median(c.prompt_ms);
    p.predicted_ms = model.prefill_seconds(pieces) * 1e3;
    p.repeats = static_cast<int>(c.prompt_ms.size());
    p.source = source;
    p.tp = tp;
    p.batched_tokens = static_cast<double>(prompt) * batch;
    auto half = prefill_by_batch.find({hw, tp, prompt, batch / 2});
    if (batch > 1 && half != prefill_by_batch.end() && p.measured_ms < half->second) {
      char why[120];
      std::snprintf(why, sizeof why, "below the batch-%d time (%.1f ms)", batch / 2, half->second);
      p.excluded = why;
    }
    report.rows.push_back(p);
    // Decode: mean step over the output, each sequence's context growing from prompt to prompt + output.
    DecodeWork w;
    w.query_tokens = batch;
    w.sequences = batch;
    w.attention_kv_tokens = static_cast<double>(batch) * (prompt + output / 2.0);
    ValidationRow d = p;
    d.group = label + " decode (splitwise-sim)";
    d.measured_ms = median(c.token_ms);
    d.predicted_ms = model.decode_seconds(w) * 1e3;
    d.repeats = static_cast<int>(c.token_ms.size());
    d.excluded = "";
    d.batched_tokens = batch;
    report.rows.push_back(d);
  }
}

// LLMServingSim profiler/v0/perf_models/H100/meta-llama/<model>/tp<N>/layers.csv (README "K-LAY").
void llmservingsim(Models& m, ValidationReport& report) {
  const std::vector<std::tuple<std::string, std::string, int>> runs{
      {"Llama-3.1-8B", "llama-3.1-8b", 1}, {"Llama-3.1-8B", "llama-3.1-8b", 2}, {"Llama-3.1-70B", "llama-3.1-70b", 1},
      {"Llama-3.1-70B", "llama-3.1-70b", 2}, {"Llama-3.1-70B", "llama-3.1-70b", 4}};
  for (const auto& [dir, name, tp] : runs) {
    const std::string rel = "LLMServingSim/profiler/v0/perf_models/H100/meta-llama/" + dir + "/tp" +
                            std::to_string(tp) + "/layers.csv";
    CsvTable t(m.data_dir + "/" + rel);
    std::map<int, std::map<std::string, double>> by_input;
    std::map<int, int> line;
    for (size_t r = 0; r < t.rows(); ++r) {
      const int input = static_cast<int>(t.number(r, "input"));
      by_input[input][t.text(r, "layer_name")] += t.time(r, "latency(ns)", true) * 1e-9;
      line.emplace(input, t.line_of(r));
    }
    ProfiledCostModel model = m.make(name, "h100-sxm", tp);
    for (int input = 1; input <= 2048; input *= 2) {
      auto it = by_input.find(input);
      if (it == by_input.end()) continue;
      double layer = 0, once = 0;
      for (const auto& [op, s] : it->second)
        (op == "embedding" || op == "final_layernorm" || op == "lm_head" ? once : layer) += s;
      const double measured = model.layers() * layer + once;
      const double n = input;
      const double predicted = model.layers() * (model.dense_layer_seconds(n) + model.prefill_attention_seconds(n, 0)) +
                               model.embedding_seconds(n) + model.lm_head_seconds(n);
      ValidationRow v;
      v.group = "H100 prefill op sums (LLMServingSim)";
      char cond[120], source[400];
      std::snprintf(cond, sizeof cond, "%s TP%d prompt %d", dir.c_str(), tp, input);
      std::snprintf(source, sizeof source, "%s:%d", rel.c_str(), line[input]);
      v.condition = cond;
      v.measured_ms = measured * 1e3;
      v.predicted_ms = predicted * 1e3;
      v.repeats = 1;
      v.source = source;
      v.tp = tp;
      v.batched_tokens = input;
      report.rows.push_back(v);
    }
  }
}
}  // namespace

ValidationReport run_validation(const std::string& data_dir, const std::string& manifest,
                                const std::string& models_catalog, const std::string& gpus_catalog) {
  Models m;
  m.models = load_model_catalog(models_catalog);
  m.gpus = load_gpu_catalog(gpus_catalog);
  m.manifest = manifest;
  m.data_dir = data_dir;
  ValidationReport report;
  splitwise(m, report);
  llmservingsim(m, report);
  std::map<std::string, std::pair<double, int>> sums;
  std::vector<std::string> order;
  for (const ValidationRow& r : report.rows) {
    if (!sums.count(r.group)) order.push_back(r.group);
    auto& s = sums[r.group];
    if (!r.excluded.empty()) continue;
    s.first += std::fabs(r.predicted_ms / r.measured_ms - 1);
    s.second += 1;
  }
  for (const std::string& g : order)
    report.groups.push_back({g, sums[g].second, sums[g].second ? 100 * sums[g].first / sums[g].second : 0.0});
  // Breakdown of the splitwise-sim groups: per TP degree, and prefill up to / above kSplitTokens batched tokens.
  std::map<std::string, std::pair<double, int>> parts;
  std::vector<std::string> part_order;
  auto add = [&](const std::string& name, const ValidationRow& r) {
    if (!parts.count(name)) part_order.push_back(name);
    auto& s = parts[name];
    s.first += std::fabs(r.predicted_ms / r.measured_ms - 1);
    s.second += 1;
  };
  for (const std::string& g : order) {
    if (g.find("splitwise-sim") == std::string::npos) continue;
    const bool prefill = g.find("prefill") != std::string::npos;
    for (int tp : {2, 4, 8})
      for (const ValidationRow& r : report.rows)
        if (r.group == g && r.excluded.empty() && r.tp == tp) add(g + ", TP " + std::to_string(tp), r);
    if (!prefill) continue;
    for (const ValidationRow& r : report.rows) {
      if (r.group != g || !r.excluded.empty()) continue;
      char name[200];
      std::snprintf(name, sizeof name, "%s, %s %.0f batched tokens", g.c_str(),
                    r.batched_tokens <= ValidationReport::kSplitTokens ? "<=" : ">", ValidationReport::kSplitTokens);
      add(name, r);
    }
  }
  for (const std::string& n : part_order)
    report.breakdown.push_back({n, parts[n].second, 100 * parts[n].first / parts[n].second});
  return report;
}

namespace {
// A CSV field as RFC 4180 writes it: quoted (inner quotes doubled) when it holds a comma, a quote or a line break
// (the engine rows' citations hold commas); as it is otherwise, so the earlier rows' bytes do not change.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}
}  // namespace

std::string validation_csv(const ValidationReport& report) {
  std::string out =
      "group,condition,measured_ms,predicted_ms,ratio,repeats,included,excluded_because,source,tp,batched_tokens\n";
  char line[400];
  for (const ValidationRow& r : report.rows) {
    // 9 significant digits: the transfer group's rows are microseconds.
    out += csv_field(r.group) + "," + csv_field(r.condition);
    std::snprintf(line, sizeof line, ",%.9g,%.9g,%.9g,%d,%d,", r.measured_ms, r.predicted_ms,
                  r.predicted_ms / r.measured_ms, r.repeats, r.excluded.empty() ? 1 : 0);
    out += line + csv_field(r.excluded) + "," + csv_field(r.source);
    std::snprintf(line, sizeof line, ",%d,%.0f\n", r.tp, r.batched_tokens);
    out += line;
  }
  return out;
}

}  // namespace lynx
