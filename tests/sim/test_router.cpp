// The router alone (sim/cluster/router.hpp), driven with made-up loads: every choice of each policy equals a plain scan of
// the same loads (least-loaded: the first strict minimum; prefix-aware: the most cached blocks, then the fewest
// outstanding tokens, then the lowest index), over random load changes and pool sizes, ties included.
#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "sim/cluster/router.hpp"

namespace lynx {
namespace {

struct FakeLoads : PoolLoads {
  std::vector<int64_t> prefill_tokens;
  std::vector<int64_t> cached;  // blocks cached for "the" request, per prefill instance
  std::vector<double> decode_bytes;
  int prefill_count() const override { return static_cast<int>(prefill_tokens.size()); }
  int decode_count() const override { return static_cast<int>(decode_bytes.size()); }
  int64_t prefill_outstanding_tokens(int i) const override { return prefill_tokens[static_cast<size_t>(i)]; }
  int64_t prefill_cached_blocks(int i, const Request&) const override { return cached[static_cast<size_t>(i)]; }
  double decode_assigned_bytes(int j) const override { return decode_bytes[static_cast<size_t>(j)]; }
};

template <typename T>
int first_minimum(const std::vector<T>& v) {
  int best = 0;
  for (size_t i = 1; i < v.size(); ++i)
    if (v[i] < v[static_cast<size_t>(best)]) best = static_cast<int>(i);
  return best;
}

int prefix_scan(const FakeLoads& l) {
  int best = 0;
  for (size_t i = 1; i < l.cached.size(); ++i) {
    const auto b = static_cast<size_t>(best);
    if (l.cached[i] > l.cached[b] || (l.cached[i] == l.cached[b] && l.prefill_tokens[i] < l.prefill_tokens[b]))
      best = static_cast<int>(i);
  }
  return best;
}

// Random loads from a small range, so that ties are frequent.
void drive(RouterPolicy policy, int prefill, int decode, uint64_t seed) {
  std::mt19937_64 rng(seed);
  FakeLoads loads;
  loads.prefill_tokens.assign(static_cast<size_t>(prefill), 0);
  loads.cached.assign(static_cast<size_t>(prefill), 0);
  loads.decode_bytes.assign(static_cast<size_t>(decode), 0);
  std::unique_ptr<Router> router = router_make(policy, loads);
  const Request request;
  int choices = 0;
  for (int step = 0; step < 4000; ++step) {
    // A few load changes, each told to the router (some instances change twice before the next choice).
    const int changes = static_cast<int>(rng() % 4);
    for (int c = 0; c < changes; ++c) {
      const int i = static_cast<int>(rng() % static_cast<uint64_t>(prefill));
      loads.prefill_tokens[static_cast<size_t>(i)] = static_cast<int64_t>(rng() % 6) * 1000;
      loads.cached[static_cast<size_t>(i)] = static_cast<int64_t>(rng() % 3);
      router->prefill_load_changed(i);
      const int j = static_cast<int>(rng() % static_cast<uint64_t>(decode));
      loads.decode_bytes[static_cast<size_t>(j)] = static_cast<double>(rng() % 5) * 0.5e9;
      router->decode_load_changed(j);
    }
    const int pi = router->choose_prefill(request), di = router->choose_decode();
    CAPTURE(step);
    switch (policy) {
      case RouterPolicy::round_robin:
        REQUIRE(pi == choices % prefill);
        REQUIRE(di == choices % decode);
        break;
      case RouterPolicy::least_loaded:
        REQUIRE(pi == first_minimum(loads.prefill_tokens));
        REQUIRE(di == first_minimum(loads.decode_bytes));
        break;
      case RouterPolicy::prefix_aware:
        REQUIRE(pi == prefix_scan(loads));
        REQUIRE(di == first_minimum(loads.decode_bytes));
        break;
    }
    ++choices;
  }
}

TEST_CASE("least-loaded: the tournament tree makes the choice of a scan, ties to the lowest index") {
  for (int n : {1, 2, 3, 7, 8, 33}) {
    CAPTURE(n);
    drive(RouterPolicy::least_loaded, n, n == 1 ? 1 : n - 1, 11 + static_cast<uint64_t>(n));
  }
}

TEST_CASE("prefix-aware: the longest cached prefix, then the least loaded, decode as least-loaded") {
  for (int n : {1, 4, 9}) {
    CAPTURE(n);
    drive(RouterPolicy::prefix_aware, n, n + 2, 23 + static_cast<uint64_t>(n));
  }
}

TEST_CASE("round-robin: each pool in turn, whatever the loads") {
  drive(RouterPolicy::round_robin, 3, 5, 5);
}

TEST_CASE("a load change not told to the least-loaded router is not seen, a told one is, even twice over") {
  FakeLoads loads;
  loads.prefill_tokens = {0, 0, 0};
  loads.cached = {0, 0, 0};
  loads.decode_bytes = {0, 0};
  std::unique_ptr<Router> router = router_make(RouterPolicy::least_loaded, loads);
  const Request request;
  loads.prefill_tokens[0] = 500;
  CHECK(router->choose_prefill(request) == 0);  // untold: the tree still holds 0
  router->prefill_load_changed(0);
  loads.prefill_tokens[1] = 200;
  router->prefill_load_changed(1);
  loads.prefill_tokens[1] = 900;
  router->prefill_load_changed(1);  // changed twice before the choice: its last value counts
  CHECK(router->choose_prefill(request) == 2);
  loads.decode_bytes[0] = 1;
  router->decode_load_changed(0);
  CHECK(router->choose_decode() == 1);
}

}  // namespace
}  // namespace lynx
