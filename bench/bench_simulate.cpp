// Simulator speed, memory and scale, each figure against a baseline measured in the same run; every simulation
// runs in its own process (one SimGrid engine per process).
//  1. Speed: the whole shipped Mooncake conversation trace (12,031 requests) on 8 prefill + 8 decode H200
//     instances at 100 Gbps with lynx-a4r4-g64 (experiments/configs/mooncake_8x8_h200_100g.json), simulated and
//     written (requests.csv, summary.json) as `lynxsim simulate` does, against a bare SimGrid program that replays
//     the same flows (the same platform, sizes, weights and start times, recorded from the simulation) driven by
//     Engine::run_until and completion callbacks, doing nothing else. Like for like, the simulation's requests are
//     built in memory before its timer starts, as the replay's flows are; a third run reads the trace as it is needed
//     (what `lynxsim simulate` does) and is printed beside. Runs alternate; medians. Targets (issue 15):
//     at most 1.5x the bare replay, at least 10,000 simulated requests per wall second.
//  2. Memory: peak memory of a synthetic workload at the Mooncake trace's load (its arrival rate, its joint
//     empirical lengths) of 1x, 8x and 64x its length, streamed (requests generated as needed, rows written and
//     dropped). Target: flat; a 10-million-request run under 1 GB (`bench_simulate --ten-million`, ~20 minutes).
//     Then a trace file read as it is needed: the Mooncake trace and a file of its rows repeated 8 times.
//  3. Scale: cost per simulated request at 8+8 and 512+512 instances (load scaled with the instances), star and
//     leaf-spine. Target: at most 1.5x from 8+8 to 512+512.
//   bench_simulate [--reps N] [--config FILE] [--ten-million] [--skip-memory] [--skip-scale]
#include <sys/resource.h>
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

#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

#include "common/data_folder.hpp"
#include "common/error.hpp"
#include "common/json_reader.hpp"
#include "sim/flow_priority.hpp"
#include "sim/isolated_run.hpp"
#include "sim/run_files.hpp"
#include "sim/platform.hpp"
#include "sim/run_config.hpp"
#include "sim/simulation.hpp"
#include "sim/simulation_setup.hpp"
#include "traces/trace_stats.hpp"
#include "traces/workload_spec.hpp"
#include "traces/workload_stream.hpp"

namespace {
namespace sg4 = simgrid::s4u;

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

std::vector<lynx::FlowLogEntry> read_flow_log(const std::string& path) {
  std::vector<lynx::FlowLogEntry> flows(std::filesystem::file_size(path) / sizeof(lynx::FlowLogEntry));
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr || std::fread(flows.data(), sizeof(lynx::FlowLogEntry), flows.size(), f) != flows.size())
    lynx::throw_error("%s: cannot read the flow log", path.c_str());
  std::fclose(f);
  return flows;
}

// The bare SimGrid program: the same platform, the recorded flows started at their times from maestro, completions
// through the completion callback; nothing else. Returns its wall seconds (engine, platform, replay).
double bare_replay(const lynx::SimConfig& config, const std::vector<lynx::FlowLogEntry>& flows) {
  const double t0 = now_s();
  int argc = 1;
  char name[] = "bare";
  char* argv[] = {name, nullptr};
  sg4::Engine engine(&argc, argv);
  xbt_log_control_set("root.thresh:critical");
  lynx::Platform platform = lynx::platform_build(config.network, lynx::cluster_platform_nodes(config));
  std::vector<sg4::CommPtr> comms;  // kept to the end: dropping a running comm's last handle crashes
  comms.reserve(flows.size());
  size_t completed = 0;
  sg4::Activity::on_completion_cb([&completed](const sg4::Activity&) { ++completed; });
  for (const lynx::FlowLogEntry& f : flows) {
    if (f.start_s > sg4::Engine::get_clock()) engine.run_until(f.start_s);
    sg4::CommPtr comm = sg4::Comm::sendto_init();
    comm->set_payload_size(f.bytes);
    comm->set_source(platform.hosts[static_cast<size_t>(f.src)]);
    comm->set_destination(platform.hosts[static_cast<size_t>(f.dst)]);
    if (f.weight != 1.0) lynx::set_flow_weight(comm, f.weight);
    comms.push_back(std::move(comm));
  }
  engine.run();
  if (completed != flows.size()) lynx::throw_error("bare replay: %zu of %zu flows completed", completed, flows.size());
  return now_s() - t0;
}

// How the simulation gets its requests: read as they are needed (as `lynxsim simulate` does: the trace is parsed
// inside the timed run), or built in memory before the timer starts (as the bare replay has its flows).
enum class Workload { streamed, in_memory };

// One simulation as `lynxsim simulate` runs it, results written under `dir`; returns "wall requests peak_mb".
std::string simulate_once(const lynx::SimConfig& config, const std::string& dir, const std::string& flow_log = "",
                          Workload how = Workload::streamed) {
  return lynx::run_isolated([&] {
    lynx::JsonObject workload(config.workload, config.origin, "$.workload");
    lynx::WorkloadSpec spec = lynx::workload_spec_from_json(workload, config.base_dir);
    std::function<bool(lynx::Request&)> stream;
    if (how == Workload::streamed) stream = lynx::workload_stream(spec, config.seed);
    lynx::SimulationInputs inputs =
        lynx::simulation_inputs(config, stream ? std::vector<lynx::Request>{} : lynx::workload_build(spec, config.seed));
    inputs.request_source = std::move(stream);
    inputs.prefix_block_tokens = spec.prefix_block_tokens;
    inputs.flow_log_path = flow_log;
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

int main(int argc, char** argv) {
  std::string config_path = lynx::project_dir() + "/experiments/configs/mooncake_8x8_h200_100g.json";
  int reps = 5;
  bool ten_million = false, skip_memory = false, skip_scale = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (a == "--config" && i + 1 < argc) config_path = argv[++i];
    else if (a == "--ten-million") ten_million = true;
    else if (a == "--skip-memory") skip_memory = true;
    else if (a == "--skip-scale") skip_scale = true;
    else {
      std::fprintf(stderr, "usage: bench_simulate [--reps N] [--config FILE] [--ten-million] [--skip-memory] "
                           "[--skip-scale]\n");
      return 2;
    }
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

    // 1. Speed against the bare replay of the same flows.
    const std::string flow_log = tmp + "/flows.bin";
    const RunFigures recorded = parse(simulate_once(config, tmp + "/record", flow_log));
    const std::vector<lynx::FlowLogEntry> flows = read_flow_log(flow_log);
    std::vector<double> sim_s, bare_s;
    std::vector<double> streamed_s;
    for (int i = 0; i < reps; ++i) {
      sim_s.push_back(parse(simulate_once(config, tmp + "/sim", "", Workload::in_memory)).wall_s);
      bare_s.push_back(std::stod(lynx::run_isolated([&] { return std::to_string(bare_replay(config, flows)); })));
      streamed_s.push_back(parse(simulate_once(config, tmp + "/sim")).wall_s);
    }
    const double sim = median(sim_s), bare = median(bare_s), streamed = median(streamed_s);
    std::printf("requests                              %.0f (%zu flows)\n", recorded.requests, flows.size());
    std::printf("simulation wall (median of %d)         %.3f s  (requests in memory, as the replay's flows)\n", reps,
                sim);
    std::printf("bare SimGrid replay of its flows       %.3f s\n", bare);
    std::printf("ratio to the bare replay               %.2f x  (target <= 1.5)\n", sim / bare);
    std::printf("simulated requests per wall s          %.0f  (target >= 10000)\n", recorded.requests / sim);
    std::printf("with the trace parsed as it is needed  %.3f s  (%.2f x the bare replay; lynxsim simulate's way)\n",
                streamed, streamed / bare);

    // 2. Peak memory against workload length, at the trace's load.
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

    // 2b. The same for a trace file read as it is needed: the trace itself, and its rows repeated 8 times (each copy
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

    // 3. Cost per request from 8+8 to 512+512 instances, the load scaled with the instances.
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
