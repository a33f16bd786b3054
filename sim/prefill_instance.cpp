#include "sim/prefill_instance.hpp"

#include <algorithm>

#include "sim/input_checks.hpp"

namespace lynx {

PrefillInstance::PrefillInstance(int index, int node, const SimContext& context)
    : index_(index),
      node_(node),
      context_(context),
      cost_(*context.inputs->prefill_cost),
      capacity_bytes_(prefill_kv_capacity_bytes(*context.inputs)) {
  if (context.inputs->config.prefill.prefix_cache)
    cache_ = std::make_unique<PrefixCache>(prefill_kv_bytes(*context.inputs, context.inputs->prefix_block_tokens));
}

void PrefillInstance::enqueue(RequestState& request) {
  request.record.prefill_instance = index_;
  queue_.push_back(&request);
  outstanding_tokens_ += request.request.input_tokens;
  if (!busy_) start_iteration();
}

void PrefillInstance::release(RequestState& request) {
  used_bytes_ -= request.prefill_memory_bytes;
  request.prefill_memory_bytes = 0;
  if (!busy_) start_iteration();
}

void PrefillInstance::start_iteration() {
  if (queue_.empty()) {
    busy_ = false;
    return;
  }
  busy_ = true;
  const double now = context_.loop->now();
  const int64_t budget = context_.inputs->config.prefill.chunked_prefill_tokens;
  std::vector<Piece> pieces;
  std::vector<PrefillPiece> work;
  int64_t used = 0;
  while (!queue_.empty() && (budget == 0 ? pieces.empty() : used < budget)) {
    RequestState* r = queue_.front();
    if (r->phase == RequestPhase::queued) {
      // A new request needs room for its prompt's KV; else it waits, and so does the queue behind it (FCFS).
      const double bytes = prefill_kv_bytes(*context_.inputs, r->request.input_tokens);
      if (used_bytes_ + bytes > capacity_bytes_) {  // cached prefixes yield to in-flight KV, so they do not count
        if (memory_wait_since_s_ < 0) memory_wait_since_s_ = now;
        break;
      }
      if (memory_wait_since_s_ >= 0) {
        r->record.prefill_memory_wait_s = now - memory_wait_since_s_;
        memory_wait_since_s_ = -1;
      }
      r->prefill_memory_bytes = bytes;
      used_bytes_ += bytes;
      if (cache_) {
        cache_->shrink_to(capacity_bytes_ - used_bytes_);
        // At least the last prompt token is computed: its logits give the first output token.
        const int64_t blocks = cache_->match(r->request.prefix_block_hashes);
        r->record.cached_tokens = std::min(blocks * context_.inputs->prefix_block_tokens, r->request.input_tokens - 1);
        r->prefilled_tokens = r->record.cached_tokens;
      }
      r->record.prefill_start_s = now;
      r->advance(RequestPhase::prefilling);
    }
    const int64_t remaining = r->request.input_tokens - r->prefilled_tokens;
    const int64_t take = budget == 0 ? remaining : std::min(remaining, budget - used);
    pieces.push_back(Piece{r, take == remaining});
    work.push_back({take, r->prefilled_tokens});
    r->prefilled_tokens += take;
    used += take;
    if (take == remaining) queue_.pop_front();
  }
  if (pieces.empty()) {  // the head waits for memory: release() starts the next iteration
    busy_ = false;
    return;
  }
  finish_group(std::move(pieces), -1, cost_.prefill_seconds(work));
}

// Called with group = -1 to schedule group 0; then at the end of each group.
void PrefillInstance::finish_group(std::vector<Piece> pieces, int group, double iteration_s) {
  const double now = context_.loop->now();
  const int chunks = context_.chunks;
  const bool layer_wise = context_.inputs->config.transfer.mode == "layer-wise";
  if (group >= 0) {
    for (const Piece& p : pieces) {
      if (!p.last) continue;
      if (layer_wise) context_.on_chunk_ready(*p.request, group);
      if (group == chunks - 1) {
        p.request->record.prefill_end_s = now;
        if (cache_) {  // the prompt's full blocks are now computed: cache them in the memory left free
          const RequestState& r = *p.request;
          const auto blocks = static_cast<size_t>(r.request.input_tokens / context_.inputs->prefix_block_tokens);
          cache_->insert(r.request.prefix_block_hashes, blocks, capacity_bytes_ - used_bytes_);
        }
        outstanding_tokens_ -= p.request->request.input_tokens;
        if (!layer_wise)
          for (int c = 0; c < chunks; ++c) context_.on_chunk_ready(*p.request, c);
      }
    }
    if (group == chunks - 1) {
      start_iteration();
      return;
    }
  }
  const int next = group + 1;
  const int64_t layers = context_.chunk_layer_count(next);
  double group_s = iteration_s * static_cast<double>(layers) / static_cast<double>(context_.inputs->model.n_layers);
  for (const Piece& p : pieces)
    if (p.last)
      group_s += context_.inputs->prefill_kernels.encode_seconds(context_.kv_elements(p.request->request.input_tokens,
                                                                                       layers));
  context_.loop->at(now + group_s, [this, pieces = std::move(pieces), next, iteration_s]() mutable {
    finish_group(std::move(pieces), next, iteration_s);
  });
}

}  // namespace lynx
