#include "sim/acceptance/acceptance.hpp"

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "common/json_reader.hpp"
#include "sim/acceptance/acceptance_fields.hpp"

namespace lynx {

uint64_t SplitMix64::next_u64() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double SplitMix64::uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

namespace {
std::vector<std::vector<double>> read_histogram(const nlohmann::json& hist, const std::string& origin,
                                                const std::string& path) {
  if (!hist.is_array() || hist.empty())
    throw_error("%s: %s: expected a non-empty array of rows (row k-1 has k+1 counts, m = 0..k)", origin.c_str(),
                path.c_str());
  std::vector<std::vector<double>> rows;
  for (size_t i = 0; i < hist.size(); ++i) {
    const std::string row_path = json_index_path(path, i);
    if (!hist[i].is_array() || hist[i].size() != i + 2)
      throw_error("%s: %s: expected an array of %zu counts (m = 0..%zu)", origin.c_str(), row_path.c_str(), i + 2,
                  i + 1);
    std::vector<double> row;
    double total = 0;
    for (const auto& c : hist[i]) {
      if (!c.is_number() || !(c.get<double>() >= 0) || !std::isfinite(c.get<double>()))
        throw_error("%s: %s: expected non-negative counts", origin.c_str(), row_path.c_str());
      row.push_back(c.get<double>());
      total += c.get<double>();
    }
    if (!(total > 0)) throw_error("%s: %s: expected at least one count above 0", origin.c_str(), row_path.c_str());
    rows.push_back(row);
  }
  return rows;
}

// P(m = j | k drafts) under the statistics; see the header for the continuation beyond k_max.
double histogram_probability(const std::vector<std::vector<double>>& h, int64_t j, int64_t k) {
  const int64_t k_max = static_cast<int64_t>(h.size());
  const std::vector<double>& row = h[static_cast<size_t>(std::min(k, k_max) - 1)];
  double total = 0;
  for (double c : row) total += c;
  if (k <= k_max) return row[static_cast<size_t>(j)] / total;
  if (j < k_max) return row[static_cast<size_t>(j)] / total;
  // Tail: S(k_max) = P(L >= k_max), continued with r = S(k_max) / S(k_max - 1).
  const double s_last = row[static_cast<size_t>(k_max)] / total;
  const double s_before = (row[static_cast<size_t>(k_max - 1)] + row[static_cast<size_t>(k_max)]) / total;
  const double r = s_before > 0 ? s_last / s_before : 0.0;
  const double survive = s_last * std::pow(r, static_cast<double>(j - k_max));  // P(L >= j)
  return j == k ? survive : survive * (1 - r);
}

double geometric_probability(double a, int64_t j, int64_t k) {
  const double prefix = std::pow(a, static_cast<double>(j));
  return j == k ? prefix : prefix * (1 - a);
}
}  // namespace

AcceptanceModel AcceptanceModel::from_rate(double per_token_rate, std::string source) {
  if (!(per_token_rate >= 0 && per_token_rate <= 1))
    throw_error("acceptance rate must be in [0, 1], got %g", per_token_rate);
  AcceptanceModel m;
  m.by_length_.push_back(Statistics{0, per_token_rate, {}});
  m.source_ = std::move(source);
  return m;
}

AcceptanceModel AcceptanceModel::from_histogram(const nlohmann::json& rows, const std::string& origin,
                                                const std::string& json_path) {
  AcceptanceModel m;
  m.by_length_.push_back(Statistics{0, 0, read_histogram(rows, origin, json_path)});
  // Not the file's name: a run folder's config.json must reproduce the summary, sources included.
  m.source_ = "configured histogram " + json_path + " (k_max " + std::to_string(rows.size()) + ")";
  return m;
}

AcceptanceModel::Statistics AcceptanceModel::read_statistics(const nlohmann::json& value, const std::string& origin,
                                                             const std::string& path) {
  JsonObject o(value, origin, path);
  Statistics s;
  s.rate = o.get(kAcceptanceRate);
  s.histogram = read_histogram(o.array("accepted_histogram"), origin, o.path_of("accepted_histogram"));
  return s;
}

AcceptanceModel AcceptanceModel::from_accuracy_file(const std::string& path, const std::string& format_name) {
  return from_accuracy_json(json_parse_file(path), path, format_name);
}

AcceptanceModel AcceptanceModel::from_accuracy_json(const nlohmann::json& root, const std::string& path,
                                                    const std::string& format_name) {
  if (!root.is_object() || !root.contains("formats") || !root["formats"].is_object())
    throw_error("%s: $.formats: missing, expected an object of formats", path.c_str());
  if (!root["formats"].contains(format_name))
    throw_error("%s: $.formats: no entry for \"%s\"", path.c_str(), format_name.c_str());
  const nlohmann::json& entry = root["formats"][format_name];
  const std::string entry_path = "$.formats." + format_name;
  if (!entry.is_object() || !entry.contains("speculation"))
    throw_error("%s: %s.speculation: missing (the format has no speculation statistics)", path.c_str(),
                entry_path.c_str());
  std::vector<Statistics> statistics;
  if (entry.contains("speculation_by_prompt_length")) {
    const nlohmann::json& list = entry["speculation_by_prompt_length"];
    const std::string list_path = entry_path + ".speculation_by_prompt_length";
    if (!list.is_array() || list.empty())
      throw_error("%s: %s: expected a non-empty array", path.c_str(), list_path.c_str());
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string item_path = json_index_path(list_path, i);
      Statistics s = read_statistics(list[i], path, item_path);
      JsonObject o(list[i], path, item_path);
      s.prompt_tokens = o.get(kPromptTokens);
      if (!statistics.empty() && s.prompt_tokens <= statistics.back().prompt_tokens)
        throw_error("%s: %s.prompt_tokens: expected prompt lengths in ascending order", path.c_str(), item_path.c_str());
      statistics.push_back(std::move(s));
    }
    return from_statistics(std::move(statistics), true, path, format_name);
  }
  statistics.push_back(read_statistics(entry["speculation"], path, entry_path + ".speculation"));
  return from_statistics(std::move(statistics), false, path, format_name);
}

AcceptanceModel AcceptanceModel::from_statistics(std::vector<Statistics> statistics, bool by_length,
                                                 const std::string& path, const std::string& format_name) {
  AcceptanceModel m;
  m.by_length_ = std::move(statistics);
  m.source_ = by_length ? path + " (" + format_name + ", by prompt length: " + std::to_string(m.by_length_.size()) +
                              " lengths, " + std::to_string(m.by_length_.front().prompt_tokens) + " to " +
                              std::to_string(m.by_length_.back().prompt_tokens) + " tokens)"
                        : path + " (" + format_name + ", pooled over prompt lengths)";
  return m;
}

const AcceptanceModel::Statistics& AcceptanceModel::statistics_for(int64_t prompt_tokens) const {
  const Statistics* chosen = &by_length_.front();
  for (const Statistics& s : by_length_)
    if (s.prompt_tokens <= prompt_tokens) chosen = &s;
  return *chosen;
}

bool AcceptanceModel::extrapolates(int64_t prompt_tokens) const {
  return by_length_.back().prompt_tokens > 0 && prompt_tokens > by_length_.back().prompt_tokens;
}

double AcceptanceModel::probability(int64_t accepted, int64_t k, int64_t prompt_tokens) const {
  if (k <= 0) return accepted == 0 ? 1.0 : 0.0;
  if (accepted < 0 || accepted > k) return 0.0;
  const Statistics& s = statistics_for(prompt_tokens);
  return s.histogram.empty() ? geometric_probability(s.rate, accepted, k)
                             : histogram_probability(s.histogram, accepted, k);
}

int64_t AcceptanceModel::draw(int64_t k, int64_t prompt_tokens, SplitMix64& rng) const {
  if (k <= 0) return 0;
  const double u = rng.uniform();
  const Statistics& s = statistics_for(prompt_tokens);
  double cumulative = 0;
  if (s.histogram.empty()) {
    for (int64_t accepted = 0; accepted < k; ++accepted) {
      cumulative += geometric_probability(s.rate, accepted, k);
      if (u < cumulative) return accepted;
    }
    return k;
  }
  // The same distribution as probability(), in one pass: the row's own counts, then the geometric tail.
  const int64_t k_max = static_cast<int64_t>(s.histogram.size());
  const std::vector<double>& row = s.histogram[static_cast<size_t>(std::min(k, k_max) - 1)];
  double total = 0;
  for (double c : row) total += c;
  const int64_t row_end = std::min(k, k_max);  // m < row_end read from the row
  for (int64_t accepted = 0; accepted < row_end; ++accepted) {
    cumulative += row[static_cast<size_t>(accepted)] / total;
    if (u < cumulative) return accepted;
  }
  if (k <= k_max) return k;
  const double s_last = row[static_cast<size_t>(k_max)] / total;  // as in histogram_probability
  const double s_before = (row[static_cast<size_t>(k_max - 1)] + row[static_cast<size_t>(k_max)]) / total;
  const double r = s_before > 0 ? s_last / s_before : 0.0;
  double survive = s_last;
  for (int64_t accepted = k_max; accepted < k; ++accepted) {
    cumulative += survive * (1 - r);
    if (u < cumulative) return accepted;
    survive *= r;
  }
  return k;
}

}  // namespace lynx
