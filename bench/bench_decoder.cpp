// Decoder speed on stories260K: tokens/s of one decode step per token over a 512-token window of the evaluation
// text (positions 0..511), single-threaded, for lynxsim's decoder with an fp32 KV cache and with each KV format
// (every token's K/V encoded through the CPU codec and read back dequantized), as ratios to a plain-C baseline of
// the same run: the reference forward pass (reference_forward.cpp, written like llama2.c's run.c) compiled the way
// llama2.c's README builds its fastest run.c, -Ofast -march=native (models/decoder/CMakeLists.txt). Every round
// times the baseline and each configuration once, interleaved, so that other load on the machine hits them alike;
// the figures are medians over the rounds (ratios: the median of the per-round ratios).
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

constexpr int kRounds = 9;
constexpr double kTargetVsBaseline = 1.0;   // issue 16: at least the -Ofast -march=native plain-C speed, fp32 KV
constexpr double kTargetVsFp32 = 1.2;       // issue 16: a quantized KV cache at most 1.2x fp32's time

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

template <class Run>
double seconds_of(Run run) {
  auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
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
  Decoder decoder(model);
  std::vector<std::string> labels = {"fp32"};
  for (const auto& f : kv_format_default_names()) labels.push_back(f);
  labels.push_back("lynx-a4r4-g64 anchor-only");
  std::vector<KvCache> caches;
  for (const auto& label : labels) caches.push_back(decoder.make_cache(kv_format_parse(label.substr(0, label.find(' ')))));

  // seconds[c][round]; c = 0 the baseline, then each label.
  std::vector<std::vector<double>> seconds(labels.size() + 1);
  for (int round = 0; round < kRounds; ++round) {
    seconds[0].push_back(seconds_of([&] {
      for (size_t pos = 0; pos < tokens.size(); ++pos) sink += reference.step(tokens[pos], static_cast<int>(pos))[0];
    }));
    for (size_t c = 0; c < labels.size(); ++c) {
      KvCache& cache = caches[c];
      const bool anchor_only = labels[c].find(" anchor") != std::string::npos;
      seconds[c + 1].push_back(seconds_of([&] {
        cache.set_anchor_only(0);
        cache.clear();
        cache.set_anchor_only(anchor_only ? KvCache::kAllTokens : 0);
        for (int t : tokens) sink += decoder.step(cache, t)[0];
      }));
    }
  }
  auto ratio = [&](size_t a, size_t b) {  // median over rounds of seconds[a] / seconds[b]
    std::vector<double> r;
    for (int i = 0; i < kRounds; ++i) r.push_back(seconds[a][static_cast<size_t>(i)] / seconds[b][static_cast<size_t>(i)]);
    return median(r);
  };

  std::printf("stories260K, %zu decode steps (positions 0..%zu), one thread, median of %d rounds; decoder kernels: %s\n",
              tokens.size(), tokens.size() - 1, kRounds, decoder.kernels().name);
  std::printf("%-38s %10s %18s %16s\n", "implementation", "tokens/s", "speed vs baseline", "time vs fp32 KV");
  std::printf("%-38s %10.0f %18.2f %16s\n", "plain C, -Ofast -march=native (fp32 KV)", n / median(seconds[0]), 1.0,
              "-");
  double worst_vs_fp32 = 0;
  for (size_t c = 0; c < labels.size(); ++c) {
    const double vs_fp32 = ratio(c + 1, 1);
    if (c > 0) worst_vs_fp32 = std::max(worst_vs_fp32, vs_fp32);
    std::printf("%-38s %10.0f %18.2f %16.2f\n", ("decoder, " + labels[c] + " KV").c_str(), n / median(seconds[c + 1]),
                ratio(0, c + 1), vs_fp32);
  }
  const double fp32_speedup = ratio(0, 1);
  std::printf("# target: decoder with fp32 KV >= %.1fx the baseline: %.2fx, %s\n", kTargetVsBaseline, fp32_speedup,
              fp32_speedup >= kTargetVsBaseline ? "met" : "NOT met");
  std::printf("# target: every KV format within %.1fx of fp32's time: worst %.2fx, %s\n", kTargetVsFp32, worst_vs_fp32,
              worst_vs_fp32 <= kTargetVsFp32 ? "met" : "NOT met");
  std::fprintf(stderr, "(checksum %g)\n", static_cast<double>(sink));
  return 0;
}
