// The prefill prefix cache (sim/prefix_cache.hpp): leading-run matching and least-recently-used eviction.
#include <doctest/doctest.h>

#include "sim/prefix_cache.hpp"

using namespace lynx;

TEST_CASE("a prefix cache matches the leading run of cached blocks and evicts the least recently used") {
  PrefixCache cache(100.0);  // 100 bytes a block
  cache.insert({1, 2, 3}, 3, 1000);
  CHECK(cache.bytes() == 300);
  CHECK(cache.peek({1, 2, 3, 4}) == 3);
  CHECK(cache.peek({1, 9, 3}) == 1);  // a prefix ends at the first miss
  CHECK(cache.peek({2, 3}) == 2);
  CHECK(cache.peek({7}) == 0);
  cache.insert({4, 5}, 1, 1000);      // only the first `blocks` entries are inserted
  CHECK(cache.peek({4, 5}) == 1);
  CHECK(cache.match({1}) == 1);       // 1 is now the most recently used; 2 the least
  cache.shrink_to(300);               // holds 1, 3, 4 after evicting the least recently used 2
  CHECK(cache.bytes() == 300);
  CHECK(cache.peek({2}) == 0);
  CHECK(cache.peek({1}) == 1);
  CHECK(cache.peek({3}) == 1);
  CHECK(cache.peek({4}) == 1);
  cache.insert({6}, 1, 100);          // a budget of one block keeps only the newest
  CHECK(cache.peek({6}) == 1);
  CHECK(cache.bytes() == 100);
}
