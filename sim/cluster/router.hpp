// The router: which prefill and which decode instance a request goes to, chosen at its arrival.
//   round-robin:  prefill and decode instances in turn, each pool with its own counter;
//   least-loaded: the prefill instance with the fewest outstanding prompt tokens and the decode instance with the
//                 fewest assigned KV bytes, the lowest index among equals (a tournament tree: O(log n) a choice);
//   prefix-aware: the prefill instance holding the longest cached prefix of the request's prompt, then the fewest
//                 outstanding tokens, then the lowest index (a scan: the cached prefix depends on the request);
//                 decode instances as least-loaded.
// A router reads the instances' loads through PoolLoads, and is told when one changes (LoadListener), so that it can
// be driven alone by a test with made-up loads. Built once per run from the configuration's enum.
#pragma once
#include <cstdint>
#include <memory>

#include "sim/config/sim_config.hpp"
#include "traces/request.hpp"

namespace lynx {

// What a router may know of the instances: their count and current loads.
class PoolLoads {
 public:
  virtual ~PoolLoads() = default;
  virtual int prefill_count() const = 0;
  virtual int decode_count() const = 0;
  virtual int64_t prefill_outstanding_tokens(int prefill) const = 0;    // prompt tokens queued or in progress
  virtual int64_t prefill_cached_blocks(int prefill, const Request& request) const = 0;  // leading prompt blocks
  virtual double decode_assigned_bytes(int decode) const = 0;           // KV of its unfinished requests
};

// Told by the instances when a load changes (sim_context.hpp hands it to them).
class LoadListener {
 public:
  virtual ~LoadListener() = default;
  virtual void prefill_load_changed(int prefill) = 0;
  virtual void decode_load_changed(int decode) = 0;
};

class Router : public LoadListener {
 public:
  virtual int choose_prefill(const Request& request) = 0;
  virtual int choose_decode() = 0;
};

// The router of `policy` over `loads` (which must outlive it); every instance's load is read once here.
std::unique_ptr<Router> router_make(RouterPolicy policy, const PoolLoads& loads);

}  // namespace lynx
