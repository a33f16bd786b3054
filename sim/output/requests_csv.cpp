#include "sim/output/requests_csv.hpp"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/fixed_decimal.hpp"

namespace lynx {

const RequestColumn* request_column(const char* name) {
  for (const RequestColumn& c : kRequestColumns)
    if (std::strcmp(c.name, name) == 0) return &c;
  return nullptr;
}

const char* request_column_kind_name(RequestColumnKind kind) {
  switch (kind) {
    case RequestColumnKind::count: return "count";
    case RequestColumnKind::index: return "index";
    case RequestColumnKind::flag: return "flag";
    case RequestColumnKind::seconds: return "seconds";
    case RequestColumnKind::derived: return "derived";
  }
  return "?";
}

namespace {
// A row's cells are written into a buffer on the stack and appended to the output once (an append per cell checked
// the string's capacity each time: 20 of a cell's 100 or so instructions).
constexpr size_t kCellRoom = kFixed9Room;  // a time's; an integer takes at most 20 characters
static_assert(kCellRoom >= 24);

char* write_int(char* out, int64_t v) { return std::to_chars(out, out + kCellRoom, v).ptr; }  // room for any int64

// A time as "%.9f" (nanoseconds) writes it (common/fixed_decimal.hpp); nothing for NaN (the step does not apply).
char* write_seconds(char* out, double seconds) { return std::isnan(seconds) ? out : write_fixed9(out, seconds); }

char* write_cell(char* out, const RequestColumn& c, const RequestRecord& r) {
  switch (c.kind) {
    case RequestColumnKind::count: return write_int(out, r.*c.count);
    case RequestColumnKind::index: return write_int(out, r.*c.index);
    case RequestColumnKind::flag: return r.*c.index >= 0 ? write_int(out, r.*c.index) : out;
    case RequestColumnKind::seconds: return write_seconds(out, r.*c.seconds);
    case RequestColumnKind::derived: return write_seconds(out, (r.*c.derived)());
  }
  return out;
}
}  // namespace

std::string requests_csv_header() {
  std::string header;
  for (const RequestColumn& c : kRequestColumns) {
    if (!header.empty()) header += ',';
    header += c.name;
  }
  return header + "\n";
}

void append_requests_csv_row(std::string& out, const RequestRecord& r) {
  char row[kRequestColumnCount * (kCellRoom + 1)];  // each cell and its comma (the last one's: the newline)
  char* p = row;
  for (size_t i = 0; i < kRequestColumnCount; ++i) {
    if (i > 0) *p++ = ',';
    p = write_cell(p, kRequestColumns[i], r);
  }
  *p++ = '\n';
  out.append(row, p);
}

std::string requests_csv(const std::vector<RequestRecord>& records) {
  std::string out = requests_csv_header();
  for (const RequestRecord& r : records) append_requests_csv_row(out, r);
  return out;
}

RequestsCsvWriter::RequestsCsvWriter(const std::string& path)
    : path_(path), tmp_path_(path + ".tmp." + std::to_string(::getpid())) {
  file_ = std::fopen(tmp_path_.c_str(), "wb");
  if (file_ == nullptr) throw_error("%s: cannot write: %s", tmp_path_.c_str(), std::strerror(errno));
  buffer_ = requests_csv_header();
}

RequestsCsvWriter::~RequestsCsvWriter() {
  if (file_ != nullptr) {
    std::fclose(file_);
    std::remove(tmp_path_.c_str());
  }
}

namespace {
constexpr size_t kFlushBytes = size_t{64} << 10;
}

void RequestsCsvWriter::add(const RequestRecord& r) {
  append_requests_csv_row(buffer_, r);
  // Written out every 64 KiB, a buffer that stays in a core's L2 cache beside the running simulation (at 1 MiB it
  // swept the network solver's data out: about 1% of the Mooncake benchmark's time, measured in 16 alternated rounds).
  if (buffer_.size() >= kFlushBytes) flush();
}

void RequestsCsvWriter::flush() {
  if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size())
    throw_error("%s: cannot write: %s", tmp_path_.c_str(), std::strerror(errno));
  buffer_.clear();
}

void RequestsCsvWriter::commit() {
  flush();
  const bool ok = std::fflush(file_) == 0;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!ok || !closed) {
    std::remove(tmp_path_.c_str());
    throw_error("%s: cannot write: %s", tmp_path_.c_str(), std::strerror(errno));
  }
  rename_into_place(tmp_path_, path_);
}

double RequestRow::value(double (RequestRecord::*method)() const) const {
  for (size_t i = 0; i < kRequestColumnCount; ++i)
    if (kRequestColumns[i].kind == RequestColumnKind::derived && kRequestColumns[i].derived == method) return cells[i];
  return (record.*method)();
}

RequestsCsvReader::RequestsCsvReader(const std::string& path) : path_(path), in_(path) {
  std::string_view header_line;
  const std::string header = in_.next(header_line) ? std::string(header_line) : std::string();
  const std::string expected = requests_csv_header();
  if (header + "\n" == expected) return;
  // Name the first column that differs.
  size_t column = 0, at = 0;
  for (; column < kRequestColumnCount; ++column) {
    const size_t end = std::min(header.find(',', at), header.size());
    if (header.compare(at, end - at, kRequestColumns[column].name) != 0) break;
    at = end + 1;
  }
  throw_error("%s:1: not the header of requests.csv: column %zu is \"%s\", expected \"%s\"", path.c_str(), column + 1,
              column < kRequestColumnCount && at <= header.size()
                  ? header.substr(at, std::min(header.find(',', at), header.size()) - at).c_str()
                  : "(more columns than declared)",
              column < kRequestColumnCount ? kRequestColumns[column].name : "(end of line)");
}

bool RequestsCsvReader::next(RequestRow& row) {
  if (!in_.next(line_)) return false;
  ++line_number_;
  row.record = RequestRecord{};
  size_t at = 0;
  for (size_t i = 0; i < kRequestColumnCount; ++i) {
    const RequestColumn& c = kRequestColumns[i];
    const size_t end = i + 1 < kRequestColumnCount ? line_.find(',', at) : line_.size();
    if (end == std::string::npos || (i + 1 == kRequestColumnCount && line_.find(',', at) != std::string::npos))
      throw_error("%s:%zu: expected %zu comma-separated cells", path_.c_str(), line_number_, kRequestColumnCount);
    const char* first = line_.data() + at;
    const char* last = line_.data() + end;
    at = end + 1;
    auto bad = [&](const char* expected) {
      throw_error("%s:%zu: column %s: expected %s, got \"%s\"", path_.c_str(), line_number_, c.name, expected,
                  std::string(first, last).c_str());
    };
    row.cells[i] = NAN;
    if (first == last) {
      if (c.kind == RequestColumnKind::flag) row.record.*c.index = -1;
      else if (c.kind != RequestColumnKind::seconds && c.kind != RequestColumnKind::derived) bad("an integer");
      continue;
    }
    if (c.kind == RequestColumnKind::seconds || c.kind == RequestColumnKind::derived) {
      double v = 0;
      const auto [ptr, error] = std::from_chars(first, last, v);
      if (error != std::errc() || ptr != last) bad("a time in seconds");
      row.cells[i] = v;
      if (c.kind == RequestColumnKind::seconds) row.record.*c.seconds = v;
      continue;
    }
    int64_t v = 0;
    const auto [ptr, error] = std::from_chars(first, last, v);
    if (error != std::errc() || ptr != last) bad("an integer");
    row.cells[i] = static_cast<double>(v);
    if (c.kind == RequestColumnKind::count) {
      row.record.*c.count = v;
    } else {
      if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) bad("an integer of int range");
      row.record.*c.index = static_cast<int>(v);
    }
  }
  // Members that only a derived column carries (arrival_s is read by now).
  for (size_t i = 0; i < kRequestColumnCount; ++i) {
    const RequestColumn& c = kRequestColumns[i];
    if (c.restores != nullptr) row.record.*c.restores = row.record.arrival_s + row.cells[i];
  }
  return true;
}

std::vector<RequestRecord> requests_csv_read(const std::string& path) {
  RequestsCsvReader reader(path);
  std::vector<RequestRecord> records;
  RequestRow row;
  while (reader.next(row)) records.push_back(row.record);
  return records;
}

}  // namespace lynx
