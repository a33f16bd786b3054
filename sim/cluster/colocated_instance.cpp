#include "sim/cluster/colocated_instance.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "common/error.hpp"

namespace lynx {

double ServingHost::exposed_s(double gpu_s, int64_t seqs, bool captured) const {
  const double host_s = ((captured ? graph_step_ms : eager_step_ms) + per_seq_us * 1e-3 * static_cast<double>(seqs)) * 1e-3;
  return overlapped ? std::max(0.0, host_s - gpu_s) : host_s;
}

ColocatedInstance::ColocatedInstance(int index, int node, const SimContext& context, const StepCostModel& cost,
                                     const ColocatedSettings& settings)
    : index_(index), node_(node), context_(context), cost_(cost), settings_(settings), scheduler_(settings.limits) {
  kv_.block_tokens = settings.limits.block_tokens;
  kv_.total = settings.kv_blocks;
  if (kv_.total < 1) throw_internal_error("co-located instance %d: no KV block", index);
}

std::string ColocatedInstance::refusal(const Request& request) const {
  EngineSeq seq;
  seq.prompt_tokens = request.input_tokens;
  seq.output_tokens = std::max<int64_t>(request.output_tokens, 1);
  return scheduler_.refusal(seq, kv_);
}

void ColocatedInstance::enqueue(RequestState& r) {
  const std::string why = refusal(r.request);
  if (!why.empty())
    throw_error("request %lld cannot be served by co-located instance %d: %s", static_cast<long long>(r.request.id),
                index_, why.c_str());
  EngineSeq* seq;
  if (spare_.empty()) {
    seqs_.push_back(std::make_unique<EngineSeq>());
    seq = seqs_.back().get();
  } else {
    seq = spare_.back();
    spare_.pop_back();
    *seq = EngineSeq{};
  }
  seq->id = static_cast<uint64_t>(r.request.id);
  seq->owner = &r;
  seq->prompt_tokens = r.request.input_tokens;
  seq->output_tokens = std::max<int64_t>(r.request.output_tokens, 1);
  r.record.prefill_instance = index_;
  r.record.decode_instance = index_;
  outstanding_tokens_ += seq->prompt_tokens + seq->output_tokens;
  waiting_.push_back(seq);
  maybe_start_step();
}

int64_t ColocatedInstance::graph_tokens(const StepPlan& step) const {
  const int64_t tokens = step.tokens();
  const auto& sizes = settings_.graph_token_sizes;
  const bool decode_only = step.decodes() == static_cast<int64_t>(step.items.size());
  if (sizes.empty() || tokens > sizes.back() || !(decode_only || settings_.graphs_for_mixed_steps)) return 0;
  const int64_t size = *std::lower_bound(sizes.begin(), sizes.end(), tokens);
  if (!settings_.graph_padding && size != tokens) return 0;
  return size;
}

void ColocatedInstance::maybe_start_step() {
  if (busy_) return;
  step_ = scheduler_.plan(waiting_, running_, kv_);
  for (EngineSeq* seq : step_.preempted) {
    RequestState& r = *static_cast<RequestState*>(seq->owner);
    r.advance(RequestPhase::queued);
    ++preemptions_;
  }
  if (step_.empty()) return;  // nothing runnable: the next arrival starts a step
  busy_ = true;
  const double now = context_.loop->now();
  std::vector<PrefillPiece> pieces;
  DecodeWork work;
  for (const StepItem& item : step_.items) {
    RequestState& r = *static_cast<RequestState*>(item.seq->owner);
    if (r.phase == RequestPhase::queued) r.advance(RequestPhase::prefilling);
    if (std::isnan(r.record.prefill_start_s)) r.record.prefill_start_s = now;
    if (item.decode) {
      if (std::isnan(r.record.decode_start_s)) r.record.decode_start_s = now;
      const double kv_tokens = static_cast<double>(item.computed + 1);  // its KV and the new token's
      ++work.query_tokens;
      ++work.sequences;
      work.attended_tokens += kv_tokens;
      work.kv_bytes_read += kv_tokens * settings_.kv_bytes_per_token;
      work.attention_kv_tokens += kv_tokens;
    } else {
      pieces.push_back(PrefillPiece{item.tokens, item.computed});
    }
  }
  const int64_t graph = graph_tokens(step_);
  const double gpu_s = cost_.mixed_seconds(pieces, work, graph > 0 ? graph : step_.tokens());
  const double step_s = gpu_s + settings_.host.exposed_s(gpu_s, static_cast<int64_t>(step_.items.size()), graph > 0);
  ++steps_;
  context_.loop->at(now + step_s, [this, now] { finish_step(now); });
}

void ColocatedInstance::finish_step(double /*start_s*/) {
  const double now = context_.loop->now();
  std::vector<EngineSeq*> finished;
  const std::vector<EngineSeq*> sampled = scheduler_.complete(step_, running_, kv_, finished);
  for (EngineSeq* seq : sampled) {
    RequestState& r = *static_cast<RequestState*>(seq->owner);
    if (seq->generated == 1 && std::isnan(r.record.first_token_s)) {  // the prompt's last chunk: the first token
      r.record.prefill_end_s = now;
      r.record.first_spec_token_s = r.record.first_correct_token_s = r.record.first_token_s = now;
    }
    if (r.phase == RequestPhase::prefilling && seq->generated < seq->output_tokens) r.advance(RequestPhase::decoding);
  }
  for (EngineSeq* seq : finished) {
    RequestState& r = *static_cast<RequestState*>(seq->owner);
    r.record.end_s = now;
    r.advance(RequestPhase::done);
    outstanding_tokens_ -= seq->prompt_tokens + seq->output_tokens;
    seq->owner = nullptr;
    spare_.push_back(seq);
    context_.done->request_done(r);
  }
  busy_ = false;
  maybe_start_step();
}

}  // namespace lynx
