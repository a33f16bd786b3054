// Fuzz harness for the simulation configuration reader: the input is JSON text, parsed as `lynxsim simulate
// --config` parses a file (common/json_reader.hpp), then read by sim_config_from_json (sim/config/sim_config.hpp) and its
// workload section by workload_spec_from_json (traces/workload_spec.hpp), as a sweep validates each point. Nothing
// is simulated and no trace is read. LynxError is the expected outcome for bad input; anything else is a finding.
#include <string>

#include "common/json_reader.hpp"
#include "fuzz/fuzz_support.hpp"
#include "sim/config/sim_config.hpp"
#include "traces/workload_spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  lynx::fuzz::expect_lynx_error_only([&] {
    const nlohmann::json root = lynx::json_parse_text(text, "fuzz.json");
    const lynx::SimConfig config = lynx::sim_config_from_json(root, "fuzz.json", LYNX_FUZZ_BASE_DIR);
    if (!config.workload.is_null()) {
      lynx::JsonObject workload(config.workload, config.origin, "$.workload");
      (void)lynx::workload_spec_from_json(workload, LYNX_FUZZ_BASE_DIR);
    }
  });
  return 0;
}
