#include "models/readers/csv_table.hpp"

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <cstring>

#include "common/atomic_file.hpp"
#include "common/data_folder.hpp"
#include "common/data_manifest.hpp"
#include "common/error.hpp"

namespace lynx {

std::string calibration_dir() { return data_folder().path + "/calibration"; }

namespace {
// Appends the [start, end) offsets of each comma-separated field of data[begin, end) to `bounds`; returns the count.
size_t split(const std::string& data, size_t begin, size_t end, std::vector<uint32_t>& bounds) {
  size_t count = 0;
  const char* base = data.data();
  size_t start = begin;
  for (;;) {
    const void* at = std::memchr(base + start, ',', end - start);
    const size_t comma = at == nullptr ? end : static_cast<size_t>(static_cast<const char*>(at) - base);
    bounds.push_back(static_cast<uint32_t>(start));
    bounds.push_back(static_cast<uint32_t>(comma));
    ++count;
    if (comma == end) break;
    start = comma + 1;
  }
  return count;
}
// The file read whole, each line's field count checked against the header's.
struct CsvText {
  std::string data;
  std::vector<std::string> header;
  std::vector<uint32_t> line_bounds;
  std::vector<int> lines;
};

CsvText read_csv_text(const std::string& path) {
  CsvText out;
  out.data = read_file(path);  // one read; a folder, FIFO or device refused by name
  const std::string& data = out.data;
  if (data.size() >= (uint64_t{1} << 32)) throw_error("%s: larger than 4 GiB, not a measurement table", path.c_str());
  int number = 0;
  size_t columns = 0;
  const char* base = data.data();
  for (size_t begin = 0; begin < data.size();) {
    const void* at = std::memchr(base + begin, '\n', data.size() - begin);
    const size_t newline = at == nullptr ? data.size() : static_cast<size_t>(static_cast<const char*>(at) - base);
    size_t end = newline;
    if (end > begin && data[end - 1] == '\r') --end;  // as getline + a trailing '\r' dropped
    const size_t next = newline + 1;
    ++number;
    if (end == begin) {
      begin = next;
      continue;
    }
    if (out.header.empty()) {
      std::vector<uint32_t> header_bounds;
      columns = split(data, begin, end, header_bounds);
      for (size_t i = 0; i < columns; ++i)
        out.header.push_back(data.substr(header_bounds[2 * i], header_bounds[2 * i + 1] - header_bounds[2 * i]));
    } else {
      const size_t fields = static_cast<size_t>(std::count(base + begin, base + end, ',')) + 1;
      if (fields != columns)
        throw_error("%s:%d: %zu fields, expected %zu as in the header", path.c_str(), number, fields, columns);
      out.line_bounds.push_back(static_cast<uint32_t>(begin));
      out.line_bounds.push_back(static_cast<uint32_t>(end));
      out.lines.push_back(number);
    }
    begin = next;
  }
  if (out.header.empty()) throw_error("%s: empty file (expected a CSV header and rows)", path.c_str());
  return out;
}

// The file checked for the constructor: it exists and is a regular file, and matches the data manifest where it
// lists it; returns the manifest's digest where it does ("" elsewhere).
std::string checked_sha256(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error))
    throw_error("%s: cannot read the measurement file (is the calibration data folder present? set LYNX_DATA_DIR)",
                path.c_str());
  check_input_file(path);        // a folder, FIFO or device refused by name, before anything else
  data_folder_check_file(path);  // the manifest's sha256 (common/data_manifest.hpp)
  return data_file_verified_sha256(path);
}
}  // namespace

CsvTable::CsvTable(const std::string& path) : CsvTable(path, checked_sha256(path), std::string()) {}

CsvTable::CsvTable(const std::string& path, const std::string& sha256, const std::string& given_cache_file)
    : path_(path) {
  // The one-argument constructor passes no cache file: the default one of this digest.
  const std::string cache_file =
      given_cache_file.empty() && !sha256.empty() ? CsvColumnCache::path_for(sha256) : given_cache_file;
  if (!sha256.empty()) {
    cache_ = CsvColumnCache::open(cache_file, sha256);
    if (cache_) {
      header_ = cache_->header();
      lines_ = cache_->lines();
      cached_.resize(header_.size());
      text_read_ = false;
    }
  }
  if (!cache_) {
    CsvText text = read_csv_text(path);
    data_ = std::move(text.data);
    header_ = std::move(text.header);
    line_bounds_ = std::move(text.line_bounds);
    lines_ = std::move(text.lines);
  }
  for (size_t i = 0; i < header_.size(); ++i) column_of_.emplace(header_[i], i);
  if (!cache_ && !sha256.empty()) write_cache(sha256, cache_file);
}

void CsvTable::write_cache(const std::string& sha256, const std::string& cache_file) const {
  if (cache_file.empty()) return;
  std::vector<std::vector<std::string_view>> fields(header_.size());
  for (auto& column : fields) column.reserve(lines_.size());
  std::vector<uint32_t> bounds;
  for (size_t r = 0; r < lines_.size(); ++r) {
    bounds.clear();
    split(data_, line_bounds_[2 * r], line_bounds_[2 * r + 1], bounds);
    for (size_t c = 0; c < header_.size(); ++c)
      fields[c].emplace_back(data_.data() + bounds[2 * c], bounds[2 * c + 1] - bounds[2 * c]);
  }
  CsvColumnCache::write(cache_file, sha256, header_, lines_, fields);
}

const char* CsvTable::field(size_t row, size_t column, size_t* length, double* plain_value) const {
  if (row >= lines_.size()) throw_internal_error("%s: row %zu of %zu", path_.c_str(), row, lines_.size());
  if (!cache_) return text_field(row, column, length);
  std::lock_guard<std::mutex> lock(mutex_);
  if (!text_read_) {
    std::unique_ptr<CsvCachedColumn>& c = cached_[column];
    if (!c) {
      auto loaded = std::make_unique<CsvCachedColumn>();
      if (cache_->load(column, *loaded)) {
        c = std::move(loaded);
      } else {  // a damaged cache column: the file itself (the same text, so the same fields)
        CsvText text = read_csv_text(path_);
        if (text.header != header_ || text.lines != lines_)
          throw_error("%s: changed while read (its column cache no longer matches it)", path_.c_str());
        data_ = std::move(text.data);
        line_bounds_ = std::move(text.line_bounds);
        text_read_ = true;
      }
    }
    if (!text_read_) {
      if (plain_value != nullptr && c->plain[row]) {
        *plain_value = c->values[row];
        return nullptr;
      }
      const std::string_view f = c->field(row);
      *length = f.size();
      return f.data();
    }
  }
  return text_field(row, column, length);
}

const char* CsvTable::text_field(size_t row, size_t column, size_t* length) const {
  // The line has header_.size() fields (checked when read), so every comma skipped is there.
  const char* base = data_.data();
  const size_t begin = line_bounds_[2 * row], end = line_bounds_[2 * row + 1], last = header_.size() - 1;
  size_t start = begin, stop = end;
  if (column <= last - column) {
    for (size_t i = 0; i < column; ++i)
      start = static_cast<size_t>(static_cast<const char*>(std::memchr(base + start, ',', end - start)) - base) + 1;
    const void* comma = std::memchr(base + start, ',', end - start);
    stop = comma == nullptr ? end : static_cast<size_t>(static_cast<const char*>(comma) - base);
  } else {
    for (size_t i = 0; i < last - column; ++i)
      stop = static_cast<size_t>(static_cast<const char*>(memrchr(base + begin, ',', stop - begin)) - base);
    const void* comma = memrchr(base + begin, ',', stop - begin);
    start = comma == nullptr ? begin : static_cast<size_t>(static_cast<const char*>(comma) - base) + 1;
  }
  *length = stop - start;
  return base + start;
}

bool CsvTable::has_column(const std::string& name) const { return column_of_.count(name) != 0; }

size_t CsvTable::column(const std::string& name) const {
  const auto it = column_of_.find(name);
  if (it != column_of_.end()) return it->second;
  throw_error("%s:1: no column \"%s\" in the header", path_.c_str(), name.c_str());
}

std::string CsvTable::text(size_t row, const std::string& name) const {
  size_t length = 0;
  const char* start = field(row, column(name), &length);
  return std::string(start, length);
}

double CsvTable::number(size_t row, const std::string& name) const { return number_at(row, column(name)); }

double CsvTable::number_at(size_t row, size_t col) const {
  size_t length = 0;
  double v = 0;
  const char* start = field(row, col, &length, &v);
  if (start == nullptr) return v;  // the cache's value of a plain number
  // from_chars reads the plain decimal forms, correctly rounded as strtod; where it does not take the whole field
  // (a sign, a space, hexadecimal) or the value is out of range or subnormal (strtod's ERANGE), strtod reads it as
  // before: it stops at the comma or line end after the field (data_ is NUL-terminated), no copy of the field.
  if (csv_plain_number(start, length, &v)) return v;
  char* end = nullptr;
  errno = 0;
  v = std::strtod(start, &end);
  const std::string& name = header_[col];
  if (length == 0 || end != start + length || errno == ERANGE)
    throw_error("%s:%d: column %s is not a number: \"%s\"", path_.c_str(), lines_[row], name.c_str(),
                std::string(start, length).c_str());
  if (!std::isfinite(v))
    throw_error("%s:%d: column %s is \"%s\", not a finite number", path_.c_str(), lines_[row], name.c_str(),
                std::string(start, length).c_str());
  return v;
}

double CsvTable::time(size_t row, const std::string& name, bool zero_allowed) const {
  return time_at(row, column(name), zero_allowed);
}

double CsvTable::time_at(size_t row, size_t col, bool zero_allowed) const {
  const double v = number_at(row, col);
  if (v < 0 || (v == 0 && !zero_allowed)) {
    size_t length = 0;
    const char* start = field(row, col, &length);
    throw_error("%s:%d: column %s is a measured time, expected %s, got %s", path_.c_str(), lines_[row],
                header_[col].c_str(), zero_allowed ? ">= 0" : "> 0", std::string(start, length).c_str());
  }
  return v;
}

}  // namespace lynx
