#include "experiments/experiment.hpp"

#include <cstdio>
#include <filesystem>

#include "common/error.hpp"
#include "common/json_reader.hpp"
#include "sim/config/sim_config.hpp"
#include "traces/workload_spec.hpp"

namespace lynx {

void json_set_path(nlohmann::json& config, const std::string& path, const nlohmann::json& value) {
  nlohmann::json* node = &config;
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (key.empty()) throw_error("empty component in JSON path \"%s\"", path.c_str());
    // A number indexes an existing element of an array (cluster.network.site_links.0.latency_ms).
    if (node->is_array() && key.find_first_not_of("0123456789") == std::string::npos) {
      const size_t index = std::stoul(key);
      if (index >= node->size())
        throw_error("JSON path \"%s\": index %zu is past the end of an array of %zu", path.c_str(), index,
                    node->size());
      if (dot == std::string::npos) {
        if (value.is_null()) throw_error("JSON path \"%s\": null cannot remove an array element", path.c_str());
        (*node)[index] = value;
        return;
      }
      node = &(*node)[index];
      start = dot + 1;
      continue;
    }
    if (!node->is_object()) throw_error("JSON path \"%s\": \"%s\" is inside a value that is not an object",
                                        path.c_str(), key.c_str());
    if (dot == std::string::npos) {
      if (value.is_null()) node->erase(key);  // null leaves the field out: it takes its default
      else (*node)[key] = value;
      return;
    }
    node = &(*node)[key];
    if (node->is_null()) *node = nlohmann::json::object();
    start = dot + 1;
  }
}

namespace {
// Every field of an experiment file, declared once (common/json_schema.hpp): read below, printed by
// `lynxsim config --schema`.
constexpr StringField kAxisPath{"path", nullptr, "a dotted JSON path into base, e.g. cluster.network.nic_gbps",
                                "the configuration field this axis sets (one of path, paths)"};
constexpr ArrayField kAxisPaths{"paths", "a non-empty array of dotted JSON paths",
                                "a linked axis: several fields that move together (one of path, paths)"};
constexpr ArrayField kAxisValues{"values", "a non-empty array; for linked paths each value is an array, one entry per "
                                 "path; null leaves the field at its default",
                                 "the values the axis takes", true};
constexpr SchemaField kAxisFields[] = {{kAxisPath}, {kAxisPaths}, {kAxisValues}};
constexpr SchemaSection kAxisSection =
    schema_section("Sweep axis", "One axis of the sweep: the fields it sets and their values.", kAxisFields);

constexpr ChoiceField kMode{"mode", kSweepModeNames.name(SweepMode::cross), kSweepModeNames.choices(),
                            "cross: every combination, the first axis varying slowest; zip: the i-th values together"};
constexpr ArrayField kAxes{"axes", "a non-empty array of axis objects", "the sweep axes", true, &kAxisSection};
constexpr SchemaField kSweepFields[] = {{kMode}, {kAxes}};
constexpr SchemaSection kSweepSection =
    schema_section("Sweep", "How the points are made from the base configuration.", kSweepFields);

constexpr StringField kPlotX{"x", "cluster.network.nic_gbps", "a sweep axis path", "the x axis of every plot"};
constexpr ValueField kPlotSeries{
    "series", "a sweep axis path, or an array of them (absent: \"format\")",
    "one line per value of this axis; given several, one line per combination of their values, named by the first "
    "path's value and the others' (path=value); a baseline or a ratio names a value of the first path, compared with "
    "the line of the same other values (regime-map: one path)"};
constexpr ValueField kPlotFacet{"facet", "a sweep axis path, or an array of them",
                                "one panel per value (every other axis with several values must be named here)"};
constexpr StringField kPlotBaseline{"baseline", "bf16", "a value of the series axis",
                                    "the series TTFT is shown relative to (given, it must be a value of the series "
                                    "axis; the default, bf16, is drawn against only when the series has it)"};
constexpr ValueField kPlotCdfAt{"cdf_at", "a value of the x axis (number or string)",
                                "plot TTFT CDFs at this x value (default: no CDF plot)"};
constexpr ArrayField kPlotRatios{"ratios",
                                 "[{\"numerator\": [series, metric], \"denominator\": [series, metric]}, ...]; "
                                 "metric: a `lynxsim plot --metric` name with a median",
                                 "ratio tables of median metrics between two series"};
constexpr ArrayField kPlotFrontier{"frontier", "an array of `lynxsim plot --metric` names with a median",
                                   "anchor-width frontier plots of the Lynx splits for these metrics"};
constexpr ChoiceField kPlotKind{"kind", kPlotKindNames.name(PlotKind::lines), kPlotKindNames.choices(),
                                "lines: one line per series over x, panels per facet; regime-map: heatmaps over x and "
                                "y of the gain of the series' lynx values over each other value, one panel per "
                                "first-token definition and e2el (experiments/plot_regimes.py)"};
constexpr StringField kPlotY{"y", nullptr, "a sweep axis path",
                             "regime-map: the y axis (every axis but x, y and series is a figure of its own)"};
constexpr SchemaField kPlotFields[] = {{kPlotKind},  {kPlotX},      {kPlotY, ExampleUse::commented, "\"workload.synthetic.input_tokens.fixed\""},
                                       {kPlotSeries}, {kPlotFacet},  {kPlotBaseline},
                                       {kPlotCdfAt}, {kPlotRatios}, {kPlotFrontier}};
constexpr SchemaSection kPlotSection = schema_section(
    "Plots", "What `lynxsim plot` draws. What the fields name is checked against the sweep before a run and before "
    "a plot (experiments/plot_request.hpp): x, series and facet are axes, cdf_at a value of x, metrics those of "
    "`lynxsim plot --help` that have a median.",
    kPlotFields);

constexpr StringField kName{"name", nullptr, "a name", "names the default results directory, results/<name>", true};
constexpr StringField kDescription{"description", "", "any text", "what the experiment shows"};
constexpr ObjectField kBase{"base", nullptr,
                            "a simulation configuration (the fields above): every point starts from it", true};
constexpr ObjectField kSweep{"sweep", &kSweepSection, "the sweep (absent: one point, the base)", false, false};
constexpr ObjectField kPlot{"plot", &kPlotSection, "plots of the results"};
constexpr SchemaField kExperimentFields[] = {{kName}, {kDescription}, {kBase}, {kSweep}, {kPlot}};

// The plot options' types; what they name is checked against the sweep by plot_request_read (plot_request.hpp).
void check_plot(JsonObject& plot) {
  (void)plot.get(kPlotKind);
  if (plot.has(kPlotY.key)) (void)plot.get(kPlotY);
  for (const StringField* f : {&kPlotX, &kPlotBaseline}) (void)plot.get(*f);
  const nlohmann::json& series = plot.get(kPlotSeries);
  bool series_ok = series.is_null() || series.is_string() || (series.is_array() && !series.empty());
  for (const auto& v : series.is_array() ? series : nlohmann::json::array()) series_ok = series_ok && v.is_string();
  if (!series_ok) plot.fail(kPlotSeries.key, kPlotSeries.form);
  const nlohmann::json& facet = plot.get(kPlotFacet);
  bool facet_ok = facet.is_null() || facet.is_string() || (facet.is_array() && !facet.empty());
  for (const auto& v : facet.is_array() ? facet : nlohmann::json::array()) facet_ok = facet_ok && v.is_string();
  if (!facet_ok) plot.fail(kPlotFacet.key, kPlotFacet.form);
  const nlohmann::json& cdf_at = plot.get(kPlotCdfAt);
  if (!cdf_at.is_null() && !cdf_at.is_number() && !cdf_at.is_string()) plot.fail(kPlotCdfAt.key, kPlotCdfAt.form);
  (void)plot.get(kPlotRatios);
  (void)plot.get(kPlotFrontier);
  plot.finish();
}

// A short, file-system-safe rendering of an axis value.
std::string value_label(const nlohmann::json& v) {
  std::string text = v.is_string() ? v.get<std::string>() : v.dump();
  std::string out;
  for (char c : text) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_') ? c : '_';
  return out.substr(0, 40);
}

std::string axis_label(const std::string& path) {
  size_t dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

// An experiment's name is the default results folder's last component: one path component of safe characters,
// so "../../escaped" cannot write outside results/ and "" not into results/ itself. 100 characters keep
// results/<name>/<point> well under PATH_MAX with the point names (a choice, not a system limit).
void check_name(const std::string& name, const std::string& origin) {
  constexpr size_t kMaxNameChars = 100;
  bool ok = !name.empty() && name.size() <= kMaxNameChars && name.front() != '.' && name.front() != '-';
  for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_');
  if (!ok)
    throw_error("%s: $.name: expected a name of 1 to %zu letters, digits, '-', '_' and '.' (not first: '.', '-'), "
                "one folder name under results/; got %s",
                origin.c_str(), kMaxNameChars, nlohmann::json(name).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace).c_str());
}

void validate_point(const Experiment& e, const SweepPoint& p) {
  try {
    SimConfig config = sim_config_from_json(p.config, "the point's configuration (base + axis values)", e.base_dir);
    JsonObject workload(config.workload, config.origin, "$.workload");
    workload_spec_from_json(workload, e.base_dir);
  } catch (const LynxError& error) {
    std::string where;
    size_t v = 0;
    for (const SweepAxis& axis : e.axes)
      for (const std::string& path : axis.paths) where += (where.empty() ? "" : ", ") + path + " = " + p.values[v++].dump();
    throw_error("%s: sweep point %zu (%s): %s", e.origin.c_str(), p.index, where.empty() ? "base" : where.c_str(),
                error.what());
  }
}
}  // namespace

const char* sweep_mode_name(SweepMode mode) { return kSweepModeNames.name(mode); }

Experiment experiment_from_json(const nlohmann::json& root, const std::string& origin, const std::string& base_dir,
                                bool validate) {
  Experiment e;
  e.origin = origin;
  e.base_dir = base_dir;
  e.source = root;
  JsonObject top(root, origin, "$", &kExperimentSection);
  e.name = top.get(kName);
  check_name(e.name, origin);
  e.description = top.get(kDescription);
  e.base = top.get(kBase).value();
  if (top.has(kSweep.key)) {
    JsonObject sweep = top.get(kSweep);
    e.mode = sweep.get_enum<SweepMode>(kMode);
    const nlohmann::json& axes = sweep.get(kAxes);
    if (axes.empty())
      throw_error("%s: $.sweep.axes: expected at least one axis (leave \"sweep\" out for a single point)",
                  origin.c_str());
    for (size_t i = 0; i < axes.size(); ++i) {
      JsonObject axis(axes[i], origin, json_index_path("$.sweep.axes", i), &kAxisSection);
      SweepAxis a;
      if (axis.has(kAxisPaths.key)) {
        const nlohmann::json& paths = axis.get(kAxisPaths);
        for (const auto& p : paths) {
          if (!p.is_string()) axis.fail(kAxisPaths.key, "an array of JSON path strings");
          a.paths.push_back(p.get<std::string>());
        }
        if (a.paths.empty()) axis.fail(kAxisPaths.key, "a non-empty array of JSON path strings");
      } else {
        a.paths.push_back(axis.get(kAxisPath));
      }
      const nlohmann::json& values = axis.get(kAxisValues);
      if (values.empty()) axis.fail(kAxisValues.key, "a non-empty array");
      for (size_t k = 0; k < values.size(); ++k) {
        if (a.paths.size() > 1 && (!values[k].is_array() || values[k].size() != a.paths.size()))
          throw_error("%s: %s.values[%zu]: expected an array of %zu values, one per path", origin.c_str(),
                      axis.path().c_str(), k, a.paths.size());
        a.values.push_back(values[k]);
      }
      axis.finish();
      // Each path once: a path set twice (in one linked axis, by two axes, or inside another swept path) would
      // run one value in a folder labelled with another.
      for (size_t k = 0; k < a.paths.size(); ++k)
        for (size_t j = 0; j < k; ++j)
          if (paths_overlap(a.paths[j], a.paths[k]))
            throw_error("%s: %s.paths: \"%s\" and \"%s\" set the same field; name each path once", origin.c_str(),
                        axis.path().c_str(), a.paths[j].c_str(), a.paths[k].c_str());
      for (const SweepAxis& other : e.axes)
        for (const std::string& p : other.paths)
          for (const std::string& q : a.paths)
            if (paths_overlap(p, q))
              throw_error("%s: %s: path \"%s\" is already swept by another axis (\"%s\")", origin.c_str(),
                          axis.path().c_str(), q.c_str(), p.c_str());
      for (size_t k = 0; k < a.values.size(); ++k)
        for (size_t j = 0; j < k; ++j)
          if (a.values[j] == a.values[k])
            throw_error("%s: %s.values[%zu]: %s again (values[%zu]); each value once", origin.c_str(),
                        axis.path().c_str(), k, a.values[k].dump().c_str(), j);
      e.axes.push_back(a);
    }
    if (e.mode == SweepMode::zip)
      for (size_t i = 1; i < e.axes.size(); ++i)
        if (e.axes[i].values.size() != e.axes[0].values.size())
          throw_error("%s: $.sweep.axes[%zu].values: zip needs every axis to have %zu values, got %zu", origin.c_str(), i,
                      e.axes[0].values.size(), e.axes[i].values.size());
    sweep.finish();
  }
  if (top.has(kPlot.key)) {
    JsonObject plot = top.get(kPlot);
    check_plot(plot);
    e.plot = plot.value();
  }
  top.finish();

  // Expand the points.
  // Each point is a process and a results folder: a sweep beyond kMaxPoints is a mistake, not a plan (split it
  // with --shard across machines instead).
  constexpr size_t kMaxPoints = 100000;
  size_t count = 1;
  if (e.mode == SweepMode::zip) {
    count = e.axes.empty() ? 1 : e.axes[0].values.size();
  } else {
    for (const SweepAxis& a : e.axes) {
      if (count > kMaxPoints / a.values.size())
        throw_error("%s: $.sweep.axes: the cross product has more than %zu points; sweep fewer values or split the "
                    "experiment",
                    origin.c_str(), kMaxPoints);
      count *= a.values.size();
    }
  }
  if (count > kMaxPoints)
    throw_error("%s: $.sweep.axes: %zu points is more than %zu; sweep fewer values or split the experiment",
                origin.c_str(), count, kMaxPoints);
  for (size_t index = 0; index < count; ++index) {
    SweepPoint p;
    p.index = index;
    p.config = e.base;
    char prefix[32];
    std::snprintf(prefix, sizeof prefix, "p%04zu", index);
    p.name = prefix;
    size_t rest = index;
    std::vector<size_t> choice(e.axes.size());
    for (size_t a = e.axes.size(); a-- > 0;) {  // last axis varies fastest
      choice[a] = e.mode == SweepMode::zip ? index : rest % e.axes[a].values.size();
      if (e.mode != SweepMode::zip) rest /= e.axes[a].values.size();
    }
    for (size_t a = 0; a < e.axes.size(); ++a) {
      const SweepAxis& axis = e.axes[a];
      const nlohmann::json& v = axis.values[choice[a]];
      for (size_t k = 0; k < axis.paths.size(); ++k) {
        const nlohmann::json& value = axis.paths.size() > 1 ? v[k] : v;
        try {
          json_set_path(p.config, axis.paths[k], value);
        } catch (const LynxError& error) {
          throw_error("%s: $.sweep.axes[%zu]: %s", origin.c_str(), a, error.what());
        }
        p.values.push_back(value);
      }
      p.name += "_" + axis_label(axis.path()) + "=" + value_label(axis.paths.size() > 1 ? v[0] : v);
    }
    if (validate) validate_point(e, p);
    e.points.push_back(std::move(p));
  }
  return e;
}

extern constexpr SchemaSection kExperimentSection = schema_section(
    "Experiment", "A base configuration plus sweep axes addressed by JSON path into it. Relative paths in base "
    "resolve against the experiment file's directory.", kExperimentFields);

void experiment_check_kind(const nlohmann::json& root, const std::string& path) {
  if (root.is_object() && !root.contains("base") && !root.contains("sweep") &&
      (root.contains("model") || root.contains("cluster") || root.contains("workload")))
    throw_error("%s: a simulation configuration (no \"base\" or \"sweep\"), not an experiment: simulate it with "
                "`lynxsim simulate --config %s --out DIR`, or sweep it from an experiment whose \"base\" holds it",
                path.c_str(), path.c_str());
}

Experiment experiment_load(const std::string& path) {
  nlohmann::json root = json_parse_file(path, true);
  experiment_check_kind(root, path);
  return experiment_from_json(root, path, std::filesystem::path(path).parent_path().string());
}

bool paths_overlap(const std::string& a, const std::string& b) {
  const std::string& shorter = a.size() <= b.size() ? a : b;
  const std::string& longer = a.size() <= b.size() ? b : a;
  return longer.compare(0, shorter.size(), shorter) == 0 &&
         (longer.size() == shorter.size() || longer[shorter.size()] == '.');
}

}  // namespace lynx
