#include "traces/serving_bench.hpp"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/error.hpp"
#include "common/atomic_file.hpp"

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
