// Where lynxsim finds its files.
//
// Two roots, kept apart on purpose:
// - the project folder: what the project itself ships and computes (catalogs, kernel cost tables, accuracy files,
//   the plot scripts). It is found in this order: $LYNX_PROJECT_DIR if set; else the checkout that holds the
//   running lynxsim binary (its nearest parent folder with models/catalog/models.json and
//   experiments/plot_results.py), so a binary built in a clone reads that clone's files; else (a binary copied
//   out of any checkout) the checkout it was built from;
// - the data folder: data from other public projects (traces, the stories260K model and tokenizer, evaluation
//   text, published calibration measurements), never committed to the repository. It is found in this order:
//   `--data-dir` / $LYNX_DATA_DIR if given; else `../shared/data` beside the checkout when that folder exists;
//   else `data/` in the checkout, where scripts/get-data.sh downloads the files for a user who has neither.
//
// Configuration and experiment files name a data file as "@data/<path inside the data folder>", for example
// "@data/traces/mooncake/conversation_trace.jsonl"; any other relative path resolves against the file's folder.
#pragma once
#include <string>

namespace lynx {

// The project folder (see above), without a trailing slash, and the rule that chose it (for `lynxsim config
// --where` and messages), e.g. "$LYNX_PROJECT_DIR" or "the checkout that holds the running lynxsim (PATH)".
struct ProjectFolder {
  std::string path;
  std::string chosen_by;
};
ProjectFolder project_folder();
std::string project_dir();  // project_folder().path

// The checkout that holds `file` (its nearest parent folder with the project's marker files), or "" if none.
std::string checkout_holding(const std::string& file);

// The data folder and the rule that chose it (for messages), e.g. "$LYNX_DATA_DIR" or "../shared/data beside
// the checkout".
struct DataFolder {
  std::string path;
  std::string chosen_by;
};
DataFolder data_folder();

// The full path of a file inside the data folder; a missing file is one LynxError that names the path looked
// for and how the folder was chosen, and how to get the file (scripts/get-data.sh) when the script fetches it
// (scripts/data-manifest.tsv lists it) or the data folder itself is missing; else it says the file is not there.
std::string data_file(const std::string& relative_path);

// Checks a file read by its full path (a calibration table) against the data manifest when it lies in the data
// folder (common/data_manifest.hpp); data_file() checks every file it names.
void data_folder_check_file(const std::string& path);

// The prefix that marks a path as relative to the data folder.
inline constexpr const char* kDataPrefix = "@data/";

// Resolves a path written in a configuration, an experiment or on the command line: "@data/..." inside the data
// folder (checked to exist), absolute paths as they are, anything else relative to base_dir ("" = as given).
std::string resolve_input_path(const std::string& path, const std::string& base_dir);

}  // namespace lynx
