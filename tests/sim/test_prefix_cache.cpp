// The prefill prefix cache (sim/cluster/prefix_cache.hpp): leading-run matching and least-recently-used eviction.
#include <doctest/doctest.h>

#include "sim/cluster/prefix_cache.hpp"

using namespace lynx;

TEST_CASE("a prefix cache matches leading runs, shares pinned blocks and evicts unpinned ones tail first") {
  PrefixCache cache(100.0);  // 100 bytes a block
  cache.pin({1, 2, 3}, 0, 3);  // a request's three computed blocks, pinned by it
  CHECK(cache.bytes() == 300);
  CHECK(cache.pinned_bytes() == 300);
  CHECK(cache.peek({1, 2, 3, 4}) == 3);
  CHECK(cache.peek({1, 9, 3}) == 1);  // a prefix ends at the first miss
  CHECK(cache.peek({7}) == 0);
  cache.shrink_to(0);                 // pinned blocks cannot be evicted
  CHECK(cache.bytes() == 300);
  // A second request shares blocks 1 and 2: pinning them again adds no bytes.
  CHECK(cache.unpinned_bytes({1, 2}, 2) == 0);
  cache.pin({1, 2}, 0, 2);
  CHECK(cache.pinned_bytes() == 300);
  cache.unpin({1, 2, 3}, 3);          // the first request's KV is sent: only 3 becomes evictable
  CHECK(cache.pinned_bytes() == 200);
  CHECK(cache.unpinned_bytes({3}, 1) == 100);
  cache.shrink_to(200);
  CHECK(cache.peek({3}) == 0);
  CHECK(cache.peek({1, 2}) == 2);
  cache.unpin({1, 2}, 2);
  CHECK(cache.pinned_bytes() == 0);
  CHECK(cache.bytes() == 200);
  // Unpinned blocks leave least recently used first; a request's tail before its head, so that the leading run
  // (what a match needs) lasts longest.
  cache.pin({4, 5, 6}, 0, 3);
  cache.unpin({4, 5, 6}, 3);          // recency now: 4, 5, 6, 1, 2
  cache.shrink_to(400);
  CHECK(cache.peek({2}) == 0);
  cache.shrink_to(200);
  CHECK(cache.peek({1}) == 0);
  CHECK(cache.peek({6}) == 0);
  CHECK(cache.peek({4, 5}) == 2);
  CHECK(cache.bytes() == 200);
  CHECK_THROWS(cache.unpin({4}, 1));  // not pinned: a bookkeeping bug, not bad input
}
