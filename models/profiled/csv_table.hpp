// A small reader for the published measurement CSVs under the calibration data folder (a header line, then rows of
// plain comma-separated fields, no quoting). Columns are looked up by name; a missing column, a short row or a
// field that is not a number (or a time that is not finite and positive) is one LynxError naming the file and line.
// calibration_dir(): where those measurements live (read at run time, never copied into the repository).
// The file is held as one string with each line's start and end (not a string per field: the h100 profile reads
// 3.4 MB of CSV, 300,000 fields, at every run's start-up, and a run uses a few of its columns); each line's field
// count is checked when the file is read (8 bytes at a time), a field is found when asked for by skipping commas
// from the nearer end of its line (vidur's mlp.csv rows have 58 fields, the TP degree and token count among the
// last: a start-up reads those two of every row), and converted only then (std::from_chars, with strtod's reading
// wherever from_chars does not take the whole field: the same values and errors).
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace lynx {

// <data folder>/calibration (common/data_folder.hpp: --data-dir / $LYNX_DATA_DIR, else ../shared/data beside the
// checkout, else data/ in the checkout).
std::string calibration_dir();

class CsvTable {
 public:
  explicit CsvTable(const std::string& path);  // throws LynxError naming the file if it cannot be read

  size_t rows() const { return lines_.size(); }
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
  const char* field(size_t row, size_t column, size_t* length) const;
  std::string path_;
  std::string data_;                    // the whole file
  std::vector<std::string> header_;
  std::unordered_map<std::string, size_t> column_of_;  // header name -> column (the first, if repeated)
  std::vector<uint32_t> line_bounds_;   // per row: its line's start and end offsets in data_ (end before any '\r')
  std::vector<int> lines_;
};

}  // namespace lynx
