#include "sim/transfer/nic_shares.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace lynx {

namespace {
// A GPU's head interval in exact integer units of 1 / (src_tp * dst_tp) of a head (the same interval as
// rank_heads in models/arch/kv_replication.hpp).
struct Units {
  int64_t lo = 0, hi = 0;
};
Units rank_units(int64_t kv_heads, int64_t tp, int64_t rank, int64_t unit) {
  if (tp <= kv_heads) return {rank * kv_heads * unit / tp, (rank + 1) * kv_heads * unit / tp};
  const int64_t head = rank * kv_heads / tp;
  return {head * unit, (head + 1) * unit};
}
}  // namespace

std::vector<NicFlowShare> kv_flow_shares(int64_t kv_heads, int src_tp, int src_nics, int dst_tp, int dst_nics,
                                         ReplicatedKv mode) {
  const int64_t unit = int64_t{src_tp} * dst_tp;  // rank_units divides exactly: tp divides unit * kv_heads
  std::map<std::pair<int, int>, NicFlowShare> merged;  // ordered: a deterministic flow order
  for (int j = 0; j < dst_tp; ++j) {
    const int64_t copy = rank_replica(kv_heads, dst_tp, j);
    if (mode == ReplicatedKv::send_once && copy != 0) continue;
    const Units d = rank_units(kv_heads, dst_tp, j, unit);
    // Source GPUs overlapping j's heads; replicas of one head (identical intervals) listed together.
    std::vector<std::pair<Units, std::vector<int>>> sources;
    for (int i = 0; i < src_tp; ++i) {
      const Units s = rank_units(kv_heads, src_tp, i, unit);
      if (std::min(s.hi, d.hi) <= std::max(s.lo, d.lo)) continue;
      if (!sources.empty() && sources.back().first.lo == s.lo && sources.back().first.hi == s.hi)
        sources.back().second.push_back(i);
      else
        sources.push_back({s, {i}});
    }
    for (const auto& [s, ranks] : sources) {
      const int i = ranks[static_cast<size_t>(copy % static_cast<int64_t>(ranks.size()))];
      const int64_t overlap = std::min(s.hi, d.hi) - std::max(s.lo, d.lo);
      const int src_nic = static_cast<int>(int64_t{i} * src_nics / src_tp);
      const int dst_nic = static_cast<int>(int64_t{j} * dst_nics / dst_tp);
      NicFlowShare& share = merged[{src_nic, dst_nic}];
      share.src_nic = src_nic;
      share.dst_nic = dst_nic;
      share.fraction += static_cast<double>(overlap) / static_cast<double>(kv_heads * unit);
      ++share.gpu_pairs;
    }
  }
  std::vector<NicFlowShare> shares;
  for (const auto& entry : merged) shares.push_back(entry.second);
  return shares;
}

std::vector<NicFlowShare> nic_flow_shares(int src_tp, int src_nics, int dst_tp, int dst_nics) {
  return kv_flow_shares(std::max(src_tp, dst_tp), src_tp, src_nics, dst_tp, dst_nics, ReplicatedKv::send_all);
}

std::vector<uint64_t> split_bytes(uint64_t bytes, const std::vector<NicFlowShare>& shares) {
  std::vector<uint64_t> out;
  split_bytes(bytes, shares, out);
  return out;
}

void split_bytes(uint64_t bytes, const std::vector<NicFlowShare>& shares, std::vector<uint64_t>& out) {
  out.assign(shares.size(), 0);
  double sum = 0;
  for (const NicFlowShare& s : shares) sum += s.fraction;
  const auto total = static_cast<uint64_t>(std::llround(static_cast<double>(bytes) * sum));
  uint64_t given = 0;
  for (size_t k = 0; k + 1 < shares.size(); ++k) {
    out[k] = static_cast<uint64_t>(std::floor(static_cast<double>(bytes) * shares[k].fraction));
    given += out[k];
  }
  if (!shares.empty()) out.back() = total - std::min(given, total);
}

}  // namespace lynx
