// `lynxsim validate`'s transfer group: the presets' library-and-transport terms (sim/transfer/transfer_cost.cpp)
// predict published micro-benchmarks of the transfer libraries with the same closed forms the simulator obeys. The
// micro-benchmarks exercise a library over a transport, not a connector's message layout, so the groups are by
// library and transport (Mooncake Transfer Engine over RDMA and over EFA, NIXL over UCX/RDMA and over TCPXO); every
// connector on that library shares the terms. The rows are transcribed figures, each with its citation (the data
// folder's calibration/transfer-benchmarks/transcribed/*.csv holds most of them, with their conditions); the rows a
// preset was fitted on are listed too, marked "calibration", and rows a preset cannot express are listed marked
// "not expressed" with the reason; the MAPE is over the held-out rows only.
//
// Two kinds of benchmark, predicted differently because they measure different things:
//   - one transfer at a time (nixlbench with one descriptor, LMCache's sweep, a 40 GB Mooncake transfer, single
//     writes): the time of one transfer of S bytes in n ops striped over k NICs, each NIC's share
//     setup + (S/k) / min(efficiency x B, bound(n/k ops)) + notify;
//   - steady-state throughput with many ops in flight (transfer_engine_bench, nixlbench with many iterations): an
//     op of b bytes costs b / min(efficiency x B, bound) on its NIC, setup overlapped by the others.
// Measured and predicted are the time of that unit, in ms; the ratio is predicted / measured. Not expressed by any
// preset: nixlbench runs inside one node (UCX over NVLink/CUDA IPC, no NIC: NIXL PR #115, Ray PR #54598), the LMCache
// blog's NVLink transfer, NIXL over EFA (its one published run is misconfigured: NIXL issue #1021), plain TCP (the
// Mooncake README gives only its ratio to RDMA, a host ceiling of 36-41 GB/s whatever the NIC count).
#pragma once
#include <vector>

#include "models/validation/validation.hpp"

namespace lynx {

// The transfer group's rows and one MAPE per library and transport, appended to `report`.
void add_transfer_validation(ValidationReport& report);

}  // namespace lynx
