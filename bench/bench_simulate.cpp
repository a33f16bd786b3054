// Simulator speed, start-up, memory and scale, each figure against a baseline measured in the same run.
//  1. Speed, as whole processes: `lynxsim simulate` (inputs read from files, results written, as a user runs it)
//     against `flow_replay` (sim/engine/bare_replay.hpp), a bare SimGrid program replaying the flows that simulation
//     logged (`--flow-log`: the same platform, SimGrid items, sizes, weights and start times; each flow started
//     exactly at its time, each finished Comm freed). Wall time of each process from fork to exit, alternated
//     (simulate, replay, simulate, ...), min / median / max over the rounds; the in-process figures (the run's own
//     timer against the replay's, both from before SimGrid's engine is created) beside them. Two cases: the whole
//     Mooncake conversation trace on 8+8 H200 at 100 Gbps (experiments/configs/mooncake_8x8_h200_100g.json) and
//     the congested point of the default demo, 70B with Lynx at 10 Gbps (congested_70b_lynx_10g.json). Targets:
//     whole-process ratio at most 1.3x (Mooncake) and 1.15x (congested).
//  2. Start-up: `lynxsim simulate` of the Mooncake configuration cut to its first request, against `flow_replay
//     --platform-only` (a process that only creates the SimGrid engine and the same platform). Target: 1.5x. Then
//     the same request with both pools on vllm-0.24 (AIConfigurator's tables decoded at every run), no target.
//  3. Memory: peak memory of a synthetic workload at the Mooncake trace's load (its arrival rate, its joint
//     empirical lengths) of 1x, 8x and 64x its length, streamed (requests generated as needed, rows written and
//     dropped). Target: flat; a 10-million-request run under 1 GB (`bench_simulate --ten-million`, ~20 minutes).
//     Then a trace file read as it is needed: the Mooncake trace and a file of its rows repeated 8 times.
//  4. Scale: cost per simulated request at 8+8 and 512+512 instances (load scaled with the instances), star and
//     leaf-spine. Target: at most 1.5x from 8+8 to 512+512.
//   bench_simulate [--reps N] [--congested-reps N] [--config FILE] [--skip-congested] [--ten-million]
//                  [--skip-memory] [--skip-scale] [--startup-only] [--startup-rounds N]
//   --startup-only: the start-up figure alone (2.), over --startup-rounds rounds (default max(2 x reps, 10)).
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "common/data_folder.hpp"
#include "common/error.hpp"
#include "common/json_reader.hpp"
#include "models/cost/serving_engine.hpp"
#include "sim/engine/isolated_run.hpp"
#include "sim/output/run_files.hpp"
#include "sim/config/run_config.hpp"
#include "sim/cluster/simulation.hpp"
#include "sim/config/simulation_setup.hpp"
#include "traces/trace_stats.hpp"
#include "traces/workload_spec.hpp"
#include "traces/workload_stream.hpp"

namespace {

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double peak_rss_mb() {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// The three figures of a series of runs.
struct Spread {
  double min = 0, median = 0, max = 0;
};
Spread spread(const std::vector<double>& v) {
  return Spread{*std::min_element(v.begin(), v.end()), median(v), *std::max_element(v.begin(), v.end())};
}

// Runs a program as a whole process (stdout and stderr into `log`), returns its wall seconds from fork to exit
// and, in `cpu_s`, its user + system CPU seconds (wait4's rusage: on a shared machine the CPU time moves less
// than the wall time with the other load); a failure throws with the log's text.
double time_process(const std::vector<std::string>& args, const std::string& log, double* cpu_s = nullptr) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::fflush(stdout);
  const double t0 = now_s();
  const pid_t pid = fork();
  if (pid < 0) lynx::throw_error("fork failed");
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  struct rusage usage {};
  wait4(pid, &status, 0, &usage);
  const double wall = now_s() - t0;
  if (cpu_s != nullptr)
    *cpu_s = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
             static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string text;
    if (std::FILE* f = std::fopen(log.c_str(), "r")) {
      char buf[4096];
      text.assign(buf, std::fread(buf, 1, sizeof buf, f));
      std::fclose(f);
    }
    lynx::throw_error("%s failed (status %d): %s", args[0].c_str(), status, text.c_str());
  }
  return wall;
}

// A number printed after `key` in a log (the first occurrence).
double figure_after(const std::string& log, const std::string& key) {
  std::FILE* f = std::fopen(log.c_str(), "r");
  if (f == nullptr) lynx::throw_error("%s: cannot read", log.c_str());
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  std::fclose(f);
  const size_t at = text.find(key);
  if (at == std::string::npos) lynx::throw_error("%s: no \"%s\" in: %s", log.c_str(), key.c_str(), text.c_str());
  return std::atof(text.c_str() + at + key.size());
}

struct WholeProcess {
  double requests = 0, flows = 0;
  Spread sim, replay, sim_in, replay_in, sim_cpu, replay_cpu;
  double ratio_median = 0;
};

// `lynxsim simulate` of `config_path` against `flow_replay` of the flows it logged, alternated `rounds` times.
WholeProcess whole_process(const std::string& config_path, const std::string& tmp, int rounds) {
  const std::string flow_log = tmp + "/flows.bin", log = tmp + "/process.log";
  const std::vector<std::string> simulate = {LYNX_LYNXSIM_PATH, "simulate", "--config", config_path, "--out",
                                             tmp + "/sim", "--quiet", "--no-progress"};
  std::vector<std::string> record = simulate;
  record.insert(record.end(), {"--flow-log", flow_log});
  WholeProcess w;
  time_process(record, log);  // also warms the page cache for both
  w.requests = figure_after(log, "simulated ");
  const std::vector<std::string> replay = {LYNX_FLOW_REPLAY_PATH, flow_log};
  std::vector<double> sim, rep, sim_in, rep_in, sim_cpu, rep_cpu, ratio;
  for (int i = 0; i < rounds; ++i) {
    double cpu = 0;
    sim.push_back(time_process(simulate, log, &cpu));
    sim_cpu.push_back(cpu);
    sim_in.push_back(figure_after(log, "requests in "));
    rep.push_back(time_process(replay, log, &cpu));
    rep_cpu.push_back(cpu);
    rep_in.push_back(figure_after(log, "flows in "));
    w.flows = figure_after(log, "replayed ");
    if (figure_after(log, " s, ") != 0)
      lynx::throw_error("flow_replay started flows before their time");
    ratio.push_back(sim.back() / rep.back());
  }
  w.sim = spread(sim);
  w.replay = spread(rep);
  w.sim_in = spread(sim_in);
  w.replay_in = spread(rep_in);
  w.sim_cpu = spread(sim_cpu);
  w.replay_cpu = spread(rep_cpu);
  w.ratio_median = median(ratio);
  return w;
}

void print_whole_process(const char* label, const WholeProcess& w, int rounds, double target) {
  std::printf("%s: %.0f requests, %.0f flows; %d rounds alternated, seconds min / median / max\n", label,
              w.requests, w.flows, rounds);
  std::printf("  lynxsim simulate, whole process      %7.3f %7.3f %7.3f\n", w.sim.min, w.sim.median, w.sim.max);
  std::printf("  flow_replay, whole process           %7.3f %7.3f %7.3f\n", w.replay.min, w.replay.median,
              w.replay.max);
  std::printf("  ratio, whole process                 %.2f x median (%.2f x of the minima)  (target <= %.2f)\n",
              w.sim.median / w.replay.median, w.sim.min / w.replay.min, target);
  std::printf("  CPU s (user + system), min / median     %.3f %.3f (simulate), %.3f %.3f (replay): %.2f x median\n",
              w.sim_cpu.min, w.sim_cpu.median, w.replay_cpu.min, w.replay_cpu.median,
              w.sim_cpu.median / w.replay_cpu.median);
  std::printf("  in-process: simulation %.3f s, replay %.3f s (medians): %.2f x\n", w.sim_in.median,
              w.replay_in.median, w.sim_in.median / w.replay_in.median);
  std::printf("  simulated requests per wall s        %.0f (whole process), %.0f (in-process)\n",
              w.requests / w.sim.median, w.requests / w.sim_in.median);
  std::fflush(stdout);
}

// One simulation as `lynxsim simulate` runs it (the trace read as it is needed), results written under `dir`, in a
// child process; returns "wall requests peak_mb".
std::string simulate_once(const lynx::SimConfig& config, const std::string& dir) {
  return lynx::run_isolated([&] {
    lynx::JsonObject workload(config.workload, config.origin, "$.workload");
    lynx::WorkloadSpec spec = lynx::workload_spec_from_json(workload, config.base_dir);
    lynx::SimulationInputs inputs = lynx::simulation_inputs(config, {});
    inputs.request_source = lynx::workload_stream(spec, config.seed);
    inputs.prefix_block_tokens = spec.prefix_block_tokens;
    lynx::SimulationResult result;
    lynx::simulate_to_files(dir, inputs, "bench", &result);
    char text[128];
    std::snprintf(text, sizeof text, "%.6f %llu %.1f", result.wall_s, static_cast<unsigned long long>(result.requests),
                  peak_rss_mb());
    return std::string(text);
  });
}

struct RunFigures {
  double wall_s = 0;
  double requests = 0;
  double peak_mb = 0;
};
RunFigures parse(const std::string& text) {
  RunFigures f;
  std::sscanf(text.c_str(), "%lf %lf %lf", &f.wall_s, &f.requests, &f.peak_mb);
  return f;
}

// A synthetic workload at the Mooncake trace's load: its mean arrival rate times `load`, its joint lengths.
nlohmann::json synthetic_workload(const std::string& trace, double rate_per_s, int64_t count) {
  return {{"synthetic",
           {{"arrival", "poisson"},
            {"rate_per_s", rate_per_s},
            {"count", count},
            {"input_tokens", {{"empirical", trace}}},
            {"output_tokens", {{"empirical", trace}}}}}};
}

// The Mooncake trace's rows `copies` times, copy k shifted by k times (span + 1 s), as a Mooncake JSONL file.
void write_repeated_trace(const std::string& source, const std::vector<lynx::Request>& trace, int copies,
                          const std::string& path) {
  const int64_t shift_ms = static_cast<int64_t>(std::llround(trace.back().arrival_s * 1000)) + 1000;
  std::FILE* out = std::fopen(path.c_str(), "w");
  if (out == nullptr) lynx::throw_error("%s: cannot write", path.c_str());
  for (int k = 0; k < copies; ++k)
    for (const lynx::Request& r : trace) {
      std::fprintf(out, "{\"timestamp\": %lld, \"input_length\": %lld, \"output_length\": %lld, \"hash_ids\": [",
                   static_cast<long long>(std::llround(r.arrival_s * 1000)) + k * static_cast<long long>(shift_ms),
                   static_cast<long long>(r.input_tokens), static_cast<long long>(r.output_tokens));
      for (size_t i = 0; i < r.prefix_block_hashes.size(); ++i)
        std::fprintf(out, i ? ", %llu" : "%llu", static_cast<unsigned long long>(r.prefix_block_hashes[i]));
      std::fprintf(out, "]}\n");
    }
  if (std::fclose(out) != 0) lynx::throw_error("%s: cannot write (%s)", path.c_str(), source.c_str());
}
}  // namespace

// The Mooncake configuration cut to its first request, written beside the benchmark's other files; with `engine`
// ("" for the configuration's own), both pools on that named engine.
std::string one_request_config(const std::string& config_path, const std::string& tmp,
                               const std::string& engine = "") {
  nlohmann::json c = lynx::json_parse_file(config_path, true);
  c["workload"]["first_n"] = 1;
  if (!engine.empty()) c["cluster"]["prefill"]["engine"] = c["cluster"]["decode"]["engine"] = engine;
  // Relative paths (none in the shipped file; @data/ paths stay as they are) would resolve against tmp.
  const std::string path = tmp + "/one_request" + (engine.empty() ? "" : "_" + engine) + ".json";
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) lynx::throw_error("%s: cannot write", path.c_str());
  std::fputs(c.dump(2).c_str(), f);
  std::fclose(f);
  return path;
}

// Times one request of `config` as a whole `lynxsim simulate` process against `flow_replay --platform-only` on its
// flow log, alternated over `rounds`, and prints the figure (with the 1.5x target where `target`).
void startup_figure(const std::string& config, const std::string& tmp, int rounds, const char* what, bool target) {
  const std::string log = tmp + "/startup.log", flow_log = tmp + "/one.bin";
  const std::vector<std::string> simulate = {LYNX_LYNXSIM_PATH, "simulate", "--config", config, "--out",
                                             tmp + "/one", "--quiet", "--no-progress", "--flow-log", flow_log};
  const std::vector<std::string> platform = {LYNX_FLOW_REPLAY_PATH, flow_log, "--platform-only"};
  time_process(simulate, log);
  std::vector<double> sim, base, sim_cpu, base_cpu;
  for (int i = 0; i < rounds; ++i) {
    double cpu = 0;
    sim.push_back(time_process(simulate, log, &cpu));
    sim_cpu.push_back(cpu);
    base.push_back(time_process(platform, log, &cpu));
    base_cpu.push_back(cpu);
  }
  const Spread s = spread(sim), b = spread(base), sc = spread(sim_cpu), bc = spread(base_cpu);
  std::printf("start-up, one request of %s; %d rounds alternated, seconds min / median / max\n", what, rounds);
  std::printf("  lynxsim simulate                     %7.4f %7.4f %7.4f\n", s.min, s.median, s.max);
  std::printf("  engine + platform only (flow_replay --platform-only) %7.4f %7.4f %7.4f\n", b.min, b.median, b.max);
  std::printf("  ratio                                %.2f x median (%.2f x of the minima)%s\n", s.median / b.median,
              s.min / b.min, target ? "  (target <= 1.5)" : "");
  std::printf("  CPU s (user + system), median        %.4f (simulate), %.4f (engine + platform): %.2f x\n",
              sc.median, bc.median, sc.median / bc.median);
  std::fflush(stdout);
}

int main(int argc, char** argv) {
  std::string config_path = lynx::project_dir() + "/experiments/configs/mooncake_8x8_h200_100g.json";
  const std::string congested_path = lynx::project_dir() + "/experiments/configs/congested_70b_lynx_10g.json";
  int reps = 5, congested_reps = 3;
  int startup_rounds = 0;  // 0: max(2 x reps, 10)
  bool ten_million = false, skip_memory = false, skip_scale = false, skip_congested = false, startup_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (a == "--congested-reps" && i + 1 < argc) congested_reps = std::atoi(argv[++i]);
    else if (a == "--config" && i + 1 < argc) config_path = argv[++i];
    else if (a == "--skip-congested") skip_congested = true;
    else if (a == "--ten-million") ten_million = true;
    else if (a == "--skip-memory") skip_memory = true;
    else if (a == "--skip-scale") skip_scale = true;
    else if (a == "--startup-only") startup_only = true;
    else if (a == "--startup-rounds" && i + 1 < argc) startup_rounds = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: bench_simulate [--reps N] [--congested-reps N] [--config FILE] [--skip-congested] "
                           "[--ten-million] [--skip-memory] [--skip-scale] [--startup-only] [--startup-rounds N]\n");
      return 2;
    }
  }
  if (reps < 1 || congested_reps < 1 || startup_rounds < 0) {
    std::fprintf(stderr, "bench_simulate: --reps, --congested-reps and --startup-rounds take a count of at least 1\n");
    return 2;
  }
  char tmp_template[] = "/tmp/bench_simulate.XXXXXX";
  const char* tmp_dir = mkdtemp(tmp_template);
  if (tmp_dir == nullptr) {
    std::perror("mkdtemp");
    return 1;
  }
  const std::string tmp = tmp_dir;
  int status = 0;
  try {
    const lynx::SimConfig config = lynx::sim_config_load(config_path);
    std::printf("config: %s\n", config_path.c_str());
    // The build measured: `make bench` builds with a profile of the per-event code (scripts/pgo-build.sh).
    std::printf("lynxsim built with profile-guided optimisation: %s\n", LYNX_PGO_MODE);

    // 1. Speed, whole processes, against the bare replay of the same flows; the headline after both.
    if (!startup_only) {
      const WholeProcess mooncake = whole_process(config_path, tmp, reps);
      print_whole_process("Mooncake trace, 8+8 H200, 100 Gbps", mooncake, reps, 1.3);
      WholeProcess congested;
      if (!skip_congested) {
        congested = whole_process(congested_path, tmp, congested_reps);
        print_whole_process("congested point, 70B Lynx a4r4-g64, 10 Gbps", congested, congested_reps, 1.15);
      }
      const auto headline = [](const char* label, const WholeProcess& w, double target) {
        std::printf("HEADLINE %-10s whole process %.2f x the bare replay (target <= %.2f; CPU %.2f x), in-process "
                    "%.2f x, %.0f requests/s\n",
                    label, w.sim.median / w.replay.median, target, w.sim_cpu.median / w.replay_cpu.median,
                    w.sim_in.median / w.replay_in.median, w.requests / w.sim.median);
      };
      headline("Mooncake", mooncake, 1.3);
      if (!skip_congested) headline("congested", congested, 1.15);
      std::fflush(stdout);
    }

    // 2. Start-up: one request against a process that only creates the engine and the platform; then the same
    // request on a named engine (vLLM 0.24's AIConfigurator tables, decoded at every run), for information.
    if (startup_rounds == 0) startup_rounds = std::max(reps * 2, 10);
    startup_figure(one_request_config(config_path, tmp), tmp, startup_rounds, "the Mooncake configuration", true);
    const std::string vllm = lynx::serving_engine_name(lynx::ServingEngine::vllm);
    try {
      startup_figure(one_request_config(config_path, tmp, vllm), tmp, startup_rounds,
                     ("the Mooncake configuration on " + vllm).c_str(), false);
    } catch (const std::exception& e) {  // a configuration whose GPU has no AIConfigurator tables, for instance
      std::printf("start-up on %s: not measured (%s)\n", vllm.c_str(), e.what());
    }

    if (startup_only) skip_memory = skip_scale = true;
    // 3. Peak memory against workload length, at the trace's load.
    lynx::JsonObject workload(config.workload, config.origin, "$.workload");
    const lynx::WorkloadSpec spec = lynx::workload_spec_from_json(workload, config.base_dir);
    const std::vector<lynx::Request> trace = lynx::workload_build(spec, config.seed);
    const double rate = lynx::trace_stats_compute(trace).rate_per_s;
    const std::string trace_path = spec.trace_path;
    if (!skip_memory) {
      std::printf("peak memory against workload length (synthetic, %.3f requests/s, Mooncake lengths):\n", rate);
      std::printf("  %-6s %12s %10s %12s %10s\n", "length", "requests", "peak MB", "requests/s", "wall s");
      std::vector<std::pair<std::string, int64_t>> lengths{{"1x", static_cast<int64_t>(trace.size())},
                                                           {"8x", static_cast<int64_t>(trace.size()) * 8},
                                                           {"64x", static_cast<int64_t>(trace.size()) * 64}};
      if (ten_million) lengths.emplace_back("10M", 10000000);
      for (const auto& [label, count] : lengths) {
        lynx::SimConfig c = config;
        c.workload = synthetic_workload(trace_path, rate, count);
        const RunFigures f = parse(simulate_once(c, tmp + "/memory"));
        std::printf("  %-6s %12.0f %10.0f %12.0f %10.1f%s\n", label.c_str(), f.requests, f.peak_mb,
                    f.requests / f.wall_s, f.wall_s, label == "10M" ? "  (target < 1024 MB)" : "");
        std::fflush(stdout);
      }
    }

    // 3b. The same for a trace file read as it is needed: the trace itself, and its rows repeated 8 times (each copy
    // shifted by the trace's span) in a file of 8x the length.
    if (!skip_memory) {
      const std::string repeated = tmp + "/trace_8x.jsonl";
      write_repeated_trace(trace_path, trace, 8, repeated);
      std::printf("peak memory of a trace file read as needed (Mooncake rows):\n");
      std::printf("  %-6s %12s %10s %12s %10s\n", "length", "requests", "peak MB", "requests/s", "wall s");
      for (const auto& [label, path] : {std::pair<std::string, std::string>{"1x", trace_path}, {"8x", repeated}}) {
        lynx::SimConfig c = config;
        c.workload = {{"trace", path}, {"format", "mooncake"}};
        const RunFigures f = parse(simulate_once(c, tmp + "/memory"));
        std::printf("  %-6s %12.0f %10.0f %12.0f %10.1f\n", label.c_str(), f.requests, f.peak_mb,
                    f.requests / f.wall_s, f.wall_s);
        std::fflush(stdout);
      }
    }

    // 4. Cost per request from 8+8 to 512+512 instances, the load scaled with the instances.
    if (!skip_scale) {
      std::printf("cost per simulated request, 8+8 -> 512+512 instances (load x instances/8, 20,000 requests):\n");
      for (lynx::Topology topology : {lynx::Topology::star, lynx::Topology::leaf_spine}) {
        double cost[2] = {0, 0};
        for (int k = 0; k < 2; ++k) {
          const int instances = k == 0 ? 8 : 512;
          lynx::SimConfig c = config;
          c.prefill.instances = c.decode.instances = instances;
          c.network.topology = topology;
          c.workload = synthetic_workload(trace_path, rate * instances / 8.0, 20000);
          std::vector<double> per_request;
          for (int i = 0; i < 3; ++i) {
            const RunFigures f = parse(simulate_once(c, tmp + "/scale"));
            per_request.push_back(f.wall_s / f.requests);
          }
          cost[k] = median(per_request);
        }
        std::printf("  %-10s 8+8 %7.1f us/request   512+512 %7.1f us/request   growth %.2f x  (target <= 1.5)\n",
                    lynx::topology_name(topology), cost[0] * 1e6, cost[1] * 1e6, cost[1] / cost[0]);
        std::fflush(stdout);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_simulate: %s\n", e.what());
    status = 1;
  }
  std::error_code ignored;
  std::filesystem::remove_all(tmp, ignored);
  return status;
}
