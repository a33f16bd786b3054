#include "experiments/plot_regimes.hpp"

#include "common/error.hpp"

namespace lynx {

namespace {
std::string plot_string(const Experiment& e, const char* key) {
  return e.plot.is_object() && e.plot.contains(key) && e.plot[key].is_string() ? e.plot[key].get<std::string>() : "";
}
// The same, or where absent the default the plot section declares for it (experiment.cpp).
std::string plot_string_or_default(const Experiment& e, const char* key) {
  const std::string given = plot_string(e, key);
  if (!given.empty()) return given;
  const SchemaField* field = schema_find_path(kExperimentSection, (std::string("plot.") + key).c_str());
  if (field == nullptr || field->kind != FieldKind::string || field->string->default_value == nullptr)
    throw_internal_error("the plot section declares no default for %s", key);
  return field->string->default_value;
}

// The series path: one (an array of several is refused), "format" when absent (the plot section's default).
std::string series_of(const Experiment& e) {
  if (!e.plot.is_object() || !e.plot.contains("series")) return "format";
  const nlohmann::json& s = e.plot["series"];
  if (s.is_array() && s.size() == 1) return s[0].get<std::string>();
  if (s.is_array())
    throw_error("%s: $.plot.series: a regime map compares the values of one series path, got %zu paths",
                e.origin.c_str(), s.size());
  return s.get<std::string>();
}

// The index of the axis holding `path`, or -1.
int axis_of(const Experiment& e, const std::string& path) {
  for (size_t i = 0; i < e.axes.size(); ++i)
    for (const std::string& p : e.axes[i].paths)
      if (p == path) return static_cast<int>(i);
  return -1;
}

std::vector<std::string> facets_of(const Experiment& e) {
  std::vector<std::string> out;
  if (!e.plot.is_object() || !e.plot.contains("facet")) return out;
  const nlohmann::json& f = e.plot["facet"];
  if (f.is_string()) out.push_back(f.get<std::string>());
  for (const auto& v : f.is_array() ? f : nlohmann::json::array()) out.push_back(v.get<std::string>());
  return out;
}
}  // namespace

bool plot_is_regime_map(const Experiment& e) {
  return plot_string(e, "kind") == kPlotKindNames.name(PlotKind::regime_map);
}

void regime_map_check(const Experiment& e) {
  const std::string x = plot_string_or_default(e, "x");
  const std::string y = plot_string(e, "y"), series = series_of(e);
  if (y.empty()) throw_error("%s: $.plot.y: a regime map needs a y axis (a sweep axis path)", e.origin.c_str());
  const std::pair<const char*, std::string> named[] = {{"x", x}, {"y", y}, {"series", series}};
  int axes[3];
  for (int k = 0; k < 3; ++k) {
    axes[k] = axis_of(e, named[k].second);
    if (axes[k] < 0)
      throw_error("%s: $.plot.%s: \"%s\" is not a sweep axis", e.origin.c_str(), named[k].first,
                  named[k].second.c_str());
  }
  if (axes[0] == axes[1] || axes[0] == axes[2] || axes[1] == axes[2])
    throw_error("%s: $.plot: a regime map's x, y and series must be different sweep axes", e.origin.c_str());
  for (const std::string& f : facets_of(e))
    if (axis_of(e, f) < 0) throw_error("%s: $.plot.facet: \"%s\" is not a sweep axis", e.origin.c_str(), f.c_str());
  bool lynx = false, other = false;
  const SweepAxis& s = e.axes[static_cast<size_t>(axes[2])];
  size_t at = 0;
  while (s.paths[at] != series) ++at;
  for (const nlohmann::json& v : s.values) {
    const nlohmann::json& value = s.paths.size() > 1 ? v[at] : v;
    const bool is_lynx = value.is_string() && value.get<std::string>().rfind("lynx", 0) == 0;
    (is_lynx ? lynx : other) = true;
  }
  if (!lynx || !other)
    throw_error("%s: $.plot.series: a regime map needs a value starting \"lynx\" and another to compare it with",
                e.origin.c_str());
}

nlohmann::json regime_map_request(const Experiment& e, const std::string& out_dir) {
  regime_map_check(e);
  nlohmann::json request = {{"name", e.name},
                            {"x", plot_string_or_default(e, "x")},
                            {"y", plot_string(e, "y")},
                            {"series", series_of(e)},
                            {"facets", facets_of(e)},
                            {"out_dir", out_dir}};
  nlohmann::json axes = nlohmann::json::array();
  for (const SweepAxis& a : e.axes) axes.push_back(a.paths);
  request["axes"] = axes;
  return request;
}

}  // namespace lynx
