// `lynxsim validate`, engine groups: published end-to-end measurements of named serving engines
// (models/validation/<engine>_published.tsv, each row with its citation) predicted by the engine-composed step cost
// (engine_cost.hpp), which is built from AIConfigurator's component tables only: no row here feeds any model.
// A row's kind says what is predicted:
//   first_token        one prompt of isl tokens, batch 1: the prefill step (ms)
//   static_throughput  one static batch (the engines' session benchmarks): the prefill of batch x isl, then osl - 1
//                      decode steps of the whole batch at KV lengths isl + 1 .. isl + osl - 1; output tokens per second
//                      per GPU, compared as ms per output token per GPU (1000 / measured)
//   batch_latency      the same static batch, its end-to-end time (ms)
// Rows are grouped by (GPU, engine, phase, TP): phase "prefill" for first_token, "static batch" otherwise. A row's
// `excluded` column states a rule decided before prediction (e.g. an ambiguous unit); excluded rows are printed and
// left out of the MAPE.
#pragma once
#include <string>

#include "models/validation/validation.hpp"

namespace lynx {

// Appends the rows of every models/validation/*_published.tsv under `validation_dir` and their groups. `data_dir`:
// the calibration folder. A malformed file is one LynxError naming the file and line.
void add_engine_validation(ValidationReport& report, const std::string& validation_dir, const std::string& data_dir,
                           const std::string& models_catalog, const std::string& gpus_catalog);
// models/validation in the project folder.
std::string default_engine_validation_dir();

}  // namespace lynx
