// A request's phases as spans and marks, from its record (sim/output/request_record.hpp: the times requests.csv
// holds) and following its state machine (sim/cluster/request_phase.hpp). The timeline (timeline.hpp) writes them
// on its tracks and `lynxsim plot --gantt` draws them, so both show the same phases with the same bounds:
//   track      span                from -> to                                    phase
//   prefill    queue wait          arrival -> prefill start                      queued (prefill memory wait included)
//              prefill             prefill start -> prefill end                  prefilling (layer-wise: the request
//                                                                                is awaiting_memory / transferring too)
//   stream     KV transfer         transfer start -> KV arrival                  transferring (single-stream formats)
//              anchor transfer     transfer start -> anchor arrival              transferring (Lynx)
//   residual   residual transfer   transfer start -> residual arrival            transferring, drafting (Lynx)
//   decode     decode memory wait  memory requested -> transfer start            awaiting_memory
//              batch wait          KV usable -> first decode iteration           drafting or decoding, not in a batch
//              drafting            first iteration -> drafting's end             drafting (Lynx, drafts made)
//              verification        drafting's end -> verification end            awaiting_verification, then the pass
//              decode              first iteration, or verification end -> last token   decoding
//   marks      first draft (first_spec_token_s, Lynx, when it drafted) and first token (first_token_s).
// Drafting's end is the residual's arrival, or the end of the first draft iteration when that iteration was still
// running when the residual arrived (the record's first_spec_token_s): the verification pass follows the iteration
// in progress, so the first draft is made by then and its mark never falls inside `verification`. When the residual
// arrives after the first draft, `verification` includes the rest of the iteration in progress (the record holds no
// separate pass start). A span is listed whatever its length (a writer may leave out the shortest ones).
#pragma once
#include <vector>

#include "sim/output/request_record.hpp"

namespace lynx {

enum class SpanTrack { prefill, stream, residual, decode };

struct RequestSpan {
  SpanTrack track;
  const char* name;  // one of request_span_meanings()'s names
  double start_s, end_s;
};

struct RequestMark {
  const char* name;  // "first draft" or "first token"
  double at_s;
};

struct RequestSpans {
  std::vector<RequestSpan> spans;  // in the request's order: prefill track, stream(s), decode track
  std::vector<RequestMark> marks;
  double drafting_end_s;           // NaN without a residual
  double memory_wait_start_s;      // when the decode memory was requested
};

RequestSpans request_spans(const RequestRecord& r);

// Each span's and mark's name with what it means, in the order above (the timeline's legend, the Gantt's key).
struct SpanMeaning {
  const char* name;
  const char* meaning;
};
const std::vector<SpanMeaning>& request_span_meanings();

// "prefill", "stream", "residual", "decode".
const char* span_track_name(SpanTrack track);

}  // namespace lynx
