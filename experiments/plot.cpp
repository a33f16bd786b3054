#include "experiments/plot.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "common/data_folder.hpp"
#include "common/json_reader.hpp"

namespace lynx {

const std::vector<std::string>& plot_metric_names() {
  static const std::vector<std::string> names = {
      "ttft", "ttft_spec", "ttft_correct", "tpot", "itl", "e2el", "kv_transfer", "exposed_transfer",
      "goodput", "slo_attainment", "request_throughput", "output_throughput"};
  return names;
}

const std::vector<std::string>& plot_stat_names() {
  static const std::vector<std::string> names = {"p50", "p90", "p99", "mean"};
  return names;
}

void plot_results(const std::string& results_dir, const PlotOptions& o) {
  std::vector<std::string> args;
  if (!o.metric.empty()) args.insert(args.end(), {"--metric", o.metric});
  if (!o.stat.empty()) args.insert(args.end(), {"--stat", o.stat});
  if (o.cdf) args.push_back("--cdf");
  for (const std::string& at : o.at_values) args.insert(args.end(), {"--at", at});
  if (!o.data_file.empty()) args.insert(args.end(), {"--data", o.data_file});
  if (!o.out_dir.empty()) args.insert(args.end(), {"--out", o.out_dir});
  run_plot_script("plot_results.py", results_dir, args);
}

void run_plot_script(const std::string& script_name, const std::string& results_dir,
                     const std::vector<std::string>& args) {
  const std::string script = project_dir() + "/experiments/" + script_name;
  if (!std::filesystem::exists(script)) throw_error("%s: plotting script not found", script.c_str());
  const std::string python = std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  std::vector<std::string> argv_text = {python, script, results_dir};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) throw_error("cannot start %s", python.c_str());
  if (pid == 0) {
    ::setenv("PYTHONHASHSEED", "0", 1);          // the same files for the same inputs
    ::setenv("PYTHONDONTWRITEBYTECODE", "1", 1);  // nothing written beside the scripts
    ::execvp(python.c_str(), argv.data());
    std::perror(python.c_str());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
    throw PlotInputError("plotting " + results_dir + ": bad input (see the message above)");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw_error("plotting %s failed (%s %s exited with status %d)", results_dir.c_str(), python.c_str(),
                script.c_str(), WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

namespace {
// Metrics with a distribution (a median) in summary.json: what ratios and frontier can name.
const std::vector<std::string> kDistributionMetrics = {"ttft", "ttft_spec", "ttft_correct", "tpot", "e2el",
                                                       "kv_transfer", "exposed_transfer"};

void check_metric(const nlohmann::json& name, const std::string& origin, const std::string& path) {
  for (const std::string& m : kDistributionMetrics)
    if (name == m) return;
  std::string valid;
  for (const std::string& m : kDistributionMetrics) valid += (valid.empty() ? "" : ", ") + m;
  throw_error("%s: %s: \"%s\" is not a metric with a median (valid: %s)", origin.c_str(), path.c_str(),
              name.get<std::string>().c_str(), valid.c_str());
}

void check_strings(const nlohmann::json& v, const std::string& origin, const std::string& path, size_t count,
                   const char* expected) {
  bool ok = v.is_array() && (count == 0 || v.size() == count);
  if (ok)
    for (const auto& e : v) ok = ok && e.is_string();
  if (!ok) throw_error("%s: %s: expected %s, got %s", origin.c_str(), path.c_str(), expected, v.dump().c_str());
}
}  // namespace

void plot_section_check(const nlohmann::json& plot, const std::string& origin) {
  JsonObject o(plot, origin, "$.plot");
  o.string_or("x", "cluster.network.nic_gbps");
  o.string_or("series", "format");
  if (o.has("facet")) {
    const nlohmann::json& facet = o.raw("facet");
    if (!facet.is_string()) check_strings(facet, origin, o.path_of("facet"), 0, "a swept path or a list of them");
  }
  o.string_or("baseline", "bf16");
  if (o.has("cdf_at")) o.number("cdf_at");
  if (o.has("ratios")) {
    const nlohmann::json& ratios = o.array("ratios");
    for (size_t i = 0; i < ratios.size(); ++i) {
      JsonObject r(ratios[i], origin, json_index_path(o.path_of("ratios"), i));
      for (const char* side : {"numerator", "denominator"}) {
        const nlohmann::json& pair = r.raw(side);
        check_strings(pair, origin, r.path_of(side), 2, "[series, metric], e.g. [\"int8-g64\", \"ttft\"]");
        check_metric(pair[1], origin, json_index_path(r.path_of(side), 1));
      }
      r.finish();
    }
  }
  if (o.has("frontier")) {
    const nlohmann::json& frontier = o.array("frontier");
    check_strings(frontier, origin, o.path_of("frontier"), 0, "a list of metric names");
    for (size_t i = 0; i < frontier.size(); ++i)
      check_metric(frontier[i], origin, json_index_path(o.path_of("frontier"), i));
  }
  o.finish();
}

}  // namespace lynx
