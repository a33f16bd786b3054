// A measurement CSV's fields kept column by column in a cache file, so that a run reads only the columns it uses.
// Why: a run's profiled cost model needs, of the H100 profile's 3.9 MB of CSV (five vidur mlp.csv of 58 columns,
// NCCL, CPU overheads), two columns of every mlp.csv row (TP degree, token count), one row's shape and then the
// dozen median columns its model picks. The cache holds the same field texts as the file, so a table read from it
// gives the same numbers and the same errors (csv_table.hpp converts the text either way). The plain twin is
// CsvTable's full read of the file, which every table falls back to.
//
// What it saves, measured with and without it (a cache folder holding the manifest's sha256 cache, with the tables'
// caches in it, against one where "tables" is a file, so that no cache is read or written):
//   a one-request simulation, `lynxsim simulate --config experiments/configs/mooncake_8x8_h200_100g.json
//   --set workload.first_n=1` (vidur-2024, the profiled model): 138 M instructions against 323 M (callgrind), and
//   0.54x the CPU time (median of 15 alternated pairs, whole processes);
//   `lynxsim validate`: 14.1 s of CPU against 16.8 s (one run each).
// Reproduce: LYNX_CACHE_DIR=DIR for each folder, DIR/data-sha256.tsv copied from the user's cache folder.
//
// Which files: only a file whose sha256 is known to be the data manifest's (common/data_manifest.hpp: checked in
// this process, by hash or by the size+mtime cache). The cache file is named by that sha256, and says it in its
// head, so an edited source never meets a stale cache: its digest, hence its cache file, is another one. Where:
// <cache folder>/tables/<sha256>.csvcols (the folder of data_manifest_cache_path: never in the repository or the
// data folder); written once, after a successful read of the file, by an atomic rename; a cache that cannot be
// written only costs the next run a full read.
//
// Layout (this machine's byte order: the cache is never moved between machines; a foreign one fails its checks):
//   "LYNXCSV2", u64 head bytes, 64 hex digits of the source's sha256, u32 columns, u32 rows, u64 checksum of the
//   rest of the head; then per column u32 name length + name, per row u32 line number in the source, per column a
//   slice (u64 offset, u64 bytes, u64 checksum). A column's slice: u32 starts[rows + 1] into its text, f64
//   values[rows], u8 plain[rows] (csv_plain_number of each field: a run reads its numbers without converting text),
//   then its fields each followed by one NUL (field i is text[starts[i], starts[i + 1] - 1)). Every length, offset and
//   checksum is checked before use; anything that does not check is a miss (the head) or makes the table read the
//   source file instead (a column), never an error and never a wrong number.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace lynx {

// A field that is a plain finite decimal number, read as CsvTable reads one first: std::from_chars takes all of it,
// and the value is finite and not subnormal. Anything else (a sign, spaces, hexadecimal, out of range, text) is
// left to CsvTable's strtod reading and its errors.
bool csv_plain_number(const char* text, size_t length, double* value);

// One column as read from the cache: fields' start offsets (rows + 1 of them), the NUL-separated text, and each
// field's value where it is a plain number (`plain[row]` 1; the value as csv_plain_number read it, bit for bit).
struct CsvCachedColumn {
  std::vector<uint32_t> starts;
  std::string text;
  std::vector<double> values;
  std::vector<uint8_t> plain;
  std::string_view field(size_t row) const {
    return std::string_view(text.data() + starts[row], starts[row + 1] - starts[row] - 1);
  }
};

class CsvColumnCache {
 public:
  // The cache file of a source with this sha256 ("" when no cache folder can be named).
  static std::string path_for(const std::string& sha256);
  // The cache at `file` if it exists, is whole and was made from a source of `sha256`; else null.
  static std::unique_ptr<CsvColumnCache> open(const std::string& file, const std::string& sha256);
  // Writes the cache of a table (header names, each row's line number, fields[column][row]) by an atomic rename,
  // creating the folder; false where it cannot (no error: the cache only saves time).
  static bool write(const std::string& file, const std::string& sha256, const std::vector<std::string>& header,
                    const std::vector<int>& lines, const std::vector<std::vector<std::string_view>>& fields);

  const std::vector<std::string>& header() const { return header_; }
  const std::vector<int>& lines() const { return lines_; }
  // Reads column `column` into `out`; false where its slice does not check (short file, checksum, offsets).
  bool load(size_t column, CsvCachedColumn& out) const;
  ~CsvColumnCache();

 private:
  CsvColumnCache() = default;
  struct Slice {
    uint64_t offset = 0, bytes = 0, checksum = 0;
  };
  int fd_ = -1;
  uint64_t file_bytes_ = 0;
  std::vector<std::string> header_;
  std::vector<int> lines_;
  std::vector<Slice> slices_;
};

// The 64-bit checksum of the cache's head and slices (8 bytes at a time, multiply and rotate; it detects a torn or
// damaged file, it is no defence against a crafted one: the cache folder is the user's own).
uint64_t csv_cache_checksum(const char* data, size_t bytes);

}  // namespace lynx
