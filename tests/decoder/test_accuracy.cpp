// `lynxsim accuracy`'s evaluation on a few stories: byte-identical JSON for the same inputs, the schema the
// simulator reads, histograms consistent with the per-prompt acceptances; and the committed accuracy file for
// stories260K has every format the simulator expects and the reference perplexity of the perplexity test.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "decoder_test_util.hpp"
#include "models/decoder/accuracy.hpp"

using namespace lynx;

namespace {
AccuracyOptions small_options() {
  AccuracyOptions o;
  o.formats = {"int4-g64", "lynx-a4r4-g64", "kivi2-g32"};
  o.greedy_tokens = 12;
  o.k_max = 10;
  o.cuts = {8, 30};
  o.max_stories = 3;
  return o;
}
}  // namespace

TEST_CASE("the accuracy file is deterministic and has the simulator's schema") {
  const std::string text_path = shipped_text_path();
  AccuracyReport report = accuracy_evaluate(test::stories260k(), test::tok512(), test::eval_text(), text_path,
                                            small_options());
  const std::string json = accuracy_json(report);
  CHECK(json == accuracy_json(accuracy_evaluate(test::stories260k(), test::tok512(), test::eval_text(), text_path,
                                                small_options())));
  nlohmann::json j = nlohmann::json::parse(json);
  CHECK(j["model"] == "stories260k");
  CHECK(j["model_sha256"] == "b0a507e7ad0f626624f17112325e66691f9076d622e1d3274d103d00299f2696");
  CHECK(j["text"] == "tinystories_v2_validation_100.txt");
  CHECK(j["stories"] == 3);
  CHECK(j["reference"]["format"] == "fp32");
  CHECK(j["reference"]["perplexity"].get<double>() > 1.0);
  CHECK(j["prompts"]["count"] == 6);
  const auto& formats = j["formats"];
  CHECK(formats.size() == 3);
  CHECK(formats["int4-g64"].contains("perplexity_delta_vs_fp32"));
  CHECK(!formats["int4-g64"].contains("speculation"));
  const auto& lynx = formats["lynx-a4r4-g64"];
  for (const char* key : {"perplexity", "perplexity_delta_vs_fp32", "top1_agreement_vs_fp32",
                          "greedy_agreement_mean_tokens", "greedy_prompts", "anchor_only_perplexity"})
    CHECK(lynx.contains(key));
  CHECK(lynx["greedy_prompts"] == 6);
  const auto& spec = lynx["speculation"];
  CHECK(spec["k_max"] == 10);
  CHECK(spec["prompts"] == 6);
  const double a = spec["per_token_acceptance_rate"].get<double>();
  CHECK(a >= 0.0);
  CHECK(a <= 1.0);
  const auto& histogram = spec["accepted_histogram"];
  REQUIRE(histogram.size() == 10);
  const FormatAccuracy& measured = report.formats[1];
  for (size_t k = 1; k <= 10; ++k) {
    CAPTURE(k);
    const auto& row = histogram[k - 1];
    REQUIRE(row.size() == k + 1);
    int64_t total = 0;
    for (const auto& c : row) total += c.get<int64_t>();
    CHECK(total == 6);
    for (size_t m = 0; m <= k; ++m) {
      int64_t expected = 0;
      for (int L : measured.leading_accepted) expected += std::min(static_cast<int>(k), L) == static_cast<int>(m);
      CHECK(row[m].get<int64_t>() == expected);
    }
  }
  CHECK(formats["kivi2-g32"]["top1_agreement_vs_fp32"].get<double>() < 1.0);
}

TEST_CASE("the committed accuracy file for stories260K") {
  nlohmann::json j = nlohmann::json::parse(read_file(std::string(LYNX_SOURCE_DIR) + "/models/accuracy/stories260k.json"));
  CHECK(j["model"] == "stories260k");
  CHECK(j["model_sha256"] == "b0a507e7ad0f626624f17112325e66691f9076d622e1d3274d103d00299f2696");
  CHECK(j["tokens_evaluated"] == 39245);
  CHECK(j["reference"]["perplexity"].get<double>() == doctest::Approx(3.857926).epsilon(1e-6));
  for (const char* name : {"bf16", "fp8-e4m3", "int8-g64", "int4-g64", "kivi2-g32", "lynx-a4r4-g64",
                           "lynx-a4r4-g64-rq"}) {
    CAPTURE(name);
    REQUIRE(j["formats"].contains(name));
    const auto& f = j["formats"][name];
    CHECK(f["perplexity"].get<double>() >= 3.8);
    const bool lynx = std::string(name).rfind("lynx", 0) == 0;
    CHECK(f.contains("speculation") == lynx);
    if (lynx) {
      CHECK(f["speculation"]["k_max"] == 64);
      CHECK(f["speculation"]["accepted_histogram"].size() == 64);
      CHECK(f["speculation"]["accepted_histogram"][63].size() == 65);
    }
  }
}

// The committed file must be what the decoder writes today. Recomputing it all takes ~45 s, so this recomputes a
// cheap subset with the file's own settings (all 39,245 tokens, all 299 prompts): the fp32 reference perplexity,
// every figure of bf16, and every figure of lynx-a4r4-g8 (anchor-only perplexity and the whole speculation
// histogram), each compared to the last digit the file prints. A decoder change that moves any of them fails here.
TEST_CASE("the committed accuracy file matches the decoder (regenerate with `make accuracy`)") {
  const std::string path = std::string(LYNX_SOURCE_DIR) + "/models/accuracy/stories260k.json";
  nlohmann::json file = nlohmann::json::parse(read_file(path));
  AccuracyOptions o;
  o.formats = {"bf16", "lynx-a4r4-g8"};
  o.greedy_tokens = file["prompts"]["greedy_tokens"].get<int>();
  o.k_max = file["prompts"]["k_max"].get<int>();
  o.cuts = file["prompts"]["cuts_story_tokens"].get<std::vector<int>>();
  const std::string text_path = shipped_text_path();
  nlohmann::json now = nlohmann::json::parse(
      accuracy_json(accuracy_evaluate(test::stories260k(), test::tok512(), test::eval_text(), text_path, o)));
  INFO(path, " is stale: regenerate it with `make accuracy` (scripts/accuracy.sh)");
  CHECK(now["tokens_evaluated"] == file["tokens_evaluated"]);
  CHECK(now["prompts"] == file["prompts"]);
  CHECK(now["reference"] == file["reference"]);
  for (const char* name : {"bf16", "lynx-a4r4-g8"}) {
    CAPTURE(name);
    REQUIRE(file["formats"].contains(name));
    for (const auto& [key, value] : file["formats"][name].items()) {
      CAPTURE(key);
      if (key != "speculation") {
        CHECK(now["formats"][name][key] == value);
        continue;
      }
      for (const auto& [field, figure] : value.items()) {  // the histogram compared whole, printed only by name
        CAPTURE(field);
        CHECK_MESSAGE(now["formats"][name][key][field] == figure, "speculation." << field << " differs");
      }
    }
  }
}
