// A measurement table read from its column cache (models/readers/csv_column_cache.hpp) against the same table
// read from its file: every field's text, every number and every error the same; a damaged, truncated, foreign or
// stale cache is never used for a wrong value (the table reads its file instead).
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/sha256.hpp"
#include "models/readers/csv_column_cache.hpp"
#include "models/readers/csv_table.hpp"
#include "tests/models/csv_table_observe.hpp"

using namespace lynx;
namespace fs = std::filesystem;

namespace {
struct Folder {
  std::string path = (fs::temp_directory_path() / ("lynx_csv_cache_" + std::to_string(::getpid()))).string();
  Folder() { fs::create_directories(path); }
  ~Folder() { fs::remove_all(path); }
};

// A table with the cases the reader converts differently: plain and exponent numbers, a sign and spaces (strtod's
// reading), text, an empty field, a field that is not a number, a zero time, CRLF line ends, a blank line.
const char* kTable =
    "num_tokens,name,time,note,odd\r\n"
    "1,alpha,0.5,,1e3\r\n"
    "\r\n"
    "2,beta,1.25e-3,x, 7\r\n"
    "4,gamma,0,y,-2.5\r\n"
    "8,delta,3,z,abc\r\n";

void write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }
std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
}  // namespace

TEST_CASE("csv column cache: written after the first read, then read column by column, with the same fields, numbers and errors") {
  Folder dir;
  const std::string csv = dir.path + "/t.csv", cache = dir.path + "/cache/t.csvcols";
  write(csv, kTable);
  const std::string sha = sha256_file(csv);
  const CsvTable plain(csv, "", cache);  // no digest: no cache read or written
  CHECK_FALSE(plain.from_cache());
  CHECK_FALSE(fs::exists(cache));
  const std::vector<std::string> expected = lynx::test::observe_table(plain);
  CHECK(expected.size() == 4 * (1 + 5 * 4));
  CHECK(plain.line_of(1) == 4);  // the blank line is counted, not read

  const CsvTable first(csv, sha, cache);
  CHECK_FALSE(first.from_cache());
  REQUIRE(fs::exists(cache));
  CHECK(lynx::test::observe_table(first) == expected);

  const CsvTable cached(csv, sha, cache);
  CHECK(cached.from_cache());
  CHECK(lynx::test::observe_table(cached) == expected);
  CHECK(cached.has_column("odd"));
  CHECK_FALSE(cached.has_column("missing"));
  CHECK_THROWS_WITH_AS(cached.number(0, "missing"), doctest::Contains("t.csv:1: no column \"missing\""), LynxError);
  CHECK_THROWS_WITH_AS(cached.number(3, "odd"), doctest::Contains("t.csv:6: column odd is not a number: \"abc\""),
                       LynxError);

  SUBCASE("another digest: not this source's cache") {
    const CsvTable other(csv, std::string(64, 'a'), cache);
    CHECK_FALSE(other.from_cache());
    CHECK(lynx::test::observe_table(other) == expected);
  }
  SUBCASE("a damaged column: the file is read instead, the same values") {
    std::string bytes = read(cache);
    bytes[bytes.size() - 3] ^= 0x20;  // inside the last column's text
    write(cache, bytes);
    const CsvTable damaged(csv, sha, cache);
    CHECK(damaged.from_cache());  // the head checks; the column does not, when read
    CHECK(lynx::test::observe_table(damaged) == expected);
  }
  SUBCASE("a damaged head, a truncated file, a foreign file: no cache") {
    const std::string whole = read(cache);
    for (const std::string& bytes : {whole.substr(0, whole.size() - 1), whole.substr(0, 40), std::string("LYNXCSV1"),
                                     std::string(200, 'x'), std::string()}) {
      write(cache, bytes);
      const CsvTable t(csv, sha, cache);
      CHECK_FALSE(t.from_cache());
      CHECK(lynx::test::observe_table(t) == expected);
    }
    std::string head = whole;
    head[120] ^= 0x01;  // a column name's byte: the head's checksum fails
    write(cache, head);
    const CsvTable t(csv, sha, cache);
    CHECK_FALSE(t.from_cache());
    CHECK(lynx::test::observe_table(t) == expected);
  }
}

TEST_CASE("csv column cache: a plain number is a decimal that from_chars takes whole, finite and not subnormal") {
  double v = 0;
  CHECK((csv_plain_number("1.25e-3", 7, &v) && v == 1.25e-3));
  CHECK((csv_plain_number("-2.5", 4, &v) && v == -2.5));
  for (const std::string bad : {"", " 7", "7 ", "+1", "0x10", "1e400", "1e-310", "abc", "nan", "inf", "1,2"})
    CHECK_FALSE(csv_plain_number(bad.data(), bad.size(), &v));
}

TEST_CASE("csv column cache: a table whose rows do not read is not cached") {
  Folder dir;
  const std::string csv = dir.path + "/bad.csv", cache = dir.path + "/bad.csvcols";
  write(csv, "a,b\n1,2\n3\n");
  CHECK_THROWS_WITH_AS(CsvTable(csv, sha256_file(csv), cache), doctest::Contains("bad.csv:3: 1 fields, expected 2"),
                       LynxError);
  CHECK_FALSE(fs::exists(cache));
}

TEST_CASE("csv column cache: every column's slice and the head carry their checksums, a file too short for a slice is refused") {
  Folder dir;
  const std::string file = dir.path + "/c.csvcols", sha(64, '0');
  std::vector<std::vector<std::string_view>> fields{{"1", "22"}, {"", "x"}};
  REQUIRE(CsvColumnCache::write(file, sha, {"a", "b"}, {2, 3}, fields));
  auto cache = CsvColumnCache::open(file, sha);
  REQUIRE(cache);
  CHECK(cache->header() == std::vector<std::string>{"a", "b"});
  CHECK(cache->lines() == std::vector<int>{2, 3});
  CsvCachedColumn a, b;
  REQUIRE(cache->load(0, a));
  REQUIRE(cache->load(1, b));
  CHECK(a.plain == std::vector<uint8_t>{1, 1});
  CHECK(a.values == std::vector<double>{1, 22});
  CHECK(b.plain == std::vector<uint8_t>{0, 0});
  CHECK(a.field(0) == "1");
  CHECK(a.field(1) == "22");
  CHECK(b.field(0).empty());
  CHECK(b.field(1) == "x");
  CHECK_FALSE(cache->load(2, a));
  // Cut inside the last slice: the head still reads, but its slice lies past the end.
  const std::string whole = read(file);
  write(file, whole.substr(0, whole.size() - 2));
  CHECK_FALSE(CsvColumnCache::open(file, sha));
  CHECK(csv_cache_checksum("abc", 3) != csv_cache_checksum("abd", 3));
  CHECK(csv_cache_checksum("", 0) != csv_cache_checksum(std::string(1, '\0').data(), 1));
}
