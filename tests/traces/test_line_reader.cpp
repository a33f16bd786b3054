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
  // 19 digits (unchecked), and 26 digits of a small value (the checked digits past the 19th)
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
  // Ids of 1 to 20 digits (the 8-at-once step, the unchecked and the checked digits), with and without spaces
  // around commas, ending at every distance from the end of the text (the 8-byte step needs 8 readable bytes).
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
  // Every byte that is not a digit ends a number inside the 8-byte step ("[123" c "4567890]" is an array only for a
  // comma); a byte over 0xf9 right after digits (its nibble test carries into the next byte) too.
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

TEST_CASE("prefix block id arrays: the check without the ids agrees with the parse") {
  // Arrays near the common form (ids of 1 to 22 digits, leading zeros, 20 digits on either side of 2^64 - 1, commas
  // with zero to two spaces around them) and with a stray byte put anywhere, at every length (so every 16-byte
  // step boundary): json_check_id_array says what json_parse_id_array says, and the common form is only ever taken
  // for a text the parse accepts.
  std::mt19937_64 rng(11);
  const char* const separators[] = {", ", ",", ",  ", " ,", " , ", ",\t"};
  const char strays[] = {'-', '.', 'a', '[', ']', ',', ' ', '\t', '"', '\x80', '\xff', '0', '9'};
  int common = 0, accepted = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string text = "[";
    const int count = static_cast<int>(rng() % 40);
    const bool canonical = rng() % 2 == 0;
    for (int k = 0; k < count; ++k) {
      const int digits = 1 + static_cast<int>(rng() % (canonical ? 19 : 22));
      std::string number;
      for (int d = 0; d < digits; ++d) number += static_cast<char>('0' + rng() % 10);
      if (digits == 20 && rng() % 2) number = rng() % 2 ? "18446744073709551615" : "18446744073709551616";
      if (!canonical && rng() % 8 == 0) number = std::string(1 + rng() % 24, '0') + number;
      text += number;
      if (k + 1 < count) text += canonical ? separators[rng() % 2] : separators[rng() % 6];
    }
    text += "]";
    if (!canonical && rng() % 2) text.insert(rng() % text.size(), 1, strays[rng() % sizeof strays]);
    CAPTURE(text);
    std::vector<uint64_t> ids, scratch;
    const bool parsed = json_parse_id_array(text, ids);
    CHECK(json_check_id_array(text, scratch) == parsed);
    const bool fast = json_id_array_common_form(text);
    if (fast) CHECK(parsed);
    common += fast;
    accepted += parsed;
#if defined(__SSE2__)
    if (canonical && count > 0) CHECK(fast);  // the common form, ids of at most 19 digits: never parsed
#endif
  }
  MESSAGE(common << " of " << accepted << " accepted arrays in the common form");
  CHECK(accepted > 5000);
  // An id of 19 digits (the form's longest) and one of 20 (left to the parse) starting at every offset of the first
  // two 64-byte steps, inside a step and across its end.
  for (size_t offset = 0; offset < 140; ++offset) {
    std::string filler;
    while (filler.size() < offset) filler += filler.size() + 3 <= offset ? "7, " : "7";
    for (const char* id : {"1234567890123456789", "12345678901234567890"}) {
      const std::string text = "[" + filler + (filler.empty() || filler.back() == ' ' ? "" : ", ") + id + ", 7]";
      CAPTURE(text);
      std::vector<uint64_t> ids, scratch;
      CHECK(json_check_id_array(text, scratch) == json_parse_id_array(text, ids));
#if defined(__SSE2__)
      CHECK(json_id_array_common_form(text) == (std::string(id).size() == 19));
#endif
    }
  }
}

TEST_CASE("JSON lines: a bracket, brace or quote found at every offset of an array's 16-byte steps") {
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

TEST_CASE("JSON lines: a row in the common layout gives the members json_line_scan gives, anything else no match") {
  const std::vector<std::string> keys = {"timestamp", "input_length", "output_length", "hash_ids"};
  const JsonLineLayout layout(keys, true);
  std::string_view v[4];
  REQUIRE(layout.match(R"({"timestamp": 0, "input_length": 6758, "output_length": 500, "hash_ids": [0, 1, 2]})", v));
  CHECK(v[0] == "0");
  CHECK(v[1] == "6758");
  CHECK(v[3] == "[0, 1, 2]");
  // Rows near the layout (a byte changed, dropped or added anywhere; members reordered, repeated or extra; spacing;
  // floats and signs; arrays outside the common form): wherever the layout matches, the full scan accepts the line
  // and gives each key the same raw value.
  std::mt19937_64 rng(13);
  int matched = 0, scanned_only = 0;
  for (int round = 0; round < 30000; ++round) {
    std::string ids;
    for (int k = 0, n = static_cast<int>(rng() % 30); k < n; ++k) ids += (k ? ", " : "") + std::to_string(rng() % 100000);
    std::vector<std::string> members = {"\"timestamp\": " + std::to_string(rng() % 100000),
                                        "\"input_length\": " + std::to_string(1 + rng() % 9999),
                                        "\"output_length\": " + std::to_string(rng() % 999), "\"hash_ids\": [" + ids + "]"};
    if (rng() % 8 == 0) std::swap(members[rng() % 4], members[rng() % 4]);
    if (rng() % 10 == 0) members.push_back(members[rng() % 4]);  // a repeated key
    if (rng() % 10 == 0) members.push_back("\"extra\": 1");
    if (rng() % 10 == 0) members[rng() % 3] = "\"timestamp\": 1.5";
    std::string line = "{";
    for (size_t k = 0; k < members.size(); ++k) line += (k ? (rng() % 12 ? ", " : " ,") : "") + members[k];
    line += "}";
    if (rng() % 2) {
      const char bytes[] = {',', ':', '[', ']', '{', '}', '"', ' ', '0', '-', '.', 'e', '\\', '\t'};
      const size_t at = rng() % line.size();
      switch (rng() % 3) {
        case 0: line[at] = bytes[rng() % sizeof bytes]; break;
        case 1: line.erase(at, 1); break;
        default: line.insert(at, 1, bytes[rng() % sizeof bytes]);
      }
    }
    CAPTURE(line);
    std::vector<JsonMember> scanned;
    JsonLineError error;
    const bool scan_ok = json_line_scan(line, scanned, error);
    if (!layout.match(line, v)) {
      scanned_only += scan_ok;
      continue;
    }
    ++matched;
    REQUIRE(scan_ok);
    REQUIRE(scanned.size() == keys.size());
    for (size_t k = 0; k < keys.size(); ++k) {
      const JsonMember* m = json_member_find(scanned, keys[k]);
      REQUIRE(m != nullptr);
      CHECK(m->value == v[k]);
    }
    std::vector<uint64_t> parsed;
    CHECK(json_parse_id_array(v[3], parsed));
  }
  MESSAGE(matched << " rows in the layout, " << scanned_only << " valid rows left to the full scan");
  CHECK(matched > 8000);
  CHECK(scanned_only > 2000);
  // Keys that are not plain make a layout that matches nothing; so does a layout without keys.
  CHECK(!JsonLineLayout({"a\"b"}, false).match(R"({"a"b": 1})", v));
  CHECK(!JsonLineLayout({}, false).match("{}", v));
  CHECK(JsonLineLayout({"t", "n"}, false).match(R"({"t": 1, "n": 22})", v));
  CHECK(!JsonLineLayout({"t", "n"}, false).match(R"({"t": 1, "n": 22} )", v));  // text after the object: scanned
}
