#include "models/arch/kv_replication.hpp"

#include <algorithm>

namespace lynx {

double kv_head_copies(int64_t kv_heads, int64_t tp) {
  return tp > kv_heads ? static_cast<double>(tp) / static_cast<double>(kv_heads) : 1.0;
}

HeadSlice rank_heads(int64_t kv_heads, int64_t tp, int64_t rank) {
  if (tp <= kv_heads)
    return {static_cast<double>(rank * kv_heads) / static_cast<double>(tp),
            static_cast<double>((rank + 1) * kv_heads) / static_cast<double>(tp)};
  const int64_t head = rank * kv_heads / tp;
  return {static_cast<double>(head), static_cast<double>(head + 1)};
}

int64_t rank_replica(int64_t kv_heads, int64_t tp, int64_t rank) {
  if (tp <= kv_heads) return 0;
  const int64_t head = rank * kv_heads / tp;
  // The first rank holding `head` is the smallest r with r * kv_heads / tp == head: ceil(head * tp / kv_heads).
  const int64_t first = (head * tp + kv_heads - 1) / kv_heads;
  return rank - first;
}

double wire_copies(int64_t kv_heads, int64_t decode_tp, ReplicatedKv mode) {
  return mode == ReplicatedKv::send_all ? kv_head_copies(kv_heads, decode_tp) : 1.0;
}

}  // namespace lynx
