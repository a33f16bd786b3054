// lynxsim accuracy: runs the functional decoder on a real model with each KV format and writes the accuracy file
// the simulator reads (perplexity, agreement with fp32, and for Lynx formats the speculative acceptance histogram).
// The model is a llama2.c .bin or a Hugging Face folder (hf_checkpoint.hpp); the text is tokenized by a llama2.c
// or SentencePiece tokenizer (model_tokens.hpp), or given pre-tokenized with --tokens (eval_text.hpp).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "common/atomic_file.hpp"
#include "common/output_paths.hpp"
#include "common/data_folder.hpp"
#include "kernels/kv_format.hpp"
#include "models/arch/catalog.hpp"
#include "models/decoder/accuracy.hpp"
#include "common/error.hpp"
#include "common/sha256.hpp"
#include "models/decoder/hf_checkpoint.hpp"
#include "models/decoder/known_files.hpp"
#include "models/decoder/model_tokens.hpp"

namespace lynx {

namespace {
struct AccuracyCommandOptions {
  std::string model, tokenizer, text, tokens, out;
  AccuracyOptions run;
  bool quiet = false;
};

constexpr const char* kPreTokenizedAdvice = "pass the text pre-tokenized with --tokens (README: \"Your own model\")";

void run_accuracy(AccuracyCommandOptions o) {
  if (!o.out.empty() && o.out != "-") check_output_location(o.out, false, "--out");
  o.model = o.model.empty() ? shipped_model_path() : resolve_input_path(o.model, "");
  if (!o.tokens.empty() && (!o.tokenizer.empty() || !o.text.empty()))
    throw_error("--tokens: the text comes pre-tokenized; --tokenizer and --text do not apply");
  if (!o.out.empty() && o.out != "-") {
    // Every input this run reads, the defaults included: a Hugging Face folder's every file (config.json, the
    // safetensors, the index, its own tokenizer.model), the tokenizer, the text, the data folder they come from.
    OutputPlan plan;
    if (hf_is_model_directory(o.model)) plan.input_tree("the model folder --model", o.model);
    else plan.input_file("--model", o.model);
    if (!o.tokens.empty()) plan.input_file("--tokens", resolve_input_path(o.tokens, ""));
    else {
      plan.input_file("--tokenizer", tokenizer_path_for(o.model, o.tokenizer, kPreTokenizedAdvice));
      plan.input_file("--text", o.text.empty() ? shipped_text_path() : resolve_input_path(o.text, ""));
    }
    plan.input_shared(OutputPlan::kDataFolder);
    plan.output_file("--out", o.out);
    plan.check();
  }
  if (o.run.formats.empty()) o.run.formats = kv_format_default_names();
  for (const auto& name : o.run.formats) kv_format_parse(name);  // a bad name fails before the long run
  o.run.verbose = !o.quiet;
  LlamaModel model = model_load(o.model);
  const int start = model_start_token(model);
  EvalCorpus corpus;
  std::string source, source_sha256;
  if (!o.tokens.empty()) {
    source = resolve_input_path(o.tokens, "");
    const std::string ids = read_file(source);
    corpus = eval_corpus_from_ids(ids, source, model.config.vocab_size, o.run.max_stories, start);
    source_sha256 = sha256_hex(ids);
  } else {
    o.tokenizer = tokenizer_path_for(o.model, o.tokenizer, kPreTokenizedAdvice);
    source = o.text.empty() ? shipped_text_path() : resolve_input_path(o.text, "");
    const ModelTokens tokens(o.tokenizer, model);
    const std::string text = read_file(source);
    corpus = eval_corpus([&](const std::string& story) { return tokens.encode(story); }, text, o.run.max_stories,
                         start);
    source_sha256 = sha256_hex(text);
  }
  AccuracyReport report = accuracy_evaluate(model, corpus, source, source_sha256, o.run);
  const std::string json = accuracy_json(report);
  if (o.out.empty() || o.out == "-") {
    std::fputs(json.c_str(), stdout);
  } else {
    write_file_atomic(o.out, json);
    std::printf("%-20s %10s %10s %8s %8s %8s\n", "format", "ppl", "delta", "top1", "greedy", "accept");
    std::printf("%-20s %10.4f %10s %8s %8s %8s\n", "fp32", report.reference_perplexity, "-", "-", "-", "-");
    for (const auto& a : report.formats) {
      char accept[32] = "-";
      if (a.lynx) std::snprintf(accept, sizeof accept, "%.4f", a.acceptance_rate);
      std::printf("%-20s %10.4f %+10.4f %8.4f %8.2f %8s\n", a.format.c_str(), a.perplexity, a.perplexity_delta,
                  a.top1_agreement, a.greedy_agreement_mean, accept);
    }
    for (const auto& a : report.formats) {
      if (a.by_length.empty()) continue;
      std::printf("%-20s acceptance by prompt length:", a.format.c_str());
      for (const auto& b : a.by_length) std::printf(" %d:%.4f", b.prompt_tokens, b.acceptance_rate);
      std::printf("\n");
    }
    for (const auto& left : report.lengths_left_out)
      std::printf("prompt length %d left out: %d prompts (fewer than %d)\n", left.prompt_tokens, left.prompts,
                  report.options.min_prompts_per_length);
    if (!report.lengths_left_out.empty() && std::none_of(report.formats.begin(), report.formats.end(),
                                                         [](const auto& a) { return !a.by_length.empty(); }))
      std::printf("every prompt length was left out: the file has speculation statistics pooled over prompt lengths "
                  "only (a simulation uses them for every request); for statistics by length evaluate more stories "
                  "(--stories) or lower --min-length-prompts\n");
    std::printf("wrote %s (%lld tokens, %d prompts)\n", o.out.c_str(), static_cast<long long>(report.tokens_evaluated),
                report.prompts);
  }
}
}  // namespace

void add_accuracy_command(CLI::App& app) {
  auto o = std::make_shared<AccuracyCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "accuracy", "Decode a real model with each KV format: perplexity, agreement with fp32, Lynx acceptance");
  cmd->add_option("--model", o->model,
                  "llama2.c checkpoint (.bin), or a Hugging Face model folder (config.json + *.safetensors: Llama, "
                  "Mistral, Qwen2, Qwen3) (default: the shipped stories260K)");
  cmd->add_option("--tokenizer", o->tokenizer,
                  "llama2.c tokenizer (.bin) or SentencePiece model (.model) (default: the shipped tok512 for a .bin, "
                  "the folder's tokenizer.model for a Hugging Face model)");
  cmd->add_option("--text", o->text,
                  "Evaluation text, stories separated by <|endoftext|> (default: the shipped TinyStories sample)");
  cmd->add_option("--tokens", o->tokens,
                  "The evaluation text pre-tokenized by the model's own tokenizer: one story per line, token ids "
                  "separated by spaces, no BOS (README \"Your own model\" gives the command); instead of "
                  "--tokenizer/--text");
  cmd->add_option("--format", o->run.formats, "KV format, repeatable (default: a standard set); " +
                                                  kv_format_grammar());
  cmd->add_option("--out", o->out, "Accuracy JSON file to write (default or \"-\": stdout)");
  cmd->add_option("--greedy-tokens", o->run.greedy_tokens, "Tokens decoded per prompt for greedy agreement")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--k-max", o->run.k_max, "Largest number of speculative draft tokens (histogram for k = 1..k_max)")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--cut", o->run.cuts,
                  "Prompt length in story tokens (after BOS), repeatable: the prompts of greedy agreement and of the "
                  "pooled speculation statistics")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--length-cut", o->run.length_cuts,
                  "Prompt length in story tokens (after BOS), repeatable: Lynx speculation statistics measured "
                  "separately at each (speculation_by_prompt_length); prompt + k_max must fit the model's context")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--min-length-prompts", o->run.min_prompts_per_length,
                  "A --length-cut with fewer prompts (stories that long) is left out and listed as such")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--stories", o->run.max_stories, "Evaluate only the first N stories (0 = all)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1 << 20));
  cmd->add_flag("--quiet", o->quiet, "No progress lines on stderr");
  cmd->callback([o] { run_accuracy(*o); });
}

}  // namespace lynx
