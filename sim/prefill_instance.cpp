#include "sim/prefill_instance.hpp"

#include <algorithm>

namespace lynx {

PrefillInstance::PrefillInstance(int index, int node, const SimContext& context)
    : index_(index),
      node_(node),
      context_(context),
      cost_(*context.inputs->prefill_cost) {}

void PrefillInstance::enqueue(RequestState& request) {
  request.record.prefill_instance = index_;
  queue_.push_back(&request);
  outstanding_tokens_ += request.request.input_tokens;
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
    const int64_t remaining = r->request.input_tokens - r->prefilled_tokens;
    const int64_t take = budget == 0 ? remaining : std::min(remaining, budget - used);
    if (r->prefilled_tokens == 0) {
      r->record.prefill_start_s = now;
      r->advance(RequestPhase::prefilling);
    }
    pieces.push_back(Piece{r, take == remaining});
    work.push_back({take, r->prefilled_tokens});
    r->prefilled_tokens += take;
    used += take;
    if (take == remaining) queue_.pop_front();
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
