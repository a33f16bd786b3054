// Acceptance figures published by others for drafts that differ from the target only (or mostly) in KV precision,
// as an acceptance source beside the project's own measurements (the stories260K stand-in): the regime map needs
// 8B and 70B models, for which no accuracy file can be measured here (no weights can be downloaded).
// Each entry says what was measured and under which conditions, so that a run's summary can say how far its
// model and prompts are from them. Only figures found in the paper's text are used; where a paper gives a bound
// ("above 90%") the bound is used, read as a per-token rate (the geometric model of acceptance.hpp), which is
// conservative: a per-token rate a accepts a fraction (a - a^(k+1)) / ((1 - a) k) < a of k drafts.
#pragma once
#include <cstdint>
#include <string>

#include "common/enum_names.hpp"

namespace lynx {

struct PublishedAcceptance {
  const char* name;           // the configuration's value (lynx.acceptance_published)
  double per_token_rate;      // used as AcceptanceModel::from_rate
  const char* citation;
  const char* conditions;     // draft, target, models, contexts
  int64_t min_params, max_params;       // model sizes measured (parameters)
  int64_t min_context, max_context;     // prompt lengths measured (tokens)
};

// The entries (lynx.acceptance_published names one).
// QuantSpec: Tiwari, Xi, Tomar, Hooper, Kim, Horton, Najibi, Mahoney, Keutzer, Gholami, "QuantSpec: Self-Speculative
// Decoding with Hierarchical Quantized KV Cache", ICML 2025, arXiv 2502.10424 (https://arxiv.org/abs/2502.10424).
// Abstract: "QuantSpec maintains high acceptance rates (>90%)" for a draft that is the target model with a
// hierarchical 4-bit quantized KV cache (the upper 4 bits of an INT8 KV: Lynx's anchor) and 4-bit weights; the
// target reads the INT8 KV (upper + lower 4 bits: Lynx's anchor + residual). Figure 1 is benchmarked on
// LWM-Text-Chat-128k (a 7B Llama-2 model); the evaluation covers long contexts (the issue that asked for it
// summarises 4K to 128K). Lynx's draft keeps the weights, so it is at least as close to its target as
// QuantSpec's: the bound is conservative for it. The per-context tables were not reachable from this project's
// search corpus (only the abstract and the first page), so only the abstract's bound is used.
inline constexpr PublishedAcceptance kPublishedAcceptances[] = {
    {"quantspec", 0.9, "QuantSpec (Tiwari et al., ICML 2025, arXiv 2502.10424)",
     "> 90% acceptance of drafts with 4-bit hierarchical KV and 4-bit weights against the INT8-KV target, 7B "
     "long-context models (LWM-Text-Chat-128k), 4K-128K context; the bound read as 0.9 per token",
     6'000'000'000, 9'000'000'000, 4096, 131072},
};

// Their names, for the schema's choice list (nullptr-terminated).
inline constexpr auto kPublishedAcceptanceNames = choice_names(kPublishedAcceptances);

// The entry named `name`, or nullptr.
const PublishedAcceptance* published_acceptance(const std::string& name);

// The summary's source line for `entry` applied to a model of `params` parameters: the citation and conditions,
// plus what lies outside them (model size).
std::string published_acceptance_source(const PublishedAcceptance& entry, int64_t params, const std::string& model);

}  // namespace lynx
