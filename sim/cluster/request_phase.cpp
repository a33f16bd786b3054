#include "sim/cluster/request_phase.hpp"

#include "common/error.hpp"

namespace lynx {

const char* request_phase_name(RequestPhase phase) {
  switch (phase) {
    case RequestPhase::queued: return "queued";
    case RequestPhase::prefilling: return "prefilling";
    case RequestPhase::awaiting_memory: return "awaiting_memory";
    case RequestPhase::transferring: return "transferring";
    case RequestPhase::drafting: return "drafting";
    case RequestPhase::awaiting_verification: return "awaiting_verification";
    case RequestPhase::decoding: return "decoding";
    case RequestPhase::done: return "done";
  }
  return "?";
}

bool request_phase_edge_legal(RequestPhase from, RequestPhase to) {
  using P = RequestPhase;
  switch (from) {
    case P::queued: return to == P::prefilling;
    // A co-located instance also takes prefilling -> decoding | done (no KV crosses) and prefilling | decoding ->
    // queued (preempted or retracted: recomputed later).
    case P::prefilling:
      return to == P::awaiting_memory || to == P::decoding || to == P::done || to == P::queued;
    case P::awaiting_memory: return to == P::transferring;
    case P::transferring: return to == P::drafting || to == P::decoding;
    case P::drafting: return to == P::awaiting_verification;
    case P::awaiting_verification: return to == P::decoding;
    case P::decoding: return to == P::done || to == P::queued;
    case P::done: return false;
  }
  return false;
}

void request_phase_check(int64_t request_id, RequestPhase from, RequestPhase to) {
  if (!request_phase_edge_legal(from, to))
    throw_internal_error("request %lld: illegal transition from %s to %s", static_cast<long long>(request_id),
                request_phase_name(from), request_phase_name(to));
}

}  // namespace lynx
