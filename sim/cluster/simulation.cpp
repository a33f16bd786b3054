#include "sim/cluster/simulation.hpp"

#include <chrono>
#include <cstdio>
#include <deque>
#include <memory>
#include <optional>
#include <unordered_map>

#include <sanitizer/asan_interface.h>  // ASAN_(UN)POISON_MEMORY_REGION: nothing unless built with AddressSanitizer

#include "common/error.hpp"
#include "models/arch/kv_size.hpp"
#include "sim/network/cross_traffic.hpp"
#include "sim/cluster/capacity.hpp"
#include "sim/cluster/colocated_instance.hpp"
#include "sim/cluster/decode_instance.hpp"
#include "sim/engine/event_loop.hpp"
#include "sim/transfer/format_policy.hpp"
#include "sim/config/input_checks.hpp"
#include "sim/cluster/prefill_instance.hpp"
#include "sim/cluster/router.hpp"
#include "sim/cluster/sim_context.hpp"
#include "sim/transfer/transfer_engine.hpp"

namespace lynx {

namespace {

// Finished requests' states, reset (RequestState::reset keeps their containers' storage), for later arrivals: once
// as many states exist as requests are in flight at once, a request allocates nothing of its own. Every build runs
// this path. Under AddressSanitizer a state's memory is poisoned while it waits here, so that a handler that still
// reaches a finished request's state is reported (use-after-poison) as it would be for a freed state; once a later
// arrival takes it, such a handler would see that request's state: SimulationInputs::reuse_request_states = false
// frees each finished state instead, and tests/sim/test_state_reuse.cpp runs both ways and compares the results.
class SpareStates {
 public:
  explicit SpareStates(bool reuse) : reuse_(reuse) {}
  SpareStates(const SpareStates&) = delete;
  SpareStates& operator=(const SpareStates&) = delete;
  ~SpareStates() {
    for (std::unique_ptr<RequestState>& state : spare_) ASAN_UNPOISON_MEMORY_REGION(state.get(), sizeof(RequestState));
  }

  // A finished request's state: reset and kept (or freed, without reuse).
  void give(std::unique_ptr<RequestState> state) {
    if (!reuse_) return;
    state->reset();
    ASAN_POISON_MEMORY_REGION(state.get(), sizeof(RequestState));
    spare_.push_back(std::move(state));
  }
  // A default state for the next arrival: the last one given, or a new one.
  std::unique_ptr<RequestState> take() {
    if (spare_.empty()) return std::make_unique<RequestState>();
    std::unique_ptr<RequestState> state = std::move(spare_.back());
    spare_.pop_back();
    ASAN_UNPOISON_MEMORY_REGION(state.get(), sizeof(RequestState));
    return state;
  }

 private:
  bool reuse_;
  std::vector<std::unique_ptr<RequestState>> spare_;
};

// The run: assembles the parts (event loop, protocol, instances, router, transfer engine), reads the workload one
// request ahead, routes each arrival, and hands each finished record on in workload order.
class ClusterSimulation : public PoolLoads, public TransferEnds, public RequestDoneListener {
 public:
  ClusterSimulation(const SimulationInputs& inputs, const RecordSink* sink) : inputs_(inputs), sink_(sink) {
    const SimConfig& c = inputs.config;
    const std::vector<PlatformNode> nodes = cluster_platform_nodes(c);
    int max_nics = 1;
    for (const PlatformNode& n : nodes) max_nics = std::max(max_nics, n.nics);
    loop_ = std::make_unique<EventLoop>(engine_network(c.network, c.transfer.cost, max_nics), nodes, inputs.simgrid_cfg);
    protocol_ = transfer_protocol_for(inputs_, inputs_.run_format);
    context_.loop = loop_.get();
    context_.inputs = &inputs_;
    context_.protocol = protocol_.get();
    context_.chunks = static_cast<int>((inputs.model.n_layers + c.transfer.chunk_layers - 1) / c.transfer.chunk_layers);
    context_.done = this;
    if (c.serving == ServingMode::colocated) {
      // Every instance the decode pool's kind; its KV cache in the pool's kv_cache_dtype, not the wire format.
      const KvFormat cache = kv_format_parse(c.decode.kv_cache_dtype == KvCacheDtype::fp8 ? "fp8-e4m3" : "bf16");
      const double cache_bytes_per_token = kv_bytes_per_token(inputs_, cache).full;
      for (int i = 0; i < c.colocated_instances; ++i)
        colocated_.emplace_back(std::make_unique<ColocatedInstance>(i, i, context_, *inputs_.decode_cost,
                                                                    *inputs_.decode_serving, cache_bytes_per_token));
      router_ = router_make(c.router, *this);
      context_.loads = router_.get();
    } else {
      for (int i = 0; i < c.prefill.instances; ++i) prefill_.emplace_back(std::make_unique<PrefillInstance>(i, i, context_));
      for (int i = 0; i < c.decode.instances; ++i)
        decode_.emplace_back(std::make_unique<DecodeInstance>(i, c.prefill.instances + i, context_));
      router_ = router_make(c.router, *this);  // reads the instances' loads
      context_.loads = router_.get();
      transfer_ = std::make_unique<TransferEngine>(context_, *this, nodes.front().nics, nodes.back().nics);
      context_.transfer = transfer_.get();
    }
    if (!inputs_.adaptive_candidates.empty()) {
      std::vector<const TransferProtocol*> candidates{protocol_.get()};  // the run's format first: the reference
      for (const FormatInputs& f : inputs_.adaptive_candidates) {
        candidate_protocols_.push_back(transfer_protocol_for(inputs_, f));
        candidates.push_back(candidate_protocols_.back().get());
      }
      std::vector<int> node_nics;
      for (const PlatformNode& n : nodes) node_nics.push_back(n.nics);
      format_policy_ = std::make_unique<FormatChooser>(inputs_, std::move(candidates), node_nics, *transfer_);
    }
    if (!inputs_.flow_log_path.empty()) loop_->log_flows_to(inputs_.flow_log_path);
  }

  SimulationResult run() {
    schedule_next_arrival();
    const CrossTraffic cross_traffic(*loop_, inputs_.config.network, inputs_.config.seed);
    loop_->run();
    if (!in_flight_.empty()) {
      const RequestState& r = *in_flight_.begin()->second;
      throw_internal_error("request %lld did not complete (left %s)", static_cast<long long>(r.request.id),
                           request_phase_name(r.phase));
    }
    result_.flows = loop_->flows_delivered();
    result_.bytes_sent = loop_->bytes_sent();
    result_.bytes_delivered = loop_->bytes_delivered();
    if (format_policy_) result_.format_requests = format_policy_->chosen_counts();
    result_.colocated = !colocated_.empty();
    for (const auto& instance : colocated_) result_.preemptions += static_cast<uint64_t>(instance->preemptions());
    return std::move(result_);
  }

  // PoolLoads: what the router reads.
  // (co-located: the instances stand for the prefill pool, routed by their outstanding prompt and output tokens)
  int prefill_count() const override {
    return static_cast<int>(colocated_.empty() ? prefill_.size() : colocated_.size());
  }
  int decode_count() const override { return static_cast<int>(decode_.size()); }
  int64_t prefill_outstanding_tokens(int i) const override {
    return colocated_.empty() ? prefill_[static_cast<size_t>(i)]->outstanding_tokens()
                              : colocated_[static_cast<size_t>(i)]->outstanding_tokens();
  }
  int64_t prefill_cached_blocks(int i, const Request& r) const override {
    return colocated_.empty() ? prefill_[static_cast<size_t>(i)]->cached_blocks(r) : 0;
  }
  double decode_assigned_bytes(int j) const override { return decode_[static_cast<size_t>(j)]->load_bytes(); }

  // TransferEnds: the request's own instances.
  int prefill_node(const RequestState& r) const override { return prefill_of(r).node(); }
  int decode_node(const RequestState& r) const override { return decode_of(r).node(); }
  // The decode instance learns of the request through its own front end (the P/D proxy's decode request: HTTP,
  // tokenization), then reserves its memory.
  void request_decode_memory(RequestState& r) override {
    const EngineServing* d = inputs_.decode_serving ? &*inputs_.decode_serving : nullptr;
    if (d != nullptr && d->frontend_ms + d->frontend_serial_ms > 0) {
      // Awaiting memory from now: a chunk that becomes ready while the front end holds the request (layer-wise
      // transfers) joins this request rather than making another.
      r.advance(RequestPhase::awaiting_memory);
      r.memory_requested_s = loop_->now();
      RequestState* p = &r;
      loop_->at(through_frontend(decode_frontend_free_s_, r.record.decode_instance, *d),
                [this, p] { decode_of(*p).request_memory(*p); });
    } else {
      decode_of(r).request_memory(r);
    }
  }
  void kv_sent(RequestState& r) override { prefill_of(r).release(r); }
  void kv_usable(RequestState& r) override { decode_of(r).on_kv_ready(r); }
  void kv_changed(RequestState& r) override { decode_of(r).replan_for(r); }
  void kv_bytes_delivered(RequestState& r, int stream, uint64_t bytes) override {
    if (format_policy_) format_policy_->delivered(r, stream, bytes, prefill_node(r), decode_node(r));
  }

  // A finished request: its record leaves in workload order, then its state is freed; in a closed loop its client
  // sends the next request at once.
  void request_done(RequestState& r) override {
    if (inputs_.max_concurrency > 0) {
      --clients_busy_;
      if (held_) send(std::move(held_));
    }
    result_.requests += 1;
    result_.makespan_s = std::max(result_.makespan_s, r.record.end_s);
    if (colocated_.empty()) {
      const KvFormat& format = context_.protocol_of(r).format().format;
      result_.bytes_expected += model_kv_bytes(inputs_.model, format, r.request.input_tokens).total();
    }
    const auto offset = static_cast<size_t>(r.sequence - next_record_);
    if (finished_.size() <= offset) finished_.resize(offset + 1);
    finished_[offset] = std::move(r.record);
    const auto it = in_flight_.find(r.sequence);
    spare_states_.give(std::move(it->second));
    in_flight_.erase(it);
    while (!finished_.empty() && finished_.front()) {
      if (sink_ != nullptr)
        (*sink_)(*finished_.front());
      else
        result_.records.push_back(std::move(*finished_.front()));
      finished_.pop_front();
      ++next_record_;
    }
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
    std::unique_ptr<RequestState> state = spare_states_.take();
    if (!next_request(state->request)) return;
    if (inputs_.max_concurrency > 0 && clients_busy_ >= inputs_.max_concurrency) {
      held_ = std::move(state);  // every client is waiting for a request: sent when one is done
      return;
    }
    send(std::move(state));
  }

  // The request leaves its client (at its arrival, or, in a closed loop, when a client is free: that is its arrival).
  void send(std::unique_ptr<RequestState> state) {
    if (inputs_.max_concurrency > 0) {
      ++clients_busy_;
      state->request.arrival_s = std::max(state->request.arrival_s, loop_->now());
    }
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

  void on_arrival(RequestState& r) {
    if (!colocated_.empty()) {
      const int ci = router_->choose_prefill(r.request);
      reach_engine(*colocated_[static_cast<size_t>(ci)], ci, r, inputs_.decode_serving);
      return;
    }
    const int pi = router_->choose_prefill(r.request), di = router_->choose_decode();
    if (format_policy_) {
      const int from = prefill_[static_cast<size_t>(pi)]->node(), to = decode_[static_cast<size_t>(di)]->node();
      format_policy_->assign(r, from, to);
    }
    decode_[static_cast<size_t>(di)]->assign(r);
    reach_engine(*prefill_[static_cast<size_t>(pi)], pi, r, inputs_.prefill_serving);
  }

  // The request counts in the chosen instance's load at once and reaches its engine through the engine's front end
  // (HTTP, chat template, tokenization), if it has one. Instance: PrefillInstance or ColocatedInstance.
  template <typename Instance>
  void reach_engine(Instance& instance, int index, RequestState& r, const std::optional<EngineServing>& front) {
    instance.route(r);
    if (front && front->frontend_ms + front->frontend_serial_ms > 0) {
      RequestState* p = &r;
      loop_->at(through_frontend(entry_frontend_free_s_, index, *front), [&instance, p] { instance.arrive(*p); });
    } else {
      instance.arrive(r);
    }
  }

  // An instance's front end: a part that serves one request at a time (vLLM's API server tokenizes on one thread,
  // ThreadPoolExecutor(max_workers=1), vllm issue #25301; SGLang's TokenizerManager and trtllm-serve are one Python
  // process each), where a request arriving while it is busy waits, then a latency requests take in parallel (HTTP,
  // the hops between the server's processes, the first token's way back). The time the request reaches the engine.
  double through_frontend(std::vector<double>& free_s, int instance, const EngineServing& e) {
    if (free_s.size() <= static_cast<size_t>(instance)) free_s.resize(static_cast<size_t>(instance) + 1, 0.0);
    double& free = free_s[static_cast<size_t>(instance)];
    free = std::max(free, loop_->now()) + e.frontend_serial_ms * 1e-3;
    return free + e.frontend_ms * 1e-3;
  }

  PrefillInstance& prefill_of(const RequestState& r) const {
    return *prefill_[static_cast<size_t>(r.record.prefill_instance)];
  }
  DecodeInstance& decode_of(const RequestState& r) const { return *decode_[static_cast<size_t>(r.record.decode_instance)]; }

  const SimulationInputs& inputs_;
  const RecordSink* sink_ = nullptr;
  std::unique_ptr<EventLoop> loop_;
  std::unique_ptr<TransferProtocol> protocol_;                          // the run's format's
  std::vector<std::unique_ptr<TransferProtocol>> candidate_protocols_;  // adaptive: one per other candidate format
  std::unique_ptr<FormatChooser> format_policy_;                         // adaptive: chooses each request's format
  std::unique_ptr<Router> router_;
  SimContext context_;
  std::vector<std::unique_ptr<PrefillInstance>> prefill_;
  std::vector<std::unique_ptr<DecodeInstance>> decode_;
  std::vector<std::unique_ptr<ColocatedInstance>> colocated_;  // serving colocated: these alone
  // When each instance's front end is next free (through_frontend): the entry instances' (co-located or prefill)
  // and the decode instances' (the P/D handoff).
  std::vector<double> entry_frontend_free_s_, decode_frontend_free_s_;
  std::unique_ptr<TransferEngine> transfer_;
  SimulationResult result_;
  size_t next_index_ = 0;                                                // requests sent so far
  int64_t clients_busy_ = 0;               // closed loop: clients with a request in flight
  std::unique_ptr<RequestState> held_;     // closed loop: the next request, read and waiting for a client
  std::unordered_map<int64_t, std::unique_ptr<RequestState>> in_flight_;  // by sequence
  SpareStates spare_states_{inputs_.reuse_request_states};
  std::deque<std::optional<RequestRecord>> finished_;                    // from sequence next_record_ on
  int64_t next_record_ = 0;
};

}  // namespace

std::vector<PlatformNode> cluster_platform_nodes(const SimConfig& c) {
  if (c.serving == ServingMode::colocated) {  // no KV crosses: an endpoint per instance, never used
    std::vector<PlatformNode> nodes;
    for (int i = 0; i < c.colocated_instances; ++i) nodes.push_back({"colocated" + std::to_string(i), 1, 0});
    return nodes;
  }
  const int prefill_nics = c.network.nics_per_instance > 0 ? c.network.nics_per_instance : c.prefill.tensor_parallel;
  const int decode_nics = c.network.nics_per_instance > 0 ? c.network.nics_per_instance : c.decode.tensor_parallel;
  std::vector<PlatformNode> nodes;
  const bool sites = c.network.topology == Topology::sites;
  const int prefill_site = sites ? c.network.sites.prefill_site : 0, decode_site = sites ? c.network.sites.decode_site : 0;
  for (int i = 0; i < c.prefill.instances; ++i) nodes.push_back({"prefill" + std::to_string(i), prefill_nics, prefill_site});
  for (int i = 0; i < c.decode.instances; ++i) nodes.push_back({"decode" + std::to_string(i), decode_nics, decode_site});
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
