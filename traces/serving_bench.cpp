#include "traces/serving_bench.hpp"

#include <cmath>
#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/error.hpp"
#include "common/atomic_file.hpp"
#include "common/json_reader.hpp"
#include "common/sha256.hpp"
#include "traces/aiperf_export.hpp"

#include <nlohmann/json.hpp>

namespace lynx {

namespace {
std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  const size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// A line that starts a serving command: vLLM's CLI or module, SGLang's server, TensorRT-LLM's server.
bool is_serve_command(const std::string& t) {
  if (t.find("bench serve") != std::string::npos) return false;
  return t.find("vllm serve ") != std::string::npos || t.find("vllm.entrypoints.openai.api_server") != std::string::npos ||
         t.find("sglang.launch_server") != std::string::npos || t.find("trtllm-serve ") != std::string::npos;
}

bool is_bench_command(const std::string& t) {
  return t.find("vllm bench serve") != std::string::npos || t.find("benchmark_serving.py") != std::string::npos;
}

bool is_rule(const std::string& t, char c) {
  if (t.size() < 10) return false;
  for (char x : t)
    if (x != c) return false;
  return true;
}

constexpr const char* kRequired[] = {"Successful requests", "Benchmark duration (s)", "Total input tokens",
                                     "Total generated tokens", "Mean TTFT (ms)"};
}  // namespace

std::optional<RowsDisagreement> serving_rows_disagreement(const ServingBenchRun& run) {
  if (run.input_lens.empty()) return std::nullopt;
  const auto n = static_cast<int64_t>(run.input_lens.size());
  if (n != run.requests())
    return RowsDisagreement{"input_lens", std::to_string(n) + " rows, " + std::to_string(run.requests()) +
                                         " requests in the totals"};
  int64_t in = 0, out = 0;
  for (size_t i = 0; i < run.input_lens.size(); ++i) in += run.input_lens[i], out += run.output_lens[i];
  if (in != run.input_tokens())
    return RowsDisagreement{"input_lens", "input lengths sum to " + std::to_string(in) + ", " +
                                         std::to_string(run.input_tokens()) + " in the totals"};
  if (out != run.generated_tokens())
    return RowsDisagreement{"output_lens", "output lengths sum to " + std::to_string(out) + ", " +
                                          std::to_string(run.generated_tokens()) + " in the totals"};
  if (!run.ttfts_ms.empty()) {
    double sum = 0;
    for (double t : run.ttfts_ms) sum += t;
    const double mean = sum / static_cast<double>(run.ttfts_ms.size());
    if (std::fabs(mean / run.mean_ttft_ms() - 1) > 0.01)
      return RowsDisagreement{"ttfts", "TTFTs average " + std::to_string(mean) + " ms, " +
                                          std::to_string(run.mean_ttft_ms()) + " ms in the totals (1% allowed)"};
  }
  return std::nullopt;
}

double ServingBenchRun::field(const std::string& name) const {
  const auto it = fields.find(name);
  return it == fields.end() ? NAN : it->second;
}
int64_t ServingBenchRun::requests() const { return static_cast<int64_t>(std::llround(field("Successful requests"))); }
double ServingBenchRun::duration_s() const { return field("Benchmark duration (s)"); }
int64_t ServingBenchRun::input_tokens() const { return static_cast<int64_t>(std::llround(field("Total input tokens"))); }
int64_t ServingBenchRun::generated_tokens() const {
  return static_cast<int64_t>(std::llround(field("Total generated tokens")));
}
double ServingBenchRun::mean_ttft_ms() const { return field("Mean TTFT (ms)"); }

std::vector<std::string> shell_words(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      if (text[i + 1] == '\n') {  // a continued line
        ++i;
        continue;
      }
      word += text[++i];
      in_word = true;
    } else if (c == '\'') {
      const size_t end = text.find('\'', i + 1);
      if (end == std::string::npos) throw_error("unterminated single quote in: %s", text.c_str());
      word += text.substr(i + 1, end - i - 1);
      i = end;
      in_word = true;
    } else if (c == '"') {
      size_t j = i + 1;
      for (; j < text.size() && text[j] != '"'; ++j) {
        if (text[j] == '\\' && j + 1 < text.size() && std::string("\"\\$`").find(text[j + 1]) != std::string::npos) ++j;
        word += text[j];
      }
      if (j >= text.size()) throw_error("unterminated double quote in: %s", text.c_str());
      i = j;
      in_word = true;
    } else if (c == '#' && !in_word) {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

std::string command_option(const std::vector<std::string>& words, const std::string& name, bool* present) {
  std::string value;
  bool found = false;
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i] == name) {
      found = true;
      value = i + 1 < words.size() && !starts_with(words[i + 1], "-") ? words[i + 1] : "";
    } else if (starts_with(words[i], name + "=")) {
      found = true;
      value = words[i].substr(name.size() + 1);
    }
  }
  if (present != nullptr) *present = found;
  return value;
}

std::vector<ServingBenchRun> serving_bench_read_text(const std::string& path) {
  const std::string text = read_file(path);
  std::vector<std::string> lines;
  {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) lines.push_back(line);
  }
  std::vector<ServingBenchRun> runs;
  std::string heading, last_comment;
  std::vector<std::string> serve, bench;
  bool in_fence = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string t = trim(lines[i]);
    if (starts_with(t, "```")) {
      in_fence = !in_fence;
      continue;
    }
    if (!in_fence && starts_with(lines[i], "#")) {
      heading = trim(lines[i].substr(lines[i].find_first_not_of('#')));
      continue;
    }
    if (t.empty()) continue;
    if (is_serve_command(t) || is_bench_command(t)) {
      std::string command = t;
      while (!command.empty() && command.back() == '\\' && i + 1 < lines.size()) {
        command.pop_back();
        command += " " + trim(lines[++i]);
      }
      (is_bench_command(t) ? bench : serve) = shell_words(command);
      last_comment.clear();
      continue;
    }
    if (t.find("Serving Benchmark Result") != std::string::npos && t.front() == '=') {
      ServingBenchRun run;
      run.file = path;
      run.line = static_cast<int64_t>(i + 1);
      run.heading = heading;
      run.label = last_comment;
      run.serve_command = serve;
      run.bench_command = bench;
      size_t j = i + 1;
      for (; j < lines.size(); ++j) {
        const std::string f = trim(lines[j]);
        if (is_rule(f, '=')) break;
        if (f.empty() || f.front() == '-') continue;
        const size_t colon = f.rfind(':');
        if (colon == std::string::npos) continue;
        const std::string name = trim(f.substr(0, colon)), value = trim(f.substr(colon + 1));
        if (value == "N/A" || value == "nan") continue;  // printed where the client had no sample: absent
        char* end = nullptr;
        const double v = std::strtod(value.c_str(), &end);
        if (value.empty() || end == nullptr || *end != '\0' || !std::isfinite(v) || v < 0)
          throw_error("%s:%zu: \"%s\": expected a finite non-negative number, got \"%s\"", path.c_str(), j + 1,
                      name.c_str(), value.c_str());
        run.fields[name] = v;
      }
      if (j == lines.size())
        throw_error("%s:%lld: a vllm bench serve result block without its closing line of '='", path.c_str(),
                    static_cast<long long>(run.line));
      for (const char* required : kRequired)
        if (run.fields.count(required) == 0)
          throw_error("%s:%lld: a vllm bench serve result block without \"%s\"", path.c_str(),
                      static_cast<long long>(run.line), required);
      if (run.requests() < 1)
        throw_error("%s:%lld: a result block with no successful request", path.c_str(), static_cast<long long>(run.line));
      runs.push_back(std::move(run));
      last_comment.clear();
      i = j;
      continue;
    }
    last_comment = t.front() == '#' ? trim(t.substr(1)) : "";
  }
  if (runs.empty()) throw_error("%s: no vllm bench serve result block (a line \"==== Serving Benchmark Result ====\")",
                                path.c_str());
  return runs;
}

}  // namespace lynx

namespace lynx {

namespace {
// A result object's keys as the printed block names them.
constexpr std::pair<const char*, const char*> kJsonFields[] = {
    {"completed", "Successful requests"},          {"duration", "Benchmark duration (s)"},
    {"total_input_tokens", "Total input tokens"},  {"total_output_tokens", "Total generated tokens"},
    {"mean_ttft_ms", "Mean TTFT (ms)"},            {"median_ttft_ms", "Median TTFT (ms)"},
    {"p99_ttft_ms", "P99 TTFT (ms)"},              {"mean_tpot_ms", "Mean TPOT (ms)"},
    {"median_tpot_ms", "Median TPOT (ms)"},        {"p99_tpot_ms", "P99 TPOT (ms)"},
    {"mean_itl_ms", "Mean ITL (ms)"},              {"mean_e2el_ms", "Mean E2EL (ms)"},
    {"max_concurrency", "Maximum request concurrency"}};

[[noreturn]] void refuse_aiperf_record(const std::string& path, int64_t line) {
  throw_error("%s:%lld: an AIPerf per-request record: give the run's profile_export_aiperf.json or its artifact folder "
              "(how the client sent the requests is there; the records beside it are read with it)",
              path.c_str(), static_cast<long long>(line));
}

ServingBenchRun run_of_object(const nlohmann::json& o, const std::string& path, int64_t line) {
  auto fail = [&](const std::string& key, const std::string& what) {
    throw_error("%s:%lld: $.%s: %s", path.c_str(), static_cast<long long>(line), key.c_str(), what.c_str());
  };
  if (!o.is_object()) throw_error("%s:%lld: expected a JSON object (a benchmark result)", path.c_str(), static_cast<long long>(line));
  ServingBenchRun run;
  run.file = path;
  run.line = line;
  for (const auto& [key, name] : kJsonFields) {
    const auto it = o.find(key);
    if (it == o.end() || it->is_null()) continue;
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0)
      fail(key, "expected a finite number >= 0");
    run.fields[name] = it->get<double>();
  }
  for (const char* key : kRequired)
    if (!run.fields.count(key)) {
      std::string json_key;
      for (const auto& [k, name] : kJsonFields)
        if (std::string(name) == key) json_key = k;
      fail(json_key, "missing: every replay needs completed, duration, total_input_tokens, total_output_tokens and "
                     "mean_ttft_ms");
    }
  if (const auto it = o.find("request_rate"); it != o.end() && !it->is_null()) {
    if (it->is_number()) run.request_rate = it->get<double>();
    else if (!(it->is_string() && (it->get<std::string>() == "inf" || it->get<std::string>() == "Infinity")))
      fail("request_rate", "expected a number or \"inf\"");
    if (!(run.request_rate > 0)) fail("request_rate", "expected a rate > 0");
  }
  if (const auto it = o.find("model_id"); it != o.end() && it->is_string()) run.label = it->get<std::string>();
  auto lengths = [&](const char* key, std::vector<int64_t>& out) {
    const auto it = o.find(key);
    if (it == o.end() || it->is_null()) return;
    if (!it->is_array()) fail(key, "expected an array of token counts");
    for (size_t i = 0; i < it->size(); ++i) {
      const nlohmann::json& v = (*it)[i];
      if (!v.is_number_integer() || v.get<int64_t>() < 0) fail(std::string(key) + "[" + std::to_string(i) + "]", "expected a token count >= 0");
      out.push_back(v.get<int64_t>());
    }
  };
  lengths("input_lens", run.input_lens);
  lengths("output_lens", run.output_lens);
  if (const auto it = o.find("ttfts"); it != o.end() && !it->is_null()) {
    if (!it->is_array()) fail("ttfts", "expected an array of seconds");
    for (size_t i = 0; i < it->size(); ++i) {
      const nlohmann::json& v = (*it)[i];
      if (!v.is_number() || !(v.get<double>() >= 0)) fail("ttfts[" + std::to_string(i) + "]", "expected seconds >= 0");
      run.ttfts_ms.push_back(v.get<double>() * 1e3);
    }
  }
  // The per-request rows must agree with each other, then with the totals.
  if (run.input_lens.size() != run.output_lens.size())
    fail("output_lens", "has " + std::to_string(run.output_lens.size()) + " rows, input_lens " +
                            std::to_string(run.input_lens.size()));
  if (!run.ttfts_ms.empty() && run.ttfts_ms.size() != run.input_lens.size())
    fail("ttfts", "has a row count other than input_lens'");
  if (const std::optional<RowsDisagreement> d = serving_rows_disagreement(run))
    fail(d->rows, d->text);
  return run;
}
}  // namespace

std::vector<ServingBenchRun> serving_bench_read_json(const std::string& path) {
  const std::string text = read_file(path);
  std::vector<ServingBenchRun> runs;
  // One object (vLLM), or one per line (SGLang's JSONL).
  nlohmann::json whole = nlohmann::json::parse(text, nullptr, false);
  if (!whole.is_discarded()) {
    if (aiperf_is_aggregate(whole)) return {aiperf_read(path)};
    if (aiperf_is_record(whole)) refuse_aiperf_record(path, 1);
    runs.push_back(run_of_object(whole, path, 1));
  } else {
    std::istringstream in(text);
    std::string line;
    int64_t number = 0;
    while (std::getline(in, line)) {
      ++number;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      nlohmann::json o = nlohmann::json::parse(line, nullptr, false);
      if (o.is_discarded())
        throw_error("%s:%lld: not JSON (a result file holds one JSON object, or one per line)", path.c_str(),
                    static_cast<long long>(number));
      if (aiperf_is_record(o)) refuse_aiperf_record(path, number);
      runs.push_back(run_of_object(o, path, number));
    }
  }
  if (runs.empty()) throw_error("%s: no benchmark result in it", path.c_str());
  const std::string digest = sha256_hex(text);
  for (ServingBenchRun& r : runs) r.sha256 = digest;
  return runs;
}

std::vector<ServingBenchRun> serving_bench_read(const std::string& path) {
  if (std::filesystem::is_directory(path)) return {aiperf_read(path)};
  const std::string text = read_file(path);
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') return serving_bench_read_json(path);
  std::vector<ServingBenchRun> runs = serving_bench_read_text(path);
  const std::string digest = sha256_hex(text);
  for (ServingBenchRun& r : runs) r.sha256 = digest;
  return runs;
}

}  // namespace lynx
