// The engines' schedulers (sim/cluster/engine_scheduler.hpp) against hand-worked steps: vLLM's budget and
// preemption, SGLang's prefill-first steps and retraction, TensorRT-LLM's admission to completion.
#include <doctest/doctest.h>

#include <deque>
#include <memory>
#include <vector>

#include "sim/cluster/engine_scheduler.hpp"

using namespace lynx;

namespace {
struct Bench {
  std::vector<std::unique_ptr<EngineSeq>> seqs;
  std::deque<EngineSeq*> waiting;
  std::vector<EngineSeq*> running, finished;
  KvBlocks kv;
  EngineSeq* add(int64_t prompt, int64_t output) {
    seqs.push_back(std::make_unique<EngineSeq>());
    EngineSeq* s = seqs.back().get();
    s->id = seqs.size() - 1;
    s->prompt_tokens = prompt;
    s->output_tokens = output;
    waiting.push_back(s);
    return s;
  }
};
std::vector<std::pair<uint64_t, int64_t>> items(const StepPlan& p) {
  std::vector<std::pair<uint64_t, int64_t>> v;
  for (const StepItem& i : p.items) v.emplace_back(i.seq->id, i.tokens);
  return v;
}
using Items = std::vector<std::pair<uint64_t, int64_t>>;
}  // namespace

TEST_CASE("vLLM: running requests first, then waiting ones chunked to the budget left") {
  SchedulerLimits l;
  l.policy = SchedulerPolicy::vllm;
  l.max_batched_tokens = 8192;
  EngineScheduler s(l);
  Bench b;
  b.kv = KvBlocks{16, 100000, 0};
  b.add(10000, 3);
  b.add(10000, 3);
  b.add(100, 3);
  StepPlan p = s.plan(b.waiting, b.running, b.kv);
  CHECK(items(p) == Items{{0, 8192}});
  CHECK(s.complete(p, b.running, b.kv, b.finished).empty());
  p = s.plan(b.waiting, b.running, b.kv);
  CHECK(items(p) == Items{{0, 1808}, {1, 6384}});
  CHECK(p.items[0].computed == 8192);  // the second chunk attends to the first
  auto sampled = s.complete(p, b.running, b.kv, b.finished);
  REQUIRE(sampled.size() == 1);  // request 0's prompt is done: its first token
  CHECK(sampled[0]->id == 0);
  p = s.plan(b.waiting, b.running, b.kv);
  // request 0 decodes (1 token), request 1 finishes its prompt (3616), request 2 whole (100)
  CHECK(items(p) == Items{{0, 1}, {1, 3616}, {2, 100}});
  CHECK(p.items[0].decode);
  CHECK(!p.items[1].decode);
  CHECK(p.decodes() == 1);
  CHECK(p.tokens() == 3717);
  s.complete(p, b.running, b.kv, b.finished);
  CHECK(b.seqs[0]->generated == 2);
  p = s.plan(b.waiting, b.running, b.kv);
  CHECK(items(p) == Items{{0, 1}, {1, 1}, {2, 1}});
  s.complete(p, b.running, b.kv, b.finished);
  CHECK(b.finished.size() == 1);  // request 0: 3 tokens
  CHECK(b.finished[0]->id == 0);
  CHECK(b.running.size() == 2);
}

TEST_CASE("vLLM: when a block runs out, the most recently started request is preempted and recomputed first") {
  SchedulerLimits l;
  l.policy = SchedulerPolicy::vllm;
  l.block_tokens = 16;
  EngineScheduler s(l);
  Bench b;
  b.kv = KvBlocks{16, 4, 0};  // 64 tokens
  b.add(30, 10);
  b.add(30, 10);
  StepPlan p = s.plan(b.waiting, b.running, b.kv);
  CHECK(items(p) == Items{{0, 30}, {1, 30}});  // 2 blocks each
  s.complete(p, b.running, b.kv, b.finished);
  CHECK(b.kv.free() == 0);
  // token 31's KV: both still fit their second block (tokens 17..32)
  p = s.plan(b.waiting, b.running, b.kv);
  CHECK(items(p) == Items{{0, 1}, {1, 1}});
  s.complete(p, b.running, b.kv, b.finished);
  p = s.plan(b.waiting, b.running, b.kv);
  CHECK(items(p) == Items{{0, 1}, {1, 1}});
  s.complete(p, b.running, b.kv, b.finished);
  // computed 32: token 33 needs a third block each; request 1 (started last) is preempted for request 0's
  p = s.plan(b.waiting, b.running, b.kv);
  CHECK(items(p) == Items{{0, 1}});
  REQUIRE(p.preempted.size() == 1);
  CHECK(p.preempted[0]->id == 1);
  CHECK(b.seqs[1]->computed == 0);
  CHECK(b.seqs[1]->preemptions == 1);
  CHECK(b.waiting.front()->id == 1);  // at the front of the queue
  s.complete(p, b.running, b.kv, b.finished);
  // request 1 recomputes its 30 prompt tokens and 3 generated (33) once blocks free: not yet (request 0 holds 3)
  p = s.plan(b.waiting, b.running, b.kv);
  CHECK(items(p) == Items{{0, 1}});  // 1 block free, request 1 needs 3
  CHECK(b.seqs[1]->pending() == 33);
}

TEST_CASE("vLLM with prefix caching: a preempted request returns with the blocks the allocator has not reused") {
  for (const bool caching : {true, false}) {
    CAPTURE(caching);
    SchedulerLimits l;
    l.policy = SchedulerPolicy::vllm;
    EngineScheduler s(l);
    Bench b;
    b.kv = KvBlocks{16, 8, 0};  // 128 tokens
    b.kv.keep_preempted = caching;
    b.add(64, 3);   // 4 full blocks each: the cache is full after their prompts
    b.add(64, 10);
    StepPlan p = s.plan(b.waiting, b.running, b.kv);
    CHECK(items(p) == Items{{0, 64}, {1, 64}});
    s.complete(p, b.running, b.kv, b.finished);
    // token 65 needs a fifth block: request 1 is preempted; its 4 blocks go to the free queue, last block first,
    // and request 0 takes the first of them, so 3 of request 1's blocks (48 tokens) are still cached
    p = s.plan(b.waiting, b.running, b.kv);
    CHECK(items(p) == Items{{0, 1}});
    REQUIRE(p.preempted.size() == 1);
    CHECK(b.kv.cached_prefix_blocks(*b.seqs[1]) == (caching ? 3 : 0));
    s.complete(p, b.running, b.kv, b.finished);
    // request 1 (65 tokens) needs 5 blocks and 3 are free: it waits, its cache intact
    p = s.plan(b.waiting, b.running, b.kv);
    CHECK(items(p) == Items{{0, 1}});
    CHECK(b.kv.cached_prefix_blocks(*b.seqs[1]) == (caching ? 3 : 0));
    s.complete(p, b.running, b.kv, b.finished);
    REQUIRE(b.finished.size() == 1);  // request 0's 3 tokens: its 5 blocks freed behind request 1's
    // request 1 returns: with caching it computes 65 - 48 tokens, the chunk attending to the 48 cached ones
    p = s.plan(b.waiting, b.running, b.kv);
    REQUIRE(p.items.size() == 1);
    CHECK(p.items[0].seq->id == 1);
    CHECK(p.items[0].tokens == (caching ? 17 : 65));
    CHECK(p.items[0].computed == (caching ? 48 : 0));
    CHECK(b.kv.used == 5);
    CHECK(b.seqs[1]->blocks == 5);
    auto sampled = s.complete(p, b.running, b.kv, b.finished);
    REQUIRE(sampled.size() == 1);  // its second token, as if never preempted
    CHECK(b.seqs[1]->generated == 2);
  }
}

TEST_CASE("vLLM with prefix caching: a preempted request's blocks are reused after the never-used and older free ones") {
  SchedulerLimits l;
  l.policy = SchedulerPolicy::vllm;
  EngineScheduler s(l);
  Bench b;
  b.kv = KvBlocks{16, 10, 0};
  b.kv.keep_preempted = true;
  EngineSeq victim;
  victim.prompt_tokens = 64;
  victim.output_tokens = 4;
  REQUIRE(b.kv.ensure(victim, 64));  // 4 blocks; 6 never used
  victim.computed = 64;
  victim.generated = 1;  // 65 tokens: all 4 full blocks can be hit (vLLM recomputes at least the last token)
  EngineSeq other;
  other.prompt_tokens = 200;
  other.output_tokens = 1;
  b.kv.preempt(victim);
  CHECK(victim.computed == 0);
  CHECK(b.kv.free() == 10);
  CHECK(b.kv.cached_prefix_blocks(victim) == 4);
  REQUIRE(b.kv.ensure(other, 6 * 16));  // the 6 never-used blocks first
  CHECK(b.kv.cached_prefix_blocks(victim) == 4);
  REQUIRE(b.kv.ensure(other, 8 * 16));  // then the victim's last two blocks
  CHECK(b.kv.cached_prefix_blocks(victim) == 2);
  b.kv.reclaim(victim);
  CHECK(victim.computed == 32);
  CHECK(victim.blocks == 2);
  CHECK(b.kv.free() == 0);
  CHECK(b.kv.cached_prefix_blocks(other) == 0);
}

TEST_CASE("SGLang: prefill first, never mixed with decode, admission leaves room for the running requests' output") {
  SchedulerLimits l;
  l.policy = SchedulerPolicy::sglang;
  l.block_tokens = 1;
  l.max_batched_tokens = 8192;
  EngineScheduler s(l);
  Bench b;
  b.kv = KvBlocks{1, 20000, 0};
  b.add(6000, 1000);
  b.add(6000, 1000);
  StepPlan p = s.plan(b.waiting, b.running, b.kv);
  // request 0 whole; request 1: 6000 + 1000 < 20000 - 7000 = 13000 and its chunk of the 2192 left
  CHECK(items(p) == Items{{0, 6000}, {1, 2192}});
  s.complete(p, b.running, b.kv, b.finished);
  p = s.plan(b.waiting, b.running, b.kv);
  CHECK(items(p) == Items{{1, 3808}});  // the chunked request goes on alone: a prefill step, request 0 waits
  s.complete(p, b.running, b.kv, b.finished);
  p = s.plan(b.waiting, b.running, b.kv);
  CHECK(items(p) == Items{{0, 1}, {1, 1}});  // nothing to admit: a decode step of both
  CHECK(s.new_token_ratio() < 0.7);           // decayed by one step
  b.add(8000, 4000);
  // expected output of the running: 2 x 999 x ratio (about 1398); free 20000 - 12002 = 7998: 8000 + 4000 does not fit
  s.complete(p, b.running, b.kv, b.finished);
  p = s.plan(b.waiting, b.running, b.kv);
  CHECK(items(p) == Items{{0, 1}, {1, 1}});
  CHECK(b.waiting.size() == 1);
}

TEST_CASE("SGLang: a decode step without a slot each retracts the request with the fewest tokens generated") {
  SchedulerLimits l;
  l.policy = SchedulerPolicy::sglang;
  l.block_tokens = 1;
  l.retract_decode_steps = 2;
  EngineScheduler s(l);
  Bench b;
  b.kv = KvBlocks{1, 100, 0};
  EngineSeq* a = b.add(40, 100);
  EngineSeq* c = b.add(40, 100);
  // admitted by hand, as if the estimate had let both in
  for (EngineSeq* x : {a, c}) {
    b.waiting.pop_front();
    b.running.push_back(x);
    b.kv.ensure(*x, 40);
    x->computed = 40;
    x->generated = 1;
  }
  a->generated = 9;  // a has generated more (its tokens: 49, computed 48)
  a->computed = 48;
  b.kv.ensure(*a, 48);
  // free: 100 - 48 - 40 = 12 >= 2 slots: a decode step
  StepPlan p = s.plan(b.waiting, b.running, b.kv);
  CHECK(items(p) == Items{{0, 1}, {1, 1}});
  s.complete(p, b.running, b.kv, b.finished);
  b.kv.used = 99;  // squeeze: 1 free slot, 2 needed
  b.kv.used -= 0;
  p = s.plan(b.waiting, b.running, b.kv);
  REQUIRE(p.preempted.size() == 1);
  CHECK(p.preempted[0] == c);  // fewest generated
  CHECK(b.waiting.back() == c);
  CHECK(items(p) == Items{{0, 1}});
}

TEST_CASE("TensorRT-LLM: a request is admitted only when its blocks to completion fit, no preemption ever") {
  SchedulerLimits l;
  l.policy = SchedulerPolicy::trtllm;
  l.block_tokens = 32;
  l.chunked_prefill = false;
  l.max_batched_tokens = 8192;
  EngineScheduler s(l);
  Bench b;
  b.kv = KvBlocks{32, 100, 0};  // 3,200 tokens
  b.add(1000, 600);   // 50 blocks to completion
  b.add(1000, 600);   // 50
  b.add(10, 10);      // 1: waits behind the second (head of line)
  StepPlan p = s.plan(b.waiting, b.running, b.kv);
  CHECK(items(p) == Items{{0, 1000}, {1, 1000}});
  CHECK(b.kv.free() == 0);
  CHECK(b.waiting.size() == 1);
  s.complete(p, b.running, b.kv, b.finished);
  p = s.plan(b.waiting, b.running, b.kv);
  CHECK(items(p) == Items{{0, 1}, {1, 1}});
  CHECK(s.refusal(*b.seqs[0], b.kv).empty());
  EngineSeq big;
  big.prompt_tokens = 9000;
  big.output_tokens = 1;
  CHECK(s.refusal(big, KvBlocks{32, 1000, 0}).find("chunked prefill is off") != std::string::npos);
  big.prompt_tokens = 3200;
  CHECK(s.refusal(big, b.kv).find("more KV cache than the instance has (3200 tokens)") != std::string::npos);
}

TEST_CASE("TensorRT-LLM with chunked prefill: a long prompt in block-sized chunks of the budget left") {
  SchedulerLimits l;
  l.policy = SchedulerPolicy::trtllm;
  l.block_tokens = 32;
  l.chunked_prefill = true;
  l.max_batched_tokens = 8192;
  EngineScheduler s(l);
  Bench b;
  b.kv = KvBlocks{32, 10000, 0};
  b.add(100, 5);
  b.add(20000, 5);
  StepPlan p = s.plan(b.waiting, b.running, b.kv);
  CHECK(items(p) == Items{{0, 100}, {1, 8064}});  // 8092 left, rounded down to 32
  s.complete(p, b.running, b.kv, b.finished);
  p = s.plan(b.waiting, b.running, b.kv);
  CHECK(items(p) == Items{{0, 1}, {1, 8160}});
}
