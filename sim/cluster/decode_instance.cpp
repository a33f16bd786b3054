#include "sim/cluster/decode_instance.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "models/arch/kv_size.hpp"
#include "sim/cluster/capacity.hpp"

namespace lynx {

DecodeInstance::DecodeInstance(int index, int node, const SimContext& context)
    : index_(index),
      node_(node),
      context_(context),
      cost_(*context.inputs->decode_cost) {
  // simulation_inputs has checked that the weights fit, check_simulation_inputs that every request fits here.
  capacity_bytes_ = decode_kv_capacity_bytes(*context.inputs);
}

void DecodeInstance::assign(RequestState& request) {
  request.record.decode_instance = index_;
  request.memory_bytes =
      decode_reservation_bytes(context_.protocol_of(request).full_bytes_per_token(), request.request.input_tokens,
                               request.request.output_tokens);
  assigned_bytes_ += request.memory_bytes;
  context_.loads->decode_load_changed(index_);
}

void DecodeInstance::request_memory(RequestState& request) {
  // A request the decode front end delayed is awaiting memory since it asked (ClusterSimulation::request_decode_memory).
  if (request.phase != RequestPhase::awaiting_memory) {
    request.advance(RequestPhase::awaiting_memory);
    request.memory_requested_s = context_.loop->now();
  }
  memory_waiting_.push_back(&request);
  grant_waiting();
}

void DecodeInstance::grant_waiting() {
  while (!memory_waiting_.empty() && reserved_bytes_ + memory_waiting_.front()->memory_bytes <= capacity_bytes_) {
    RequestState* r = memory_waiting_.front();
    memory_waiting_.pop_front();
    reserved_bytes_ += r->memory_bytes;
    r->record.decode_memory_wait_s = context_.loop->now() - r->memory_requested_s;
    r->advance(RequestPhase::transferring);
    context_.transfer->memory_granted(*r);
  }
}

void DecodeInstance::on_kv_ready(RequestState& request) {
  joining_.push_back(&request);
  replan();
}

void DecodeInstance::replan_for(const RequestState& request) {
  if (std::find(running_.begin(), running_.end(), &request) != running_.end()) replan();
}

void DecodeInstance::replan() {
  cut_plan();
  maybe_start_iteration();
}

namespace {
// Iteration ends computed ahead of the run (a plan's first chunk, then one more each time the run reaches the last):
// few enough that a plan cut early wastes little, many enough that a long run needs few events.
constexpr size_t kIterationsPerChunk = 64;
}  // namespace

void DecodeInstance::cut_plan() {
  if (!busy_ || planned_iterations_ <= 1) return;
  const double now = context_.loop->now();
  size_t current = 0;
  while (current + 1 < iteration_ends_s_.size() && iteration_ends_s_[current] < now) ++current;
  if (current + 1 == planned_iterations_) return;
  iteration_ends_s_.resize(current + 1);
  planned_iterations_ = current + 1;
  ++generation_;
  schedule_plan_event();
}

void DecodeInstance::compute_iterations(size_t count) {
  const double start_s = iteration_ends_s_.empty() ? plan_start_s_ : iteration_ends_s_.back();
  const size_t first = iteration_ends_s_.size(), end = std::min(planned_iterations_, first + count);
  cost_.decode_run_ends(plan_, first, end, start_s, iteration_ends_s_);
}

void DecodeInstance::schedule_plan_event() {
  const uint64_t generation = generation_;
  context_.loop->at(iteration_ends_s_.back(), [this, generation] { finish_iterations(generation); });
}

void DecodeInstance::maybe_start_iteration() {
  if (busy_) return;
  const SimulationInputs& in = *context_.inputs;
  const int64_t max_batch = in.decode_serving ? in.decode_serving->limits.max_seqs : in.config.decode.max_batch;
  while (!joining_.empty() && static_cast<int64_t>(running_.size()) < max_batch) {
    RequestState* r = joining_.front();
    joining_.pop_front();
    context_.protocol_of(*r).on_join(*r);
    running_.push_back(r);
  }
  std::vector<Member>& members = members_;  // empty while not busy; filled in place, its capacity kept
  members.clear();
  int64_t query_tokens = 0;
  double attended = 0, kv_bytes = 0, kv_bytes_growth = 0, unpack_s = 0;
  // KV tokens attention reads, each weighted by its format's attention cost relative to bf16 (kernel cost table).
  double attention_tokens = 0, attention_growth = 0;
  bool steady = true;                  // no join, no verification: the batch can repeat
  int64_t repeatable = INT64_MAX;      // iterations until a member finishes or its role changes
  for (RequestState* r : running_) {
    const bool joining = std::isnan(r->record.decode_start_s);
    const IterationMember part = context_.protocol_of(*r).plan(*r, joining);
    if (part.role == IterationRole::wait) continue;
    const double context = static_cast<double>(r->request.input_tokens + r->final_tokens + r->pending_spec_tokens);
    query_tokens += part.query_positions;
    attended += static_cast<double>(part.query_positions) * context;
    kv_bytes += part.kv_bytes_per_token * context;
    kv_bytes_growth += part.kv_bytes_per_token;
    attention_tokens += part.attention_relative * context;
    attention_growth += part.attention_relative;
    unpack_s += part.unpack_s;
    if (joining || part.role == IterationRole::verify) steady = false;
    else repeatable = std::min(repeatable, part.repeatable);
    members.push_back(Member{r, part});
  }
  if (members.empty()) return;
  busy_ = true;
  const double now = context_.loop->now();
  for (const Member& m : members)
    if (std::isnan(m.request->record.decode_start_s)) m.request->record.decode_start_s = now;
  constexpr int64_t kMaxPlannedIterations = 4096;
  const int64_t iterations =
      steady && in.config.decode.plan_iterations ? std::min(repeatable, kMaxPlannedIterations) : 1;
  plan_ = DecodeRun{query_tokens, static_cast<int64_t>(members.size()), attended, kv_bytes, kv_bytes_growth,
                   attention_tokens, attention_growth};
  planned_iterations_ = static_cast<size_t>(iterations);
  plan_start_s_ = now + unpack_s;
  iteration_ends_s_.clear();
  compute_iterations(kIterationsPerChunk);
  ++generation_;
  schedule_plan_event();
}

void DecodeInstance::finish_iterations(uint64_t generation) {
  if (generation != generation_) return;  // this plan was cut; a later event finishes it
  if (iteration_ends_s_.size() < planned_iterations_) {  // the plan goes on: its next chunk
    compute_iterations(kIterationsPerChunk);
    schedule_plan_event();
    return;
  }
  const int64_t steps = static_cast<int64_t>(iteration_ends_s_.size());
  const double first_end = iteration_ends_s_.front(), last_end = iteration_ends_s_.back();
  for (const Member& m : members_) {
    RequestState& r = *m.request;
    context_.protocol_of(r).finish(r, m.part, steps, first_end, last_end);
    if (r.phase == RequestPhase::done) {
      reserved_bytes_ -= r.memory_bytes;
      assigned_bytes_ -= r.memory_bytes;
    }
  }
  members_.clear();
  auto done = std::stable_partition(running_.begin(), running_.end(),
                                    [](RequestState* r) { return r->phase != RequestPhase::done; });
  const bool finished_any = done != running_.end();
  for (auto it = done; it != running_.end(); ++it) context_.done->request_done(**it);  // may free it
  running_.erase(done, running_.end());
  if (finished_any) context_.loads->decode_load_changed(index_);
  busy_ = false;
  grant_waiting();
  maybe_start_iteration();
}

}  // namespace lynx
