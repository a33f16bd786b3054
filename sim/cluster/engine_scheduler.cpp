#include "sim/cluster/engine_scheduler.hpp"

#include <algorithm>
#include <string>

#include "common/error.hpp"

namespace lynx {

bool KvBlocks::ensure(EngineSeq& seq, int64_t tokens) {
  const int64_t need = blocks_for(tokens) - seq.blocks;
  if (need <= 0) return true;
  if (need > free()) return false;
  take(need);
  used += need;
  seq.blocks += need;
  return true;
}

void KvBlocks::release(EngineSeq& seq) {
  const int64_t blocks = seq.blocks + seq.reserved_blocks;
  used -= blocks;
  seq.blocks = 0;
  seq.reserved_blocks = 0;
  give(nullptr, blocks);
}

void KvBlocks::preempt(EngineSeq& seq) {
  if (!keep_preempted) {
    release(seq);
    seq.computed = 0;
    return;
  }
  if (seq.reserved_blocks != 0) throw_internal_error("a request with reserved blocks is never preempted by vLLM");
  const int64_t blocks = seq.blocks;
  used -= blocks;
  seq.blocks = 0;
  seq.cached_blocks = std::min(seq.computed / block_tokens, blocks);  // full blocks only
  seq.computed = 0;
  give(&seq, blocks);
}

int64_t KvBlocks::cached_prefix_blocks(const EngineSeq& seq) const {
  if (!keep_preempted || seq.computed != 0) return 0;
  return std::min(seq.cached_blocks, (seq.tokens() - 1) / block_tokens);
}

void KvBlocks::reclaim(EngineSeq& seq) {
  const int64_t hit = cached_prefix_blocks(seq);
  for (FreedRun& run : freed_)
    if (run.owner == &seq) {
      // its first `hit` blocks sit at the run's end (freed last block first); the rest is no one's now
      run.owner = nullptr;
      run.blocks -= hit;
      freed_blocks_ -= hit;
      break;
    }
  seq.cached_blocks = 0;
  used += hit;
  seq.blocks = hit;
  seq.computed = hit * block_tokens;
  take(0);  // an emptied run, or no one's runs now at the head, leave the queue
}

void KvBlocks::give(EngineSeq* owner, int64_t blocks) {
  if (blocks <= 0) return;
  if (owner == nullptr && freed_.empty()) return;  // reused before any cached block, like the never-used ones
  if (owner == nullptr && freed_.back().owner == nullptr)
    freed_.back().blocks += blocks;
  else
    freed_.push_back(FreedRun{owner, blocks});
  freed_blocks_ += blocks;
}

void KvBlocks::take(int64_t blocks) {
  int64_t from_runs = std::max<int64_t>(0, blocks - (free() - freed_blocks_));
  while (!freed_.empty()) {
    FreedRun& run = freed_.front();
    const int64_t n = std::min(from_runs, run.blocks);
    run.blocks -= n;
    freed_blocks_ -= n;
    from_runs -= n;
    // its last blocks go first: what is left is its first blocks
    if (run.owner != nullptr) run.owner->cached_blocks = std::min(run.owner->cached_blocks, run.blocks);
    if (run.blocks > 0 && run.owner != nullptr) break;
    // an empty run leaves; so does no one's run at the head, as those blocks are reused first anyway
    freed_blocks_ -= run.blocks;
    freed_.pop_front();
  }
  if (from_runs > 0) throw_internal_error("KV free queue: %lld blocks taken beyond the free ones",
                                          static_cast<long long>(from_runs));
}

int64_t StepPlan::tokens() const {
  int64_t n = 0;
  for (const StepItem& item : items) n += item.tokens;
  return n;
}

int64_t StepPlan::decodes() const {
  int64_t n = 0;
  for (const StepItem& item : items) n += item.decode ? 1 : 0;
  return n;
}

EngineScheduler::EngineScheduler(const SchedulerLimits& limits)
    : limits_(limits), new_token_ratio_(std::min(limits.new_token_ratio_init, 1.0)) {
  if (limits_.max_batched_tokens < 1 || limits_.max_seqs < 1 || limits_.block_tokens < 1 ||
      limits_.max_prefill_tokens < 1)
    throw_internal_error("scheduler limits must be positive");
}

std::string EngineScheduler::refusal(const EngineSeq& seq, const KvBlocks& kv) const {
  if (kv.blocks_for(seq.prompt_tokens + seq.output_tokens) > kv.total)
    return "its " + std::to_string(seq.prompt_tokens) + " prompt and " + std::to_string(seq.output_tokens) +
           " output tokens need more KV cache than the instance has (" + std::to_string(kv.total * kv.block_tokens) +
           " tokens)";
  if (!limits_.chunked_prefill && seq.prompt_tokens > limits_.max_batched_tokens)
    return "its " + std::to_string(seq.prompt_tokens) + "-token prompt exceeds the step's token budget (" +
           std::to_string(limits_.max_batched_tokens) + ") and chunked prefill is off (the engine refuses it)";
  return "";
}

StepPlan EngineScheduler::plan(std::deque<EngineSeq*>& waiting, std::vector<EngineSeq*>& running, KvBlocks& kv) {
  switch (limits_.policy) {
    case SchedulerPolicy::vllm: return plan_vllm(waiting, running, kv);
    case SchedulerPolicy::sglang: return plan_sglang(waiting, running, kv);
    case SchedulerPolicy::trtllm: return plan_trtllm(waiting, running, kv);
  }
  throw_internal_error("unknown scheduler policy");
}

StepPlan EngineScheduler::plan_vllm(std::deque<EngineSeq*>& waiting, std::vector<EngineSeq*>& running, KvBlocks& kv) {
  StepPlan p;
  int64_t budget = limits_.max_batched_tokens;
  size_t i = 0;
  while (i < running.size() && budget > 0) {
    EngineSeq* s = running[i];
    const int64_t n = std::min(s->pending(), budget);
    bool scheduled = true;
    while (!kv.ensure(*s, s->computed + n)) {
      // The most recently started request goes; the one being scheduled last of all.
      EngineSeq* victim = running.back();
      running.pop_back();
      kv.preempt(*victim);
      ++victim->preemptions;
      waiting.push_front(victim);
      p.preempted.push_back(victim);
      if (victim == s) {
        scheduled = false;
        break;
      }
    }
    if (!scheduled) break;
    p.items.push_back(StepItem{s, n, s->computed, s->decoding()});
    budget -= n;
    ++i;
  }
  if (!p.preempted.empty()) return p;  // a step that preempted admits nothing new
  while (!waiting.empty() && budget > 0 && static_cast<int64_t>(running.size()) < limits_.max_seqs) {
    EngineSeq* s = waiting.front();
    // a returning request's prefix still cached is not computed again
    const int64_t cached = kv.cached_prefix_blocks(*s) * kv.block_tokens;
    const int64_t pending = s->pending() - cached;
    const int64_t n = std::min(pending, budget);
    if (!limits_.chunked_prefill && n < pending) break;
    // head of line: no preemption for a waiting request; the cached blocks count among the free ones
    if (kv.blocks_for(s->computed + cached + n) > kv.free()) break;
    kv.reclaim(*s);
    if (!kv.ensure(*s, s->computed + n)) throw_internal_error("vLLM admission: request %llu found no blocks",
                                                               static_cast<unsigned long long>(s->id));
    waiting.pop_front();
    running.push_back(s);
    p.items.push_back(StepItem{s, n, s->computed, false});
    budget -= n;
  }
  return p;
}

StepPlan EngineScheduler::plan_sglang(std::deque<EngineSeq*>& waiting, std::vector<EngineSeq*>& running,
                                      KvBlocks& kv) {
  StepPlan p;
  const int64_t clip = limits_.clip_max_new_tokens;
  if (sglang_chunked_ != nullptr || !waiting.empty()) {
    // What the running requests are expected still to generate, in KV slots.
    double expected = 0;
    for (const EngineSeq* r : running)
      if (r != sglang_chunked_)
        expected += static_cast<double>(std::min(r->output_tokens - r->generated, clip)) * new_token_ratio_;
    double rem_total = static_cast<double>(kv.free() * kv.block_tokens) - expected;
    int64_t rem_chunk = limits_.max_batched_tokens, rem_input = limits_.max_prefill_tokens;
    if (sglang_chunked_ != nullptr) {
      EngineSeq* s = sglang_chunked_;
      const int64_t n = std::min(s->pending(), rem_chunk);
      if (kv.ensure(*s, s->computed + n)) {
        p.items.push_back(StepItem{s, n, s->computed, false});
        rem_chunk -= n;
        rem_input -= n;
        rem_total -= static_cast<double>(n);
        if (n == s->pending()) sglang_chunked_ = nullptr;
      }
    }
    while (sglang_chunked_ == nullptr && !waiting.empty() && rem_chunk > 0 && rem_input > 0 &&
           static_cast<int64_t>(running.size()) < limits_.max_seqs) {
      EngineSeq* s = waiting.front();
      const int64_t extend = s->pending();
      const double need = static_cast<double>(extend + std::min(s->output_tokens - s->generated, clip));
      if (need >= rem_total) break;  // the batch is full
      const int64_t n = std::min(extend, rem_chunk);
      if (!kv.ensure(*s, s->computed + n)) break;
      waiting.pop_front();
      running.push_back(s);
      p.items.push_back(StepItem{s, n, s->computed, false});
      rem_total -= need;
      rem_chunk -= n;
      rem_input -= n;
      if (n < extend) sglang_chunked_ = s;
    }
    if (!p.empty()) return p;
  }
  // A decode step of every generating request; retract where a slot each is not free.
  std::vector<EngineSeq*> decoding;
  for (EngineSeq* r : running)
    if (r->decoding()) decoding.push_back(r);
  if (decoding.empty()) return p;
  int64_t need_slots = 0;
  for (EngineSeq* r : decoding) need_slots += kv.blocks_for(r->computed + 1) - r->blocks;
  if (need_slots > kv.free()) {
    std::stable_sort(decoding.begin(), decoding.end(), [](const EngineSeq* a, const EngineSeq* b) {
      if (a->generated != b->generated) return a->generated > b->generated;
      return a->prompt_tokens < b->prompt_tokens;  // the last one: fewest generated, then the longest prompt
    });
    const auto enough = [&] {
      return kv.free() >= static_cast<int64_t>(decoding.size()) * limits_.retract_decode_steps;
    };
    while (decoding.size() > 1 && !enough()) {
      EngineSeq* victim = decoding.back();
      decoding.pop_back();
      running.erase(std::find(running.begin(), running.end(), victim));
      kv.release(*victim);
      victim->computed = 0;
      ++victim->preemptions;
      waiting.push_back(victim);
      p.preempted.push_back(victim);
    }
    double decoded = 0, max_new = 0;
    for (const EngineSeq* r : decoding) {
      decoded += static_cast<double>(r->generated);
      max_new += static_cast<double>(r->output_tokens);
    }
    new_token_ratio_ = std::min(1.0, (decoded + static_cast<double>(limits_.retract_decode_steps) *
                                                    static_cast<double>(decoding.size())) /
                                         std::max(1.0, max_new));
    // back in the order they started
    std::vector<EngineSeq*> ordered;
    for (EngineSeq* r : running)
      if (r->decoding()) ordered.push_back(r);
    decoding = ordered;
  } else {
    const double init = std::min(limits_.new_token_ratio_init, 1.0);
    const double min_ratio = init * limits_.new_token_ratio_min_factor;
    new_token_ratio_ = std::max(min_ratio, new_token_ratio_ - (init - min_ratio) /
                                                                  static_cast<double>(limits_.new_token_ratio_decay_steps));
  }
  for (EngineSeq* r : decoding) {
    if (!kv.ensure(*r, r->computed + 1))
      throw_internal_error("SGLang decode step: request %llu has no KV slot after retraction",
                           static_cast<unsigned long long>(r->id));
    p.items.push_back(StepItem{r, 1, r->computed, true});
  }
  return p;
}

StepPlan EngineScheduler::plan_trtllm(std::deque<EngineSeq*>& waiting, std::vector<EngineSeq*>& running,
                                      KvBlocks& kv) {
  StepPlan p;
  // Capacity: admit first come first served while each request's blocks to completion fit beside the others'.
  while (!waiting.empty() && static_cast<int64_t>(running.size()) < limits_.max_seqs) {
    EngineSeq* s = waiting.front();
    const int64_t need = kv.blocks_for(s->prompt_tokens + s->output_tokens);
    if (need > kv.free()) break;
    kv.used += need;
    s->reserved_blocks = need;
    waiting.pop_front();
    running.push_back(s);
  }
  // Micro-batch: running requests in order, one token per decode, the prompt whole or chunked, within the budget.
  int64_t budget = limits_.max_batched_tokens;
  for (EngineSeq* s : running) {
    if (budget <= 0) break;
    int64_t n = s->decoding() ? 1 : s->pending();
    if (!s->decoding() && limits_.chunked_prefill && n > budget) {
      n = budget / limits_.block_tokens * limits_.block_tokens;  // chunks in units of a block
      if (n == 0) break;
    }
    if (n > budget) break;
    p.items.push_back(StepItem{s, n, s->computed, s->decoding()});
    budget -= n;
  }
  return p;
}

std::vector<EngineSeq*> EngineScheduler::complete(const StepPlan& step, std::vector<EngineSeq*>& running,
                                                  KvBlocks& kv, std::vector<EngineSeq*>& finished) {
  std::vector<EngineSeq*> sampled;
  for (const StepItem& item : step.items) {
    EngineSeq* s = item.seq;
    s->computed += item.tokens;
    if (s->computed > s->tokens()) throw_internal_error("request %llu computed beyond its tokens",
                                                        static_cast<unsigned long long>(s->id));
    if (s->computed < s->tokens()) continue;  // a prompt chunk that is not the last
    ++s->generated;
    sampled.push_back(s);
    if (s->generated >= s->output_tokens) {
      finished.push_back(s);
      kv.release(*s);
      running.erase(std::find(running.begin(), running.end(), s));
    }
  }
  return sampled;
}

}  // namespace lynx
