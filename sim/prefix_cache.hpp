// A prefill instance's prefix cache: the KV of prompt blocks (Mooncake's hash_ids: one id per block of
// prefix_block_tokens tokens; equal ids = equal prefix) kept in the prefill GPU memory that weights and in-flight
// KV leave free, least recently used first out. A request whose leading blocks are cached prefills only the rest
// (its attention still covers the whole context). Why LRU on whole blocks: it is what vLLM's automatic prefix
// caching and Mooncake's store do, and the trace gives nothing finer.
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

  // Leading blocks of `hashes` that are cached (marks them used).
  int64_t match(const std::vector<uint64_t>& hashes);
  // Leading blocks cached, without marking them (for the router).
  int64_t peek(const std::vector<uint64_t>& hashes) const;
  // Adds (or refreshes) the blocks, evicting least recently used ones to stay within `budget_bytes`.
  void insert(const std::vector<uint64_t>& hashes, size_t blocks, double budget_bytes);
  // Evicts least recently used blocks until the cache holds at most `budget_bytes`.
  void shrink_to(double budget_bytes);
  double bytes() const { return block_bytes_ * static_cast<double>(order_.size()); }

 private:
  double block_bytes_;
  std::list<uint64_t> order_;  // most recently used first
  std::unordered_map<uint64_t, std::list<uint64_t>::iterator> where_;
};

}  // namespace lynx
