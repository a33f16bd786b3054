#include "experiments/plot_request.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "common/error.hpp"
#include "common/json_reader.hpp"
#include "experiments/results.hpp"
#include "sim/output/requests_csv.hpp"
#include "sim/config/sim_config.hpp"

namespace lynx {

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += (text.empty() ? "" : ", ") + n;
  return text;
}

namespace {

// The plot section's declarations: the schema the experiment was read with.
const SchemaSection& plot_section() {
  const SchemaField* plot = schema_find(kExperimentSection, "plot");
  if (plot == nullptr || plot->kind != FieldKind::object || plot->object->section == nullptr)
    throw std::logic_error("the experiment schema declares no plot section");
  return *plot->object->section;
}
const SchemaField& plot_field(const char* key, FieldKind kind) {
  const SchemaField* f = schema_find(plot_section(), key);
  if (f == nullptr || f->kind != kind) throw std::logic_error(std::string("plot section: no field ") + key);
  return *f;
}

// The paths of the sweep axes, linked ones flattened, in the order of a point's values.
std::vector<std::string> axis_paths(const Experiment& e) {
  std::vector<std::string> paths;
  for (const SweepAxis& a : e.axes) paths.insert(paths.end(), a.paths.begin(), a.paths.end());
  return paths;
}

size_t axis_index(const Experiment& e, const std::string& path) {
  const std::vector<std::string> paths = axis_paths(e);
  return static_cast<size_t>(std::find(paths.begin(), paths.end(), path) - paths.begin());
}

// The values `path` takes in the sweep, as summary.csv writes them, in the axis's order.
std::vector<std::string> axis_texts(const Experiment& e, const std::string& path) {
  for (const SweepAxis& a : e.axes)
    for (size_t k = 0; k < a.paths.size(); ++k)
      if (a.paths[k] == path) {
        std::vector<std::string> texts;
        for (const nlohmann::json& v : a.values) texts.push_back(summary_csv_field(a.paths.size() > 1 ? v[k] : v));
        return texts;
      }
  return {};
}

// A text as a number, as the plotting script compares x values: the whole text parses, or it is not a number.
bool as_number(const std::string& text, double& value) {
  if (text.empty()) return false;
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

// The x values in plotting order: each once, ascending when every one is a number, else in sweep order.
std::vector<std::string> ordered_x(const std::vector<std::string>& texts) {
  std::vector<std::string> xs;
  for (const std::string& t : texts)
    if (std::find(xs.begin(), xs.end(), t) == xs.end()) xs.push_back(t);
  double a = 0, b = 0;
  for (const std::string& t : xs)
    if (!as_number(t, a)) return xs;
  std::stable_sort(xs.begin(), xs.end(), [&](const std::string& l, const std::string& r) {
    as_number(l, a);
    as_number(r, b);
    return a < b;
  });
  return xs;
}

// The x value `wanted` names (a number equal to it, or the same text), or throws naming `where` and the x values.
std::string match_x(const std::string& wanted, const std::vector<std::string>& xs, const std::string& x_path,
                    const std::string& where) {
  double w = 0, x = 0;
  const bool numeric = as_number(wanted, w);
  for (const std::string& candidate : xs)
    if (numeric ? as_number(candidate, x) && x == w : !as_number(candidate, x) && candidate == wanted) return candidate;
  throw_error("%s %s: not a value of %s (%s)", where.c_str(), wanted.c_str(), x_path.c_str(), joined(xs).c_str());
}

std::vector<std::string> distribution_names() {
  std::vector<std::string> names;
  for (const RequestDistribution& d : kRequestDistributions) names.emplace_back(d.name);
  return names;
}

const RequestDistribution& distribution(const std::string& name) {
  for (const RequestDistribution& d : kRequestDistributions)
    if (name == d.name) return d;
  throw std::logic_error("no per-request distribution " + name);
}

// A metric a ratio or the frontier names: one with a median in the summary.
void check_median_metric(const nlohmann::json& name, const std::string& origin, const std::string& path) {
  for (const RequestDistribution& d : kRequestDistributions)
    if (name == d.name) return;
  throw_error("%s: %s: \"%s\" is not a metric with a median (valid: %s)", origin.c_str(), path.c_str(),
              name.get<std::string>().c_str(), joined(distribution_names()).c_str());
}

void check_strings(const nlohmann::json& v, const std::string& origin, const std::string& path, size_t count,
                   const char* expected) {
  bool ok = v.is_array() && (count == 0 || v.size() == count);
  if (ok)
    for (const auto& e : v) ok = ok && e.is_string();
  if (!ok) throw_error("%s: %s: expected %s, got %s", origin.c_str(), path.c_str(), expected, v.dump().c_str());
}

// The paths a series line is told apart by besides `series` itself: where `series` is one path of a linked axis
// and two of the axis's values share its text (the adaptive policy's int8 reference beside fixed int8), the axis's
// other paths that differ between them. Without them two series would be drawn as one line.
std::vector<std::string> series_extra_paths(const Experiment& e, const std::string& series) {
  std::vector<std::string> extra;
  for (const SweepAxis& a : e.axes) {
    if (a.paths.size() < 2 || std::find(a.paths.begin(), a.paths.end(), series) == a.paths.end()) continue;
    const std::vector<std::string> named = axis_texts(e, series);
    for (const std::string& p : a.paths) {
      if (p == series) continue;
      const std::vector<std::string> texts = axis_texts(e, p);
      bool differs = false;
      for (size_t i = 0; i < named.size() && !differs; ++i)
        for (size_t j = i + 1; j < named.size() && !differs; ++j) differs = named[i] == named[j] && texts[i] != texts[j];
      if (differs) extra.push_back(p);
    }
  }
  return extra;
}

// x, series and the facets are sweep axes, and every other axis with several values is linked to one of them.
void check_axes(const Experiment& e, const PlotRequest& r, bool facet_is_array) {
  const std::vector<std::string> paths = axis_paths(e);
  auto is_axis = [&](const std::string& p) { return std::find(paths.begin(), paths.end(), p) != paths.end(); };
  std::vector<std::pair<std::string, std::string>> named = {{"x", r.x}};
  const bool series_is_array = !r.series_more.empty();
  named.emplace_back(series_is_array ? "series[0]" : "series", r.series);
  for (size_t i = 0; i < r.series_more.size(); ++i)
    named.emplace_back("series[" + std::to_string(i + 1) + "]", r.series_more[i]);
  for (size_t i = 0; i < r.facets.size(); ++i)
    named.emplace_back(!facet_is_array ? "facet" : "facet[" + std::to_string(i) + "]",
                       r.facets[i]);
  for (const auto& [key, path] : named)
    if (!is_axis(path))
      throw_error("%s: $.plot.%s: \"%s\" is not a sweep axis (axes: %s)", e.origin.c_str(), key.c_str(), path.c_str(),
                  joined(paths).c_str());
  for (const SweepAxis& a : e.axes) {
    bool is_named = false;
    for (const std::string& p : a.paths)
      for (const auto& [key, path] : named) is_named = is_named || p == path;
    if (is_named) continue;
    for (const std::string& p : a.paths) {
      std::vector<std::string> texts = axis_texts(e, p);
      std::sort(texts.begin(), texts.end());
      if (std::unique(texts.begin(), texts.end()) - texts.begin() > 1)
        throw_error("%s: $.plot: axis \"%s\" has several values; name it as \"facet\"", e.origin.c_str(), p.c_str());
    }
  }
}

// The metrics a plot of this request shows on its y axis (or, for a CDF, its x axis): --metric's, or the standard
// plots' three first-token times and the frontier's metrics.
std::vector<std::string> shown_metrics(const PlotRequest& r) {
  if (r.metric != nullptr) return {r.metric->name};
  std::vector<std::string> shown = {"ttft", "ttft_correct", "ttft_spec"};
  for (const std::string& f : r.frontier)
    if (std::find(shown.begin(), shown.end(), f) == shown.end()) shown.push_back(f);
  return shown;
}

// --slo METRIC:VALUE: a metric in ms that a plot of this request shows, and a positive finite value.
PlotSlo read_slo(const std::string& text, const PlotRequest& r) {
  std::vector<std::string> ms_metrics;
  for (const PlotMetric& m : plot_metrics())
    if (std::string(m.unit) == "ms") ms_metrics.emplace_back(m.name);
  const size_t colon = text.find(':');
  double value = 0;
  if (colon == std::string::npos || !as_number(text.substr(colon + 1), value))
    throw_error("--slo %s: expected METRIC:VALUE with VALUE in ms, e.g. --slo ttft:2000 (metrics: %s)", text.c_str(),
                joined(ms_metrics).c_str());
  const std::string name = text.substr(0, colon);
  const PlotMetric* m = plot_metric(name);
  if (m == nullptr || std::string(m->unit) != "ms")
    throw_error("--slo %s: %s is not a metric in ms (valid: %s)", text.c_str(), name.c_str(),
                joined(ms_metrics).c_str());
  if (!(value > 0) || !std::isfinite(value))
    throw_error("--slo %s: the target must be a positive number of ms, got %s", text.c_str(),
                text.substr(colon + 1).c_str());
  const std::vector<std::string> shown = shown_metrics(r);
  if (std::find(shown.begin(), shown.end(), name) == shown.end())
    throw_error("--slo %s: no plot of this command shows %s (these do: %s); add --metric %s", text.c_str(),
                name.c_str(), joined(shown).c_str(), name.c_str());
  return {m, value};
}

// --metric, --stat, --cdf and --at against the metric table and the x values.
void read_metric_options(const PlotOptions& o, const std::vector<std::string>& xs, PlotRequest& r) {
  if (o.metric.empty()) {
    const std::pair<const char*, bool> given[] = {{"--stat", !o.stat.empty()},
                                                  {"--cdf", o.cdf},
                                                  {"--at", !o.at_values.empty()}};
    for (const auto& [option, is_given] : given)
      if (is_given) throw_error("%s needs --metric (one of: %s)", option, joined(plot_metric_names()).c_str());
    return;
  }
  const PlotMetric* m = plot_metric(o.metric);
  if (m == nullptr)
    throw_error("--metric %s: unknown metric (valid: %s)", o.metric.c_str(), joined(plot_metric_names()).c_str());
  r.metric = m;
  const std::string stat = o.cdf ? std::string() : o.stat;
  if (m->kind == PlotMetricKind::one_value) {
    if (!stat.empty())
      throw_error("--stat %s: %s is one value per point (%s in summary.json); leave --stat out", stat.c_str(), m->name,
                  m->column);
  } else {
    r.stat = !stat.empty() ? stat : m->kind == PlotMetricKind::distribution ? "p50" : "mean";
    if (plot_metric_column(*m, r.stat).empty()) {
      std::vector<std::string> stats, columns;
      for (const std::string& s : plot_stat_names())
        if (!plot_metric_column(*m, s).empty()) {
          stats.push_back(s);
          columns.push_back(plot_metric_column(*m, s));
        }
      std::string slashed;
      for (const std::string& s : stats) slashed += (slashed.empty() ? "" : "/") + s;
      throw_error("--stat %s: summary.json holds only the %s of %s (%s); valid --stat for %s: %s", r.stat.c_str(),
                  slashed.c_str(), m->name, joined(columns).c_str(), m->name, joined(stats).c_str());
    }
  }
  if (o.cdf) {
    if (!o.stat.empty()) throw_error("--stat: a CDF shows every request; leave --stat out with --cdf");
    if (m->kind != PlotMetricKind::distribution) {
      std::vector<std::string> with_values;
      for (const PlotMetric& other : plot_metrics())
        if (other.kind == PlotMetricKind::distribution) with_values.emplace_back(other.name);
      throw_error("--cdf: %s has no per-request value in requests.csv (CDFs of: %s)", m->name,
                  joined(with_values).c_str());
    }
    r.cdf = true;
    r.stat.clear();
    for (const std::string& at : o.at_values) {
      const std::string x = match_x(at, xs, r.x, "--at");
      if (std::find(r.cdf_at.begin(), r.cdf_at.end(), x) == r.cdf_at.end()) r.cdf_at.push_back(x);
    }
    if (r.cdf_at.empty()) r.cdf_at.push_back(!r.ttft_cdf_at.empty() ? r.ttft_cdf_at : xs.front());
  } else if (!o.at_values.empty()) {
    throw_error("--at needs --cdf");
  }
}

// The options: --metric's, then --data (its folder exists) and --slo.
void read_options(const PlotOptions& o, const std::vector<std::string>& xs, PlotRequest& r) {
  read_metric_options(o, xs, r);
  for (const std::string& slo : o.slo) r.slos.push_back(read_slo(slo, r));
  if (!o.data_file.empty()) {
    const std::filesystem::path folder = std::filesystem::absolute(o.data_file).parent_path();
    std::error_code error;
    if (!std::filesystem::is_directory(folder, error))
      throw_error("--data %s: its folder does not exist", o.data_file.c_str());
    r.data_file = o.data_file;
  }
}
}  // namespace

PlotRequest plot_request_read(const Experiment& e, const PlotOptions& options) {
  const nlohmann::json section = e.plot.is_null() ? nlohmann::json::object() : e.plot;
  JsonObject o(section, e.origin, "$.plot", &plot_section());
  PlotRequest r;
  (void)o.get(*plot_field("kind", FieldKind::choice).choice);  // "regime-map" is read by plot_regimes.hpp
  if (o.has("y")) (void)o.get(*plot_field("y", FieldKind::string).string);
  r.x = o.get(*plot_field("x", FieldKind::string).string);
  const nlohmann::json& series = o.get(*plot_field("series", FieldKind::value).value);
  r.series = series.is_string() ? series.get<std::string>() : series.is_array() ? series[0].get<std::string>() : "format";
  for (size_t i = 1; series.is_array() && i < series.size(); ++i) {
    const std::string path = series[i].get<std::string>();
    if (path == r.series || std::find(r.series_more.begin(), r.series_more.end(), path) != r.series_more.end())
      throw_error("%s: $.plot.series[%zu]: \"%s\" is named twice", e.origin.c_str(), i, path.c_str());
    r.series_more.push_back(path);
  }
  const bool baseline_given = o.has("baseline");
  r.baseline = o.get(*plot_field("baseline", FieldKind::string).string);
  const nlohmann::json& facet = o.get(*plot_field("facet", FieldKind::value).value);
  if (facet.is_string()) r.facets.push_back(facet.get<std::string>());
  if (facet.is_array())
    for (const nlohmann::json& f : facet) r.facets.push_back(f.get<std::string>());
  check_axes(e, r, facet.is_array());
  // A series a figure divides by must be one the sweep runs: a baseline named and not in the series would leave
  // the relative plot out silently, a ratio against an unknown series would print rows of nan. The default
  // baseline, bf16, is only drawn against when the series has it (documented at the field).
  const std::vector<std::string> series_values = ordered_x(axis_texts(e, r.series));
  auto check_series = [&](const std::string& value, const std::string& path) {
    if (std::find(series_values.begin(), series_values.end(), value) == series_values.end())
      throw_error("%s: %s: \"%s\" is not a value of the series axis %s (its values: %s)", e.origin.c_str(),
                  path.c_str(), printable(value).c_str(), r.series.c_str(), joined(series_values).c_str());
  };
  if (baseline_given) check_series(r.baseline, o.path_of("baseline"));

  const std::vector<std::string> xs = ordered_x(axis_texts(e, r.x));
  const nlohmann::json& cdf_at = o.get(*plot_field("cdf_at", FieldKind::value).value);
  if (!cdf_at.is_null())
    r.ttft_cdf_at = match_x(cdf_at.is_string() ? cdf_at.get<std::string>() : cdf_at.dump(), xs, r.x,
                            e.origin + ": " + o.path_of("cdf_at") + ":");

  const nlohmann::json& ratios = o.get(*plot_field("ratios", FieldKind::array).array);
  for (size_t i = 0; !ratios.is_null() && i < ratios.size(); ++i) {
    JsonObject ratio(ratios[i], e.origin, json_index_path(o.path_of("ratios"), i));
    std::string sides[2][2];
    for (int s = 0; s < 2; ++s) {
      const char* side = s == 0 ? "numerator" : "denominator";
      const nlohmann::json& pair = ratio.raw(side);
      check_strings(pair, e.origin, ratio.path_of(side), 2, "[series, metric], e.g. [\"int8-g64\", \"ttft\"]");
      check_median_metric(pair[1], e.origin, json_index_path(ratio.path_of(side), 1));
      sides[s][0] = pair[0].get<std::string>();
      sides[s][1] = pair[1].get<std::string>();
    }
    ratio.finish();
    check_series(sides[0][0], json_index_path(ratio.path_of("numerator"), 0));
    check_series(sides[1][0], json_index_path(ratio.path_of("denominator"), 0));
    r.ratios.push_back({sides[0][0], sides[0][1], sides[1][0], sides[1][1]});
  }
  const nlohmann::json& frontier = o.get(*plot_field("frontier", FieldKind::array).array);
  if (!frontier.is_null()) {
    check_strings(frontier, e.origin, o.path_of("frontier"), 0, "a list of metric names");
    for (size_t i = 0; i < frontier.size(); ++i) {
      check_median_metric(frontier[i], e.origin, json_index_path(o.path_of("frontier"), i));
      r.frontier.push_back(frontier[i].get<std::string>());
    }
  }
  o.finish();
  read_options(options, xs, r);
  return r;
}

namespace {
// The metric table as the script uses it: label, unit, log axis, the summary column of each statistic, the one
// column of a metric that is not a distribution, and whether it has per-request values (a CDF).
nlohmann::json metric_table() {
  nlohmann::json table = nlohmann::json::object();
  for (const PlotMetric& m : plot_metrics()) {
    nlohmann::json columns = nlohmann::json::object();
    for (const std::string& stat : plot_stat_names())
      if (!plot_metric_column(m, stat).empty()) columns[stat] = plot_metric_column(m, stat);
    table[m.name] = {{"label", m.label}, {"unit", m.unit}, {"log", m.log_axis}, {"columns", columns},
                     {"column", m.column != nullptr ? nlohmann::json(m.column) : nlohmann::json()},
                     {"per_request", m.kind == PlotMetricKind::distribution}};
  }
  return table;
}

// {point: {metric: [ms, ascending]}}: each CDF's per-request values, from the finished points at its x values.
nlohmann::json request_values(const PlotRequest& r, const Experiment& e, const std::string& results_dir) {
  std::vector<std::pair<std::string, const RequestDistribution*>> wanted;  // x value, metric
  if (r.metric == nullptr && !r.ttft_cdf_at.empty())
    for (const char* name : {"ttft", "ttft_correct", "ttft_spec"})  // plot_results.py's three first-token times
      wanted.emplace_back(r.ttft_cdf_at, &distribution(name));
  if (r.metric != nullptr && r.cdf)
    for (const std::string& at : r.cdf_at) wanted.emplace_back(at, r.metric->distribution);
  nlohmann::json values = nlohmann::json::object();
  if (wanted.empty()) return values;
  const size_t x_index = axis_index(e, r.x);
  for (const SweepPoint& p : e.points) {
    const std::string x = summary_csv_field(p.values.at(x_index));
    std::vector<const RequestDistribution*> metrics;
    for (const auto& [at, d] : wanted)
      if (at == x && std::find(metrics.begin(), metrics.end(), d) == metrics.end()) metrics.push_back(d);
    const std::filesystem::path dir = std::filesystem::path(results_dir) / p.name;
    std::error_code error;
    if (metrics.empty() || !std::filesystem::exists(dir / "summary.json", error)) continue;  // not at x, or not run
    const std::string csv = (dir / "requests.csv").string();
    if (!std::filesystem::exists(csv, error)) throw_error("%s: not found (needed for the CDF plots)", csv.c_str());
    std::vector<std::vector<double>> ms(metrics.size());
    RequestsCsvReader reader(csv);
    RequestRow row;
    while (reader.next(row))
      for (size_t k = 0; k < metrics.size(); ++k) {
        if (row.record.output_tokens < metrics[k]->min_output_tokens) continue;
        const double v = row.value(metrics[k]->seconds) * 1e3;
        if (!std::isnan(v)) ms[k].push_back(v);
      }
    for (size_t k = 0; k < metrics.size(); ++k) {
      std::stable_sort(ms[k].begin(), ms[k].end());
      values[p.name][metrics[k]->name] = ms[k];
    }
  }
  return values;
}
}  // namespace

std::string plot_axis_label(const std::string& path) {
  const SchemaSection* parent = nullptr;
  const SchemaField* f = schema_find_path(kSimConfigSection, path.c_str(), &parent);
  if (f == nullptr) return path.substr(path.rfind('.') == std::string::npos ? 0 : path.rfind('.') + 1);
  // The meaning's first clause: without a leading "leaf-spine: " qualifier, up to a parenthesis, comma, semicolon
  // or colon.
  std::string clause = f->meaning();
  const size_t qualifier = clause.find(": ");
  if (qualifier != std::string::npos && clause.substr(0, qualifier).find(' ') == std::string::npos)
    clause = clause.substr(qualifier + 2);
  for (const char* stop : {" (", ", ", "; ", ": "}) clause = clause.substr(0, clause.find(stop));
  const char* unit = f->kind == FieldKind::number ? f->number->unit : f->kind == FieldKind::integer ? f->integer->unit : "";
  std::string label = parent != &kSimConfigSection ? std::string(parent->title) + ": " + clause : clause;
  if (!label.empty()) label[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(label[0])));
  return *unit != '\0' ? label + " (" + unit + ")" : label;
}

nlohmann::json plot_request_json(const PlotRequest& r, const Experiment& e, const std::string& results_dir,
                                 const std::string& out_dir) {
  nlohmann::json j;
  j["results"] = results_dir;
  j["out"] = out_dir;
  j["experiment"] = e.name;
  j["x"] = r.x;
  j["series"] = r.series;
  j["series_values"] = axis_texts(e, r.series);
  std::vector<std::string> extra = series_extra_paths(e, r.series);
  for (const std::string& p : r.series_more)
    if (std::find(extra.begin(), extra.end(), p) == extra.end()) extra.push_back(p);
  j["series_extra_paths"] = extra;
  j["series_more"] = r.series_more;
  j["facets"] = r.facets;
  j["baseline"] = r.baseline;
  j["ttft_cdf_at"] = r.ttft_cdf_at.empty() ? nlohmann::json() : nlohmann::json(r.ttft_cdf_at);
  j["ratios"] = nlohmann::json::array();
  for (const PlotRatio& ratio : r.ratios)
    j["ratios"].push_back({{"numerator", {ratio.numerator_series, ratio.numerator_metric}},
                           {"denominator", {ratio.denominator_series, ratio.denominator_metric}}});
  j["frontier"] = r.frontier;
  j["metrics"] = metric_table();
  j["metric"] = nullptr;
  if (r.metric != nullptr)
    j["metric"] = {{"name", r.metric->name},
                   {"stat", r.stat.empty() ? nlohmann::json() : nlohmann::json(r.stat)},
                   {"column", r.cdf ? nlohmann::json() : nlohmann::json(plot_metric_column(*r.metric, r.stat))},
                   {"cdf", r.cdf},
                   {"at", r.cdf_at}};
  j["labels"] = nlohmann::json::object();  // every axis path the request names, with its label
  for (const std::string& path : axis_paths(e)) j["labels"][path] = plot_axis_label(path);
  j["slo"] = nlohmann::json::array();
  for (const PlotSlo& slo : r.slos)
    j["slo"].push_back({{"metric", slo.metric->name}, {"value", slo.value}, {"unit", slo.metric->unit}});
  j["data"] = r.data_file.empty() ? nlohmann::json() : nlohmann::json(r.data_file);
  j["request_values"] = request_values(r, e, results_dir);
  return j;
}

}  // namespace lynx
