// A small reader for the published measurement CSVs under the calibration data folder (a header line, then rows of
// plain comma-separated fields, no quoting). Columns are looked up by name; a missing column, a short row or a
// field that is not a number (or a time that is not finite and positive) is one LynxError naming the file and line.
// calibration_dir(): where those measurements live (read at run time, never copied into the repository).
// The file is held as one string with each line's start and end (not a string per field: the h100 profile reads
// 3.4 MB of CSV, 300,000 fields, at every run's start-up, and a run uses a few of its columns); each line's field
// count is checked when the file is read (std::count of its commas), a field is found when asked for by skipping commas
// from the nearer end of its line (vidur's mlp.csv rows have 58 fields, the TP degree and token count among the
// last: a start-up reads those two of every row), and converted only then (std::from_chars, with strtod's reading
// wherever from_chars does not take the whole field: the same values and errors).
// A file the data manifest vouches for (its sha256 checked in this process) is read from its column cache where
// there is one (csv_column_cache.hpp: the same field texts, column by column, a column read when first asked for),
// and the cache is written after the first full read; a cache column that does not check makes the table read
// the file after all. Either way every field, number and error is the same.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/readers/csv_column_cache.hpp"

namespace lynx {

// <data folder>/calibration (common/data_folder.hpp: --data-dir / $LYNX_DATA_DIR, else ../shared/data beside the
// checkout, else data/ in the checkout).
std::string calibration_dir();

class CsvTable {
 public:
  explicit CsvTable(const std::string& path);  // throws LynxError naming the file if it cannot be read
  // The source's sha256 where it is known ("" for none: no cache is read or written) and where its column cache
  // lives ("": CsvColumnCache::path_for the digest). The constructor above passes the manifest's digest; tests
  // their own.
  CsvTable(const std::string& path, const std::string& sha256, const std::string& cache_file);
  bool from_cache() const { return cache_ != nullptr; }  // read from the column cache (not the whole file)

  size_t rows() const { return lines_.size(); }
  size_t columns() const { return header_.size(); }
  const std::string& column_name(size_t column) const { return header_[column]; }
  bool has_column(const std::string& name) const;
  // Field of row `row` (0-based data row) in column `name`, as text or as a number; errors name file and line.
  std::string text(size_t row, const std::string& name) const;
  // A number is finite (NaN and infinities are refused). A measured time is also > 0 (>= 0 with zero_allowed: a
  // part of a sum that may take no time), so no impossible calibration reaches the model or the MAPE.
  double number(size_t row, const std::string& name) const;
  double time(size_t row, const std::string& name, bool zero_allowed = false) const;
  // The same by column index (column_index: the first column of that name, else the error of a missing column), for
  // loops over many rows: no name lookup per field.
  size_t column_index(const std::string& name) const { return column(name); }
  double number_at(size_t row, size_t column) const;
  double time_at(size_t row, size_t column, bool zero_allowed = false) const;
  int line_of(size_t row) const { return lines_[row]; }  // 1-based line in the file
  const std::string& path() const { return path_; }

 private:
  size_t column(const std::string& name) const;
  // The field's text; or, with `plain_value`, null where the cache holds the field's value as a plain number (set
  // there).
  const char* field(size_t row, size_t column, size_t* length, double* plain_value = nullptr) const;
  const char* text_field(size_t row, size_t column, size_t* length) const;
  void write_cache(const std::string& sha256, const std::string& cache_file) const;
  std::string path_;
  mutable std::string data_;            // the whole file (empty while read from the cache)
  std::vector<std::string> header_;
  std::unordered_map<std::string, size_t> column_of_;  // header name -> column (the first, if repeated)
  mutable std::vector<uint32_t> line_bounds_;  // per row: its line's start and end offsets in data_ (end before '\r')
  std::vector<int> lines_;
  // Read from the cache: the columns read so far (the whole file read instead once a column does not check).
  std::unique_ptr<CsvColumnCache> cache_;
  mutable std::vector<std::unique_ptr<CsvCachedColumn>> cached_;
  mutable bool text_read_ = true;
  mutable std::mutex mutex_;  // cached_, text_read_ and the file's text read late
};

}  // namespace lynx
