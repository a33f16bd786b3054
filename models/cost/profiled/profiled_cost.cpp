#include "models/cost/profiled/profiled_cost.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <type_traits>

#include "common/error.hpp"

namespace lynx {

namespace {
double log_distance(double a, double b) { return std::fabs(std::log(a / b)); }

const std::vector<std::string> kGemms{"attn_pre_proj", "attn_post_proj", "mlp_up_proj", "mlp_down_proj"};
}  // namespace

ProfiledCostModel::ProfiledCostModel(const ModelSpec& model, const GpuSpec& gpu, int tensor_parallel,
                                     WeightsDtype weights, std::shared_ptr<const GpuProfile> measured,
                                     const GpuSpec& measured_gpu)
    : model_(model), gpu_(gpu), measured_gpu_(measured_gpu), tp_(tensor_parallel), weights_(weights),
      profile_(std::move(measured)) {
  if (tensor_parallel < 1) throw_error("tensor-parallel degree must be >= 1, got %d", tensor_parallel);
  same_gpu_ = gpu.name == measured_gpu.name && weights == WeightsDtype::bf16;
  const double p = tensor_parallel, hidden = static_cast<double>(model.hidden_size);
  const double heads = static_cast<double>(model.n_heads), kv = static_cast<double>(model.n_kv_heads);
  const double hd = static_cast<double>(model.head_dim), ffn = static_cast<double>(model.ffn_size);
  const double qkv = (heads + 2 * kv) * hd / p;
  layer_ops_.push_back(pick("input_layernorm", {"input_layernorm"}, hidden, hidden, 0, 1));
  layer_ops_.push_back(pick("attn_pre_proj", {"attn_pre_proj"}, hidden * qkv, hidden, qkv, 1));
  layer_ops_.push_back(pick("attn_rope", {"attn_rope"}, (heads + kv) * hd / p, (heads + kv) * hd / p, 0, 1));
  layer_ops_.push_back(pick("attn_post_proj", {"attn_post_proj"}, heads * hd / p * hidden, heads * hd / p, hidden, 1));
  layer_ops_.push_back(pick("post_attention_layernorm", {"post_attention_layernorm"}, hidden, hidden, 0, 1));
  layer_ops_.push_back(pick("mlp_up_proj", {"mlp_up_proj"}, hidden * 2 * ffn / p, hidden, 2 * ffn / p, 1));
  layer_ops_.push_back(pick("mlp_act", {"mlp_act"}, 2 * ffn / p, 2 * ffn / p, 0, 1));
  layer_ops_.push_back(pick("mlp_down_proj", {"mlp_down_proj"}, ffn / p * hidden, ffn / p, hidden, 1));
  layer_ops_.push_back(pick("add", {"add"}, hidden, hidden, 0, 2));  // two residual adds per layer
  layer_grid_ = layer_ops_.front().curve ? layer_ops_.front().seconds : nullptr;
  for (const Op& op : layer_ops_)
    if (!op.curve || !layer_grid_ || !op.seconds->same_sizes(*layer_grid_)) layer_grid_ = nullptr;
  emb_ = pick("emb", {"emb"}, hidden, hidden, 0, 1);
  final_norm_ = pick("input_layernorm", {"input_layernorm"}, hidden, hidden, 0, 1);
  const double vocab = static_cast<double>(model.vocab_size);
  lm_head_ = pick("lm_head", kGemms, hidden * vocab / p, hidden, vocab / p, 1);

  // Attention kernels: nearest heads per GPU (prefill: query heads, which set its FLOPs; decode: KV heads, which
  // set its bytes), ties broken by the other head count.
  auto nearest = [&](const std::vector<AttentionCurve>& list, double primary, double secondary, bool by_q) {
    const AttentionCurve* best = nullptr;
    double best_d = 0, best_d2 = 0;
    for (const AttentionCurve& a : list) {
      const double d = log_distance(by_q ? a.q_heads_per_gpu : a.kv_heads_per_gpu, primary);
      const double d2 = log_distance(by_q ? a.kv_heads_per_gpu : a.q_heads_per_gpu, secondary);
      if (!best || d < best_d - 1e-12 || (d < best_d + 1e-12 && d2 < best_d2 - 1e-12)) best = &a, best_d = d, best_d2 = d2;
    }
    return best;
  };
  prefill_attention_ = nearest(profile_->prefill_attention, heads / p, kv / p, true);
  decode_attention_ = nearest(profile_->decode_attention, std::max(kv / p, 1.0), heads / p, false);
  if (prefill_attention_ != nullptr) prefill_attention_seconds_ = &prefill_attention_->seconds();  // read now
  if (decode_attention_ != nullptr) {
    decode_attention_seconds_ = &decode_attention_->seconds();
    decode_measured_heads_inverse_ = exact_inverse(decode_attention_->kv_heads_per_gpu * decode_attention_->head_dim);
  }
  if (tensor_parallel > 1) {
    all_reduce_ = profile_->all_reduce(tensor_parallel);
    if (!all_reduce_)
      not_covered_ = "no all-reduce measurement at TP " + std::to_string(tensor_parallel) + " on " + profile_->gpu;
  }
  // CPU overheads: the measured TP degree nearest to this one.
  int best_tp = 0;
  for (const auto& [tp, curve] : profile_->cpu_overhead_by_tp)
    if (!cpu_overhead_ || std::abs(tp - tensor_parallel) < std::abs(best_tp - tensor_parallel))
      cpu_overhead_ = &curve, best_tp = tp;
  if (cpu_overhead_) cpu_overhead_source_ = profile_->cpu_overhead_source.at(best_tp);
  weight_bytes_ = model_weight_bytes(model, weights);
}

ProfiledCostModel::Op ProfiledCostModel::pick(const std::string& op, const std::vector<std::string>& candidates,
                                              double size, double k, double m, double count) {
  Op out{op, nullptr, nullptr, 1, k, m, count};
  double best_d = 0;
  for (const OpCurve& c : profile_->ops) {
    if (std::find(candidates.begin(), candidates.end(), c.op) == candidates.end()) continue;
    const double d = log_distance(c.size, size);
    // Nearest size; on a tie the curve measured at this TP degree, then the one over the wider token range.
    bool better = !out.curve || d < best_d - 1e-12;
    if (!better && d < best_d + 1e-12) {
      const bool same_tp = c.tp == tp_, best_same_tp = out.curve->tp == tp_;
      better = same_tp != best_same_tp
                   ? same_tp
                   : c.last_tokens > out.curve->last_tokens;
    }
    if (better) out.curve = &c, best_d = d;
  }
  if (!out.curve) {
    not_covered_ = "no measured " + op + " on " + profile_->gpu;
    return out;
  }
  out.seconds = &out.curve->seconds_by_tokens();  // built now: a bad measured time stops the set-up, not the run
  out.size_ratio = size / out.curve->size;
  if (std::exp(best_d) > kMaxSizeRatio && not_covered_.empty()) {
    char text[300];
    std::snprintf(text, sizeof text, "%s of %s at TP %d is %.1fx the nearest measured size on %s", op.c_str(),
                  model_.name.c_str(), tp_, out.size_ratio, profile_->gpu.c_str());
    not_covered_ = text;
  }
  return out;
}

double ProfiledCostModel::gemm_ratio(double tokens, double k, double m) const {
  // Roofline time of this GEMM on the simulated GPU (with its weights' dtype) over the measured GPU's (bf16).
  const double flops = 2 * tokens * k * m, activations = 2 * tokens * (k + m);
  const double target_bytes = (weights_ == WeightsDtype::fp8 ? 1.0 : 2.0) * k * m + activations;
  const double target_peak =
      (weights_ == WeightsDtype::fp8 && gpu_.fp8_dense_tflops > 0 ? gpu_.fp8_dense_tflops : gpu_.bf16_dense_tflops) * 1e12;
  const double target = std::max(flops / target_peak, target_bytes / (gpu_.hbm_gb_per_s * 1e9));
  const double measured = std::max(flops / (measured_gpu_.bf16_dense_tflops * 1e12),
                                   (2 * k * m + activations) / (measured_gpu_.hbm_gb_per_s * 1e9));
  return target / measured;
}

double ProfiledCostModel::op_seconds(const Op& op, double tokens) const {
  if (!op.curve || tokens <= 0) return 0.0;
  const double t = op.seconds->at(tokens, &extrapolated_) * op.size_ratio;
  return same_gpu_ ? t : on_target(op, tokens, t);
}

double ProfiledCostModel::on_target(const Op& op, double tokens, double measured_s) const {
  if (op.m > 0) return measured_s * gemm_ratio(tokens, op.k, op.m);
  return memory_bound_on(measured_s, measured_gpu_.hbm_gb_per_s, gpu_.hbm_gb_per_s);  // element-wise
}

double ProfiledCostModel::dense_layer_seconds(double tokens) const {
  double t = 0;
  // Measured at the same sizes (one GPU profile's dense table): one search for every op, op_seconds' value to the bit.
  if (const size_t segment = layer_grid_ ? layer_grid_->interior_segment(tokens) : 0; segment != 0) {
    for (const Op& op : layer_ops_) {
      const double measured = op.seconds->at_interior(tokens, segment) * op.size_ratio;
      t += op.count * (same_gpu_ ? measured : on_target(op, tokens, measured));
    }
    return t;
  }
  for (const Op& op : layer_ops_) t += op.count * op_seconds(op, tokens);
  return t;
}

double ProfiledCostModel::prefill_attention_seconds(double new_tokens, double cached_tokens) const {
  const AttentionCurve& a = *prefill_attention_;
  const double pairs = new_tokens * cached_tokens + new_tokens * (new_tokens + 1) / 2;
  const double heads = static_cast<double>(model_.n_heads) / tp_ * static_cast<double>(model_.head_dim);
  const double t = prefill_attention_seconds_->at(pairs, &extrapolated_) * heads / (a.q_heads_per_gpu * a.head_dim);
  return same_gpu_ ? t : t * measured_gpu_.bf16_dense_tflops / gpu_.bf16_dense_tflops;  // FLOP-bound
}

double ProfiledCostModel::decode_attention_seconds(double kv_tokens) const {
  const AttentionCurve& a = *decode_attention_;
  const double heads = static_cast<double>(model_.n_kv_heads) / tp_ * static_cast<double>(model_.head_dim);
  const double size =
      decode_attention_size(kv_tokens, heads, a.kv_heads_per_gpu * a.head_dim, decode_measured_heads_inverse_);
  const double t = decode_attention_seconds_->at(size, decode_attention_segment_, &extrapolated_);
  return same_gpu_ ? t : memory_bound_on(t, measured_gpu_.hbm_gb_per_s, gpu_.hbm_gb_per_s);  // bytes-bound
}

double ProfiledCostModel::all_reduce_seconds(double tokens) const {
  if (tp_ == 1 || !all_reduce_ || tokens <= 0) return 0.0;
  const double t = all_reduce_->at(tokens * static_cast<double>(model_.hidden_size) * 2.0, &extrapolated_);
  return same_gpu_ ? t : t * measured_gpu_.nvlink_gb_per_s / gpu_.nvlink_gb_per_s;
}

double ProfiledCostModel::lm_head_seconds(double tokens) const { return op_seconds(lm_head_, tokens); }

double ProfiledCostModel::embedding_seconds(double tokens) const {
  return op_seconds(emb_, tokens) + op_seconds(final_norm_, tokens);
}

double ProfiledCostModel::cpu_overhead_seconds(double sequences) const {
  return cpu_overhead_ ? cpu_overhead_->at(sequences, &extrapolated_) : 0.0;
}

double ProfiledCostModel::prefill_seconds(const std::vector<PrefillPiece>& pieces) const {
  double tokens = 0, attention = 0;
  for (const PrefillPiece& p : pieces) {
    tokens += static_cast<double>(p.new_tokens);
    attention += prefill_attention_seconds(static_cast<double>(p.new_tokens), static_cast<double>(p.cached_tokens));
  }
  const double layers = static_cast<double>(model_.n_layers), sequences = static_cast<double>(pieces.size());
  // 2 all-reduces per layer (after attention and after the MLP) and 1 after the vocabulary-parallel embedding,
  // whose shards each hold only their rows of the table (vidur's emb op is that sharded lookup, without the
  // collective).
  return layers * (dense_layer_seconds(tokens) + attention + 2 * all_reduce_seconds(tokens)) +
         all_reduce_seconds(tokens) + embedding_seconds(tokens) + lm_head_seconds(sequences) +
         cpu_overhead_seconds(sequences);
}

ProfiledCostModel::QueryTerms ProfiledCostModel::query_terms(int64_t query_tokens) const {
  const bool keep = query_tokens >= 0 && query_tokens < kKeptTerms;
  if (keep && static_cast<size_t>(query_tokens) < query_terms_.size() && query_terms_[static_cast<size_t>(query_tokens)].known)
    return query_terms_[static_cast<size_t>(query_tokens)];
  const double q = static_cast<double>(query_tokens);
  QueryTerms t;
  t.known = true;
  t.dense = dense_layer_seconds(q);
  t.all_reduce = all_reduce_seconds(q);
  t.embedding = embedding_seconds(q);
  t.lm_head = lm_head_seconds(q);
  if (keep) {
    if (query_terms_.size() <= static_cast<size_t>(query_tokens)) query_terms_.resize(static_cast<size_t>(query_tokens) + 1);
    query_terms_[static_cast<size_t>(query_tokens)] = t;
  }
  return t;
}

double ProfiledCostModel::cpu_terms(int64_t sequences) const {
  const bool keep = sequences >= 0 && sequences < kKeptTerms;
  if (keep && static_cast<size_t>(sequences) < cpu_terms_.size() && !std::isnan(cpu_terms_[static_cast<size_t>(sequences)]))
    return cpu_terms_[static_cast<size_t>(sequences)];
  const double t = cpu_overhead_seconds(static_cast<double>(sequences));
  if (keep) {
    if (cpu_terms_.size() <= static_cast<size_t>(sequences)) cpu_terms_.resize(static_cast<size_t>(sequences) + 1, NAN);
    cpu_terms_[static_cast<size_t>(sequences)] = t;
  }
  return t;
}

double ProfiledCostModel::decode_seconds(const DecodeWork& work) const {
  const double layers = static_cast<double>(model_.n_layers);
  const QueryTerms c = query_terms(work.query_tokens);
  const double attention_s = decode_attention_seconds(work.attention_kv_tokens);
  return decode_step_sum(layers, c, attention_s, cpu_terms(work.sequences));
}

// decode_seconds along a run, with the terms of its fixed query tokens and sequences looked up once, and the
// attention curve's operands (decode_attention_seconds) taken out of the loop: the same expressions in the same
// order (decode_step_sum), so the same doubles.
// Iterations go by blocks where they can. A run's attention sizes never shrink along it (its growth is >= 0, its
// scales positive, and rounding is monotone), so a block whose first and last sizes the segment's Span holds lies
// in it whole. Such a block's steps are computed first, with the branches of Curve::interpolate and of the GPU
// ratio taken out of the loop, so with no branch and no dependency between iterations (the compiler vectorises
// it), then summed in order into the ends. A block that reaches past its segment is halved until it fits. Other
// iterations (a segment's first, past the measured sizes) go one at a time through Curve::at.
void ProfiledCostModel::decode_run_ends(const DecodeRun& run, size_t first, size_t last, double start_s,
                                        std::vector<double>& ends_s) const {
  if (first >= last) return;  // no lookup (and no extrapolation noted) for an empty run
  decode_run_ends_body(run, first, last, start_s, ends_s);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
void ProfiledCostModel::decode_run_ends_body(const DecodeRun& run, size_t first, size_t last, double start_s,
                                             std::vector<double>& ends_s) const {
  const double layers = static_cast<double>(model_.n_layers);
  const QueryTerms c = query_terms(run.query_tokens);
  const double cpu = cpu_terms(run.sequences);
  const AttentionCurve& a = *decode_attention_;
  const double heads = static_cast<double>(model_.n_kv_heads) / tp_ * static_cast<double>(model_.head_dim);
  const double measured_heads = a.kv_heads_per_gpu * a.head_dim;
  const double measured_heads_inverse = decode_measured_heads_inverse_;
  const double measured_hbm = measured_gpu_.hbm_gb_per_s, hbm = gpu_.hbm_gb_per_s;
  const bool same_gpu = same_gpu_;
  const double kv_first = run.attention_tokens, kv_growth = run.attention_growth;
  const bool blocks = kv_growth >= 0 && heads > 0 && measured_heads_inverse > 0;
  size_t segment = decode_attention_segment_;  // locals: the stores below cannot be to them
  bool extrapolated = false;
  const size_t base = ends_s.size();
  ends_s.resize(base + (last - first));
  double* end_s = ends_s.data() + base;
  double t = start_s;
  const Curve& seconds = *decode_attention_seconds_;
  Curve::Span span = seconds.span(segment);  // in locals: the stores to ends_s cannot change it
  // Iteration i's attended KV tokens: run.at(i).attention_kv_tokens (DecodeRun::at's expression; i exact, a run is
  // < 2^53 iterations), and its size scaled to the table's heads.
  auto kv_at = [kv_first, kv_growth](double i) { return kv_first + i * kv_growth; };
  auto size_at = [&](double i) {
    return decode_attention_size(kv_at(i), heads, measured_heads, measured_heads_inverse);
  };
  auto derived = [&](double measured) { return memory_bound_on(measured, measured_hbm, hbm); };  // bytes-bound
  // The steps of iterations [i, i + n), all held by `s`, into out[0, n) (`blocks`: the heads' inverse multiplies).
  auto block_steps = [&](auto same_gpu_tag, auto by_inverse_tag, const Curve::Span& s, double i, int n, double* out) {
    for (int j = 0; j < n; ++j) {
      const double size = decode_attention_size_by_inverse(kv_at(i + j), heads, measured_heads_inverse);
      const double measured = decltype(by_inverse_tag)::value ? s.at_by_inverse(size) : s.at_by_width(size);
      const double attention = decltype(same_gpu_tag)::value ? measured : derived(measured);
      out[j] = decode_step_sum(layers, c, attention, cpu);
    }
  };
  constexpr size_t kBlock = 32;
  size_t i = first;
  while (i < last) {
    const double index = static_cast<double>(i);
    const double size = size_at(index);
    if (blocks && span.holds(size)) {
      size_t n = std::min(kBlock, last - i);
      while (n > 1 && !span.holds(size_at(index + static_cast<double>(n - 1)))) n /= 2;
      const int count = static_cast<int>(n);
      if (same_gpu && span.inverse != 0)
        block_steps(std::true_type{}, std::true_type{}, span, index, count, end_s);
      else if (same_gpu)
        block_steps(std::true_type{}, std::false_type{}, span, index, count, end_s);
      else if (span.inverse != 0)
        block_steps(std::false_type{}, std::true_type{}, span, index, count, end_s);
      else
        block_steps(std::false_type{}, std::false_type{}, span, index, count, end_s);
      for (size_t j = 0; j < n; ++j) end_s[j] = t += end_s[j];
      end_s += n;
      i += n;
      continue;
    }
    double measured;
    if (span.holds(size)) {
      measured = span.at(size);
    } else {
      measured = seconds.at(size, segment, &extrapolated);
      span = seconds.span(segment);
    }
    t += decode_step_sum(layers, c, same_gpu ? measured : derived(measured), cpu);
    *end_s++ = t;
    ++i;
  }
  decode_attention_segment_ = segment;
  if (extrapolated) extrapolated_ = true;
}

std::string ProfiledCostModel::source() const {
  std::set<std::string> dense;
  for (const Op& op : layer_ops_)
    if (op.curve) dense.insert(op.curve->source);
  std::string text = "profiled (" + model_.name + " on " + gpu_.name + " x" + std::to_string(tp_) + ", " +
                     weights_dtype_name(weights_) + " weights";
  if (gpu_.name != measured_gpu_.name)
    text += "; derived from " + measured_gpu_.name + " measurements by datasheet ratios (compute-bound ops by peak "
            "FLOP/s, memory-bound ops by HBM bandwidth, all-reduces by NVLink bandwidth)";
  else if (weights_ == WeightsDtype::fp8)
    text += "; fp8 GEMMs derived from the bf16 measurements by roofline ratios";
  text += "; dense ops: ";
  bool first = true;
  for (const std::string& s : dense) text += (first ? "" : ", ") + s, first = false;
  text += "; LM head scaled from " + (lm_head_.curve ? lm_head_.curve->source : std::string("none"));
  text += "; prefill attention: " + prefill_attention_->source + "; decode attention: " + decode_attention_->source;
  text += "; all-reduce: " + (tp_ == 1 ? std::string("none (TP 1)") : profile_->all_reduce_source);
  text += "; CPU overhead: " + (cpu_overhead_source_.empty() ? std::string("none") : cpu_overhead_source_) + ")";
  if (extrapolated_) text += "; extrapolated beyond the measured range (models/cost/profiled/curve.hpp)";
  return text;
}

}  // namespace lynx
