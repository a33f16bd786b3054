#include "sim/engine/isolated_run.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <exception>

#include "common/error.hpp"

namespace lynx {

namespace {
void write_all(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}
}  // namespace

std::string run_isolated(const std::function<std::string()>& work) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) throw_error("run_isolated: pipe failed: %s", std::strerror(errno));
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) throw_error("run_isolated: fork failed: %s", std::strerror(errno));
  if (pid == 0) {
    ::close(pipe_fds[0]);
    std::string out;
    int code = 0;
    try {
      out = "ok:" + work();
    } catch (const InternalError& e) {
      out = std::string("internal:") + e.what();
      code = 1;
    } catch (const std::exception& e) {
      out = std::string("error:") + e.what();
      code = 1;
    }
    write_all(pipe_fds[1], out);
    ::close(pipe_fds[1]);
    std::fflush(nullptr);
    ::_exit(code);
  }
  ::close(pipe_fds[1]);
  std::string received;
  char buffer[65536];
  ssize_t n;
  while ((n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0) received.append(buffer, static_cast<size_t>(n));
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) throw_error("simulation process died of signal %d", WTERMSIG(status));
  if (received.rfind("ok:", 0) == 0) return received.substr(3);
  if (received.rfind("error:", 0) == 0) throw LynxError(received.substr(6));
  if (received.rfind("internal:", 0) == 0) throw InternalError(received.substr(9));
  throw_error("simulation process exited with status %d and no result", WEXITSTATUS(status));
}

}  // namespace lynx
