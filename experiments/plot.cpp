#include "experiments/plot.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "common/data_folder.hpp"
#include "common/error.hpp"
#include "models/catalog.hpp"

namespace lynx {

void plot_results(const std::string& results_dir) { run_plot_script("plot_results.py", results_dir); }

void run_plot_script(const std::string& script_name, const std::string& results_dir) {
  const std::string script = project_dir() + "/experiments/" + script_name;
  if (!std::filesystem::exists(script)) throw_error("%s: plotting script not found", script.c_str());
  const std::string python = std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) throw_error("cannot start %s", python.c_str());
  if (pid == 0) {
    ::execlp(python.c_str(), python.c_str(), script.c_str(), results_dir.c_str(), static_cast<char*>(nullptr));
    std::perror(python.c_str());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw_error("plotting %s failed (%s %s exited with status %d)", results_dir.c_str(), python.c_str(),
                script.c_str(), WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

}  // namespace lynx
