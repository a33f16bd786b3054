#include "common/output_paths.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include "common/atomic_file.hpp"
#include "common/data_folder.hpp"
#include "common/error.hpp"

namespace lynx {

namespace fs = std::filesystem;

namespace {
// "a FIFO", "a character device", ...: what an existing path is, for messages.
std::string kind_of(const fs::file_status& status) {
  switch (status.type()) {
    case fs::file_type::regular: return "a regular file";
    case fs::file_type::directory: return "a folder";
    case fs::file_type::fifo: return "a FIFO";
    case fs::file_type::character: return "a character device";
    case fs::file_type::block: return "a block device";
    case fs::file_type::socket: return "a socket";
    default: return "not a regular file";
  }
}

std::string label(const std::string& option, const std::string& path) { return option + " " + path; }
}  // namespace

std::string resolved_path(const std::string& path) {
  std::error_code error;
  fs::path absolute = fs::absolute(path.empty() ? "." : path, error);
  fs::path canonical = fs::weakly_canonical(absolute, error);
  if (error) return absolute.lexically_normal().string();
  std::string text = canonical.lexically_normal().string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

void OutputPlan::input_file(const std::string& option, const std::string& path) {
  if (path.empty() || path == "-") return;
  for (const Entry& e : input_files_)
    if (e.path == path) return;  // named again (by every sweep point): resolved once
  input_files_.push_back({option, path, resolved_path(path), {}});
}

void OutputPlan::input_folder(const std::string& option, const std::string& path, std::vector<std::string> files) {
  input_folders_.push_back({option, path, resolved_path(path), std::move(files)});
}

void OutputPlan::input_tree(const std::string& what, const std::string& path) {
  if (path.empty()) return;
  const std::string resolved = resolved_path(path);
  for (const Entry& e : input_trees_)
    if (e.resolved == resolved) return;
  input_trees_.push_back({what, path, resolved, {}});
}

void OutputPlan::input_shared(unsigned reads) {
  if (reads & kDataFolder) {
    try {
      input_tree("the data folder", data_folder().path);
    } catch (const LynxError&) {
      // no data folder: nothing in it to replace
    }
  }
  std::string project;
  try {
    project = project_dir();
  } catch (const LynxError&) {
    return;
  }
  if (reads & kDataFolder) input_file("the data manifest", project + "/scripts/data-manifest.tsv");
  if (reads & kCatalogs) input_tree("the project's catalogs", project + "/models/catalog");
  if (reads & kKernelCosts) input_tree("the project's kernel cost tables", project + "/kernels/costs");
  if (reads & kAccuracyFiles) input_tree("the project's accuracy files", project + "/models/accuracy");
}

void OutputPlan::output_file(const std::string& option, const std::string& path) {
  output_files_.push_back({option, path, resolved_path(path), {}});
}

void OutputPlan::output_folder(const std::string& option, const std::string& path, std::vector<std::string> files) {
  output_folders_.push_back({option, path, resolved_path(path), std::move(files)});
}

void OutputPlan::check() const {
  std::error_code error;
  // What is there now: the right kind of thing, in a place that can be written.
  for (const Entry& o : output_files_) {
    check_output_location(o.path, false, o.option.c_str());
    const fs::file_status status = fs::status(o.resolved, error);
    if (fs::exists(status) && !fs::is_regular_file(status))
      throw_error("%s %s: is %s, not a regular file; lynxsim writes only regular files (choose a file path)",
                  o.option.c_str(), o.path.c_str(), kind_of(status).c_str());
  }
  // Every file written, by its resolved path, with the option that writes it (for messages).
  std::map<std::string, std::string> written;
  auto add_written = [&](const std::string& resolved, const std::string& what) {
    auto [it, added] = written.emplace(resolved, what);
    if (!added)
      throw_error("%s and %s are the same file (%s): each output needs a path of its own", it->second.c_str(),
                  what.c_str(), resolved.c_str());
  };
  for (const Entry& o : output_folders_) {
    check_output_location(o.path, true, o.option.c_str());
    for (const std::string& file : o.files) {
      const std::string resolved = o.resolved + "/" + file;
      const fs::file_status status = fs::status(resolved, error);
      if (fs::exists(status) && !fs::is_regular_file(status))
        throw_error("%s %s: %s/%s is %s, where lynxsim writes a regular file", o.option.c_str(), o.path.c_str(),
                    o.path.c_str(), file.c_str(), kind_of(status).c_str());
      add_written(resolved, label(o.option, o.path) + " (its " + file + ")");
    }
  }
  for (const Entry& o : output_files_) add_written(o.resolved, label(o.option, o.path));
  // No output is a folder another one writes into, or the same folder as another output folder.
  for (size_t i = 0; i < output_folders_.size(); ++i)
    for (size_t j = i + 1; j < output_folders_.size(); ++j)
      if (output_folders_[i].resolved == output_folders_[j].resolved)
        throw_error("%s and %s are the same folder: each output needs a path of its own",
                    label(output_folders_[i].option, output_folders_[i].path).c_str(),
                    label(output_folders_[j].option, output_folders_[j].path).c_str());
  for (const Entry& f : output_files_) {
    for (const Entry& d : output_folders_)
      if (f.resolved == d.resolved)
        throw_error("%s is also the folder %s: a file and a folder cannot share a path",
                    label(f.option, f.path).c_str(), label(d.option, d.path).c_str());
    const std::string below = f.resolved + "/";
    for (const auto& [resolved, what] : written)
      if (resolved.compare(0, below.size(), below) == 0)
        throw_error("%s: %s writes a file inside that path (%s)", label(f.option, f.path).c_str(), what.c_str(),
                    resolved.c_str());
  }
  // No output replaces an input.
  for (const Entry& in : input_files_) {
    auto it = written.find(in.resolved);
    if (it != written.end())
      throw_error("%s would replace the input %s: choose another output path", it->second.c_str(),
                  label(in.option, in.path).c_str());
    for (const Entry& d : output_folders_)
      if (in.resolved == d.resolved)
        throw_error("%s is the input %s: choose another output folder", label(d.option, d.path).c_str(),
                    label(in.option, in.path).c_str());
  }
  for (const Entry& in : input_folders_) {
    for (const Entry& d : output_folders_)
      if (in.resolved == d.resolved)
        throw_error("%s is also the input folder %s: write into another folder", label(d.option, d.path).c_str(),
                    label(in.option, in.path).c_str());
    const std::string inside = in.resolved + "/";
    for (const auto& [resolved, what] : written) {
      if (resolved.compare(0, inside.size(), inside) != 0) continue;
      const std::string name = resolved.substr(inside.size());
      if (in.files.empty() ? name.find('/') == std::string::npos
                           : std::find(in.files.begin(), in.files.end(), name) != in.files.end())
        throw_error("%s would replace %s/%s, an input of this command (%s): choose another output path",
                    what.c_str(), in.path.c_str(), name.c_str(), label(in.option, in.path).c_str());
    }
  }
  // No output replaces a file inside a folder the command reads from (new files may go there).
  for (const Entry& tree : input_trees_) {
    const std::string inside = tree.resolved + "/";
    for (const auto& [resolved, what] : written) {
      if (resolved.compare(0, inside.size(), inside) != 0 || !fs::exists(resolved, error)) continue;
      throw_error("%s would replace %s, a file of %s (%s), which this command reads: choose another output path",
                  what.c_str(), resolved.c_str(), tree.option.c_str(), tree.path.c_str());
    }
  }
}

void output_rule_check_file(const std::string& option, const std::string& path,
                            const std::vector<std::pair<std::string, std::string>>& inputs) {
  OutputPlan plan;
  for (const auto& [input_option, input_path] : inputs) plan.input_file(input_option, input_path);
  plan.output_file(option, path);
  plan.check();
}

}  // namespace lynx
