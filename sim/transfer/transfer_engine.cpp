#include "sim/transfer/transfer_engine.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "common/error.hpp"
#include "models/arch/kv_size.hpp"

namespace lynx {

TransferEngine::TransferEngine(const SimContext& context, TransferEnds& ends, int prefill_nics, int decode_nics)
    : context_(context), loop_(*context.loop), ends_(ends) {
  const SimConfig& c = context.inputs->config;
  nic_shares_ = kv_flow_shares(kv_shard_heads(context.inputs->model), c.prefill.tensor_parallel, prefill_nics,
                               c.decode.tensor_parallel, decode_nics, c.transfer.cost.replicated_kv);
}

TransferEngine::~TransferEngine() = default;

void TransferEngine::chunk_ready(RequestState& r, int chunk) {
  if (chunk != r.chunks_ready)
    throw_internal_error("request %lld: chunk %d ready after %d chunks (they come in order, once each)",
                         static_cast<long long>(r.request.id), chunk, r.chunks_ready);
  ++r.chunks_ready;
  if (r.phase == RequestPhase::prefilling)
    ends_.request_decode_memory(r);  // may grant at once and send
  else if (r.phase != RequestPhase::awaiting_memory)
    memory_granted(r);
}

void TransferEngine::memory_granted(RequestState& r) {
  if (r.chunks_granted < r.chunks_ready && std::isnan(r.record.transfer_start_s)) start_transfer(r);
  r.chunks_granted = r.chunks_ready;  // every stream's next chunks
  const int streams = context_.protocol_of(r).stream_count();
  for (int s = 0; s < streams; ++s) pump(r, s);
}

void TransferEngine::start_transfer(RequestState& r) {
  r.record.transfer_start_s = loop_.now();
  const TransferProtocol& protocol = context_.protocol_of(r);
  for (int s = 0; s < protocol.stream_count(); ++s) {
    const double after_s = protocol.stream_reweight_after_s(s);
    if (after_s < 0) continue;
    sending_.emplace(r.sequence, &r);  // only requests with a weight change due are tracked
    loop_.at(loop_.now() + after_s, [this, sequence = r.sequence, s] {
      auto it = sending_.find(sequence);
      if (it == sending_.end()) return;  // every stream sent before its weight was due to change
      RequestState& request = *it->second;
      RequestState::Stream& stream = request.streams[static_cast<size_t>(s)];
      const double weight = context_.protocol_of(request).stream_weight(request, s, loop_.now());
      for (const void* flow : stream.sending) loop_.reweight(flow, weight);
    });
  }
}

// Sends the next chunk of one of the request's streams if that connection is idle: one flow per NIC pair of the
// two instances (nic_shares.hpp), each capped by its connector's message pipeline (its rate bound), with the stream's
// weight when it starts; the stream's first chunk waits for the transfer's setup cost (transfer_cost.hpp).
void TransferEngine::pump(RequestState& r, int s) {
  RequestState::Stream& stream = r.streams[static_cast<size_t>(s)];
  if (stream.flows_sending > 0 || stream.chunks_issued == r.chunks_granted) return;
  const int chunk = stream.chunks_issued;
  const TransferCost& cost = context_.inputs->config.transfer.cost;
  const double setup_s = stream.chunks_issued == 0 ? cost.setup_us * 1e-6 : 0.0;
  ++stream.chunks_issued;
  const Platform& platform = loop_.platform();
  const int src = platform.first_endpoint[static_cast<size_t>(ends_.prefill_node(r))];
  const int dst = platform.first_endpoint[static_cast<size_t>(ends_.decode_node(r))];
  const RequestState::Stream::ChunkFlows& flows = chunk_flows(r, stream, s, chunk);
  for (size_t k = 0; k < flows.bytes.size(); ++k) {
    const uint64_t bytes = flows.bytes[k];
    if (bytes == 0) continue;
    ++stream.flows_sending;
    ++stream.flows_issued;
    const int from = src + nic_shares_[k].src_nic, to = dst + nic_shares_[k].dst_nic;
    const double bound = flows.rate_bounds[k];
    if (setup_s > 0)
      loop_.at(loop_.now() + setup_s, [this, &r, s, from, to, bytes, bound] { start_flow(r, s, from, to, bytes, bound); });
    else
      start_flow(r, s, from, to, bytes, bound);  // pumps nothing now: this stream's flows_sending is counted above
  }
}

// The flows of one chunk of stream `s`: its last chunk's, when it held the same layers' tokens (the same number of
// layers and no sliding window, or the same layers), else computed into the stream's cache.
const RequestState::Stream::ChunkFlows& TransferEngine::chunk_flows(const RequestState& r,
                                                                    RequestState::Stream& stream, int s,
                                                                    int chunk) const {
  RequestState::Stream::ChunkFlows& flows = stream.last_chunk;
  const int64_t first = context_.chunk_first_layer(chunk), layers = context_.chunk_layer_count(chunk);
  const bool same_layers = context_.inputs->model.sliding_window == 0 || first == flows.first_layer;
  if (layers == flows.layers && same_layers) return flows;
  chunk_flow_bytes(context_.protocol_of(r), r.request.input_tokens, s, chunk, flows.bytes);
  flows.messages.resize(flows.bytes.size());
  flows.rate_bounds.resize(flows.bytes.size());
  const TransferCost& cost = context_.inputs->config.transfer.cost;
  const double line_bytes_per_s = context_.inputs->config.network.nic_gbps * 1e9 / 8;
  for (size_t k = 0; k < flows.bytes.size(); ++k) {
    flows.messages[k] = chunk_flow_messages(r, chunk, nic_shares_[k].gpu_pairs, flows.bytes[k]);
    flows.rate_bounds[k] = flow_rate_bound(cost, flows.messages[k], nic_shares_[k].gpu_pairs,
                                           static_cast<double>(flows.bytes[k]), line_bytes_per_s);
  }
  flows.first_layer = first;
  flows.layers = layers;
  return flows;
}

namespace {
static_assert(std::tuple_size_v<decltype(RequestState::streams)> == 2 && alignof(RequestState) >= 2,
              "a flow's tag holds its stream in the low bit of its request's address");
uint64_t flow_tag(RequestState& r, int s) { return reinterpret_cast<uintptr_t>(&r) | static_cast<uintptr_t>(s); }
RequestState& tag_request(uint64_t tag) {
  return *reinterpret_cast<RequestState*>(static_cast<uintptr_t>(tag & ~uint64_t{1}));
}
int tag_stream(uint64_t tag) { return static_cast<int>(tag & 1); }
}  // namespace

void TransferEngine::start_flow(RequestState& r, int s, int src, int dst, uint64_t bytes, double rate_bound) {
  const EventLoop::FlowHandle flow = loop_.send(src, dst, bytes, context_.protocol_of(r).stream_weight(r, s, loop_.now()),
                                                *this, flow_tag(r, s), rate_bound);
  r.streams[static_cast<size_t>(s)].sending.push_back(flow);
}

void TransferEngine::flow_sent(uint64_t tag) { on_flow_sent(tag_request(tag), tag_stream(tag)); }

void TransferEngine::flow_delivered(uint64_t tag, uint64_t bytes) {
  on_flow_delivered(tag_request(tag), tag_stream(tag), bytes);
}

// One flow of the stream's chunk has pushed its last byte. `sending` keeps the chunk's handles until its last flow
// is out (a handle whose flow has ended is refused by reweight, so the ones still sending are re-weighted alone).
void TransferEngine::on_flow_sent(RequestState& r, int s) {
  RequestState::Stream& stream = r.streams[static_cast<size_t>(s)];
  if (--stream.flows_sending > 0) return;
  stream.sending.clear();
  if (stream.chunks_issued == context_.chunks &&
      ++r.streams_sent == context_.protocol_of(r).stream_count()) {
    if (!sending_.empty()) sending_.erase(r.sequence);
    ends_.kv_sent(r);
  }
  pump(r, s);
}

void TransferEngine::on_flow_delivered(RequestState& r, int s, uint64_t bytes) {
  RequestState::Stream& stream = r.streams[static_cast<size_t>(s)];
  ++stream.flows_delivered;
  ends_.kv_bytes_delivered(r, s, bytes);
  if (stream.chunks_issued < context_.chunks || stream.flows_delivered < stream.flows_issued) return;
  const double notify_s = context_.inputs->config.transfer.cost.notify_us * 1e-6;
  if (notify_s > 0)
    loop_.at(loop_.now() + notify_s, [this, &r, s] { stream_complete(r, s); });
  else
    stream_complete(r, s);
}

// A stream's last byte has arrived and its completion been notified.
void TransferEngine::stream_complete(RequestState& r, int s) {
  const StreamEvent event = context_.protocol_of(r).on_stream_complete(r, s, loop_.now());
  if (event == StreamEvent::kv_usable) ends_.kv_usable(r);
  else if (event == StreamEvent::replan) ends_.kv_changed(r);
}

// The messages of one flow of a chunk: per layer, the blocks of the tokens it holds (a sliding-window layer only
// its window), for each of the model's KV tensors (K and V; MLA's one latent) and GPU pair. Layers that hold the same
// tokens are counted together; a sliding-window chunk splits the flow's bytes among its layers by tokens held (the
// block's bytes, which coalescing needs, are the same in every layer).
int64_t TransferEngine::chunk_flow_messages(const RequestState& r, int chunk, int64_t gpu_pairs,
                                            uint64_t flow_bytes) const {
  const ModelSpec& model = context_.inputs->model;
  const TransferCost& cost = context_.inputs->config.transfer.cost;
  const int64_t tensors = kv_tensors_per_layer(model), tokens = r.request.input_tokens;
  const int64_t first = context_.chunk_first_layer(chunk), layers = context_.chunk_layer_count(chunk);
  if (model.sliding_window == 0) return flow_messages(cost, tokens, layers, tensors, gpu_pairs, flow_bytes);
  double held_total = 0;
  for (int64_t l = first; l < first + layers; ++l) held_total += static_cast<double>(layer_kv_tokens(model, l, tokens));
  int64_t messages = 0;
  for (int64_t l = first; l < first + layers; ++l) {
    const int64_t held = layer_kv_tokens(model, l, tokens);
    const auto layer_bytes = static_cast<uint64_t>(std::llround(static_cast<double>(flow_bytes) *
                                                                static_cast<double>(held) / held_total));
    messages += flow_messages(cost, held, 1, tensors, gpu_pairs, layer_bytes);
  }
  return messages;
}

void TransferEngine::chunk_flow_bytes(const TransferProtocol& protocol, int64_t prompt_tokens, int stream, int chunk,
                                      std::vector<uint64_t>& bytes) const {
  const KvStreamBytes layer_bytes = layers_kv_bytes(context_.inputs->model, protocol.format().format, prompt_tokens,
                                                    context_.chunk_first_layer(chunk), context_.chunk_layer_count(chunk));
  split_bytes(protocol.stream_bytes(stream, layer_bytes), nic_shares_, bytes);
}

uint64_t TransferEngine::stream_bytes(const TransferProtocol& protocol, int64_t prompt_tokens, int stream) const {
  uint64_t total = 0;
  std::vector<uint64_t> bytes;
  for (int chunk = 0; chunk < context_.chunks; ++chunk) {
    chunk_flow_bytes(protocol, prompt_tokens, stream, chunk, bytes);
    for (uint64_t b : bytes) total += b;
  }
  return total;
}

}  // namespace lynx
