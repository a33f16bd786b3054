// Streams a text file line by line through one buffer of `buffer_bytes` (more only for a line longer than it), so
// reading a trace takes memory for the buffer and for what the caller keeps, not for the file. The default, 64 KiB,
// stays in a core's L2 cache beside the simulation that consumes the lines (a 1 MiB buffer swept the network
// solver's data out of it: the Mooncake benchmark ran about 1% slower as a whole process, 16
// alternated rounds), and a run of one request reads its first line without zeroing and filling more.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace lynx {

class LineReader {
 public:
  // The longest line read (a trace row with a 128K-token prompt's prefix block ids is tens of KB): a file with no
  // newline in this many bytes is refused by its path and line, not read into memory to its end.
  static constexpr size_t kMaxLineBytes = size_t{256} << 20;
  // Opens `path`; throws LynxError naming it if it cannot be opened.
  explicit LineReader(const std::string& path, size_t buffer_bytes = 1 << 16);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line, without its '\n' or "\r\n" (and without a UTF-8 byte-order mark on line 1). The view stays
  // valid until the next call. Returns false at the end of the file.
  bool next(std::string_view& line);
  // 1-based number of the line `next` returned last.
  size_t line_number() const { return line_number_; }
  // Bytes consumed so far (all of the file once next() returned false).
  uint64_t bytes_read() const { return bytes_read_; }
  const std::string& path() const { return path_; }

 private:
  bool fill();  // moves the unread tail to the front, reads more; false when nothing more was read
  std::string path_;
  FILE* file_ = nullptr;
  std::vector<char> buffer_;
  size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  size_t line_number_ = 0;
  uint64_t bytes_read_ = 0;
};

}  // namespace lynx
