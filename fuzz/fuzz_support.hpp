// What every lynxsim fuzz harness shares. A harness feeds one input to one reader: a LynxError is the expected
// answer to bad input and ends the run quietly; any other exception is a finding and aborts, so libFuzzer saves
// the input (crashes, hangs and sanitizer reports are findings on their own).
// With LYNX_FUZZ_CHECK_MESSAGES=1 in the environment a LynxError whose message is empty or carries raw control
// bytes (other than newline and tab) is a finding too: messages are shown to users as they are.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <typeinfo>

#include "common/error.hpp"

namespace lynx::fuzz {

// Aborts with `what`, so that libFuzzer records the input as a crash.
[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "\nlynx fuzz finding: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

inline void check_message(const char* message) {
  static const bool enabled = [] {
    const char* v = std::getenv("LYNX_FUZZ_CHECK_MESSAGES");
    return v && *v == '1';
  }();
  if (!enabled) return;
  std::string text = message;
  if (text.empty()) finding("LynxError with an empty message");
  for (unsigned char c : text)
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
      finding("LynxError message carries a raw control byte: " + text);
}

// Runs `body`; LynxError is the expected outcome for bad input, anything else thrown is a finding.
template <typename Body>
void expect_lynx_error_only(Body&& body) {
  try {
    body();
  } catch (const LynxError& error) {
    check_message(error.what());
  } catch (const std::exception& error) {
    finding(std::string("exception other than LynxError (") + typeid(error).name() + "): " + error.what());
  } catch (...) {
    finding("a non-std exception escaped");
  }
}

// The input as a file the readers can open by name: one memory-backed file per process, rewritten per input.
const std::string& input_as_file(const uint8_t* data, size_t size);

}  // namespace lynx::fuzz
