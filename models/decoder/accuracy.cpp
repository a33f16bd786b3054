#include "models/decoder/accuracy.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

#include "common/error.hpp"
#include "models/decoder/eval_text.hpp"
#include "models/decoder/greedy.hpp"
#include "models/decoder/hf_checkpoint.hpp"
#include "models/decoder/lynx_protocol.hpp"
#include "common/sha256.hpp"

namespace lynx {

namespace {

// -log softmax(logits)[target], in double.
double token_nll(const float* logits, int vocab, int target) {
  float max = logits[argmax(logits, vocab)];
  double sum = 0;
  for (int v = 0; v < vocab; ++v) sum += std::exp(static_cast<double>(logits[v]) - max);
  return std::log(sum) + static_cast<double>(max) - static_cast<double>(logits[target]);
}

double fraction_equal(const std::vector<int>& a, const std::vector<int>& b) {
  int64_t same = 0;
  for (size_t i = 0; i < a.size(); ++i) same += a[i] == b[i];
  return a.empty() ? 0.0 : static_cast<double>(same) / static_cast<double>(a.size());
}

std::string base_name(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

struct Progress {
  bool on;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  void line(const char* what, const std::string& format) {
    if (!on) return;
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "accuracy: [%7.1f s] %s %s\n", s, what, format.c_str());
  }
};

// Sorted, without repeats.
std::vector<int> distinct_sorted(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

}  // namespace

SpeculationStats speculation_stats(const std::vector<int>& leading_accepted, int k_max) {
  SpeculationStats s;
  s.prompts = static_cast<int>(leading_accepted.size());
  int64_t accepted = 0, tried = 0;
  for (int L : leading_accepted) {
    accepted += L;
    tried += L + (L < k_max ? 1 : 0);
  }
  s.acceptance_rate = tried > 0 ? static_cast<double>(accepted) / static_cast<double>(tried) : 1.0;
  for (int k = 1; k <= k_max; ++k) {
    std::vector<int64_t> counts(static_cast<size_t>(k + 1), 0);
    for (int L : leading_accepted) ++counts[static_cast<size_t>(std::min(k, L))];
    s.histogram.push_back(std::move(counts));
  }
  return s;
}

double TeacherForced::perplexity() const {
  return tokens > 0 ? std::exp(nll_sum / static_cast<double>(tokens)) : 0.0;
}

TeacherForced teacher_forced(Decoder& decoder, const KvFormat& format, const std::vector<std::vector<int>>& windows,
                             bool anchor_only) {
  const int vocab = decoder.config().vocab_size;
  KvCache cache = decoder.make_cache(format);
  TeacherForced r;
  for (const auto& window : windows) {
    cache.set_anchor_only(0);
    cache.clear();
    cache.set_anchor_only(anchor_only ? KvCache::kAllTokens : 0);
    for (size_t i = 0; i + 1 < window.size(); ++i) {
      const float* logits = decoder.step(cache, window[i]);
      r.nll_sum += token_nll(logits, vocab, window[i + 1]);
      r.argmax.push_back(argmax(logits, vocab));
      ++r.tokens;
    }
  }
  return r;
}

int common_prefix(const std::vector<int>& a, const std::vector<int>& b) {
  size_t n = std::min(a.size(), b.size()), i = 0;
  while (i < n && a[i] == b[i]) ++i;
  return static_cast<int>(i);
}

std::string model_name_from_path(const std::string& path) {
  std::string trimmed = path;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  std::string name = base_name(trimmed);
  size_t dot = name.find_last_of('.');
  if (dot != std::string::npos && dot > 0 && !hf_is_model_directory(trimmed)) name = name.substr(0, dot);
  for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return name;
}

AccuracyReport accuracy_evaluate(const LlamaModel& model, const Tokenizer& tokenizer, const std::string& text,
                                 const std::string& text_path, const AccuracyOptions& options) {
  return accuracy_evaluate(model, eval_corpus(tokenizer, text, options.max_stories), text_path, sha256_hex(text),
                           options);
}

AccuracyReport accuracy_evaluate(const LlamaModel& model, const EvalCorpus& corpus, const std::string& text_path,
                                 const std::string& text_sha256, const AccuracyOptions& options) {
  const LlamaConfig& c = model.config;
  if (options.formats.empty()) throw_error("accuracy: no KV format to evaluate");
  if (options.greedy_tokens < 1 || options.k_max < 1)
    throw_error("accuracy: greedy tokens (%d) and k_max (%d) must be >= 1", options.greedy_tokens, options.k_max);
  std::vector<KvFormat> formats;
  for (const auto& name : options.formats) formats.push_back(kv_format_parse(name));
  for (int cut : options.cuts) {
    const int need = cut + 1 + std::max(options.greedy_tokens, options.k_max);
    if (cut < 1 || need > c.seq_len)
      throw_error("accuracy: a prompt of %d story tokens needs %d positions with %d greedy tokens and k_max %d; the "
                  "model's context is %d",
                  cut, need, options.greedy_tokens, options.k_max, c.seq_len);
  }
  const std::vector<int> length_cuts = distinct_sorted(options.length_cuts);
  for (int cut : length_cuts)
    if (cut < 1 || cut + 1 + options.k_max > c.seq_len)
      throw_error("accuracy: a prompt length of %d story tokens needs %d positions with k_max %d; the model's context "
                  "is %d",
                  cut, cut + 1 + options.k_max, options.k_max, c.seq_len);
  if (options.min_prompts_per_length < 1)
    throw_error("accuracy: min prompts per length (%d) must be >= 1", options.min_prompts_per_length);

  Progress progress{options.verbose};
  AccuracyReport report;
  report.options = options;
  report.options.length_cuts = length_cuts;
  report.model = model_name_from_path(model.path);
  report.model_sha256 = model.sha256;
  report.text = base_name(text_path);
  report.text_sha256 = text_sha256;
  if (corpus.tokens == 0) throw_error("%s: no story to evaluate", text_path.c_str());
  report.stories = static_cast<int>(corpus.stories.size());
  report.window_tokens = c.seq_len - 1;
  const auto windows = teacher_forcing_windows(corpus, report.window_tokens);
  report.windows = static_cast<int>(windows.size());
  const std::vector<Prompt> prompts = cut_prompts(corpus, options.cuts);
  report.prompts = static_cast<int>(prompts.size());
  if (prompts.empty()) throw_error("%s: no story is long enough for the prompt cuts", text_path.c_str());
  std::vector<int> kept_lengths;
  for (int cut : length_cuts) {
    int n = 0;
    for (const auto& story : corpus.stories) n += static_cast<int>(story.size()) >= cut;
    if (n >= options.min_prompts_per_length)
      kept_lengths.push_back(cut);
    else
      report.lengths_left_out.push_back({cut, n});
  }
  // Speculation runs once per distinct prompt: the pooled cuts and the lengths measured separately.
  std::vector<int> spec_cuts = options.cuts;
  spec_cuts.insert(spec_cuts.end(), kept_lengths.begin(), kept_lengths.end());
  const std::vector<Prompt> spec_prompts = cut_prompts(corpus, distinct_sorted(spec_cuts));

  Decoder decoder(model);
  const KvFormat fp32 = kv_format_parse("fp32");
  const TeacherForced reference = teacher_forced(decoder, fp32, windows, false);
  report.tokens_evaluated = reference.tokens;
  report.reference_perplexity = reference.perplexity();
  // Worse than guessing uniformly over the vocabulary: the tokenizer does not belong to this model (same size,
  // other pieces), and every figure after this would be noise.
  if (!(report.reference_perplexity < static_cast<double>(model.config.vocab_size)))
    throw_error("%s: the fp32 perplexity %.4g is above the vocabulary size %d (a uniform guess): the tokenizer does "
                "not match the model", text_path.c_str(), report.reference_perplexity, model.config.vocab_size);
  progress.line("teacher-forced", "fp32");
  std::vector<std::vector<int>> reference_greedy;
  {
    KvCache cache = decoder.make_cache(fp32);
    for (const auto& p : prompts) reference_greedy.push_back(greedy_generate(decoder, cache, p.tokens,
                                                                             options.greedy_tokens));
  }
  progress.line("greedy", "fp32");

  for (const KvFormat& format : formats) {
    FormatAccuracy a;
    a.format = format.name;
    const TeacherForced tf = teacher_forced(decoder, format, windows, false);
    a.perplexity = tf.perplexity();
    a.perplexity_delta = a.perplexity - report.reference_perplexity;
    a.top1_agreement = fraction_equal(tf.argmax, reference.argmax);
    progress.line("teacher-forced", format.name);

    KvCache cache = decoder.make_cache(format);
    int64_t agreed = 0, full = 0;
    for (size_t i = 0; i < prompts.size(); ++i) {
      int same = common_prefix(greedy_generate(decoder, cache, prompts[i].tokens, options.greedy_tokens),
                               reference_greedy[i]);
      agreed += same;
      full += same == options.greedy_tokens;
    }
    a.greedy_prompts = static_cast<int>(prompts.size());
    a.greedy_agreement_mean = static_cast<double>(agreed) / static_cast<double>(prompts.size());
    a.greedy_full_match = static_cast<double>(full) / static_cast<double>(prompts.size());
    progress.line("greedy", format.name);

    if (format.is_lynx()) {
      a.lynx = true;
      const TeacherForced anchor = teacher_forced(decoder, format, windows, true);
      a.anchor_only_perplexity = anchor.perplexity();
      a.anchor_only_top1_agreement = fraction_equal(anchor.argmax, reference.argmax);
      progress.line("teacher-forced anchor-only", format.name);
      std::map<std::pair<int, int>, int> leading;  // (cut, story) -> min(L, k_max)
      for (const auto& p : spec_prompts)
        leading[{p.cut, p.story}] = lynx_speculate(decoder, cache, p.tokens, options.k_max).accepted;
      for (const auto& p : prompts) a.leading_accepted.push_back(leading.at({p.cut, p.story}));
      SpeculationStats pooled = speculation_stats(a.leading_accepted, options.k_max);
      a.speculation_prompts = pooled.prompts;
      a.acceptance_rate = pooled.acceptance_rate;
      a.histogram = std::move(pooled.histogram);
      for (int cut : kept_lengths) {
        std::vector<int> of_length;
        for (const auto& [key, L] : leading)
          if (key.first == cut) of_length.push_back(L);
        a.by_length.push_back(speculation_stats(of_length, options.k_max));
        a.by_length.back().prompt_tokens = cut;
      }
      progress.line("speculation", format.name);
    }
    report.formats.push_back(std::move(a));
  }
  progress.line("done:", std::to_string(decoder.positions_run()) + " token positions through the model");
  return report;
}

}  // namespace lynx
