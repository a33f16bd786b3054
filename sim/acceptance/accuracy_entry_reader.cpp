// AcceptanceModel::from_accuracy_entry_text (acceptance.hpp): an accuracy file's format entry read as SAX events
// (json_plain_sax.hpp's reader for a plain entry, else nlohmann's), the histograms' counts pushed straight into their
// rows. It takes only what from_accuracy_json would take without an error and answers `unsure` at the first thing it
// does not expect, so that every error keeps the one wording and JSON path of the document reader.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/json_plain_sax.hpp"
#include "sim/acceptance/acceptance.hpp"
#include "sim/acceptance/acceptance_fields.hpp"

namespace lynx {

class AccuracyEntrySax {
 public:
  using json = nlohmann::json;
  using Statistics = AcceptanceModel::Statistics;

  // What each open container is, from where it stands.
  enum class Role { entry, statistics, by_length, histogram, row, skipped };
  struct Frame {
    Role role;
    bool object;
    std::vector<std::string> keys;  // an object's keys so far (a repeated key: unsure, as the document reader refuses it)
    std::string key;                // the member whose value comes next
    size_t statistics = 0;          // statistics and its histogram's rows: which Item
  };
  // One statistics object: "speculation" (pooled) or an item of "speculation_by_prompt_length".
  struct Item {
    bool has_rate = false, has_histogram = false, has_prompt_tokens = false;
    Statistics s;
  };

  bool null() { return scalar(Kind::other, 0); }
  bool boolean(bool) { return scalar(Kind::other, 0); }
  bool number_integer(json::number_integer_t v) {
    return v >= 0 ? scalar(Kind::count, static_cast<double>(v), static_cast<json::number_unsigned_t>(v))
                  : scalar(Kind::negative, static_cast<double>(v));
  }
  bool number_unsigned(json::number_unsigned_t v) { return scalar(Kind::count, static_cast<double>(v), v); }
  bool number_float(json::number_float_t v, const json::string_t&) { return scalar(Kind::real, v); }
  bool string(json::string_t&) { return scalar(Kind::other, 0); }
  bool binary(json::binary_t&) { return false; }
  bool start_object(std::size_t) { return open(true); }
  bool start_array(std::size_t) { return open(false); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(json::string_t& name) {
    Frame& f = stack_.back();
    if (std::find(f.keys.begin(), f.keys.end(), name) != f.keys.end()) return false;
    f.keys.push_back(name);
    f.key = name;
    if (f.role == Role::entry && name == "speculation") has_speculation_ = true;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

  // After a whole parse: the model, or whether there is none.
  AcceptanceModel::EntryRead finish(const std::string& path, const std::string& format_name, AcceptanceModel* out) {
    using Read = AcceptanceModel::EntryRead;
    if (!entry_seen_) return Read::unsure;
    if (!has_speculation_) return Read::no_speculation;
    std::vector<Statistics> statistics;
    if (by_length_seen_) {
      if (by_length_.empty()) return Read::unsure;
      for (size_t i = 0; i < by_length_.size(); ++i) {
        Item& item = items_[by_length_[i]];
        if (!complete(item) || !item.has_prompt_tokens) return Read::unsure;
        if (i > 0 && item.s.prompt_tokens <= statistics.back().prompt_tokens) return Read::unsure;
        statistics.push_back(std::move(item.s));
      }
    } else {
      if (pooled_ < 0 || !complete(items_[static_cast<size_t>(pooled_)])) return Read::unsure;
      statistics.push_back(std::move(items_[static_cast<size_t>(pooled_)].s));
    }
    *out = AcceptanceModel::from_statistics(std::move(statistics), by_length_seen_, path, format_name);
    return Read::model;
  }

 private:
  enum class Kind { count, real, negative, other };

  // The document reader's checks: a rate in [0, 1]; a histogram of k_max >= 1 rows, row i of i + 2 counts with
  // a total above 0 (each count was checked non-negative and finite as it came).
  static bool complete(const Item& item) {
    if (!item.has_rate || !item.has_histogram || item.s.histogram.empty()) return false;
    for (size_t i = 0; i < item.s.histogram.size(); ++i) {
      const std::vector<double>& row = item.s.histogram[i];
      if (row.size() != i + 2) return false;
      double total = 0;
      for (double c : row) total += c;
      if (!(total > 0)) return false;
    }
    return true;
  }

  // The role of a value about to start in the innermost open container (entry: the document itself).
  Role role_here(bool container, bool object) const {
    if (stack_.empty()) return container && object ? Role::entry : Role::skipped;
    const Frame& f = stack_.back();
    switch (f.role) {
      case Role::entry:
        if (f.key == "speculation") return Role::statistics;
        if (f.key == "speculation_by_prompt_length") return Role::by_length;
        return Role::skipped;
      case Role::by_length: return Role::statistics;
      case Role::statistics: return f.key == "accepted_histogram" ? Role::histogram : Role::skipped;
      case Role::histogram: return Role::row;
      case Role::row: return Role::row;  // a count
      case Role::skipped: return Role::skipped;
    }
    return Role::skipped;
  }

  bool open(bool object) {
    const Role role = role_here(true, object);
    Frame f{role, object, {}, {}, 0};
    switch (role) {
      case Role::entry:
        entry_seen_ = true;
        break;
      case Role::statistics: {
        if (!object) return false;
        items_.emplace_back();
        f.statistics = items_.size() - 1;
        if (stack_.back().role == Role::entry) {
          pooled_ = static_cast<long>(f.statistics);
        } else {
          by_length_.push_back(f.statistics);
        }
        break;
      }
      case Role::by_length:
        if (object) return false;
        by_length_seen_ = true;
        break;
      case Role::histogram: {
        if (object) return false;
        Item& item = items_[stack_.back().statistics];
        item.has_histogram = true;
        f.statistics = stack_.back().statistics;
        break;
      }
      case Role::row: {
        if (object || stack_.back().role != Role::histogram) return false;  // a count that is an array
        f.statistics = stack_.back().statistics;
        items_[f.statistics].s.histogram.emplace_back();
        break;
      }
      case Role::skipped:
        if (stack_.empty()) return false;  // the entry is not an object
        break;
    }
    stack_.push_back(std::move(f));
    return true;
  }

  bool close() {
    stack_.pop_back();
    return true;
  }

  bool scalar(Kind kind, double value, json::number_unsigned_t unsigned_value = 0) {
    if (stack_.empty()) return false;  // the entry is not an object
    const Frame& f = stack_.back();
    switch (f.role) {
      case Role::entry:
        // "speculation" must be the statistics object; "speculation_by_prompt_length" an array.
        return f.key != "speculation" && f.key != "speculation_by_prompt_length";
      case Role::by_length:
      case Role::histogram:
        return false;  // an item that is not an object, a row that is not an array
      case Role::row: {
        if (kind != Kind::count && kind != Kind::real) return false;
        if (!(value >= 0) || !std::isfinite(value)) return false;
        items_[f.statistics].s.histogram.back().push_back(value);
        return true;
      }
      case Role::statistics: {
        Item& item = items_[f.statistics];
        if (f.key == "per_token_acceptance_rate") {
          if (kind == Kind::other) return false;
          if (!std::isfinite(value) || !(value >= kAcceptanceRate.min) || !(value <= kAcceptanceRate.max))
            return false;
          item.has_rate = true;
          item.s.rate = value;
        } else if (f.key == "prompt_tokens") {
          // An integer (a float such as 16.0 is the document reader's error); in range.
          if (kind != Kind::count || unsigned_value > static_cast<uint64_t>(kPromptTokens.max)) return false;
          const int64_t n = static_cast<int64_t>(unsigned_value);
          if (n < kPromptTokens.min) return false;
          item.has_prompt_tokens = true;
          item.s.prompt_tokens = n;
        } else if (f.key == "accepted_histogram") {
          return false;  // not an array
        }
        return true;
      }
      case Role::skipped:
        return true;
    }
    return true;
  }

  std::vector<Frame> stack_;
  std::vector<Item> items_;
  std::vector<size_t> by_length_;  // items of "speculation_by_prompt_length", in order
  long pooled_ = -1;               // the item of "speculation"
  bool entry_seen_ = false, has_speculation_ = false, by_length_seen_ = false;
};

AcceptanceModel::EntryRead AcceptanceModel::from_accuracy_entry_text(const std::string& entry, const std::string& path,
                                                                     const std::string& format_name,
                                                                     AcceptanceModel* out) {
  {
    AccuracyEntrySax plain;  // the plain subset without nlohmann's lexer, the same events (common/json_plain_sax.hpp)
    switch (json_plain_sax_parse(entry, plain)) {
      case PlainSax::accepted: return plain.finish(path, format_name, out);
      case PlainSax::handler_stopped: return EntryRead::unsure;  // nlohmann would stop there too
      case PlainSax::unsure: break;                              // nlohmann reads it, with a fresh handler
    }
  }
  AccuracyEntrySax sax;
  bool parsed = false;
  try {
    parsed = nlohmann::json::sax_parse(entry, &sax);
  } catch (const nlohmann::json::exception&) {
    parsed = false;
  }
  return parsed ? sax.finish(path, format_name, out) : EntryRead::unsure;
}

}  // namespace lynx
