// Trace reading speed: reads the shipped Mooncake trace (3 MB JSONL) with the project's reader and reports MB/s,
// next to baselines measured in the same run on the same file: a raw fread of the file, a plain line-splitting pass
// (LineReader alone, no parsing), and each line parsed by nlohmann::json::parse (what a general JSON library costs
// in the reader's place: traces/json_line.hpp). The target is >= 50 MB/s single-threaded.
//   bench_trace_read [trace file] [repetitions]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/data_folder.hpp"
#include "common/error.hpp"
#include "traces/line_reader.hpp"
#include "traces/trace_reader.hpp"

namespace {
double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Best (shortest) time of `reps` runs of f, after one warm-up run; f returns a checksum kept alive.
template <class F>
double best_time_s(int reps, F f, uint64_t& checksum) {
  checksum = f();
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    double t0 = now_s();
    checksum += f();
    best = std::min(best, now_s() - t0);
  }
  return best;
}
}  // namespace

int main(int argc, char** argv) {
  std::string path = argc > 1 ? argv[1] : lynx::data_file("traces/mooncake/conversation_trace.jsonl");
  int reps = argc > 2 ? std::atoi(argv[2]) : 10;
  try {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) lynx::throw_error("%s: cannot open file", path.c_str());
    std::fseek(f, 0, SEEK_END);
    double mb = static_cast<double>(std::ftell(f)) / 1e6;
    std::fclose(f);

    uint64_t sum_fread = 0, sum_lines = 0, sum_read = 0, sum_nlohmann = 0;
    double t_fread = best_time_s(reps, [&] {
      std::vector<char> buffer(1 << 20);
      FILE* in = std::fopen(path.c_str(), "rb");
      uint64_t bytes = 0;
      size_t got;
      while ((got = std::fread(buffer.data(), 1, buffer.size(), in)) > 0) bytes += got + static_cast<unsigned char>(buffer[0]);
      std::fclose(in);
      return bytes;
    }, sum_fread);
    double t_lines = best_time_s(reps, [&] {
      lynx::LineReader reader(path);
      std::string_view line;
      uint64_t n = 0;
      while (reader.next(line)) n += line.size();
      return n;
    }, sum_lines);
    double t_read = best_time_s(reps, [&] {
      lynx::TraceReadResult r = lynx::trace_read(path);
      return static_cast<uint64_t>(r.requests.size() + r.requests.back().prefix_block_hashes.size());
    }, sum_read);
    double t_nlohmann = best_time_s(reps, [&] {
      lynx::LineReader reader(path);
      std::string_view line;
      uint64_t n = 0;
      while (reader.next(line))
        if (!line.empty()) n += nlohmann::json::parse(line)["hash_ids"].size();
      return n;
    }, sum_nlohmann);

    std::printf("file: %s (%.3f MB), best of %d runs\n", path.c_str(), mb, reps);
    std::printf("%-34s %10s %12s\n", "pass", "MB/s", "vs fread");
    std::printf("%-34s %10.1f %12.3f\n", "fread (baseline)", mb / t_fread, 1.0);
    std::printf("%-34s %10.1f %12.3f\n", "line split (LineReader)", mb / t_lines, t_fread / t_lines);
    std::printf("%-34s %10.1f %12.3f\n", "trace_read (parse + Requests)", mb / t_read, t_fread / t_read);
    std::printf("%-34s %10.1f %12.3f\n", "nlohmann::json::parse per line", mb / t_nlohmann, t_fread / t_nlohmann);
    std::printf("trace_read vs line split: %.3f; target >= 50 MB/s: %s\n", t_lines / t_read,
                mb / t_read >= 50 ? "met" : "NOT met");
    std::fprintf(stderr, "(checksums %llu %llu %llu %llu)\n", static_cast<unsigned long long>(sum_fread),
                 static_cast<unsigned long long>(sum_lines), static_cast<unsigned long long>(sum_read),
                 static_cast<unsigned long long>(sum_nlohmann));
  } catch (const lynx::LynxError& e) {
    std::fprintf(stderr, "bench_trace_read: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
