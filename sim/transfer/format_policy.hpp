// The adaptive format policy (transfer.format_policy "adaptive"): each request's KV format chosen once, at its
// arrival after routing, among the configured candidates (the run's `format` first, then transfer.adaptive_formats),
// by a prediction of its own transfer on the current load of its route.
//
// Why at arrival: the format sets the request's decode reservation (made when it is routed), its quantize cost in
// prefill and its streams, so it must be known before any of them. Why a fluid prediction rather than a simulation:
// the policy is what a real router could run per request, from counters the transfer engine already keeps.
//
// The load it reads: for every platform node (each prefill node's egress, each decode node's ingress) and for the
// site link when the pools are in different sites, the KV bytes committed to it and not yet delivered, split into
// the high class (Lynx anchors, weighted anchor_weight) and the low class (every other stream, weight 1), and the
// number of requests with low-class bytes outstanding. A request's bytes are committed when it is routed and leave
// as each of its flows is delivered. Each such resource drains at its capacity C: its NICs' line rate times the
// engine's efficiency, or the site link's count x bandwidth less the cross traffic's mean share.
//
// The prediction on one resource with backlog (H high bytes, L low bytes over n requests), for a candidate whose
// streams carry h high and l low bytes (a single-stream format: h = 0), measured from the start of its transfer:
//   high stream done   t_h = (H + h) / C                      (anchors pre-empt the low class)
//   low stream done    t_l = (H + h + min(L, n l) + l) / C    (processor sharing with n flows of mean L / n)
// and the request's value is the largest over its route's resources. The transfer's start is then placed after the
// request's prefill P (its prompt alone on its pool's compute model, in the pieces of the pool's token budget, with
// the candidate's quantize kernel): after the prefill, t + P; layer-wise, max(P - L + t, P + the last chunk's bytes /
// the narrowest C), L the prompt's last piece, during which the chunks leave (each layer group's KV is whole only
// once the last piece has computed it; L = P for a prompt prefilled whole). Its first usable KV is then t_h for a Lynx candidate and t_l otherwise, its full KV t_l; each adds
// its decode-side unpack (kernel cost table). The value minimised, measured from the prefill's start:
//   ttft_spec     first usable KV
//   ttft          full KV (a Lynx first token is final only after its verification)
//   ttft_correct  Lynx: P1 x first usable + (1 - P1) x full, P1 the acceptance source's P(one draft kept);
//                 other formats: full KV
// The candidate with the least value is chosen (the earlier on a tie); a candidate other than the first only where
// the first's value is at least adaptive_min_gain times its own, so that the gain is one of TTFT as the map measures
// it (prefill included, the queue before it left out).
//
// Left out, and why: the queue ahead of the request's prefill and prefix-cache hits (the same for every
// candidate), leaf-spine uplinks (the backlog is per node and per site link), anchors that arrive after the choice and pre-empt
// its residual (the reason Lynx's verified token can come late under load: the policy sees the anchors in flight,
// not those to come), and the verification pass's compute.
//
// Tried and dropped: weighting a single-stream format's stream as an anchor when a Lynx candidate exists (it carries
// what the first token waits for, so a later anchor would not pre-empt it). On the regime map the policy's median
// first correct token then came up to 3.6x later than fixed Lynx's (8B, 4K, 25 Gbps, 80% load, 50% cross traffic),
// against 1.4x with weight 1: int8 streams at the anchors' weight take the share Lynx's anchors need.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/cluster/request_state.hpp"
#include "sim/config/simulation_inputs.hpp"
#include "sim/transfer/transfer_protocol.hpp"

namespace lynx {

class TransferEngine;

// One resource of a route as the policy sees it: its capacity and the KV committed to it and not yet delivered.
struct ResourceLoad {
  double capacity_bytes_per_s = 0;
  double high_bytes = 0, low_bytes = 0;  // high: streams weighted above the others (Lynx anchors); low: the rest
  int64_t low_requests = 0;              // requests with low-class bytes outstanding
};
// When a new transfer of `high` high-class and `low` low-class bytes would finish on that resource alone, from its
// start: {high stream done, low stream done} (the two formulas above; a stream of 0 bytes still waits for its class).
struct StreamTimes {
  double high_done_s = 0, low_done_s = 0;
};
StreamTimes predicted_stream_times(const ResourceLoad& load, double high_bytes, double low_bytes);

class FormatChooser {
 public:
  // `candidates` in the configuration's order (the reference first); `nodes` platform nodes, each with its NICs.
  FormatChooser(const SimulationInputs& inputs, std::vector<const TransferProtocol*> candidates,
               const std::vector<int>& node_nics, const TransferEngine& transfer);

  // Chooses the format of a request routed from platform node `prefill_node` to `decode_node`, sets its protocol,
  // and commits its bytes to its route's load.
  void assign(RequestState& r, int prefill_node, int decode_node);
  // `bytes` of stream `stream` of the request have been delivered.
  void delivered(RequestState& r, int stream, uint64_t bytes, int prefill_node, int decode_node);

  // How many requests each candidate was given, in the candidates' order.
  const std::vector<int64_t>& chosen_counts() const { return chosen_; }

 private:
  using Backlog = ResourceLoad;
  using StreamBytes = std::array<uint64_t, 2>;  // each stream's bytes on the wire, all chunks together
  // The value minimised (adaptive_objective, from the prefill's start) for candidate `candidate` carrying `bytes`.
  double predicted_objective_s(const RequestState& r, int candidate, const StreamBytes& bytes, int prefill_node,
                               int decode_node) const;
  // The resources a request between the two nodes crosses: its two nodes and, across sites, the site link (else
  // null).
  std::array<Backlog*, 3> route(int prefill_node, int decode_node);
  std::array<const Backlog*, 3> route(int prefill_node, int decode_node) const;
  // Stream `stream` of the request gains (or, negative, loses) `bytes` on every resource of its route, and
  // `requests` low-class requests.
  void add(const RequestState& r, int stream, double bytes, int64_t requests, int prefill_node, int decode_node);

  const SimulationInputs& inputs_;
  std::vector<const TransferProtocol*> candidates_;
  const TransferEngine& transfer_;
  std::vector<Backlog> nodes_;
  Backlog site_link_;
  bool crosses_sites_ = false;
  std::vector<int64_t> chosen_;
};

}  // namespace lynx
