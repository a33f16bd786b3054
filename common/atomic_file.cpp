#include "common/atomic_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
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

void check_output_location(const std::string& path, bool is_directory, const char* option) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path.empty()) throw_error("%s: empty path", option);
  fs::path p = fs::absolute(path, ec).lexically_normal();
  if (fs::exists(p, ec)) {
    if (is_directory && !fs::is_directory(p, ec))
      throw_error("%s %s: exists and is not a folder", option, path.c_str());
    if (!is_directory && fs::is_directory(p, ec))
      throw_error("%s %s: is a folder, expected a file path", option, path.c_str());
    if (::access((is_directory ? p : p.parent_path()).c_str(), W_OK) != 0)
      throw_error("%s %s: cannot write there: %s", option, path.c_str(), std::strerror(errno));
    return;
  }
  fs::path ancestor = p.parent_path();
  while (!ancestor.empty() && !fs::exists(ancestor, ec)) ancestor = ancestor.parent_path();
  if (ancestor.empty()) ancestor = "/";
  if (!fs::is_directory(ancestor, ec))
    throw_error("%s %s: %s is a file, so nothing can be created under it", option, path.c_str(),
                ancestor.c_str());
  if (::access(ancestor.c_str(), W_OK) != 0)
    throw_error("%s %s: cannot create it under %s: %s", option, path.c_str(), ancestor.c_str(), std::strerror(errno));
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw_error("%s: cannot open file", path.c_str());
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace lynx
