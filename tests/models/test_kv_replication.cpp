// KV replication under tensor parallelism (models/arch/kv_replication.hpp), against hand counts.
#include <doctest/doctest.h>

#include "models/arch/kv_replication.hpp"

using namespace lynx;

TEST_CASE("copies per head: 1 while tp <= kv_heads, tp / kv_heads above") {
  CHECK(kv_head_copies(8, 1) == 1);
  CHECK(kv_head_copies(8, 8) == 1);
  CHECK(kv_head_copies(4, 8) == 2);
  CHECK(kv_head_copies(1, 8) == 8);  // one shared latent per layer (MLA): whole on every rank
  CHECK(kv_head_copies(8, 16) == 2);
}

TEST_CASE("head slices: even shares below kv_heads, one whole head per rank above, with its copy index") {
  CHECK(rank_heads(8, 2, 1).first == 4);
  CHECK(rank_heads(8, 2, 1).last == 8);
  CHECK(rank_heads(8, 3, 1).first == doctest::Approx(8.0 / 3));
  for (int64_t r = 0; r < 8; ++r) {
    CHECK(rank_heads(4, 8, r).first == static_cast<double>(r / 2));
    CHECK(rank_heads(4, 8, r).last == static_cast<double>(r / 2 + 1));
    CHECK(rank_replica(4, 8, r) == r % 2);
    CHECK(rank_replica(8, 8, r) == 0);
  }
  CHECK(rank_replica(1, 8, 7) == 7);
}

TEST_CASE("bytes on the wire: send_all x the decode copies, send_once x 1") {
  CHECK(wire_copies(4, 8, ReplicatedKv::send_all) == 2);
  CHECK(wire_copies(4, 8, ReplicatedKv::send_once) == 1);
  CHECK(wire_copies(8, 4, ReplicatedKv::send_all) == 1);
}
