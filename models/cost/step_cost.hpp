// What the simulator asks of a compute cost model: the time of one prefill iteration and of one decode iteration
// on one serving instance (one model replica on `tp` GPUs), and the bytes its weights take. Two implementations:
// the roofline (cost_model.hpp: datasheet peaks times efficiencies measured from the calibration data) and the
// profiled model (profiled/profiled_cost.hpp: published per-operation, attention, collective and CPU measurements).
// compute_model.hpp chooses between them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace lynx {

// A prompt piece of a prefill iteration: `new_tokens` computed, attending also to `cached_tokens` earlier tokens
// of the same sequence (chunked prefill).
struct PrefillPiece {
  int64_t new_tokens = 0;
  int64_t cached_tokens = 0;
};

// One decode iteration of a continuous batch.
struct DecodeWork {
  int64_t query_tokens = 0;        // tokens computed (one per sequence; k + 1 for a verification pass)
  int64_t sequences = 0;           // sequences in the batch
  double attended_tokens = 0;      // keys attended, summed over the query tokens (roofline FLOPs)
  double kv_bytes_read = 0;        // KV bytes read, in the cache's format (roofline bytes)
  double attention_kv_tokens = 0;  // KV tokens read by attention, summed over sequences, each weighted by its
                                   // format's attention cost relative to bf16 (kernel cost table; profiled model)
};

// A planned run of decode iterations that differ only in their context: iteration i (0-based) does `query_tokens`
// and `sequences` with attended_tokens = attended + i x query_tokens, kv_bytes_read = kv_bytes + i x
// kv_bytes_growth and attention_kv_tokens = attention_tokens + i x attention_growth (each member attends to one
// more key and reads one more token's KV per iteration).
struct DecodeRun {
  int64_t query_tokens = 0, sequences = 0;
  double attended = 0, kv_bytes = 0, kv_bytes_growth = 0, attention_tokens = 0, attention_growth = 0;
  DecodeWork at(size_t i) const {
    const double growth = static_cast<double>(i);
    DecodeWork work;
    work.query_tokens = query_tokens;
    work.sequences = sequences;
    work.attended_tokens = attended + growth * static_cast<double>(query_tokens);
    work.kv_bytes_read = kv_bytes + growth * kv_bytes_growth;
    work.attention_kv_tokens = attention_tokens + growth * attention_growth;
    return work;
  }
};

class StepCostModel {
 public:
  virtual ~StepCostModel() = default;
  virtual double prefill_seconds(const std::vector<PrefillPiece>& pieces) const = 0;
  virtual double decode_seconds(const DecodeWork& work) const = 0;
  // Appends the end times of iterations [first, last) of `run` to `ends_s`, each starting at the previous end
  // (`start_s` for iteration `first`): t += decode_seconds(run.at(i)), the same sums however a model computes them
  // (a model may override it to compute the terms that do not change along the run once).
  virtual void decode_run_ends(const DecodeRun& run, size_t first, size_t last, double start_s,
                               std::vector<double>& ends_s) const {
    double t = start_s;
    for (size_t i = first; i < last; ++i) {
      t += decode_seconds(run.at(i));
      ends_s.push_back(t);
    }
  }
  // One pass that computes prompt pieces and a batch of decodes together (a co-located engine's step), its dense
  // layers run at `run_tokens` tokens (at least the pieces' tokens plus work.query_tokens; more where the engine
  // pads the step to a captured CUDA graph). The default costs the two apart, prefill_seconds + decode_seconds
  // (each reading the weights: an upper bound); the engine-composed model costs one pass
  // (EngineCostModel::iteration_seconds).
  virtual double mixed_seconds(const std::vector<PrefillPiece>& pieces, const DecodeWork& work,
                               int64_t run_tokens) const {
    (void)run_tokens;
    double s = 0;
    if (!pieces.empty()) s += prefill_seconds(pieces);
    if (work.query_tokens > 0) s += decode_seconds(work);
    return s;
  }
  virtual double weight_bytes() const = 0;  // the replica's weights, all tp GPUs together
  // For the run summary's `sources`: which model, from which data; and whether any time so far was extrapolated
  // beyond the measurements.
  virtual std::string source() const = 0;
  virtual bool extrapolated() const { return false; }
  // Reads now every table the model's lookups may read, where it reads them lazily. A sweep calls it before it
  // forks its points, so that they share what the parent read instead of each reading it again; nothing computed
  // changes. A table that cannot be read is left to the lookup that needs it (which reports it).
  virtual void preload_tables() const {}
  // The same tables, read now and a table that cannot be read reported (LynxError): a run calls it while it is set up,
  // so that a bad table is an error against the configuration before the simulation starts, never inside it.
  virtual void load_tables() const {}
};

}  // namespace lynx
