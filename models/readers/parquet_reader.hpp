// The project's own reader of Apache Parquet files (https://parquet.apache.org/docs/file-format/), enough for the
// kernel tables of NVIDIA AIConfigurator (the data folder's calibration/aiconfigurator/), which no Debian package
// reads. Written from the format specification (parquet-format's parquet.thrift and Encodings.md), not from another implementation.
//
// What it reads: the footer (magic "PAR1", FileMetaData in the Thrift compact protocol, thrift_compact.hpp); flat
// schemas only (one level of leaf columns, REQUIRED or OPTIONAL; nested or REPEATED columns are refused); physical
// types BOOLEAN, INT32, INT64, FLOAT, DOUBLE, BYTE_ARRAY (strings); every row group; dictionary pages, data pages
// v1 and v2; encodings PLAIN, RLE (the bit-packed/RLE hybrid, for definition levels and booleans),
// PLAIN_DICTIONARY and RLE_DICTIONARY; codecs UNCOMPRESSED, SNAPPY (libsnappy) and ZSTD (libzstd). Anything else
// (another codec, a DELTA_* encoding, INT96, FIXED_LEN_BYTE_ARRAY) is one LynxError that names it.
//
// Whole-table reads only: a kernel table is at most a few MB, and every lookup scans it. Every length and offset in
// the file is checked against the file's size (and each page's against its own bytes) before it is used, and the
// decoded size is bounded by ParquetLimits, so a damaged, truncated or forged file is one LynxError naming the file
// and what is wrong with it, never a crash, a hang or a huge allocation.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace lynx {

// Bounds on what a file may make the reader allocate (defaults: far above the largest AIConfigurator table, which
// has about 110,000 rows of 16 columns and pages under 2 MB).
struct ParquetLimits {
  int64_t max_cells = int64_t{1} << 26;       // rows x columns over the whole file
  int64_t max_page_bytes = int64_t{1} << 28;  // one page's uncompressed size
};

// One column, decoded. Numbers are kept as int64 (BOOLEAN, INT32, INT64) or double (FLOAT, DOUBLE); strings as an
// index per row into `pool` (a dictionary-encoded column shares its dictionary's entries). A null row has
// present[row] == 0 (and a zero / index -1 value).
struct ParquetColumn {
  enum class Kind { integer, real, text };
  std::string name;
  Kind kind = Kind::integer;
  std::string physical_type;  // "INT64", "DOUBLE", "BYTE_ARRAY", ... (for messages)
  bool optional = false;
  std::vector<int64_t> ints;
  std::vector<double> reals;
  std::vector<int32_t> text_index;
  std::vector<std::string> pool;
  std::vector<uint8_t> present;
};

class ParquetTable {
 public:
  // Reads the whole file; any problem is one LynxError that starts with the path.
  explicit ParquetTable(const std::string& path, const ParquetLimits& limits = {});
  // Reads only the columns named that the file has (the others' pages are not decoded, nor checked); columns()
  // then holds those alone. A name the file lacks is no error here: has_column() says so, column() names it.
  ParquetTable(const std::string& path, const std::vector<std::string>& only_columns, const ParquetLimits& limits = {});
  // Reads a file already in memory; `name` stands for the path in messages (tests, the fuzz harness).
  static ParquetTable from_bytes(const std::string& bytes, const std::string& name, const ParquetLimits& limits = {},
                                 const std::vector<std::string>* only_columns = nullptr);

  const std::string& path() const { return path_; }
  int64_t rows() const { return rows_; }
  const std::string& created_by() const { return created_by_; }
  const std::vector<ParquetColumn>& columns() const { return columns_; }
  bool has_column(const std::string& name) const;
  // The column by name; a missing one is a LynxError naming the file, the column and the columns there are.
  const ParquetColumn& column(const std::string& name) const;

  // One cell. number(): an integer or real column as double; text(): a string column. A null cell, a row out of
  // range or a column of the other kind is a LynxError naming the file, column and row.
  double number(int64_t row, const std::string& name) const { return number(row, column(name)); }
  double number(int64_t row, const ParquetColumn& c) const;
  const std::string& text(int64_t row, const std::string& name) const { return text(row, column(name)); }
  const std::string& text(int64_t row, const ParquetColumn& c) const;

 private:
  ParquetTable() = default;
  void parse(const std::string& bytes, const ParquetLimits& limits, const std::vector<std::string>* only_columns);
  std::string path_;
  std::string created_by_;
  int64_t rows_ = 0;
  std::vector<ParquetColumn> columns_;
  std::vector<std::string> file_columns_;  // every column of the file's schema, for messages
};

}  // namespace lynx
