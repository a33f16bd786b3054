// `lynxsim validate`'s serving group: every replayable GPUStack run (serving_cases.hpp) simulated as it was served
// (one co-located instance of its engine on its GPUs, its N requests at once or its C clients in a closed loop) and
// compared with what `vllm bench serve` measured: benchmark duration, mean TTFT, mean TPOT. Each run is simulated in
// a child process (one SimGrid engine per process).
//
// The engine-level terms no component measurement gives (host time per step and per request in it, the front end per
// request) are fitted on the training runs only, per engine (fit_serving_terms), and the check runs say how far the
// fit carries. A deployment's kernels can run slower than the tables that measured them; the fit can take one
// kernel-time factor for the whole deployment as well (bounded, prior 1), and says what it found.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/cost/engine/gpu_derivation.hpp"
#include "sim/validation/serving_cases.hpp"

namespace lynx {

// The engine-level terms of one engine (NaN: the engine's shipped default).
struct ServingTerms {
  double host_step_ms = NAN;
  double host_per_request_us = NAN;
  double frontend_ms = NAN;
  double frontend_serial_ms = NAN;
  double kernel_time_factor = 1;
  // The P/D handoff beyond the connector's measured transfer (the decode side learning that the KV arrived: the
  // connector's notification and polling, the scheduler taking the request up), added to each stream's notify_us.
  // NaN: not fitted (no run on a disaggregated deployment).
  double pd_handoff_ms = NAN;
  // Each kernel family's time over the tables' (the pools' kernel_family_factors; all 1: as measured).
  KernelFamilyFactors family;
  // Every term at `v` (the factors at 1); the fit starts from all(0).
  static ServingTerms all(double v) {
    ServingTerms t;
    t.host_step_ms = t.host_per_request_us = t.frontend_ms = t.frontend_serial_ms = v;
    return t;
  }
};

// Which kernel-time factors a fit takes: none (the tables as measured), one for every kernel, or one per family.
enum class KernelFit { none, one, families };

// The lynxsim configuration that replays `c` (with `terms` set where not NaN).
nlohmann::json serving_case_config(const ServingCase& c, const ServingTerms& terms);

struct ServingPrediction {
  std::string error;  // "" when simulated
  double duration_s = 0, mean_ttft_ms = 0, mean_tpot_ms = 0;
};

// Simulates `c` (in a child process).
ServingPrediction serving_predict(const ServingCase& c, const ServingTerms& terms);

// |predicted / measured - 1| of the three metrics (a metric the run did not measure: NaN).
struct ServingErrors {
  double duration = NAN, ttft = NAN, tpot = NAN;
};
ServingErrors serving_errors(const ServingCase& c, const ServingPrediction& p);

// The terms of `engine` minimising the mean error of duration, TTFT and TPOT over `training` (cases of that engine),
// searched coordinate by coordinate from all terms 0, pass after pass until a pass changes nothing (at most 6), over
// bounded grids: host step 0-10 ms, per request 0-100 us, front end 0-100 ms, the P/D handoff 0-50 ms (runs on a
// disaggregated deployment), and, first, with KernelFit::one the kernel-time factor 1-2.5, with KernelFit::families
// each family's factor 0.5-2.5. Each term takes the grid value within 1% of the lowest mean error along its axis
// that is smallest, or for a factor closest to its prior 1 (the tables as measured): a term or factor the runs
// cannot see stays where it starts. `progress` (may be empty) is told each evaluation.
// The names of the terms fit_serving_terms searches (as profiles and `calibrate --fix` name them).
std::vector<std::string> fit_term_names(KernelFit kernel_fit, bool disaggregated);
// A `fixed` term (fit_serving_terms, below) that is not one of the fit's: an error naming the fit's terms.
void check_fixed_terms(const std::map<std::string, double>& fixed, KernelFit kernel_fit, bool disaggregated);
// The factors as a configuration's kernel_family_factors object.
nlohmann::json kernel_family_json(const KernelFamilyFactors& factors);

// `fixed` holds terms the fit keeps at the given values (by the names the profile uses: "frontend_ms",
// "kernel_family_factors.gemm", ...), as measured elsewhere; a name that is not one of the fit's is an error.
ServingTerms fit_serving_terms(const std::vector<ServingCase>& training, KernelFit kernel_fit,
                               const std::function<void(const std::string&)>& progress,
                               const std::map<std::string, double>& fixed = {});

// One kernel-time factor for the runs of one deployment (a page of the GPUStack lab: one machine, its engines),
// each run at its engine's shipped host and front-end terms: over the grid 0.5-2.5 in steps of 0.1, the value nearest
// 1 among those within 1% of the lowest mean error (duration, TTFT, TPOT over `training`). What `lynxsim calibrate
// --fit-kernel-factor` does for a user's deployment, without refitting the terms. `mean_error` (may be null) is set
// to the mean error at the chosen factor.
double fit_deployment_kernel_factor(const std::vector<ServingCase>& training, double* mean_error = nullptr);

}  // namespace lynx
