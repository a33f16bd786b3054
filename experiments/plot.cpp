#include "experiments/plot.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "common/data_folder.hpp"
#include "common/output_paths.hpp"
#include "experiments/results.hpp"
#include "experiments/plot_gantt.hpp"
#include "experiments/plot_regimes.hpp"
#include "experiments/run_outputs.hpp"

namespace lynx {

namespace {
// A file under the temporary folder, removed when dropped: the plot request handed to the script.
class TemporaryFile {
 public:
  explicit TemporaryFile(const std::string& text) {
    std::string name = (std::filesystem::temp_directory_path() / "lynxsim-plot-request-XXXXXX").string();
    const int fd = ::mkstemp(name.data());
    if (fd < 0) throw_error("cannot create a temporary file in %s: %s", name.c_str(), std::strerror(errno));
    path_ = name;
    size_t written = 0;
    while (written < text.size()) {
      const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
      if (n <= 0) break;
      written += static_cast<size_t>(n);
    }
    const bool closed = ::close(fd) == 0;
    if (written != text.size() || !closed) throw_error("%s: cannot write: %s", path_.c_str(), std::strerror(errno));
  }
  ~TemporaryFile() { std::remove(path_.c_str()); }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};
}  // namespace

void plot_results(const std::string& results_dir, const PlotOptions& options) {
  if (!options.gantt.empty()) {  // a run's requests (experiments/plot_gantt.hpp); the sweep's options do not apply
    const std::pair<const char*, bool> others[] = {{"--metric", !options.metric.empty()},
                                                   {"--stat", !options.stat.empty()},
                                                   {"--cdf", options.cdf},
                                                   {"--at", !options.at_values.empty()},
                                                   {"--slo", !options.slo.empty()}};
    for (const auto& [option, given] : others)
      if (given) throw_error("%s: not used with --gantt (a Gantt figure of single requests)", option);
    OutputPlan plan;
    plan.input_folder("run", results_dir, {"requests.csv"});
    if (!options.data_file.empty()) plan.output_file("--data", options.data_file);
    plan.check();
    const std::string out_dir = options.out_dir.empty() ? results_dir : options.out_dir;
    const TemporaryFile file(gantt_request(results_dir, options.gantt, out_dir, options.data_file).dump());
    run_plot_script("plot_gantt.py", results_dir, {file.path()});
    return;
  }
  std::error_code error;
  if (!std::filesystem::exists(results_dir + "/experiment.json", error))
    throw_error("%s/experiment.json: not found (is %s a results directory of `lynxsim run`?)", results_dir.c_str(),
                results_dir.c_str());
  const Experiment e = read_experiment_copy(results_dir);
  OutputPlan plan;  // the output rule (common/output_paths.hpp): --data never replaces a result file
  plan.input_folder("results", results_dir, results_folder_files(e));
  if (!options.data_file.empty()) plan.output_file("--data", options.data_file);
  plan.check();
  results_verify(results_dir, e);
  const std::string out_dir = options.out_dir.empty() ? results_dir : options.out_dir;
  if (plot_is_regime_map(e)) {  // its own script (experiments/plot_regimes.hpp); --metric and its options do not apply
    if (!options.metric.empty()) throw_error("--metric: not used by a regime map (plot kind \"regime-map\")");
    const TemporaryFile file(regime_map_request(e, out_dir).dump());
    run_plot_script("plot_regimes.py", results_dir, {file.path()});
    return;
  }
  const PlotRequest request = plot_request_read(e, options);
  const TemporaryFile file(plot_request_json(request, e, results_dir, out_dir).dump());
  run_plot_script("plot_results.py", results_dir, {file.path()});
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

}  // namespace lynx
