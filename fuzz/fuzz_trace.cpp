// Fuzz harness for one trace reader (traces/trace_reader.hpp), chosen at build time with
// LYNX_FUZZ_TRACE_FORMAT (mooncake, azure, burstgpt, vidur, csv, jsonl): fuzz/CMakeLists.txt builds one binary per
// format. The first input byte chooses the read options, the rest is the file:
//   bit 0 skip_bad_rows, bit 1 keep_failed, bit 2 rebase_to_first_row, bit 3 stop after the first request,
//   bits 4-6 the time unit of the generic formats: 0 s, 1 ms, 2 us, 3 ns, 4 datetime, 5 s, 6 ms, 7 us.
// So a printable first character reads: 'P' (0x50) seconds, '`' (0x60) ms, '@' (0x40) datetime, '0' (0x30) ns, and
// the next characters of each row set the low bits ('Q' = 'P' + skip_bad_rows). The seeds under
// fuzz/corpus/trace_<format>/ start with such a character.
// Besides crashes and foreign exceptions, a request that breaks the reader's promises is a finding: ids 0..n-1 in
// order, finite arrival times that never decrease and are not negative, input > 0, output > 0 unless kept failed.
#include <cmath>
#include <string>

#include "fuzz/fuzz_support.hpp"
#include "traces/trace_reader.hpp"

namespace {

lynx::TraceReadOptions options_from(uint8_t flags) {
  lynx::TraceReadOptions o;
  o.format = lynx::TraceFormat::LYNX_FUZZ_TRACE_FORMAT;
  o.skip_bad_rows = (flags & 1) != 0;
  o.keep_failed = (flags & 2) != 0;
  // The generic formats name their columns; the names used by the seeds.
  o.columns.arrival = "t";
  o.columns.input_tokens = "in";
  o.columns.output_tokens = "out";
  if (o.format == lynx::TraceFormat::jsonl) o.columns.prefix_hashes = "hashes";
  o.columns.rebase_to_first_row = (flags & 4) != 0;
  static const lynx::TimeUnit units[8] = {lynx::TimeUnit::s,  lynx::TimeUnit::ms, lynx::TimeUnit::us,
                                          lynx::TimeUnit::ns, lynx::TimeUnit::datetime, lynx::TimeUnit::s,
                                          lynx::TimeUnit::ms, lynx::TimeUnit::us};
  o.columns.time_unit = units[(flags >> 4) & 7u];
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t flags = data[0];
  const lynx::TraceReadOptions options = options_from(flags);
  const bool stop_after_first = (flags & 8) != 0;
  const std::string& path = lynx::fuzz::input_as_file(data + 1, size - 1);
  lynx::fuzz::expect_lynx_error_only([&] {
    int64_t expected_id = 0;
    double previous_arrival = 0;
    lynx::trace_read_each(path, options, [&](lynx::Request&& r) {
      if (r.id != expected_id++) lynx::fuzz::finding("request ids out of order");
      if (!std::isfinite(r.arrival_s) || r.arrival_s < 0)
        lynx::fuzz::finding("arrival time not finite or negative: " + std::to_string(r.arrival_s));
      if (r.arrival_s < previous_arrival) lynx::fuzz::finding("arrival times go backwards");
      previous_arrival = r.arrival_s;
      if (r.input_tokens <= 0) lynx::fuzz::finding("input tokens not positive");
      if (r.output_tokens < 0 || (r.output_tokens == 0 && !options.keep_failed))
        lynx::fuzz::finding("output tokens negative, or zero without keep_failed");
      return !stop_after_first;
    });
  });
  return 0;
}
