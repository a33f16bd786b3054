#include <doctest/doctest.h>

#include <filesystem>

#include "common/atomic_file.hpp"
#include "common/error.hpp"

using namespace lynx;
namespace fs = std::filesystem;

TEST_CASE("atomic write replaces the file whole and leaves no temporary") {
  fs::path dir = fs::temp_directory_path() / "lynx_atomic_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string path = (dir / "out.txt").string();
  write_file_atomic(path, "first");
  write_file_atomic(path, "second, longer");
  CHECK(read_file(path) == "second, longer");
  int entries = 0;
  for (auto& e : fs::directory_iterator(dir)) entries += e.is_regular_file();
  CHECK(entries == 1);
  CHECK_THROWS_AS(write_file_atomic((dir / "no/such/dir/x").string(), "x"), LynxError);
  CHECK_THROWS_AS(read_file((dir / "absent").string()), LynxError);
  fs::remove_all(dir);
}
