#include "sim/output/progress_meter.hpp"

#include <unistd.h>

namespace lynx {

ProgressMeter::ProgressMeter(std::FILE* out, double min_interval_s)
    : out_(out),
      terminal_(::isatty(::fileno(out)) != 0),
      interval_(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(min_interval_s))) {}

void ProgressMeter::start(uint64_t total_requests) {
  total_ = total_requests;
  started_ = Clock::now();
  draw(started_);
}

std::string ProgressMeter::line(double simulated_s, uint64_t done, uint64_t total, double wall_s) {
  char text[160];
  int n = std::snprintf(text, sizeof text, "simulated %.1f s | %llu", simulated_s, static_cast<unsigned long long>(done));
  std::string out(text, static_cast<size_t>(n));
  if (total > 0) {
    n = std::snprintf(text, sizeof text, " / %llu requests (%.1f%%)", static_cast<unsigned long long>(total),
                      100.0 * static_cast<double>(done) / static_cast<double>(total));
  } else {
    n = std::snprintf(text, sizeof text, " requests");
  }
  out.append(text, static_cast<size_t>(n));
  if (wall_s > 0) {
    n = std::snprintf(text, sizeof text, " | %.0f requests/s", static_cast<double>(done) / wall_s);
    out.append(text, static_cast<size_t>(n));
  }
  return out;
}

void ProgressMeter::draw(Clock::time_point now) {
  if (finished_) return;
  const double wall_s = std::chrono::duration<double>(now - started_).count();
  const std::string text = line(simulated_s_, done_, total_, wall_s);
  if (terminal_)
    std::fprintf(out_, "\r%s\033[K", text.c_str());
  else
    std::fprintf(out_, "%s\n", text.c_str());
  std::fflush(out_);
  drawn_ = true;
  next_draw_ = now + interval_;
}

void ProgressMeter::finish() {
  if (finished_) return;
  finished_ = true;
  if (drawn_ && terminal_) {
    std::fprintf(out_, "\r\033[K");
    std::fflush(out_);
  }
}

}  // namespace lynx
