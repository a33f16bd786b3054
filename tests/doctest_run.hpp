// doctest's run for the test executables' main()s (tests/doctest_main.cpp, tests/kernels_cuda/cuda_test_main.cpp),
// failing when the command line selected no test case. ctest runs each test case alone (doctest_discover_tests
// registers `--test-case=NAME`): a name that does not select its test case, such as one holding a ';' (CMake's list
// separator splits it into two names, neither of which matches), would otherwise pass having run nothing.
#pragma once
#include <doctest/doctest.h>

#include <cstdio>

namespace lynx::test {

// Records how many test cases the run's filters selected.
struct SelectedTestCases : doctest::IReporter {
  static inline unsigned selected = 0;
  explicit SelectedTestCases(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats& stats) override { selected = stats.numTestCasesPassingFilters; }
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};
REGISTER_LISTENER("selected_test_cases", 1, SelectedTestCases);

// context.run(), except that a run (not a query such as --list-test-cases) that selected no test case fails.
inline int run_selected(doctest::Context& context) {
  const int result = context.run();
  if (result != 0 || context.shouldExit()) return result;
  if (SelectedTestCases::selected == 0) {
    std::fprintf(stderr, "no test case matches the filters given (a test name holding ';' cannot be selected by "
                         "ctest): nothing ran\n");
    return 1;
  }
  return result;
}

}  // namespace lynx::test
