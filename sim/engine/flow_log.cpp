// The flow log's file format (sim/engine/flow_log.hpp): "LYNXFLW2", the network's fields, the nodes' NIC counts, the
// SimGrid configuration items (length-prefixed), then records (flow starts and re-weightings, in time order) to the
// end of the file: no count to patch, so a record is written as it happens.
#include "sim/engine/flow_log.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/atomic_file.hpp"
#include "common/error.hpp"

namespace lynx {

namespace {
constexpr char kMagic[8] = {'L', 'Y', 'N', 'X', 'F', 'L', 'W', '3'};  // 2: re-weightings logged; 3: rate bounds

struct NetworkRecord {
  int32_t topology, link_sharing, model, hosts_per_rack, nics_per_instance, node_count, cfg_count, pad;
  double nic_gbps, latency_us, spine_latency_us, oversubscription, uplink_gbps;
};

void write_all(std::FILE* f, const void* data, size_t bytes) { std::fwrite(data, 1, bytes, f); }

void read_all(std::FILE* f, void* data, size_t bytes, const std::string& path) {
  if (std::fread(data, 1, bytes, f) != bytes) {
    std::fclose(f);
    throw_error("%s: not a flow log (cut short in its header)", path.c_str());
  }
}
}  // namespace

FlowLogWriter::FlowLogWriter(const std::string& path, const NetworkConfig& n, const std::vector<PlatformNode>& nodes,
                             const std::vector<std::string>& simgrid_cfg)
    : path_(path), tmp_path_(path + ".tmp." + std::to_string(::getpid())) {
  // The header records one fabric; sites (their links, cross traffic) are not in the format yet.
  if (n.topology == Topology::sites)
    throw_error("%s: a flow log of topology \"sites\" is not supported (the bare replay rebuilds one fabric)",
                path.c_str());
  file_ = std::fopen(tmp_path_.c_str(), "wb");
  if (file_ == nullptr) throw_error("%s: cannot write the flow log: %s", tmp_path_.c_str(), std::strerror(errno));
  NetworkRecord r{};
  r.topology = static_cast<int32_t>(n.topology);
  r.link_sharing = static_cast<int32_t>(n.link_sharing);
  r.model = static_cast<int32_t>(n.model);
  r.hosts_per_rack = n.hosts_per_rack;
  r.nics_per_instance = n.nics_per_instance;
  r.node_count = static_cast<int32_t>(nodes.size());
  r.cfg_count = static_cast<int32_t>(simgrid_cfg.size());
  r.nic_gbps = n.nic_gbps;
  r.latency_us = n.latency_us;
  r.spine_latency_us = n.spine_latency_us;
  r.oversubscription = n.oversubscription;
  r.uplink_gbps = n.uplink_gbps;
  write_all(file_, kMagic, sizeof kMagic);
  write_all(file_, &r, sizeof r);
  for (const PlatformNode& node : nodes) {
    const int32_t nics = node.nics;
    write_all(file_, &nics, sizeof nics);
  }
  for (const std::string& item : simgrid_cfg) {
    const auto length = static_cast<uint32_t>(item.size());
    write_all(file_, &length, sizeof length);
    write_all(file_, item.data(), item.size());
  }
}

FlowLogWriter::~FlowLogWriter() {
  if (file_ != nullptr) {
    std::fclose(file_);
    std::remove(tmp_path_.c_str());
  }
}

void FlowLogWriter::finish() {
  if (file_ == nullptr) return;
  const bool failed = std::ferror(file_) != 0;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (failed || !closed) {
    std::remove(tmp_path_.c_str());
    throw_error("%s: cannot write the flow log", tmp_path_.c_str());
  }
  rename_into_place(tmp_path_, path_);  // removes the temporary file if it refuses
}

FlowLog flow_log_read(const std::string& path) {
  std::FILE* f = open_input_file(path);  // a regular file only (common/atomic_file.hpp)
  char magic[sizeof kMagic];
  read_all(f, magic, sizeof magic, path);
  if (std::memcmp(magic, kMagic, sizeof kMagic) != 0) {
    std::fclose(f);
    throw_error("%s: not a flow log (written by `lynxsim simulate --flow-log`)", path.c_str());
  }
  NetworkRecord r{};
  read_all(f, &r, sizeof r, path);
  FlowLog log;
  log.network.topology = static_cast<Topology>(r.topology);
  log.network.link_sharing = static_cast<LinkSharing>(r.link_sharing);
  log.network.model = static_cast<NetworkModel>(r.model);
  log.network.hosts_per_rack = r.hosts_per_rack;
  log.network.nics_per_instance = r.nics_per_instance;
  log.network.nic_gbps = r.nic_gbps;
  log.network.latency_us = r.latency_us;
  log.network.spine_latency_us = r.spine_latency_us;
  log.network.oversubscription = r.oversubscription;
  log.network.uplink_gbps = r.uplink_gbps;
  if (r.node_count < 1 || r.cfg_count < 0 || r.cfg_count > 64) {
    std::fclose(f);
    throw_error("%s: not a flow log (%d nodes, %d SimGrid items)", path.c_str(), r.node_count, r.cfg_count);
  }
  for (int32_t i = 0; i < r.node_count; ++i) {
    int32_t nics = 0;
    read_all(f, &nics, sizeof nics, path);
    log.nodes.push_back(PlatformNode{"n" + std::to_string(i), nics});
  }
  for (int32_t i = 0; i < r.cfg_count; ++i) {
    uint32_t length = 0;
    read_all(f, &length, sizeof length, path);
    if (length > 4096) {
      std::fclose(f);
      throw_error("%s: not a flow log (a SimGrid item of %u bytes)", path.c_str(), length);
    }
    std::string item(length, '\0');
    read_all(f, item.data(), length, path);
    log.simgrid_cfg.push_back(item);
  }
  const long header = std::ftell(f);
  std::fseek(f, 0, SEEK_END);
  const long end = std::ftell(f);
  std::fseek(f, header, SEEK_SET);
  const long body = end - header;
  if (body % static_cast<long>(sizeof(FlowLogEntry)) != 0) {
    std::fclose(f);
    throw_error("%s: flow log cut short (%ld bytes of entries, not a multiple of %zu)", path.c_str(), body,
                sizeof(FlowLogEntry));
  }
  log.flows.resize(static_cast<size_t>(body) / sizeof(FlowLogEntry));
  if (std::fread(log.flows.data(), sizeof(FlowLogEntry), log.flows.size(), f) != log.flows.size()) {
    std::fclose(f);
    throw_error("%s: cannot read the flow log", path.c_str());
  }
  std::fclose(f);
  // Re-weightings out of the records, in place; each names a flow started before it.
  size_t starts = 0;
  for (size_t i = 0; i < log.flows.size(); ++i) {
    const FlowLogEntry& e = log.flows[i];
    if (e.src == -1 && e.dst == -1) {
      if (e.bytes >= starts)
        throw_error("%s: record %zu re-weights flow %llu, which has not started", path.c_str(), i,
                    static_cast<unsigned long long>(e.bytes));
      log.reweights.push_back(FlowReweight{e.start_s, e.bytes, e.weight, starts});
    } else {
      log.flows[starts++] = e;
    }
  }
  log.flows.resize(starts);
  return log;
}

}  // namespace lynx
