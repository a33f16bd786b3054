// Runs a function in a child process and returns what it wrote. SimGrid allows one engine per process, so tests
// that simulate several configurations, and sweeps, run each simulation in its own process.
#pragma once
#include <functional>
#include <string>

namespace lynx {

// Forks; the child runs `work` and sends back the string it returns. A LynxError in the child comes back as a
// LynxError with the same message; a crash is a LynxError naming the signal.
std::string run_isolated(const std::function<std::string()>& work);

}  // namespace lynx
