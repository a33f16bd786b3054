// Writes the accuracy file by hand: fixed precision and key order (byte-identical output for the same inputs), and
// one line per histogram row so that the file stays readable. Lynx formats get the pooled "speculation" block and
// "speculation_by_prompt_length" (one entry per measured prompt length, same histogram layout).
#include <cstdarg>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "models/decoder/accuracy.hpp"

namespace lynx {

namespace {

void add(std::string& out, const char* format, ...) __attribute__((format(printf, 2, 3)));
void add(std::string& out, const char* format, ...) {
  char buffer[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  out += buffer;
}

std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }

// "[[...],\n<indent>[...]]": row k-1 holds the counts for m = 0..k, one row per line.
void add_histogram(std::string& out, const std::vector<std::vector<int64_t>>& histogram, const char* indent) {
  out += "[";
  for (size_t k = 0; k < histogram.size(); ++k) {
    out += k ? ",\n" : "\n";
    out += indent;
    out += "[";
    for (size_t m = 0; m < histogram[k].size(); ++m)
      add(out, "%s%lld", m ? ", " : "", static_cast<long long>(histogram[k][m]));
    out += "]";
  }
  out += "]";
}

void add_int_list(std::string& out, const std::vector<int>& values) {
  out += "[";
  for (size_t i = 0; i < values.size(); ++i) add(out, "%s%d", i ? ", " : "", values[i]);
  out += "]";
}

}  // namespace

std::string accuracy_json(const AccuracyReport& r) {
  std::string out = "{\n";
  add(out, "  \"model\": %s,\n", quoted(r.model).c_str());
  add(out, "  \"model_sha256\": %s,\n", quoted(r.model_sha256).c_str());
  add(out, "  \"text\": %s,\n", quoted(r.text).c_str());
  add(out, "  \"text_sha256\": %s,\n", quoted(r.text_sha256).c_str());
  add(out, "  \"stories\": %d,\n", r.stories);
  add(out, "  \"tokens_evaluated\": %lld,\n", static_cast<long long>(r.tokens_evaluated));
  add(out, "  \"teacher_forcing\": {\"windows\": %d, \"window_tokens\": %d, \"kv_append\": \"one decode step per "
           "token\"},\n",
      r.windows, r.window_tokens);
  out += "  \"prompts\": {\"count\": " + std::to_string(r.prompts) + ", \"cuts_story_tokens\": ";
  add_int_list(out, r.options.cuts);
  add(out, ", \"greedy_tokens\": %d, \"k_max\": %d,\n", r.options.greedy_tokens, r.options.k_max);
  out += "              \"length_cuts_story_tokens\": ";
  add_int_list(out, r.options.length_cuts);
  add(out, ", \"min_prompts_per_length\": %d, \"lengths_left_out\": [", r.options.min_prompts_per_length);
  for (size_t i = 0; i < r.lengths_left_out.size(); ++i)
    add(out, "%s{\"prompt_tokens\": %d, \"prompts\": %d}", i ? ", " : "", r.lengths_left_out[i].prompt_tokens,
        r.lengths_left_out[i].prompts);
  out += "]},\n";
  add(out, "  \"reference\": {\"format\": \"fp32\", \"perplexity\": %.6f},\n", r.reference_perplexity);
  out += "  \"formats\": {";
  for (size_t f = 0; f < r.formats.size(); ++f) {
    const FormatAccuracy& a = r.formats[f];
    add(out, "%s\n    %s: {\n", f ? "," : "", quoted(a.format).c_str());
    add(out, "      \"perplexity\": %.6f,\n", a.perplexity);
    add(out, "      \"perplexity_delta_vs_fp32\": %.6f,\n", a.perplexity_delta);
    add(out, "      \"top1_agreement_vs_fp32\": %.6f,\n", a.top1_agreement);
    add(out, "      \"greedy_agreement_mean_tokens\": %.4f,\n", a.greedy_agreement_mean);
    add(out, "      \"greedy_full_match_fraction\": %.6f,\n", a.greedy_full_match);
    add(out, "      \"greedy_prompts\": %d", a.greedy_prompts);
    if (a.lynx) {
      add(out, ",\n      \"anchor_only_perplexity\": %.6f,\n", a.anchor_only_perplexity);
      add(out, "      \"anchor_only_top1_agreement_vs_fp32\": %.6f,\n", a.anchor_only_top1_agreement);
      add(out, "      \"speculation\": {\n");
      add(out, "        \"k_max\": %d,\n", r.options.k_max);
      add(out, "        \"prompts\": %d,\n", a.speculation_prompts);
      add(out, "        \"per_token_acceptance_rate\": %.6f,\n", a.acceptance_rate);
      const auto& last = a.histogram.back();
      double mean = 0;
      for (size_t m = 0; m < last.size(); ++m) mean += static_cast<double>(m) * static_cast<double>(last[m]);
      add(out, "        \"mean_accepted_at_k_max\": %.4f,\n", mean / static_cast<double>(a.speculation_prompts));
      out += "        \"accepted_histogram\": ";
      add_histogram(out, a.histogram, "          ");
      out += "\n      }";
      // Every length left out (fewer prompts than --min-length-prompts): the pooled statistics alone, which a
      // simulation reads as such (an empty list would be refused).
      if (!a.by_length.empty()) out += ",\n      \"speculation_by_prompt_length\": [";
      for (size_t i = 0; i < a.by_length.size(); ++i) {
        const SpeculationStats& b = a.by_length[i];
        add(out, "%s\n        {\"prompt_tokens\": %d, \"prompts\": %d, \"per_token_acceptance_rate\": %.6f,\n",
            i ? "," : "", b.prompt_tokens, b.prompts, b.acceptance_rate);
        out += "         \"accepted_histogram\": ";
        add_histogram(out, b.histogram, "           ");
        out += "}";
      }
      if (!a.by_length.empty()) out += "\n      ]";
    }
    out += "\n    }";
  }
  out += "\n  }\n}\n";
  return out;
}

}  // namespace lynx
