// The acceptance model (sim/acceptance/acceptance.hpp): the shipped file's histogram reproduced, no jump past its k_max,
// statistics chosen by prompt length, and the draws following the distribution.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <unistd.h>

#include <cstdio>

#include "common/atomic_file.hpp"
#include "common/data_folder.hpp"
#include "common/json_reader.hpp"
#include "common/error.hpp"
#include "sim/acceptance/acceptance.hpp"
#include "sim_test_support.hpp"

using namespace lynx;

namespace {
const std::string kShipped = project_dir() + "/models/accuracy/stories260k.json";
}

TEST_CASE("past the measured k_max the histogram continues without a jump") {
  const AcceptanceModel m = AcceptanceModel::from_accuracy_file(kShipped, "lynx-a4r4-g64");
  // The statistics a 20-token prompt uses: the longest measured prompt length not above 20.
  nlohmann::json spec;
  const nlohmann::json file = json_parse_file(kShipped);
  for (const auto& entry : file["formats"]["lynx-a4r4-g64"]["speculation_by_prompt_length"])
    if (entry["prompt_tokens"].get<int64_t>() <= 20) spec = entry;
  REQUIRE(spec.is_object());
  spec["k_max"] = spec["accepted_histogram"].size();
  const int64_t k_max = spec["k_max"];
  const nlohmann::json& last = spec["accepted_histogram"][static_cast<size_t>(k_max - 1)];
  double total = 0;
  for (const auto& c : last) total += c.get<double>();
  // m < k_max: the k_max row's probabilities, for k_max and for every longer k (greedy: m = min(L, k)).
  for (int64_t k : {k_max, k_max + 1, k_max + 50, 4 * k_max})
    for (int64_t j : {int64_t{0}, int64_t{1}, k_max / 2, k_max - 1})
      CHECK(m.probability(j, k, 20) == doctest::Approx(last[static_cast<size_t>(j)].get<double>() / total));
  // The row's last mass, P(L >= k_max), is split over m >= k_max and sums back to it.
  for (int64_t k : {k_max + 1, k_max + 10}) {
    double tail = 0, all = 0;
    for (int64_t j = 0; j <= k; ++j) {
      all += m.probability(j, k, 20);
      if (j >= k_max) tail += m.probability(j, k, 20);
    }
    CHECK(all == doctest::Approx(1.0));
    CHECK(tail == doctest::Approx(last[static_cast<size_t>(k_max)].get<double>() / total));
  }
  // The old geometric tail jumped: with the pooled rate, P(m = 0) would be 1 - rate, not the row's.
  const double rate = spec["per_token_acceptance_rate"];
  CHECK(std::abs(m.probability(0, k_max + 1, 20) - (1 - rate)) > 0.05);
}

TEST_CASE("statistics by prompt length: the longest measured length not above the prompt, extrapolation flagged") {
  const nlohmann::json file = {
      {"formats",
       {{"lynx-a4r4-g64",
         {{"speculation", {{"per_token_acceptance_rate", 0.5}, {"accepted_histogram", {{1, 1}}}}},
          {"speculation_by_prompt_length",
           {{{"prompt_tokens", 32}, {"per_token_acceptance_rate", 0.2}, {"accepted_histogram", {{4, 1}}}},
            {{"prompt_tokens", 128}, {"per_token_acceptance_rate", 0.8}, {"accepted_histogram", {{1, 4}}}}}}}}}}};
  const std::string path = "/tmp/lynx_acceptance_by_length_" + std::to_string(::getpid()) + ".json";
  write_file_atomic(path, file.dump());
  const AcceptanceModel m = AcceptanceModel::from_accuracy_file(path, "lynx-a4r4-g64");
  CHECK(m.probability(1, 1, 10) == doctest::Approx(0.2));    // shorter than every length: the shortest
  CHECK(m.probability(1, 1, 100) == doctest::Approx(0.2));   // 32 <= 100 < 128
  CHECK(m.probability(1, 1, 128) == doctest::Approx(0.8));
  CHECK(m.probability(1, 1, 5000) == doctest::Approx(0.8));  // beyond: the longest, extrapolated
  CHECK(!m.extrapolates(128));
  CHECK(m.extrapolates(129));
  CHECK(m.source().find("by prompt length: 2 lengths, 32 to 128 tokens") != std::string::npos);
  std::remove(path.c_str());
}

TEST_CASE("draws follow the model's distribution (histogram with its tail, and a rate)") {
  const AcceptanceModel file = AcceptanceModel::from_accuracy_file(kShipped, "lynx-a4r4-g64");
  const AcceptanceModel rate = AcceptanceModel::from_rate(0.7, "test");
  for (const AcceptanceModel* m : {&file, &rate})
    for (int64_t k : {int64_t{3}, int64_t{100}}) {
      constexpr int kDraws = 200000;
      SplitMix64 rng(7);
      std::vector<double> seen(static_cast<size_t>(k + 1), 0);
      for (int i = 0; i < kDraws; ++i) ++seen[static_cast<size_t>(m->draw(k, 200, rng))];
      for (int64_t j : {int64_t{0}, int64_t{1}, int64_t{2}, k})
        CHECK(seen[static_cast<size_t>(j)] / kDraws == doctest::Approx(m->probability(j, k, 200)).epsilon(0.02).scale(1));
    }
  CHECK_THROWS_WITH_AS(AcceptanceModel::from_histogram(nlohmann::json::array({{1, 2, 3}}), "c.json",
                                                       "$.lynx.acceptance_histogram"),
                       "c.json: $.lynx.acceptance_histogram[0]: expected an array of 2 counts (m = 0..1)", LynxError);
}

// The published source (sim/acceptance/published_acceptance.hpp): QuantSpec's bound as a per-token rate, its citation and
// conditions in the source, and a model outside the published sizes said so.
TEST_CASE("acceptance_published: QuantSpec's > 90% as 0.9 per token, cited, with sizes outside its models named") {
  auto inputs_for = [](const char* model, int tp) {  // tp: GPUs enough for the weights (checked with the inputs)
    return lynx::test::make_inputs({{"model", model},
                                    {"compute_model", "roofline"},
                                    {"format", "lynx-a4r4-g64"},
                                    {"cluster", {{"prefill", {{"tp", tp}}}, {"decode", {{"tp", tp}}}}},
                                    {"lynx", {{"acceptance_published", "quantspec"}}}},
                                   {});
  };
  const SimulationInputs small = inputs_for("llama-3.1-8b", 1);
  // Geometric: P(m = 2 | k = 4) = a^2 (1 - a).
  CHECK(small.run_format.acceptance.probability(2, 4, 8192) == doctest::Approx(0.9 * 0.9 * 0.1));
  CHECK(small.run_format.acceptance.probability(4, 4, 8192) == doctest::Approx(std::pow(0.9, 4)));
  CHECK(small.run_format.acceptance.source().find("arXiv 2502.10424") != std::string::npos);
  CHECK(small.run_format.acceptance.source().find("outside the published model sizes") == std::string::npos);
  const SimulationInputs large = inputs_for("llama-3.1-70b", 4);
  CHECK(large.run_format.acceptance.source().find("applied to llama-3.1-70b (70.6B parameters) outside the published model sizes") !=
        std::string::npos);
  CHECK_THROWS_WITH_AS(lynx::test::make_inputs({{"model", "llama-3.1-8b"},
                                                {"format", "lynx-a4r4-g64"},
                                                {"lynx", {{"acceptance_published", "quantspec"}, {"acceptance_rate", 0.5}}}},
                                               {}),
                       doctest::Contains("one acceptance source"), LynxError);
}
