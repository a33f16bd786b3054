#include "sim/cluster/prefill_instance.hpp"

#include <algorithm>
#include <vector>

#include "sim/cluster/capacity.hpp"

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

void PrefillInstance::route(RequestState& request) {
  request.record.prefill_instance = index_;
  outstanding_tokens_ += request.request.input_tokens;
  context_.loads->prefill_load_changed(index_);
}

void PrefillInstance::arrive(RequestState& request) {
  queue_.push_back(&request);
  if (!busy_) start_iteration();
}

void PrefillInstance::release(RequestState& request) {
  used_bytes_ -= request.prefill_memory_bytes;
  request.prefill_memory_bytes = 0;
  if (cache_ && request.prefix_blocks_pinned > 0) {
    cache_->unpin(request.request.prefix_block_hashes, request.prefix_blocks_pinned);
    request.prefix_blocks_pinned = 0;
  }
  if (!busy_) start_iteration();
}

void PrefillInstance::start_iteration() {
  if (queue_.empty()) {
    busy_ = false;
    return;
  }
  busy_ = true;
  const double now = context_.loop->now();
  // The engine's token budget where it chunks (vLLM, SGLang, TRT-LLM with chunked prefill), else whole prompts.
  const SimulationInputs& in = *context_.inputs;
  const int64_t budget = prefill_token_budget(in);
  std::vector<Piece> pieces;
  std::vector<PrefillPiece> work;
  int64_t used = 0;
  while (!queue_.empty() && (budget == 0 ? pieces.empty() : used < budget)) {
    RequestState* r = queue_.front();
    if (r->phase == RequestPhase::queued) {
      // A new request needs room for its prompt's KV beyond the cached blocks it shares (which it pins); else it
      // waits, and so does the queue behind it (FCFS). Unpinned cached blocks yield to it: they do not count.
      const std::vector<uint64_t>& hashes = r->request.prefix_block_hashes;
      const int64_t matched = cache_ ? cache_->peek(hashes) : 0;
      // At least the last prompt token is computed: its logits give the first output token.
      const int64_t cached_tokens =
          std::min(matched * context_.inputs->prefix_block_tokens, r->request.input_tokens - 1);
      const double bytes = prefill_kv_bytes(*context_.inputs, r->request.input_tokens - cached_tokens);
      const double pinned_after = cache_ ? cache_->pinned_bytes() + cache_->unpinned_bytes(hashes, matched) : 0;
      if (used_bytes_ + bytes + pinned_after > capacity_bytes_) {
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
        cache_->pin(hashes, 0, matched);
        r->prefix_blocks_pinned = matched;
        cache_->shrink_to(capacity_bytes_ - used_bytes_);
        r->record.cached_tokens = cached_tokens;
        r->prefilled_tokens = cached_tokens;
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
  const bool layer_wise = context_.inputs->config.transfer.mode == TransferMode::layer_wise;
  if (group >= 0) {
    for (const Piece& p : pieces) {
      if (!p.last) continue;
      if (group == chunks - 1) {
        p.request->record.prefill_end_s = now;
        if (cache_) {  // the prompt's full blocks are now computed: they become cache blocks, pinned by the request
          RequestState& r = *p.request;
          const int64_t blocks = std::min(r.request.input_tokens / context_.inputs->prefix_block_tokens,
                                          static_cast<int64_t>(r.request.prefix_block_hashes.size()));
          if (blocks > r.prefix_blocks_pinned) {
            cache_->pin(r.request.prefix_block_hashes, r.prefix_blocks_pinned, blocks);
            // Their memory moves from the request's reservation into the cache (a block cached meanwhile by
            // another request is shared: the request's copy is freed).
            const double moved = std::min(r.prefill_memory_bytes, cache_->block_bytes() *
                                                                     static_cast<double>(blocks - r.prefix_blocks_pinned));
            r.prefill_memory_bytes -= moved;
            used_bytes_ -= moved;
            r.prefix_blocks_pinned = blocks;
          }
        }
      }
      // Chunks are handed over after the bookkeeping above: a sent chunk may release the request's memory.
      if (layer_wise) context_.transfer->chunk_ready(*p.request, group);
      if (group == chunks - 1) {
        outstanding_tokens_ -= p.request->request.input_tokens;
        context_.loads->prefill_load_changed(index_);
        if (!layer_wise)
          for (int c = 0; c < chunks; ++c) context_.transfer->chunk_ready(*p.request, c);
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
      group_s += context_.protocol_of(*p.request).format().prefill_kernels.encode_seconds(
          context_.kv_elements(p.request->request.input_tokens, next));
  context_.loop->at(now + group_s, [this, pieces = std::move(pieces), next, iteration_s]() mutable {
    finish_group(std::move(pieces), next, iteration_s);
  });
}

}  // namespace lynx
