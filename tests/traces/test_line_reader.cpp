#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "trace_test_util.hpp"
#include "traces/json_line.hpp"
#include "traces/line_reader.hpp"

using namespace lynx;
using lynx_test::error_of;
using lynx_test::write_temp;

namespace {
std::vector<std::string> all_lines(const std::string& path, size_t buffer_bytes) {
  LineReader reader(path, buffer_bytes);
  std::vector<std::string> lines;
  std::string_view line;
  while (reader.next(line)) {
    lines.emplace_back(line);
    CHECK(reader.line_number() == lines.size());
  }
  return lines;
}
}  // namespace

TEST_CASE("LineReader streams through a small buffer: every buffer size gives the same lines") {
  std::string text = "\xEF\xBB\xBFheader\r\nshort\n\n" + std::string(100, 'x') + "\nlast without newline";
  std::string path = write_temp("lines.txt", text);
  std::vector<std::string> expected = {"header", "short", "", std::string(100, 'x'), "last without newline"};
  for (size_t size : {1, 2, 3, 7, 64, 1 << 20}) {
    CAPTURE(size);
    CHECK(all_lines(path, size) == expected);
  }
  LineReader reader(path, 5);
  std::string_view line;
  while (reader.next(line)) {
  }
  CHECK(reader.bytes_read() == text.size());
}

TEST_CASE("LineReader: a line longer than the buffer grows it, every buffer size gives the same lines") {
  // 300 KB of lines of every length to 700 bytes, one of 100 KB early on: with 4 and 64 KiB buffers the long line
  // grows the buffer (it spans reads), with 1 MiB the file is one read.
  std::vector<std::string> expected;
  std::string text;
  for (size_t i = 0; text.size() < 300000; ++i) {
    expected.push_back(i == 50 ? std::string(100000, 'L') : std::string(i % 701, static_cast<char>('a' + i % 26)));
    text += expected.back() + (i % 3 == 0 ? "\r\n" : "\n");
  }
  const std::string path = write_temp("grow.txt", text);
  for (size_t size : {4096, 65536, 1 << 20}) {
    CAPTURE(size);
    CHECK(all_lines(path, size) == expected);
  }
}

TEST_CASE("LineReader: empty file, missing file, trailing newline") {
  CHECK(all_lines(write_temp("empty.txt", ""), 4).empty());
  CHECK(all_lines(write_temp("one.txt", "a\n"), 4) == std::vector<std::string>{"a"});
  CHECK(error_of([] { LineReader r("/nonexistent/lynx.csv"); }) ==
        "/nonexistent/lynx.csv: cannot open file: No such file or directory");
}

TEST_CASE("JSON lines: members as raw text, malformed lines with their column") {
  std::vector<JsonMember> m;
  JsonLineError e;
  REQUIRE(json_line_scan(R"( {"timestamp": 0, "s": "a\"b", "hash_ids": [0, 1, 2], "o": {"x": [1, "]"]}, "t": true} )",
                         m, e));
  REQUIRE(m.size() == 5);
  CHECK(m[0].key == "timestamp");
  CHECK(m[0].value == "0");
  CHECK(m[1].kind == JsonKind::string);
  CHECK(m[1].value == R"(a\"b)");
  CHECK(m[2].kind == JsonKind::array);
  CHECK(m[2].value == "[0, 1, 2]");
  CHECK(m[3].kind == JsonKind::object);
  CHECK(m[4].kind == JsonKind::literal);
  CHECK(json_member_find(m, "hash_ids") == &m[2]);
  CHECK(json_member_find(m, "nope") == nullptr);
  REQUIRE(json_line_scan("{}", m, e));
  CHECK(m.empty());

  struct Bad {
    const char* line;
    size_t column;
    const char* reason;
  };
  for (Bad b : {Bad{"[1]", 1, "expected '{' (one JSON object a line)"},
                Bad{R"({"a": 1 "b": 2})", 9, "expected ',' or '}'"},
                Bad{R"({"a": })", 7, "expected a value"},
                Bad{R"({"a": 1)", 8, "expected ',' or '}'"},
                Bad{R"({"a": "x)", 9, "unterminated string"},
                Bad{R"({"a": [1, 2})", 12, "unbalanced brackets"},
                Bad{R"({"a": [1, 2)", 12, "unterminated array or object"},
                Bad{R"({"a": 1.})", 9, "expected digits after '.'"},
                Bad{R"({"a": tru})", 7, "expected a value"},
                Bad{R"({a: 1})", 2, "expected a quoted member name"},
                Bad{R"({"a": 1} x)", 10, "text after the object"}}) {
    CAPTURE(b.line);
    CHECK(!json_line_scan(b.line, m, e));
    CHECK(e.column == b.column);
    CHECK(e.reason == b.reason);
  }
}

TEST_CASE("prefix block id arrays") {
  std::vector<uint64_t> ids;
  CHECK(json_parse_id_array("[0, 14, 15]", ids));
  CHECK(ids == std::vector<uint64_t>{0, 14, 15});
  ids.clear();
  CHECK(json_parse_id_array(" [ ] ", ids));
  CHECK(ids.empty());
  CHECK(json_parse_id_array("[18446744073709551615]", ids));
  CHECK(ids.back() == UINT64_MAX);
  // 19 digits, and 26 digits of a small value (leading zeros)
  CHECK(json_parse_id_array("[9999999999999999999, 00000000000000000000000012]", ids));
  CHECK(ids[ids.size() - 2] == 9999999999999999999u);
  CHECK(ids.back() == 12);
  for (const char* bad : {"[1, -2]", "[1.5]", "[1,]", "[\"1\"]", "1", "[18446744073709551616]", "[99999999999999999999]",
                          "[1] 2", "null"}) {
    CAPTURE(bad);
    CHECK(!json_parse_id_array(bad, ids));
  }
}

TEST_CASE("prefix block id arrays: every digit count, spacing and tail agree with a digit-by-digit parse") {
  // Ids of 1 to 20 digits, with and without spaces around commas, ending at every distance from the end of the
  // text.
  std::mt19937_64 rng(7);
  for (int round = 0; round < 2000; ++round) {
    std::string text = "[";
    std::vector<uint64_t> expected;
    const int count = 1 + static_cast<int>(rng() % 12);
    for (int k = 0; k < count; ++k) {
      const int digits = 1 + static_cast<int>(rng() % 20);
      std::string number;
      for (int d = 0; d < digits; ++d) number += static_cast<char>('0' + rng() % 10);
      if (digits == 20) number[0] = '1', number[1] = '0';  // 10xxxxxxxxxxxxxxxxxx < 2^64
      expected.push_back(std::stoull(number));
      text += number;
      if (k + 1 < count) text += rng() % 2 ? ", " : (rng() % 2 ? "," : " ,\t");
    }
    text += rng() % 2 ? "]" : " ] ";
    CAPTURE(text);
    std::vector<uint64_t> ids;
    REQUIRE(json_parse_id_array(text, ids));
    CHECK(ids == expected);
  }
  // Every byte that is not a digit ends a number ("[123" c "4567890]" is an array only for a comma), bytes over 0x7f
  // included.
  std::vector<uint64_t> ids;
  for (int c = 0; c < 256; ++c) {
    if (c >= '0' && c <= '9') continue;
    CAPTURE(c);
    ids.clear();
    const std::string text = "[123" + std::string(1, static_cast<char>(c)) + "4567890]";
    CHECK(json_parse_id_array(text, ids) == (c == ','));
    if (c == ',') CHECK(ids == std::vector<uint64_t>{123, 4567890});
  }
  CHECK_FALSE(json_parse_id_array("[12\xfa" "4567890]", ids));
  CHECK_FALSE(json_parse_id_array("[1234567\xff" "9]", ids));
  ids.clear();
  CHECK(json_parse_id_array("[123456789012, 7]", ids));
  CHECK(ids == std::vector<uint64_t>{123456789012u, 7});
}

TEST_CASE("JSON lines: a bracket, brace or quote found at every offset of a nested array") {
  std::vector<JsonMember> m;
  JsonLineError e;
  for (size_t filler = 0; filler < 40; ++filler) {
    std::string body;
    for (size_t k = 0; k < filler; ++k) body += k % 2 == 1 ? ',' : '7';  // every length: every offset
    CAPTURE(filler);
    const std::string array = "[" + body + "1, \"]\", {\"k\": [2], \"z\": 123456789012345678}]";
    const std::string line = "{\"a\": " + array + ", \"b\": 3}";  // the members view it
    REQUIRE(json_line_scan(line, m, e));
    REQUIRE(m.size() == 2);
    CHECK(m[0].kind == JsonKind::array);
    CHECK(m[0].value == array);
    CHECK(m[1].value == "3");
    const std::string unbalanced = "{\"a\": [" + body + "12345678901234567}";
    CHECK_FALSE(json_line_scan(unbalanced, m, e));
    CHECK(e.column == unbalanced.size());
    CHECK(e.reason == "unbalanced brackets");
  }
}
