#include "sim/validation/serving_validation.hpp"

#include <algorithm>

#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "common/error.hpp"
#include "common/json_reader.hpp"
#include "sim/cluster/simulation.hpp"
#include "sim/config/sim_config.hpp"
#include "sim/config/simulation_setup.hpp"
#include "sim/engine/isolated_run.hpp"
#include "traces/workload_spec.hpp"
#include "traces/workload_stream.hpp"

namespace lynx {

namespace {
// A user's deployment with the run's workload and the terms on every pool.
nlohmann::json deployment_config(const ServingCase& c, const ServingTerms& terms) {
  nlohmann::json config = c.deployment;
  for (const char* pool : {"prefill", "decode"}) {
    nlohmann::json& p = config["cluster"][pool];
    if (!std::isnan(terms.host_step_ms)) p["host_step_ms"] = terms.host_step_ms;
    if (!std::isnan(terms.host_per_request_us)) p["host_per_request_us"] = terms.host_per_request_us;
    if (!std::isnan(terms.frontend_ms)) p["frontend_ms"] = terms.frontend_ms;
    if (!std::isnan(terms.frontend_serial_ms)) p["frontend_serial_ms"] = terms.frontend_serial_ms;
    if (terms.kernel_time_factor != 1) p["kernel_time_factor"] = terms.kernel_time_factor;
  }
  if (!terms.family.all_one())
    for (const char* pool : {"prefill", "decode"}) config["cluster"][pool]["kernel_family_factors"] = kernel_family_json(terms.family);
  if (!std::isnan(terms.pd_handoff_ms) && !std::isnan(c.pd_notify_base_us))
    config["transfer"]["notify_us"] = c.pd_notify_base_us + 1e3 * terms.pd_handoff_ms;
  nlohmann::json workload;
  if (!c.trace_file.empty()) {
    workload["trace"] = c.trace_file;
  } else {
    workload["synthetic"] = {{"arrival", "at-once"},
                             {"count", c.requests},
                             {"input_tokens", {{"fixed", c.input_tokens}}},
                             {"output_tokens", {{"fixed", c.output_tokens}}}};
  }
  if (c.max_concurrency > 0) workload["max_concurrency"] = static_cast<int64_t>(c.max_concurrency);
  config["workload"] = workload;
  return config;
}
}  // namespace

nlohmann::json serving_case_config(const ServingCase& c, const ServingTerms& terms) {
  if (!c.deployment.is_null()) return deployment_config(c, terms);
  nlohmann::json pool = {{"instances", 1}, {"gpu", "h100-sxm"}, {"tp", c.tp}, {"ep", c.ep}, {"engine", c.engine}};
  nlohmann::json decode = pool;
  if (c.max_num_batched_tokens > 0) decode["chunked_prefill_tokens"] = c.max_num_batched_tokens;
  if (c.max_num_seqs > 0) decode["max_batch"] = c.max_num_seqs;
  if (c.memory_fraction > 0) decode["memory_fraction"] = c.memory_fraction;
  if (c.chunked_prefill >= 0) decode["chunked_prefill"] = c.chunked_prefill ? "on" : "off";
  if (c.overlap_scheduling >= 0) decode["overlap_scheduling"] = c.overlap_scheduling ? "on" : "off";
  if (!std::isnan(terms.host_step_ms)) decode["host_step_ms"] = terms.host_step_ms;
  if (!std::isnan(terms.host_per_request_us)) decode["host_per_request_us"] = terms.host_per_request_us;
  if (!std::isnan(terms.frontend_ms)) decode["frontend_ms"] = terms.frontend_ms;
  if (!std::isnan(terms.frontend_serial_ms)) decode["frontend_serial_ms"] = terms.frontend_serial_ms;
  if (terms.kernel_time_factor != 1) decode["kernel_time_factor"] = terms.kernel_time_factor;
  if (!terms.family.all_one()) decode["kernel_family_factors"] = kernel_family_json(terms.family);
  nlohmann::json workload = {{"synthetic",
                              {{"arrival", "at-once"},
                               {"count", c.requests},
                               {"input_tokens", {{"fixed", c.input_tokens}}},
                               {"output_tokens", {{"fixed", c.output_tokens}}}}}};
  if (c.max_concurrency > 0) workload["max_concurrency"] = static_cast<int64_t>(c.max_concurrency);
  return {{"model", c.model},
          {"format", "bf16"},
          {"weights_dtype", c.fp8_weights ? "fp8" : "bf16"},
          {"cluster", {{"serving", "colocated"}, {"colocated_instances", 1}, {"prefill", pool}, {"decode", decode}}},
          {"workload", workload}};
}

ServingPrediction serving_predict(const ServingCase& c, const ServingTerms& terms) {
  const nlohmann::json json = serving_case_config(c, terms);
  ServingPrediction p;
  try {
    const std::string out = run_isolated([&json, &c]() -> std::string {
      const SimConfig config = sim_config_from_json(json, "replay of " + c.name(), "");
      JsonObject workload(config.workload, config.origin, "$.workload");
      const WorkloadSpec spec = workload_spec_from_json(workload, config.base_dir);
      SimulationInputs inputs = simulation_inputs(config, {});
      inputs.request_source = workload_stream(spec, config.seed);
      inputs.max_concurrency = spec.max_concurrency;
      const SimulationResult result = simulate(inputs);
      double first = std::numeric_limits<double>::infinity(), last = 0, ttft = 0, tpot = 0;
      int64_t tpots = 0;
      for (const RequestRecord& r : result.records) {
        first = std::min(first, r.arrival_s);
        last = std::max(last, r.end_s);
        ttft += r.ttft_s();
        if (r.output_tokens > 1) {
          tpot += r.tpot_s();
          ++tpots;
        }
      }
      char buf[128];
      std::snprintf(buf, sizeof buf, "%.17g %.17g %.17g", last - first,
                    1e3 * ttft / static_cast<double>(result.records.size()),
                    tpots > 0 ? 1e3 * tpot / static_cast<double>(tpots) : 0.0);
      return buf;
    });
    std::istringstream in(out);
    in >> p.duration_s >> p.mean_ttft_ms >> p.mean_tpot_ms;
  } catch (const std::exception& e) {
    p.error = e.what();
  }
  return p;
}

ServingErrors serving_errors(const ServingCase& c, const ServingPrediction& p) {
  ServingErrors e;
  if (!p.error.empty()) return e;
  e.duration = std::fabs(p.duration_s / c.run.duration_s() - 1);
  e.ttft = std::fabs(p.mean_ttft_ms / c.run.mean_ttft_ms() - 1);
  const double tpot = c.run.mean_tpot_ms();
  if (!std::isnan(tpot) && tpot > 0 && c.output_tokens > 1) e.tpot = std::fabs(p.mean_tpot_ms / tpot - 1);
  return e;
}

namespace {
double objective(const std::vector<ServingCase>& cases, const ServingTerms& terms) {
  double sum = 0;
  int n = 0;
  for (const ServingCase& c : cases) {
    const ServingErrors e = serving_errors(c, serving_predict(c, terms));
    for (double x : {e.duration, e.ttft, e.tpot}) {
      if (std::isnan(x)) continue;
      sum += x;
      ++n;
    }
  }
  return n > 0 ? sum / n : std::numeric_limits<double>::infinity();
}
}  // namespace

namespace {
// One term the fit searches: where it lives in ServingTerms, its grid, its name (as profiles and --fix name it).
struct Axis {
  std::function<double&(ServingTerms&)> term;
  std::vector<double> grid;
  std::string name;
  double prior = NAN;  // a factor's prior (the value kept where the runs cannot tell); NaN: the smallest value
};

std::vector<Axis> fit_axes(KernelFit kernel_fit, bool disaggregated) {
  auto member = [](double ServingTerms::*m) { return [m](ServingTerms& t) -> double& { return t.*m; }; };
  std::vector<Axis> axes;
  if (kernel_fit == KernelFit::one)
    axes.push_back({member(&ServingTerms::kernel_time_factor), {1, 1.5, 2, 2.5}, "kernel_time_factor", 1});
  // One factor per kernel family, prior 1 (the engine's kernels as AIConfigurator measured them), bounded to
  // 0.5-2.5: a deployment whose kernels run at half their measured time or below, or 2.5x above, is not a
  // calibration of these tables but another engine or GPU. The GEMMs first, which hold most of every step's kernel
  // time: a family fitted before them would take up the GEMMs' share of the error.
  if (kernel_fit == KernelFit::families)
    for (KernelFamily f : kKernelFamilies)
      axes.push_back({[f](ServingTerms& t) -> double& { return t.family[f]; },
                      {0.5, 0.75, 1, 1.25, 1.5, 2, 2.5},
                      std::string("kernel_family_factors.") + kernel_family_key(f), 1});
  axes.push_back({member(&ServingTerms::host_step_ms), {0, 0.5, 1, 2, 3, 10}, "host_step_ms"});
  // Per request at most 100 us, about 8x the one measurement found (vLLM V1's scheduler, 12.7 us per running
  // request: simllm PR #204, docs/engines.md): beyond it the term would stand for GPU time, not host time.
  axes.push_back({member(&ServingTerms::host_per_request_us), {0, 10, 25, 50, 100}, "host_per_request_us"});
  axes.push_back({member(&ServingTerms::frontend_ms), {0, 10, 20, 30, 40, 50, 100}, "frontend_ms"});
  axes.push_back({member(&ServingTerms::frontend_serial_ms), {0, 2, 5, 10, 20}, "frontend_serial_ms"});
  // The P/D handoff, when some run is on a disaggregated deployment: at most 50 ms, as the front end's grid stops at
  // 100 ms for a whole request (a notification is one message and a scheduler pass). Client metrics alone see it only
  // beside the front end's latency (both delay every first token by a constant), so it is separable when co-located
  // runs of the same engine are calibrated with it (one profile, several deployments).
  if (disaggregated) axes.push_back({member(&ServingTerms::pd_handoff_ms), {0, 1, 2, 5, 10, 20, 50}, "pd_handoff_ms"});
  return axes;
}

// Along one axis: the grid value whose mean error is within 1% of the lowest and is the smallest or, with a prior
// (a factor), the nearest the prior.
size_t chosen_on_grid(const std::vector<double>& grid, const std::vector<double>& values, double prior) {
  const double lowest = *std::min_element(values.begin(), values.end());
  size_t chosen = values.size();
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] > 1.01 * lowest) continue;
    if (chosen == values.size() || (!std::isnan(prior) && std::fabs(grid[i] - prior) < std::fabs(grid[chosen] - prior)))
      chosen = i;
  }
  return chosen;
}
}  // namespace

std::vector<std::string> fit_term_names(KernelFit kernel_fit, bool disaggregated) {
  std::vector<std::string> names;
  for (const Axis& a : fit_axes(kernel_fit, disaggregated)) names.push_back(a.name);
  return names;
}

void check_fixed_terms(const std::map<std::string, double>& fixed, KernelFit kernel_fit, bool disaggregated) {
  const std::vector<std::string> names = fit_term_names(kernel_fit, disaggregated);
  for (const auto& fixed_term : fixed)
    if (std::find(names.begin(), names.end(), fixed_term.first) == names.end()) {
      std::string list;
      for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
      throw_error("--fix %s: not a term this fit takes (%s)", fixed_term.first.c_str(), list.c_str());
    }
}

nlohmann::json kernel_family_json(const KernelFamilyFactors& factors) {
  nlohmann::json j = nlohmann::json::object();
  for (KernelFamily f : kKernelFamilies) j[kernel_family_key(f)] = factors[f];
  return j;
}

ServingTerms fit_serving_terms(const std::vector<ServingCase>& training, KernelFit kernel_fit,
                               const std::function<void(const std::string&)>& progress,
                               const std::map<std::string, double>& fixed) {
  ServingTerms best = ServingTerms::all(0);
  bool disaggregated = false;
  for (const ServingCase& c : training) disaggregated = disaggregated || !std::isnan(c.pd_notify_base_us);
  if (disaggregated) best.pd_handoff_ms = 0;
  std::vector<Axis> axes = fit_axes(kernel_fit, disaggregated);
  // Terms measured elsewhere stay where they are given.
  check_fixed_terms(fixed, kernel_fit, disaggregated);
  for (const auto& fixed_term : fixed) {
    const std::string& name = fixed_term.first;  // a plain reference: clang 14 cannot capture a structured binding
    const auto it = std::find_if(axes.begin(), axes.end(), [&name](const Axis& a) { return a.name == name; });
    it->term(best) = fixed_term.second;
    axes.erase(it);
  }
  // Along each axis in turn, the term takes the grid value whose mean error is within 1% of the lowest along that
  // axis and is the smallest (or, for a factor, the closest to its prior): a term the runs cannot see (such as host
  // time an overlapping scheduler hides) stays at its smallest value, a factor at its prior, rather than drifting to
  // where noise puts it. Passes repeat until one changes nothing (at most 6: the terms interact, a front end's queue
  // and the host's steps both delaying first tokens).
  for (int pass = 0; pass < 6; ++pass) {
    const ServingTerms before = best;
    for (const Axis& axis : axes) {
      std::vector<double> values;
      for (double v : axis.grid) {
        ServingTerms t = best;
        axis.term(t) = v;
        values.push_back(objective(training, t));
        if (progress) {
          char line[200];
          std::snprintf(line, sizeof line, "%s = %g: mean error %.4f", axis.name.c_str(), v, values.back());
          progress(line);
        }
      }
      axis.term(best) = axis.grid[chosen_on_grid(axis.grid, values, axis.prior)];
    }
    bool changed = false;
    for (const Axis& axis : axes) {
      ServingTerms a = best, b = before;
      changed = changed || axis.term(a) != axis.term(b);
    }
    if (!changed && pass > 0) break;
  }
  return best;
}

double fit_deployment_kernel_factor(const std::vector<ServingCase>& training, double* mean_error) {
  if (training.empty()) throw_internal_error("a deployment factor needs training runs");
  std::vector<double> grid, values;
  for (int tenths = 5; tenths <= 25; ++tenths) {
    ServingTerms t;
    t.kernel_time_factor = tenths / 10.0;
    grid.push_back(t.kernel_time_factor);
    values.push_back(objective(training, t));
  }
  const size_t chosen = chosen_on_grid(grid, values, 1);
  if (mean_error != nullptr) *mean_error = values[chosen];
  return grid[chosen];
}

}  // namespace lynx
