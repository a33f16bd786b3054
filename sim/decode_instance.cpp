#include "sim/decode_instance.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "models/kv_size.hpp"
#include "sim/input_checks.hpp"

namespace lynx {

DecodeInstance::DecodeInstance(int index, int node, const SimContext& context)
    : index_(index),
      node_(node),
      context_(context),
      cost_(context.inputs->model, context.inputs->decode_gpu, context.inputs->config.decode.tensor_parallel) {
  // check_simulation_inputs has checked that the weights fit and that every request fits in this capacity.
  capacity_bytes_ = decode_kv_capacity_bytes(*context.inputs);
  const KvBytesPerToken per_token = kv_bytes_per_token(*context.inputs);
  full_bytes_per_token_ = per_token.full;
  anchor_bytes_per_token_ = per_token.anchor;
}

void DecodeInstance::assign(RequestState& request) {
  request.record.decode_instance = index_;
  request.memory_bytes =
      full_bytes_per_token_ * static_cast<double>(request.request.input_tokens + request.request.output_tokens);
  assigned_bytes_ += request.memory_bytes;
}

void DecodeInstance::request_memory(RequestState& request) {
  request.memory_requested = true;
  memory_waiting_.push_back(&request);
  grant_waiting();
}

void DecodeInstance::grant_waiting() {
  while (!memory_waiting_.empty() && reserved_bytes_ + memory_waiting_.front()->memory_bytes <= capacity_bytes_) {
    RequestState* r = memory_waiting_.front();
    memory_waiting_.pop_front();
    reserved_bytes_ += r->memory_bytes;
    r->memory_granted = true;
    context_.on_memory_granted(*r);
  }
}

void DecodeInstance::on_kv_ready(RequestState& request) {
  joining_.push_back(&request);
  cut_plan();
  maybe_start_iteration();
}

void DecodeInstance::on_residual_ready(RequestState& /*request*/) {
  cut_plan();
  maybe_start_iteration();
}

void DecodeInstance::cut_plan() {
  if (!busy_ || iteration_ends_s_.size() <= 1) return;
  const double now = context_.loop->now();
  size_t current = 0;
  while (current + 1 < iteration_ends_s_.size() && iteration_ends_s_[current] < now) ++current;
  if (current + 1 == iteration_ends_s_.size()) return;
  iteration_ends_s_.resize(current + 1);
  const uint64_t generation = ++generation_;
  context_.loop->at(iteration_ends_s_.back(), [this, generation] { finish_iterations(generation); });
}

int64_t DecodeInstance::draft_cap(const RequestState& r) const {
  // Never draft more than the verification can use: m drafts + the verifier's token complete the output.
  int64_t cap = std::max<int64_t>(1, r.request.output_tokens - r.final_tokens - 1);
  const int64_t limit = context_.inputs->config.lynx.max_speculative_tokens;
  return limit > 0 ? std::min(cap, limit) : cap;
}

void DecodeInstance::maybe_start_iteration() {
  if (busy_) return;
  const SimulationInputs& in = *context_.inputs;
  const bool lynx = in.format.is_lynx();
  while (!joining_.empty() && static_cast<int>(running_.size()) < in.config.decode.max_batch) {
    RequestState* r = joining_.front();
    joining_.pop_front();
    r->joined = true;
    r->speculative = lynx && !r->residual_ready;
    running_.push_back(r);
  }
  std::vector<Member> members;
  int64_t query_tokens = 0;
  double attended = 0, kv_bytes = 0, kv_bytes_growth = 0, unpack_s = 0;
  bool steady = true;                  // no join, no verification: the batch can repeat
  int64_t repeatable = INT64_MAX;      // iterations until a member finishes or reaches its draft cap
  for (RequestState* r : running_) {
    const bool first = std::isnan(r->record.decode_start_s);
    const double context = static_cast<double>(r->request.input_tokens + r->final_tokens + r->pending_spec_tokens);
    Member m{r, first, false, false};
    double bytes_per_token = full_bytes_per_token_;
    if (r->speculative && r->residual_ready) {
      m.verifying = true;
      steady = false;
      const int64_t positions = r->pending_spec_tokens + 1;
      query_tokens += positions;
      attended += static_cast<double>(positions) * context;
      unpack_s += in.decode_kernels.decode_seconds(context_.kv_elements(r->request.input_tokens, in.model.n_layers),
                                                   false);
    } else if (r->speculative) {
      if (r->pending_spec_tokens >= draft_cap(*r)) continue;  // waits for its residual
      m.drafting = true;
      bytes_per_token = anchor_bytes_per_token_;
      query_tokens += 1;
      attended += context;
      repeatable = std::min(repeatable, draft_cap(*r) - r->pending_spec_tokens);
    } else {
      query_tokens += 1;
      attended += context;
      repeatable = std::min(repeatable, r->request.output_tokens - r->final_tokens);
    }
    kv_bytes += bytes_per_token * context;
    kv_bytes_growth += bytes_per_token;
    if (first) {
      steady = false;
      unpack_s += in.decode_kernels.decode_seconds(context_.kv_elements(r->request.input_tokens, in.model.n_layers),
                                                   r->speculative);
    }
    members.push_back(m);
  }
  if (members.empty()) return;
  busy_ = true;
  const double now = context_.loop->now();
  for (const Member& m : members)
    if (m.joining) m.request->record.decode_start_s = now;
  constexpr int64_t kMaxPlannedIterations = 4096;
  const int64_t iterations =
      steady && in.config.decode.plan_iterations ? std::min(repeatable, kMaxPlannedIterations) : 1;
  iteration_ends_s_.clear();
  double t = now + unpack_s;
  for (int64_t i = 0; i < iterations; ++i) {
    // Each later iteration attends to one more key per member and reads one more token's KV.
    const double growth = static_cast<double>(i);
    t += cost_.decode_seconds(query_tokens, attended + growth * static_cast<double>(query_tokens),
                              kv_bytes + growth * kv_bytes_growth);
    iteration_ends_s_.push_back(t);
  }
  members_ = std::move(members);
  const uint64_t generation = ++generation_;
  context_.loop->at(iteration_ends_s_.back(), [this, generation] { finish_iterations(generation); });
}

void DecodeInstance::finish_iterations(uint64_t generation) {
  if (generation != generation_) return;  // this plan was cut; a later event finishes it
  const SimulationInputs& in = *context_.inputs;
  const int64_t steps = static_cast<int64_t>(iteration_ends_s_.size());
  const double first_end = iteration_ends_s_.front(), last_end = iteration_ends_s_.back();
  for (const Member& m : members_) {
    RequestState& r = *m.request;
    RequestRecord& rec = r.record;
    if (m.verifying) {
      const int64_t k = r.pending_spec_tokens;
      Rng rng(in.config.seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(r.request.id) + 1);
      const int64_t accepted = in.acceptance.draw(k, rng);
      rec.accepted_tokens += accepted;
      rec.rolled_back_tokens += k - accepted;
      r.final_tokens = std::min(r.request.output_tokens, r.final_tokens + accepted + 1);
      r.pending_spec_tokens = 0;
      r.speculative = false;
      rec.verify_s = first_end;
      if (std::isnan(rec.first_token_s)) rec.first_token_s = first_end;
      if (std::isnan(rec.first_spec_token_s)) rec.first_spec_token_s = first_end;
    } else if (m.drafting) {
      r.pending_spec_tokens += steps;
      rec.spec_tokens += steps;
      if (std::isnan(rec.first_spec_token_s)) rec.first_spec_token_s = first_end;
    } else {
      r.final_tokens += steps;
      if (std::isnan(rec.first_token_s)) rec.first_token_s = first_end;
      if (std::isnan(rec.first_spec_token_s)) rec.first_spec_token_s = first_end;
    }
    if (r.final_tokens >= r.request.output_tokens) {
      r.done = true;
      rec.end_s = last_end;
      reserved_bytes_ -= r.memory_bytes;
      assigned_bytes_ -= r.memory_bytes;
    }
  }
  members_.clear();
  running_.erase(std::remove_if(running_.begin(), running_.end(), [](RequestState* r) { return r->done; }),
                 running_.end());
  busy_ = false;
  grant_waiting();
  maybe_start_iteration();
}

}  // namespace lynx
