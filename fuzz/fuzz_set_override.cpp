// Fuzz harness for `--set PATH=VALUE` (experiments/config_overrides.hpp): the input is one override per line,
// parsed as the command line parses them, applied to a small fixed configuration and to an experiment's base
// with a sweep axis, then validated as `lynxsim simulate` and `lynxsim run` validate them (every point expanded
// and checked; nothing runs). LynxError is the expected outcome for bad input; anything else, a crash or a hang is
// a finding.
#include <sstream>
#include <string>
#include <vector>

#include "experiments/config_overrides.hpp"
#include "experiments/experiment.hpp"
#include "fuzz/fuzz_support.hpp"
#include "sim/config/resolved_config.hpp"

namespace {
const char* kBase = R"({"model": "llama-3.1-8b", "format": "bf16",
  "cluster": {"prefill": {"instances": 1}, "decode": {"instances": 1}},
  "workload": {"synthetic": {"rate_per_s": 4, "count": 8, "input_tokens": {"fixed": 128},
                             "output_tokens": {"fixed": 8}}}})";
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  lynx::fuzz::expect_lynx_error_only([&] {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line) && lines.size() < 8;) lines.push_back(line);
    const std::vector<lynx::ConfigOverride> overrides = lynx::config_overrides_parse(lines);
    nlohmann::json config = nlohmann::json::parse(kBase);
    lynx::config_overrides_apply(config, overrides);
    (void)lynx::resolve_config(config, "fuzz.json", LYNX_FUZZ_BASE_DIR);
    nlohmann::json experiment = nlohmann::json::parse(R"({"name": "fuzz", "sweep": {"axes": [{"path": "seed", "values": [1, 2]}]}})");
    experiment["base"] = nlohmann::json::parse(kBase);
    lynx::config_overrides_apply(experiment["base"], overrides);
    (void)lynx::experiment_from_json(experiment, "fuzz.json", LYNX_FUZZ_BASE_DIR);
  });
  return 0;
}
