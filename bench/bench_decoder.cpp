// Decoder speed on stories260K: tokens/s of one decode step per token over a 512-token window of the evaluation
// text (positions 0..511), for the plain-C reference forward pass (the baseline: one running sum per dot product,
// fp32 KV, like llama2.c's run.c) and for lynxsim's decoder with an fp32 KV cache and with each KV format (every
// token's K/V encoded through the CPU codec and read back dequantized). Each figure is the best of several runs, so
// that other load on the machine disturbs it less; ratios compare figures of the same run.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "common/atomic_file.hpp"
#include "models/catalog.hpp"
#include "models/decoder/decoder.hpp"
#include "models/decoder/eval_text.hpp"
#include "models/decoder/known_files.hpp"
#include "models/decoder/reference_forward.hpp"

using namespace lynx;

namespace {

constexpr int kRepeats = 7;

template <class Run>
double best_seconds(Run run) {
  double best = 1e30;
  for (int r = 0; r < kRepeats; ++r) {
    auto start = std::chrono::steady_clock::now();
    run();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

}  // namespace

int main() {
  LlamaModel model = llama_load(shipped_model_path());
  Tokenizer tokenizer = tokenizer_load(shipped_tokenizer_path(), model.config.vocab_size);
  EvalCorpus corpus = eval_corpus(tokenizer, read_file(shipped_text_path()), 0);
  std::vector<int> tokens;
  for (const auto& w : teacher_forcing_windows(corpus, model.config.seq_len - 1))
    if (w.size() == static_cast<size_t>(model.config.seq_len)) {
      tokens = w;
      break;
    }
  const double n = static_cast<double>(tokens.size());
  float sink = 0;

  ReferenceDecoder reference(model);
  const double baseline = best_seconds([&] {
    for (size_t pos = 0; pos < tokens.size(); ++pos) sink += reference.step(tokens[pos], static_cast<int>(pos))[0];
  });
  std::printf("stories260K, %zu decode steps (positions 0..%zu), best of %d runs\n", tokens.size(), tokens.size() - 1,
              kRepeats);
  std::printf("%-36s %10s %16s %16s\n", "implementation", "tokens/s", "speed vs plain C", "time vs fp32 KV");
  std::printf("%-36s %10.0f %16.2f %16s\n", "plain C reference (fp32 KV)", n / baseline, 1.0, "-");

  Decoder decoder(model);
  std::vector<std::string> formats = {"fp32"};
  for (const auto& f : kv_format_default_names()) formats.push_back(f);
  formats.push_back("lynx-a4r4-g64 anchor-only");
  double fp32_seconds = 0;
  for (const auto& label : formats) {
    const bool anchor_only = label.find(" anchor") != std::string::npos;
    KvCache cache = decoder.make_cache(kv_format_parse(label.substr(0, label.find(' '))));
    const double seconds = best_seconds([&] {
      cache.set_anchor_only(0);
      cache.clear();
      cache.set_anchor_only(anchor_only ? KvCache::kAllTokens : 0);
      for (int t : tokens) sink += decoder.step(cache, t)[0];
    });
    if (label == "fp32") fp32_seconds = seconds;
    std::printf("%-36s %10.0f %16.2f %16.2f\n", ("decoder, " + label + " KV").c_str(), n / seconds,
                baseline / seconds, seconds / fp32_seconds);
  }
  std::fprintf(stderr, "(checksum %g)\n", static_cast<double>(sink));
  return 0;
}
