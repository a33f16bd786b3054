#include "models/cost/profiled/gpu_profile.hpp"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <set>

#include "common/data_folder.hpp"
#include "common/enum_names.hpp"
#include "common/error.hpp"
#include "common/json_reader.hpp"
#include "models/arch/catalog.hpp"
#include "models/readers/csv_table.hpp"

namespace lynx {

struct AllReduceMeasurements {
  std::string path;
  std::once_flag read;
  std::map<int, Curve> by_tp;
};

// One attention measurement file as the manifest lists it, and its curve once a model has picked it.
struct AttentionTable {
  std::string file;
  int format = 0;  // an AttentionFormat (below; an int here, as that enum has internal linkage)
  bool prefill = false;
  std::mutex mutex;  // `curve`
  std::unique_ptr<Curve> curve;
};

// One mlp.csv: the table (kept for the curves built later), its rows and token counts by TP degree, and the curves
// built so far by (TP degree, column).
struct DenseMeasurements {
  explicit DenseMeasurements(const std::string& path) : table(path) {}
  struct AtTp {
    std::vector<size_t> rows;
    std::vector<double> tokens;  // of each row
  };
  CsvTable table;
  std::map<int, AtTp> by_tp;
  std::mutex mutex;  // the table (its kept row) and `curves`
  std::map<std::pair<int, size_t>, std::unique_ptr<Curve>> curves;
};

namespace {
constexpr double kMs = 1e-3, kUs = 1e-6;

// vidur mlp.csv operations (README of the calibration folder, "V-MLP").
const std::vector<std::string>& dense_ops() {
  static const std::vector<std::string> ops{"input_layernorm", "attn_pre_proj", "attn_rope", "attn_post_proj",
                                            "post_attention_layernorm", "mlp_up_proj", "mlp_act", "mlp_down_proj",
                                            "add", "emb"};
  return ops;
}

std::string model_of(const std::string& path) {
  // .../compute/<gpu>/<org>/<model>/mlp.csv -> <model>
  const size_t end = path.rfind('/');
  const size_t begin = path.rfind('/', end - 1);
  return path.substr(begin + 1, end - begin - 1);
}

void load_dense(const std::string& path, GpuProfile& profile) {
  auto file = std::make_shared<DenseMeasurements>(path);
  const CsvTable& t = file->table;
  std::map<std::string, size_t> columns;  // op -> its median's column, for the ops measured (in name order)
  for (const std::string& op : dense_ops()) {
    const std::string column = "time_stats." + op + ".median";
    if (t.has_column(column)) columns.emplace(op, t.column_index(column));
  }
  const size_t tp_column = t.column_index("num_tensor_parallel_workers"), tokens_column = t.column_index("num_tokens");
  for (size_t r = 0; r < t.rows(); ++r) {
    const int tp = static_cast<int>(t.number_at(r, tp_column));
    DenseMeasurements::AtTp& at = file->by_tp[tp];
    at.rows.push_back(r);
    at.tokens.push_back(t.number_at(r, tokens_column));
  }
  for (const auto& [tp, at] : file->by_tp) {
    const size_t r = at.rows.front();
    const double heads = t.number(r, "n_head"), kv = t.number(r, "n_kv_head"), hidden = t.number(r, "n_embd");
    const double ffn = t.number(r, "n_expanded_embd"), head_dim = hidden / heads, p = tp;
    const double up = t.text(r, "use_gated_mlp") == "True" ? 2.0 : 1.0;
    const std::map<std::string, double> size{
        {"attn_pre_proj", hidden * (heads + 2 * kv) * head_dim / p}, {"attn_post_proj", heads * head_dim * hidden / p},
        {"mlp_up_proj", hidden * ffn * up / p}, {"mlp_down_proj", ffn * hidden / p},
        {"input_layernorm", hidden}, {"post_attention_layernorm", hidden}, {"add", hidden}, {"emb", hidden},
        {"attn_rope", (heads + kv) * head_dim / p}, {"mlp_act", ffn * up / p}};
    const double last_tokens = *std::max_element(at.tokens.begin(), at.tokens.end());
    for (const auto& [op, column] : columns) {
      char source[600];
      std::snprintf(source, sizeof source, "%s (%s, TP %d)", path.c_str(), model_of(path).c_str(), tp);
      OpCurve c;
      c.op = op;
      c.size = size.at(op);
      c.source = source;
      c.tp = tp;
      c.last_tokens = last_tokens;
      c.file = file;
      c.column = column;
      profile.ops.push_back(std::move(c));
    }
  }
}

// The all-reduce curves by GPUs of one node, from the file at `path` (named in each curve's source).
std::map<int, Curve> read_all_reduce(const std::string& path) {
  CsvTable t(path);
  const size_t workers_column = t.column_index("num_workers"), node_column = t.column_index("devices_per_node");
  const size_t size_column = t.column_index("size"), time_column = t.column_index("time_stats.all_reduce.median");
  std::map<int, std::vector<std::pair<double, double>>> points;
  for (size_t r = 0; r < t.rows(); ++r) {
    const double workers = t.number_at(r, workers_column);
    if (workers != t.number_at(r, node_column)) continue;  // one node: tensor parallelism stays in a node
    points[static_cast<int>(workers)].push_back({t.number_at(r, size_column), t.time_at(r, time_column) * kMs});
  }
  std::map<int, Curve> curves;
  for (auto& [tp, pts] : points)
    curves.emplace(tp, Curve(std::move(pts), Curve::Below::floor, path + " (" + std::to_string(tp) + " GPUs)"));
  return curves;
}

// The attention measurement formats of the profiles manifest.
enum class AttentionFormat { blis_prefill, blis_decode, vidur_attention };
constexpr auto kAttentionFormatNames =
    enum_names<AttentionFormat>({{AttentionFormat::blis_prefill, "blis-prefill"},
                                 {AttentionFormat::blis_decode, "blis-decode"},
                                 {AttentionFormat::vidur_attention, "vidur-attention"}});
constexpr ChoiceField kAttentionFormat{"format", nullptr, kAttentionFormatNames.choices(),
                                       "the measurement file's layout"};

AttentionCurve attention_curve(JsonObject& entry, const std::string& data_dir, bool prefill) {
  AttentionCurve a;
  auto table = std::make_shared<AttentionTable>();
  table->file = data_dir + "/" + entry.string("file");
  table->format = static_cast<int>(entry.get_enum<AttentionFormat>(kAttentionFormat));
  table->prefill = prefill;
  a.q_heads_per_gpu = entry.positive_number("q_heads_per_gpu");
  a.kv_heads_per_gpu = entry.positive_number("kv_heads_per_gpu");
  a.head_dim = entry.positive_number("head_dim");
  if (static_cast<AttentionFormat>(table->format) == (prefill ? AttentionFormat::blis_decode
                                                              : AttentionFormat::blis_prefill))
    entry.fail("format", prefill ? "a prefill attention format" : "a decode attention format");
  a.source = table->file;
  a.table = std::move(table);
  return a;
}

void load_cpu_overheads(const std::vector<std::string>& files, GpuProfile& profile) {
  // Host work per engine step outside the GPU kernels: scheduling, input preparation, sampling, output processing
  // (medians) and the Ray workers' communication (mean; the file has no median of it). model_execution_e2e is the
  // GPU forward pass itself, which the kernels above already account for.
  static const std::vector<std::string> parts{"schedule_median", "sampler_e2e_median", "prepare_inputs_e2e_median",
                                              "process_model_outputs_median", "ray_comm_time_mean"};
  for (const std::string& path : files) {
    CsvTable t(path);
    std::map<int, std::map<double, std::pair<double, int>>> sums;  // tp -> batch -> (sum, n)
    std::map<int, std::set<std::string>> models;
    const size_t tp_column = t.column_index("tensor_parallel_degree"), batch_column = t.column_index("batch_size");
    std::vector<size_t> part_columns;
    for (const std::string& p : parts) part_columns.push_back(t.column_index(p));
    for (size_t r = 0; r < t.rows(); ++r) {
      const int tp = static_cast<int>(t.number_at(r, tp_column));
      if (profile.cpu_overhead_by_tp.count(tp)) continue;  // an earlier file has this degree
      double s = 0;
      for (size_t column : part_columns) s += t.time_at(r, column, true) * kMs;
      auto& slot = sums[tp][t.number_at(r, batch_column)];
      slot.first += s;
      slot.second += 1;
      models[tp].insert(t.text(r, "model_name"));
    }
    for (auto& [tp, by_batch] : sums) {
      std::vector<std::pair<double, double>> pts;
      for (auto& [batch, sum] : by_batch) pts.push_back({batch, sum.first / sum.second});
      std::string names;
      for (const auto& m : models[tp]) names += (names.empty() ? "" : ", ") + m;
      const std::string source = path + " (TP " + std::to_string(tp) + ", mean of " + names + ")";
      profile.cpu_overhead_by_tp.emplace(tp, Curve(std::move(pts), Curve::Below::floor, source));
      profile.cpu_overhead_source.emplace(tp, source);
    }
  }
}

std::vector<std::string> strings(const nlohmann::json& array, const JsonObject& owner, const std::string& key) {
  std::vector<std::string> out;
  for (const auto& v : array) {
    if (!v.is_string()) owner.fail(key, "an array of file paths");
    out.push_back(v.get<std::string>());
  }
  return out;
}
}  // namespace

const Curve* GpuProfile::all_reduce(int tp) const {
  AllReduceMeasurements& m = *all_reduce_file;
  std::call_once(m.read, [&] { m.by_tp = read_all_reduce(m.path); });
  const auto it = m.by_tp.find(tp);
  return it == m.by_tp.end() ? nullptr : &it->second;
}

const Curve& AttentionCurve::seconds() const {
  AttentionTable& t = *table;
  std::lock_guard<std::mutex> lock(t.mutex);
  if (!t.curve) {
    const AttentionFormat format = static_cast<AttentionFormat>(t.format);
    const bool prefill = t.prefill;
    CsvTable csv(t.file);
    std::vector<std::pair<double, double>> pts;
    for (size_t r = 0; r < csv.rows(); ++r) {
      if (format == AttentionFormat::blis_prefill) {
        const double s = csv.number(r, "seq_len");
        pts.push_back({s * (s + 1) / 2, csv.time(r, "latency_us") * kUs});
      } else if (format == AttentionFormat::blis_decode) {
        pts.push_back({csv.number(r, "batch_size") * csv.number(r, "kv_len"), csv.time(r, "latency_us") * kUs});
      } else {
        const bool row_prefill = csv.text(r, "is_prefill") == "True";
        if (row_prefill != prefill) continue;
        const double batch = csv.number(r, "batch_size"), kv = csv.number(r, "kv_cache_size");
        if (prefill) {
          if (batch != 1) continue;  // one sequence: its query-key pairs
          const double n = csv.number(r, "prefill_chunk_size");
          pts.push_back({n * kv + n * (n + 1) / 2, csv.time(r, "time_stats.attn_prefill.median") * kMs});
        } else {
          pts.push_back({batch * kv, csv.time(r, "time_stats.attn_decode.median") * kMs});
        }
      }
    }
    t.curve = std::make_unique<Curve>(std::move(pts), prefill ? Curve::Below::proportional : Curve::Below::floor,
                                      t.file);
  }
  return *t.curve;
}

const Curve& OpCurve::seconds_by_tokens() const {
  std::lock_guard<std::mutex> lock(file->mutex);
  std::unique_ptr<Curve>& curve = file->curves[{tp, column}];
  if (!curve) {
    const DenseMeasurements::AtTp& at = file->by_tp.at(tp);
    std::vector<std::pair<double, double>> pts;
    pts.reserve(at.rows.size());
    for (size_t i = 0; i < at.rows.size(); ++i)
      pts.push_back({at.tokens[i], file->table.time_at(at.rows[i], column) * kMs});
    curve = std::make_unique<Curve>(std::move(pts), Curve::Below::floor, source);
  }
  return *curve;
}

std::string default_profiles_manifest_path() { return project_dir() + "/models/catalog/profiles.json"; }

std::vector<std::string> profiled_gpu_names(const std::string& manifest_path) {
  nlohmann::json root = json_parse_file(manifest_path);
  std::vector<std::string> names;
  if (root.contains("gpus") && root["gpus"].is_array())
    for (const auto& g : root["gpus"])
      if (g.contains("gpu") && g["gpu"].is_string()) names.push_back(g["gpu"].get<std::string>());
  return names;
}

GpuProfile load_gpu_profile(const std::string& manifest_path, const std::string& gpu, const std::string& data_dir) {
  nlohmann::json root = json_parse_file(manifest_path);
  JsonObject top(root, manifest_path, "$");
  top.string_or("about", "");
  const nlohmann::json& gpus = top.array("gpus");
  top.finish();
  for (size_t i = 0; i < gpus.size(); ++i) {
    JsonObject o(gpus[i], manifest_path, json_index_path("$.gpus", i));
    if (o.string("gpu") != gpu) continue;
    GpuProfile p;
    p.gpu = gpu;
    p.source = o.string("source");
    for (const std::string& f : strings(o.array("dense"), o, "dense")) load_dense(data_dir + "/" + f, p);
    p.all_reduce_file = std::make_shared<AllReduceMeasurements>();
    p.all_reduce_file->path = data_dir + "/" + o.string("all_reduce");
    p.all_reduce_source = o.string("all_reduce");
    const nlohmann::json& pre = o.array("prefill_attention");
    for (size_t k = 0; k < pre.size(); ++k) {
      JsonObject e(pre[k], manifest_path, json_index_path(o.path_of("prefill_attention"), k));
      p.prefill_attention.push_back(attention_curve(e, data_dir, true));
      e.finish();
    }
    const nlohmann::json& dec = o.array("decode_attention");
    for (size_t k = 0; k < dec.size(); ++k) {
      JsonObject e(dec[k], manifest_path, json_index_path(o.path_of("decode_attention"), k));
      p.decode_attention.push_back(attention_curve(e, data_dir, false));
      e.finish();
    }
    std::vector<std::string> cpu;
    for (const std::string& f : strings(o.array("cpu_overheads"), o, "cpu_overheads")) cpu.push_back(data_dir + "/" + f);
    load_cpu_overheads(cpu, p);
    o.finish();
    // Sources name files relative to the calibration folder (the same text on every machine).
    auto strip = [&](std::string& text) {
      const std::string prefix = data_dir + "/";
      for (size_t at; (at = text.find(prefix)) != std::string::npos;) text.erase(at, prefix.size());
    };
    for (OpCurve& c : p.ops) strip(c.source);
    for (AttentionCurve& a : p.prefill_attention) strip(a.source);
    for (AttentionCurve& a : p.decode_attention) strip(a.source);
    for (auto& [tp, s] : p.cpu_overhead_source) strip(s);
    if (p.ops.empty() || p.prefill_attention.empty() || p.decode_attention.empty())
      throw_error("%s: GPU %s: no dense or attention measurements", manifest_path.c_str(), gpu.c_str());
    return p;
  }
  throw_error("%s: no measured profile for GPU \"%s\"", manifest_path.c_str(), gpu.c_str());
}

}  // namespace lynx
