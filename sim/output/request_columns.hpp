// The columns of requests.csv, declared once: one row per finished request (sim/output/request_record.hpp), one column
// per entry below, in this order. A column is either a member of the record (stored) or a value computed from it
// (derived: ttft_s, tpot_s, ...). Everything that names a column walks this table: the CSV header and row writer
// and the CSV reader (sim/output/requests_csv.hpp), the tests' record serializer, and the plotting script, which gets the
// names from the plot request lynxsim hands it (experiments/plot_request.hpp). A new record field is one new entry
// here; a test fails to compile while a member of RequestRecord has no entry (tests/sim/test_requests_csv.cpp).
//
// How a cell is written (the bytes are fixed: results are compared byte for byte):
//   count    an int64 member, as a decimal integer
//   index    an int member that is always set (an instance index), as a decimal integer
//   flag     an int member where -1 means "does not apply" (first_draft_kept): empty then, else a decimal integer
//   seconds  a double member, as "%.9f" (common/fixed_decimal.hpp); empty where NaN (the step does not apply)
//   derived  a double computed by a RequestRecord method, written as `seconds` is; read back into the record only
//            where it carries a member that has no column of its own (`restores`: ttft_correct_s carries
//            first_correct_token_s as arrival_s + ttft_correct_s)
#pragma once
#include <cstddef>
#include <cstdint>
#include <iterator>

#include "sim/output/request_record.hpp"

namespace lynx {

enum class RequestColumnKind { count, index, flag, seconds, derived };

struct RequestColumn {
  const char* name;     // the header of the column
  const char* unit;     // "s", "tokens", "" (an id, an index, a flag)
  RequestColumnKind kind;
  const char* meaning;
  int64_t RequestRecord::*count = nullptr;            // kind count
  int RequestRecord::*index = nullptr;                // kinds index and flag
  double RequestRecord::*seconds = nullptr;           // kind seconds
  double (RequestRecord::*derived)() const = nullptr; // kind derived
  double RequestRecord::*restores = nullptr;          // kind derived: the member read back as arrival_s + value
};

constexpr RequestColumn count_column(const char* name, const char* unit, int64_t RequestRecord::*member,
                                     const char* meaning) {
  return {.name = name, .unit = unit, .kind = RequestColumnKind::count, .meaning = meaning, .count = member};
}
constexpr RequestColumn index_column(const char* name, int RequestRecord::*member, const char* meaning) {
  return {.name = name, .unit = "", .kind = RequestColumnKind::index, .meaning = meaning, .index = member};
}
constexpr RequestColumn flag_column(const char* name, int RequestRecord::*member, const char* meaning) {
  return {.name = name, .unit = "", .kind = RequestColumnKind::flag, .meaning = meaning, .index = member};
}
constexpr RequestColumn seconds_column(const char* name, double RequestRecord::*member, const char* meaning) {
  return {.name = name, .unit = "s", .kind = RequestColumnKind::seconds, .meaning = meaning, .seconds = member};
}
constexpr RequestColumn derived_column(const char* name, double (RequestRecord::*method)() const, const char* meaning,
                                       double RequestRecord::*restores = nullptr) {
  return {.name = name, .unit = "s", .kind = RequestColumnKind::derived, .meaning = meaning, .derived = method,
          .restores = restores};
}

inline constexpr RequestColumn kRequestColumns[] = {
    count_column("id", "", &RequestRecord::id, "the request's id in the workload"),
    seconds_column("arrival_s", &RequestRecord::arrival_s, "arrival, from the start of the workload"),
    count_column("input_tokens", "tokens", &RequestRecord::input_tokens, "prompt length"),
    count_column("output_tokens", "tokens", &RequestRecord::output_tokens, "tokens generated"),
    count_column("cached_tokens", "tokens", &RequestRecord::cached_tokens,
                 "prompt tokens served by the prefill instance's prefix cache (not prefilled)"),
    index_column("prefill_instance", &RequestRecord::prefill_instance, "the prefill instance chosen"),
    index_column("decode_instance", &RequestRecord::decode_instance, "the decode instance chosen"),
    seconds_column("prefill_start_s", &RequestRecord::prefill_start_s, "prefill started"),
    seconds_column("prefill_end_s", &RequestRecord::prefill_end_s, "prefill ended"),
    seconds_column("prefill_memory_wait_s", &RequestRecord::prefill_memory_wait_s,
                   "time at the head of the prefill queue waiting for prefill GPU memory"),
    seconds_column("decode_memory_wait_s", &RequestRecord::decode_memory_wait_s,
                   "from its decode memory request (through the decode engine's front end, if it has one) to the reservation (awaiting_memory)"),
    seconds_column("transfer_start_s", &RequestRecord::transfer_start_s, "first KV chunk sent"),
    seconds_column("anchor_arrival_s", &RequestRecord::anchor_arrival_s,
                   "every anchor chunk (lynx) or every chunk (other formats) arrived"),
    seconds_column("residual_arrival_s", &RequestRecord::residual_arrival_s, "lynx: every residual chunk arrived"),
    seconds_column("decode_start_s", &RequestRecord::decode_start_s,
                   "start of the first decode iteration it took part in"),
    seconds_column("first_spec_token_s", &RequestRecord::first_spec_token_s,
                   "first token produced, possibly speculative"),
    seconds_column("first_token_s", &RequestRecord::first_token_s,
                   "first final token (verified, or decoded on full KV)"),
    seconds_column("verify_s", &RequestRecord::verify_s, "end of the verification pass (lynx)"),
    seconds_column("end_s", &RequestRecord::end_s, "last token"),
    derived_column("ttft_spec_s", &RequestRecord::ttft_spec_s, "first_spec_token_s - arrival_s"),
    derived_column("ttft_correct_s", &RequestRecord::ttft_correct_s,
                   "first correct token (the first draft if the first verification kept it, else the verifier's "
                   "token) - arrival_s",
                   &RequestRecord::first_correct_token_s),
    derived_column("ttft_s", &RequestRecord::ttft_s, "first_token_s - arrival_s"),
    derived_column("tpot_s", &RequestRecord::tpot_s,
                   "(end_s - first_token_s) / (output_tokens - 1); 0 for one output token"),
    derived_column("e2el_s", &RequestRecord::e2el_s, "end_s - arrival_s"),
    count_column("spec_tokens", "tokens", &RequestRecord::spec_tokens, "tokens drafted on anchor-only KV"),
    count_column("accepted_tokens", "tokens", &RequestRecord::accepted_tokens, "drafts kept by the verification"),
    count_column("rolled_back_tokens", "tokens", &RequestRecord::rolled_back_tokens, "drafts discarded"),
    flag_column("first_draft_kept", &RequestRecord::first_draft_kept,
                "1: the first verification kept the first draft; 0: rolled it back; empty: no draft"),
};

inline constexpr size_t kRequestColumnCount = std::size(kRequestColumns);

// The column called `name`, or nullptr.
const RequestColumn* request_column(const char* name);
// "count", "index", "flag", "seconds", "derived".
const char* request_column_kind_name(RequestColumnKind kind);

}  // namespace lynx
