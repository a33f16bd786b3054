#include "sim/prefix_cache.hpp"

namespace lynx {

int64_t PrefixCache::match(const std::vector<uint64_t>& hashes) {
  int64_t n = 0;
  for (uint64_t h : hashes) {
    auto it = where_.find(h);
    if (it == where_.end()) break;
    order_.splice(order_.begin(), order_, it->second);
    ++n;
  }
  return n;
}

int64_t PrefixCache::peek(const std::vector<uint64_t>& hashes) const {
  int64_t n = 0;
  for (uint64_t h : hashes) {
    if (!where_.count(h)) break;
    ++n;
  }
  return n;
}

void PrefixCache::insert(const std::vector<uint64_t>& hashes, size_t blocks, double budget_bytes) {
  for (size_t i = 0; i < blocks && i < hashes.size(); ++i) {
    auto it = where_.find(hashes[i]);
    if (it != where_.end()) {
      order_.splice(order_.begin(), order_, it->second);
    } else {
      order_.push_front(hashes[i]);
      where_[hashes[i]] = order_.begin();
    }
  }
  shrink_to(budget_bytes);
}

void PrefixCache::shrink_to(double budget_bytes) {
  while (!order_.empty() && bytes() > budget_bytes) {
    where_.erase(order_.back());
    order_.pop_back();
  }
}

}  // namespace lynx
