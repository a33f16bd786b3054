// golden_compare: a run folder against a golden case's committed expectations (tests/golden/README.md).
//   golden_compare check CASE_DIR RUN_DIR   exit 0 when the run reproduces the case; else 1, every moved field listed
//   golden_compare write CASE_DIR RUN_DIR   rewrites CASE_DIR/summary.json and CASE_DIR/requests.json (make golden)
//   golden_compare mirrors COPY ORIGINAL [DOTTED.PATH...]   a case's configuration equals the one it copies but for
//                                                          the paths named (comments aside)
// summary.json: every number at relative tolerance 1e-9; integers, strings, booleans, nulls and the structure (keys,
// array lengths, types) exactly. Paths inside the project folder or the data folder are normalised to
// "@project/..." and "@data/..." (the folders of common/data_folder.hpp, found as lynxsim finds them) on both sides.
// requests.csv: its sha256 must be equal; requests.json also holds per-column digests and sums and per-block row
// digests, so that a moved file is reported by the columns that moved and the first block of rows that differs.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "common/data_folder.hpp"
#include "common/error.hpp"
#include "common/json_reader.hpp"
#include "common/sha256.hpp"

using namespace lynx;
namespace fs = std::filesystem;

namespace {
constexpr double kRelativeTolerance = 1e-9;
constexpr size_t kBlocks = 32;       // requests.csv rows are digested in at most this many blocks
constexpr size_t kShortDigest = 16;  // hex digits kept of a column's or a block's sha256

// ---- paths: the same text on every machine ----

std::string folder_prefix(const std::string& folder) {
  std::string path = fs::path(folder).lexically_normal().string();
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path + "/";
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

// Every string in `value`, with the data folder's path written "@data/" and the project folder's "@project/" (the
// data folder first: it may lie inside the project, as data/ does).
void normalise_paths(nlohmann::json& value) {
  static const std::string data = folder_prefix(data_folder().path), project = folder_prefix(project_dir());
  if (value.is_string()) {
    std::string text = value.get<std::string>();
    replace_all(text, data, kDataPrefix);
    replace_all(text, project, "@project/");
    value = text;
  } else if (value.is_structured()) {
    for (auto& item : value) normalise_paths(item);
  }
}

nlohmann::json read_summary(const std::string& run_dir) {
  nlohmann::json summary = json_parse_file(run_dir + "/summary.json");
  normalise_paths(summary);
  return summary;
}

// ---- summary.json: every difference, by JSON path ----

std::string shown(const nlohmann::json& v) {
  if (v.is_structured()) return v.is_object() ? "an object" : "an array of " + std::to_string(v.size());
  return v.dump();
}

std::string relative_change(double before, double after) {
  if (before == 0) return "from 0";
  char text[40];
  std::snprintf(text, sizeof text, "%+.3e", (after - before) / std::fabs(before));
  return text;
}

bool numbers_agree(const nlohmann::json& a, const nlohmann::json& b) {
  if (!a.is_number_float() && !b.is_number_float()) return a == b;  // integers: exactly
  const double x = a.get<double>(), y = b.get<double>();
  return x == y || std::fabs(x - y) <= kRelativeTolerance * std::max(std::fabs(x), std::fabs(y));
}

void compare_json(const nlohmann::json& old_value, const nlohmann::json& new_value, const std::string& path,
                  std::vector<std::string>& moved) {
  if (old_value.is_number() && new_value.is_number()) {
    if (!numbers_agree(old_value, new_value))
      moved.push_back(path + ": " + shown(old_value) + " -> " + shown(new_value) + " (" +
                      relative_change(old_value.get<double>(), new_value.get<double>()) + ")");
    return;
  }
  if (old_value.type() != new_value.type()) {
    moved.push_back(path + ": " + shown(old_value) + " -> " + shown(new_value) + " (type " + old_value.type_name() +
                    " -> " + new_value.type_name() + ")");
    return;
  }
  if (old_value.is_object()) {
    for (const auto& [key, item] : old_value.items()) {
      if (new_value.contains(key))
        compare_json(item, new_value.at(key), path + "." + key, moved);
      else
        moved.push_back(path + "." + key + ": " + shown(item) + " -> removed");
    }
    for (const auto& [key, item] : new_value.items())
      if (!old_value.contains(key)) moved.push_back(path + "." + key + ": added, " + shown(item));
  } else if (old_value.is_array()) {
    if (old_value.size() != new_value.size())
      moved.push_back(path + ": " + std::to_string(old_value.size()) + " items -> " +
                      std::to_string(new_value.size()));
    for (size_t i = 0; i < std::min(old_value.size(), new_value.size()); ++i)
      compare_json(old_value[i], new_value[i], path + "[" + std::to_string(i) + "]", moved);
  } else if (old_value != new_value) {
    moved.push_back(path + ": " + shown(old_value) + " -> " + shown(new_value));
  }
}

// ---- requests.csv: its digest, and where it moved ----

std::vector<std::string> split_cells(const std::string& line) {
  std::vector<std::string> cells;
  size_t start = 0;
  for (size_t comma = line.find(','); comma != std::string::npos; comma = line.find(',', start)) {
    cells.push_back(line.substr(start, comma - start));
    start = comma + 1;
  }
  cells.push_back(line.substr(start));
  return cells;
}

bool parse_number(const std::string& cell, double& value) {
  if (cell.empty()) return false;
  char* end = nullptr;
  value = std::strtod(cell.c_str(), &end);
  return *end == '\0';
}

nlohmann::json digest_requests(const std::string& path) {
  const std::string text = read_file(path);
  std::vector<std::string> lines;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  if (lines.empty()) throw_error("%s: empty, expected a header line", path.c_str());
  const std::vector<std::string> header = split_cells(lines[0]);
  const size_t rows = lines.size() - 1;
  std::vector<Sha256> column_digest(header.size());
  std::vector<double> sums(header.size(), 0);
  std::vector<bool> numeric(header.size(), true);
  for (size_t r = 1; r <= rows; ++r) {
    const std::vector<std::string> cells = split_cells(lines[r]);
    if (cells.size() != header.size())
      throw_error("%s:%zu: %zu cells, the header has %zu", path.c_str(), r + 1, cells.size(), header.size());
    for (size_t c = 0; c < cells.size(); ++c) {
      column_digest[c].update(cells[c].data(), cells[c].size());
      column_digest[c].update("\n", 1);
      double value = 0;
      if (numeric[c] && parse_number(cells[c], value)) sums[c] += value;
      else numeric[c] = false;
    }
  }
  nlohmann::json columns = nlohmann::json::array();
  for (size_t c = 0; c < header.size(); ++c) {
    nlohmann::json column = {{"name", header[c]}, {"sha256", column_digest[c].hex().substr(0, kShortDigest)}};
    column["sum"] = numeric[c] ? nlohmann::json(sums[c]) : nlohmann::json(nullptr);
    columns.push_back(column);
  }
  const size_t rows_per_block = std::max<size_t>(1, (rows + kBlocks - 1) / kBlocks);
  nlohmann::json blocks = nlohmann::json::array();
  for (size_t first = 1; first <= rows; first += rows_per_block) {
    Sha256 block;
    for (size_t r = first; r < std::min(rows + 1, first + rows_per_block); ++r) {
      block.update(lines[r].data(), lines[r].size());
      block.update("\n", 1);
    }
    blocks.push_back(block.hex().substr(0, kShortDigest));
  }
  return {{"sha256", sha256_hex(text)}, {"bytes", text.size()}, {"rows", rows}, {"columns", columns},
          {"rows_per_block", rows_per_block}, {"blocks", blocks}};
}

void compare_requests(const nlohmann::json& old_digest, const nlohmann::json& new_digest,
                      std::vector<std::string>& moved) {
  if (old_digest.at("sha256") == new_digest.at("sha256")) return;
  moved.push_back("sha256 " + old_digest.at("sha256").get<std::string>() + " -> " +
                  new_digest.at("sha256").get<std::string>() + ", " + old_digest.at("bytes").dump() + " -> " +
                  new_digest.at("bytes").dump() + " bytes, " + old_digest.at("rows").dump() + " -> " +
                  new_digest.at("rows").dump() + " rows");
  const nlohmann::json &old_columns = old_digest.at("columns"), &new_columns = new_digest.at("columns");
  auto find = [](const nlohmann::json& columns, const nlohmann::json& name) -> const nlohmann::json* {
    for (const auto& column : columns)
      if (column.at("name") == name) return &column;
    return nullptr;
  };
  for (const auto& before : old_columns) {
    const std::string name = before.at("name").get<std::string>();
    const nlohmann::json* after = find(new_columns, before.at("name"));
    if (after == nullptr) {
      moved.push_back("column " + name + ": removed");
    } else if (before.at("sha256") != after->at("sha256")) {
      std::string line = "column " + name + " moved";
      if (!before.at("sum").is_null() && !after->at("sum").is_null())
        line += ": sum " + shown(before.at("sum")) + " -> " + shown(after->at("sum")) + " (" +
                relative_change(before.at("sum").get<double>(), after->at("sum").get<double>()) + ")";
      moved.push_back(line);
    }
  }
  for (const auto& after : new_columns)
    if (find(old_columns, after.at("name")) == nullptr)
      moved.push_back("column " + after.at("name").get<std::string>() + ": added");
  const nlohmann::json &old_blocks = old_digest.at("blocks"), &new_blocks = new_digest.at("blocks");
  if (old_digest.at("rows_per_block") != new_digest.at("rows_per_block")) return;  // the row count moved
  const size_t per = old_digest.at("rows_per_block").get<size_t>();
  for (size_t b = 0; b < std::min(old_blocks.size(), new_blocks.size()); ++b)
    if (old_blocks[b] != new_blocks[b]) {
      moved.push_back("first differing rows: data rows " + std::to_string(b * per + 1) + ".." +
                      std::to_string(std::min((b + 1) * per, new_digest.at("rows").get<size_t>())) +
                      " (file lines " + std::to_string(b * per + 2) + "..)");
      return;
    }
}

// ---- the two commands ----

int check(const std::string& case_dir, const std::string& run_dir) {
  const std::string name = fs::path(case_dir).lexically_normal().filename().string();
  std::vector<std::string> summary_moved, requests_moved;
  compare_json(json_parse_file(case_dir + "/summary.json"), read_summary(run_dir), "$", summary_moved);
  compare_requests(json_parse_file(case_dir + "/requests.json"), digest_requests(run_dir + "/requests.csv"),
                   requests_moved);
  if (summary_moved.empty() && requests_moved.empty()) {
    std::printf("golden %s: summary.json and requests.csv as committed\n", name.c_str());
    return 0;
  }
  std::printf("golden %s: the run moved (expected: %s, this run: %s)\n", name.c_str(), case_dir.c_str(),
              run_dir.c_str());
  if (!summary_moved.empty()) {
    std::printf("summary.json: %zu field(s) moved beyond relative %g (JSON path: committed -> now, relative change)\n",
                summary_moved.size(), kRelativeTolerance);
    for (const auto& line : summary_moved) std::printf("  %s\n", line.c_str());
  }
  if (!requests_moved.empty()) {
    std::printf("requests.csv:\n");
    for (const auto& line : requests_moved) std::printf("  %s\n", line.c_str());
  }
  std::printf("If the change is intended: make golden, and say in the commit message why the numbers moved.\n");
  return 1;
}

void write(const std::string& case_dir, const std::string& run_dir) {
  const nlohmann::json summary = read_summary(run_dir);
  const nlohmann::json requests = digest_requests(run_dir + "/requests.csv");
  write_file_atomic(case_dir + "/summary.json", summary.dump(2) + "\n");
  write_file_atomic(case_dir + "/requests.json", requests.dump(2) + "\n");
}
void erase_dotted(nlohmann::json& value, const std::string& dotted) {
  nlohmann::json* at = &value;
  size_t start = 0;
  for (size_t dot = dotted.find('.'); dot != std::string::npos; dot = dotted.find('.', start)) {
    const std::string key = dotted.substr(start, dot - start);
    if (!at->is_object() || !at->contains(key)) return;
    at = &(*at)[key];
    start = dot + 1;
  }
  if (at->is_object()) at->erase(dotted.substr(start));
}

int mirrors(const std::string& copy_path, const std::string& original_path, const std::vector<std::string>& except) {
  nlohmann::json copy = json_parse_file(copy_path, true), original = json_parse_file(original_path, true);
  for (const auto& dotted : except) {
    erase_dotted(copy, dotted);
    erase_dotted(original, dotted);
  }
  std::vector<std::string> moved;
  compare_json(original, copy, "$", moved);
  if (moved.empty()) {
    std::printf("%s follows %s\n", copy_path.c_str(), original_path.c_str());
    return 0;
  }
  std::printf("%s no longer follows %s (original -> copy); change both:\n", copy_path.c_str(), original_path.c_str());
  for (const auto& line : moved) std::printf("  %s\n", line.c_str());
  return 1;
}
}  // namespace

int main(int argc, char** argv) {
  const std::string command = argc >= 4 ? argv[1] : "";
  if (!((command == "check" || command == "write") && argc == 4) && command != "mirrors") {
    std::fprintf(stderr, "usage: golden_compare check|write CASE_DIR RUN_DIR\n"
                         "       golden_compare mirrors COPY ORIGINAL [DOTTED.PATH...]\n");
    return 2;
  }
  try {
    if (command == "check") return check(argv[2], argv[3]);
    if (command == "mirrors") return mirrors(argv[2], argv[3], std::vector<std::string>(argv + 4, argv + argc));
    write(argv[2], argv[3]);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "golden_compare: error: %s\n", e.what());
    return 2;
  }
}
