#include "experiments/sweep_runner.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cerrno>
#include <cstring>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "experiments/point_record.hpp"
#include "experiments/results.hpp"
#include "sim/config/run_config.hpp"
#include "sim/config/resolved_config.hpp"
#include "sim/config/simulation_setup.hpp"

namespace lynx {

namespace fs = std::filesystem;

void parse_shard(const std::string& text, int& index, int& count) {
  int k = 0, n = 0;
  char extra = 0;
  if (std::sscanf(text.c_str(), "%d/%d%c", &k, &n, &extra) != 2 || n < 1 || k < 1 || k > n)
    throw_error("--shard \"%s\": expected K/N with 1 <= K <= N, e.g. 2/4", text.c_str());
  index = k;
  count = n;
}

namespace {
volatile std::sig_atomic_t g_stop_signal = 0;
void on_stop_signal(int signal) { g_stop_signal = signal; }

// Removes the temporary files a killed point may have left (write_file_atomic's "<name>.tmp.<pid>"); with
// `prefixes`, only those of these names.
void remove_temporaries(const std::string& dir, const std::vector<std::string>& prefixes = {}) {
  std::error_code error;
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    const size_t at = name.find(".tmp.");
    if (at == std::string::npos) continue;
    bool ours = prefixes.empty();
    for (const std::string& prefix : prefixes) ours = ours || name.substr(0, at) == prefix;
    if (ours) found.push_back(entry.path());
  }
  for (const fs::path& path : found) fs::remove(path, error);
}

std::string format_duration(double seconds) {
  char text[32];
  int s = static_cast<int>(seconds + 0.5);
  if (s >= 3600) std::snprintf(text, sizeof text, "%dh%02dm%02ds", s / 3600, s / 60 % 60, s % 60);
  else if (s >= 60) std::snprintf(text, sizeof text, "%dm%02ds", s / 60, s % 60);
  else std::snprintf(text, sizeof text, "%ds", s);
  return text;
}

// In the child: run the point, report an error in error.txt. Never returns.
[[noreturn]] void run_point_child(const Experiment& e, const SweepPoint& p, const std::string& dir, pid_t parent,
                                  const std::vector<ConfigOverride>& overrides) {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  // Die with the sweep, even when it is killed with SIGKILL: an orphan would go on writing into the results that a
  // rerun is rewriting. (Checked after the call: the parent may already be gone.)
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);
  int code = 0;
  try {
    run_config(resolve_config(p.config, e.origin + " (point " + p.name + ")", e.base_dir), dir);
    std::error_code ignored;
    fs::remove(dir + "/error.txt", ignored);
  } catch (const std::exception& error) {
    try {
      write_file_atomic(dir + "/error.txt", config_override_blame(error.what(), overrides) + "\n");
    } catch (...) {
    }
    code = 1;
  }
  std::fflush(nullptr);
  ::_exit(code);
}
}  // namespace

namespace {
SweepReport sweep_run_locked(const Experiment& e, const SweepOptions& o) {
  // Every point is checked before anything is written: a finished point computed from another configuration stops
  // the sweep (results are neither silently kept nor silently replaced) unless --force.
  std::vector<const SweepPoint*> todo;
  std::map<const SweepPoint*, nlohmann::json> records;
  SweepReport report;
  std::string first_stale, first_difference;
  for (const SweepPoint& p : e.points) {
    if (static_cast<int>(p.index % static_cast<size_t>(o.shard_count)) != o.shard_index - 1) continue;
    ++report.selected;
    nlohmann::json record = point_record(e, p);
    const PointCheck check = point_state(o.out_dir + "/" + p.name, record);
    if (check.state == PointState::finished && !o.force) {
      ++report.skipped;
      continue;
    }
    if (check.state == PointState::stale) {
      ++report.stale;
      if (first_stale.empty()) {
        first_stale = p.name;
        first_difference = check.difference;
      }
    }
    records[&p] = std::move(record);
    todo.push_back(&p);
  }
  if (report.stale > 0 && !o.force)
    throw_error("%s/%s: finished with another configuration than %s gives now: %s (%s); %zu finished point(s) "
                "differ in all. Nothing was run or changed: run with --force to compute them again and replace "
                "their results, or choose another --out",
                o.out_dir.c_str(), first_stale.c_str(), e.origin.c_str(), first_difference.c_str(), kPointRecordFile,
                report.stale);
  remove_temporaries(o.out_dir, {"experiment.json", "summary.csv"});  // left by a killed run
  write_experiment_copy(o.out_dir, e);
  const auto start = std::chrono::steady_clock::now();
  std::map<pid_t, const SweepPoint*> running;
  size_t next = 0, done = 0;
  const bool terminal = ::isatty(STDERR_FILENO) != 0;
  size_t last_shown_tenth = SIZE_MAX;
  auto show = [&] {
    if (!o.progress) return;
    const size_t tenth = todo.empty() ? 10 : done * 10 / todo.size();
    if (!terminal && tenth == last_shown_tenth) return;
    last_shown_tenth = tenth;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const size_t total = todo.size();
    std::string eta = done > 0 ? format_duration(elapsed / static_cast<double>(done) * static_cast<double>(total - done))
                               : "?";
    const int width = 30;
    const int filled = total > 0 ? static_cast<int>(width * done / total) : width;
    std::fprintf(stderr, "%s[%s%s] %zu/%zu points, %zu failed, elapsed %s, ETA %s   %s", terminal ? "\r" : "",
                 std::string(static_cast<size_t>(filled), '#').c_str(),
                 std::string(static_cast<size_t>(width - filled), '.').c_str(), done, total, report.failed,
                 format_duration(elapsed).c_str(), eta.c_str(), terminal ? "" : "\n");
    std::fflush(stderr);
  };
  show();
  g_stop_signal = 0;
  auto previous_int = std::signal(SIGINT, on_stop_signal);
  auto previous_term = std::signal(SIGTERM, on_stop_signal);
  while ((next < todo.size() || !running.empty()) && g_stop_signal == 0) {
    while (next < todo.size() && static_cast<int>(running.size()) < o.jobs) {
      const SweepPoint* p = todo[next++];
      const std::string dir = o.out_dir + "/" + p->name;
      point_prepare(dir, records.at(p));
      // The point's compute tables are read here, once per sweep, and the child inherits them (a point that needs
      // a table no earlier point read pays for it once; a configuration error is left to the child to report).
      try {
        preload_compute_tables(resolve_config(p->config, e.origin + " (point " + p->name + ")", e.base_dir).config);
      } catch (const std::exception&) {
      }
      std::fflush(nullptr);
      const pid_t parent = ::getpid();
      pid_t pid = ::fork();
      if (pid < 0) throw_error("cannot start a process for point %s", p->name.c_str());
      if (pid == 0) run_point_child(e, *p, dir, parent, o.overrides);
      running[pid] = p;
    }
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;  // a stop signal: handled below
      break;
    }
    auto it = running.find(pid);
    if (it == running.end()) continue;
    const SweepPoint* p = it->second;
    running.erase(it);
    ++done;
    const std::string dir = o.out_dir + "/" + p->name;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && fs::exists(dir + "/summary.json")) {
      ++report.ran;
    } else {
      ++report.failed;
      std::string why = fs::exists(dir + "/error.txt") ? read_file(dir + "/error.txt")
                        : WIFSIGNALED(status)          ? "killed by signal " + std::to_string(WTERMSIG(status)) + "\n"
                                                       : "exited without a result\n";
      std::fprintf(stderr, "\npoint %s failed: %s", p->name.c_str(), why.c_str());
    }
    show();
  }
  if (g_stop_signal != 0) {
    // Interrupted: stop the points in flight and leave no partial file behind; finished points stay.
    for (const auto& [pid, point] : running) ::kill(pid, SIGTERM);
    for (const auto& [pid, point] : running) {
      int status = 0;
      ::waitpid(pid, &status, 0);
      remove_temporaries(o.out_dir + "/" + point->name);
    }
    report.interrupted = true;
  }
  std::signal(SIGINT, previous_int);
  std::signal(SIGTERM, previous_term);
  if (o.progress && terminal) std::fprintf(stderr, "\n");
  write_summary_csv(o.out_dir, e);
  return report;
}
}  // namespace

namespace {
// The results folder, locked for the whole sweep (flock on the folder itself, so no lock file is left among the
// results): a second `run` into the same folder waits for the first, then finds its points finished. Without it
// the two removed each other's temporary files and the loser reported points "failed: cannot rename into place".
class FolderLock {
 public:
  explicit FolderLock(const std::string& dir) {
    fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_ < 0) throw_error("%s: cannot open the results directory: %s", dir.c_str(), std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
    std::fprintf(stderr, "%s: another lynxsim run is writing there; waiting for it to finish\n", dir.c_str());
    while (::flock(fd_, LOCK_EX) != 0)
      if (errno != EINTR) throw_error("%s: cannot lock the results directory: %s", dir.c_str(), std::strerror(errno));
  }
  ~FolderLock() { ::close(fd_); }
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_ = -1;
};
}  // namespace

SweepReport sweep_run(const Experiment& e, const SweepOptions& o) {
  std::error_code error;
  const bool created = !fs::exists(o.out_dir, error);
  fs::create_directories(o.out_dir, error);
  if (error) throw_error("%s: cannot create the results directory: %s", o.out_dir.c_str(), error.message().c_str());
  const FolderLock lock(o.out_dir);
  try {
    return sweep_run_locked(e, o);
  } catch (...) {
    if (created) fs::remove(o.out_dir, error);  // only when still empty: a failed check leaves nothing behind
    throw;
  }
}

}  // namespace lynx
