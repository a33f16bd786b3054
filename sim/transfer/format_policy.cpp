#include "sim/transfer/format_policy.hpp"

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "models/arch/kv_size.hpp"
#include "sim/cluster/capacity.hpp"
#include "sim/transfer/transfer_engine.hpp"

namespace lynx {

namespace {

// The site link's capacity left to KV: its line rate less the cross traffic's mean share (sim/network/site_config.hpp).
double site_link_bytes_per_s(const SiteLinkConfig& link) {
  double taken = 0;
  const CrossTrafficConfig& x = link.cross_traffic;
  if (x.enabled) {
    taken = x.fraction;
    if (x.kind == CrossTrafficKind::on_off) taken *= x.on_ms / (x.on_ms + x.off_ms);
  }
  return link.capacity_gbps() * 1e9 / 8 * (1 - taken);
}

// Whether stream `stream` of the protocol is in the high class (weighted above the others: Lynx's anchor).
bool high_class(const TransferProtocol& protocol, int stream) { return protocol.speculates() && stream == 0; }

}  // namespace

StreamTimes predicted_stream_times(const ResourceLoad& load, double high_bytes, double low_bytes) {
  const double shared = std::min(load.low_bytes, static_cast<double>(load.low_requests) * low_bytes);
  const double high_done = load.high_bytes + high_bytes;
  return {high_done / load.capacity_bytes_per_s, (high_done + shared + low_bytes) / load.capacity_bytes_per_s};
}

FormatChooser::FormatChooser(const SimulationInputs& inputs, std::vector<const TransferProtocol*> candidates,
                           const std::vector<int>& node_nics, const TransferEngine& transfer)
    : inputs_(inputs), candidates_(std::move(candidates)), transfer_(transfer), chosen_(candidates_.size(), 0) {
  const NetworkConfig& net = inputs.config.network;
  const double nic_bytes_per_s = net.nic_gbps * 1e9 / 8 * inputs.config.transfer.cost.efficiency;
  for (int nics : node_nics) nodes_.push_back({nic_bytes_per_s * nics, 0, 0, 0});
  if (net.topology == Topology::sites && net.sites.prefill_site != net.sites.decode_site) {
    crosses_sites_ = true;
    const int link = net.sites.link_between(net.sites.prefill_site, net.sites.decode_site);
    site_link_.capacity_bytes_per_s = site_link_bytes_per_s(net.sites.links[static_cast<size_t>(link)]);
  }
}

std::array<FormatChooser::Backlog*, 3> FormatChooser::route(int prefill_node, int decode_node) {
  return {&nodes_[static_cast<size_t>(prefill_node)], &nodes_[static_cast<size_t>(decode_node)],
          crosses_sites_ ? &site_link_ : nullptr};
}

std::array<const FormatChooser::Backlog*, 3> FormatChooser::route(int prefill_node, int decode_node) const {
  return {&nodes_[static_cast<size_t>(prefill_node)], &nodes_[static_cast<size_t>(decode_node)],
          crosses_sites_ ? &site_link_ : nullptr};
}

double FormatChooser::predicted_objective_s(const RequestState& r, int candidate, const StreamBytes& bytes,
                                            int prefill_node, int decode_node) const {
  const TransferProtocol& protocol = *candidates_[static_cast<size_t>(candidate)];
  const FormatInputs& f = protocol.format();
  const int64_t tokens = r.request.input_tokens;
  const double elements = layers_kv_elements(inputs_.model, tokens, 0, inputs_.model.n_layers);
  double high = 0, low = 0;
  for (int s = 0; s < protocol.stream_count(); ++s)
    (high_class(protocol, s) ? high : low) += static_cast<double>(bytes[static_cast<size_t>(s)]);
  double high_done = 0, low_done = 0, narrowest = INFINITY;
  for (const Backlog* resource : route(prefill_node, decode_node)) {
    if (resource == nullptr) continue;
    const StreamTimes t = predicted_stream_times(*resource, high, low);
    high_done = std::max(high_done, t.high_done_s);
    low_done = std::max(low_done, t.low_done_s);
    narrowest = std::min(narrowest, resource->capacity_bytes_per_s);
  }
  // From the prefill's start: the prompt alone, in the pieces the pool's token budget cuts it into (each attending to
  // the pieces before it), its quantize kernel included. Layer-wise, a layer group's KV leaves when the prompt's last
  // piece has computed it (the pieces before hold only part of each layer's KV), so the transfer starts with the last
  // piece and ends no sooner than the prefill plus its last chunk; after the prefill, it starts at its end.
  const int64_t budget = prefill_token_budget(inputs_);
  double prefill_s = 0, last_piece_s = 0;
  for (int64_t done = 0; done < tokens;) {
    const int64_t piece = budget > 0 ? std::min(budget, tokens - done) : tokens;
    last_piece_s = inputs_.prefill_cost->prefill_seconds({{piece, done}});
    prefill_s += last_piece_s;
    done += piece;
  }
  const double start_s = prefill_s - last_piece_s;  // the pieces before the last (0 for a prompt prefilled whole)
  prefill_s += f.prefill_kernels.encode_seconds(elements);
  if (inputs_.config.transfer.mode == TransferMode::layer_wise) {
    const int last = inputs_.config.transfer.chunk_layers;
    const double tail = static_cast<double>(std::min<int64_t>(last, inputs_.model.n_layers)) /
                        static_cast<double>(inputs_.model.n_layers);
    high_done = std::max(start_s + high_done, prefill_s + tail * high / narrowest);
    low_done = std::max(start_s + low_done, prefill_s + tail * (high + low) / narrowest);
  } else {
    high_done += prefill_s;
    low_done += prefill_s;
  }
  // The whole KV unpacked, and the KV a first token needs (Lynx: the anchor) unpacked.
  const double full_s = low_done + f.decode_kernels.decode_seconds(elements, false);
  const double first_usable_s =
      protocol.speculates() ? high_done + f.decode_kernels.decode_seconds(elements, true) : full_s;
  switch (inputs_.config.transfer.adaptive_objective) {
    case AdaptiveObjective::ttft_spec:
      return first_usable_s;
    case AdaptiveObjective::ttft:
      return full_s;
    case AdaptiveObjective::ttft_correct:
      break;
  }
  const double kept = protocol.speculates() ? f.acceptance.probability(1, 1, tokens) : 0.0;
  return kept * first_usable_s + (1 - kept) * full_s;
}

void FormatChooser::assign(RequestState& r, int prefill_node, int decode_node) {
  std::vector<StreamBytes> bytes(candidates_.size(), StreamBytes{});
  for (size_t k = 0; k < candidates_.size(); ++k)
    for (int s = 0; s < candidates_[k]->stream_count(); ++s)
      bytes[k][static_cast<size_t>(s)] = transfer_.stream_bytes(*candidates_[k], r.request.input_tokens, s);
  const double reference = predicted_objective_s(r, 0, bytes[0], prefill_node, decode_node);
  size_t best = 0;
  double best_s = reference;
  for (size_t k = 1; k < candidates_.size(); ++k) {
    const double s = predicted_objective_s(r, static_cast<int>(k), bytes[k], prefill_node, decode_node);
    if (s < best_s) best = k, best_s = s;
  }
  if (best != 0 && reference < inputs_.config.transfer.adaptive_min_gain * best_s) best = 0;
  // Committed to its route: its bytes join the load until they are delivered.
  r.protocol = candidates_[best];
  ++chosen_[best];
  for (int s = 0; s < r.protocol->stream_count(); ++s) {
    const uint64_t b = bytes[best][static_cast<size_t>(s)];
    r.undelivered_bytes[static_cast<size_t>(s)] = b;
    add(r, s, static_cast<double>(b), b > 0 ? 1 : 0, prefill_node, decode_node);
  }
}

void FormatChooser::add(const RequestState& r, int stream, double bytes, int64_t requests, int prefill_node,
                       int decode_node) {
  const bool high = high_class(*r.protocol, stream);
  for (Backlog* b : route(prefill_node, decode_node)) {
    if (b == nullptr) continue;
    (high ? b->high_bytes : b->low_bytes) += bytes;
    if (!high) b->low_requests += requests;
  }
}

void FormatChooser::delivered(RequestState& r, int stream, uint64_t bytes, int prefill_node, int decode_node) {
  uint64_t& left = r.undelivered_bytes[static_cast<size_t>(stream)];
  if (bytes > left)
    throw_internal_error("request %lld: stream %d delivered more than it carries", static_cast<long long>(r.request.id),
                         stream);
  left -= bytes;
  add(r, stream, -static_cast<double>(bytes), left == 0 && bytes > 0 ? -1 : 0, prefill_node, decode_node);
}

}  // namespace lynx
