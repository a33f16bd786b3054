// requests.csv, the per-request file of a run: its header, its rows, a writer that streams it to disk and a reader
// that gives it back. Every column comes from the one declaration in sim/output/request_columns.hpp, in its order and
// written as its kind says; the bytes are the project's result format (tests compare them byte for byte).
#pragma once
#include <cstdio>
#include <string_view>
#include <string>
#include <vector>

#include "sim/output/request_columns.hpp"
#include "traces/line_reader.hpp"
#include "sim/output/request_record.hpp"

namespace lynx {

// The header line, with its newline.
std::string requests_csv_header();
// Appends one request's row (with its newline).
void append_requests_csv_row(std::string& out, const RequestRecord& r);
// The whole file: the header, then a row per record.
std::string requests_csv(const std::vector<RequestRecord>& records);

// Writes <path> a row at a time, to "<path>.tmp.<pid>", renamed over <path> by commit(): the same bytes as
// requests_csv(), in bounded memory. Without commit() the temporary file is removed.
class RequestsCsvWriter {
 public:
  explicit RequestsCsvWriter(const std::string& path);
  ~RequestsCsvWriter();
  RequestsCsvWriter(const RequestsCsvWriter&) = delete;
  RequestsCsvWriter& operator=(const RequestsCsvWriter&) = delete;
  void add(const RequestRecord& r);
  void commit();

 private:
  void flush();
  std::string path_, tmp_path_, buffer_;
  std::FILE* file_ = nullptr;
};

// One row read back: the record (every stored column, and the members derived columns restore) and every cell's
// value as written (seconds; NaN where the cell is empty), by column position.
struct RequestRow {
  RequestRecord record;
  double cells[kRequestColumnCount];
  // The request's value of `method` (a RequestRecord method, e.g. &RequestRecord::tpot_s) as the file holds it: the
  // cell of the derived column of that method (rounded to the nanosecond as written), else computed from the record.
  double value(double (RequestRecord::*method)() const) const;
};

// Reads requests.csv a row at a time. The header must be the declared one; a header or row that is not is a
// LynxError naming the file, its line and the column.
class RequestsCsvReader {
 public:
  explicit RequestsCsvReader(const std::string& path);
  // The next row; false at the end of the file.
  bool next(RequestRow& row);

 private:
  std::string path_;
  LineReader in_;  // opened through the one checked open (a regular file only)
  std::string_view line_;
  size_t line_number_ = 1;
};

// Every record of a requests.csv file.
std::vector<RequestRecord> requests_csv_read(const std::string& path);

}  // namespace lynx
