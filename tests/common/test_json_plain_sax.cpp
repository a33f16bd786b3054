// json_plain_sax_parse (common/json_plain_sax.hpp) against nlohmann::json::sax_parse, the reader it stands in for:
// wherever it accepts a text, nlohmann gives the same events with the same values; where a handler stops, both stop
// at the same event; and the shipped accuracy file, the text it exists for, is all plain.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/json_member_scan.hpp"
#include "common/json_plain_sax.hpp"
#include "common/json_reader.hpp"

using namespace lynx;

namespace {
using json = nlohmann::json;

// Every event as a line of text, numbers by their kind and exact bits; stops (returns false) at event `stop_at`.
struct Recorder {
  std::vector<std::string> events;
  size_t stop_at = SIZE_MAX;
  bool add(std::string e) {
    events.push_back(std::move(e));
    return events.size() != stop_at;
  }
  bool null() { return add("null"); }
  bool boolean(bool v) { return add(v ? "true" : "false"); }
  bool number_integer(json::number_integer_t v) { return add("int " + std::to_string(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return add("unsigned " + std::to_string(v)); }
  bool number_float(json::number_float_t v, const json::string_t& text) {
    char bits[64];
    std::snprintf(bits, sizeof bits, "%a", v);
    return add(std::string("float ") + bits + " " + text);
  }
  bool string(json::string_t& v) { return add("string " + v); }
  bool binary(json::binary_t&) { return add("binary"); }
  bool start_object(std::size_t n) { return add("{" + std::to_string(n)); }
  bool end_object() { return add("}"); }
  bool start_array(std::size_t n) { return add("[" + std::to_string(n)); }
  bool end_array() { return add("]"); }
  bool key(json::string_t& k) { return add("key " + k); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }
};

bool nlohmann_events(const std::string& text, Recorder& r) {
  try {
    return json::sax_parse(text, &r);
  } catch (const json::exception&) {
    return false;
  }
}

// Checks one text both ways; returns the plain reader's answer.
PlainSax compare(const std::string& text, size_t stop_at = SIZE_MAX) {
  Recorder plain, reference;
  plain.stop_at = reference.stop_at = stop_at;
  const PlainSax answer = json_plain_sax_parse(text, plain);
  const bool parsed = nlohmann_events(text, reference);
  CAPTURE(text);
  if (answer == PlainSax::accepted) {
    CHECK(parsed);
    CHECK(plain.events == reference.events);
  } else if (answer == PlainSax::handler_stopped) {
    CHECK(!parsed);
    CHECK(plain.events == reference.events);  // the same events, up to the one refused
    CHECK(plain.events.size() == stop_at);
  }
  return answer;
}

// A random JSON value, mostly plain; `depth` bounds the nesting.
std::string random_value(std::mt19937_64& rng, int depth) {
  const int kind = static_cast<int>(rng() % (depth > 0 ? 12 : 8));
  switch (kind) {
    case 0: return "null";
    case 1: return rng() % 2 ? "true" : "false";
    case 2: return "\"" + std::string(rng() % 6, static_cast<char>('a' + rng() % 26)) + "\"";
    case 3: {  // integers of every length around the reader's 18 digits, signs, zero
      std::string digits = std::to_string(1 + rng() % 9);
      const size_t more = rng() % 21;
      for (size_t i = 0; i < more; ++i) digits += static_cast<char>('0' + rng() % 10);
      if (rng() % 8 == 0) digits = "0";
      return (rng() % 3 == 0 ? "-" : "") + digits;
    }
    case 4: {  // decimals and exponents
      const char* forms[] = {"0.5", "-0.0", "3.14159", "1e5", "2.5E-3", "-7e+2", "1e-310", "1e400", "6.02214076e23",
                             "0.1", "123456.789012345678901", "-0", "4.9e-324"};
      return forms[rng() % 13];
    }
    case 5: {  // not plain: escapes, non-ASCII
      const char* forms[] = {"\"a\\\"b\"", "\"\\u00e9\"", "\"caf\xc3\xa9\"", "\"tab\\t\""};
      return forms[rng() % 4];
    }
    case 6: return std::to_string(rng() % 1000);
    case 7: return "\"k\"";
    default: {
      const bool object = kind % 2 == 0;
      std::string s = object ? "{" : "[";
      const size_t n = rng() % 5;
      for (size_t i = 0; i < n; ++i) {
        if (i > 0) s += rng() % 4 ? "," : " , ";
        if (object) s += "\"m" + std::to_string(rng() % 4) + "\"" + (rng() % 2 ? ":" : " : ");
        s += (rng() % 5 == 0 ? "\n " : "") + random_value(rng, depth - 1);
      }
      return s + (object ? "}" : "]");
    }
  }
}
}  // namespace

TEST_CASE("plain JSON SAX: the events of nlohmann's sax_parse wherever it accepts a text") {
  for (const char* text : {"{}", "[]", " {\"a\": [1, -2, 3.5, true, false, null, \"s\"], \"b\": {}} ", "0", "-0",
                           "123456789012345678", "-123456789012345678", "[1e5, 2.5E-3, -7e+2, 0.1, -0.0]", "\"\""}) {
    CHECK(compare(text) == PlainSax::accepted);
  }
  // Left to nlohmann: escapes, non-ASCII, 19 digits and more, leading zeros, overflowing floats, a byte-order mark,
  // text after the value, and every syntax error.
  for (const char* text : {"\"a\\nb\"", "\"\xc3\xa9\"", "1234567890123456789", "[01]", "1e400", "\xef\xbb\xbf{}", "{} x",
                           "[1,]", "{\"a\" 1}", "{\"a\":}", "[1 2]", "tru", "[", "", "-", "1.", "1e", "{,}",
                           "[\"a\x01\"]"}) {
    CHECK(compare(text) == PlainSax::unsure);
  }
  std::mt19937_64 rng(5);
  int accepted = 0, unsure = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string text = random_value(rng, 4);
    if (round % 3 == 1 && !text.empty()) {  // one byte changed, dropped or added
      const size_t at = rng() % text.size();
      const char bytes[] = {',', ':', '[', ']', '{', '}', '"', ' ', '0', '-', '.', 'e', 'x', '\\'};
      switch (rng() % 3) {
        case 0: text[at] = bytes[rng() % sizeof bytes]; break;
        case 1: text.erase(at, 1); break;
        default: text.insert(at, 1, bytes[rng() % sizeof bytes]);
      }
    }
    const PlainSax answer = compare(text);
    accepted += answer == PlainSax::accepted;
    unsure += answer == PlainSax::unsure;
  }
  MESSAGE(accepted << " plain, " << unsure << " left to nlohmann");
  CHECK(accepted > 5000);
  CHECK(unsure > 2000);
}

TEST_CASE("plain JSON SAX: a handler that stops stops both readers at the same event") {
  const std::string text = R"({"a": [1, -2, 3.5, {"b": null}], "c": "d", "e": [true, false, 0.25e1]})";
  Recorder all;
  REQUIRE(json_plain_sax_parse(text, all) == PlainSax::accepted);
  for (size_t stop = 1; stop <= all.events.size(); ++stop) {
    CAPTURE(stop);
    CHECK(compare(text, stop) == PlainSax::handler_stopped);
  }
}

TEST_CASE("plain JSON SAX: every format entry of the shipped accuracy file is plain and reads as nlohmann reads it") {
  const std::string text = read_file(LYNX_SOURCE_DIR "/models/accuracy/stories260k.json");
  CHECK(compare(text) == PlainSax::accepted);
  const json root = json::parse(text);
  int entries = 0;
  for (const auto& [format, value] : root.at("formats").items()) {
    CAPTURE(format);
    const std::string_view entry = json_member_text(text, {"formats", format});
    REQUIRE(!entry.empty());
    CHECK(compare(std::string(entry)) == PlainSax::accepted);
    ++entries;
  }
  CHECK(entries >= 10);
}

namespace {
// json_parse_text's answer as text: the document (every double to the bit) or its error message.
std::string parsed_or_error(const std::string& text, bool allow_comments = false) {
  try {
    return json_parse_text(text, "doc.json", allow_comments).dump();
  } catch (const LynxError& e) {
    return std::string("error: ") + e.what();
  }
}
// The same through nlohmann's parse alone (errors as one word: only results are compared).
std::string nlohmann_dump(const std::string& text, bool allow_comments = false) {
  try {
    return json::parse(text, nullptr, true, allow_comments).dump();
  } catch (const json::exception&) {
    return "error";
  }
}
}  // namespace

TEST_CASE("json_parse_text: plain texts give nlohmann's document, duplicate keys the same error") {
  std::mt19937_64 rng(9);
  int documents = 0;
  for (int round = 0; round < 5000; ++round) {
    const std::string text = random_value(rng, 4);
    const std::string got = parsed_or_error(text);
    if (got.rfind("error: ", 0) == 0) {
      // Errors: nlohmann's lexer was the one to report them (or a duplicate key, found the same way on both paths).
      CHECK((nlohmann_dump(text) == "error" || got.find("duplicate key") != std::string::npos));
      continue;
    }
    CAPTURE(text);
    CHECK(got == nlohmann_dump(text));
    ++documents;
  }
  CHECK(documents > 2000);
  // A duplicate key inside a plain text: the same message as from nlohmann's parse (after an escape, which only
  // nlohmann reads).
  const std::string plain = parsed_or_error(R"({"a": {"b": 1, "b": 2}})");
  const std::string escaped = parsed_or_error(R"({"a": {"b": 1, "b": 2}, "c": "\n"})");
  CHECK(plain == "error: doc.json: $.a.b: duplicate key (JSON objects name each key once)");
  CHECK(escaped == plain);
}

TEST_CASE("json_parse_text: every JSON file the project ships reads as nlohmann reads it, most of them plain") {
  int files = 0, plain = 0;
  // Configurations (comments allowed, as json_parse_file reads them), catalogs, cost tables, the accuracy file.
  for (const char* folder : {"/experiments", "/tests/golden", "/models", "/kernels/costs"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(LYNX_SOURCE_DIR) + folder)) {
      if (entry.path().extension() != ".json") continue;
      const std::string text = read_file(entry.path().string());
      CAPTURE(entry.path().string());
      CHECK(parsed_or_error(text, true) == nlohmann_dump(text, true));
      Recorder r;
      plain += json_plain_sax_parse(text, r) == PlainSax::accepted;
      ++files;
    }
  }
  MESSAGE(plain << " of " << files << " files plain");
  CHECK(files >= 10);
  CHECK(plain * 2 > files);
}
