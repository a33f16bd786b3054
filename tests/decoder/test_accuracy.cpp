// `lynxsim accuracy`'s evaluation on a few stories: byte-identical JSON for the same inputs, the schema the
// simulator reads, histograms (pooled and by prompt length) consistent with the per-prompt acceptances and with
// separate protocol runs; and the committed accuracy file is what the decoder writes today (staleness test).
// The committed file's structure is checked in test_accuracy_file.cpp.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "decoder_test_util.hpp"
#include "models/decoder/accuracy.hpp"
#include "models/decoder/eval_text.hpp"
#include "models/decoder/lynx_protocol.hpp"

using namespace lynx;

namespace {
AccuracyOptions small_options() {
  AccuracyOptions o;
  o.formats = {"int4-g64", "lynx-a4r4-g64", "kivi2-g32"};
  o.greedy_tokens = 12;
  o.k_max = 10;
  o.cuts = {8, 30};
  o.length_cuts = {30, 8, 20, 400};  // any order; 400: fewer than 2 of the first 3 stories are that long
  o.min_prompts_per_length = 2;
  o.max_stories = 3;
  return o;
}

// Histogram rows for k = 1..k_max from min(L, k_max) per prompt, counted directly.
std::vector<std::vector<int64_t>> histogram_of(const std::vector<int>& leading, int k_max) {
  std::vector<std::vector<int64_t>> rows;
  for (int k = 1; k <= k_max; ++k) {
    std::vector<int64_t> row(static_cast<size_t>(k + 1), 0);
    for (int L : leading) ++row[static_cast<size_t>(std::min(k, L))];
    rows.push_back(row);
  }
  return rows;
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
  CHECK(!formats["kivi2-g32"].contains("speculation_by_prompt_length"));
}

// Each length's statistics equal those of separate protocol runs on its prompts; the pooled cuts' entries are
// their share of the pooled histogram; a length too few stories reach is left out and listed.
TEST_CASE("speculation by prompt length: separate runs, pooled share, lengths left out") {
  const AccuracyOptions o = small_options();
  AccuracyReport report = accuracy_evaluate(test::stories260k(), test::tok512(), test::eval_text(),
                                            shipped_text_path(), o);
  const EvalCorpus corpus = eval_corpus(test::tok512(), test::eval_text(), o.max_stories);
  int long_enough_400 = 0;
  for (const auto& story : corpus.stories) long_enough_400 += story.size() >= 400;
  REQUIRE(long_enough_400 < 2);
  REQUIRE(report.lengths_left_out.size() == 1);
  CHECK(report.lengths_left_out[0].prompt_tokens == 400);
  CHECK(report.lengths_left_out[0].prompts == long_enough_400);
  CHECK(report.options.length_cuts == std::vector<int>{8, 20, 30, 400});

  const FormatAccuracy& lynx = report.formats[1];
  REQUIRE(lynx.by_length.size() == 3);
  Decoder decoder(test::stories260k());
  KvCache cache = decoder.make_cache(kv_format_parse("lynx-a4r4-g64"));
  const std::vector<int> cuts = {8, 20, 30};
  for (size_t i = 0; i < cuts.size(); ++i) {
    CAPTURE(cuts[i]);
    const SpeculationStats& b = lynx.by_length[i];
    CHECK(b.prompt_tokens == cuts[i]);
    std::vector<int> leading;
    for (const Prompt& p : cut_prompts(corpus, {cuts[i]}))
      leading.push_back(lynx_speculate(decoder, cache, p.tokens, o.k_max).accepted);
    CHECK(b.prompts == static_cast<int>(leading.size()));
    CHECK(b.histogram == histogram_of(leading, o.k_max));
    CHECK(b.acceptance_rate == speculation_stats(leading, o.k_max).acceptance_rate);
  }
  // The pooled cuts 8 and 30 make up the pooled histogram.
  for (size_t k = 0; k < lynx.histogram.size(); ++k)
    for (size_t m = 0; m < lynx.histogram[k].size(); ++m)
      CHECK(lynx.histogram[k][m] == lynx.by_length[0].histogram[k][m] + lynx.by_length[2].histogram[k][m]);

  nlohmann::json j = nlohmann::json::parse(accuracy_json(report));
  CHECK(j["prompts"]["length_cuts_story_tokens"] == nlohmann::json({8, 20, 30, 400}));
  CHECK(j["prompts"]["min_prompts_per_length"] == 2);
  CHECK(j["prompts"]["lengths_left_out"] ==
        nlohmann::json::parse("[{\"prompt_tokens\": 400, \"prompts\": " + std::to_string(long_enough_400) + "}]"));
  const auto& by_length = j["formats"]["lynx-a4r4-g64"]["speculation_by_prompt_length"];
  REQUIRE(by_length.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(by_length[i]["prompt_tokens"] == cuts[i]);
    CHECK(by_length[i]["prompts"] == lynx.by_length[i].prompts);
    CHECK(by_length[i]["accepted_histogram"] == nlohmann::json(lynx.by_length[i].histogram));
  }
}

TEST_CASE("prompt lengths that do not fit the context are refused") {
  AccuracyOptions o = small_options();
  o.formats = {"lynx-a4r4-g64"};
  o.length_cuts = {512 - o.k_max};  // BOS + cut + k_max drafts = 513 positions
  CHECK_THROWS_WITH(accuracy_evaluate(test::stories260k(), test::tok512(), test::eval_text(), shipped_text_path(), o),
                    doctest::Contains("prompt length of 502 story tokens needs 513 positions"));
  o.length_cuts = {511 - o.k_max};
  CHECK_NOTHROW(accuracy_evaluate(test::stories260k(), test::tok512(), test::eval_text(), shipped_text_path(), o));
}

// The committed file must be what the decoder writes today. Recomputing it all takes ~130 s of CPU, so this
// recomputes a cheap subset with the file's own settings (all 39,245 tokens, all 299 prompts): the fp32 reference
// perplexity, every figure of bf16, and every figure of lynx-a4r4-g8 (anchor-only perplexity, the whole pooled
// speculation histogram, and its speculation_by_prompt_length entry at 128 story tokens: 99 prompts measured only
// there), each compared to the last digit the file prints. A decoder change that moves any of them fails here.
TEST_CASE("the committed accuracy file matches the decoder (regenerate with `make accuracy`)") {
  const std::string path = std::string(LYNX_SOURCE_DIR) + "/models/accuracy/stories260k.json";
  nlohmann::json file = nlohmann::json::parse(read_file(path));
  constexpr int kLength = 128;  // the by-length entry recomputed
  AccuracyOptions o;
  o.formats = {"bf16", "lynx-a4r4-g8"};
  o.greedy_tokens = file["prompts"]["greedy_tokens"].get<int>();
  o.k_max = file["prompts"]["k_max"].get<int>();
  o.cuts = file["prompts"]["cuts_story_tokens"].get<std::vector<int>>();
  o.length_cuts = {kLength};
  o.min_prompts_per_length = file["prompts"]["min_prompts_per_length"].get<int>();
  const std::string text_path = shipped_text_path();
  nlohmann::json now = nlohmann::json::parse(
      accuracy_json(accuracy_evaluate(test::stories260k(), test::tok512(), test::eval_text(), text_path, o)));
  INFO(path, " is stale: regenerate it with `make accuracy` (scripts/accuracy.sh)");
  CHECK(now["tokens_evaluated"] == file["tokens_evaluated"]);
  for (const char* key : {"count", "cuts_story_tokens", "greedy_tokens", "k_max", "min_prompts_per_length"})
    CHECK(now["prompts"][key] == file["prompts"][key]);
  CHECK(now["reference"] == file["reference"]);
  for (const char* name : {"bf16", "lynx-a4r4-g8"}) {
    CAPTURE(name);
    REQUIRE(file["formats"].contains(name));
    for (const auto& [key_bound, value] : file["formats"][name].items()) {
      const std::string& key = key_bound;  // clang 14: a structured binding cannot be captured
      CAPTURE(key);
      if (key == "speculation_by_prompt_length") {
        nlohmann::json entry;
        for (const auto& e : value)
          if (e["prompt_tokens"] == kLength) entry = e;
        REQUIRE(now["formats"][name][key].size() == 1);
        for (const auto& [field_bound, figure] : now["formats"][name][key][0].items()) {
          const std::string& field = field_bound;
          CAPTURE(field);
          CHECK_MESSAGE(entry[field] == figure, "speculation_by_prompt_length[" << kLength << "]." << field
                                                                                << " differs");
        }
      } else if (key == "speculation") {
        for (const auto& [field_bound, figure] : value.items()) {
          const std::string& field = field_bound;  // the histogram compared whole, printed only by name
          CAPTURE(field);
          CHECK_MESSAGE(now["formats"][name][key][field] == figure, "speculation." << field << " differs");
        }
      } else {
        CHECK(now["formats"][name][key] == value);
      }
    }
  }
}
