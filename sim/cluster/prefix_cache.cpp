#include "sim/cluster/prefix_cache.hpp"

#include <stdexcept>

namespace lynx {

int64_t PrefixCache::peek(const std::vector<uint64_t>& hashes) const {
  int64_t n = 0;
  for (uint64_t h : hashes) {
    if (!where_.count(h)) break;
    ++n;
  }
  return n;
}

double PrefixCache::unpinned_bytes(const std::vector<uint64_t>& hashes, int64_t blocks) const {
  int64_t n = 0;
  for (int64_t i = 0; i < blocks; ++i) {
    auto it = where_.find(hashes[static_cast<size_t>(i)]);
    if (it != where_.end() && it->second.pins == 0) ++n;
  }
  return block_bytes_ * static_cast<double>(n);
}

void PrefixCache::pin(const std::vector<uint64_t>& hashes, int64_t from, int64_t to) {
  for (int64_t i = from; i < to; ++i) {
    auto [it, added] = where_.try_emplace(hashes[static_cast<size_t>(i)]);
    Entry& e = it->second;
    if (!added && e.pins == 0) order_.erase(e.lru);
    if (added || e.pins == 0) ++pinned_blocks_;
    ++e.pins;
  }
}

void PrefixCache::unpin(const std::vector<uint64_t>& hashes, int64_t blocks) {
  for (int64_t i = blocks - 1; i >= 0; --i) {  // the leading block last: it ends the most recently used
    auto it = where_.find(hashes[static_cast<size_t>(i)]);
    if (it == where_.end() || it->second.pins == 0) throw std::logic_error("unpinning a prefix block that is not pinned");
    Entry& e = it->second;
    if (--e.pins > 0) continue;
    --pinned_blocks_;
    order_.push_front(it->first);
    e.lru = order_.begin();
  }
}

void PrefixCache::shrink_to(double budget_bytes) {
  while (!order_.empty() && bytes() > budget_bytes) {
    where_.erase(order_.back());
    order_.pop_back();
  }
}

}  // namespace lynx
