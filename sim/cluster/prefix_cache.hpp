// A prefill instance's prefix cache: the KV of prompt blocks (Mooncake's hash_ids: one id per block of
// prefix_block_tokens tokens; equal ids = equal prefix) kept in the prefill GPU memory. A request whose leading
// blocks are cached prefills only the rest (its attention still covers the whole context).
//
// Blocks are shared, not copied, as in vLLM's automatic prefix caching: a request that uses cached blocks pins them
// (a reference count) until its KV has been sent, and when its prefill ends its own full blocks become cache blocks
// pinned by it (their memory moves from the request's reservation into the cache, it is not counted twice). Pinned
// blocks cannot be evicted; unpinned ones fill the memory that in-flight KV leaves free and are evicted least
// recently used first. When a request unpins its blocks, its leading block becomes the most recently used, so a
// long prompt's tail is evicted before its head (a leading-run match needs the head; vLLM frees a request's blocks
// in reverse order for the same reason). Why LRU on whole blocks: it is what vLLM and Mooncake's store do, and the
// trace gives nothing finer.
#pragma once
#include <cstdint>
#include <cstddef>
#include <list>
#include <unordered_map>
#include <vector>

namespace lynx {

class PrefixCache {
 public:
  explicit PrefixCache(double block_bytes) : block_bytes_(block_bytes) {}

  // Leading blocks of `hashes` that are cached, pinned or not.
  int64_t peek(const std::vector<uint64_t>& hashes) const;
  // Bytes that pinning the first `blocks` of `hashes` (all cached) would add to the pinned bytes.
  double unpinned_bytes(const std::vector<uint64_t>& hashes, int64_t blocks) const;
  // Pins blocks [from, to) of `hashes`; a block not cached is added (pinned).
  void pin(const std::vector<uint64_t>& hashes, int64_t from, int64_t to);
  // Unpins the first `blocks` of `hashes`; a block no longer pinned becomes evictable, the leading block the most
  // recently used.
  void unpin(const std::vector<uint64_t>& hashes, int64_t blocks);
  // Evicts least recently used unpinned blocks until the cache holds at most `budget_bytes` (pinned blocks stay).
  void shrink_to(double budget_bytes);

  double bytes() const { return block_bytes_ * static_cast<double>(order_.size() + pinned_blocks_); }
  double pinned_bytes() const { return block_bytes_ * static_cast<double>(pinned_blocks_); }
  double block_bytes() const { return block_bytes_; }

 private:
  struct Entry {
    int64_t pins = 0;
    std::list<uint64_t>::iterator lru;  // its place in order_ while unpinned
  };
  double block_bytes_;
  std::list<uint64_t> order_;  // unpinned blocks, most recently used first
  size_t pinned_blocks_ = 0;
  std::unordered_map<uint64_t, Entry> where_;
};

}  // namespace lynx
