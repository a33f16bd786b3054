#include "common/data_folder.hpp"

#include <cstdlib>
#include <filesystem>

#include "common/data_manifest.hpp"
#include "common/error.hpp"

namespace lynx {

namespace fs = std::filesystem;

namespace {
std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value && *value ? std::string(value) : std::string();
}
}  // namespace

std::string checkout_holding(const std::string& file) {
  std::error_code ec;
  fs::path dir = fs::absolute(file, ec).lexically_normal().parent_path();
  for (; !dir.empty(); dir = dir.parent_path()) {
    if (fs::is_regular_file(dir / "models" / "catalog" / "models.json", ec) &&
        fs::is_regular_file(dir / "experiments" / "plot_results.py", ec))
      return dir.string();
    if (dir == dir.root_path()) break;
  }
  return "";
}

ProjectFolder project_folder() {
  std::string env = env_or_empty("LYNX_PROJECT_DIR");
  if (!env.empty()) return {fs::path(env).lexically_normal().string(), "$LYNX_PROJECT_DIR"};
  // The running binary does not move: its checkout is looked for once per process (a run asks for files of the
  // checkout a few dozen times, each look a readlink and a few stats).
  static const ProjectFolder from_binary = [] {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);  // Linux; elsewhere the build-time checkout
    if (!ec) {
      const std::string checkout = checkout_holding(exe.string());
      if (!checkout.empty())
        return ProjectFolder{checkout, "the checkout that holds the running lynxsim (" + exe.string() + ")"};
    }
#ifdef LYNX_SOURCE_DIR
    return ProjectFolder{LYNX_SOURCE_DIR, "the checkout lynxsim was built from (the running binary" +
                                              (ec ? std::string() : " " + exe.string()) + " is in no checkout)"};
#else
    return ProjectFolder{".", "the current folder (no checkout found)"};
#endif
  }();
  return from_binary;
}

std::string project_dir() {
  return project_folder().path;
}

DataFolder data_folder() {
  std::string env = env_or_empty("LYNX_DATA_DIR");
  if (!env.empty()) return {env, "--data-dir / $LYNX_DATA_DIR"};
  const fs::path shared = (fs::path(project_dir()) / ".." / "shared" / "data").lexically_normal();
  std::error_code ec;
  if (fs::is_directory(shared, ec)) return {shared.string(), "../shared/data beside the checkout"};
  return {(fs::path(project_dir()) / "data").lexically_normal().string(),
          "data/ in the checkout (neither $LYNX_DATA_DIR nor ../shared/data is there)"};
}

std::string data_file(const std::string& relative_path) {
  const DataFolder folder = data_folder();
  const std::string path = (fs::path(folder.path) / relative_path).lexically_normal().string();
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    // scripts/get-data.sh is the answer only for a file it fetches, or when the data folder itself is missing; any
    // other path is a file that is not there (a misspelt name), said as such.
    const bool folder_missing = !fs::is_directory(folder.path, ec);
    const bool fetched = data_manifest().count(fs::path(relative_path).lexically_normal().string()) > 0;
    if (folder_missing || fetched)
      throw_error("data file \"%s\" not found: looked for %s (data folder chosen by %s%s); run scripts/get-data.sh "
                  "to fetch it, or point --data-dir / LYNX_DATA_DIR at a folder that holds it",
                  relative_path.c_str(), path.c_str(), folder.chosen_by.c_str(),
                  folder_missing ? ", and it does not exist" : "");
    throw_error("data file \"%s\" not found: looked for %s (data folder chosen by %s); no such file there, and it is "
                "not one scripts/get-data.sh fetches (scripts/data-manifest.tsv): check the path",
                relative_path.c_str(), path.c_str(), folder.chosen_by.c_str());
  }
  data_manifest_check_once(folder.path, relative_path);  // common/data_manifest.hpp
  return path;
}

std::string resolve_input_path(const std::string& path, const std::string& base_dir) {
  const std::string prefix = kDataPrefix;
  if (path.compare(0, prefix.size(), prefix) == 0) return data_file(path.substr(prefix.size()));
  if (path.empty() || fs::path(path).is_absolute() || base_dir.empty()) return path;
  return (fs::path(base_dir) / path).lexically_normal().string();
}

void data_folder_check_file(const std::string& path) {
  const std::string folder = fs::absolute(data_folder().path).lexically_normal().string() + "/";
  const std::string file = fs::absolute(path).lexically_normal().string();
  if (file.compare(0, folder.size(), folder) == 0) data_manifest_check_once(folder, file.substr(folder.size()));
}

}  // namespace lynx
