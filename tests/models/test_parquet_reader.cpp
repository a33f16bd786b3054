// The project's Parquet reader (models/readers/parquet_reader.hpp) against an independent reference: every
// AIConfigurator table in the data folder (3 GPUs, every engine) read whole, its row count equal to the footer's
// and to DuckDB's, the sum of its latency column and three whole rows equal to what DuckDB read
// (tests/models/aic_parquet_reference.tsv, written once by tests/models/aic_parquet_reference.mjs; see there).
// The parts of the format those files do not use (data page v2, UNCOMPRESSED and SNAPPY pages, INT32, FLOAT,
// BOOLEAN, nulls, PLAIN strings, RLE booleans) are checked on files written by tests/models/parquet_writer_for_tests.hpp
// with values chosen here. Damaged files: every truncation and every single-byte corruption of a real table is
// either read or one LynxError naming the file (never a crash or another exception), and chosen damages (bad magic,
// truncated footer, oversize footer length, corrupt page, bad ZSTD frame, oversize page length) give the message
// that says what is wrong.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "common/error.hpp"
#include "models/readers/csv_table.hpp"
#include "models/readers/parquet_reader.hpp"
#include "tests/models/parquet_writer_for_tests.hpp"

using namespace lynx;
namespace tp = lynx::test_parquet;

namespace {

std::string aic_root() { return calibration_dir() + "/aiconfigurator"; }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t tab = line.find('\t', start);
    out.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) return out;
    start = tab + 1;
  }
}

// The message of the LynxError that reading `bytes` throws ("" if it reads).
std::string error_of(const std::string& bytes, const std::string& name = "t.parquet") {
  try {
    ParquetTable::from_bytes(bytes, name);
  } catch (const LynxError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("parquet: every AIConfigurator table reads as DuckDB reads it") {
  std::ifstream ref(std::string(LYNX_SOURCE_DIR) + "/tests/models/aic_parquet_reference.tsv");
  REQUIRE(ref.good());
  std::string line;
  std::map<std::string, ParquetTable> tables;
  int files = 0, rows_checked = 0;
  while (std::getline(ref, line)) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> f = split_tabs(line);
    REQUIRE(f.size() >= 3);
    const std::string path = aic_root() + "/" + f[0];
    if (f[1] != "@") {
      // file, rows, sum(latency)
      auto [it, fresh] = tables.emplace(f[0], ParquetTable(path));
      REQUIRE(fresh);
      const ParquetTable& t = it->second;
      files++;
      CHECK_MESSAGE(t.rows() == std::stoll(f[1]), f[0]);
      const ParquetColumn& lat = t.column("latency");
      double sum = 0;
      for (int64_t r = 0; r < t.rows(); r++) sum += t.number(r, lat);
      const double want = std::strtod(f[2].c_str(), nullptr);
      // Summed in another order than DuckDB's: equal to 1e-12 relative.
      CHECK_MESSAGE(std::fabs(sum - want) <= 1e-12 * std::fabs(want), f[0], " sum ", sum, " want ", want);
      continue;
    }
    // file, @, row, column=value...
    const ParquetTable& t = tables.at(f[0]);
    const int64_t row = std::stoll(f[2]);
    REQUIRE(f.size() - 3 == t.columns().size());
    for (size_t i = 3; i < f.size(); i++) {
      const size_t eq = f[i].find('=');
      const std::string name = f[i].substr(0, eq), value = f[i].substr(eq + 1);
      const ParquetColumn& c = t.column(name);
      INFO(f[0], " row ", row, " column ", name);
      if (value == "NULL") {
        CHECK(c.present[static_cast<size_t>(row)] == 0);
      } else if (c.kind == ParquetColumn::Kind::text) {
        CHECK(t.text(row, c) == value);
      } else if (c.kind == ParquetColumn::Kind::integer) {
        CHECK(c.ints[static_cast<size_t>(row)] == std::stoll(value));
      } else {
        CHECK(t.number(row, c) == std::strtod(value.c_str(), nullptr));  // 17 digits: the exact double
      }
    }
    rows_checked++;
  }
  CHECK(files == 81);
  CHECK(rows_checked == 3 * 81);
}

TEST_CASE("parquet: what the real tables do not use, on files written here") {
  tp::Column id{"id", 2};
  id.ints = {7, -3, 1LL << 40, 0, 12};
  tp::Column i32{"i32", 1};
  i32.codec = 1;  // SNAPPY, v1
  i32.ints = {1, -2, 2147483647, -2147483648LL, 5};
  tp::Column x{"x", 5};
  x.optional = true, x.v2 = true, x.codec = 6;  // ZSTD, v2, nulls
  x.reals = {1.5, 0, -2.25, 0, 1e300};
  x.nulls = {false, true, false, true, false};
  tp::Column f32{"f32", 4};
  f32.v2 = true;  // UNCOMPRESSED v2
  f32.reals = {0.5, -1.0, 3.25, 1e-3, 1e30};
  tp::Column b{"b", 0};
  b.ints = {1, 0, 0, 1, 1};
  tp::Column rb{"rb", 0};
  rb.rle_booleans = true, rb.v2 = true, rb.codec = 1;
  rb.ints = {0, 1, 1, 0, 1};
  tp::Column s{"s", 6};
  s.optional = true, s.codec = 1;  // PLAIN strings with nulls, SNAPPY
  s.texts = {"a", "", "long string", "", "é"};
  s.nulls = {false, false, false, true, false};
  tp::Column d{"d", 6};
  d.dictionary = true, d.codec = 6;
  d.texts = {"vllm", "sglang", "vllm", "trtllm", "vllm"};
  tp::Column di{"di", 2};
  di.dictionary = true, di.optional = true, di.v2 = true, di.codec = 1;
  di.ints = {4096, 0, 4096, 8192, 4096};
  di.nulls = {false, true, false, false, false};
  const std::string bytes = tp::write_file({id, i32, x, f32, b, rb, s, d, di});
  const ParquetTable t = ParquetTable::from_bytes(bytes, "written.parquet");
  REQUIRE(t.rows() == 5);
  CHECK(t.created_by() == "lynxsim test writer");
  for (int r = 0; r < 5; r++) {
    INFO("row ", r);
    CHECK(t.number(r, "id") == static_cast<double>(id.ints[r]));
    CHECK(t.column("i32").ints[r] == i32.ints[r]);
    if (x.nulls[r]) CHECK(t.column("x").present[r] == 0);
    else CHECK(t.number(r, "x") == x.reals[r]);
    CHECK(t.number(r, "f32") == static_cast<double>(static_cast<float>(f32.reals[r])));
    CHECK(t.column("b").ints[r] == b.ints[r]);
    CHECK(t.column("rb").ints[r] == rb.ints[r]);
    if (s.nulls[r]) CHECK(t.column("s").present[r] == 0);
    else CHECK(t.text(r, "s") == s.texts[r]);
    CHECK(t.text(r, "d") == d.texts[r]);
    if (di.nulls[r]) CHECK(t.column("di").present[r] == 0);
    else CHECK(t.number(r, "di") == static_cast<double>(di.ints[r]));
  }
  CHECK(t.column("d").pool.size() == 3);  // the dictionary's entries, shared by the rows
  CHECK_THROWS_WITH_AS(t.number(1, "x"), "written.parquet: column 'x', row 1 is null", LynxError);
  CHECK_THROWS_WITH_AS(t.text(0, "id"), "written.parquet: column 'id' holds numbers where a string is needed",
                       LynxError);
  CHECK_THROWS_WITH_AS(t.column("nope"),
                       "written.parquet: no column 'nope' (the columns are: id, i32, x, f32, b, rb, s, d, di)",
                       LynxError);
}

TEST_CASE("parquet: dictionary indices bit-packed at every width from 1 to 32") {
  // 37 rows (not a multiple of 8: the last group is padded) of a dictionary of up to 20 entries; the index of row
  // r is (r * 7) % entries, so every bit position of a group is exercised; widths below what the entries need are
  // not valid files and not written.
  for (int width = 1; width <= 32; width++) {
    CAPTURE(width);
    const int entries = std::min(20, 1 << std::min(width, 5));
    tp::Column c{"c", 2};
    c.dictionary = true, c.dictionary_bit_width = width, c.codec = width % 2 ? 6 : 0;
    c.optional = width % 3 == 0;
    for (int r = 0; r < 37; r++) {
      c.ints.push_back(1000 + (r * 7) % entries);  // the writer numbers entries in order of first use
      c.nulls.push_back(c.optional && r % 5 == 2);
    }
    const ParquetTable t = ParquetTable::from_bytes(tp::write_file({c}), "widths.parquet");
    REQUIRE(t.rows() == 37);
    for (int r = 0; r < 37; r++) {
      CAPTURE(r);
      if (c.nulls[r]) CHECK(t.column("c").present[r] == 0);
      else CHECK(t.number(r, "c") == static_cast<double>(c.ints[r]));
    }
  }
}

TEST_CASE("parquet: reading only some columns gives those columns as a whole read does") {
  tp::Column a{"a", 2}, b{"b", 5}, s{"s", 6};
  a.ints = {1, 2, 3};
  b.reals = {0.5, 1.5, 2.5};
  b.optional = true, b.nulls = {false, true, false};
  s.dictionary = true, s.texts = {"x", "y", "x"};
  const std::string bytes = tp::write_file({a, b, s});
  const ParquetTable whole = ParquetTable::from_bytes(bytes, "cols.parquet");
  const std::vector<std::string> wanted = {"s", "b", "absent"};
  const ParquetTable some = ParquetTable::from_bytes(bytes, "cols.parquet", {}, &wanted);
  REQUIRE(some.columns().size() == 2);
  CHECK(some.columns()[0].name == "b");  // in the file's order
  CHECK(some.columns()[1].name == "s");
  CHECK(some.rows() == 3);
  CHECK_FALSE(some.has_column("a"));
  CHECK_FALSE(some.has_column("absent"));
  for (int r = 0; r < 3; r++) {
    CHECK(some.column("b").present[r] == whole.column("b").present[r]);
    CHECK(some.column("b").reals[r] == whole.column("b").reals[r]);
    CHECK(some.text(r, "s") == whole.text(r, "s"));
  }
  // a column not read is named as missing, with the columns the file has
  CHECK_THROWS_WITH_AS(some.column("a"), "cols.parquet: no column 'a' (the columns are: a, b, s)", LynxError);
}

TEST_CASE("parquet: chosen damages are one LynxError saying what is wrong") {
  const std::string path = aic_root() + "/systems/data/b200_sxm/comm/vllm/0.24.0/custom_allreduce_perf.parquet";
  const std::string good = slurp(path);
  REQUIRE(error_of(good) == "");

  CHECK_THROWS_WITH_AS(ParquetTable("/nonexistent/x.parquet"), "/nonexistent/x.parquet: cannot open file: No such file or directory",
                       LynxError);
  CHECK(error_of("") == "t.parquet: not a Parquet file (0 bytes; a Parquet file has at least 12)");
  std::string bad = good;
  bad[0] = 'Q';
  CHECK(error_of(bad) == "t.parquet: not a Parquet file (it does not start with PAR1)");
  CHECK(error_of(good.substr(0, good.size() - 1)) ==
        "t.parquet: a truncated or damaged Parquet file (it does not end with PAR1)");
  // Footer length larger than the file.
  bad = good;
  const uint32_t huge = 0xfffffff0u;
  std::memcpy(&bad[bad.size() - 8], &huge, 4);
  CHECK(error_of(bad).find("a damaged Parquet footer (its length 4294967280 exceeds the file's") != std::string::npos);
  // A footer cut short (its length says fewer bytes than it has): the Thrift structure runs out.
  uint32_t footer_len;
  std::memcpy(&footer_len, &good[good.size() - 8], 4);
  bad = good.substr(0, good.size() - 8 - footer_len / 2) + good.substr(good.size() - 8);
  const uint32_t half = footer_len / 2;
  std::memcpy(&bad[bad.size() - 8], &half, 4);
  CHECK(error_of(bad).rfind("t.parquet: footer (FileMetaData): ", 0) == 0);

  // A written file with one ZSTD page: damage the frame, its size, the page length.
  tp::Column c{"v", 2};
  c.codec = 6;
  for (int i = 0; i < 100; i++) c.ints.push_back(i * i);
  const std::string w = tp::write_file({c});
  REQUIRE(error_of(w) == "");
  const size_t frame = w.find("\x28\xb5\x2f\xfd");  // the ZSTD magic number
  REQUIRE(frame != std::string::npos);
  bad = w;
  bad[frame] = 0;
  CHECK(error_of(bad).find("column 'v', row group 0, page 0 at byte 4: a damaged ZSTD frame") != std::string::npos);
  bad = w;
  for (size_t i = frame + 8; i < frame + 20; i++) bad[i] = static_cast<char>(bad[i] ^ 0x5a);  // inside the block
  CHECK(error_of(bad).find("ZSTD") != std::string::npos);
  // The page header's compressed size (field 3, after type and uncompressed size) made far larger than the file.
  tp::ThriftWriter hw;
  hw.i32(1, 0);
  hw.i32(2, 800);
  bad = w;
  const size_t size_field = 4 + hw.out.size();
  REQUIRE(static_cast<unsigned char>(bad[size_field]) == 0x15);  // field 3 (delta 1), i32
  tp::ThriftWriter big;
  big.zigzag(2000000000);
  bad = w.substr(0, size_field + 1) + big.out + w.substr(size_field + 1 + 2);
  // (the file's offsets after this point move; the first page is read before anything else)
  CHECK(error_of(bad).find("bytes run past the end of the data") != std::string::npos);
  // An uncompressed page size over the limit.
  ParquetLimits small;
  small.max_page_bytes = 100;
  CHECK_THROWS_WITH_AS(ParquetTable::from_bytes(w, "w.parquet", small),
                       doctest::Contains("an uncompressed page size of 800 bytes (at most 100 read)"), LynxError);
  ParquetLimits few;
  few.max_cells = 10;
  CHECK_THROWS_WITH_AS(ParquetTable::from_bytes(w, "w.parquet", few),
                       "w.parquet: 100 rows of 1 columns is more than this reader reads (10 cells)", LynxError);
  // A SNAPPY page damaged.
  c.codec = 1;
  const std::string ws = tp::write_file({c});
  bad = ws;
  bad[4 + 8] = static_cast<char>(0xff);  // inside the page header or the snappy block's length
  CHECK(error_of(bad) != "");
}

TEST_CASE("parquet: every truncation and every one-byte corruption of a real table is read or one LynxError") {
  const std::string path = aic_root() + "/systems/data/b200_sxm/comm/vllm/0.24.0/custom_allreduce_perf.parquet";
  const std::string good = slurp(path);
  int errors = 0, read = 0;
  for (size_t n = 0; n < good.size(); n++) {
    const std::string e = error_of(good.substr(0, n), "cut.parquet");
    CHECK_MESSAGE(e.rfind("cut.parquet: ", 0) == 0, "length ", n);
  }
  for (size_t i = 0; i < good.size(); i++) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0xff);
    try {
      ParquetTable::from_bytes(bad, "flip.parquet");
      read++;
    } catch (const LynxError& e) {
      CHECK(std::string(e.what()).rfind("flip.parquet: ", 0) == 0);
      errors++;
    }
  }
  MESSAGE("one-byte corruptions of ", good.size(), " bytes: ", errors, " refused, ", read, " still read");
  CHECK(errors > 0);
}

// The fuzz harness's seeds (fuzz/corpus/parquet/): small files of every shape the reader accepts, from the writer
// above. With LYNX_PARQUET_SEEDS=<folder> this writes them there; otherwise it checks the committed ones read.
TEST_CASE("parquet: fuzz seeds") {
  std::vector<std::pair<std::string, std::string>> seeds;
  tp::Column a{"m", 2};
  a.ints = {1, 2, 4, 8};
  tp::Column lat{"latency", 5};
  lat.codec = 6;
  lat.reals = {0.01, 0.02, 0.04, 0.08};
  tp::Column dt{"gemm_dtype", 6};
  dt.dictionary = true, dt.codec = 6;
  dt.texts = {"bfloat16", "fp8", "bfloat16", "fp8"};
  seeds.push_back({"zstd_dictionary.parquet", tp::write_file({dt, a, lat})});
  tp::Column b{"flag", 0};
  b.rle_booleans = true, b.v2 = true, b.codec = 1;
  b.ints = {1, 0, 1, 1};
  tp::Column o{"x", 4};
  o.optional = true, o.v2 = true;
  o.reals = {1, 0, 3, 4};
  o.nulls = {false, true, false, false};
  tp::Column s{"s", 6};
  s.optional = true, s.codec = 1;
  s.texts = {"a", "", "bc", "d"};
  s.nulls = {false, true, false, false};
  tp::Column i{"i", 1};
  i.ints = {-1, 0, 1, 2};
  seeds.push_back({"v2_snappy_nulls.parquet", tp::write_file({b, o, s, i})});
  tp::Column di{"k", 2};
  di.dictionary = true, di.optional = true, di.v2 = true, di.codec = 1;
  di.ints = {4096, 0, 4096, 8192};
  di.nulls = {false, true, false, false};
  seeds.push_back({"v2_int_dictionary.parquet", tp::write_file({di})});
  seeds.push_back({"empty_table.parquet", tp::write_file({})});
  const char* out = std::getenv("LYNX_PARQUET_SEEDS");
  for (const auto& [name_bound, bytes] : seeds) {
    const auto& name = name_bound;  // clang 14: a structured binding cannot be captured
    CHECK_MESSAGE(error_of(bytes) == "", name);
    if (out) {
      std::ofstream f(std::string(out) + "/" + name, std::ios::binary);
      f << bytes;
      REQUIRE(f.good());
    } else {
      const std::string committed = slurp(std::string(LYNX_SOURCE_DIR) + "/fuzz/corpus/parquet/" + name);
      CHECK_MESSAGE(error_of(committed) == "", name);
    }
  }
}
