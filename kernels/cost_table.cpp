#include "kernels/cost_table.hpp"

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/json_reader.hpp"
#include "kernels/kv_format.hpp"

namespace lynx {

const std::vector<std::string>& kernel_names() {
  static const std::vector<std::string> names = {"encode", "decode_full", "decode_anchor", "attention_full",
                                                 "attention_anchor"};
  return names;
}

namespace {
bool is_anchor_kernel(const std::string& kernel) { return kernel == "decode_anchor" || kernel == "attention_anchor"; }
std::string full_kernel_of(const std::string& kernel) {
  return kernel == "decode_anchor" ? "decode_full" : kernel == "attention_anchor" ? "attention_full" : kernel;
}
}  // namespace

bool kernel_applies(const std::string& kernel, const std::string& format_name) {
  return !is_anchor_kernel(kernel) || kv_format_parse(format_name).residual_bits > 0;
}

const KernelCost* CostTable::find(const std::string& kernel, const std::string& format_name) const {
  for (const auto& k : kernels)
    if (k.kernel == kernel && k.format == format_name) return &k;
  const KvFormat want = kv_format_parse(format_name);
  if (is_anchor_kernel(kernel) && want.residual_bits == 0) return find(full_kernel_of(kernel), format_name);
  if (!want.is_grouped()) return nullptr;
  const KernelCost* best = nullptr;
  int best_group = 0;
  for (const auto& k : kernels) {
    if (k.kernel != kernel) continue;
    const KvFormat f = kv_format_parse(k.format);
    if (f.kind != want.kind || f.anchor_bits != want.anchor_bits || f.residual_bits != want.residual_bits ||
        f.split != want.split)
      continue;
    const int distance = std::abs(f.group_size - want.group_size), best_distance = std::abs(best_group - want.group_size);
    if (!best || distance < best_distance || (distance == best_distance && f.group_size > best_group)) {
      best = &k;
      best_group = f.group_size;
    }
  }
  return best;
}

double CostTable::elements_per_s(const std::string& kernel, const std::string& format_name) const {
  bool known = false;
  for (const auto& name : kernel_names()) known = known || name == kernel;
  if (!known) throw_error("kernel cost table: unknown kernel \"%s\"", kernel.c_str());
  if (const KernelCost* k = find(kernel, format_name)) return k->elements_per_s;
  std::string have;
  for (const auto& k : kernels)
    if (k.kernel == kernel) have += (have.empty() ? "" : ", ") + k.format;
  throw_error("%s: no %s cost for KV format \"%s\" nor for a format of the same kind and bits (the table has: %s)",
              origin.empty() ? ("kernel cost table of " + device).c_str() : origin.c_str(), kernel.c_str(),
              format_name.c_str(), have.empty() ? "none" : have.c_str());
}

std::string cost_table_json(const CostTable& t) {
  nlohmann::ordered_json j;
  j["device"] = t.device;
  j["device_kind"] = t.device_kind;
  j["measured"] = t.measured;
  if (!t.measured) j["derived_from"] = t.derived_from;
  j["date"] = t.date;
  j["copy_bytes_per_s"] = t.copy_bytes_per_s;
  j["source_type"] = t.source_type;
  j["timer"] = t.timer;
  j["repeats"] = t.repeats;
  j["warmup"] = t.warmup;
  j["shape"] = {{"batch", t.batch}, {"tokens", t.tokens}, {"kv_heads", t.kv_heads}, {"n_heads", t.n_heads},
                {"head_dim", t.head_dim}};
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& k : t.kernels) {
    nlohmann::ordered_json e;
    e["kernel"] = k.kernel;
    e["format"] = k.format;
    e["input_bytes_per_s"] = k.input_bytes_per_s;
    e["elements_per_s"] = k.elements_per_s;
    e["ratio_to_copy"] = k.ratio_to_copy;
    e["traffic_bytes_per_s"] = k.traffic_bytes_per_s;
    e["traffic_ratio_to_copy"] = k.traffic_ratio_to_copy;
    e["input_bytes_per_element"] = k.input_bytes_per_element;
    e["output_bytes_per_element"] = k.output_bytes_per_element;
    e["median_s"] = k.median_s;
    e["elements"] = k.elements;
    list.push_back(e);
  }
  j["kernels"] = list;
  return j.dump(2) + "\n";
}

void save_cost_table(const CostTable& table, const std::string& path) { write_file_atomic(path, cost_table_json(table)); }

CostTable load_cost_table(const std::string& path) { return cost_table_parse(json_file_text(path), path); }

CostTable cost_table_parse(const std::string& text, const std::string& path) {
  const nlohmann::json root = json_parse_text(text, path);
  JsonObject o(root, path, "$");
  CostTable t;
  t.origin = path;
  t.device = o.string("device");
  t.device_kind = o.choice("device_kind", {"cpu", "cuda"});
  if (!o.has("measured") || !root["measured"].is_boolean()) o.fail("measured", "true or false");
  t.measured = o.boolean_or("measured", false);
  if (!t.measured) t.derived_from = o.string("derived_from");
  t.date = o.string("date");
  t.copy_bytes_per_s = o.positive_number("copy_bytes_per_s");
  t.source_type = o.choice_or("source_type", {"float32", "bf16"}, "bf16");
  t.timer = o.string_or("timer", "");
  t.repeats = o.non_negative_integer_or("repeats", 0);
  t.warmup = o.non_negative_integer_or("warmup", 0);
  if (o.has("shape")) {
    JsonObject s = o.object("shape");
    t.batch = s.non_negative_integer_or("batch", 0);
    t.tokens = s.non_negative_integer_or("tokens", 0);
    t.kv_heads = s.non_negative_integer_or("kv_heads", 0);
    t.n_heads = s.non_negative_integer_or("n_heads", 0);
    t.head_dim = s.non_negative_integer_or("head_dim", 0);
    s.finish();
  }
  const nlohmann::json& list = o.array("kernels");
  for (size_t i = 0; i < list.size(); ++i) {
    JsonObject e(list[i], path, json_index_path("$.kernels", i));
    KernelCost k;
    k.kernel = e.choice("kernel", kernel_names());
    k.format = e.string("format");
    try {
      kv_format_parse(k.format);
    } catch (const LynxError& error) {
      throw_error("%s: %s: %s", path.c_str(), e.path_of("format").c_str(), error.what());
    }
    if (!kernel_applies(k.kernel, k.format)) e.fail("kernel", "a kernel that applies to " + k.format + " (it has no residual)");
    k.input_bytes_per_s = e.positive_number("input_bytes_per_s");
    k.elements_per_s = e.positive_number("elements_per_s");
    k.ratio_to_copy = e.non_negative_number("ratio_to_copy");
    k.traffic_bytes_per_s = e.non_negative_number_or("traffic_bytes_per_s", 0);
    k.traffic_ratio_to_copy = e.non_negative_number_or("traffic_ratio_to_copy", 0);
    k.input_bytes_per_element = e.non_negative_number_or("input_bytes_per_element", 0);
    k.output_bytes_per_element = e.non_negative_number_or("output_bytes_per_element", 0);
    k.median_s = e.non_negative_number_or("median_s", 0);
    k.elements = e.non_negative_integer_or("elements", 0);
    e.finish();
    for (const auto& other : t.kernels)
      if (other.kernel == k.kernel && other.format == k.format)
        throw_error("%s: %s: a second %s entry for %s", path.c_str(), json_index_path("$.kernels", i).c_str(),
                    k.kernel.c_str(), k.format.c_str());
    t.kernels.push_back(k);
  }
  o.finish();
  return t;
}

void cost_table_check_complete(const CostTable& t, const std::vector<std::string>& formats) {
  const std::string where = t.origin.empty() ? "kernel cost table of " + t.device : t.origin;
  if (!(t.copy_bytes_per_s > 0)) throw_error("%s: no copy bandwidth", where.c_str());
  for (const auto& format : formats)
    for (const auto& kernel : kernel_names()) {
      if (!kernel_applies(kernel, format)) continue;
      const KernelCost* found = nullptr;
      for (const auto& k : t.kernels)
        if (k.kernel == kernel && k.format == format) found = &k;
      if (!found) throw_error("%s: no %s entry for %s", where.c_str(), kernel.c_str(), format.c_str());
      if (!(found->elements_per_s > 0) || !(found->input_bytes_per_s > 0))
        throw_error("%s: %s of %s has no positive figure", where.c_str(), kernel.c_str(), format.c_str());
    }
}

}  // namespace lynx
