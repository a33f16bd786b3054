// The event loop's queue of pending events, earliest first: by time, then by sequence (the order they were queued
// in, for equal times). Any correct priority queue gives the same order (no two events share a sequence); this one
// is chosen for how few events are pending at once: 14 on average and 32 at most on the Mooncake benchmark run
// (12,031 requests, 577,000 events), where std::priority_queue's sift-down cost about 120 instructions and a few
// mispredicted branches per event taken off. Up to kSortedMax events it keeps them in a vector sorted latest first:
// the earliest is taken off the back, a new one placed by a search from the back and one move of those earlier. Beyond,
// it works as a binary heap (std::push_heap / pop_heap) and turns back to sorted once half that is left, so a run
// with many events pending at once (large clusters, bursts) costs a heap's O(log n), not an insertion's O(n).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace lynx {

struct QueuedEvent {
  double time_s;
  uint64_t sequence;
  uint32_t task;  // the event loop's slot of its handler
};

class EventQueue {
 public:
  static constexpr size_t kSortedMax = 64;

  bool empty() const { return events_.empty(); }
  size_t size() const { return events_.size(); }
  const QueuedEvent& top() const { return heap_ ? events_.front() : events_.back(); }

  void push(const QueuedEvent& event) {
    if (!heap_ && events_.size() < kSortedMax) {
      // Latest first: before the first event earlier than `event`, searched from the back (the earliest end), for
      // most new events are due before all the queued ones or all but a few: on the Mooncake run half go to the
      // back and 80% within 4 of it, where a binary search took 4 to 6 steps.
      size_t position = events_.size();
      while (position > 0 && later(event, events_[position - 1])) --position;
      if (position == events_.size()) events_.push_back(event);
      else events_.insert(events_.begin() + static_cast<std::ptrdiff_t>(position), event);
      return;
    }
    if (!heap_) {
      std::make_heap(events_.begin(), events_.end(), later);
      heap_ = true;
    }
    events_.push_back(event);
    std::push_heap(events_.begin(), events_.end(), later);
  }

  void pop() {
    if (!heap_) {
      events_.pop_back();
      return;
    }
    std::pop_heap(events_.begin(), events_.end(), later);
    events_.pop_back();
    if (events_.size() <= kSortedMax / 2) {
      std::sort(events_.begin(), events_.end(), later);
      heap_ = false;
    }
  }

  void clear() {
    events_.clear();
    heap_ = false;
  }

 private:
  // a after b: later in time, or at the same time queued after it. The heap's order (its front the earliest) and
  // the sorted order (latest first) both use it.
  static bool later(const QueuedEvent& a, const QueuedEvent& b) {
    return a.time_s != b.time_s ? a.time_s > b.time_s : a.sequence > b.sequence;
  }
  std::vector<QueuedEvent> events_;
  bool heap_ = false;
};

}  // namespace lynx
