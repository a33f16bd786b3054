// SentencePiece through libsentencepiece: stories260K's tok512.model gives the same token ids as the llama2.c
// tokenizer (tok512.bin, tokenizer.hpp) on the evaluation text, except where the text has two spaces in a row
// (once, in story 15: `mummy!".  And`): tok512.model's normalizer removes extra whitespace, as it did when the
// model was trained (llama2.c tokenizes its training data with SentencePiece), and llama2.c's run.c encoder does
// not. There SentencePiece's ids are the llama2.c ids of the text with the run of spaces collapsed: 39,244
// tokens for the text instead of 39,245.
#include <doctest/doctest.h>

#include "common/error.hpp"
#include "common/data_folder.hpp"
#include "decoder_test_util.hpp"
#include "models/decoder/eval_text.hpp"
#include "models/decoder/sp_tokenizer.hpp"

using namespace lynx;

TEST_CASE("tok512.model through SentencePiece gives the llama2.c tokenizer's ids on the evaluation text") {
  if (!sentencepiece_available()) {
    CHECK_THROWS_WITH_AS(SpTokenizer("x.model"), doctest::Contains("built without SentencePiece"), LynxError);
    return;
  }
  SpTokenizer sp(data_file("models/stories260K/tok512.model"));
  CHECK(sp.vocab_size() == 512);
  CHECK(sp.bos_id() == kBosToken);
  CHECK(sp.eos_id() == kEosToken);
  int64_t tokens = 0;
  std::vector<size_t> with_double_space;
  const auto stories = split_stories(test::eval_text());
  for (size_t s = 0; s < stories.size(); ++s) {
    CAPTURE(s);
    std::string collapsed = stories[s];
    for (size_t at; (at = collapsed.find("  ")) != std::string::npos;) collapsed.erase(at, 1);
    if (collapsed != stories[s]) with_double_space.push_back(s);
    const std::vector<int> ids = sp.encode(stories[s]);
    REQUIRE(ids == tokenizer_encode(test::tok512(), collapsed, false, false));
    CHECK(sp.decode(ids) == collapsed);
    tokens += static_cast<int64_t>(ids.size());
  }
  CHECK(with_double_space == std::vector<size_t>{15});
  // empty text and no ids: nothing across the module's C functions (no copy from an empty vector's null data)
  CHECK(sp.encode("").empty());
  CHECK(sp.decode({}).empty());
  CHECK(tokens == 39244);
  CHECK_THROWS_WITH_AS(SpTokenizer(data_file("models/stories260K/tok512.bin")), doctest::Contains("tok512.bin: not a "
                                                                                                  "SentencePiece model"),
                       LynxError);
}
