// A small reader for JSON Lines traces: one flat JSON object a line ({"timestamp": 0, "input_length": 6758,
// "hash_ids": [0, 1, 2]}). It validates the line's structure and returns each member as a view of its raw text;
// the caller converts only the members it needs, and a malformed line is named by its column and what was expected
// there (the trace reader's error for a bad row).
// Why not a JSON library: reading the Mooncake trace's 12,031 rows (3 MB, mostly hash_ids) with their ids costs this
// reader 73 M instructions, nlohmann's parse of each line 568 M, simdjson's On Demand reader (Debian's
// libsimdjson-dev, a padded copy of each line included) 50 M (callgrind, the file's read of 7 M taken off; the whole
// Mooncake simulation is about 3.2 G): nlohmann would be a sixth of the run, and simdjson's errors name neither the
// column nor what was expected there, which a bad row's message gives.
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

}  // namespace lynx
