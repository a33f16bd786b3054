// Simulator speed: the whole shipped Mooncake conversation trace (12,031 requests) on 8 prefill + 8 decode H200
// instances at 100 Gbps with lynx-a4r4-g64 (experiments/configs/mooncake_8x8_h200_100g.json). Prints wall time,
// simulated requests per wall second and peak memory, each run in its own process (one SimGrid engine per process).
// Baseline of the same run: reading and building the workload alone (the part no simulator can skip).
// Targets of the issue: >= 2,000 requests per wall second on one core, under 1 GB.
//   bench_simulate [config] [repetitions]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/data_folder.hpp"
#include "common/error.hpp"
#include "common/json_reader.hpp"
#include "sim/isolated_run.hpp"
#include "sim/simulation.hpp"
#include "sim/simulation_setup.hpp"
#include "traces/workload_spec.hpp"

namespace {
double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
}  // namespace

int main(int argc, char** argv) {
  const std::string config_path =
      argc > 1 ? argv[1] : lynx::project_dir() + "/experiments/configs/mooncake_8x8_h200_100g.json";
  const int reps = argc > 2 ? std::atoi(argv[2]) : 3;
  try {
    lynx::SimConfig config = lynx::sim_config_load(config_path);
    lynx::JsonObject workload(config.workload, config.origin, "$.workload");
    lynx::WorkloadSpec spec = lynx::workload_spec_from_json(workload, config.base_dir);
    double best_read = 1e30, best_sim = 1e30;
    size_t requests = 0;
    for (int i = 0; i < reps; ++i) {
      double t0 = now_s();
      std::vector<lynx::Request> built = lynx::workload_build(spec, config.seed);
      best_read = std::min(best_read, now_s() - t0);
      requests = built.size();
      std::string wall = lynx::run_isolated([&] {
        lynx::SimulationInputs inputs = lynx::simulation_inputs(config, built);
        lynx::SimulationResult result = lynx::simulate(inputs);
        return std::to_string(result.wall_s);
      });
      best_sim = std::min(best_sim, std::stod(wall));
    }
    struct rusage children {};
    getrusage(RUSAGE_CHILDREN, &children);
    std::printf("config: %s\n", config_path.c_str());
    std::printf("requests                         %zu\n", requests);
    std::printf("workload read+build (baseline)   %.3f s\n", best_read);
    std::printf("simulation wall (best of %d)      %.3f s  = %.1f x the workload read\n", reps, best_sim,
                best_sim / best_read);
    std::printf("simulated requests per wall s    %.0f  (target >= 2000)\n", static_cast<double>(requests) / best_sim);
    std::printf("peak memory of a simulation      %.0f MB  (target < 1024)\n",
                static_cast<double>(children.ru_maxrss) / 1024.0);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_simulate: %s\n", e.what());
    return 1;
  }
  return 0;
}
