// The memory-backed input file of fuzz_support.hpp (memfd, opened by readers as /proc/self/fd/N).
#include "fuzz/fuzz_support.hpp"

#include <sys/mman.h>
#include <unistd.h>

namespace lynx::fuzz {

const std::string& input_as_file(const uint8_t* data, size_t size) {
  static const int fd = ::memfd_create("lynx-fuzz-input", 0);
  static const std::string path = "/proc/self/fd/" + std::to_string(fd);
  if (fd < 0) finding("memfd_create failed");
  if (::ftruncate(fd, 0) != 0) finding("ftruncate failed");
  size_t written = 0;
  while (written < size) {
    ssize_t n = ::pwrite(fd, data + written, size - written, static_cast<off_t>(written));
    if (n <= 0) finding("pwrite failed");
    written += static_cast<size_t>(n);
  }
  return path;
}

}  // namespace lynx::fuzz
