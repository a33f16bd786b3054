// `lynxsim validate`: the profiled cost model, built only from component measurements (per-op, attention,
// collectives, CPU overheads), predicts end-to-end measurements it never saw:
//   - splitwise-sim data/perf_model.csv: Llama-2-70B prefill time of a batch (prompt_time) and per-token decode
//     time (token_time) at TP 2/4/8 on DGX-A100 and DGX-H100 (and the power-capped H100, reported apart);
//     median of the repeats of each condition;
//   - LLMServingSim's per-op H100 prefill profiles of Llama-3.1-8B (TP 1/2) and 70B (TP 1/2/4), summed over a
//     whole model (layers x per-layer ops + embedding + final norm + LM head over every token, as that profiler
//     ran it, no all-reduce): predicted by the same components without collectives or CPU overhead.
// No end-to-end row feeds the model. Rows are excluded only by a stated rule (see Row::excluded).
#pragma once
#include <string>
#include <vector>

namespace lynx {

struct ValidationRow {
  std::string group;      // e.g. "H100 prefill (splitwise-sim)"
  std::string condition;  // e.g. "TP4 prompt 512 x batch 8"
  double measured_ms = 0, predicted_ms = 0;
  int repeats = 0;        // measured rows behind the median
  std::string excluded;   // why the row is left out of the MAPE ("" = included)
  std::string source;     // file:line of the first measured row
  int tp = 0;             // tensor-parallel degree of the measured run
  double batched_tokens = 0;  // prefill: prompt tokens of the whole batch; decode: sequences in the batch
};

struct ValidationGroup {
  std::string group;
  int rows = 0;
  double mape_percent = 0;
};

struct ValidationReport {
  std::vector<ValidationRow> rows;
  std::vector<ValidationGroup> groups;
  // Diagnostic split of the splitwise-sim groups (not a second headline): by TP degree, and for prefill by the
  // batch's prompt tokens up to / above kSplitTokens, where the measured prefill time per token stops falling and
  // jumps at TP 4 and 8 on both GPUs while every component measurement stays linear (DESIGN.md, "Compute cost models").
  std::vector<ValidationGroup> breakdown;
  static constexpr double kSplitTokens = 2048;
};

// `data_dir`: the calibration folder; `manifest`, `models_catalog`, `gpus_catalog`: as the simulator reads them.
ValidationReport run_validation(const std::string& data_dir, const std::string& manifest,
                                const std::string& models_catalog, const std::string& gpus_catalog);
// CSV: group,condition,measured_ms,predicted_ms,ratio,repeats,included,excluded_because,source,tp,batched_tokens
std::string validation_csv(const ValidationReport& report);

}  // namespace lynx
