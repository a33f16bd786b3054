// Libraries opened at their first use (common/shared_library.hpp): found by SONAME, one handle per process, and a
// missing library or function is one error naming it, its Debian package and what needed it.
#include <doctest/doctest.h>

#include <zstd.h>

#include "common/error.hpp"
#include "common/shared_library.hpp"

using namespace lynx;

TEST_CASE("a shared library opened at first use: its functions work, the handle is kept, a missing one is named") {
  const SharedLibrary& zstd = SharedLibrary::open("libzstd.so.1", "libzstd1", "a test");
  CHECK(&zstd == &SharedLibrary::open("libzstd.so.1", "libzstd1", "a test"));
  const auto version = zstd.function<decltype(&ZSTD_versionNumber)>("ZSTD_versionNumber");
  CHECK(version() >= 10000);  // 1.x.y as 10000 x + 100 y + z
  CHECK_THROWS_WITH_AS(zstd.function<void (*)()>("no_such_function"),
                       doctest::Contains("libzstd.so.1: has no function no_such_function, needed for a test"), LynxError);
  CHECK_THROWS_WITH_AS(SharedLibrary::open("liblynx_no_such_library.so.9", "lynx-nothing", "reading nothing"),
                       doctest::Contains("liblynx_no_such_library.so.9: cannot load it for reading nothing (install "
                                         "Debian's lynx-nothing"),
                       LynxError);
}
