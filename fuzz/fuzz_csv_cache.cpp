// Fuzz harness for the measurement tables' column cache (models/readers/csv_column_cache.hpp), differential: the
// input is a CSV file. Where it reads as a table, the table is read again from the cache its first read wrote,
// then once more with one byte of that cache changed (at a place the input chooses); every field's text, every
// number and time and every error must be the same three times (a finding otherwise), and the damaged cache must
// never be trusted for a wrong value. A cache file of the input's bytes themselves is opened too (a foreign file
// in the cache folder): it must be refused or read without a crash.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/sha256.hpp"
#include "fuzz/fuzz_support.hpp"
#include "models/readers/csv_column_cache.hpp"
#include "models/readers/csv_table.hpp"
#include "tests/models/csv_table_observe.hpp"

namespace {
void write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string dir = "/tmp/lynx_fuzz_csv_cache_" + std::to_string(::getpid());
  static const bool made = [] {
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    return !error;
  }();
  if (!made) lynx::fuzz::finding("cannot make " + dir);
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const std::string csv = dir + "/t.csv", cache = dir + "/t.csvcols", foreign = dir + "/foreign.csvcols";
  std::remove(cache.c_str());
  write(csv, bytes);
  const std::string sha = lynx::sha256_hex(bytes);

  // The input as a cache file of some source: refused, or read without a crash.
  write(foreign, bytes);
  const std::string claimed = size >= 80 ? bytes.substr(16, 64) : sha;
  if (auto c = lynx::CsvColumnCache::open(foreign, claimed)) {
    lynx::CsvCachedColumn column;
    for (size_t i = 0; i < c->header().size(); ++i)
      if (c->load(i, column))
        for (size_t r = 0; r < c->lines().size(); ++r) (void)column.field(r);
  }

  lynx::fuzz::expect_lynx_error_only([&] {
    const lynx::CsvTable first(csv, sha, cache);
    const std::vector<std::string> expected = lynx::test::observe_table(first);
    const lynx::CsvTable cached(csv, sha, cache);
    if (!cached.from_cache()) lynx::fuzz::finding("the cache written by the first read was not used");
    if (lynx::test::observe_table(cached) != expected) lynx::fuzz::finding("the cached table differs from the file's");
    std::ifstream in(cache, std::ios::binary);
    std::string damaged((std::istreambuf_iterator<char>(in)), {});
    if (damaged.empty()) lynx::fuzz::finding("an empty cache file");
    const size_t at = (size * 2654435761u + (size > 0 ? data[0] : 0)) % damaged.size();
    damaged[at] = static_cast<char>(damaged[at] ^ (size > 1 ? (data[1] | 1) : 1));
    write(cache, damaged);
    const lynx::CsvTable after(csv, sha, cache);
    if (lynx::test::observe_table(after) != expected) lynx::fuzz::finding("a damaged cache changed a value");
  });
  return 0;
}
