#include "common/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "common/error.hpp"

namespace lynx {

void write_file_atomic(const std::string& given_path, const std::string& content) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // A symbolic link to a file: the file it names is replaced, the link kept.
  const std::string path = fs::is_symlink(given_path, ec) ? fs::weakly_canonical(given_path, ec).string() : given_path;
  static unsigned serial = 0;  // several temporaries of one process never share a name
  const std::string temporary = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(serial++);
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw_error("%s: cannot write: %s", given_path.c_str(), std::strerror(errno));
  FILE* f = ::fdopen(fd, "wb");
  if (!f) {
    ::close(fd);
    std::remove(temporary.c_str());
    throw_error("%s: cannot write: %s", given_path.c_str(), std::strerror(errno));
  }
  bool ok = std::fwrite(content.data(), 1, content.size(), f) == content.size();
  ok = (std::fflush(f) == 0) && ok;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) {
    const int error = errno;
    std::remove(temporary.c_str());
    throw_error("%s: cannot write: %s", given_path.c_str(), std::strerror(error));
  }
  rename_into_place(temporary, path, given_path);
}

void rename_into_place(const std::string& temporary, const std::string& path, const std::string& shown) {
  const char* name = shown.empty() ? path.c_str() : shown.c_str();
  // Checked again at rename time: nothing is ever renamed over a folder, a device, a FIFO or a socket.
  struct stat target {};
  if (::lstat(path.c_str(), &target) == 0 && !S_ISREG(target.st_mode)) {
    std::remove(temporary.c_str());
    throw_error("%s: exists and is not a regular file; lynxsim replaces only regular files", name);
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    std::remove(temporary.c_str());
    throw_error("%s: cannot write: %s", name, std::strerror(error));
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

namespace {
// The refusal of a path that exists and is not a regular file, one wording for the check and the open.
[[noreturn]] void refuse_not_regular(const std::string& path, mode_t mode) {
  if (S_ISDIR(mode)) throw_error("%s: is a directory, expected a file", path.c_str());
  const char* kind = S_ISFIFO(mode) ? "a FIFO" : S_ISCHR(mode) ? "a character device" : S_ISBLK(mode) ? "a block device"
                     : S_ISSOCK(mode) ? "a socket" : "not a regular file";
  throw_error("%s: is %s, not a regular file; lynxsim reads only regular files", path.c_str(), kind);
}
}  // namespace

void check_input_file(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) throw_error("%s: cannot open file: %s", path.c_str(), std::strerror(errno));
  if (!S_ISREG(info.st_mode)) refuse_not_regular(path, info.st_mode);
}

int open_input_fd(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) throw_error("%s: cannot open file: %s", path.c_str(), std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int error = errno;
    ::close(fd);
    throw_error("%s: cannot open file: %s", path.c_str(), std::strerror(error));
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    refuse_not_regular(path, info.st_mode);
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) (void)::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

std::FILE* open_input_file(const std::string& path) {
  const int fd = open_input_fd(path);
  std::FILE* file = ::fdopen(fd, "rb");
  if (file == nullptr) {
    const int error = errno;
    ::close(fd);
    throw_error("%s: cannot open file: %s", path.c_str(), std::strerror(error));
  }
  return file;
}

std::string read_file(const std::string& path) {
  // One read into a string of the file's size (through a stringstream the bytes were copied twice: a tenth of a
  // one-request run's start-up went to reading the 0.7 MB accuracy file); a file that grows meanwhile is read to
  // its end all the same.
  std::FILE* in = open_input_file(path);
  std::string text;
  struct stat info {};
  if (::fstat(::fileno(in), &info) == 0 && info.st_size > 0) text.resize(static_cast<size_t>(info.st_size));
  text.resize(std::fread(text.data(), 1, text.size(), in));
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, in)) > 0) text.append(buffer, n);
  const bool failed = std::ferror(in) != 0;
  std::fclose(in);
  if (failed) throw_error("%s: cannot read file", path.c_str());
  return text;
}

}  // namespace lynx
