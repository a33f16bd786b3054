// A small, fast reader for JSON Lines traces: one flat JSON object a line ({"timestamp": 0, "input_length": 6758,
// "hash_ids": [0, 1, 2]}). It validates the line's structure and returns each member as a view of its raw text;
// the caller converts only the members it needs. It exists because a general JSON library builds a DOM for every
// line, which is several times slower than the file can be read (see bench/bench_trace_read.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lynx {

enum class JsonKind { number, string, array, object, literal };  // literal: true, false, null

struct JsonMember {
  std::string_view key;    // without quotes, escapes left as written
  std::string_view value;  // raw text; for a string, the text between the quotes
  JsonKind kind = JsonKind::number;
};

struct JsonLineError {
  size_t column = 0;  // 1-based
  std::string reason;
};

// Parses `line`, which must hold exactly one JSON object (whitespace around it is allowed). Nested arrays and
// objects are checked for balance and string syntax but not parsed. Returns false and fills `error` otherwise.
bool json_line_scan(std::string_view line, std::vector<JsonMember>& members, JsonLineError& error);

// The member named `key`, or nullptr.
const JsonMember* json_member_find(const std::vector<JsonMember>& members, std::string_view key);

// Parses a raw array text "[1, 2, 3]" of non-negative integers into `values` (appended). False if anything else.
bool json_parse_id_array(std::string_view raw, std::vector<uint64_t>& values);

// A row in the one layout a trace's writer gives every row (Mooncake's: {"timestamp": 0, "input_length": 6758,
// "output_length": 500, "hash_ids": [0, 1, 2]}): exactly the members `keys`, in that order, each key as written,
// ": " after each key and ", " between members, no other space; every value an unsigned integer (digits), except
// the last when `ids_last`: an id array in json_id_array_common_form. One pass and no member list: on a Mooncake row
// about 890 instructions, where json_line_scan, the member lookups and the id check took about 2,400 (callgrind).
class JsonLineLayout {
 public:
  // Keys with a quote, a backslash or a control character make a layout that matches no line.
  JsonLineLayout(std::vector<std::string> keys, bool ids_last);
  // True: the line is in the layout, and values[i] is the raw text json_line_scan gives member keys[i] (the array
  // with its brackets). False: it is not (the caller scans the line in full, which decides).
  bool match(std::string_view line, std::string_view* values) const;
  size_t size() const { return keys_.size(); }

 private:
  std::vector<std::string> keys_;
  bool ids_last_ = false;
  bool usable_ = false;
};

// Whether json_parse_id_array would accept `raw`, for a caller that does not keep the ids (a run without a prefix
// cache): the same answer for every text. The common form, "[" ids "]" with each comma right after an id and at
// most one space after it and no id over 19 digits (Mooncake's hash_ids), is checked 64 bytes a step where SSE2 is
// there; anything else is parsed by json_parse_id_array into `scratch`.
bool json_check_id_array(std::string_view raw, std::vector<uint64_t>& scratch);
// That common form's check alone: true only for texts json_parse_id_array accepts (false elsewhere, and everywhere
// without SSE2).
bool json_id_array_common_form(std::string_view raw);

}  // namespace lynx
