// The llama2.c tokenizer on tok512: BPE encoding with a dummy prefix and byte fallback, decoding, the evaluation
// text's token count (39,245, as measured independently in data/README), and clear errors for a broken file.
#include <doctest/doctest.h>

#include "common/error.hpp"
#include "decoder_test_util.hpp"
#include "models/decoder/eval_text.hpp"

using namespace lynx;

TEST_CASE("encode and decode round-trip, with BOS, EOS and byte fallback") {
  const Tokenizer& t = test::tok512();
  for (const char* text : {"Once upon a time, there was a little girl named Lily.", "Tom said, \"No!\"\nThe end.",
                           "caf\xc3\xa9 \xe2\x9c\x93 ~{}", "a"}) {
    CAPTURE(text);
    std::vector<int> ids = tokenizer_encode(t, text, true, true);
    CHECK(ids.front() == kBosToken);
    CHECK(ids.back() == kEosToken);
    CHECK(tokenizer_decode(t, ids) == text);
  }
  CHECK(tokenizer_encode(t, "", false, false).empty());
  // A character outside the vocabulary becomes its UTF-8 bytes' <0xNN> tokens.
  std::vector<int> check_mark = tokenizer_encode(t, "\xe2\x9c\x93", false, false);
  REQUIRE(check_mark.size() == 4);  // dummy-prefix space, then three bytes
  CHECK(t.pieces[static_cast<size_t>(check_mark[1])] == "<0xE2>");
  CHECK(t.pieces[static_cast<size_t>(check_mark[3])] == "<0x93>");
}

TEST_CASE("BPE merges whole words of the vocabulary") {
  const Tokenizer& t = test::tok512();
  std::vector<int> ids = tokenizer_encode(t, "Once upon a time", false, false);
  std::string pieces;
  for (int id : ids) pieces += "[" + t.pieces[static_cast<size_t>(id)] + "]";
  CAPTURE(pieces);
  CHECK(ids.size() <= 6);
  CHECK(tokenizer_decode(t, ids) == " Once upon a time");  // the dummy prefix stays without BOS
  CHECK(tokenizer_piece(t, kBosToken, ids[0]) == t.pieces[static_cast<size_t>(ids[0])].substr(1));
}

TEST_CASE("the evaluation text: 100 stories, 39,245 tokens") {
  EvalCorpus corpus = eval_corpus(test::tok512(), test::eval_text(), 0);
  CHECK(corpus.stories.size() == 100);
  CHECK(corpus.tokens == 39245);
  CHECK(tokenizer_decode(test::tok512(), corpus.stories[1]).rfind(" Once upon a time, in a warm and sunny place", 0) ==
        0);
  // Teacher-forcing windows cover every token once; prompts are cut from the stories' beginnings.
  auto windows = teacher_forcing_windows(corpus, 511);
  int64_t predicted = 0;
  for (const auto& w : windows) {
    CHECK(w.front() == kBosToken);
    CHECK(w.size() <= 512);
    predicted += static_cast<int64_t>(w.size()) - 1;
  }
  CHECK(predicted == 39245);
  CHECK(windows.size() == 117);
  auto prompts = cut_prompts(corpus, {64, 16});
  CHECK(prompts.front().cut == 16);
  CHECK(prompts.front().tokens.size() == 17);
  CHECK(prompts.size() == 200);
}

TEST_CASE("a truncated or oversized tokenizer file is a clear error") {
  const std::string bytes = read_file(shipped_tokenizer_path());
  const std::string dir = std::string(LYNX_BINARY_DIR) + "/";
  write_file_atomic(dir + "tok-short.bin", bytes.substr(0, bytes.size() - 3));
  CHECK_THROWS_WITH_AS(tokenizer_load(dir + "tok-short.bin", 512), doctest::Contains("truncated at byte"), LynxError);
  write_file_atomic(dir + "tok-long.bin", bytes);
  CHECK_THROWS_WITH_AS(tokenizer_load(dir + "tok-long.bin", 500),
                       doctest::Contains("left after 500 tokens: the tokenizer does not match"), LynxError);
  CHECK_NOTHROW(tokenizer_load(dir + "tok-long.bin", 512));
}
