// `lynxsim validate`'s transfer group: the engine presets (sim/transfer/transfer_cost.cpp) predict published micro-benchmark
// measurements of the engines with the same closed form the simulator obeys (idle_transfer_seconds). The table of
// measurements is the project's own (transfer_validation.cpp): a handful of published figures, each row with its
// citation; no other project's data file is read. The rows a preset was calibrated on are listed too, marked
// excluded ("calibration"), so the fit can be seen; the MAPE is over the held-out rows only.
//
// Two kinds of benchmark, predicted differently because they measure different things:
//   - one transfer at a time (nixlbench, LMCache's sweep, a 40 GB Mooncake transfer): the time of one transfer of
//     S bytes in n messages over k NICs, setup + n/k x per_message + S/k / (efficiency x B) + notify;
//   - steady-state throughput with many transfers in flight (transfer_engine_bench: several threads, each with a
//     batch outstanding): the setup of one transfer overlaps the others' bytes, so a block costs per_message +
//     b / (efficiency x B) on its NIC.
// Measured and predicted are the time of that unit, in ms; the ratio is predicted / measured.
#pragma once
#include <vector>

#include "models/validation/validation.hpp"

namespace lynx {

// The transfer group's rows and one MAPE per engine, appended to `report`.
void add_transfer_validation(ValidationReport& report);

}  // namespace lynx
