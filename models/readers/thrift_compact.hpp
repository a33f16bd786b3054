// A reader of the Thrift compact protocol, the encoding of Parquet's footer (FileMetaData) and page headers
// (https://github.com/apache/thrift/blob/master/doc/specs/thrift-compact-protocol.md). Only what Parquet uses:
// structs, lists, i32/i64 zigzag varints, binary, bool, double; unknown fields are skipped, so a newer writer's
// extra fields are harmless. Every read is bounded by the buffer: running off its end, a varint longer than 10
// bytes, a list longer than the bytes left, or nesting deeper than 64 is one LynxError naming `where` (the file and
// the structure being read), never an out-of-bounds read or an unbounded allocation.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>

#include "common/error.hpp"

namespace lynx {

class ThriftCompactReader {
 public:
  // Compact-protocol element types (the low nibble of a field header).
  enum Type : int { kStop = 0, kTrue = 1, kFalse = 2, kByte = 3, kI16 = 4, kI32 = 5, kI64 = 6, kDouble = 7,
                    kBinary = 8, kList = 9, kSet = 10, kMap = 11, kStruct = 12 };

  ThriftCompactReader(const uint8_t* begin, const uint8_t* end, std::string where)
      : begin_(begin), p_(begin), end_(end), where_(std::move(where)) {}

  size_t consumed() const { return static_cast<size_t>(p_ - begin_); }
  const std::string& where() const { return where_; }

  [[noreturn]] void fail(const std::string& what) const {
    throw LynxError(where_ + ": " + what + " (at byte " + std::to_string(consumed()) + " of the Thrift structure)");
  }

  uint8_t byte() {
    if (p_ >= end_) fail("the structure runs past the end of its bytes");
    return *p_++;
  }
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      const uint8_t b = byte();
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
    fail("a varint longer than 10 bytes");
  }
  int64_t zigzag() {
    const uint64_t v = varint();
    return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
  }
  int64_t i64() { return zigzag(); }
  int32_t i32() {
    const int64_t v = zigzag();
    if (v < INT32_MIN || v > INT32_MAX) fail("an i32 field out of range");
    return static_cast<int32_t>(v);
  }
  double dbl() {
    if (end_ - p_ < 8) fail("a double runs past the end of its bytes");
    double d;
    std::memcpy(&d, p_, 8);
    p_ += 8;
    return d;
  }
  std::string binary() {
    const uint64_t n = varint();
    if (n > static_cast<uint64_t>(end_ - p_)) fail("a string longer than the bytes left");
    std::string s(reinterpret_cast<const char*>(p_), static_cast<size_t>(n));
    p_ += n;
    return s;
  }
  // A bool field's value is its type nibble (struct fields) or one byte (list elements).
  bool boolean_field(int type) {
    if (type == kTrue) return true;
    if (type == kFalse) return false;
    fail("a bool field of type " + std::to_string(type));
  }

  // Calls field(id, type) for each field of the struct at the cursor; `field` reads the value (with the reads
  // above, list() or a nested struct_fields()) or calls skip(type).
  template <typename Field>
  void struct_fields(Field&& field) {
    enter();
    int16_t last_id = 0;
    for (;;) {
      const uint8_t header = byte();
      const int type = header & 0x0f;
      if (type == kStop) break;
      const int delta = header >> 4;
      int64_t id = delta != 0 ? last_id + delta : zigzag();
      if (id < INT16_MIN || id > INT16_MAX) fail("a field id out of range");
      last_id = static_cast<int16_t>(id);
      field(static_cast<int>(id), type);
    }
    leave();
  }

  // Reads a list header and calls element(elem_type) once per element. The count is checked against the bytes
  // left (every element takes at least one byte), so a forged count cannot make the caller reserve memory.
  template <typename Element>
  void list(Element&& element) {
    enter();
    const uint8_t header = byte();
    uint64_t n = header >> 4;
    const int type = header & 0x0f;
    if (n == 15) n = varint();
    if (n > static_cast<uint64_t>(end_ - p_)) fail("a list longer than the bytes left");
    for (uint64_t i = 0; i < n; i++) element(type);
    leave();
  }
  // The element of a list<bool> is one byte.
  bool list_boolean() { return byte() == 1; }

  void skip(int type) {
    switch (type) {
      case kTrue: case kFalse: return;
      case kByte: byte(); return;
      case kI16: case kI32: case kI64: varint(); return;
      case kDouble: dbl(); return;
      case kBinary: {
        const uint64_t n = varint();
        if (n > static_cast<uint64_t>(end_ - p_)) fail("a string longer than the bytes left");
        p_ += n;
        return;
      }
      case kList: case kSet:
        list([&](int t) { t == kTrue || t == kFalse ? (void)byte() : skip(t); });
        return;
      case kMap: {
        enter();
        const uint64_t n = varint();
        if (n > static_cast<uint64_t>(end_ - p_)) fail("a map longer than the bytes left");
        if (n > 0) {
          const uint8_t kv = byte();
          for (uint64_t i = 0; i < n; i++) {
            skip_element(kv >> 4);
            skip_element(kv & 0x0f);
          }
        }
        leave();
        return;
      }
      case kStruct:
        struct_fields([&](int, int t) { skip(t); });
        return;
      default:
        fail("an unknown Thrift type " + std::to_string(type));
    }
  }

 private:
  void skip_element(int type) { type == kTrue || type == kFalse ? (void)byte() : skip(type); }
  void enter() {
    if (++depth_ > 64) fail("Thrift structures nested deeper than 64");
  }
  void leave() { --depth_; }

  const uint8_t* begin_;
  const uint8_t* p_;
  const uint8_t* end_;
  std::string where_;
  int depth_ = 0;
};

}  // namespace lynx
