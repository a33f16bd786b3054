#include <doctest/doctest.h>

#include <cstdint>
#include <queue>
#include <random>
#include <vector>

#include "sim/engine/event_queue.hpp"

using namespace lynx;

namespace {
// The event loop's order, written out here: by time, then by the order queued.
struct Later {
  bool operator()(const QueuedEvent& a, const QueuedEvent& b) const {
    if (a.time_s != b.time_s) return a.time_s > b.time_s;
    return a.sequence > b.sequence;
  }
};
}  // namespace

TEST_CASE("the event queue takes events off in std::priority_queue's order, sorted and as a heap") {
  // Random pushes and pops against the reference queue: cycles that grow it to a random size, past kSortedMax (a
  // heap) or not, then shrink it to a random size below half of it (sorted again), with pops among the pushes and
  // pushes among the pops, many equal times (ordered by sequence) and times pushed out of order. Every event taken
  // off is compared.
  std::mt19937_64 rng(20261206);
  EventQueue queue;
  std::priority_queue<QueuedEvent, std::vector<QueuedEvent>, Later> reference;
  uint64_t sequence = uint64_t{1} << 62, first_sequence = 0, pushed = 0;
  size_t compared = 0, heap_cycles = 0;
  auto push = [&] {
    const double time_s = static_cast<double>(rng() % 50) * 0.125;  // few distinct times: many ties
    // One in 8 as the event loop's at_first events: ordered before every other event of their time, whenever queued.
    const uint64_t s = rng() % 8 == 0 ? first_sequence++ : sequence++;
    ++pushed;
    const QueuedEvent e{time_s, s, static_cast<uint32_t>(rng() % 1000)};
    queue.push(e);
    reference.push(e);
  };
  auto pop = [&] {
    REQUIRE(!queue.empty());
    CHECK(queue.top().time_s == reference.top().time_s);
    CHECK(queue.top().sequence == reference.top().sequence);
    CHECK(queue.top().task == reference.top().task);
    queue.pop();
    reference.pop();
    ++compared;
  };
  for (int cycle = 0; cycle < 60; ++cycle) {
    const size_t high = std::uniform_int_distribution<size_t>(1, 5 * EventQueue::kSortedMax)(rng);
    const size_t low = std::uniform_int_distribution<size_t>(0, EventQueue::kSortedMax / 2 - 1)(rng);
    heap_cycles += high > EventQueue::kSortedMax;
    while (queue.size() < high) {
      if (rng() % 4 == 0 && !queue.empty()) pop(); else push();
      REQUIRE(queue.size() == reference.size());
    }
    while (queue.size() > low) {
      if (rng() % 4 == 0) push(); else pop();
      REQUIRE(queue.size() == reference.size());
    }
  }
  while (!reference.empty()) pop();
  CHECK(queue.empty());
  CHECK(compared == pushed);
  CHECK(first_sequence > pushed / 10);
  CHECK(heap_cycles >= 20);  // the heap was entered, and left, many times
  CHECK(heap_cycles <= 55);  // and many cycles stayed sorted
}

TEST_CASE("the event queue: clear empties it, sorted or a heap") {
  EventQueue queue;
  for (uint64_t i = 0; i < 3 * EventQueue::kSortedMax; ++i)
    queue.push(QueuedEvent{1.0 / static_cast<double>(i + 1), i, 0});
  CHECK(queue.top().sequence == 3 * EventQueue::kSortedMax - 1);  // the earliest time
  queue.clear();
  CHECK(queue.empty());
  queue.push(QueuedEvent{2.0, 7, 0});
  queue.push(QueuedEvent{2.0, 5, 0});
  queue.push(QueuedEvent{1.0, 9, 0});
  CHECK(queue.top().sequence == 9);
  queue.pop();
  CHECK(queue.top().sequence == 5);  // equal times: the one queued first
  queue.pop();
  CHECK(queue.top().sequence == 7);
}
