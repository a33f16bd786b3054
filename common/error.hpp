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

// An invariant of the program itself failed (an illegal phase move, events left at the end, a request that did not
// complete, a reader reading an undeclared field): a bug, never the input's fault. `lynxsim` exits 3 for it (2 is
// bad input), and says "internal error".
class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& message) : std::logic_error(message) {}
};

// Formats a message like printf and throws LynxError with it.
[[noreturn]] void throw_error(const char* format, ...) __attribute__((format(printf, 1, 2)));
// The same for InternalError.
[[noreturn]] void throw_internal_error(const char* format, ...) __attribute__((format(printf, 1, 2)));

// `text` safe to print on a terminal: control bytes other than new line and tab (an escape sequence in a model
// name or a file name) written as \xNN, so a name can neither recolour nor rewrite the console.
std::string printable(const std::string& text);

}  // namespace lynx
