#include "common/atomic_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/error.hpp"

namespace lynx {

void write_file_atomic(const std::string& path, const std::string& content) {
  std::string temporary = path + ".tmp." + std::to_string(::getpid());
  FILE* f = std::fopen(temporary.c_str(), "wb");
  if (!f) throw_error("%s: cannot write: %s", path.c_str(), std::strerror(errno));
  bool ok = std::fwrite(content.data(), 1, content.size(), f) == content.size();
  ok = (std::fflush(f) == 0) && ok;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(temporary.c_str(), path.c_str()) != 0) {
    int error = errno;
    std::remove(temporary.c_str());
    throw_error("%s: cannot write: %s", path.c_str(), std::strerror(error));
  }
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw_error("%s: cannot open file", path.c_str());
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace lynx
