// lynx_traces: the workload a simulation replays. A Request is one inference request as the simulator sees it:
// when it arrives and how many tokens it reads and writes. Readers of production traces and synthetic generators
// produce a vector of them, sorted by arrival, ids 0..n-1 in that order.
#pragma once
#include <cstdint>
#include <vector>

namespace lynx {

struct Request {
  int64_t id = 0;              // position in the workload, 0-based, in arrival order
  double arrival_s = 0;        // seconds from the start of the workload
  int64_t input_tokens = 0;    // prompt length (> 0)
  int64_t output_tokens = 0;   // tokens to generate (>= 1; 0 only for a trace's failed rows kept by keep_failed)
  int64_t source_line = 0;     // the trace file's line it came from (1-based); 0 for a synthetic request
  std::vector<uint64_t> prefix_block_hashes;  // Mooncake hash_ids: one id per 512-token prefix block (may be empty)
};

}  // namespace lynx
