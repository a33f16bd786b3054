// The fields of an accuracy file's speculation statistics that are read with a range (acceptance.cpp).
#pragma once
#include <cmath>

#include "common/json_schema.hpp"

namespace lynx {

constexpr NumberField kAcceptanceRate{"per_token_acceptance_rate", "probability", NAN, 0, 1, false, ""};
constexpr IntegerField kPromptTokens{"prompt_tokens", "tokens", 0, 1, 1 << 24, "", true};

}  // namespace lynx
