#include "common/error.hpp"

#include <cstdarg>
#include <cstdio>
#include <vector>

namespace lynx {

void throw_error(const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list copy;
  va_copy(copy, args);
  int length = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::vector<char> text(static_cast<size_t>(length > 0 ? length : 0) + 1);
  std::vsnprintf(text.data(), text.size(), format, args);
  va_end(args);
  throw LynxError(text.data());
}

}  // namespace lynx
