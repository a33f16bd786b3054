// A request's path through the cluster as an explicit state machine (DESIGN.md, "A request's path").
//
//   queued -> prefilling -> awaiting_memory -> transferring -> decoding -> done
//                                                   |             ^
//                                                   v             |   (Lynx: anchor complete, residual not)
//                                               drafting -> awaiting_verification
//
// The phase is the furthest step the request has reached: with layer-wise transfer its prefill may still be
// running while it is awaiting_memory or transferring (the record keeps prefill_end_s). queued: in a prefill
// queue; prefilling: its prefill started; awaiting_memory: a KV chunk is ready and the decode instance has not yet
// reserved the request's KV memory; transferring: memory reserved, chunks on the wire, the KV not yet usable;
// drafting (speculative protocols): decoding on the anchor alone while the residual is in flight;
// awaiting_verification: the residual is in, the verification pass is next; decoding: on the full KV; done.
// A co-located instance (colocated_instance.hpp) moves queued -> prefilling -> decoding -> done, and back to queued
// when the engine preempts a request (it recomputes). Each event moves a request along one legal edge; any other move is a LynxError naming the request and both
// phases (a bug, caught where it happens).
#pragma once
#include <cstdint>

namespace lynx {

enum class RequestPhase { queued, prefilling, awaiting_memory, transferring, drafting, awaiting_verification, decoding,
                          done };

const char* request_phase_name(RequestPhase phase);
bool request_phase_edge_legal(RequestPhase from, RequestPhase to);
// Throws LynxError "request <id>: illegal transition from <from> to <to>" unless the edge is legal.
void request_phase_check(int64_t request_id, RequestPhase from, RequestPhase to);

}  // namespace lynx
