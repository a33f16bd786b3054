// main() of the doctest executables: doctest's, except that a run whose filters select no test case fails
// (tests/doctest_run.hpp).
#define DOCTEST_CONFIG_IMPLEMENT
#include "tests/doctest_run.hpp"

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  return lynx::test::run_selected(context);
}
