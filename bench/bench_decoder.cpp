// Decoder speed on stories260K: tokens/s of one decode step per token over a 512-token window of the evaluation
// text (positions 0..511), single-threaded, for lynxsim's decoder with an fp32 KV cache and with each KV format
// (every token's K/V encoded through the CPU codec and read back dequantized), as ratios to a plain-C baseline of
// the same run: the reference forward pass (reference_forward.cpp, written like llama2.c's run.c) compiled the way
// llama2.c's README builds its fastest run.c, -Ofast -march=native (models/decoder/CMakeLists.txt). Every round
// times the baseline and each configuration once, interleaved, so that other load on the machine hits them alike;
// the figures are medians over the rounds (ratios: the median of the per-round ratios).
//
// `bench_decoder --hf DIR [--shape 0.5b|1b] [--steps N]`: a Hugging Face folder instead. When DIR has no
// config.json a synthetic checkpoint is written there first, in a child process (so that its memory is not this
// process's peak), with random BF16 weights of Qwen2.5-0.5B's shape (494M parameters: hidden 896, 24 layers, 14/2
// heads, vocab 151,936, tied, q/k/v biases) or Llama-3.2-1B's (1.24B: hidden 2048, 16 layers, 32/8 heads, vocab
// 128,256, tied, Llama-3.1 rope scaling), shapes from their published config.json files. It reports the load
// time, tokens/s of N decode steps (fp32 KV, one thread, positions 0..N-1), and the process's peak resident memory
// with its file-backed part (the mapped weights, paged in as they are read) and its anonymous part (what the
// decoder allocated): the weights are mapped, not copied, so the anonymous part stays far below the file.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "models/decoder/hf_checkpoint.hpp"
#include "models/decoder/hf_export.hpp"

#include "common/atomic_file.hpp"
#include "models/arch/catalog.hpp"
#include "models/decoder/decoder.hpp"
#include "models/decoder/eval_text.hpp"
#include "models/decoder/known_files.hpp"
#include "models/decoder/reference_forward.hpp"

using namespace lynx;

namespace {

constexpr int kRounds = 9;
constexpr double kTargetVsBaseline = 1.0;   // target: at least the -Ofast -march=native plain-C speed, fp32 KV
constexpr double kTargetVsFp32 = 1.2;       // target: a quantized KV cache at most 1.2x fp32's time

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

// A field of /proc/self/status in MiB ("VmHWM", "RssAnon", "RssFile"), -1 where absent.
double status_mib(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key + ":", 0) == 0) return std::stod(line.substr(key.size() + 1)) / 1024.0;  // the file says kB
  return -1;
}

SyntheticCheckpoint published_shape(const std::string& shape) {
  SyntheticCheckpoint s;
  s.dtype = WeightDtype::bf16;
  s.scale = 0.02f;
  LlamaConfig& c = s.config;
  c.shared_classifier = true;
  c.bos_token = 1;
  c.eos_token = 2;
  if (shape == "1b") {  // meta-llama/Llama-3.2-1B config.json
    s.architecture = "LlamaForCausalLM";
    c.dim = 2048, c.hidden_dim = 8192, c.n_layers = 16, c.n_heads = 32, c.n_kv_heads = 8, c.vocab_size = 128256;
    c.seq_len = 131072, c.rope_theta = 500000.0f, c.rms_eps = 1e-5f;
    c.rope_factor = 32.0f, c.rope_low_freq_factor = 1.0f, c.rope_high_freq_factor = 4.0f;
    c.rope_original_context = 8192;
  } else {  // Qwen/Qwen2.5-0.5B config.json
    s.architecture = "Qwen2ForCausalLM";
    c.dim = 896, c.hidden_dim = 4864, c.n_layers = 24, c.n_heads = 14, c.n_kv_heads = 2, c.vocab_size = 151936;
    c.seq_len = 32768, c.rope_theta = 1000000.0f, c.rms_eps = 1e-6f;
  }
  return s;
}

int bench_hf(const std::string& dir, const std::string& shape, int steps) {
  if (access((dir + "/config.json").c_str(), F_OK) != 0) {
    std::fprintf(stderr, "writing a synthetic %s checkpoint to %s ...\n", shape.c_str(), dir.c_str());
    const pid_t child = fork();
    if (child == 0) {
      try {
        hf_write_synthetic(dir, published_shape(shape));
      } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_decoder: %s\n", e.what());
        _exit(1);
      }
      _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
  }
  const auto t0 = std::chrono::steady_clock::now();
  LlamaModel model = hf_load(dir, false);
  const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const LlamaConfig& c = model.config;
  int64_t params = c.vocab_size * static_cast<int64_t>(c.dim) * (c.shared_classifier ? 1 : 2) + c.dim;
  for (const LlamaLayer& L : model.layers)
    params += L.wq.rows * L.wq.cols + L.wk.rows * L.wk.cols + L.wv.rows * L.wv.cols + L.wo.rows * L.wo.cols +
              L.w1.rows * L.w1.cols + L.w2.rows * L.w2.cols + L.w3.rows * L.w3.cols + 2 * c.dim +
              (L.bq ? c.q_dim() + 2 * c.kv_dim() : 0);
  Decoder decoder(model);
  KvCache cache = decoder.make_cache(kv_format_parse("fp32"));
  float sink = 0;
  decoder.step(cache, 1);  // the first step pages the weights in
  std::vector<double> per_token;
  for (int i = 1; i < steps; ++i)
    per_token.push_back(seconds_of([&] { sink += decoder.step(cache, (i * 37 + 5) % c.vocab_size)[0]; }));
  const double file_mib = status_mib("RssFile"), anon_mib = status_mib("RssAnon"), peak_mib = status_mib("VmHWM");
  std::printf("%s: %s, %.3g parameters, BF16 weights mapped; decoder kernels: %s\n", dir.c_str(),
              shape.c_str(), static_cast<double>(params), decoder.kernels().name);
  std::printf("load (map and check every tensor) %.3f s; %d decode steps, fp32 KV, one thread: median %.3f s/token, "
              "%.2f tokens/s\n", load_s, steps - 1, median(per_token), 1.0 / median(per_token));
  std::printf("peak resident %.0f MiB; now resident %.0f MiB file-backed (the mapped weights) + %.0f MiB anonymous "
              "(the decoder's own; BF16 weights copied to fp32 would be %.0f MiB)\n",
              peak_mib, file_mib, anon_mib, 4.0 * static_cast<double>(params) / (1 << 20));
  std::fprintf(stderr, "(checksum %g)\n", static_cast<double>(sink));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && std::string(argv[1]) == "--hf") {
    std::string shape = "0.5b";
    int steps = 9;
    for (int i = 3; i + 1 < argc; i += 2) {
      if (std::string(argv[i]) == "--shape") shape = argv[i + 1];
      if (std::string(argv[i]) == "--steps") steps = std::max(2, std::atoi(argv[i + 1]));
    }
    return bench_hf(argv[2], shape, steps);
  }
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
