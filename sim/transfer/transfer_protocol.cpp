#include "sim/transfer/transfer_protocol.hpp"

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "models/arch/kv_size.hpp"
#include "sim/cluster/capacity.hpp"

namespace lynx {

namespace {

// Shared by both protocols: the cost of a request's KV on this decode instance.
class ProtocolBase : public TransferProtocol {
 public:
  ProtocolBase(const SimulationInputs& in, const FormatInputs& format)
      : in_(in), format_(format), per_token_(kv_bytes_per_token(in, format.format)) {}
  const FormatInputs& format() const override { return format_; }
  double full_bytes_per_token() const override { return per_token_.full; }

 protected:
  double unpack_seconds(const RequestState& r, bool anchor_only) const {
    const double elements = layers_kv_elements(in_.model, r.request.input_tokens, 0, in_.model.n_layers);
    return format_.decode_kernels.decode_seconds(elements, anchor_only);
  }
  IterationMember full_kv_step(const RequestState& r, bool joining) const {
    IterationMember m;
    m.role = IterationRole::decode;
    m.kv_bytes_per_token = per_token_.full;
    m.attention_relative = format_.decode_kernels.attention_full_relative;
    m.unpack_s = joining ? unpack_seconds(r, false) : 0;
    m.repeatable = r.request.output_tokens - r.final_tokens;
    return m;
  }
  // Tokens produced at time t; `final`: they are final (on full KV, or kept by a verification).
  static void mark_first_tokens(RequestRecord& rec, double t, bool final) {
    if (std::isnan(rec.first_spec_token_s)) rec.first_spec_token_s = t;
    if (final && std::isnan(rec.first_token_s)) rec.first_token_s = t;
    if (final && std::isnan(rec.first_correct_token_s)) rec.first_correct_token_s = t;
  }
  static void finish_if_complete(RequestState& r, double last_end_s) {
    if (r.final_tokens < r.request.output_tokens) return;
    r.record.end_s = last_end_s;
    r.advance(RequestPhase::done);
  }
  const SimulationInputs& in_;
  const FormatInputs& format_;
  KvBytesPerToken per_token_;
};

class SingleStreamProtocol final : public ProtocolBase {
 public:
  using ProtocolBase::ProtocolBase;
  bool speculates() const override { return false; }
  int stream_count() const override { return 1; }
  double stream_weight(const RequestState&, int, double) const override { return 1.0; }
  uint64_t stream_bytes(int, const KvStreamBytes& chunk) const override { return chunk.total(); }
  StreamEvent on_stream_complete(RequestState& r, int, double now_s) const override {
    r.record.anchor_arrival_s = now_s;
    r.advance(RequestPhase::decoding);
    return StreamEvent::kv_usable;
  }
  IterationMember plan(const RequestState& r, bool joining) const override { return full_kv_step(r, joining); }
  void finish(RequestState& r, const IterationMember&, int64_t steps, double first_end_s,
              double last_end_s) const override {
    r.final_tokens += steps;
    mark_first_tokens(r.record, first_end_s, true);
    finish_if_complete(r, last_end_s);
  }
};

class LynxProtocol final : public ProtocolBase {
 public:
  static constexpr int kAnchor = 0, kResidual = 1;
  using ProtocolBase::ProtocolBase;
  bool speculates() const override { return true; }
  int stream_count() const override { return 2; }
  double stream_weight(const RequestState& r, int stream, double now_s) const override {
    const TransferConfig& t = in_.config.transfer;
    if (stream == kAnchor) return t.anchor_weight;
    // The same sum as the re-weighting event's time (stream_reweight_after_s), so that at that event the residual
    // is aged: (now - start) * 1e3 >= wait_ms could round below the wait there and leave the flows in flight at 1.
    const bool aged = t.residual_policy == ResidualPolicy::aging &&
                      now_s >= r.record.transfer_start_s + stream_reweight_after_s(kResidual);
    return aged ? t.anchor_weight : 1.0;
  }
  uint64_t stream_bytes(int stream, const KvStreamBytes& chunk) const override {
    return stream == kAnchor ? chunk.anchor : chunk.residual;
  }
  double stream_reweight_after_s(int stream) const override {
    const TransferConfig& t = in_.config.transfer;
    return stream == kResidual && t.residual_policy == ResidualPolicy::aging ? t.residual_max_wait_ms * 1e-3 : -1;
  }
  StreamEvent on_stream_complete(RequestState& r, int stream, double now_s) const override {
    if (stream == kAnchor) {
      r.record.anchor_arrival_s = now_s;
      // Drafting needs only the anchor; with the residual in already, the request decodes on full KV at once.
      r.advance(std::isnan(r.record.residual_arrival_s) ? RequestPhase::drafting : RequestPhase::decoding);
      return StreamEvent::kv_usable;
    }
    r.record.residual_arrival_s = now_s;
    if (r.phase != RequestPhase::drafting) return StreamEvent::none;  // the anchor is still in flight
    r.advance(RequestPhase::awaiting_verification);
    return StreamEvent::replan;
  }
  void on_join(RequestState& r) const override {
    // The residual landed while the request waited for a batch slot: nothing was drafted, so it decodes on full KV.
    if (r.phase == RequestPhase::awaiting_verification && r.pending_spec_tokens == 0) r.advance(RequestPhase::decoding);
  }
  IterationMember plan(const RequestState& r, bool joining) const override {
    IterationMember m;
    switch (r.phase) {
      case RequestPhase::decoding:
        return full_kv_step(r, joining);
      case RequestPhase::awaiting_verification:
        m.role = IterationRole::verify;
        m.query_positions = r.pending_spec_tokens + 1;
        m.kv_bytes_per_token = per_token_.full;
        m.attention_relative = format_.decode_kernels.attention_full_relative;
        m.unpack_s = unpack_seconds(r, false);  // the residual completes the cache
        return m;
      case RequestPhase::drafting:
        if (r.pending_spec_tokens >= draft_cap(r)) {
          m.role = IterationRole::wait;  // drafted all it may: waits for its residual
          return m;
        }
        m.role = IterationRole::draft;
        m.kv_bytes_per_token = per_token_.anchor;
        m.attention_relative = format_.decode_kernels.attention_anchor_relative;
        m.unpack_s = joining ? unpack_seconds(r, true) : 0;
        m.repeatable = draft_cap(r) - r.pending_spec_tokens;
        return m;
      default:
        throw_error("request %lld: in a decode batch while %s", static_cast<long long>(r.request.id),
                    request_phase_name(r.phase));
    }
  }
  void finish(RequestState& r, const IterationMember& m, int64_t steps, double first_end_s,
              double last_end_s) const override {
    RequestRecord& rec = r.record;
    if (m.role == IterationRole::verify) {
      const int64_t k = r.pending_spec_tokens;
      SplitMix64 rng(in_.config.seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(r.request.id) + 1);
      const int64_t accepted = format_.acceptance.draw(k, r.request.input_tokens, rng);
      rec.accepted_tokens += accepted;
      rec.rolled_back_tokens += k - accepted;
      if (rec.first_draft_kept < 0 && k > 0) {
        // The first draft is kept when the first verification accepts at least one: the first correct token then
        // appeared when the first draft did.
        rec.first_draft_kept = accepted > 0 ? 1 : 0;
        if (accepted > 0 && std::isnan(rec.first_correct_token_s)) rec.first_correct_token_s = rec.first_spec_token_s;
      }
      r.final_tokens = std::min(r.request.output_tokens, r.final_tokens + accepted + 1);
      r.pending_spec_tokens = 0;
      rec.verify_s = first_end_s;
      mark_first_tokens(rec, first_end_s, true);
      r.advance(RequestPhase::decoding);
    } else if (m.role == IterationRole::draft) {
      r.pending_spec_tokens += steps;
      rec.spec_tokens += steps;
      mark_first_tokens(rec, first_end_s, false);
    } else {
      r.final_tokens += steps;
      mark_first_tokens(rec, first_end_s, true);
    }
    finish_if_complete(r, last_end_s);
  }

 private:
  // Never draft more than the verification can use: m drafts + the verifier's token complete the output.
  int64_t draft_cap(const RequestState& r) const {
    const int64_t cap = std::max<int64_t>(1, r.request.output_tokens - r.final_tokens - 1);
    const int64_t limit = in_.config.lynx.max_speculative_tokens;
    return limit > 0 ? std::min(cap, limit) : cap;
  }
};

}  // namespace

bool transfer_protocol_speculates(const KvFormat& format) { return format.is_lynx(); }

std::unique_ptr<TransferProtocol> transfer_protocol_for(const SimulationInputs& inputs, const FormatInputs& format) {
  if (transfer_protocol_speculates(format.format)) return std::make_unique<LynxProtocol>(inputs, format);
  return std::make_unique<SingleStreamProtocol>(inputs, format);
}

const AcceptanceModel& speculating_acceptance(const SimulationInputs& inputs) {
  for (const FormatInputs& f : inputs.adaptive_candidates)
    if (transfer_protocol_speculates(f.format)) return f.acceptance;
  return inputs.run_format.acceptance;
}

bool run_speculates(const SimulationInputs& inputs) {
  bool speculates = transfer_protocol_speculates(inputs.run_format.format);
  for (const FormatInputs& f : inputs.adaptive_candidates)
    speculates = speculates || transfer_protocol_speculates(f.format);
  return speculates;
}

}  // namespace lynx
