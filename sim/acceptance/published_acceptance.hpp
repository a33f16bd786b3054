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

namespace lynx {

struct PublishedAcceptance {
  const char* name;           // the configuration's value (lynx.acceptance_published)
  double per_token_rate;      // used as AcceptanceModel::from_rate
  const char* citation;
  const char* conditions;     // draft, target, models, contexts
  int64_t min_params, max_params;       // model sizes measured (parameters)
  int64_t min_context, max_context;     // prompt lengths measured (tokens)
};

// The entry named `name`, or nullptr.
const PublishedAcceptance* published_acceptance(const std::string& name);
// The names, for the schema's choice list (nullptr-terminated).
extern const char* const kPublishedAcceptanceNames[];

// The summary's source line for `entry` applied to a model of `params` parameters: the citation and conditions,
// plus what lies outside them (model size).
std::string published_acceptance_source(const PublishedAcceptance& entry, int64_t params, const std::string& model);

}  // namespace lynx
