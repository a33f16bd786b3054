#include "sim/engine/flow_priority.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/kernel/resource/Action.hpp>
#include <simgrid/kernel/resource/Model.hpp>
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <simgrid/simix.hpp>

#include "common/error.hpp"

namespace lynx {

namespace {
namespace kr = simgrid::kernel::resource;

kr::Action* action_in(kr::Action::StateSet* set, const simgrid::s4u::Comm* comm) {
  // New actions are appended: the comm just started is near the end.
  for (auto it = set->rbegin(); it != set->rend(); ++it)
    if (it->get_activity() == comm->get_impl()) return &*it;
  return nullptr;
}
}  // namespace

kr::Model* flow_network_model() {
  auto* model = dynamic_cast<kr::Model*>(simgrid::s4u::Engine::get_instance()->get_netzone_root()->get_network_model());
  if (model == nullptr) throw_internal_error("SimGrid's network model is not a kernel model");
  return model;
}

bool set_flow_weight(kr::Model* network_model, const simgrid::s4u::CommPtr& comm, double weight) {
  if (!(weight > 0)) throw_internal_error("flow weight must be positive, got %g", weight);
  kr::Action* action = action_in(network_model->get_started_action_set(), comm.get());
  if (action == nullptr) {
    if (action_in(network_model->get_finished_action_set(), comm.get()) != nullptr) return false;
    throw_internal_error("set_flow_weight: the comm has no running network action");
  }
  simgrid::kernel::actor::simcall_answered([action, weight] { action->set_sharing_penalty(1.0 / weight); });
  return true;
}

void set_flow_rate_bound(kr::Model* network_model, const simgrid::s4u::CommPtr& comm, double bytes_per_s) {
  if (!(bytes_per_s > 0)) throw_internal_error("flow rate bound must be positive, got %g", bytes_per_s);
  kr::Action* action = action_in(network_model->get_started_action_set(), comm.get());
  if (action == nullptr) throw_internal_error("set_flow_rate_bound: the comm has no running network action");
  simgrid::kernel::actor::simcall_answered([action, bytes_per_s] { action->set_bound(bytes_per_s); });
}

simgrid::kernel::timer::Timer* kernel_timer_set(double date_s, void (*callback)(void*), void* argument) {
  return simgrid::kernel::timer::Timer::set(date_s, [callback, argument] { callback(argument); });
}

void kernel_timer_remove(simgrid::kernel::timer::Timer* timer) { timer->remove(); }

}  // namespace lynx
