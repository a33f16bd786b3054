#include "sim/validation/serving_cases.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "common/error.hpp"

namespace lynx {

namespace {
bool has_word(const std::vector<std::string>& w, const std::string& s) { return std::find(w.begin(), w.end(), s) != w.end(); }

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

int64_t option_int(const std::vector<std::string>& w, std::initializer_list<const char*> names, int64_t fallback) {
  for (const char* n : names) {
    bool present = false;
    const std::string v = command_option(w, n, &present);
    if (present && !v.empty()) return std::stoll(v);
  }
  return fallback;
}

double option_double(const std::vector<std::string>& w, std::initializer_list<const char*> names, double fallback) {
  for (const char* n : names) {
    bool present = false;
    const std::string v = command_option(w, n, &present);
    if (present && !v.empty()) return std::stod(v);
  }
  return fallback;
}

// Flags that do not change how the engine serves these runs (addresses, parsers, names) and the flags each reading
// below takes; any other flag makes a run one lynxsim does not replay, naming the flag.
const std::set<std::string> kIrrelevant = {"--host", "--port", "--tool-call-parser", "--reasoning-parser",
                                           "--enable-auto-tool-choice", "--served-model-name", "--trust-remote-code",
                                           "--max-model-len", "--max_seq_len", "--disable-log-requests",
                                           "--language-model-only"};
const std::set<std::string> kRead = {"-tp", "--tensor-parallel-size", "--tp-size", "--tp", "--tp_size", "--ep-size",
                                     "--ep_size", "--enable-expert-parallel", "--max-num-batched-tokens",
                                     "--max-num-seqs", "--gpu-memory-utilization", "--async-scheduling",
                                     "--chunked-prefill-size", "--max-running-requests", "--mem-fraction-static",
                                     "--max_num_tokens", "--max_batch_size", "--kv_cache_free_gpu_memory_fraction",
                                     "--enable_chunked_prefill", "--model", "--model-path"};
}  // namespace

std::string ServingCase::name() const {
  const std::filesystem::path p(run.file);
  return p.parent_path().filename().string() + "/" + p.filename().string() + ":" + std::to_string(run.line);
}

ServingCase serving_case_of(const ServingBenchRun& run) {
  ServingCase c;
  c.run = run;
  const std::vector<std::string>& w = run.serve_command;
  c.requests = run.requests();
  c.input_tokens = static_cast<int64_t>(std::llround(static_cast<double>(run.input_tokens()) / static_cast<double>(c.requests)));
  c.output_tokens =
      std::max<int64_t>(1, std::llround(static_cast<double>(run.generated_tokens()) / static_cast<double>(c.requests)));
  const double conc = run.max_concurrency();
  c.max_concurrency = std::isnan(conc) ? 0 : conc;
  const std::string label = lower(run.label);
  if (label.rfind("random", 0) == 0)
    c.workload = "random " + std::to_string(c.input_tokens) + "/" + std::to_string(c.output_tokens) + " mean";
  else
    c.workload = std::string("sharegpt at mean lengths ") + std::to_string(c.input_tokens) + "/" +
                 std::to_string(c.output_tokens) + (c.max_concurrency > 0 ? ", closed loop" : ", at once");
  c.training = label.find("4k") != std::string::npos || label.find("128") != std::string::npos ||
               (label.rfind("random", 0) != 0 && c.max_concurrency == 4);
  if (w.empty()) {
    c.not_replayed = "no serving command above the block";
    return c;
  }
  std::string checkpoint;
  if (w.size() >= 3 && w[0] == "vllm" && w[1] == "serve") {
    c.engine = "vllm-0.24";
    checkpoint = w[2];
    c.tp = static_cast<int>(option_int(w, {"-tp", "--tensor-parallel-size"}, 1));
    if (has_word(w, "--enable-expert-parallel")) c.ep = c.tp;
    c.max_num_batched_tokens = option_int(w, {"--max-num-batched-tokens"}, -1);
    c.max_num_seqs = option_int(w, {"--max-num-seqs"}, -1);
    c.memory_fraction = option_double(w, {"--gpu-memory-utilization"}, -1);
    c.overlap_scheduling = has_word(w, "--async-scheduling") ? 1 : 0;
  } else if (std::any_of(w.begin(), w.end(), [](const std::string& s) { return s.find("sglang.launch_server") != std::string::npos; })) {
    c.engine = "sglang-0.5.14";
    checkpoint = command_option(w, "--model-path");
    if (checkpoint.empty()) checkpoint = command_option(w, "--model");
    c.tp = static_cast<int>(option_int(w, {"--tp-size", "--tp"}, 1));
    c.ep = static_cast<int>(option_int(w, {"--ep-size"}, 1));
    c.max_num_batched_tokens = option_int(w, {"--chunked-prefill-size"}, -1);
    c.max_num_seqs = option_int(w, {"--max-running-requests"}, -1);
    c.memory_fraction = option_double(w, {"--mem-fraction-static"}, -1);
  } else if (w[0] == "trtllm-serve" && w.size() >= 2) {
    c.engine = "trtllm-1.3";
    checkpoint = w[1];
    c.tp = static_cast<int>(option_int(w, {"--tp_size"}, 1));
    c.ep = static_cast<int>(option_int(w, {"--ep_size"}, 1));
    c.max_num_batched_tokens = option_int(w, {"--max_num_tokens"}, -1);
    c.max_num_seqs = option_int(w, {"--max_batch_size"}, -1);
    c.memory_fraction = option_double(w, {"--kv_cache_free_gpu_memory_fraction"}, -1);
    c.chunked_prefill = has_word(w, "--enable_chunked_prefill") ? 1 : -1;
  } else {
    c.not_replayed = "a serving command of an engine lynxsim does not model";
    return c;
  }
  // The serving program's own flags (after `python3 -m MODULE`, where the command starts so).
  size_t first = 0;
  for (size_t i = 0; i + 1 < w.size(); ++i)
    if (w[i] == "-m") first = i + 2;
  for (size_t i = first; i < w.size(); ++i) {
    if (w[i].rfind("-", 0) != 0) continue;
    const std::string flag = w[i].substr(0, w[i].find('='));
    if (kIrrelevant.count(flag) == 0 && kRead.count(flag) == 0) {
      c.not_replayed = "its command sets " + flag + ", which lynxsim does not model";
      return c;
    }
  }
  std::string name = lower(checkpoint.substr(checkpoint.find('/') == std::string::npos ? 0 : checkpoint.find('/') + 1));
  if (ends_with(name, "-fp8")) {
    c.fp8_weights = true;
    name = name.substr(0, name.size() - 4);
  }
  if (ends_with(name, "-instruct-2507")) name = name.substr(0, name.size() - 14);
  if (name == "qwen3-14b" || name == "qwen3-32b" || name == "qwen3-235b-a22b" || name == "qwen3-8b") {
    c.model = name + (c.fp8_weights ? "-fp8" : "");
  } else if (name.rfind("gpt-oss", 0) == 0) {
    c.not_replayed = "gpt-oss has sliding-window layers, which the engine-composed cost model does not compose";
  } else if (name.rfind("qwen3.5", 0) == 0) {
    c.not_replayed = "Qwen3.5 mixes linear-attention layers, which lynxsim does not model";
  } else {
    c.not_replayed = "model " + checkpoint + " is not in the catalog";
  }
  return c;
}

std::vector<ServingCase> gpustack_serving_cases(const std::string& folder) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(folder))
    if (entry.is_regular_file() && entry.path().extension() == ".md" &&
        entry.path().parent_path().filename() != "references" && entry.path().filename() != "overview.md")
      files.push_back(entry.path().string());
  if (files.empty()) throw_error("%s: no GPUStack performance-lab page (*.md)", folder.c_str());
  std::sort(files.begin(), files.end());
  std::vector<ServingCase> cases;
  for (const std::string& f : files)
    for (const ServingBenchRun& run : serving_bench_read_text(f)) cases.push_back(serving_case_of(run));
  // A page may print one run twice (Qwen3-8B's 4-client result is both its engine comparison and its "BS=4" row):
  // the same serving command and every printed figure equal. Replaying both would weigh that run twice.
  for (size_t i = 0; i < cases.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (cases[j].not_replayed.empty() && cases[i].not_replayed.empty() &&
          cases[i].run.serve_command == cases[j].run.serve_command && cases[i].run.fields == cases[j].run.fields) {
        cases[i].not_replayed = "repeats the result at " + cases[j].name();
        break;
      }
  return cases;
}

}  // namespace lynx
