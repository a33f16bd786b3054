#include "sim/simulation.hpp"

#include <chrono>
#include <memory>

#include "common/error.hpp"
#include "models/kv_size.hpp"
#include "sim/decode_instance.hpp"
#include "sim/event_loop.hpp"
#include "sim/input_checks.hpp"
#include "sim/prefill_instance.hpp"
#include "sim/sim_context.hpp"

namespace lynx {

namespace {

// Wires the instances, the router and the transfer engine together for one run.
class ClusterSimulation {
 public:
  explicit ClusterSimulation(const SimulationInputs& inputs) : inputs_(inputs) {
    const SimConfig& c = inputs.config;
    std::vector<std::string> names;
    for (int i = 0; i < c.prefill.instances; ++i) names.push_back("prefill" + std::to_string(i));
    for (int i = 0; i < c.decode.instances; ++i) names.push_back("decode" + std::to_string(i));
    loop_ = std::make_unique<EventLoop>(c.network, names);
    requests_.resize(inputs.requests.size());
    for (size_t i = 0; i < inputs.requests.size(); ++i) {
      requests_[i].request = inputs.requests[i];
      RequestRecord& rec = requests_[i].record;
      rec.id = inputs.requests[i].id;
      rec.arrival_s = inputs.requests[i].arrival_s;
      rec.input_tokens = inputs.requests[i].input_tokens;
      rec.output_tokens = inputs.requests[i].output_tokens;
    }
    context_.loop = loop_.get();
    context_.inputs = &inputs_;
    context_.chunks = static_cast<int>((inputs.model.n_layers + c.transfer.chunk_layers - 1) / c.transfer.chunk_layers);
    context_.on_chunk_ready = [this](RequestState& r, int chunk) { on_chunk_ready(r, chunk); };
    context_.on_memory_granted = [this](RequestState& r) { send_ready_chunks(r); };
    for (int i = 0; i < c.prefill.instances; ++i) prefill_.emplace_back(std::make_unique<PrefillInstance>(i, i, context_));
    for (int i = 0; i < c.decode.instances; ++i)
      decode_.emplace_back(std::make_unique<DecodeInstance>(i, c.prefill.instances + i, context_));
  }

  SimulationResult run() {
    for (RequestState& r : requests_) loop_->at(r.request.arrival_s, [this, &r] { on_arrival(r); });
    loop_->run();
    SimulationResult result;
    for (const RequestState& r : requests_) {
      if (!r.done) throw_error("request %lld did not complete", static_cast<long long>(r.request.id));
      result.records.push_back(r.record);
      result.makespan_s = std::max(result.makespan_s, r.record.end_s);
      result.bytes_expected += model_kv_bytes(inputs_.model, inputs_.format, r.request.input_tokens).total();
    }
    result.flows = loop_->flows_delivered();
    result.bytes_sent = loop_->bytes_sent();
    result.bytes_delivered = loop_->bytes_delivered();
    return result;
  }

 private:
  void on_arrival(RequestState& r) {
    PrefillInstance& p = *prefill_[static_cast<size_t>(choose_prefill())];
    decode_[static_cast<size_t>(choose_decode())]->assign(r);
    p.enqueue(r);
  }

  int choose_prefill() {
    if (inputs_.config.router == "round-robin") return static_cast<int>(next_prefill_++ % prefill_.size());
    int best = 0;
    for (size_t i = 1; i < prefill_.size(); ++i)
      if (prefill_[i]->outstanding_tokens() < prefill_[static_cast<size_t>(best)]->outstanding_tokens())
        best = static_cast<int>(i);
    return best;
  }

  int choose_decode() {
    if (inputs_.config.router == "round-robin") return static_cast<int>(next_decode_++ % decode_.size());
    int best = 0;
    for (size_t i = 1; i < decode_.size(); ++i)
      if (decode_[i]->load_bytes() < decode_[static_cast<size_t>(best)]->load_bytes()) best = static_cast<int>(i);
    return best;
  }

  void on_chunk_ready(RequestState& r, int chunk) {
    r.ready_chunks.push_back(chunk);
    DecodeInstance& d = *decode_[static_cast<size_t>(r.record.decode_instance)];
    if (!r.memory_requested) d.request_memory(r);  // may grant at once and send
    else if (r.memory_granted) send_ready_chunks(r);
  }

  void send_ready_chunks(RequestState& r) {
    for (int chunk : r.ready_chunks) {
      if (std::isnan(r.record.transfer_start_s)) r.record.transfer_start_s = loop_->now();
      r.anchor.queue.push_back(chunk);
      if (inputs_.format.residual_bits > 0) r.residual.queue.push_back(chunk);
    }
    r.ready_chunks.clear();
    pump(r, true);
    pump(r, false);
  }

  // Sends the next chunk of one of the request's streams if that connection is idle. The anchor stream (every
  // chunk of a single-stream format) is weighted above residuals for Lynx.
  void pump(RequestState& r, bool anchor) {
    RequestState::Stream& stream = anchor ? r.anchor : r.residual;
    if (stream.sending || stream.queue.empty()) return;
    const int chunk = stream.queue.front();
    stream.queue.pop_front();
    stream.sending = true;
    const KvStreamBytes bytes = chunk_bytes(r, chunk);
    const double weight = anchor && inputs_.format.is_lynx() ? inputs_.config.transfer.anchor_weight : 1.0;
    DecodeInstance& d = *decode_[static_cast<size_t>(r.record.decode_instance)];
    loop_->send(source_node(r), d.node(), anchor ? bytes.anchor : bytes.residual, weight,
                [this, &r, &stream, anchor] {
                  stream.sending = false;
                  pump(r, anchor);
                },
                [this, &r, &d, &stream, anchor] {
                  if (++stream.arrived < context_.chunks) return;
                  if (anchor) {
                    r.record.anchor_arrival_s = loop_->now();
                    d.on_kv_ready(r);
                  } else {
                    r.record.residual_arrival_s = loop_->now();
                    r.residual_ready = true;
                    if (r.joined) d.on_residual_ready(r);
                  }
                });
  }

  KvStreamBytes chunk_bytes(const RequestState& r, int chunk) const {
    return layers_kv_bytes(inputs_.model, inputs_.format, r.request.input_tokens, context_.chunk_layer_count(chunk));
  }
  int source_node(const RequestState& r) const {
    return prefill_[static_cast<size_t>(r.record.prefill_instance)]->node();
  }

  const SimulationInputs& inputs_;
  std::unique_ptr<EventLoop> loop_;
  std::vector<RequestState> requests_;
  SimContext context_;
  std::vector<std::unique_ptr<PrefillInstance>> prefill_;
  std::vector<std::unique_ptr<DecodeInstance>> decode_;
  uint64_t next_prefill_ = 0, next_decode_ = 0;
};

}  // namespace

SimulationResult simulate(const SimulationInputs& inputs) {
  const auto start = std::chrono::steady_clock::now();
  check_simulation_inputs(inputs);  // before SimGrid's engine exists
  ClusterSimulation simulation(inputs);
  SimulationResult result = simulation.run();
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace lynx
