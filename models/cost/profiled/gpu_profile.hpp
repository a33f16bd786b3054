// The measured profile of one GPU type, loaded from the published measurements that models/catalog/profiles.json
// lists for it (files under calibration_dir()): per-operation dense-layer times against tokens, NCCL all-reduce
// times against bytes per tensor-parallel degree, prefill and decode attention kernel times with the heads one GPU
// holds, and per-step CPU overheads against batch size per tensor-parallel degree. Each measured quantity becomes a
// Curve (curve.hpp: the interpolation rules). Nothing here knows the model being simulated: profiled_cost.hpp picks
// and scales the curves for a model.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/cost/profiled/curve.hpp"

namespace lynx {

struct DenseMeasurements;  // one mlp.csv as read (gpu_profile.cpp)

// One operation of one transformer layer as measured (vidur mlp.csv), for one model shape at one TP degree.
// size: for a GEMM (attn_pre_proj, attn_post_proj, mlp_up_proj, mlp_down_proj) its weight elements on one GPU;
// for an element-wise op (input_layernorm, post_attention_layernorm, attn_rope, mlp_act, add, emb) the elements
// it touches per token on one GPU. time: Curve of seconds against tokens in the pass, built from the file when it
// is first asked for: a model uses about a dozen of the profile's 200 curves (its shape's nearest sizes), and
// converting every measured time was a fifth of a one-request run's start-up. So a time that is not a positive
// number is reported when a model uses its column, and not at all in a column no simulated model uses.
struct OpCurve {
  std::string op;
  double size = 0;
  std::string source;        // "file (model, TP n)"
  int tp = 1;                // the TP degree it was measured at
  double last_tokens = 0;    // the largest token count measured at that degree (the curve's last size)
  // The curve (built once, thread-safe; LynxError naming the file and line of a bad time).
  const Curve& seconds_by_tokens() const;

  std::shared_ptr<DenseMeasurements> file;  // the file and the rows at `tp`
  size_t column = 0;                         // the op's median column
};

struct AttentionTable;  // one attention measurement file, read when first asked for (gpu_profile.cpp)

// Attention kernel times for one head configuration on one GPU. Its heads come from the manifest; its times from
// its file when a model first picks it (a model uses one prefill and one decode curve of the profile's dozen: reading
// every one took 1.7 M more of a one-request run's 116 M instructions), so a bad time in a file no simulated model
// uses is not reported, as for the dense ops.
struct AttentionCurve {
  double q_heads_per_gpu = 0, kv_heads_per_gpu = 0, head_dim = 0;
  // prefill: against causal query-key pairs of one sequence; decode: against KV tokens read (summed over the
  // batch's sequences). Built once, thread-safe; LynxError naming the file and line of a bad time.
  const Curve& seconds() const;
  std::string source;
  std::shared_ptr<AttentionTable> table;
};

// NCCL all-reduce times of one node, read when a TP degree above 1 first asks for them (a TP 1 model never does).
struct AllReduceMeasurements;

struct GpuProfile {
  std::string gpu;     // catalog name
  std::string source;  // the manifest's description
  std::vector<OpCurve> ops;
  std::vector<AttentionCurve> prefill_attention, decode_attention;
  std::map<int, Curve> cpu_overhead_by_tp;        // seconds per engine step against sequences in the batch
  std::map<int, std::string> cpu_overhead_source; // which file and models
  std::string all_reduce_source;                  // the file, relative to the calibration folder
  // Seconds against message bytes at `tp` GPUs of one node; null where the file has no row at that degree. The
  // file is read at the first call (thread-safe; a LynxError naming its file and line where it does not read).
  const Curve* all_reduce(int tp) const;

  std::shared_ptr<AllReduceMeasurements> all_reduce_file;
};

// The manifest's measured GPUs (names), without loading any measurement.
std::vector<std::string> profiled_gpu_names(const std::string& manifest_path);
// Loads the profile of `gpu` (a name in the manifest); paths in the manifest are relative to `data_dir`.
GpuProfile load_gpu_profile(const std::string& manifest_path, const std::string& gpu, const std::string& data_dir);
// models/catalog/profiles.json in the shipped data.
std::string default_profiles_manifest_path();

}  // namespace lynx
