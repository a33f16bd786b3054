// Accuracy and acceptance statistics of KV formats on a real model: what `lynxsim accuracy` measures and writes to
// models/accuracy/<model>.json for the simulator. Every run is the decode node's view (decoder.hpp):
//   perplexity, top-1     teacher forcing over the evaluation text (eval_text.hpp), one decode step per token, so
//                         every token attends over K/V stored in the format; top-1 agreement = the fraction of
//                         positions whose argmax equals fp32's.
//   anchor-only (Lynx)    the same teacher forcing with every row read anchor-only (the residual never arrives).
//   greedy agreement      for each prompt cut from the text: greedy_tokens tokens decoded greedily with the format
//                         and with fp32; the number of leading tokens that agree (greedy_tokens if all do).
//   speculation (Lynx)    for each prompt: lynx_speculate with k_max drafts gives L, the leading drafts the verifier
//                         accepts. Greedy drafts and a causal verifier make the run for any k <= k_max a prefix of
//                         that run, so k drafts accept m = min(k, L) (tests check this against running each k).
//                         Per-token acceptance rate a = sum min(L, k_max) / sum (min(L, k_max) + [L < k_max]): the
//                         maximum-likelihood rate of a geometric acceptance model, so that k drafts yield
//                         (1 - a^(k+1)) / (1 - a) tokens per verification.
//   by prompt length      the same statistics for the prompts of each length in `length_cuts` separately (their
//   (Lynx)                prompts are cut as for greedy agreement; speculation only). A length with fewer than
//                         `min_prompts_per_length` prompts (stories too short) is left out and listed as such.
// Outputs are deterministic: the same inputs give byte-identical JSON.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "models/decoder/checkpoint.hpp"
#include "models/decoder/decoder.hpp"
#include "models/decoder/eval_text.hpp"
#include "models/decoder/tokenizer.hpp"

namespace lynx {

struct TeacherForced {
  double nll_sum = 0;        // natural log
  int64_t tokens = 0;        // predicted tokens
  std::vector<int> argmax;   // per predicted token
  double perplexity() const;
};
// Teacher forcing over `windows` ([BOS, tokens...] each) with a cache in `format`; with `anchor_only` every row is
// read anchor-only (Lynx formats).
TeacherForced teacher_forced(Decoder& decoder, const KvFormat& format, const std::vector<std::vector<int>>& windows,
                             bool anchor_only);

// Number of leading positions where a and b agree.
int common_prefix(const std::vector<int>& a, const std::vector<int>& b);

struct AccuracyOptions {
  std::vector<std::string> formats;    // KV format names, in output order
  int greedy_tokens = 64;              // tokens decoded per prompt for greedy agreement
  int k_max = 64;                      // largest number of draft tokens
  std::vector<int> cuts = {16, 64, 192};  // prompt lengths, in story tokens after BOS (greedy, pooled speculation)
  std::vector<int> length_cuts = {16, 32, 64, 128, 192, 256, 384};  // lengths for speculation by prompt length
  int min_prompts_per_length = 20;     // a length with fewer prompts is left out
  int max_stories = 0;                 // evaluate only the first stories (0 = all)
  bool verbose = false;                // progress lines on stderr
};

// Speculation statistics of a set of prompts from min(L, k_max) per prompt.
struct SpeculationStats {
  int prompt_tokens = 0;                             // story tokens after BOS (0 = pooled over every cut)
  int prompts = 0;
  double acceptance_rate = 0;                        // per-token, maximum likelihood (see above)
  std::vector<std::vector<int64_t>> histogram;       // [k-1][m], m = 0..k
};
SpeculationStats speculation_stats(const std::vector<int>& leading_accepted, int k_max);

struct FormatAccuracy {
  std::string format;
  double perplexity = 0, perplexity_delta = 0, top1_agreement = 0;
  double greedy_agreement_mean = 0, greedy_full_match = 0;
  int greedy_prompts = 0;
  bool lynx = false;  // the fields below are set only for Lynx formats
  double anchor_only_perplexity = 0, anchor_only_top1_agreement = 0;
  int speculation_prompts = 0;
  double acceptance_rate = 0;
  std::vector<int> leading_accepted;                 // min(L, k_max) per prompt of `cuts`, in cut_prompts' order
  std::vector<std::vector<int64_t>> histogram;       // [k-1][m], m = 0..k
  std::vector<SpeculationStats> by_length;           // ascending prompt_tokens, lengths left out excluded
};

struct LengthLeftOut {
  int prompt_tokens = 0;
  int prompts = 0;  // stories long enough, fewer than min_prompts_per_length
};

struct AccuracyReport {
  std::string model, model_sha256, text, text_sha256;
  int64_t tokens_evaluated = 0;
  int windows = 0, window_tokens = 0, stories = 0;
  double reference_perplexity = 0;
  AccuracyOptions options;
  int prompts = 0;
  std::vector<LengthLeftOut> lengths_left_out;
  std::vector<FormatAccuracy> formats;
};

// Runs every measurement. `text` is the evaluation text's contents, `text_path` its file (named in the report).
AccuracyReport accuracy_evaluate(const LlamaModel& model, const Tokenizer& tokenizer, const std::string& text,
                                 const std::string& text_path, const AccuracyOptions& options);
// The same on a corpus tokenized by the caller (a SentencePiece model, or pre-tokenized ids: eval_text.hpp);
// `text_path` and `text_sha256` name what it was read from. options.max_stories must already be applied.
AccuracyReport accuracy_evaluate(const LlamaModel& model, const EvalCorpus& corpus, const std::string& text_path,
                                 const std::string& text_sha256, const AccuracyOptions& options);

// The accuracy file (see README "Functional decoder" for the schema), fixed precision, keys in a fixed order.
std::string accuracy_json(const AccuracyReport& report);

// "stories260k" for ".../stories260K.bin": the file's stem, lower-case (a model folder: its name, lower-case).
std::string model_name_from_path(const std::string& path);

}  // namespace lynx
