// Helpers shared by the lynx_traces tests: files written by the test itself, and the message of a LynxError.
#pragma once
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <unistd.h>

#include "common/error.hpp"

namespace lynx_test {

// Writes `text` to a file named `name` in a directory of this process, returns its path.
inline std::string write_temp(const std::string& name, const std::string& text) {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("lynx_traces_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The message of the LynxError `f` throws, or "(no error)".
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const lynx::LynxError& e) {
    return e.what();
  }
  return "(no error)";
}

inline std::string shipped(const std::string& relative) { return std::string(LYNX_DATA_DIR) + "/" + relative; }
inline const char* kMooncakeTrace = "data/traces/mooncake/conversation_trace.jsonl";
inline const char* kAzureCodeTrace = "data/traces/azure-llm-2023/AzureLLMInferenceTrace_code.csv";

}  // namespace lynx_test
