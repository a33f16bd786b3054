#include "sim/cluster/router.hpp"

#include <vector>

#include "common/error.hpp"

namespace lynx {

namespace {

// The least-loaded index in O(log n): a tournament tree over the loads whose winner is the smallest load, the lowest
// index among equals (what a scan keeping the first strict minimum picks; tests/sim/test_router.cpp checks it).
template <typename Load>
class TournamentTree {
 public:
  explicit TournamentTree(size_t n) : size_(1) {
    while (size_ < n) size_ *= 2;
    load_.assign(n, Load{});
    winner_.assign(2 * size_, -1);
    for (size_t i = 0; i < n; ++i) winner_[size_ + i] = static_cast<int>(i);
    for (size_t k = size_ - 1; k >= 1; --k) winner_[k] = better(winner_[2 * k], winner_[2 * k + 1]);
  }
  void set(int i, Load load) {
    load_[static_cast<size_t>(i)] = load;
    for (size_t k = (size_ + static_cast<size_t>(i)) / 2; k >= 1; k /= 2)
      winner_[k] = better(winner_[2 * k], winner_[2 * k + 1]);
  }
  int best() const { return winner_[1]; }

 private:
  int better(int a, int b) const {
    if (a < 0) return b;
    if (b < 0) return a;
    return load_[static_cast<size_t>(b)] < load_[static_cast<size_t>(a)] ? b : a;  // a < b: ties keep a
  }
  size_t size_;
  std::vector<Load> load_;
  std::vector<int> winner_;
};

class RoundRobinRouter : public Router {
 public:
  explicit RoundRobinRouter(const PoolLoads& loads) : loads_(loads) {}
  int choose_prefill(const Request&) override {
    return static_cast<int>(next_prefill_++ % static_cast<uint64_t>(loads_.prefill_count()));
  }
  int choose_decode() override { return static_cast<int>(next_decode_++ % static_cast<uint64_t>(loads_.decode_count())); }
  void prefill_load_changed(int) override {}
  void decode_load_changed(int) override {}

 private:
  const PoolLoads& loads_;
  uint64_t next_prefill_ = 0, next_decode_ = 0;
};

// Decode instances by fewest assigned KV bytes: shared by least-loaded and prefix-aware.
class LeastLoadedDecode : public Router {
 public:
  explicit LeastLoadedDecode(const PoolLoads& loads) : loads_(loads), decode_(static_cast<size_t>(loads.decode_count())) {
    for (int j = 0; j < loads.decode_count(); ++j) decode_.set(j, loads.decode_assigned_bytes(j));
  }
  int choose_decode() override { return decode_.best(); }
  void decode_load_changed(int j) override { decode_.set(j, loads_.decode_assigned_bytes(j)); }

 protected:
  const PoolLoads& loads_;

 private:
  TournamentTree<double> decode_;
};

class LeastLoadedRouter : public LeastLoadedDecode {
 public:
  explicit LeastLoadedRouter(const PoolLoads& loads)
      : LeastLoadedDecode(loads), prefill_(static_cast<size_t>(loads.prefill_count())),
        stale_(static_cast<size_t>(loads.prefill_count()), false) {
    for (int i = 0; i < loads.prefill_count(); ++i) prefill_.set(i, loads.prefill_outstanding_tokens(i));
  }
  // A prefill instance's load may change several times between two arrivals (each prompt it finishes): its entry is
  // refreshed once, before the next choice.
  int choose_prefill(const Request&) override {
    for (int i : stale_list_) {
      stale_[static_cast<size_t>(i)] = false;
      prefill_.set(i, loads_.prefill_outstanding_tokens(i));
    }
    stale_list_.clear();
    return prefill_.best();
  }
  void prefill_load_changed(int i) override {
    if (stale_[static_cast<size_t>(i)]) return;
    stale_[static_cast<size_t>(i)] = true;
    stale_list_.push_back(i);
  }

 private:
  TournamentTree<int64_t> prefill_;
  std::vector<bool> stale_;
  std::vector<int> stale_list_;
};

class PrefixAwareRouter : public LeastLoadedDecode {
 public:
  using LeastLoadedDecode::LeastLoadedDecode;
  int choose_prefill(const Request& request) override {
    int best = 0;
    int64_t best_blocks = loads_.prefill_cached_blocks(0, request);
    int64_t best_tokens = loads_.prefill_outstanding_tokens(0);
    for (int i = 1; i < loads_.prefill_count(); ++i) {
      const int64_t blocks = loads_.prefill_cached_blocks(i, request);
      const int64_t tokens = loads_.prefill_outstanding_tokens(i);
      if (blocks > best_blocks || (blocks == best_blocks && tokens < best_tokens)) {
        best = i;
        best_blocks = blocks;
        best_tokens = tokens;
      }
    }
    return best;
  }
  void prefill_load_changed(int) override {}
};

}  // namespace

std::unique_ptr<Router> router_make(RouterPolicy policy, const PoolLoads& loads) {
  switch (policy) {
    case RouterPolicy::round_robin: return std::make_unique<RoundRobinRouter>(loads);
    case RouterPolicy::least_loaded: return std::make_unique<LeastLoadedRouter>(loads);
    case RouterPolicy::prefix_aware: return std::make_unique<PrefixAwareRouter>(loads);
  }
  throw_internal_error("router_make: no router for policy %d", static_cast<int>(policy));
}

}  // namespace lynx
