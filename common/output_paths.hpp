// The one output rule of every lynxsim command: nothing the tool writes may destroy anything it did not create for
// this run. Before any work a command lists what it reads (files, folders of results) and what it writes (files,
// folders with the names it will write inside them); check() then resolves every path (the real path of its
// existing part plus the rest, so `./c.json`, `c.json` and a symbolic link to it are one file) and refuses, with one
// LynxError naming the options and paths (exit 2):
//   - an output that is an input of the same command, or the same file as another output, or that would replace a
//     file inside a folder the command reads from (the data folder, the project's catalogs, a model folder);
//   - a folder where a file is meant, a file where a folder is meant, a file to write inside an output folder that
//     exists and is not a regular file;
//   - anything existing that is not a regular file (a FIFO, a device, a socket) or, for folders, a folder;
//   - a place that cannot be written (a file in the way of its parent, no permission).
// Why one place: every command had its own half of these checks, and the missing halves let `--timeline c.json`
// replace the configuration and `--timeline /dev/null` replace a device. write_file_atomic
// (common/atomic_file.hpp) checks the target again at rename time, for what changed in between.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace lynx {

// `path` resolved: the canonical path of its longest existing prefix (symbolic links followed) with the rest
// appended, lexically normalised. Relative paths are taken from the current folder.
std::string resolved_path(const std::string& path);

class OutputPlan {
 public:
  // A file the command reads (a missing or empty path is ignored: the reader names it).
  void input_file(const std::string& option, const std::string& path);
  // A folder whose files the command reads (merge's shards, plot's results): no output may be that folder, and no
  // output file may be one of `files` (relative paths) inside it (an empty list: any file directly inside it).
  void input_folder(const std::string& option, const std::string& path, std::vector<std::string> files = {});
  // A folder any file of which the command may read (the data folder, the project's catalogs, a model folder's
  // files): no output may replace a file that exists anywhere below it; new files may be written there. `what`
  // says what it is in messages ("the data folder").
  void input_tree(const std::string& what, const std::string& path);
  // The shared folders a command reads from, each as an input tree: the data folder (and the project's data
  // manifest, scripts/data-manifest.tsv, that checks it), and the project folder's catalogs (models/catalog), kernel
  // cost tables (kernels/costs) and accuracy files (models/accuracy), as `reads` names them. A command that writes
  // one of these (accuracy writes an accuracy file, bench-kernels a cost table) does not name that one.
  enum SharedInputs : unsigned {
    kDataFolder = 1,
    kCatalogs = 2,
    kKernelCosts = 4,
    kAccuracyFiles = 8,
    kAllShared = 15,
  };
  void input_shared(unsigned reads);
  // A file the command writes whole (temporary file + rename).
  void output_file(const std::string& option, const std::string& path);
  // A folder the command creates if needed and writes `files` (relative paths) inside.
  void output_folder(const std::string& option, const std::string& path, std::vector<std::string> files = {});

  // Applies the rule above; throws LynxError on the first violation. Creates nothing.
  void check() const;

 private:
  struct Entry {
    std::string option, path, resolved;
    std::vector<std::string> files;
  };
  std::vector<Entry> input_files_, input_folders_, input_trees_, output_files_, output_folders_;
};

// The whole rule for a command that writes one file: `path` (given as `option`) against its inputs (option, path).
void output_rule_check_file(const std::string& option, const std::string& path,
                            const std::vector<std::pair<std::string, std::string>>& inputs = {});

}  // namespace lynx
