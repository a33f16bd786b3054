#include "sim/output/request_spans.hpp"

#include <algorithm>
#include <cmath>

namespace lynx {

RequestSpans request_spans(const RequestRecord& r) {
  RequestSpans out;
  out.memory_wait_start_s = std::max(0.0, r.transfer_start_s - r.decode_memory_wait_s);
  out.drafting_end_s = std::isnan(r.first_spec_token_s) ? r.residual_arrival_s
                                                        : std::max(r.residual_arrival_s, r.first_spec_token_s);
  const bool two_streams = !std::isnan(r.residual_arrival_s);
  std::vector<RequestSpan>& s = out.spans;
  s.push_back({SpanTrack::prefill, "queue wait", r.arrival_s, r.prefill_start_s});
  s.push_back({SpanTrack::prefill, "prefill", r.prefill_start_s, r.prefill_end_s});
  s.push_back({SpanTrack::stream, two_streams ? "anchor transfer" : "KV transfer", r.transfer_start_s,
               r.anchor_arrival_s});
  if (two_streams) s.push_back({SpanTrack::residual, "residual transfer", r.transfer_start_s, r.residual_arrival_s});
  s.push_back({SpanTrack::decode, "decode memory wait", out.memory_wait_start_s, r.transfer_start_s});
  s.push_back({SpanTrack::decode, "batch wait", r.anchor_arrival_s, r.decode_start_s});
  double decode_from_s = r.decode_start_s;
  if (!std::isnan(r.verify_s)) {  // drafted on the anchor, then verified
    s.push_back({SpanTrack::decode, "drafting", r.decode_start_s, out.drafting_end_s});
    s.push_back({SpanTrack::decode, "verification", out.drafting_end_s, r.verify_s});
    decode_from_s = r.verify_s;
  }
  s.push_back({SpanTrack::decode, "decode", decode_from_s, r.end_s});
  if (r.spec_tokens > 0) out.marks.push_back({"first draft", r.first_spec_token_s});
  out.marks.push_back({"first token", r.first_token_s});
  return out;
}

const std::vector<SpanMeaning>& request_span_meanings() {
  static const std::vector<SpanMeaning> meanings = {
      {"queue wait", "arrival -> prefill start (prefill memory wait included, in args)"},
      {"prefill", "prefill start -> prefill end"},
      {"KV transfer", "first chunk sent -> every chunk arrived (single-stream formats)"},
      {"anchor transfer", "first chunk sent -> every anchor chunk arrived (Lynx)"},
      {"residual transfer", "first chunk sent -> every residual chunk arrived (Lynx)"},
      {"decode memory wait", "decode memory requested -> reserved (the transfer starts)"},
      {"batch wait", "KV usable (anchor, or every chunk) -> first decode iteration"},
      {"drafting", "first decode iteration -> the residual's arrival, or the end of the first draft iteration if "
                   "that iteration was still running then (Lynx: tokens drafted on the anchor alone)"},
      {"verification", "end of drafting -> end of the verification pass; when the residual arrived after the first "
                       "draft it includes the rest of the decode iteration in progress at its arrival"},
      {"decode", "first decode iteration (or end of verification) -> last token"},
      {"first draft", "mark: the first token produced on the anchor alone (ttft_spec); at or before drafting's end"},
      {"first token", "mark: the first final token, verified or decoded on full KV (ttft)"}};
  return meanings;
}

const char* span_track_name(SpanTrack track) {
  switch (track) {
    case SpanTrack::prefill: return "prefill";
    case SpanTrack::stream: return "stream";
    case SpanTrack::residual: return "residual";
    case SpanTrack::decode: return "decode";
  }
  return "decode";
}

}  // namespace lynx
