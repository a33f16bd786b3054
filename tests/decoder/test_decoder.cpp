// The forward pass on the real stories260K: greedy decoding from BOS writes the model's known story, the
// next-token distribution after "Once upon a time" is llama2.c's, teacher-forced perplexity over the whole
// evaluation text is 3.857926 over 39,245 tokens, and a block forward equals the same tokens stepped one by one.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "decoder_test_util.hpp"
#include "models/decoder/accuracy.hpp"
#include "models/decoder/decoder.hpp"
#include "models/decoder/eval_text.hpp"
#include "models/decoder/greedy.hpp"

using namespace lynx;

TEST_CASE("greedy decoding from BOS with an fp32 KV cache writes the known stories260K story") {
  Decoder decoder(test::stories260k());
  KvCache cache = decoder.make_cache(kv_format_parse("fp32"));
  std::vector<int> tokens = greedy_generate(decoder, cache, {kBosToken}, 60);
  tokens.insert(tokens.begin(), kBosToken);  // the piece after BOS drops its leading space
  std::string text = tokenizer_decode(test::tok512(), tokens);
  CAPTURE(text);
  CHECK(text.rfind("Once upon a time, there was a little girl named Lily. She loved to play outside in the park.", 0) ==
        0);
}

TEST_CASE("after \"Once upon a time\" the next token is ',' with p ~ 0.969 and ' there' with p ~ 0.029") {
  const Tokenizer& t = test::tok512();
  Decoder decoder(test::stories260k());
  KvCache cache = decoder.make_cache(kv_format_parse("fp32"));
  std::vector<int> prompt = tokenizer_encode(t, "Once upon a time", true, false);
  const float* logits = decoder.forward(cache, prompt.data(), static_cast<int64_t>(prompt.size()));
  logits += (prompt.size() - 1) * 512;
  double z = 0;
  for (int v = 0; v < 512; ++v) z += std::exp(static_cast<double>(logits[v]));
  auto p = [&](const char* piece) { return std::exp(static_cast<double>(logits[t.ids.at(piece)])) / z; };
  CHECK(p(",") == doctest::Approx(0.969).epsilon(0.005));
  CHECK(p(" there") == doctest::Approx(0.029).epsilon(0.05));
}

TEST_CASE("teacher-forced perplexity of stories260K over the evaluation text with fp32 KV: 3.857926, 39245 tokens") {
  Decoder decoder(test::stories260k());
  EvalCorpus corpus = eval_corpus(test::tok512(), test::eval_text(), 0);
  TeacherForced tf = teacher_forced(decoder, kv_format_parse("fp32"), teacher_forcing_windows(corpus, 511), false);
  CHECK(tf.tokens == 39245);
  CHECK(tf.perplexity() == doctest::Approx(3.857926).epsilon(1e-6));
}

TEST_CASE("a forward over a block gives bit-identical logits to stepping its tokens one by one") {
  const Tokenizer& t = test::tok512();
  Decoder decoder(test::stories260k());
  std::vector<int> tokens = tokenizer_encode(t, "Tom and Lily were playing with their toys in the living room.", true,
                                             false);
  const int64_t n = static_cast<int64_t>(tokens.size());
  for (const char* name : {"fp32", "bf16", "int4-g64", "lynx-a4r4-g64", "lynx-a4r4-g64-rq"}) {
    CAPTURE(name);
    KvCache stepped = decoder.make_cache(kv_format_parse(name)), block = decoder.make_cache(kv_format_parse(name));
    decoder.prefill(stepped, tokens.data(), 5);
    decoder.prefill(block, tokens.data(), 5);
    std::vector<float> one_by_one;
    for (int64_t i = 5; i < n; ++i) {
      const float* logits = decoder.step(stepped, tokens[static_cast<size_t>(i)]);
      one_by_one.insert(one_by_one.end(), logits, logits + 512);
    }
    const float* all = decoder.forward(block, tokens.data() + 5, n - 5);
    CHECK(std::memcmp(all, one_by_one.data(), one_by_one.size() * sizeof(float)) == 0);
    CHECK(block.tokens() == n);
  }
}
