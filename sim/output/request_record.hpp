// What the simulator records of each request: the times of every step of its path (seconds from the start of
// the workload; NaN where a step does not apply, e.g. residual arrival for a single-stream format) and its token
// counts. The per-request CSV is these records, one column per entry of sim/output/request_columns.hpp (a new member
// needs its entry there); the summary's metrics are computed from them (sim/output/request_distributions.hpp).
#pragma once
#include <cmath>
#include <cstdint>

namespace lynx {

struct RequestRecord {
  int64_t id = 0;
  double arrival_s = NAN;
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  int prefill_instance = -1;
  int decode_instance = -1;
  double prefill_start_s = NAN;
  double prefill_end_s = NAN;
  double prefill_memory_wait_s = 0;  // time at the head of the prefill queue waiting for prefill GPU memory
  double decode_memory_wait_s = 0;   // from its decode memory request (through the decode front end) to the reservation
  int64_t cached_tokens = 0;         // prompt tokens served by the prefill instance's prefix cache (not prefilled)
  double transfer_start_s = NAN;     // first chunk sent
  double anchor_arrival_s = NAN;     // every anchor chunk (lynx) or every chunk (other formats) arrived
  double residual_arrival_s = NAN;   // lynx: every residual chunk arrived
  double decode_start_s = NAN;       // start of the first decode iteration it took part in
  double first_spec_token_s = NAN;   // first token produced, possibly speculative
  double first_correct_token_s = NAN;  // production time of the first token verification keeps: the first draft
                                       // if it was kept, else the verifier's token (= first_token_s)
  double first_token_s = NAN;        // first final token (verified, or decoded on full KV)
  double verify_s = NAN;             // end of the verification pass (lynx)
  double end_s = NAN;                // last token
  int64_t spec_tokens = 0;           // tokens drafted on anchor-only KV
  int64_t accepted_tokens = 0;       // drafts kept by the verification
  int64_t rolled_back_tokens = 0;    // drafts discarded
  int first_draft_kept = -1;         // 1: the first verification kept the first draft; 0: rolled it back; -1: no draft

  double ttft_spec_s() const { return first_spec_token_s - arrival_s; }
  double ttft_correct_s() const { return first_correct_token_s - arrival_s; }
  double ttft_s() const { return first_token_s - arrival_s; }
  double e2el_s() const { return end_s - arrival_s; }
  double tpot_s() const {
    return output_tokens > 1 ? (end_s - first_token_s) / static_cast<double>(output_tokens - 1) : 0.0;
  }
  double kv_transfer_s() const {
    double last = std::isnan(residual_arrival_s) ? anchor_arrival_s : std::fmax(anchor_arrival_s, residual_arrival_s);
    return last - transfer_start_s;
  }
  double exposed_transfer_s() const { return anchor_arrival_s - prefill_end_s; }
  // Time spent waiting for a resource rather than being served: the prefill queue, prefill and decode memory.
  double wait_s() const { return (prefill_start_s - arrival_s) + prefill_memory_wait_s + decode_memory_wait_s; }
};

}  // namespace lynx
