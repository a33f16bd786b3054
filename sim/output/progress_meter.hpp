// `lynxsim simulate`'s progress while it runs: simulated time (the latest end among the requests finished so far),
// requests done (of the total when the workload's size is known) and requests per second of wall time. On a
// terminal the line is redrawn in place ("\r", then cleared to the end), at most once per min_interval_s of wall
// time; on anything else (only when forced, `--progress`) each update is a line of its own. It reads the finished
// records it is handed and the wall clock, nothing else, so it changes no result; per record it costs a counter,
// a comparison and a clock read.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "sim/output/request_record.hpp"

namespace lynx {

class ProgressMeter {
 public:
  using Clock = std::chrono::steady_clock;
  explicit ProgressMeter(std::FILE* out, double min_interval_s = 0.25);
  ~ProgressMeter() { finish(); }
  ProgressMeter(const ProgressMeter&) = delete;
  ProgressMeter& operator=(const ProgressMeter&) = delete;

  // The run starts; total_requests 0: not known (a workload generated as it is needed).
  void start(uint64_t total_requests);
  // One request finished.
  void add(const RequestRecord& r) {
    ++done_;
    if (r.end_s > simulated_s_) simulated_s_ = r.end_s;
    const Clock::time_point now = Clock::now();
    if (now >= next_draw_) draw(now);
  }
  // Clears the line on a terminal (the results print next); once.
  void finish();

  // The text of one update, e.g. "simulated 1234.5 s | 4321 / 12031 requests (35.9%) | 18200 requests/s".
  static std::string line(double simulated_s, uint64_t done, uint64_t total, double wall_s);

 private:
  void draw(Clock::time_point now);

  std::FILE* out_;
  bool terminal_;
  Clock::duration interval_;
  Clock::time_point started_, next_draw_ = Clock::time_point::max();
  uint64_t done_ = 0, total_ = 0;
  double simulated_s_ = 0;
  bool drawn_ = false, finished_ = false;
};

}  // namespace lynx
