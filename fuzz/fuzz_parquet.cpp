// Fuzz harness for the project's Parquet reader (models/readers/parquet_reader.hpp, the reader of
// AIConfigurator's kernel tables): the input is the file. Limits lower than the defaults (1M cells, 4 MB pages) keep
// one input's memory under libFuzzer's 2 GB. Besides crashes, hangs and foreign exceptions, a table that breaks the
// reader's promises is a finding: every column has rows() entries of its kind and of `present`, a string row points
// into the pool (or is -1 when null), and number()/text() agree with the column's vectors; and a read of every
// other column alone (the projection lookups use) succeeds and gives those columns exactly.
#include <string>
#include <vector>

#include "fuzz/fuzz_support.hpp"
#include "models/readers/parquet_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  lynx::ParquetLimits limits;
  limits.max_cells = int64_t{1} << 20;
  limits.max_page_bytes = int64_t{1} << 22;
  lynx::fuzz::expect_lynx_error_only([&] {
    const lynx::ParquetTable t = lynx::ParquetTable::from_bytes(bytes, "fuzz.parquet", limits);
    const size_t rows = static_cast<size_t>(t.rows());
    for (const lynx::ParquetColumn& c : t.columns()) {
      if (c.present.size() != rows) lynx::fuzz::finding("column '" + c.name + "': present is not rows() long");
      const size_t n = c.kind == lynx::ParquetColumn::Kind::text   ? c.text_index.size()
                       : c.kind == lynx::ParquetColumn::Kind::real ? c.reals.size()
                                                                   : c.ints.size();
      if (n != rows) lynx::fuzz::finding("column '" + c.name + "' has " + std::to_string(n) + " values for " +
                                         std::to_string(rows) + " rows");
      for (size_t r = 0; r < rows; r++) {
        if (c.kind == lynx::ParquetColumn::Kind::text) {
          const int32_t i = c.text_index[r];
          if (c.present[r] ? (i < 0 || static_cast<size_t>(i) >= c.pool.size()) : i != -1)
            lynx::fuzz::finding("column '" + c.name + "': a string row outside the pool");
          if (c.present[r] && &t.text(static_cast<int64_t>(r), c) != &c.pool[static_cast<size_t>(i)])
            lynx::fuzz::finding("text() disagrees with the pool");
        } else if (c.present[r]) {
          const double v = t.number(static_cast<int64_t>(r), c);
          const double want = c.kind == lynx::ParquetColumn::Kind::real ? c.reals[r] : static_cast<double>(c.ints[r]);
          if (!(v == want) && !(v != v && want != want)) lynx::fuzz::finding("number() disagrees with the column");
        }
      }
    }
    std::vector<std::string> some;
    for (size_t c = 0; c < t.columns().size(); c += 2) some.push_back(t.columns()[c].name);
    const lynx::ParquetTable p = lynx::ParquetTable::from_bytes(bytes, "fuzz.parquet", limits, &some);
    if (p.rows() != t.rows()) lynx::fuzz::finding("a projected read has another row count");
    // the whole read's columns of those names (every one of a repeated name), in the file's order
    std::vector<const lynx::ParquetColumn*> whole;
    for (const lynx::ParquetColumn& c : t.columns())
      for (const std::string& name : some)
        if (c.name == name) {
          whole.push_back(&c);
          break;
        }
    if (whole.size() != p.columns().size()) lynx::fuzz::finding("a projected read has other columns");
    for (size_t k = 0; k < whole.size(); k++) {
      const lynx::ParquetColumn& c = p.columns()[k];
      const lynx::ParquetColumn& w = *whole[k];
      if (c.present != w.present || c.ints != w.ints || c.text_index != w.text_index || c.pool != w.pool ||
          c.reals.size() != w.reals.size())
        lynx::fuzz::finding("column '" + c.name + "' read alone differs from the whole read");
      for (size_t r = 0; r < c.reals.size(); r++)
        if (!(c.reals[r] == w.reals[r]) && !(c.reals[r] != c.reals[r] && w.reals[r] != w.reals[r]))
          lynx::fuzz::finding("column '" + c.name + "' read alone differs from the whole read");
    }
  });
  return 0;
}
