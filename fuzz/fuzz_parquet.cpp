// Fuzz harness for the project's Parquet reader (models/profiled/parquet_reader.hpp, the reader of
// AIConfigurator's kernel tables): the input is the file. Limits lower than the defaults (1M cells, 4 MB pages) keep
// one input's memory under libFuzzer's 2 GB. Besides crashes, hangs and foreign exceptions, a table that breaks the
// reader's promises is a finding: every column has rows() entries of its kind and of `present`, a string row points
// into the pool (or is -1 when null), and number()/text() agree with the column's vectors.
#include <string>

#include "fuzz/fuzz_support.hpp"
#include "models/profiled/parquet_reader.hpp"

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
  });
  return 0;
}
