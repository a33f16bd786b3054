// main() of the CUDA tests: doctest as usual (a run that selects no test case fails, tests/doctest_run.hpp), except
// that without a CUDA device a test run exits with 77, which ctest reports as skipped (SKIP_RETURN_CODE), never as
// passed. Listing the test cases works everywhere, so that ctest can register them on a machine without a GPU.
#define DOCTEST_CONFIG_IMPLEMENT
#include "tests/doctest_run.hpp"

#include <cstdio>
#include <cstring>

#include "kernels/cuda/device_memory.hpp"

int main(int argc, char** argv) {
  bool listing = false;
  for (int i = 1; i < argc; ++i)
    listing = listing || std::strncmp(argv[i], "--list", 6) == 0 || std::strncmp(argv[i], "-lt", 3) == 0 ||
              std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-?") == 0;
  if (!listing && lynx::cuda_device_count() == 0) {
    std::printf("SKIPPED: no CUDA device (the CUDA kernels are compared with the CPU reference only on a GPU)\n");
    return 77;
  }
  doctest::Context context(argc, argv);
  return lynx::test::run_selected(context);
}
