#include "sim/nic_shares.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace lynx {

std::vector<NicFlowShare> nic_flow_shares(int src_tp, int src_nics, int dst_tp, int dst_nics) {
  std::map<std::pair<int, int>, double> merged;  // ordered: a deterministic flow order
  for (int i = 0; i < src_tp; ++i) {
    for (int j = 0; j < dst_tp; ++j) {
      // Overlap of [i/src_tp, (i+1)/src_tp) and [j/dst_tp, (j+1)/dst_tp), in exact integer units of 1/(src*dst).
      const int64_t lo = std::max<int64_t>(int64_t{i} * dst_tp, int64_t{j} * src_tp);
      const int64_t hi = std::min<int64_t>(int64_t{i + 1} * dst_tp, int64_t{j + 1} * src_tp);
      if (hi <= lo) continue;
      const int src_nic = static_cast<int>(int64_t{i} * src_nics / src_tp);
      const int dst_nic = static_cast<int>(int64_t{j} * dst_nics / dst_tp);
      merged[{src_nic, dst_nic}] += static_cast<double>(hi - lo) / static_cast<double>(int64_t{src_tp} * dst_tp);
    }
  }
  std::vector<NicFlowShare> shares;
  for (const auto& [pair, fraction] : merged) shares.push_back(NicFlowShare{pair.first, pair.second, fraction});
  return shares;
}

std::vector<uint64_t> split_bytes(uint64_t bytes, const std::vector<NicFlowShare>& shares) {
  std::vector<uint64_t> out(shares.size(), 0);
  uint64_t given = 0;
  for (size_t k = 0; k + 1 < shares.size(); ++k) {
    out[k] = static_cast<uint64_t>(std::floor(static_cast<double>(bytes) * shares[k].fraction));
    given += out[k];
  }
  if (!shares.empty()) out.back() = bytes - std::min(given, bytes);
  return out;
}

}  // namespace lynx
