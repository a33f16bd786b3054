// The data folder checked against scripts/data-manifest.tsv: every file lynxsim reads from the data folder that
// the manifest lists must have the manifest's sha256, or the run stops with one LynxError naming the file (a trace,
// a model or a calibration table edited, cut or replaced would otherwise change results without a word).
// Hashing is cheap: each file is hashed at most once per process (sweep points inherit the parent's checks), and
// a file whose size and modification time match a cache entry is not hashed again. The cache is one TSV, replaced
// whole by an atomic rename (concurrent processes lose at most an entry, never corrupt one; a line that does not
// match exactly is ignored),
// $LYNX_CACHE_DIR/data-sha256.tsv, else $XDG_CACHE_HOME/lynxsim/, else $HOME/.cache/lynxsim/ (never inside the
// repository or the data folder); without a writable cache folder every process hashes again. Files the manifest
// does not list (a user's own trace under the data folder) are not checked.
#pragma once
#include <map>
#include <string>

namespace lynx {

// path inside the data folder -> sha256 (lower-case hex), from the manifest's first two columns.
using DataManifest = std::map<std::string, std::string>;
DataManifest data_manifest_read(const std::string& manifest_path);
// <project>/scripts/data-manifest.tsv, read once.
const DataManifest& data_manifest();
// lynxsim's cache folder: $LYNX_CACHE_DIR, else $XDG_CACHE_HOME/lynxsim, else $HOME/.cache/lynxsim ("" when none
// can be named). It holds this cache and the column caches of measurement tables (models/readers/csv_column_cache.hpp).
std::string lynx_cache_dir();
// The cache file ("" when no cache folder can be named).
std::string data_manifest_cache_path();

// Checks data_dir/relative against `manifest` (nothing when it lists no such path), using and updating the cache
// file `cache_path` ("" for none; a file modified less than 2 s before it was hashed is not cached). Throws
// LynxError naming the file, both digests and how to restore it; returns whether the manifest listed the file
// (and so it was checked: its digest is then known to data_file_sha256).
bool data_manifest_check(const std::string& data_dir, const std::string& relative, const DataManifest& manifest,
                         const std::string& cache_path);
// The same with the shipped manifest and the default cache, once per file and process.
void data_manifest_check_once(const std::string& data_dir, const std::string& relative);

// The sha256 of the file at `path`: the manifest's digest where this process has checked the file against the
// manifest (hashed then, or found unchanged in the cache by path, size and modification time), without reading it
// again; else the file hashed now. A summary names its trace by it: the Mooncake trace's second hash was a twelfth
// of a one-request run's start-up.
std::string data_file_sha256(const std::string& path);
// The manifest's digest of `path` where this process has checked the file against the manifest, else "" (never
// hashes).
std::string data_file_verified_sha256(const std::string& path);

}  // namespace lynx
