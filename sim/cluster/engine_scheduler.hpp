// Each serving engine's scheduler: which requests one iteration (one forward pass) of an instance computes, and how
// many tokens of each, under the engine's token budget, its running-request limit and its KV-cache blocks; and what
// it does when the KV cache runs out. The rules are the engines' own, restated from their code (docs/engines.md,
// "Schedulers", gives each rule with its source):
//   vllm    vLLM V1 (vllm/v1/core/sched/scheduler.py): running requests first, in the order they started, each
//           taking its remaining tokens up to what is left of max_num_batched_tokens (a decode takes 1, a prompt
//           continues in chunks); then waiting requests first come first served while the budget, max_num_seqs and
//           the KV blocks allow, a new prompt chunked to the budget left. When a running request cannot get its
//           next block, the most recently started running request is preempted: its KV freed, recomputed later
//           from the front of the queue; a step that preempted admits nothing new. Prefix caching (on by default in
//           V1) keeps the preempted request's full blocks in the free queue until the allocator reuses them, so on
//           its return it recomputes only what was reused (KvBlocks, below).
//   sglang  SGLang (managers/scheduler.py, schedule_policy.py): prefill first. If a waiting request can be
//           admitted, the step is a prefill of waiting requests (chunked_prefill_size tokens at most, one chunked
//           request at a time, max_prefill_tokens in all), admitted only while its prompt and its clipped output
//           fit beside the running requests' expected output (their clipped remaining output times
//           new_token_ratio, which decays from 0.7 to 0.098 over 600 decode steps); otherwise the step decodes
//           every running request. Prefill and decode are never in one step. When a decode step cannot get one slot
//           per request, requests are retracted, fewest generated tokens first (then the longest prompt), until 20
//           steps' slots are free, and re-queued at the back; new_token_ratio is reset from what was decoded.
//   trtllm  TensorRT-LLM's PyTorch executor (GUARANTEED_NO_EVICT capacity scheduler, micro-batch scheduler): a
//           request is admitted, first come first served, only when the blocks of its whole prompt and output fit
//           beside every running request's blocks to completion (the first that does not fit stops admission); each
//           step takes the running requests (one token per decode, the prompt whole, or in chunks with chunked
//           prefill) while max_num_tokens and max_batch_size allow. Nothing is ever preempted.
// A request's tokens are its prompt and the tokens generated so far; the step that computes the last of them samples
// the next token (the first one at the end of the prompt's last chunk). A recomputed request recomputes its prompt
// and what it had generated.
// Pure logic: no clock, no cost. ColocatedInstance (colocated_instance.hpp) asks for a step, costs it, and applies it.
#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace lynx {

enum class SchedulerPolicy { vllm, sglang, trtllm };

struct SchedulerLimits {
  SchedulerPolicy policy = SchedulerPolicy::vllm;
  int64_t max_batched_tokens = 8192;   // tokens per step: vLLM max_num_batched_tokens, SGLang chunked_prefill_size,
                                       // TRT-LLM max_num_tokens
  int64_t max_prefill_tokens = 16384;  // SGLang's max_prefill_tokens (prompt tokens of one prefill step)
  int64_t max_seqs = 1024;             // vLLM max_num_seqs, SGLang max_running_requests, TRT-LLM max_batch_size
  bool chunked_prefill = true;         // TRT-LLM: false by default (a prompt then goes whole, within the budget)
  int64_t block_tokens = 16;           // KV-cache block (page) in tokens
  bool prefix_caching = true;          // vLLM V1's prefix caching (on unless --no-enable-prefix-caching): a
                                       // preempted request's blocks stay cached until reused (KvBlocks)
  // SGLang's admission estimate and retraction (sglang/srt/environ.py defaults)
  double new_token_ratio_init = 0.7;
  double new_token_ratio_min_factor = 0.14;
  int64_t new_token_ratio_decay_steps = 600;
  int64_t clip_max_new_tokens = 4096;
  int64_t retract_decode_steps = 20;
};

// A request as a scheduler sees it.
struct EngineSeq {
  uint64_t id = 0;
  void* owner = nullptr;       // the instance's request (the scheduler never reads it)
  int64_t prompt_tokens = 0;
  int64_t output_tokens = 1;   // tokens it generates in all
  int64_t generated = 0;       // generated so far
  int64_t computed = 0;        // tokens whose KV is computed
  int64_t blocks = 0;          // KV blocks it holds
  int64_t reserved_blocks = 0; // TRT-LLM: blocks reserved to completion at admission
  int64_t preemptions = 0;     // times it was preempted or retracted
  int64_t cached_blocks = 0;   // vLLM, while preempted: its first blocks still cached in the free queue
  int64_t tokens() const { return prompt_tokens + generated; }
  int64_t pending() const { return tokens() - computed; }  // >= 1 while it runs
  bool decoding() const { return generated > 0 && pending() == 1; }
};

// A pool of KV blocks (one instance's, all its GPUs together).
// With `keep_preempted` (vLLM's prefix caching) the free blocks form vLLM's free queue
// (vllm/v1/core/block_pool.py, kv_cache_manager.py): the allocator takes blocks from its head, never-used blocks
// first, then in the order they were freed; a request's blocks are freed last block first, so its prompt's first
// blocks are reused last. A preempted request's full blocks keep its KV until reused, and a returning request takes
// back the first of them that are still there (at most its tokens less one: vLLM recomputes the last token).
struct KvBlocks {
  KvBlocks() = default;
  KvBlocks(int64_t block_tokens_, int64_t total_, int64_t used_ = 0)
      : block_tokens(block_tokens_), total(total_), used(used_) {}
  int64_t block_tokens = 16;
  int64_t total = 0;
  int64_t used = 0;
  bool keep_preempted = false;
  int64_t free() const { return total - used; }
  int64_t blocks_for(int64_t tokens) const { return (tokens + block_tokens - 1) / block_tokens; }
  // Grows `seq` to hold `tokens` tokens; false, changing nothing, where the blocks are not free.
  bool ensure(EngineSeq& seq, int64_t tokens);
  // A finished (or, without keep_preempted, preempted) request's blocks back in the free queue.
  void release(EngineSeq& seq);
  // A preempted request's blocks freed: computed goes to 0; with keep_preempted its full blocks stay cached.
  void preempt(EngineSeq& seq);
  // Blocks of a waiting request's prefix still cached (0 without keep_preempted).
  int64_t cached_prefix_blocks(const EngineSeq& seq) const;
  // A returning request takes back its cached prefix (cached_prefix_blocks): they leave the free queue, computed
  // becomes their tokens. Its other freed blocks stay free, no longer its.
  void reclaim(EngineSeq& seq);

 private:
  struct FreedRun {
    EngineSeq* owner = nullptr;  // a preempted request whose blocks these are; nullptr: no one's
    int64_t blocks = 0;
  };
  // The free queue from the first still-cached preempted request's blocks on, in reuse order; the free blocks ahead
  // of it (free() - freed_blocks_) are reused first, in any order.
  std::deque<FreedRun> freed_;
  int64_t freed_blocks_ = 0;
  void give(EngineSeq* owner, int64_t blocks);
  void take(int64_t blocks);  // from the head of the free queue, before `used` counts them
};

struct StepItem {
  EngineSeq* seq = nullptr;
  int64_t tokens = 0;       // tokens it computes in this step
  int64_t computed = 0;     // its computed tokens before the step (the cached context of a prompt chunk)
  bool decode = false;      // one token of a request that is generating (else a prompt chunk or a recompute)
};

struct StepPlan {
  std::vector<StepItem> items;           // in the order the engine lays them out
  std::vector<EngineSeq*> preempted;     // preempted or retracted in this step (back in the queue)
  int64_t tokens() const;
  int64_t decodes() const;
  bool empty() const { return items.empty(); }
};

class EngineScheduler {
 public:
  explicit EngineScheduler(const SchedulerLimits& limits);
  // The next step from `waiting` (first come first served; recomputed requests go where the engine puts them) and
  // `running` (in the order they started). Admitted requests move from waiting to running; preempted ones back.
  // Blocks are taken from (and given back to) `kv` as the engine would.
  StepPlan plan(std::deque<EngineSeq*>& waiting, std::vector<EngineSeq*>& running, KvBlocks& kv);
  // The step's work done: computed tokens advance, a request whose tokens are all computed samples its next
  // token. Returns the requests that sampled a token, and (in `finished`) those that are done: their blocks freed,
  // removed from `running`.
  std::vector<EngineSeq*> complete(const StepPlan& step, std::vector<EngineSeq*>& running, KvBlocks& kv,
                                   std::vector<EngineSeq*>& finished);
  const SchedulerLimits& limits() const { return limits_; }
  double new_token_ratio() const { return new_token_ratio_; }
  // A request that can never be served (its prompt and output exceed the whole KV cache, or, without chunked
  // prefill, its prompt exceeds the token budget), for an error before it is queued; "" when it can be.
  std::string refusal(const EngineSeq& seq, const KvBlocks& kv) const;

 private:
  StepPlan plan_vllm(std::deque<EngineSeq*>& waiting, std::vector<EngineSeq*>& running, KvBlocks& kv);
  StepPlan plan_sglang(std::deque<EngineSeq*>& waiting, std::vector<EngineSeq*>& running, KvBlocks& kv);
  StepPlan plan_trtllm(std::deque<EngineSeq*>& waiting, std::vector<EngineSeq*>& running, KvBlocks& kv);
  SchedulerLimits limits_;
  double new_token_ratio_ = 0.7;
  EngineSeq* sglang_chunked_ = nullptr;  // SGLang's one request in chunked prefill, out of the running batch
};

}  // namespace lynx
