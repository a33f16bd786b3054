#include "sim/cluster/colocated_instance.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "common/error.hpp"

namespace lynx {

ColocatedInstance::ColocatedInstance(int index, int node, const SimContext& context, const StepCostModel& cost,
                                     const EngineServing& serving, double kv_bytes_per_token)
    : index_(index),
      node_(node),
      context_(context),
      cost_(cost),
      kv_bytes_per_token_(kv_bytes_per_token),
      scheduler_(serving.limits) {
  kv_.block_tokens = serving.limits.block_tokens;
  kv_.total = serving.kv_tokens / serving.limits.block_tokens;
  kv_.keep_preempted = serving.limits.policy == SchedulerPolicy::vllm && serving.limits.prefix_caching;
  if (kv_.total < 1) throw_internal_error("co-located instance %d: no KV block", index);
}

std::string ColocatedInstance::refusal(const Request& request) const {
  EngineSeq seq;
  seq.prompt_tokens = request.input_tokens;
  seq.output_tokens = std::max<int64_t>(request.output_tokens, 1);
  return scheduler_.refusal(seq, kv_);
}

void ColocatedInstance::route(RequestState& r) {
  const std::string why = refusal(r.request);
  if (!why.empty())
    throw_error("request %lld cannot be served by co-located instance %d: %s", static_cast<long long>(r.request.id),
                index_, why.c_str());
  r.record.prefill_instance = index_;
  r.record.decode_instance = index_;
  outstanding_tokens_ += r.request.input_tokens + std::max<int64_t>(r.request.output_tokens, 1);
  context_.loads->prefill_load_changed(index_);
}

void ColocatedInstance::arrive(RequestState& r) {
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
  waiting_.push_back(seq);
  maybe_start_step();
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
      work.kv_bytes_read += kv_tokens * kv_bytes_per_token_;
      work.attention_kv_tokens += kv_tokens;
    } else {
      pieces.push_back(PrefillPiece{item.tokens, item.computed});
    }
  }
  // The pool's ServingStepCost: the kernels at the tokens the engine runs the step as, and the host time it exposes.
  const double step_s = cost_.mixed_seconds(pieces, work, step_.tokens());
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
    context_.loads->prefill_load_changed(index_);
    seq->owner = nullptr;
    spare_.push_back(seq);
    context_.done->request_done(r);
  }
  busy_ = false;
  maybe_start_step();
}

}  // namespace lynx
