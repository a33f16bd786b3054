// Helpers shared by the lynx_traces tests: files written by the test itself, and the message of a LynxError.
#pragma once
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <unistd.h>

#include "common/data_folder.hpp"
#include "common/error.hpp"

namespace lynx_test {

// A directory of this process (so that concurrent test runs never share a file), removed at exit.
struct TempDir {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("lynx_traces_test_" + std::to_string(::getpid()));
  TempDir() { std::filesystem::create_directories(path); }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

// Writes `text` to a file named `name` in the process's directory, returns its path.
inline std::string write_temp(const std::string& name, const std::string& text) {
  static TempDir dir_holder;
  const std::filesystem::path& dir = dir_holder.path;
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

// A file in the data folder (common/data_folder.hpp).
inline std::string shipped(const std::string& relative) { return lynx::data_file(relative); }
inline const char* kMooncakeTrace = "traces/mooncake/conversation_trace.jsonl";
inline const char* kAzureCodeTrace = "traces/azure-llm-2023/AzureLLMInferenceTrace_code.csv";

}  // namespace lynx_test
