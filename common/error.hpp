// lynx_common: the few things every lynxsim library shares.
// LynxError is the one exception type for bad input and impossible requests: its message is what the user sees,
// so it names the file, line or JSON path and the expected form.
#pragma once
#include <stdexcept>
#include <string>

namespace lynx {

class LynxError : public std::runtime_error {
 public:
  explicit LynxError(const std::string& message) : std::runtime_error(message) {}
};

// Formats a message like printf and throws LynxError with it.
[[noreturn]] void throw_error(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace lynx
