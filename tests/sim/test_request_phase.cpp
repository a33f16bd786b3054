// The request state machine: exactly the edges of request_phase.hpp's diagram are legal, and an illegal move names
// the request and both phases.
#include <doctest/doctest.h>

#include <set>
#include <utility>

#include "common/error.hpp"
#include "sim/request_state.hpp"

using namespace lynx;

TEST_CASE("the request state machine has exactly the diagram's edges") {
  using P = RequestPhase;
  const std::set<std::pair<P, P>> edges = {
      {P::queued, P::prefilling},         {P::prefilling, P::awaiting_memory},
      {P::awaiting_memory, P::transferring}, {P::transferring, P::drafting},
      {P::transferring, P::decoding},     {P::drafting, P::awaiting_verification},
      {P::awaiting_verification, P::decoding}, {P::decoding, P::done}};
  const P all[] = {P::queued,   P::prefilling,          P::awaiting_memory, P::transferring,
                   P::drafting, P::awaiting_verification, P::decoding,      P::done};
  int legal = 0;
  for (P from : all)
    for (P to : all) {
      CHECK(request_phase_edge_legal(from, to) == (edges.count({from, to}) == 1));
      legal += request_phase_edge_legal(from, to);
    }
  CHECK(legal == 8);
}

TEST_CASE("an illegal transition is an error naming the request and both phases") {
  RequestState r;
  r.request.id = 42;
  r.advance(RequestPhase::prefilling);
  r.advance(RequestPhase::awaiting_memory);
  CHECK_THROWS_WITH_AS(r.advance(RequestPhase::decoding),
                       "request 42: illegal transition from awaiting_memory to decoding", InternalError);
  CHECK(r.phase == RequestPhase::awaiting_memory);
  r.advance(RequestPhase::transferring);
  r.advance(RequestPhase::drafting);
  CHECK_THROWS_WITH_AS(r.advance(RequestPhase::done), "request 42: illegal transition from drafting to done",
                       InternalError);  // a bug, never the input's fault: lynxsim exits 3
}
