#include "sim/simulation.hpp"

#include <chrono>
#include <cstdio>
#include <deque>
#include <memory>
#include <optional>
#include <unordered_map>

#include "common/error.hpp"
#include "models/kv_size.hpp"
#include "sim/decode_instance.hpp"
#include "sim/event_loop.hpp"
#include "sim/input_checks.hpp"
#include "sim/nic_shares.hpp"
#include "sim/prefill_instance.hpp"
#include "sim/sim_context.hpp"

namespace lynx {

namespace {

// The least-loaded instance in O(log n): a tournament tree over the instances' loads whose winner is the smallest
// load, the lowest index among equals (what a scan keeping the first strict minimum picks).
template <typename T>
class LeastLoaded {
 public:
  explicit LeastLoaded(size_t n) : size_(1) {
    while (size_ < n) size_ *= 2;
    load_.assign(n, T{});
    winner_.assign(2 * size_, -1);
    for (size_t i = 0; i < n; ++i) winner_[size_ + i] = static_cast<int>(i);
    for (size_t k = size_ - 1; k >= 1; --k) winner_[k] = better(winner_[2 * k], winner_[2 * k + 1]);
  }
  void set(int i, T load) {
    load_[static_cast<size_t>(i)] = load;
    for (size_t k = (size_ + static_cast<size_t>(i)) / 2; k >= 1; k /= 2) winner_[k] = better(winner_[2 * k], winner_[2 * k + 1]);
  }
  int best() const { return winner_[1]; }

 private:
  int better(int a, int b) const {
    if (a < 0) return b;
    if (b < 0) return a;
    return load_[static_cast<size_t>(b)] < load_[static_cast<size_t>(a)] ? b : a;  // a < b: ties keep a
  }
  size_t size_;
  std::vector<T> load_;
  std::vector<int> winner_;
};

// Wires the instances, the router and the transfer engine together for one run.
class ClusterSimulation {
 public:
  ClusterSimulation(const SimulationInputs& inputs, const RecordSink* sink) : inputs_(inputs), sink_(sink) {
    const SimConfig& c = inputs.config;
    const std::vector<PlatformNode> nodes = cluster_platform_nodes(c);
    loop_ = std::make_unique<EventLoop>(c.network, nodes);
    nic_shares_ = nic_flow_shares(c.prefill.tensor_parallel, nodes.front().nics, c.decode.tensor_parallel,
                                  nodes.back().nics);
    protocol_ = transfer_protocol_for(inputs_);
    context_.loop = loop_.get();
    context_.inputs = &inputs_;
    context_.protocol = protocol_.get();
    context_.chunks = static_cast<int>((inputs.model.n_layers + c.transfer.chunk_layers - 1) / c.transfer.chunk_layers);
    context_.on_chunk_ready = [this](RequestState& r, int chunk) { on_chunk_ready(r, chunk); };
    context_.on_memory_granted = [this](RequestState& r) { send_ready_chunks(r); };
    context_.on_done = [this](RequestState& r) { on_done(r); };
    for (int i = 0; i < c.prefill.instances; ++i) prefill_.emplace_back(std::make_unique<PrefillInstance>(i, i, context_));
    for (int i = 0; i < c.decode.instances; ++i)
      decode_.emplace_back(std::make_unique<DecodeInstance>(i, c.prefill.instances + i, context_));
    prefill_load_ = std::make_unique<LeastLoaded<int64_t>>(prefill_.size());
    decode_load_ = std::make_unique<LeastLoaded<double>>(decode_.size());
    prefill_dirty_.assign(prefill_.size(), false);
  }

  SimulationResult run() {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> flow_log(nullptr, &std::fclose);
    if (!inputs_.flow_log_path.empty()) {
      flow_log.reset(std::fopen(inputs_.flow_log_path.c_str(), "wb"));
      if (!flow_log) throw_error("%s: cannot write the flow log", inputs_.flow_log_path.c_str());
      loop_->on_send = [this, file = flow_log.get()](int src, int dst, uint64_t bytes, double weight) {
        const FlowLogEntry e{loop_->now(), src, dst, bytes, weight};
        std::fwrite(&e, sizeof e, 1, file);
      };
    }
    schedule_next_arrival();
    loop_->run();
    loop_->on_send = nullptr;
    if (!in_flight_.empty()) {
      const RequestState& r = *in_flight_.begin()->second;
      throw_error("request %lld did not complete (left %s)", static_cast<long long>(r.request.id),
                  request_phase_name(r.phase));
    }
    result_.flows = loop_->flows_delivered();
    result_.bytes_sent = loop_->bytes_sent();
    result_.bytes_delivered = loop_->bytes_delivered();
    return std::move(result_);
  }

 private:
  // The workload is read one request ahead: the next arrival is queued when the previous one happens.
  bool next_request(Request& r) {
    if (inputs_.request_source) {
      if (!inputs_.request_source(r)) return false;
      check_request(inputs_, r);
      return true;
    }
    if (next_index_ >= inputs_.requests.size()) return false;
    r = inputs_.requests[next_index_];
    return true;
  }

  void schedule_next_arrival() {
    auto state = std::make_unique<RequestState>();
    if (!next_request(state->request)) return;
    state->sequence = static_cast<int64_t>(next_index_++);
    RequestRecord& rec = state->record;
    rec.id = state->request.id;
    rec.arrival_s = state->request.arrival_s;
    rec.input_tokens = state->request.input_tokens;
    rec.output_tokens = state->request.output_tokens;
    RequestState* r = state.get();
    in_flight_.emplace(r->sequence, std::move(state));
    loop_->at_first(r->request.arrival_s, static_cast<uint64_t>(r->sequence), [this, r] {
      schedule_next_arrival();
      on_arrival(*r);
    });
  }

  // A finished request: its record leaves in workload order, then its state is freed.
  void on_done(RequestState& r) {
    result_.requests += 1;
    const int di = r.record.decode_instance;
    decode_load_->set(di, decode_[static_cast<size_t>(di)]->load_bytes());
    result_.makespan_s = std::max(result_.makespan_s, r.record.end_s);
    result_.bytes_expected += model_kv_bytes(inputs_.model, inputs_.format, r.request.input_tokens).total();
    const auto offset = static_cast<size_t>(r.sequence - next_record_);
    if (finished_.size() <= offset) finished_.resize(offset + 1);
    finished_[offset] = std::move(r.record);
    in_flight_.erase(r.sequence);
    while (!finished_.empty() && finished_.front()) {
      if (sink_ != nullptr)
        (*sink_)(*finished_.front());
      else
        result_.records.push_back(std::move(*finished_.front()));
      finished_.pop_front();
      ++next_record_;
    }
  }

  void on_arrival(RequestState& r) {
    const int pi = choose_prefill(r), di = choose_decode();
    PrefillInstance& p = *prefill_[static_cast<size_t>(pi)];
    decode_[static_cast<size_t>(di)]->assign(r);
    p.enqueue(r);
    decode_load_->set(di, decode_[static_cast<size_t>(di)]->load_bytes());
    prefill_load_->set(pi, p.outstanding_tokens());
  }

  // A prefill instance's outstanding tokens fall in the handler that hands over a prompt's last chunk: its entry is
  // refreshed before the next choice.
  void mark_prefill_load(int i) {
    if (prefill_dirty_[static_cast<size_t>(i)]) return;
    prefill_dirty_[static_cast<size_t>(i)] = true;
    prefill_dirty_list_.push_back(i);
  }

  int choose_prefill(const RequestState& r) {
    if (inputs_.config.router == "round-robin") return static_cast<int>(next_prefill_++ % prefill_.size());
    // least-loaded: fewest outstanding prompt tokens; prefix-aware: the longest cached prefix first, then that.
    const bool prefix_aware = inputs_.config.router == "prefix-aware";
    if (!prefix_aware) {
      for (int i : prefill_dirty_list_) {
        prefill_dirty_[static_cast<size_t>(i)] = false;
        prefill_load_->set(i, prefill_[static_cast<size_t>(i)]->outstanding_tokens());
      }
      prefill_dirty_list_.clear();
      return prefill_load_->best();
    }
    int best = 0;
    int64_t best_blocks = prefix_aware ? prefill_[0]->cached_blocks(r) : 0;
    for (size_t i = 1; i < prefill_.size(); ++i) {
      const int64_t blocks = prefix_aware ? prefill_[i]->cached_blocks(r) : 0;
      const PrefillInstance& b = *prefill_[static_cast<size_t>(best)];
      if (blocks > best_blocks ||
          (blocks == best_blocks && prefill_[i]->outstanding_tokens() < b.outstanding_tokens())) {
        best = static_cast<int>(i);
        best_blocks = blocks;
      }
    }
    return best;
  }

  int choose_decode() {
    if (inputs_.config.router == "round-robin") return static_cast<int>(next_decode_++ % decode_.size());
    return decode_load_->best();
  }

  void on_chunk_ready(RequestState& r, int chunk) {
    if (chunk == context_.chunks - 1) mark_prefill_load(r.record.prefill_instance);
    r.ready_chunks.push_back(chunk);
    if (r.phase == RequestPhase::prefilling)
      decode_[static_cast<size_t>(r.record.decode_instance)]->request_memory(r);  // may grant at once and send
    else if (r.phase != RequestPhase::awaiting_memory)
      send_ready_chunks(r);
  }

  void send_ready_chunks(RequestState& r) {
    const int streams = protocol_->stream_count();
    for (int chunk : r.ready_chunks) {
      if (std::isnan(r.record.transfer_start_s)) start_transfer(r);
      for (int s = 0; s < streams; ++s) r.streams[static_cast<size_t>(s)].queue.push_back(chunk);
    }
    r.ready_chunks.clear();
    for (int s = 0; s < streams; ++s) pump(r, s);
  }

  void start_transfer(RequestState& r) {
    r.record.transfer_start_s = loop_->now();
    for (int s = 0; s < protocol_->stream_count(); ++s) {
      const double after_s = protocol_->stream_reweight_after_s(s);
      if (after_s < 0) continue;
      loop_->at(loop_->now() + after_s, [this, sequence = r.sequence, s] {
        auto it = in_flight_.find(sequence);
        if (it == in_flight_.end()) return;  // done (and freed) before its residual's weight was due to change
        RequestState& request = *it->second;
        RequestState::Stream& stream = request.streams[static_cast<size_t>(s)];
        const double weight = protocol_->stream_weight(request, s, loop_->now());
        for (const void* flow : stream.sending) loop_->reweight(flow, weight);
      });
    }
  }

  // Sends the next chunk of one of the request's streams if that connection is idle, with the stream's weight:
  // one flow per NIC pair of the two instances (nic_shares.hpp).
  void pump(RequestState& r, int s) {
    RequestState::Stream& stream = r.streams[static_cast<size_t>(s)];
    if (stream.flows_sending > 0 || stream.queue.empty()) return;
    const int chunk = stream.queue.front();
    stream.queue.pop_front();
    ++stream.chunks_issued;
    DecodeInstance& d = *decode_[static_cast<size_t>(r.record.decode_instance)];
    const Platform& platform = loop_->platform();
    const int src = platform.first_endpoint[static_cast<size_t>(source_node(r))];
    const int dst = platform.first_endpoint[static_cast<size_t>(d.node())];
    const std::vector<uint64_t> bytes = split_bytes(protocol_->stream_bytes(s, chunk_bytes(r, chunk)), nic_shares_);
    const double weight = protocol_->stream_weight(r, s, loop_->now());
    for (size_t k = 0; k < bytes.size(); ++k) {
      if (bytes[k] == 0) continue;
      ++stream.flows_sending;
      ++stream.flows_issued;
      // The flow's handle, known once send returns, leaves `sending` when the flow's last byte is out.
      auto handle = std::make_shared<const void*>(nullptr);
      *handle = loop_->send(src + nic_shares_[k].src_nic, dst + nic_shares_[k].dst_nic, bytes[k], weight,
                  [this, &r, &stream, s, handle] {
                    stream.sending.erase(std::find(stream.sending.begin(), stream.sending.end(), *handle));
                    if (--stream.flows_sending > 0) return;
                    if (stream.chunks_issued == context_.chunks && stream.queue.empty() &&
                        ++r.streams_sent == protocol_->stream_count())
                      prefill_[static_cast<size_t>(r.record.prefill_instance)]->release(r);
                    pump(r, s);
                  },
                  [this, &r, &d, &stream, s] {
                    ++stream.flows_delivered;
                    if (stream.chunks_issued < context_.chunks || stream.flows_delivered < stream.flows_issued) return;
                    const StreamEvent event = protocol_->on_stream_complete(r, s, loop_->now());
                    if (event == StreamEvent::kv_usable) d.on_kv_ready(r);
                    else if (event == StreamEvent::replan) d.replan_for(r);
                  });
      stream.sending.push_back(*handle);
    }
  }

  KvStreamBytes chunk_bytes(const RequestState& r, int chunk) const {
    return layers_kv_bytes(inputs_.model, inputs_.format, r.request.input_tokens, context_.chunk_layer_count(chunk));
  }
  int source_node(const RequestState& r) const {
    return prefill_[static_cast<size_t>(r.record.prefill_instance)]->node();
  }

  const SimulationInputs& inputs_;
  std::unique_ptr<TransferProtocol> protocol_;
  std::vector<NicFlowShare> nic_shares_;  // the same for every request: the pools' tp and NICs
  std::unique_ptr<EventLoop> loop_;
  const RecordSink* sink_ = nullptr;
  SimulationResult result_;
  size_t next_index_ = 0;                                                // requests read so far
  std::unordered_map<int64_t, std::unique_ptr<RequestState>> in_flight_;  // by sequence
  std::deque<std::optional<RequestRecord>> finished_;                    // from sequence next_record_ on
  int64_t next_record_ = 0;
  SimContext context_;
  std::vector<std::unique_ptr<PrefillInstance>> prefill_;
  std::vector<std::unique_ptr<DecodeInstance>> decode_;
  uint64_t next_prefill_ = 0, next_decode_ = 0;
  std::unique_ptr<LeastLoaded<int64_t>> prefill_load_;  // outstanding prompt tokens
  std::unique_ptr<LeastLoaded<double>> decode_load_;    // assigned KV bytes
  std::vector<bool> prefill_dirty_;
  std::vector<int> prefill_dirty_list_;
};

}  // namespace

std::vector<PlatformNode> cluster_platform_nodes(const SimConfig& c) {
  const int prefill_nics = c.network.nics_per_instance > 0 ? c.network.nics_per_instance : c.prefill.tensor_parallel;
  const int decode_nics = c.network.nics_per_instance > 0 ? c.network.nics_per_instance : c.decode.tensor_parallel;
  std::vector<PlatformNode> nodes;
  for (int i = 0; i < c.prefill.instances; ++i) nodes.push_back({"prefill" + std::to_string(i), prefill_nics});
  for (int i = 0; i < c.decode.instances; ++i) nodes.push_back({"decode" + std::to_string(i), decode_nics});
  return nodes;
}

namespace {
SimulationResult simulate_with(const SimulationInputs& inputs, const RecordSink* sink) {
  const auto start = std::chrono::steady_clock::now();
  check_simulation_inputs(inputs);  // before SimGrid's engine exists
  ClusterSimulation simulation(inputs, sink);
  SimulationResult result = simulation.run();
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}
}  // namespace

SimulationResult simulate(const SimulationInputs& inputs) { return simulate_with(inputs, nullptr); }

SimulationResult simulate(const SimulationInputs& inputs, const RecordSink& on_record) {
  return simulate_with(inputs, &on_record);
}

}  // namespace lynx
