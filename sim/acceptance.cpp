#include "sim/acceptance.hpp"

#include <cmath>

#include "common/error.hpp"
#include "common/json_reader.hpp"

namespace lynx {

uint64_t SplitMix64::next_u64() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double SplitMix64::uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

AcceptanceModel AcceptanceModel::from_rate(double per_token_rate, std::string source) {
  if (!(per_token_rate >= 0 && per_token_rate <= 1)) throw_error("acceptance rate must be in [0, 1], got %g",
                                                                 per_token_rate);
  AcceptanceModel m;
  m.rate_ = per_token_rate;
  m.source_ = std::move(source);
  return m;
}

AcceptanceModel AcceptanceModel::from_accuracy_file(const std::string& path, const std::string& format_name) {
  nlohmann::json root = json_parse_file(path);
  if (!root.is_object() || !root.contains("formats") || !root["formats"].is_object())
    throw_error("%s: $.formats: missing, expected an object of formats", path.c_str());
  if (!root["formats"].contains(format_name))
    throw_error("%s: $.formats: no entry for \"%s\"", path.c_str(), format_name.c_str());
  const nlohmann::json& entry = root["formats"][format_name];
  const std::string entry_path = "$.formats." + format_name;
  if (!entry.is_object() || !entry.contains("speculation"))
    throw_error("%s: %s.speculation: missing (the format has no speculation statistics)", path.c_str(),
                entry_path.c_str());
  const nlohmann::json& spec = entry["speculation"];
  JsonObject o(spec, path, entry_path + ".speculation");
  AcceptanceModel m;
  m.rate_ = o.non_negative_number("per_token_acceptance_rate");
  if (m.rate_ > 1) o.fail("per_token_acceptance_rate", "a probability in [0, 1]");
  const nlohmann::json& hist = o.array("accepted_histogram");
  for (size_t i = 0; i < hist.size(); ++i) {
    const std::string row_path = json_index_path(o.path_of("accepted_histogram"), i);
    if (!hist[i].is_array() || hist[i].size() != i + 2)
      throw_error("%s: %s: expected an array of %zu counts (m = 0..%zu)", path.c_str(), row_path.c_str(), i + 2,
                  i + 1);
    std::vector<double> row;
    for (const auto& c : hist[i]) {
      if (!c.is_number() || c.get<double>() < 0)
        throw_error("%s: %s: expected non-negative counts", path.c_str(), row_path.c_str());
      row.push_back(c.get<double>());
    }
    m.histogram_.push_back(row);
  }
  m.source_ = path + " (" + format_name + ")";
  return m;
}

int64_t AcceptanceModel::draw(int64_t k, SplitMix64& rng) const {
  if (k <= 0) return 0;
  const double u = rng.uniform();
  if (k <= k_max()) {
    const std::vector<double>& row = histogram_[static_cast<size_t>(k - 1)];
    double total = 0;
    for (double c : row) total += c;
    if (total > 0) {
      double cumulative = 0;
      for (size_t accepted = 0; accepted < row.size(); ++accepted) {
        cumulative += row[accepted] / total;
        if (u < cumulative) return static_cast<int64_t>(accepted);
      }
      return k;
    }
  }
  // Truncated geometric: accept while each token matches.
  double p_stop_before = 0, p_prefix = 1;
  for (int64_t accepted = 0; accepted < k; ++accepted) {
    p_stop_before += p_prefix * (1 - rate_);
    if (u < p_stop_before) return accepted;
    p_prefix *= rate_;
  }
  return k;
}

double AcceptanceModel::expected_accepted(int64_t k) const {
  if (k <= 0) return 0;
  if (k <= k_max()) {
    const std::vector<double>& row = histogram_[static_cast<size_t>(k - 1)];
    double total = 0, sum = 0;
    for (size_t accepted = 0; accepted < row.size(); ++accepted) {
      total += row[accepted];
      sum += row[accepted] * static_cast<double>(accepted);
    }
    if (total > 0) return sum / total;
  }
  double expected = 0, p_prefix = 1;
  for (int64_t accepted = 1; accepted <= k; ++accepted) {
    p_prefix *= rate_;
    expected += p_prefix;  // P(m >= accepted)
  }
  return expected;
}

}  // namespace lynx
