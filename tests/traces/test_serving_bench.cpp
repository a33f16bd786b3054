// The reader of measured serving-benchmark runs (traces/serving_bench.hpp): vllm bench serve's printed result block
// with the commands and headings above it, shell word splitting, and one clear error per damaged block.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "common/error.hpp"
#include "traces/serving_bench.hpp"

// Its own namespace: in a unity build (CMAKE_UNITY_BUILD, the Makefile's sanitized and fuzz builds) another test
// file's helpers of the same names would share its scope.
namespace test_serving_bench {

using namespace lynx;

namespace {
std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = std::string(P_tmpdir) + "/lynx-serving-bench-" + std::to_string(::getpid()) + "-" + name;
  std::ofstream(path) << text;
  return path;
}

const char* kBlock =
    "    ============ Serving Benchmark Result ============\n"
    "    Successful requests:                     500\n"
    "    Benchmark duration (s):                  976.29\n"
    "    Total input tokens:                      1997942\n"
    "    Total generated tokens:                  99790\n"
    "    Request throughput (req/s):              0.51\n"
    "    ---------------Time to First Token----------------\n"
    "    Mean TTFT (ms):                          482284.21\n"
    "    P95 TTFT (ms):                           N/A\n"
    "    -----Time per Output Token (excl. 1st token)------\n"
    "    Mean TPOT (ms):                          66.61\n"
    "    ==================================================\n";
}  // namespace

TEST_CASE("a markdown page's result blocks come with their heading, label, serving and benchmark commands") {
  const std::string text = std::string("# Page\n\n### Other Benchmark Cases\n\n??? info \"Baseline serving script\"\n") +
                           "    ```bash\n    vllm serve Qwen/Qwen3-32B \\\n        -tp 2 --max-num-seqs=64\n    ```\n" +
                           "```bash\nvllm bench serve --model Qwen/Qwen3-32B --dataset-name random --num-prompts 500\n```\n" +
                           "    ```bash\n    # random 4K input\n" + kBlock + "    # random 2K input\n" + kBlock +
                           "    ```\n";
  const std::string path = write_temp("page.md", text);
  const auto runs = serving_bench_read_text(path);
  std::remove(path.c_str());
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].heading == "Other Benchmark Cases");
  CHECK(runs[0].label == "random 4K input");
  CHECK(runs[1].label == "random 2K input");
  CHECK(runs[0].line == 15);
  CHECK(runs[0].serve_command ==
        std::vector<std::string>{"vllm", "serve", "Qwen/Qwen3-32B", "-tp", "2", "--max-num-seqs=64"});
  CHECK(command_option(runs[0].serve_command, "-tp") == "2");
  CHECK(command_option(runs[0].serve_command, "--max-num-seqs") == "64");
  CHECK(command_option(runs[0].bench_command, "--num-prompts") == "500");
  CHECK(runs[1].requests() == 500);
  CHECK(runs[1].duration_s() == 976.29);
  CHECK(runs[1].input_tokens() == 1997942);
  CHECK(runs[1].generated_tokens() == 99790);
  CHECK(runs[1].mean_ttft_ms() == 482284.21);
  CHECK(runs[1].mean_tpot_ms() == 66.61);
  CHECK(std::isnan(runs[1].max_concurrency()));
  CHECK(std::isnan(runs[1].field("P95 TTFT (ms)")));  // N/A: not a sample
}

TEST_CASE("shell words: quotes, escapes, continued lines and comments, as a shell splits them") {
  CHECK(shell_words("a 'b c' \"d \\\"e\\\"\" f\\ g # comment") ==
        std::vector<std::string>{"a", "b c", "d \"e\"", "f g"});
  CHECK(shell_words("vllm serve m \\\n  --x=1") == std::vector<std::string>{"vllm", "serve", "m", "--x=1"});
  CHECK(shell_words("--config={\"a\": 1}") == std::vector<std::string>{"--config={a:", "1}"});
  CHECK_THROWS_WITH_AS(shell_words("a 'b"), doctest::Contains("unterminated single quote"), LynxError);
  bool present = false;
  CHECK(command_option({"x", "--flag", "--v", "3", "--v=4"}, "--v") == "4");
  CHECK(command_option({"x", "--flag", "--v", "3"}, "--flag", &present).empty());
  CHECK(present);
  CHECK(command_option({"x"}, "--flag", &present).empty());
  CHECK(!present);
}

TEST_CASE("a damaged result block is one error naming the file, the line and the field") {
  std::string missing = kBlock;
  missing.erase(missing.find("    Total generated tokens"), std::string("    Total generated tokens:                  99790\n").size());
  const std::string path = write_temp("missing.md", std::string("x\n") + missing);
  CHECK_THROWS_WITH_AS(serving_bench_read_text(path),
                       doctest::Contains(":2: a vllm bench serve result block without \"Total generated tokens\""), LynxError);
  std::string bad = kBlock;
  bad.replace(bad.find("976.29"), 6, "-1.5");
  std::ofstream(path) << bad;
  CHECK_THROWS_WITH_AS(serving_bench_read_text(path),
                       doctest::Contains(":3: \"Benchmark duration (s)\": expected a finite non-negative number, got \"-1.5\""),
                       LynxError);
  std::string open = kBlock;
  open.erase(open.rfind("    ====="));
  std::ofstream(path) << open;
  CHECK_THROWS_WITH_AS(serving_bench_read_text(path), doctest::Contains("without its closing line"), LynxError);
  std::ofstream(path) << "no block here\n";
  CHECK_THROWS_WITH_AS(serving_bench_read_text(path), doctest::Contains("no vllm bench serve result block"), LynxError);
  std::remove(path.c_str());
}

}  // namespace test_serving_bench
