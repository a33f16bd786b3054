// How a request's KV crosses between two tensor-parallel instances, NIC by NIC. Each of the source's tp GPUs holds
// an equal share of the KV heads ([g/tp, (g+1)/tp) of them); each destination GPU needs its own share; the bytes
// that source GPU i holds and destination GPU j needs go from i's NIC to j's NIC, as a tensor-parallel deployment
// sends them (each GPU sends its heads' share straight to the GPU that will use them). GPU g of an instance with n
// NICs uses NIC floor(g * n / tp). The result merges GPU pairs that share a NIC pair.
#pragma once
#include <cstdint>
#include <vector>

namespace lynx {

struct NicFlowShare {
  int src_nic = 0, dst_nic = 0;
  double fraction = 0;  // of the KV bytes; the fractions sum to 1
};

std::vector<NicFlowShare> nic_flow_shares(int src_tp, int src_nics, int dst_tp, int dst_nics);

// `bytes` split by the shares' fractions into whole bytes that add up to exactly `bytes` (the rounding remainder
// goes to the last share).
std::vector<uint64_t> split_bytes(uint64_t bytes, const std::vector<NicFlowShare>& shares);

}  // namespace lynx
