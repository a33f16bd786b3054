#include "common/data_manifest.hpp"

#include <sys/stat.h>
#include <time.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>
#include <sstream>

#include "common/atomic_file.hpp"
#include "common/data_folder.hpp"
#include "common/error.hpp"
#include "common/sha256.hpp"

namespace lynx {

namespace fs = std::filesystem;

namespace {
std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != 0 ? v : "";
}

// One cache line: "<absolute path>\t<size>\t<mtime ns>\t<sha256>".
std::string cache_key(const std::string& path, const struct stat& info) {
  return path + "\t" + std::to_string(info.st_size) + "\t" +
         std::to_string(static_cast<long long>(info.st_mtim.tv_sec) * 1000000000LL + info.st_mtim.tv_nsec);
}
}  // namespace

DataManifest data_manifest_read(const std::string& manifest_path) {
  DataManifest m;
  std::istringstream in(read_file(manifest_path));
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    const size_t tab = line.find('\t');
    const size_t tab2 = tab == std::string::npos ? std::string::npos : line.find('\t', tab + 1);
    const std::string sha = tab == std::string::npos ? "" : line.substr(tab + 1, tab2 - tab - 1);
    if (sha.size() != 64) throw_error("%s:%d: expected PATH<tab>SHA256<tab>...", manifest_path.c_str(), number);
    m[line.substr(0, tab)] = sha;
  }
  return m;
}

const DataManifest& data_manifest() {
  static const DataManifest m = [] {
    const std::string path = project_dir() + "/scripts/data-manifest.tsv";
    std::error_code error;
    return fs::exists(path, error) ? data_manifest_read(path) : DataManifest{};
  }();
  return m;
}

std::string lynx_cache_dir() {
  std::string dir = env("LYNX_CACHE_DIR");
  if (dir.empty() && !env("XDG_CACHE_HOME").empty()) dir = env("XDG_CACHE_HOME") + "/lynxsim";
  if (dir.empty() && !env("HOME").empty()) dir = env("HOME") + "/.cache/lynxsim";
  return dir;
}

std::string data_manifest_cache_path() {
  const std::string dir = lynx_cache_dir();
  return dir.empty() ? "" : dir + "/data-sha256.tsv";
}

namespace {
// Files this process has found equal to the manifest (absolute normal path -> sha256), for data_file_sha256.
std::mutex verified_mutex;
std::map<std::string, std::string> verified;

void note_verified(const std::string& path, const std::string& sha) {
  std::lock_guard<std::mutex> lock(verified_mutex);
  verified[path] = sha;
}

void forget_verified(const std::string& path) {
  std::lock_guard<std::mutex> lock(verified_mutex);
  verified.erase(path);
}

// A file modified less than this before it is hashed is not cached: on a file system with coarse modification
// times it could change again within the same tick, same size, and the cache would not see it (git's "racily
// clean" entries).
constexpr long long kRacyNs = 2000000000LL;

// The cache file's text, read once per process and path (a run checks a few dozen files against the manifest),
// and what this process last wrote there.
std::mutex cache_texts_mutex;
std::map<std::string, std::string> cache_texts;

std::string cache_text(const std::string& cache_path) {
  if (cache_path.empty()) return "";
  std::lock_guard<std::mutex> lock(cache_texts_mutex);
  const auto it = cache_texts.find(cache_path);
  if (it != cache_texts.end()) return it->second;
  std::error_code error;
  std::string text = fs::is_regular_file(cache_path, error) ? read_file(cache_path) : std::string();
  cache_texts.emplace(cache_path, text);
  return text;
}

void remember_cache_text(const std::string& cache_path, const std::string& text) {
  std::lock_guard<std::mutex> lock(cache_texts_mutex);
  cache_texts[cache_path] = text;
}
}  // namespace

bool data_manifest_check(const std::string& data_dir, const std::string& relative, const DataManifest& manifest,
                         const std::string& cache_path) {
  const auto listed = manifest.find(fs::path(relative).lexically_normal().string());
  if (listed == manifest.end()) return false;
  const std::string path = fs::absolute(fs::path(data_dir) / relative).lexically_normal().string();
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return false;  // a missing file is its reader's message
  const std::string key = cache_key(path, info);
  std::error_code error;
  const std::string cache = cache_text(cache_path);
  if (cache.find(key + "\t" + listed->second + "\n") != std::string::npos) {  // unchanged since last hashed
    note_verified(path, listed->second);
    return true;
  }
  struct timespec now {};
  ::clock_gettime(CLOCK_REALTIME, &now);
  const std::string sha = sha256_file(path);
  if (sha != listed->second) {
    forget_verified(path);
    throw_error("%s: changed: its sha256 is %s, scripts/data-manifest.tsv gives %s for %s; fetch it again "
                "(scripts/get-data.sh) or point --data-dir at an unchanged copy",
                path.c_str(), sha.c_str(), listed->second.c_str(), relative.c_str());
  }
  note_verified(path, sha);
  const long long mtime_ns = static_cast<long long>(info.st_mtim.tv_sec) * 1000000000LL + info.st_mtim.tv_nsec;
  const long long now_ns = static_cast<long long>(now.tv_sec) * 1000000000LL + now.tv_nsec;
  if (cache_path.empty() || now_ns - mtime_ns < kRacyNs) return true;
  // Drop older lines of this path, add the new one; a cache that cannot be written only costs a hash next time.
  std::istringstream lines(cache);
  std::string kept, line;
  while (std::getline(lines, line))
    if (line.compare(0, path.size() + 1, path + "\t") != 0) kept += line + "\n";
  try {
    fs::create_directories(fs::path(cache_path).parent_path(), error);
    write_file_atomic(cache_path, kept + key + "\t" + sha + "\n");
    remember_cache_text(cache_path, kept + key + "\t" + sha + "\n");
  } catch (const LynxError&) {
  }
  return true;
}

void data_manifest_check_once(const std::string& data_dir, const std::string& relative) {
  static std::mutex mutex;
  static std::set<std::string> checked;
  const std::string key = data_dir + "\n" + relative;
  std::lock_guard<std::mutex> lock(mutex);
  if (checked.count(key) != 0) return;
  data_manifest_check(data_dir, relative, data_manifest(), data_manifest_cache_path());
  checked.insert(key);
}

std::string data_file_verified_sha256(const std::string& path) {
  const std::string normal = fs::absolute(path).lexically_normal().string();
  std::lock_guard<std::mutex> lock(verified_mutex);
  const auto it = verified.find(normal);
  return it == verified.end() ? "" : it->second;
}

std::string data_file_sha256(const std::string& path) {
  const std::string verified_sha = data_file_verified_sha256(path);
  return verified_sha.empty() ? sha256_file(path) : verified_sha;
}

}  // namespace lynx
