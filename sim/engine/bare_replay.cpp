#include "sim/engine/bare_replay.hpp"

#include <chrono>

#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

#include "common/error.hpp"
#include "sim/engine/flow_priority.hpp"
#include "sim/engine/simgrid_platform.hpp"
#include "sim/engine/simgrid_options.hpp"

namespace lynx {

namespace sg4 = simgrid::s4u;

ReplayResult bare_replay(const FlowLog& log, bool loop_until, bool record) {
  const auto t0 = std::chrono::steady_clock::now();
  ReplayResult result;
  int argc = 1;
  char name[] = "bare_replay";
  char* argv[] = {name, nullptr};
  sg4::Engine engine(&argc, argv);
  xbt_log_control_set("root.thresh:critical");
  simgrid_options_apply(log.simgrid_cfg);
  SimGridPlatform platform;
  platform_build(log.network, log.nodes, platform);
  simgrid::kernel::resource::Model* const network_model = flow_network_model();

  // In-flight comms by slot (the comm's data is slot + 1); a finished comm moves to `done`, dropped from maestro.
  std::vector<sg4::CommPtr> comms;
  std::vector<size_t> free_slots;
  std::vector<sg4::CommPtr> done;
  const bool reweights = !log.reweights.empty();
  std::vector<uint32_t> flow_of;  // slot -> flow index, when recording or re-weighting
  std::vector<uint32_t> slot_of;  // flow index -> slot, when re-weighting
  if (record) {
    result.start_s.assign(log.flows.size(), -1);
    result.end_s.assign(log.flows.size(), -1);
  }
  if (reweights) slot_of.assign(log.flows.size(), 0);
  sg4::Activity::on_completion_cb([&](const sg4::Activity& a) {
    const auto slot = reinterpret_cast<uintptr_t>(a.get_data<void>());
    if (slot == 0) return;
    ++result.completed;
    result.makespan_s = sg4::Engine::get_clock();
    if (record) result.end_s[flow_of[slot - 1]] = sg4::Engine::get_clock();
    done.push_back(std::move(comms[slot - 1]));
    free_slots.push_back(slot - 1);
  });
  const auto run_to = [&](double time_s) {
    if (loop_until) {
      while (sg4::Engine::get_clock() < time_s) engine.run_until(time_s);
    } else if (sg4::Engine::get_clock() < time_s) {
      engine.run_until(time_s);
    }
    done.clear();  // outside SimGrid: the last handles of finished comms can go
  };
  // The re-weightings logged after the first `started` flows had started, at their times.
  size_t next_reweight = 0;
  const auto reweight_up_to = [&](size_t started) {
    for (; next_reweight < log.reweights.size() && log.reweights[next_reweight].after_flows <= started;
         ++next_reweight) {
      const FlowReweight& w = log.reweights[next_reweight];
      run_to(w.time_s);
      const uint32_t slot = slot_of[w.flow];
      if (comms[slot] && flow_of[slot] == w.flow) {
        if (set_flow_weight(network_model, comms[slot], w.weight)) ++result.reweighted;
      }
    }
  };
  for (size_t i = 0; i < log.flows.size(); ++i) {
    const FlowLogEntry& f = log.flows[i];
    if (reweights) reweight_up_to(i);
    run_to(f.start_s);
    const double now = sg4::Engine::get_clock();
    if (now < f.start_s) ++result.early;
    size_t slot;
    if (!free_slots.empty()) {
      slot = free_slots.back();
      free_slots.pop_back();
    } else {
      slot = comms.size();
      comms.emplace_back();
      if (record || reweights) flow_of.emplace_back();
    }
    if (record || reweights) flow_of[slot] = static_cast<uint32_t>(i);
    if (reweights) slot_of[i] = static_cast<uint32_t>(slot);
    if (record) result.start_s[i] = now;
    sg4::CommPtr comm = sg4::Comm::sendto_init();
    comm->set_payload_size(f.bytes);
    comm->set_data(reinterpret_cast<void*>(static_cast<uintptr_t>(slot + 1)));
    comm->set_source(platform.hosts[static_cast<size_t>(f.src)]);
    comm->set_destination(platform.hosts[static_cast<size_t>(f.dst)]);  // starts it
    if (f.weight != 1.0) set_flow_weight(network_model, comm, f.weight);
    if (f.rate_bound > 0) set_flow_rate_bound(network_model, comm, f.rate_bound);
    comms[slot] = std::move(comm);
  }
  if (reweights) reweight_up_to(log.flows.size());
  engine.run();
  done.clear();
  if (result.completed != log.flows.size())
    throw_error("bare replay: %llu of %zu flows completed", static_cast<unsigned long long>(result.completed),
                log.flows.size());
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

}  // namespace lynx
