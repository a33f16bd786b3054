#include "models/readers/csv_column_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "common/atomic_file.hpp"
#include "common/data_manifest.hpp"
#include "common/error.hpp"

namespace lynx {

namespace {
constexpr char kMagic[8] = {'L', 'Y', 'N', 'X', 'C', 'S', 'V', '2'};
constexpr size_t kShaDigits = 64;
// magic, head bytes, sha256, columns, rows, head checksum
constexpr size_t kFixedHead = 8 + 8 + kShaDigits + 4 + 4 + 8;
constexpr uint64_t kMaxRows = uint64_t{1} << 28, kMaxColumns = uint64_t{1} << 16;

bool read_at(int fd, void* out, size_t bytes, uint64_t offset) {
  char* p = static_cast<char*>(out);
  while (bytes > 0) {
    const ssize_t got = ::pread(fd, p, bytes, static_cast<off_t>(offset));
    if (got <= 0) return false;
    p += got;
    bytes -= static_cast<size_t>(got);
    offset += static_cast<uint64_t>(got);
  }
  return true;
}

// Reads fixed-size values from a byte range, failing (not throwing) past its end.
struct Cursor {
  const char* at;
  const char* end;
  template <class T>
  bool take(T& value) {
    if (static_cast<size_t>(end - at) < sizeof(T)) return false;
    std::memcpy(&value, at, sizeof(T));
    at += sizeof(T);
    return true;
  }
  bool take_text(std::string& text, size_t bytes) {
    if (static_cast<size_t>(end - at) < bytes) return false;
    text.assign(at, bytes);
    at += bytes;
    return true;
  }
};

template <class T>
void put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(T));
}
}  // namespace

bool csv_plain_number(const char* text, size_t length, double* value) {
  double v = 0;
  const std::from_chars_result r = std::from_chars(text, text + length, v);
  if (length == 0 || r.ec != std::errc() || r.ptr != text + length || std::fpclassify(v) == FP_SUBNORMAL ||
      !std::isfinite(v))
    return false;
  *value = v;
  return true;
}

uint64_t csv_cache_checksum(const char* data, size_t bytes) {
  constexpr uint64_t kMul = 0x9e3779b97f4a7c15ULL;
  uint64_t h = 0x243f6a8885a308d3ULL ^ (static_cast<uint64_t>(bytes) * kMul);
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t word;
    std::memcpy(&word, data + i, 8);
    h = (h ^ word) * kMul;
    h ^= h >> 31;
  }
  uint64_t tail = 0;
  std::memcpy(&tail, data + i, bytes - i);
  h = (h ^ tail ^ (static_cast<uint64_t>(bytes - i) << 56)) * kMul;
  return h ^ (h >> 29);
}

std::string CsvColumnCache::path_for(const std::string& sha256) {
  const std::string folder = lynx_cache_dir();
  return folder.empty() ? "" : folder + "/tables/" + sha256 + ".csvcols";
}

CsvColumnCache::~CsvColumnCache() {
  if (fd_ >= 0) ::close(fd_);
}

std::unique_ptr<CsvColumnCache> CsvColumnCache::open(const std::string& file, const std::string& sha256) {
  if (file.empty() || sha256.size() != kShaDigits) return nullptr;
  int fd = -1;
  try {
    fd = open_input_fd(file);  // a regular file only (common/atomic_file.hpp); anything else: no cache
  } catch (const LynxError&) {
    return nullptr;
  }
  std::unique_ptr<CsvColumnCache> cache(new CsvColumnCache());
  cache->fd_ = fd;
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) return nullptr;
  cache->file_bytes_ = static_cast<uint64_t>(info.st_size);
  char fixed[kFixedHead];
  if (cache->file_bytes_ < kFixedHead || !read_at(fd, fixed, kFixedHead, 0)) return nullptr;
  if (std::memcmp(fixed, kMagic, sizeof kMagic) != 0) return nullptr;
  Cursor c{fixed + sizeof kMagic, fixed + kFixedHead};
  uint64_t head_bytes = 0, head_checksum = 0;
  uint32_t columns = 0, rows = 0;
  std::string sha;
  c.take(head_bytes);
  c.take_text(sha, kShaDigits);
  c.take(columns);
  c.take(rows);
  c.take(head_checksum);
  if (sha != sha256 || columns == 0 || columns > kMaxColumns || rows > kMaxRows || head_bytes < kFixedHead ||
      head_bytes > cache->file_bytes_)
    return nullptr;
  // The head holds at least each column's name length and slice, and each row's line: checked before anything
  // is sized by those counts.
  if (head_bytes - kFixedHead < uint64_t{columns} * (4 + 3 * sizeof(uint64_t)) + uint64_t{rows} * 4) return nullptr;
  std::string head(head_bytes - kFixedHead, '\0');
  if (!read_at(fd, head.data(), head.size(), kFixedHead)) return nullptr;
  if (csv_cache_checksum(head.data(), head.size()) != head_checksum) return nullptr;
  Cursor h{head.data(), head.data() + head.size()};
  cache->header_.resize(columns);
  for (std::string& name : cache->header_) {
    uint32_t length = 0;
    if (!h.take(length) || !h.take_text(name, length)) return nullptr;
  }
  cache->lines_.resize(rows);
  for (int& line : cache->lines_) {
    uint32_t number = 0;
    if (!h.take(number)) return nullptr;
    line = static_cast<int>(number);
  }
  cache->slices_.resize(columns);
  for (Slice& s : cache->slices_) {
    if (!h.take(s.offset) || !h.take(s.bytes) || !h.take(s.checksum)) return nullptr;
    if (s.offset < head_bytes || s.offset > cache->file_bytes_ || s.bytes > cache->file_bytes_ - s.offset)
      return nullptr;
  }
  if (h.at != h.end) return nullptr;
  return cache;
}

bool CsvColumnCache::load(size_t column, CsvCachedColumn& out) const {
  if (column >= slices_.size()) return false;
  const Slice& s = slices_[column];
  const size_t rows = lines_.size(), starts_bytes = (rows + 1) * sizeof(uint32_t);
  const size_t numbers_bytes = rows * (sizeof(double) + 1), head = starts_bytes + numbers_bytes;
  if (s.bytes < head) return false;
  std::string slice(s.bytes, '\0');
  if (!read_at(fd_, slice.data(), slice.size(), s.offset)) return false;
  if (csv_cache_checksum(slice.data(), slice.size()) != s.checksum) return false;
  out.starts.resize(rows + 1);
  std::memcpy(out.starts.data(), slice.data(), starts_bytes);
  out.values.resize(rows);
  std::memcpy(out.values.data(), slice.data() + starts_bytes, rows * sizeof(double));
  out.plain.assign(slice.begin() + static_cast<std::ptrdiff_t>(starts_bytes + rows * sizeof(double)),
                   slice.begin() + static_cast<std::ptrdiff_t>(head));
  out.text.assign(slice, head, std::string::npos);
  // Each field is non-negative in length and ends with its NUL; the last ends the text.
  if (out.starts[0] != 0 || out.starts[rows] != out.text.size()) return false;
  for (size_t r = 0; r < rows; ++r)
    if (out.starts[r + 1] <= out.starts[r] || out.text[out.starts[r + 1] - 1] != '\0' || out.plain[r] > 1) return false;
  return true;
}

bool CsvColumnCache::write(const std::string& file, const std::string& sha256, const std::vector<std::string>& header,
                           const std::vector<int>& lines, const std::vector<std::vector<std::string_view>>& fields) {
  if (file.empty() || sha256.size() != kShaDigits || header.empty() || header.size() != fields.size() ||
      header.size() > kMaxColumns || lines.size() > kMaxRows)
    return false;
  std::string rest;  // the head after its fixed part
  for (const std::string& name : header) {
    put(rest, static_cast<uint32_t>(name.size()));
    rest += name;
  }
  for (int line : lines) put(rest, static_cast<uint32_t>(line));
  std::vector<std::string> slices;
  slices.reserve(fields.size());
  for (const std::vector<std::string_view>& column : fields) {
    if (column.size() != lines.size()) return false;
    std::string starts, values, plain, text;
    put(starts, uint32_t{0});
    for (std::string_view f : column) {
      double v = 0;
      const bool is_plain = csv_plain_number(f.data(), f.size(), &v);
      put(values, is_plain ? v : 0.0);
      plain += static_cast<char>(is_plain ? 1 : 0);
      text.append(f.data(), f.size());
      text += '\0';
      if (text.size() >= (uint64_t{1} << 32)) return false;
      put(starts, static_cast<uint32_t>(text.size()));
    }
    slices.push_back(starts + values + plain + text);
  }
  const uint64_t head_bytes = kFixedHead + rest.size() + slices.size() * 3 * sizeof(uint64_t);
  uint64_t offset = head_bytes;
  for (const std::string& s : slices) {
    put(rest, offset);
    put(rest, static_cast<uint64_t>(s.size()));
    put(rest, csv_cache_checksum(s.data(), s.size()));
    offset += s.size();
  }
  std::string out(kMagic, sizeof kMagic);
  put(out, head_bytes);
  out += sha256;
  put(out, static_cast<uint32_t>(header.size()));
  put(out, static_cast<uint32_t>(lines.size()));
  put(out, csv_cache_checksum(rest.data(), rest.size()));
  out += rest;
  for (const std::string& s : slices) out += s;
  try {
    std::error_code error;
    std::filesystem::create_directories(std::filesystem::path(file).parent_path(), error);
    write_file_atomic(file, out);
  } catch (const LynxError&) {
    return false;
  }
  return true;
}

}  // namespace lynx
