// The Lynx protocol end to end in the decoder (draft on anchor-only prompt KV, verify on full KV, keep the matching
// prefix plus the verifier's token, roll back, continue) produces exactly the tokens of plain greedy decoding on
// the full KV, for every prompt, k and Lynx format tried; and k drafts accept min(k, L) where L is what k_max
// drafts accept, which is how `lynxsim accuracy` derives the acceptance histogram.
#include <doctest/doctest.h>

#include "common/error.hpp"
#include "decoder_test_util.hpp"
#include "models/decoder/eval_text.hpp"
#include "models/decoder/greedy.hpp"
#include "models/decoder/lynx_protocol.hpp"

using namespace lynx;

namespace {
std::vector<Prompt> some_prompts() {
  EvalCorpus corpus = eval_corpus(test::tok512(), test::eval_text(), 0);
  std::vector<Prompt> all = cut_prompts(corpus, {1, 24, 100}), picked;
  for (size_t i = 0; i < all.size(); i += 23) picked.push_back(all[i]);  // 14 prompts over stories and cuts
  return picked;
}
}  // namespace

TEST_CASE("the Lynx protocol produces exactly the tokens of greedy decoding on the full KV") {
  Decoder decoder(test::stories260k());
  const std::vector<Prompt> prompts = some_prompts();
  REQUIRE(prompts.size() >= 12);
  const int n_new = 40;
  int rounds = 0, rejected = 0, accepted_some = 0, all_accepted = 0;
  for (const char* name : {"lynx-a4r4-g64", "lynx-a4r4-g64-rq", "lynx-a2r6-g16", "lynx-a3r5-g8-rq"}) {
    const KvFormat format = kv_format_parse(name);
    KvCache cache = decoder.make_cache(format);
    for (const Prompt& p : prompts) {
      const std::vector<int> reference = greedy_generate(decoder, cache, p.tokens, n_new);
      for (int k : {1, 2, 3, 5, 8, 16, 39, 64}) {
        CAPTURE(name);
        CAPTURE(p.story);
        CAPTURE(p.cut);
        CAPTURE(k);
        Speculation round;
        std::vector<int> tokens = lynx_generate(decoder, cache, p.tokens, k, n_new, &round);
        CHECK(tokens == reference);
        ++rounds;
        rejected += round.accepted < k;
        accepted_some += round.accepted > 0;
        all_accepted += round.accepted == k;
      }
    }
  }
  // The test exercises rollback, partial and full acceptance.
  CHECK(rejected > rounds / 4);
  CHECK(accepted_some > rounds / 4);
  CHECK(all_accepted > 0);
}

TEST_CASE("k drafts accept min(k, L), L being what k_max = 64 drafts accept") {
  Decoder decoder(test::stories260k());
  KvCache cache = decoder.make_cache(kv_format_parse("lynx-a4r4-g64"));
  for (const Prompt& p : some_prompts()) {
    Speculation full = lynx_speculate(decoder, cache, p.tokens, 64);
    for (int k : {1, 2, 4, 7, 13, 32}) {
      Speculation s = lynx_speculate(decoder, cache, p.tokens, k);
      CHECK(s.accepted == std::min(k, full.accepted));
      CHECK(std::equal(s.draft.begin(), s.draft.end(), full.draft.begin()));
      CHECK(std::equal(s.verified.begin(), s.verified.end() - 1, full.verified.begin()));
      CHECK(cache.tokens() == static_cast<int64_t>(p.tokens.size()) + s.accepted);
    }
  }
}

TEST_CASE("the protocol needs a Lynx format and k >= 1") {
  Decoder decoder(test::stories260k());
  KvCache int8 = decoder.make_cache(kv_format_parse("int8-g64"));
  CHECK_THROWS_WITH_AS(lynx_speculate(decoder, int8, {kBosToken}, 4), doctest::Contains("no anchor/residual split"),
                       LynxError);
  KvCache lynx = decoder.make_cache(kv_format_parse("lynx-a4r4-g64"));
  CHECK_THROWS_AS(lynx_speculate(decoder, lynx, {kBosToken}, 0), LynxError);
}
