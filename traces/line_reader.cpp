#include "common/atomic_file.hpp"
#include "traces/line_reader.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/error.hpp"

namespace lynx {

LineReader::LineReader(const std::string& path, size_t buffer_bytes)
    : path_(path), buffer_(std::max<size_t>(buffer_bytes, 1)) {
  file_ = open_input_file(path);  // a regular file only (common/atomic_file.hpp): /dev/zero has no lines
}

LineReader::~LineReader() {
  if (file_) std::fclose(file_);
}

bool LineReader::fill() {
  if (eof_) return false;
  size_t tail = end_ - begin_;
  if (begin_ > 0 && tail > 0) std::memmove(buffer_.data(), buffer_.data() + begin_, tail);
  begin_ = 0;
  end_ = tail;
  if (end_ == buffer_.size()) {  // a line longer than the buffer
    if (buffer_.size() >= kMaxLineBytes)
      throw_error("%s:%zu: a line longer than %zu MiB (no newline in it): not a text file of rows", path_.c_str(),
                  line_number_ + 1, kMaxLineBytes >> 20);
    buffer_.resize(std::min(buffer_.size() * 2, kMaxLineBytes));
  }
  size_t got = std::fread(buffer_.data() + end_, 1, buffer_.size() - end_, file_);
  if (got == 0) {
    if (std::ferror(file_)) throw_error("%s: read error: %s", path_.c_str(), std::strerror(errno));
    eof_ = true;
    return false;
  }
  end_ += got;
  return true;
}

bool LineReader::next(std::string_view& line) {
  size_t searched = begin_;  // bytes before this offset hold no '\n'
  for (;;) {
    const char* start = buffer_.data() + searched;
    const void* newline = std::memchr(start, '\n', end_ - searched);
    if (newline) {
      size_t at = static_cast<size_t>(static_cast<const char*>(newline) - buffer_.data());
      size_t length = at - begin_;
      bytes_read_ += length + 1;
      line = std::string_view(buffer_.data() + begin_, length);
      begin_ = at + 1;
      break;
    }
    size_t offset = searched - begin_;
    if (!fill()) {
      if (begin_ == end_) return false;
      bytes_read_ += end_ - begin_;
      line = std::string_view(buffer_.data() + begin_, end_ - begin_);  // last line without '\n'
      begin_ = end_;
      break;
    }
    searched = begin_ + offset;
  }
  ++line_number_;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line_number_ == 1 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
  return true;
}

}  // namespace lynx
