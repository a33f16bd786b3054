// Fuzz harness for the experiment reader (experiments/experiment.hpp): the input is JSON text, parsed as
// `lynxsim run` parses an experiment file, then expanded and validated point by point by experiment_from_json
// (every point's configuration and workload are read; nothing runs). LynxError is the expected outcome for bad
// input; anything else, a crash or a hang is a finding. Point names must be unique (they are directory names).
#include <set>
#include <string>

#include "common/json_reader.hpp"
#include "experiments/experiment.hpp"
#include "fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  lynx::fuzz::expect_lynx_error_only([&] {
    const nlohmann::json root = lynx::json_parse_text(text, "fuzz.json");
    const lynx::Experiment e = lynx::experiment_from_json(root, "fuzz.json", LYNX_FUZZ_BASE_DIR);
    std::set<std::string> names;
    for (const lynx::SweepPoint& p : e.points)
      if (!names.insert(p.name).second) lynx::fuzz::finding("two sweep points named " + p.name);
  });
  return 0;
}
