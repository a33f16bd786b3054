// lynxsim generate: greedy text from a llama2.c model or a Hugging Face folder with the KV cache in a wire format, as a disaggregated decode
// node writes it (the prompt's KV prefilled and transferred in the format). With a Lynx format it also writes what
// speculation on the anchor writes (the prompt's KV read anchor-only: Lynx's draft phase) beside the full text, and
// where the two first differ: that index is the number of drafts a verification would accept. Texts go to stdout
// (newlines shown as \n, so that each text is one line), speeds to stderr. With --prompt-ids (a model whose
// tokenizer lynxsim cannot read) the prompt is token ids and so is the output.
#include <algorithm>
#include <chrono>
#include <memory>
#include <cstdio>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "common/error.hpp"
#include "kernels/kv_format.hpp"
#include "common/data_folder.hpp"
#include "models/decoder/accuracy.hpp"
#include "models/decoder/decoder.hpp"
#include "models/decoder/eval_text.hpp"
#include "models/decoder/greedy.hpp"
#include "models/decoder/hf_checkpoint.hpp"
#include "models/decoder/known_files.hpp"
#include "models/decoder/model_tokens.hpp"

namespace lynx {

namespace {

constexpr size_t kShownTokens = 4;  // tokens shown from the divergence on

struct GenerateOptions {
  std::string model, tokenizer, prompt = "Once upon a time", prompt_ids, format = "fp32";
  bool anchor_only = false, prompt_ids_given = false;
  int steps = 128;
};

// The text of `tokens` following the prompt's last token, newlines escaped; the ids themselves without a tokenizer.
std::string continuation(const ModelTokens* t, int previous, const std::vector<int>& tokens) {
  std::string text;
  if (t) {
    text = t->decode_after(previous, tokens);
  } else {
    for (size_t i = 0; i < tokens.size(); ++i) text += (i ? " " : "") + std::to_string(tokens[i]);
  }
  std::string shown;
  for (char c : text) shown += c == '\n' ? std::string("\\n") : std::string(1, c);
  return shown;
}

template <class Run>
std::vector<int> timed(const char* label, int steps, Run run) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<int> tokens = run();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "%s: %d tokens in %.4f s, %.0f tokens/s (prefill included)\n", label, steps, seconds,
               static_cast<double>(steps) / seconds);
  return tokens;
}

void run_generate(GenerateOptions o) {
  o.model = o.model.empty() ? shipped_model_path() : resolve_input_path(o.model, "");
  const KvFormat format = kv_format_parse(o.format);
  if (o.anchor_only && !format.is_lynx())
    throw_error("--anchor-only: the KV format %s has no anchor/residual split (expected a lynx-* format)",
                format.name.c_str());
  LlamaModel model = model_load(o.model);
  std::unique_ptr<ModelTokens> tokenizer;
  std::vector<int> prompt{model_start_token(model)};
  if (o.prompt_ids_given) {  // given, even as "": an empty prompt is an error, never the default prompt
    if (!o.tokenizer.empty()) throw_error("--prompt-ids: the prompt is token ids; --tokenizer does not apply");
    EvalCorpus ids = eval_corpus_from_ids(o.prompt_ids, "--prompt-ids", model.config.vocab_size, 1, prompt[0]);
    if (ids.stories.empty()) throw_error("--prompt-ids: no token id given");
    prompt.insert(prompt.end(), ids.stories[0].begin(), ids.stories[0].end());
  } else {
    o.tokenizer = tokenizer_path_for(o.model, o.tokenizer, "give the prompt as token ids with --prompt-ids");
    tokenizer = std::make_unique<ModelTokens>(o.tokenizer, model);
    const std::vector<int> text = tokenizer->encode(o.prompt);
    prompt.insert(prompt.end(), text.begin(), text.end());
  }
  const int64_t needed = static_cast<int64_t>(prompt.size()) + o.steps;
  if (needed > model.config.seq_len)
    throw_error("--steps %d: the prompt's %zu tokens plus %d steps exceed the model's context of %d tokens", o.steps,
                prompt.size(), o.steps, model.config.seq_len);
  Decoder decoder(model);
  KvCache cache = decoder.make_cache(format);
  std::fprintf(stderr, "%s, KV %s, prompt %zu tokens (BOS included), %d steps, %s kernels\n",
               model_name_from_path(o.model).c_str(), format.name.c_str(), prompt.size(), o.steps,
               decoder.kernels().name);

  std::printf("prompt:       %s\n", continuation(tokenizer.get(), kBosToken, {prompt.begin() + 1, prompt.end()}).c_str());
  if (o.anchor_only || format.is_lynx()) {
    const std::vector<int> anchor = timed("anchor-only", o.steps, [&] {
      return anchor_only_generate(decoder, cache, prompt, o.steps);
    });
    if (o.anchor_only) {
      std::printf("anchor-only:  %s\n", continuation(tokenizer.get(), prompt.back(), anchor).c_str());
      return;
    }
    const std::vector<int> full = timed("full", o.steps, [&] { return greedy_generate(decoder, cache, prompt, o.steps); });
    std::printf("full:         %s\n", continuation(tokenizer.get(), prompt.back(), full).c_str());
    std::printf("anchor-only:  %s\n", continuation(tokenizer.get(), prompt.back(), anchor).c_str());
    const int same = common_prefix(anchor, full);
    if (same == o.steps) {
      std::printf("divergence:   none in %d tokens (a verification would accept all %d drafts)\n", o.steps, o.steps);
      return;
    }
    // The next few tokens of each from there (one token is often a piece of a word).
    const int before = same ? full[static_cast<size_t>(same) - 1] : prompt.back();
    const size_t from = static_cast<size_t>(same), to = std::min(from + kShownTokens, full.size());
    std::printf("divergence:   token %d of %d (the first %d equal: a verification would accept %d drafts); full "
                "goes on \"%s\", anchor-only \"%s\"\n",
                same, o.steps, same, same,
                continuation(tokenizer.get(), before, {full.begin() + static_cast<ptrdiff_t>(from),
                                                 full.begin() + static_cast<ptrdiff_t>(to)}).c_str(),
                continuation(tokenizer.get(), before, {anchor.begin() + static_cast<ptrdiff_t>(from),
                                                 anchor.begin() + static_cast<ptrdiff_t>(to)}).c_str());
    return;
  }
  const std::vector<int> text = timed("full", o.steps, [&] { return greedy_generate(decoder, cache, prompt, o.steps); });
  std::printf("text:         %s\n", continuation(tokenizer.get(), prompt.back(), text).c_str());
}

}  // namespace

void add_generate_command(CLI::App& app) {
  auto o = std::make_shared<GenerateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "generate", "Greedy text with the KV cache in a format; for Lynx formats the anchor-only text beside the full");
  cmd->add_option("--model", o->model,
                  "llama2.c checkpoint (.bin; @data/PATH in the data folder), or a Hugging Face model folder "
                  "(config.json + *.safetensors) (default: the data folder's stories260K)");
  cmd->add_option("--tokenizer", o->tokenizer,
                  "llama2.c tokenizer (.bin) or SentencePiece model (.model) (default: the data folder's tok512 for a "
                  ".bin, the folder's tokenizer.model for a Hugging Face model)");
  cmd->add_option("--prompt", o->prompt, "Prompt text (BOS is prepended)")->capture_default_str();
  CLI::Option* prompt_ids = cmd->add_option("--prompt-ids", o->prompt_ids,
                  "The prompt as token ids separated by spaces (BOS is prepended), for a model whose tokenizer is "
                  "not SentencePiece; the output is then token ids too");
  cmd->add_option("--format", o->format, "KV format of the cache; " + kv_format_grammar())->capture_default_str();
  cmd->add_flag("--anchor-only", o->anchor_only,
                "Only the anchor-only text (the prompt's KV read anchor-only: Lynx's draft phase); needs a lynx format");
  cmd->add_option("--steps", o->steps, "Tokens to generate")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->callback([o, prompt_ids] {
    o->prompt_ids_given = prompt_ids->count() > 0;
    run_generate(*o);
  });
}

}  // namespace lynx
